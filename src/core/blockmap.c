/* blockmap.c — small heap blocks by start address (see blockmap.h Notes). */
#include "core/blockmap.h"
#include "core/util.h"

/* A slot: key | (size + 1) << SIZE_SHIFT | recorded << REC_SHIFT |
 * bucket << BUCKET_SHIFT; 0 is empty (the size field is never 0). */
#define KEY_MASK 0xffffffffULL
#define SIZE_SHIFT 32
#define SIZE_MASK 0x7ffULL
#define REC_SHIFT 43
#define BUCKET_SHIFT 44
#define REGION_MASK ((1ULL << DC_BLOCKMAP_REGION_BITS) - 1)
#define SEG_MASK (DC_BLOCKMAP_SEG - 1)
#define MAX_DEPTH 40 /* directory bits: well clear of the in-segment hash bits */

_Static_assert(DC_BLOCKMAP_MAX + 1 <= SIZE_MASK, "a size fits its field");
_Static_assert(DC_BLOCKMAP_BUCKETS == 1u << (64 - BUCKET_SHIFT), "a bucket fits its field");
_Static_assert(DC_BLOCKMAP_REGION_BITS - 4 == 32, "a key is 32 bits");

struct dc_blockmap_seg {
	uint32_t n;              /* blocks held */
	unsigned depth;          /* the hash's top bits all its blocks share */
	uint64_t slots[DC_BLOCKMAP_SEG];
};

/* The hash of a key: its top bits pick the segment, its low bits the run
 * of slots in it.  The blocks of one 1 KiB stretch of memory hash to one
 * run of 64 slots, in address order: a program allocates and frees
 * neighbours together (and a containment lookup probes neighbouring
 * starts), so they share the table's cache lines instead of missing once
 * each — a third of the cost of a million small blocks allocated in a
 * row. */
static uint64_t hash_of(uint64_t key)
{
	return dc_hash64(key >> 6);
}

static uint64_t home_of(uint64_t h, uint64_t key)
{
	return (h << 6 | (key & 63)) & SEG_MASK;
}

static struct dc_blockmap_seg *seg_of(const struct dc_blockmap_region *r, uint64_t h)
{
	return r->dir[r->depth ? h >> (64 - r->depth) : 0];
}

static void unpack(uint64_t s, uint64_t base, struct dc_blockmap_ent *e)
{
	e->lo = base << DC_BLOCKMAP_REGION_BITS | (s & KEY_MASK) << 4;
	e->size = ((s >> SIZE_SHIFT) & SIZE_MASK) - 1;
	e->recorded = (s >> REC_SHIFT) & 1;
	e->bucket = (uint32_t)(s >> BUCKET_SHIFT);
}

/* The slot of g holding key, or the empty slot ending its probe sequence. */
static uint64_t *probe(struct dc_blockmap_seg *g, uint64_t h, uint64_t key)
{
	uint64_t i = home_of(h, key);

	while (g->slots[i] && (g->slots[i] & KEY_MASK) != key)
		i = (i + 1) & SEG_MASK;
	return &g->slots[i];
}

/* The region of base, NULL when the map has none. */
static struct dc_blockmap_region *region_of(const struct dc_blockmap *m, uint64_t base)
{
	struct dc_blockmap_region *r = (struct dc_blockmap_region *)&m->reg[m->last];

	if (m->last < m->nreg && r->base == base)
		return r;
	for (unsigned i = 0; i < m->nreg; i++)
		if (m->reg[i].base == base)
			return (struct dc_blockmap_region *)&m->reg[i];
	return NULL;
}

static struct dc_blockmap_seg *new_seg(struct dc_blockmap *m, unsigned depth)
{
	struct dc_blockmap_seg *g = dc_alloc(m->env, sizeof *g, "blockmap.seg");

	if (g) {
		memset(g, 0, sizeof *g);
		g->depth = depth;
	}
	return g;
}

int dc_blockmap_init(struct dc_blockmap *m, const struct dc_env *env)
{
	memset(m, 0, sizeof *m);
	m->env = env;
	return DC_OK;
}

/* Calls fn for each segment of r once (a segment of depth d fills
 * 2^(depth-d) neighbouring directory slots). */
static void each_seg(const struct dc_blockmap_region *r,
		     void (*fn)(void *ud, struct dc_blockmap_seg *g), void *ud)
{
	uint64_t nd = r->dir ? 1ULL << r->depth : 0;

	for (uint64_t i = 0; i < nd;) {
		struct dc_blockmap_seg *g = r->dir[i];
		i += 1ULL << (r->depth - g->depth); /* read before fn may free g */
		fn(ud, g);
	}
}

