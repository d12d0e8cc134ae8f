/* reuse.c — exact reuse distances (stack and time) per memory block; the
 * method and its costs are in reuse.h's Notes. */
#include "core/reuse.h"
#include "core/util.h"

struct dc_reuse_chunk {
	uint64_t id;                 /* block >> CHUNK_BITS, plus 1; 0 = empty slot */
	struct dc_reuse_rec *recs;   /* CHUNK_BLOCKS records */
};

/* The record of a block, creating its chunk; NULL when memory ran out
 * (nothing changed then).  Consecutive blocks share a chunk and sit next to
 * each other, so sequential sweeps stay in the host's cache, and the last
 * chunk is remembered: a hash look-up per access took half the time. */
static __attribute__((noinline)) struct dc_reuse_rec *chunk_rec(struct dc_reuse *r,
								  uint64_t block);

static inline struct dc_reuse_rec *block_rec(struct dc_reuse *r, uint64_t block)
{
	uint64_t id = (block >> CHUNK_BITS) + 1;
	struct dc_reuse_recent *c = &r->recent[id & (DC_REUSE_RECENT - 1)];

	if (id == c->id)
		return &c->recs[dc_reuse_rec_place(block)];
	return chunk_rec(r, block);
}

/* block_rec past the recent chunks (out of line: the hot path keeps fewer
 * registers). */
static struct dc_reuse_rec *chunk_rec(struct dc_reuse *r, uint64_t block)
{
	uint64_t id = (block >> CHUNK_BITS) + 1, i;
	struct dc_reuse_recent *c = &r->recent[id & (DC_REUSE_RECENT - 1)];
	struct dc_reuse_rec *recs;

	i = dc_hash64(id) & (r->chunk_cap - 1);
	while (r->chunks[i].id && r->chunks[i].id != id)
		i = (i + 1) & (r->chunk_cap - 1);
	if (r->chunks[i].id) {
		recs = r->chunks[i].recs;
	} else {
		if ((r->nchunks + 1) * 2 > r->chunk_cap) {
			uint64_t cap = r->chunk_cap * 2;
			struct dc_reuse_chunk *t = dc_alloc(r->env, cap * sizeof *t, "reuse.chunks");
			if (!t)
				return NULL;
			memset(t, 0, cap * sizeof *t);
			for (uint64_t k = 0; k < r->chunk_cap; k++) {
				uint64_t j;
				if (!r->chunks[k].id)
					continue;
				j = dc_hash64(r->chunks[k].id) & (cap - 1);
				while (t[j].id)
					j = (j + 1) & (cap - 1);
				t[j] = r->chunks[k];
			}
			dc_free(r->env, r->chunks);
			r->chunks = t;
			r->chunk_cap = cap;
			i = dc_hash64(id) & (cap - 1);
			while (t[i].id)
				i = (i + 1) & (cap - 1);
		}
		recs = dc_alloc(r->env, CHUNK_BLOCKS * sizeof *recs, "reuse.recs");
		if (!recs)
			return NULL;
		memset(recs, 0, CHUNK_BLOCKS * sizeof *recs);
		r->chunks[i].id = id;
		r->chunks[i].recs = recs;
		r->nchunks++;
	}
	c->id = id;
	c->recs = recs;
	return &recs[dc_reuse_rec_place(block)];
}

/* Tree nodes count 1s in ranges of at most cap indices, so uint32 holds
 * them while cap stays at most 2^31 (2^30 distinct blocks). */
#define MAX_CAP ((uint64_t)1 << 31)

/* Words of the bitmap of time indices 0..cap. */
static uint64_t nwords(uint64_t cap)
{
	return (cap >> 6) + 1;
}

static inline unsigned popcount(const struct dc_reuse *r, uint64_t x)
{
	return dc_popcount64(r->hw_popcnt, x);
}

/* The 1s: a bit per time index, and a Fenwick tree over the counts of the
 * words before r->wr (node k covers words (k - lowbit(k), k], 1-based).
 * The last RECENT_WORDS words or fewer, from r->wr on, are counted by
 * their bits alone (reuse.h Notes). */
/* (The walks keep the arrays in locals: the tool is built with
 * -fno-strict-aliasing, and a store through r->tree would make the
 * compiler reload r->tree at every step.) */
#define RECENT_WORDS 64

