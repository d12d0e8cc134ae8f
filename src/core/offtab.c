/* offtab.c — accesses by offset within their data object. */
#include "core/offtab.h"

int dc_offtab_init(struct dc_offtab *t, const struct dc_env *env, uint64_t window,
		   uint64_t max_cells, uint64_t share, bool unused)
{
	memset(t, 0, sizeof *t);
	if (window == 0 || window > DC_OFF_WINDOW_MAX || max_cells == 0 || share == 0)
		return DC_EINVAL;
	t->window = window;
	t->max_cells = max_cells;
	t->share = share;
	t->unused = unused;
	return dc_rectab_init(&t->r, env, unused ? sizeof(struct dc_offcell) : DC_OFFCELL_PLAIN,
			      2 * sizeof(uint32_t), "offtab");
}

void dc_offtab_release(struct dc_offtab *t)
{
	dc_rectab_release(&t->r);
	memset(t, 0, sizeof *t);
}

/* The recent-cells slot of (bucket, o); the same hash as dc_offtab_cell. */
static struct dc_offcell **recent_slot(struct dc_offtab *t, uint32_t bucket, uint32_t o)
{
	return &t->recent[(o * 0x9e3779b1u + bucket * 0x85ebca6bu) >> 22];
}

/* The beyond cell of bucket, with its grain set from osize when new;
 * NULL when memory ran out. */
static struct dc_offcell *bucket_cell(struct dc_offtab *t, uint32_t bucket, uint64_t osize)
{
	uint32_t key[2] = { bucket, DC_OFF_BEYOND };
	struct dc_offcell *b = dc_rectab_get(&t->r, key);
	uint64_t ext = osize < t->window ? osize : t->window;
	unsigned s = 0;

	if (!b || b->gshift)
		return b;
	while (s < DC_OFF_GRAIN_SHIFT_MAX && ((ext + (1ull << s) - 1) >> s) > t->share)
		s++;
	b->gshift = (uint8_t)(s + 1);
	return b;
}

struct dc_offcell *dc_offtab_cell_slow(struct dc_offtab *t, uint32_t bucket, uint64_t off,
				       uint64_t osize)
{
	uint32_t o = off < t->window ? (uint32_t)off : DC_OFF_BEYOND;
	struct dc_offcell *c = NULL, *bey = bucket_cell(t, bucket, osize);

	if (!bey)
		return NULL;
	if (o != DC_OFF_BEYOND) {
		uint32_t mask = (1u << (bey->gshift - 1)) - 1;
		uint32_t key[2] = { bucket, o & ~mask };

		c = dc_rectab_find(&t->r, key);
		if (!c && t->cells < t->max_cells && bey->ncells < t->share) {
			c = dc_rectab_get(&t->r, key);
			if (!c)
				return NULL;
			c->mask = (uint8_t)mask;
			t->cells++;
			bey->ncells++;
		}
		if (c) {
			*recent_slot(t, bucket, o) = c;
			return c;
		}
		/* a new cell past the bucket's share or the cap: not cached,
		 * the inline path would take the beyond cell for its offset */
		return bey;
	}
	*recent_slot(t, bucket, o) = bey;
	return bey;
}

void dc_offtab_unused(struct dc_offtab *t, uint32_t bucket, uint64_t a, uint64_t b, int k,
		      uint64_t osize)
{
	struct dc_offcell *s, *e = NULL, *bey = bucket_cell(t, bucket, osize);
	uint64_t mask;

	if (!bey)
		return;
	if (b > t->window) {
		uint64_t from = a > t->window ? a : t->window;
		bey->ubeg[k] += b - from;
		if (a >= t->window)
			return;
		b = t->window;
	}
	/* whole grains only: a up, b down (the window ends every run) */
	mask = (1u << (bey->gshift - 1)) - 1;
	a = (a + mask) & ~mask;
	if (b < t->window)
		b &= ~mask;
	if (a >= b)
		return;
	s = dc_offtab_cell(t, bucket, a, osize);
	if (s && s->off != DC_OFF_BEYOND && b < t->window)
		e = dc_offtab_cell(t, bucket, b, osize);
	if (!s || (b < t->window && !e))
		return;
	if (s->off == DC_OFF_BEYOND || (e && e->off == DC_OFF_BEYOND)) {
		bey->ubeg[k] += b - a;
		return;
	}
	s->ubeg[k]++;
	if (e)
		e->uend[k]++;
}

static int zero_cb(void *ud, void *rec)
{
	struct dc_offcell *c = rec;
	const struct dc_offtab *t = ud;

	c->size = 0;
	memset(c->acc, 0, sizeof c->acc);
	memset(c->miss, 0, sizeof c->miss);
	c->lat = 0;
	if (t->unused) {
		memset(c->ubeg, 0, sizeof c->ubeg);
		memset(c->uend, 0, sizeof c->uend);
	}
	return 0;
}

void dc_offtab_zero(struct dc_offtab *t)
{
	dc_rectab_each(&t->r, zero_cb, t);
}

struct each {
	int (*fn)(void *ud, const struct dc_offcell *c);
	void *ud;
};

static int each_cb(void *ud, void *rec)
{
	struct each *e = ud;

	return e->fn(e->ud, rec);
}

int dc_offtab_each(const struct dc_offtab *t, int (*fn)(void *ud, const struct dc_offcell *c),
		   void *ud)
{
	struct each e = { fn, ud };

	return dc_rectab_each(&t->r, each_cb, &e);
}