struct free_ctx {
	struct dc_blockmap *m;
	uint64_t slots;
};

static void free_seg(void *ud, struct dc_blockmap_seg *g)
{
	struct free_ctx *c = ud;

	c->slots += DC_BLOCKMAP_SEG;
	dc_free(c->m->env, g);
}

/* Frees r's table, which is then empty. */
static void drop_region(struct dc_blockmap *m, struct dc_blockmap_region *r)
{
	struct free_ctx c = { m, 0 };

	each_seg(r, free_seg, &c);
	dc_free(m->env, r->dir);
	m->cap -= c.slots;
	m->n -= r->n;
	r->dir = NULL;
	r->depth = 0;
	r->n = 0;
}

void dc_blockmap_release(struct dc_blockmap *m)
{
	for (unsigned i = 0; i < m->nreg; i++)
		drop_region(m, &m->reg[i]);
	m->nreg = m->last = 0;
}

bool dc_blockmap_fits(const struct dc_blockmap_ent *e)
{
	uint64_t ext = e->size ? e->size : 1;

	return !(e->lo & 15) && e->size <= DC_BLOCKMAP_MAX && e->bucket < DC_BLOCKMAP_BUCKETS &&
	       e->lo + (ext - 1) >= e->lo &&
	       e->lo >> DC_BLOCKMAP_REGION_BITS == (e->lo + ext - 1) >> DC_BLOCKMAP_REGION_BITS;
}

/* Doubles r's directory: each segment fills twice the slots it did. */
static int grow_dir(struct dc_blockmap *m, struct dc_blockmap_region *r)
{
	uint64_t nd = 1ULL << r->depth;
	struct dc_blockmap_seg **d = dc_alloc(m->env, 2 * nd * sizeof *d, "blockmap.dir");

	if (!d)
		return DC_ENOMEM;
	for (uint64_t i = 0; i < nd; i++)
		d[2 * i] = d[2 * i + 1] = r->dir[i];
	dc_free(m->env, r->dir);
	r->dir = d;
	r->depth++;
	return DC_OK;
}

/* Splits the segment of r holding hash h into two by the hash bit below
 * its depth; the blocks stay where lookups find them if it fails. */
static int split(struct dc_blockmap *m, struct dc_blockmap_region *r, uint64_t h)
{
	struct dc_blockmap_seg *g = seg_of(r, h), *half[2];
	unsigned d = g->depth;
	uint64_t first, span;

	if (d >= MAX_DEPTH || (d == r->depth && grow_dir(m, r)))
		return DC_ENOMEM;
	half[0] = new_seg(m, d + 1);
	half[1] = half[0] ? new_seg(m, d + 1) : NULL;
	if (!half[1]) {
		dc_free(m->env, half[0]);
		return DC_ENOMEM;
	}
	for (uint64_t i = 0; i < DC_BLOCKMAP_SEG; i++) {
		uint64_t key = g->slots[i] & KEY_MASK, kh;
		struct dc_blockmap_seg *to;
		if (!g->slots[i])
			continue;
		kh = hash_of(key);
		to = half[kh >> (63 - d) & 1];
		*probe(to, kh, key) = g->slots[i];
		to->n++;
	}
	/* g's directory slots: those whose top d bits are h's, the first half
	 * of them with bit d clear */
	span = 1ULL << (r->depth - d);
	first = (h >> (64 - r->depth)) & ~(span - 1);
	for (uint64_t i = 0; i < span; i++)
		r->dir[first + i] = half[i >= span / 2];
	dc_free(m->env, g);
	m->cap += DC_BLOCKMAP_SEG;
	return DC_OK;
}

/* The region of base, made (or an empty one taken over) when missing;
 * NULL when the array is full or memory ran out (*rc says which). */
static struct dc_blockmap_region *region_for(struct dc_blockmap *m, uint64_t base, int *rc)
{
	struct dc_blockmap_region *r = region_of(m, base);
	unsigned i = m->nreg;