/* The recent words' 1s counted per group of 8 words, in a ring of
 * DC_REUSE_GROUPS (more than the 9 groups the recent words can span, so a
 * group's slot has been emptied before it is used again): a group counts
 * only its words from r->wr on. */
static uint32_t *group(struct dc_reuse *r, uint64_t w)
{
	return &r->gcnt[(w >> 3) & (DC_REUSE_GROUPS - 1)];
}

static void tree_add(struct dc_reuse *r, uint64_t w, uint32_t d)
{
	uint64_t nw = nwords(r->cap);
	uint32_t *t = r->tree;

	for (uint64_t k = w + 1; k <= nw; k += k & -k)
		t[k] += d;
}

/* A mark at the next index (the newest), words leaving the recent ones
 * entering the tree. */
static void mark_next(struct dc_reuse *r)
{
	uint64_t i = r->next, w = i >> 6;

	r->bits[w] |= (uint64_t)1 << (i & 63);
	(*group(r, w))++;
	while (w - r->wr >= RECENT_WORDS) {
		uint32_t c = popcount(r, r->bits[r->wr]);
		tree_add(r, r->wr, c);
		*group(r, r->wr) -= c;
		r->tmarks += c;
		r->wr++;
	}
}

/* Clearing 1s in an old word leaves the tree to walk once for the run of
 * them (a sweep clears its oldest word's 1s one after another): r->pend
 * 1s of word r->pend_w are cleared in the bits but not yet in the tree. */
static void pend_flush(struct dc_reuse *r)
{
	if (r->pend) {
		tree_add(r, r->pend_w, (uint32_t)0 - r->pend);
		r->pend = 0;
	}
}

static void mark_clear(struct dc_reuse *r, uint64_t i)
{
	uint64_t w = i >> 6;

	r->bits[w] &= ~((uint64_t)1 << (i & 63));
	if (w < r->wr) {
		if (w != r->pend_w) {
			pend_flush(r);
			r->pend_w = w;
		}
		r->pend++;
		r->tmarks--;
	} else {
		(*group(r, w))--;
	}
}

/* 1s in the words [from, to): the CPU's choice of population count made
 * once, not per word. */
static uint64_t popcount_words(const struct dc_reuse *r, uint64_t from, uint64_t to)
{
	const uint64_t *bits = r->bits;
	uint64_t s = 0;

#if defined(__x86_64__)
	if (r->hw_popcnt) {
		for (uint64_t k = from; k < to; k++) {
			uint64_t n;
			__asm__("popcntq %1, %0" : "=r"(n) : "rm"(bits[k]));
			s += n;
		}
		return s;
	}
#endif
	for (uint64_t k = from; k < to; k++)
		s += popcount(r, bits[k]);
	return s;
}

/* 1s at indices after i (all are before r->next).  For i among the recent
 * words, the rest of i's word and of its group of 8 words, and the later
 * groups' counts (at most 7 words and 8 groups); else all 1s less the
 * tree's prefix (less the pending clears of a word before i's). */
static uint64_t mark_after(const struct dc_reuse *r, uint64_t i)
{
	const uint32_t *t = r->tree;
	const uint64_t *bits = r->bits;
	uint64_t w = i >> 6, last = (r->next - 1) >> 6, s;
	uint64_t upto = bits[w] & (((uint64_t)2 << (i & 63)) - 1);

	if (w >= r->wr) {
		uint64_t end = (w | 7) < last ? (w | 7) : last;
		s = popcount(r, bits[w] & ~upto) + popcount_words(r, w + 1, end + 1);
		for (uint64_t g = (w >> 3) + 1; g <= last >> 3; g++)
			s += r->gcnt[g & (DC_REUSE_GROUPS - 1)];
		return s;
	}
	s = popcount(r, upto) - (r->pend_w < w ? r->pend : 0);
	for (uint64_t k = w; k; k -= k & -k)
		s += t[k];
	return r->marks - s;
}

/* 1s at indices 1..m and nowhere else; the words before the one of m + 1
 * (the next index) in the tree, that one recent. */
