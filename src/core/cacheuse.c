/* cacheuse.c — use records of the cache model: setup, passing level-1 use
 * deeper, charging ended residencies (see cacheuse.h Notes). */
#include "core/cacheuse.h"
#include "core/util.h"

int dc_cacheuse_init(struct dc_cacheuse *u, struct dc_cache *c, uint32_t maxbits,
		     const struct dc_env *env)
{
	memset(u, 0, sizeof *u);
	for (int k = 1; k < c->nlevels; k++)
		if (c->lv[k].line_bits != c->lv[0].line_bits)
			return DC_EINVAL;
	u->c = c;
	for (int k = 0; k < c->nlevels; k++) {
		const struct dc_cache_level *l = &c->lv[k];
		struct dc_use_level *ul = &u->lv[k];
		size_t n = (size_t)(l->set_mask + 1) * l->assoc;
		uint32_t line = (uint32_t)1 << l->line_bits;

		ul->nbits = line < maxbits ? line : maxbits;
		ul->unit_bits = (uint32_t)dc_log2(line / ul->nbits);
		ul->slot = dc_alloc(env, n * sizeof *ul->slot, "cacheuse.slot");
		ul->line = dc_alloc(env, n * sizeof *ul->line, "cacheuse.line");
		if (!ul->slot || !ul->line) {
			dc_cacheuse_release(u, env);
			return DC_ENOMEM;
		}
		for (size_t i = 0; i < n; i++)
			ul->slot[i] = (uint32_t)(i % l->assoc);
		memset(ul->line, 0, n * sizeof *ul->line);
	}
	return 0;
}

void dc_cacheuse_release(struct dc_cacheuse *u, const struct dc_env *env)
{
	for (int k = 0; k < DC_MAX_LEVELS; k++) {
		dc_free(env, u->lv[k].slot);
		dc_free(env, u->lv[k].line);
	}
	memset(u, 0, sizeof *u);
}

static uint32_t popcount64(uint64_t x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (uint32_t)((x * 0x0101010101010101ULL) >> 56);
}

/* The use record of `block` at level k, NULL when the level lacks it. */
static struct dc_use_line *find(struct dc_cacheuse *u, int k, uint64_t block)
{
	const struct dc_cache_level *l = &u->c->lv[k];
	size_t base = (size_t)(block & l->set_mask) * l->assoc;

	for (uint32_t i = 0; i < l->assoc; i++)
		if (l->tags[base + i] == block)
			return u->lv[k].line + base + u->lv[k].slot[base + i];
	return NULL;
}

/* Adds level-1 record r1's use not passed on yet to every deeper level
 * holding `block`, level k's record being `self` (NULL: skip level k). */
static void pass_on(struct dc_cacheuse *u, struct dc_use_line *r1, uint64_t block, int k,
		    struct dc_use_line *self)
{
	uint32_t n = r1->count - r1->passed;

	for (int j = 1; j < u->c->nlevels; j++) {
		struct dc_use_line *r = j == k ? self : find(u, j, block);
		if (r) {
			r->count += n;
			r->mask |= r1->pmask;
		}
	}
	r1->passed = r1->count;
	r1->pmask = 0;
}

static void charge(struct dc_cacheuse *u, int k, struct dc_use_line *r)
{
	struct dc_cost *c = r->loader;

	if (!c || !r->count)
		return;
	c->sploss[k] += (uint64_t)(u->lv[k].nbits - popcount64(r->mask)) << u->lv[k].unit_bits;
	c->accost[k] += 1000 / r->count;
}

void dc_cacheuse_evict(struct dc_cacheuse *u, int k, uint64_t block, struct dc_use_line *r)
{
	if (k == 0) {
		pass_on(u, r, block, -1, NULL);
	} else {
		struct dc_use_line *r1 = find(u, 0, block);
		if (r1)
			pass_on(u, r1, block, k, r);
	}
	charge(u, k, r);
}

bool dc_cacheuse_deep_load(struct dc_cacheuse *u, int k, uint64_t block)
{
	struct dc_use_line *r1 = find(u, 0, block);

	if (!r1)
		return false;
	pass_on(u, r1, block, k, NULL);
	return true;
}

void dc_cacheuse_finish(struct dc_cacheuse *u)
{
	for (int k = 0; k < u->c->nlevels; k++) {
		const struct dc_cache_level *l = &u->c->lv[k];
		struct dc_use_level *ul = &u->lv[k];
		size_t n = (size_t)(l->set_mask + 1) * l->assoc;

		for (size_t i = 0; i < n; i++) {
			struct dc_use_line *r;
			if (l->tags[i] == DC_EMPTY_TAG)
				continue;
			r = ul->line + (i - i % l->assoc) + ul->slot[i];
			if (k == 0)
				pass_on(u, r, l->tags[i], -1, NULL);
			charge(u, k, r);
			r->loader = NULL;
			r->count = r->passed = 0;
			r->mask = r->pmask = 0;
		}
	}
}
