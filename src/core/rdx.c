/* rdx.c — emulated debug-register watchpoints for sampled reuse (see rdx.h
 * Notes). */
#include "core/rdx.h"
#include "core/util.h"

struct dc_rdx_ctx {
	uint32_t key[2];       /* the context hash */
	uint64_t lost;         /* samples of this context not watched to the end */
	uint64_t claimed;      /* lost samples already weighed by a trap */
};

int dc_rdx_init(struct dc_rdx *r, const struct dc_env *env, const struct dc_rdx_cfg *cfg)
{
	if (cfg->nwp < 1 || cfg->nwp > DC_RDX_MAX_WP || cfg->block_bits > 20 ||
	    cfg->max_size < 1 ||
	    (cfg->watch != DC_RDX_WATCH_DR && cfg->watch != DC_RDX_WATCH_BLOCK) ||
	    (cfg->replace != DC_RDX_RESERVOIR && cfg->replace != DC_RDX_OLDEST))
		return DC_EINVAL;
	memset(r, 0, sizeof *r);
	r->cfg = *cfg;
	r->rng = cfg->seed;
	r->shift = cfg->watch == DC_RDX_WATCH_BLOCK && cfg->block_bits > 6 ? cfg->block_bits : 6;
	return dc_rectab_init(&r->ctxs, env, sizeof(struct dc_rdx_ctx), 2 * sizeof(uint32_t),
			      "dc.rdx.ctx");
}

void dc_rdx_release(struct dc_rdx *r)
{
	dc_rectab_release(&r->ctxs);
}

/* Counts w in (delta 1) or out of (-1) every granule where an access that
 * touches it can start (rdx.h Notes), or every slot once when those
 * granules are as many as the slots (huge lines): fewer than
 * DC_RDX_FILTER counts each, so 16 watchpoints cannot wrap the 16-bit
 * counts. */
static void filter_add(struct dc_rdx *r, const struct dc_rdx_wp *w, int delta)
{
	uint64_t reach = r->cfg.watch == DC_RDX_WATCH_DR ? r->cfg.max_size - 1 : 0;
	uint64_t first = (w->lo > reach ? w->lo - reach : 0) >> r->shift;
	uint64_t last = (w->hi - 1) >> r->shift;

	if (last - first >= DC_RDX_FILTER - 1) {
		for (unsigned i = 0; i < DC_RDX_FILTER; i++)
			r->filter[i] = (uint16_t)(r->filter[i] + delta);
		return;
	}
	for (uint64_t g = first; g <= last; g++)
		r->filter[dc_rdx_slot(g)] = (uint16_t)(r->filter[dc_rdx_slot(g)] + delta);
}

static bool touches(const struct dc_rdx *r, const struct dc_rdx_wp *w, uint64_t a, unsigned size)
{
	if (r->cfg.watch == DC_RDX_WATCH_BLOCK)
		return a - w->lo < w->hi - w->lo;
	return a < w->hi && a + size > w->lo;
}

static uint64_t weigh(const struct dc_rdx *r, const struct dc_rdx_wp *w)
{
	struct dc_rdx_ctx *c = w->ctx;
	uint64_t n = 1 + c->lost - c->claimed;

	if (!r->cfg.proportional)
		return 1;
	c->claimed = c->lost;
	return n;
}

static void disarm(struct dc_rdx *r, struct dc_rdx_wp *w, struct dc_rdx_hit *out)
{
	out->t_use = w->t_use;
	out->bucket = w->bucket;
	out->loc = w->loc;
	out->weight = weigh(r, w);
	filter_add(r, w, -1);
	w->armed = false;
	w->k = 0;
	r->narmed--;
}

unsigned dc_rdx_access(struct dc_rdx *r, uint64_t a, unsigned size, struct dc_rdx_hit *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->cfg.nwp; i++) {
		struct dc_rdx_wp *w = &r->wp[i];
		if (w->armed && touches(r, w, a, size))
			disarm(r, w, &out[n++]);
	}
	r->traps += n;
	return n;
}

unsigned dc_rdx_drain(struct dc_rdx *r, struct dc_rdx_hit *out)
{
	unsigned n = 0;

	for (unsigned i = 0; i < r->cfg.nwp; i++)
		if (r->wp[i].armed)
			disarm(r, &r->wp[i], &out[n++]);
	return n;
}

/* Puts the use into w (free or being replaced); w->k is the caller's. */
static void arm(struct dc_rdx *r, struct dc_rdx_wp *w, uint64_t a, unsigned size, uint64_t t,
		struct dc_rdx_ctx *c, uint32_t bucket, uint32_t loc)
{
	uint64_t len;

	if (w->armed) {
		filter_add(r, w, -1);
		w->ctx->lost++;
		r->replaced++;
	} else {
		r->narmed++;
	}
	if (r->cfg.watch == DC_RDX_WATCH_BLOCK) {
		len = (uint64_t)1 << r->cfg.block_bits;
	} else {
		len = 1;
		while (len < size && len < 8)
			len *= 2;
	}
	w->lo = a & ~(len - 1);
	w->hi = w->lo + len;
	w->t_use = t;
	w->ctx = c;
	w->bucket = bucket;
	w->loc = loc;
	w->armed = true;
	filter_add(r, w, 1);
	r->arms++;
}

/* The watchpoint a new sample replaces when all are armed, or NULL. */
static struct dc_rdx_wp *victim(struct dc_rdx *r)
{
	unsigned order[DC_RDX_MAX_WP], n = r->cfg.nwp;
	struct dc_rdx_wp *chosen = NULL;

	if (r->cfg.replace == DC_RDX_OLDEST) {
		chosen = &r->wp[0];
		for (unsigned i = 1; i < n; i++)
			if (r->wp[i].t_use < chosen->t_use)
				chosen = &r->wp[i];
		return chosen;
	}
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	for (unsigned i = n - 1; i > 0; i--) {      /* Fisher-Yates */
		unsigned j = (unsigned)(dc_rand64(&r->rng) % (i + 1));
		unsigned t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	for (unsigned i = 0; i < n; i++) {
		struct dc_rdx_wp *w = &r->wp[order[i]];
		w->k++;
		if (!chosen && dc_rand64(&r->rng) % w->k == 0)
			chosen = w;
	}
	return chosen;
}

int dc_rdx_sample(struct dc_rdx *r, uint64_t a, unsigned size, uint64_t t, uint64_t ctx,
		  uint32_t bucket, uint32_t loc)
{
	uint32_t key[2] = { (uint32_t)ctx, (uint32_t)(ctx >> 32) };
	struct dc_rdx_ctx *c = dc_rectab_get(&r->ctxs, key);
	struct dc_rdx_wp *w = NULL;

	r->samples++;
	if (!c) {
		r->dropped++;
		return DC_ENOMEM;
	}
	for (unsigned i = 0; i < r->cfg.nwp && !w; i++)
		if (!r->wp[i].armed)
			w = &r->wp[i];
	if (w) {
		for (unsigned i = 0; i < r->cfg.nwp; i++)
			if (r->wp[i].armed)
				r->wp[i].k++;
		w->k = 1;
	} else {
		w = victim(r);
	}
	if (!w) {
		c->lost++;
		r->dropped++;
		return 0;
	}
	arm(r, w, a, size, t, c, bucket, loc);
	return 0;
}