static void mark_fill(struct dc_reuse *r, uint64_t *bits, uint32_t *tree, uint64_t cap,
		      uint64_t m)
{
	uint64_t nw = nwords(cap), wr = (m + 1) >> 6;

	r->tmarks = 0;
	for (uint64_t w = 0; w < nw; w++) {
		/* indices [w*64, w*64 + 64) cut to [1, m] */
		uint64_t lo = w << 6, x;
		if (lo > m)
			x = 0;
		else if (m - lo >= 63)
			x = ~(uint64_t)0;
		else
			x = ((uint64_t)2 << (m - lo)) - 1;
		bits[w] = w ? x : x & ~(uint64_t)1;
		tree[w + 1] = w < wr ? popcount(r, bits[w]) : 0;
		r->tmarks += tree[w + 1];
	}
	tree[0] = 0;
	for (uint64_t k = 1; k <= nw; k++)
		if (k + (k & -k) <= nw)
			tree[k + (k & -k)] += tree[k];
	r->wr = wr;
	r->pend = 0;
	memset(r->gcnt, 0, sizeof r->gcnt);
	for (uint64_t w = wr; w < nw && w <= (m + 1) >> 6; w++)
		*group(r, w) += popcount(r, bits[w]);
}

static int alloc_arrays(const struct dc_env *env, uint64_t cap, uint32_t **tree,
			uint64_t **bits)
{
	*tree = dc_alloc(env, (nwords(cap) + 1) * sizeof **tree, "reuse.tree");
	*bits = dc_alloc(env, nwords(cap) * sizeof **bits, "reuse.bits");
	if (!*tree || !*bits) {
		dc_free(env, *tree);
		dc_free(env, *bits);
		return DC_ENOMEM;
	}
	return 0;
}

int dc_reuse_init(struct dc_reuse *r, const struct dc_env *env, unsigned block_bits)
{
	memset(r, 0, sizeof *r);
	if (block_bits > 20)
		return DC_EINVAL;
	r->env = env;
	r->block_bits = block_bits;
	r->hw_popcnt = dc_cpu_popcnt();
	r->chunk_cap = 16;
	r->chunks = dc_alloc(env, r->chunk_cap * sizeof *r->chunks, "reuse.chunks");
	if (!r->chunks) {
		memset(r, 0, sizeof *r);
		return DC_ENOMEM;
	}
	memset(r->chunks, 0, r->chunk_cap * sizeof *r->chunks);
	r->cap = DC_REUSE_INIT_CAP;
	if (alloc_arrays(env, r->cap, &r->tree, &r->bits)) {
		dc_free(env, r->chunks);
		memset(r, 0, sizeof *r);
		return DC_ENOMEM;
	}
	mark_fill(r, r->bits, r->tree, r->cap, 0);
	r->next = 1;
	return 0;
}

void dc_reuse_release(struct dc_reuse *r)
{
	if (r->env) {
		dc_free(r->env, r->tree);
		dc_free(r->env, r->bits);
		for (uint64_t i = 0; i < r->chunk_cap; i++)
			if (r->chunks[i].id)
				dc_free(r->env, r->chunks[i].recs);
		dc_free(r->env, r->chunks);
	}
	memset(r, 0, sizeof *r);
}

/* Renumbers the live 1s to 1..M in time order: a record's new index is
 * the rank of its 1, the 1s in the words before its word (counted once
 * into the old tree's array, which is rebuilt anyway) plus those before
 * it in its word.  The capacity grows to at least 2(M+1) and a quarter of
 * the records of the chunks, so this O(capacity + records) pass comes at
 * most once per max(M + 2, records/4 - M) accesses that reach the tree:
 * a few record visits per access even when every chunk holds one block.  When the bigger
 * arrays cannot be had but the old ones still have room for this access
 * (cap > M), it compacts in place: slower (compactions come more often)
 * but exact.  Fails only before changing anything. */