	if (r)
		return r;
	if (m->nreg == DC_BLOCKMAP_REGIONS) {
		for (i = 0; i < m->nreg && m->reg[i].n; i++)
			;
		if (i == m->nreg) {
			*rc = DC_ERANGE;
			return NULL;
		}
		drop_region(m, &m->reg[i]);
	}
	r = &m->reg[i];
	r->dir = dc_alloc(m->env, sizeof *r->dir, "blockmap.dir");
	if (!r->dir) {
		*rc = DC_ENOMEM;
		return NULL;
	}
	r->dir[0] = new_seg(m, 0);
	if (!r->dir[0]) {
		dc_free(m->env, r->dir);
		r->dir = NULL;
		*rc = DC_ENOMEM;
		return NULL;
	}
	r->base = base;
	r->depth = 0;
	r->n = 0;
	m->cap += DC_BLOCKMAP_SEG;
	if (i == m->nreg)
		m->nreg++;
	return r;
}

int dc_blockmap_put(struct dc_blockmap *m, const struct dc_blockmap_ent *e,
		    struct dc_blockmap_ent *old)
{
	uint64_t key = (e->lo & REGION_MASK) >> 4, h = hash_of(key), *s;
	uint64_t word = key | (e->size + 1) << SIZE_SHIFT | (uint64_t)e->recorded << REC_SHIFT |
			(uint64_t)e->bucket << BUCKET_SHIFT;
	struct dc_blockmap_region *r;
	struct dc_blockmap_seg *g;
	int rc = 0;

	r = region_for(m, e->lo >> DC_BLOCKMAP_REGION_BITS, &rc);
	if (!r)
		return rc;
	m->last = (unsigned)(r - m->reg);
	s = probe(seg_of(r, h), h, key);
	if (*s) {
		unpack(*s, r->base, old);
		rc = 1;
	} else {
		while (4 * ((g = seg_of(r, h))->n + 1) > 3 * DC_BLOCKMAP_SEG)
			if (split(m, r, h))
				return DC_ENOMEM;
		s = probe(g, h, key);
		m->n++;
		r->n++;
		g->n++;
	}
	*s = word;
	if ((e->size ? e->size : 1) > m->max_ext)
		m->max_ext = e->size ? e->size : 1;
	return rc;
}

bool dc_blockmap_take(struct dc_blockmap *m, uint64_t lo, struct dc_blockmap_ent *out)
{
	uint64_t key = (lo & REGION_MASK) >> 4, h = hash_of(key), i, j;
	struct dc_blockmap_region *r;
	struct dc_blockmap_seg *g;
	uint64_t *s;

	if (!m->n || (lo & 15) || !(r = region_of(m, lo >> DC_BLOCKMAP_REGION_BITS)) || !r->n)
		return false;
	m->last = (unsigned)(r - m->reg);
	g = seg_of(r, h);
	s = probe(g, h, key);
	if (!*s)
		return false;
	unpack(*s, r->base, out);
	m->n--;
	r->n--;
	g->n--;
	i = (uint64_t)(s - g->slots);
	for (j = (i + 1) & SEG_MASK; g->slots[j]; j = (j + 1) & SEG_MASK) {
		uint64_t k = g->slots[j] & KEY_MASK;
		if (dc_probe_may_move(i, j, home_of(hash_of(k), k), SEG_MASK)) {
			g->slots[i] = g->slots[j];
			i = j;
		}
	}
	g->slots[i] = 0;
	return true;
}

bool dc_blockmap_lookup(const struct dc_blockmap *m, uint64_t addr, struct dc_blockmap_ent *out)
{
	uint64_t a = addr & ~15ULL, off = a & REGION_MASK;
	const struct dc_blockmap_region *r;

	if (!m->n || !(r = region_of(m, addr >> DC_BLOCKMAP_REGION_BITS)) || !r->n)
		return false;
	/* blocks do not cross regions: the starts below addr in its own */
	for (uint64_t back = 0; back < m->max_ext && back <= off; back += 16) {
		uint64_t key = (off - back) >> 4, h = hash_of(key);
		const uint64_t *s = probe(seg_of(r, h), h, key);
		if (*s) {
			unpack(*s, r->base, out);
			return addr - out->lo < (out->size ? out->size : 1);
		}
	}
	return false;
}

static void unmark_seg(void *ud, struct dc_blockmap_seg *g)
{
	(void)ud;
	for (uint64_t i = 0; i < DC_BLOCKMAP_SEG; i++)
		g->slots[i] &= ~(1ULL << REC_SHIFT);
}

void dc_blockmap_unmark_all(struct dc_blockmap *m)
{
	for (unsigned i = 0; i < m->nreg; i++)
		each_seg(&m->reg[i], unmark_seg, NULL);
}
