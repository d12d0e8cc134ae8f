/* blockmap.c — small heap blocks by start address (see blockmap.h Notes). */
#include "core/blockmap.h"
#include "core/util.h"

#define LO_BITS 44
#define LO_MASK ((1ULL << LO_BITS) - 1)
#define BUCKET_BITS 24
#define SEQ_BITS 40
#define SEG_MASK (DC_BLOCKMAP_SEG - 1)
#define MAX_DEPTH 40 /* directory bits: well clear of the in-segment hash bits */

struct dc_blockmap_seg {
	uint64_t n;              /* blocks held */
	unsigned depth;          /* the hash's top bits all its blocks share */
	uint64_t slots[2 * DC_BLOCKMAP_SEG]; /* 2 words a slot; word 0 == 0: empty */
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

static struct dc_blockmap_seg *seg_of(const struct dc_blockmap *m, uint64_t h)
{
	return m->dir[m->depth ? h >> (64 - m->depth) : 0];
}

static void unpack(const uint64_t *s, struct dc_blockmap_ent *e)
{
	e->lo = (s[0] & LO_MASK) << 4;
	e->size = s[0] >> LO_BITS;
	e->bucket = (uint32_t)(s[1] & ((1u << BUCKET_BITS) - 1));
	e->seq = s[1] >> BUCKET_BITS;
}

/* The slot of g holding key (lo / 16), or the empty slot ending its probe
 * sequence. */
static uint64_t *probe(struct dc_blockmap_seg *g, uint64_t h, uint64_t key)
{
	uint64_t i = home_of(h, key);

	while (g->slots[2 * i] && (g->slots[2 * i] & LO_MASK) != key)
		i = (i + 1) & SEG_MASK;
	return &g->slots[2 * i];
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

/* Calls fn for each segment once (a segment of depth d fills 2^(depth-d)
 * neighbouring directory slots). */
static void each_seg(const struct dc_blockmap *m, void (*fn)(void *ud, struct dc_blockmap_seg *g),
		     void *ud)
{
	uint64_t nd = m->dir ? 1ULL << m->depth : 0;

	for (uint64_t i = 0; i < nd;) {
		struct dc_blockmap_seg *g = m->dir[i];
		i += 1ULL << (m->depth - g->depth); /* read before fn may free g */
		fn(ud, g);
	}
}

static void free_seg(void *ud, struct dc_blockmap_seg *g)
{
	dc_free(((struct dc_blockmap *)ud)->env, g);
}

void dc_blockmap_release(struct dc_blockmap *m)
{
	each_seg(m, free_seg, m);
	dc_free(m->env, m->dir);
	m->dir = NULL;
	m->depth = 0;
	m->n = m->cap = 0;
}

bool dc_blockmap_fits(const struct dc_blockmap_ent *e)
{
	return e->lo && !(e->lo & 15) && (e->lo >> 4) <= LO_MASK && e->size <= DC_BLOCKMAP_MAX &&
	       e->bucket < (1u << BUCKET_BITS) && e->seq < (1ULL << SEQ_BITS);
}

/* Doubles the directory: each segment fills twice the slots it did. */
static int grow_dir(struct dc_blockmap *m)
{
	uint64_t nd = 1ULL << m->depth;
	struct dc_blockmap_seg **d = dc_alloc(m->env, 2 * nd * sizeof *d, "blockmap.dir");

	if (!d)
		return DC_ENOMEM;
	for (uint64_t i = 0; i < nd; i++)
		d[2 * i] = d[2 * i + 1] = m->dir[i];
	dc_free(m->env, m->dir);
	m->dir = d;
	m->depth++;
	return DC_OK;
}

/* Splits the segment holding hash h into two by the hash bit below its
 * depth; the blocks stay where lookups find them if it fails. */
static int split(struct dc_blockmap *m, uint64_t h)
{
	struct dc_blockmap_seg *g = seg_of(m, h), *half[2];
	unsigned d = g->depth;
	uint64_t first, span;

	if (d >= MAX_DEPTH || (d == m->depth && grow_dir(m)))
		return DC_ENOMEM;
	half[0] = new_seg(m, d + 1);
	half[1] = half[0] ? new_seg(m, d + 1) : NULL;
	if (!half[1]) {
		dc_free(m->env, half[0]);
		return DC_ENOMEM;
	}
	for (uint64_t i = 0; i < DC_BLOCKMAP_SEG; i++) {
		uint64_t key = g->slots[2 * i] & LO_MASK, kh, *s;
		struct dc_blockmap_seg *to;
		if (!g->slots[2 * i])
			continue;
		kh = hash_of(key);
		to = half[kh >> (63 - d) & 1];
		s = probe(to, kh, key);
		s[0] = g->slots[2 * i];
		s[1] = g->slots[2 * i + 1];
		to->n++;
	}
	/* g's directory slots: those whose top d bits are h's, the first half
	 * of them with bit d clear */
	span = 1ULL << (m->depth - d);
	first = (h >> (64 - m->depth)) & ~(span - 1);
	for (uint64_t i = 0; i < span; i++)
		m->dir[first + i] = half[i >= span / 2];
	dc_free(m->env, g);
	m->cap += DC_BLOCKMAP_SEG;
	return DC_OK;
}

int dc_blockmap_put(struct dc_blockmap *m, const struct dc_blockmap_ent *e,
		    struct dc_blockmap_ent *old)
{
	uint64_t key = e->lo >> 4, h = hash_of(key), *s;
	struct dc_blockmap_seg *g;
	int rc = 0;

	if (!m->dir) {
		m->dir = dc_alloc(m->env, sizeof *m->dir, "blockmap.dir");
		if (!m->dir)
			return DC_ENOMEM;
		m->dir[0] = new_seg(m, 0);
		if (!m->dir[0]) {
			dc_free(m->env, m->dir);
			m->dir = NULL;
			return DC_ENOMEM;
		}
		m->cap = DC_BLOCKMAP_SEG;
	}
	while (4 * (seg_of(m, h)->n + 1) > 3 * DC_BLOCKMAP_SEG)
		if (split(m, h))
			return DC_ENOMEM;
	g = seg_of(m, h);
	s = probe(g, h, key);
	if (s[0]) {
		unpack(s, old);
		rc = 1;
	} else {
		m->n++;
		g->n++;
	}
	s[0] = key | e->size << LO_BITS;
	s[1] = e->bucket | e->seq << BUCKET_BITS;
	if ((e->size ? e->size : 1) > m->max_ext)
		m->max_ext = e->size ? e->size : 1;
	return rc;
}

bool dc_blockmap_take(struct dc_blockmap *m, uint64_t lo, struct dc_blockmap_ent *out)
{
	uint64_t key = lo >> 4, h = hash_of(key), i, j;
	struct dc_blockmap_seg *g;
	uint64_t *s;

	if (!m->n || (lo & 15) || key > LO_MASK)
		return false;
	g = seg_of(m, h);
	s = probe(g, h, key);
	if (!s[0])
		return false;
	unpack(s, out);
	m->n--;
	g->n--;
	/* Shift the rest of the cluster back over the hole: an entry moves
	 * when its home slot is not cyclically in (hole, its slot]. */
	i = (uint64_t)(s - g->slots) / 2;
	for (j = (i + 1) & SEG_MASK; g->slots[2 * j]; j = (j + 1) & SEG_MASK) {
		uint64_t k = g->slots[2 * j] & LO_MASK, home = home_of(hash_of(k), k);
		if (((j - home) & SEG_MASK) >= ((j - i) & SEG_MASK)) {
			g->slots[2 * i] = g->slots[2 * j];
			g->slots[2 * i + 1] = g->slots[2 * j + 1];
			i = j;
		}
	}
	g->slots[2 * i] = g->slots[2 * i + 1] = 0;
	return true;
}

bool dc_blockmap_lookup(const struct dc_blockmap *m, uint64_t addr, struct dc_blockmap_ent *out)
{
	uint64_t a = addr & ~15ULL;

	if (!m->n || (addr >> 4) > LO_MASK)
		return false;
	for (uint64_t back = 0; back < m->max_ext && back <= a; back += 16) {
		uint64_t key = (a - back) >> 4, h = hash_of(key);
		const uint64_t *s = probe(seg_of(m, h), h, key);
		if (s[0]) {
			unpack(s, out);
			return addr < out->lo + (out->size ? out->size : 1);
		}
	}
	return false;
}

struct each_ctx {
	void (*fn)(void *ud, const struct dc_blockmap_ent *e);
	void *ud;
};

static void each_in_seg(void *ud, struct dc_blockmap_seg *g)
{
	struct each_ctx *c = ud;
	struct dc_blockmap_ent e;

	for (uint64_t i = 0; i < DC_BLOCKMAP_SEG; i++)
		if (g->slots[2 * i]) {
			unpack(&g->slots[2 * i], &e);
			c->fn(c->ud, &e);
		}
}

void dc_blockmap_each(const struct dc_blockmap *m,
		      void (*fn)(void *ud, const struct dc_blockmap_ent *e), void *ud)
{
	struct each_ctx c = { fn, ud };

	each_seg(m, each_in_seg, &c);
}