static __attribute__((noinline)) int compact(struct dc_reuse *r)
{
	uint64_t need = 2 * (r->nblocks + 1), want = r->nchunks * CHUNK_BLOCKS / 4;
	uint64_t cap = r->cap, nw = nwords(r->cap), m = 0;
	uint32_t *tree = r->tree, *rank = r->tree;
	uint64_t *bits = r->bits;

	if (want < need)
		want = need;
	while (cap < want && cap < MAX_CAP)
		cap *= 2;
	if (cap != r->cap && (cap < need || alloc_arrays(r->env, cap, &tree, &bits))) {
		if (r->cap <= r->marks)
			return DC_ENOMEM;
		cap = r->cap;
		tree = r->tree;
		bits = r->bits;
	}
	for (uint64_t w = 0; w < nw; w++) {
		uint32_t c = popcount(r, r->bits[w]);
		rank[w] = (uint32_t)m;
		m += c;
	}
	for (uint64_t i = 0; i < r->chunk_cap; i++) {
		struct dc_reuse_rec *rec = r->chunks[i].recs;
		if (!r->chunks[i].id)
			continue;
		for (uint32_t k = 0; k < CHUNK_BLOCKS; k++) {
			uint32_t x = rec[k].idx;
			if (x && x != DC_REUSE_IN_FRONT)
				rec[k].idx = rank[x >> 6] + 1 +
					     popcount(r, r->bits[x >> 6] & (((uint64_t)1 << (x & 63)) - 1));
		}
	}
	if (tree != r->tree) {
		dc_free(r->env, r->tree);
		dc_free(r->env, r->bits);
	}
	mark_fill(r, bits, tree, cap, m);
	r->tree = tree;
	r->bits = bits;
	r->cap = cap;
	r->next = m + 1;
	r->compactions++;
	return 0;
}

/* While the front fills: the access when the block is in it. */
static __attribute__((noinline)) bool filling_hit(struct dc_reuse *r, uint64_t block,
						  uint32_t loc, struct dc_reuse_result *out)
{
	for (unsigned j = 0; j < r->nfront; j++) {
		unsigned k = dc_reuse_place(r, j);
		if (r->front_block[k] == block) {
			dc_reuse_front_hit(r, j, k, loc, out);
			return true;
		}
	}
	return false;
}

int dc_reuse_access_slow(struct dc_reuse *r, uint64_t block, uint32_t loc,
			 struct dc_reuse_result *out)
{
	uint64_t t = r->accesses + 1;
	struct dc_reuse_rec *rec;

	/* the front filling: its used places are searched here */
	if (r->nfront < DC_REUSE_FRONT && filling_hit(r, block, loc, out))
		return 0;

	/* Compaction first: it cannot be observed, so when the look-up below
	 * then fails the state is still unchanged. */
	if (r->next > r->cap) {
		int rc = compact(r);
		if (rc)
			return rc;
	}
	rec = block_rec(r, block);
	if (!rec)
		return DC_ENOMEM;
	if (!rec->idx) {
		out->first = true;
		out->stack_dist = 0;
		out->time_dist = 0;
		out->prev_loc = 0;
		r->nblocks++;
	} else {
		out->first = false;
		/* every front block and the marks after idx came later */
		out->stack_dist = r->nfront + mark_after(r, rec->idx);
		out->time_dist = t - rec->time;
		out->prev_loc = rec->loc;
	}
	if (!out->first)
		mark_clear(r, rec->idx);
	if (r->nfront == DC_REUSE_FRONT) {
		/* the front's least recent block takes the newest mark */
		struct dc_reuse_rec *old = r->front[dc_reuse_place(r, DC_REUSE_FRONT - 1)];
		mark_next(r);
		if (out->first)
			r->marks++;
		old->idx = (uint32_t)r->next++;
	} else {
		if (!out->first)
			r->marks--;
		r->nfront++;
	}
	/* the place before the head is free or the least recent block's */
	r->fhead = (r->fhead - 1) & (DC_REUSE_FRONT - 1);
	r->front_block[r->fhead] = block;
	r->front[r->fhead] = rec;
	rec->idx = DC_REUSE_IN_FRONT;
	rec->time = t;
	rec->loc = loc;
	r->accesses = t;
	return 0;
}

unsigned dc_reuse_bin_slow(uint64_t d, uint64_t first, uint64_t growth)
{
	uint64_t lo;
	unsigned k = 1;

	if (!first)
		first = 1;
	if (growth < 2)
		growth = 2;
	if (d < first)
		return 0;
	/* Invariant: lo <= d, lo = first * growth^(k-1). */
	for (lo = first; lo <= UINT64_MAX / growth && d >= lo * growth; lo *= growth)
		k++;
	return k;
}

uint64_t dc_reuse_bin_lo(unsigned k, uint64_t first, uint64_t growth)
{
	uint64_t lo;

	if (!first)
		first = 1;
	if (growth < 2)
		growth = 2;
	if (!k)
		return 0;
	lo = first;
	for (unsigned i = 1; i < k; i++) {
		if (lo > UINT64_MAX / growth)
			return UINT64_MAX;
		lo *= growth;
	}
	return lo;
}
