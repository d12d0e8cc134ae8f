/* reuse.c — exact reuse distances (stack and time) per memory block; the
 * method and its costs are in reuse.h's Notes. */
#include "core/reuse.h"
#include "core/util.h"

/* One per block of every chunk touched; chunks never move, so the tree's
 * owner array can point at records. */
struct dc_reuse_rec {
	uint64_t block;         /* the block number (valid once idx != 0) */
	uint32_t loc;           /* loc of the latest access */
	uint32_t pad_;
	uint64_t idx;           /* time index of the latest access; 0: none yet */
	uint64_t time;          /* real access number of the latest access */
};

struct dc_reuse_chunk {
	uint64_t id;                 /* block >> CHUNK_BITS, plus 1; 0 = empty slot */
	struct dc_reuse_rec *recs;   /* CHUNK_BLOCKS records */
};

/* The record of a block, creating its chunk; NULL when memory ran out
 * (nothing changed then).  Consecutive blocks share a chunk and sit next to
 * each other, so sequential sweeps stay in the host's cache, and the last
 * chunk is remembered: a hash look-up per access took half the time. */
static struct dc_reuse_rec *block_rec(struct dc_reuse *r, uint64_t block)
{
	uint64_t id = (block >> CHUNK_BITS) + 1, i;
	struct dc_reuse_rec *recs;

	if (id == r->last_chunk)
		return &r->last_recs[block & (CHUNK_BLOCKS - 1)];
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
	r->last_chunk = id;
	r->last_recs = recs;
	return &recs[block & (CHUNK_BLOCKS - 1)];
}

/* Tree nodes count 1s in ranges of at most cap indices, so uint32 holds
 * them while cap stays at most 2^31 (2^30 distinct blocks). */
#define MAX_CAP ((uint64_t)1 << 31)

static void tree_add(uint32_t *t, uint64_t cap, uint64_t i)
{
	for (; i <= cap; i += i & -i)
		t[i]++;
}

static void tree_sub(uint32_t *t, uint64_t cap, uint64_t i)
{
	for (; i <= cap; i += i & -i)
		t[i]--;
}

static uint64_t tree_prefix(const uint32_t *t, uint64_t i)
{
	uint64_t s = 0;

	for (; i; i -= i & -i)
		s += t[i];
	return s;
}

/* A tree with 1s at indices 1..m: node i covers (i - lowbit(i), i]. */
static void tree_fill(uint32_t *t, uint64_t cap, uint64_t m)
{
	t[0] = 0;
	for (uint64_t i = 1; i <= cap; i++) {
		uint64_t lo = i - (i & -i), hi = i < m ? i : m;
		t[i] = (uint32_t)(hi > lo ? hi - lo : 0);
	}
}

static int alloc_arrays(const struct dc_env *env, uint64_t cap, uint32_t **tree,
			struct dc_reuse_rec ***owner)
{
	*tree = dc_alloc(env, (cap + 1) * sizeof **tree, "reuse.tree");
	*owner = dc_alloc(env, (cap + 1) * sizeof **owner, "reuse.owner");
	if (!*tree || !*owner) {
		dc_free(env, *tree);
		dc_free(env, *owner);
		return DC_ENOMEM;
	}
	memset(*owner, 0, (cap + 1) * sizeof **owner);
	return 0;
}

int dc_reuse_init(struct dc_reuse *r, const struct dc_env *env, unsigned block_bits)
{
	memset(r, 0, sizeof *r);
	if (block_bits > 20)
		return DC_EINVAL;
	r->env = env;
	r->block_bits = block_bits;
	r->chunk_cap = 16;
	r->chunks = dc_alloc(env, r->chunk_cap * sizeof *r->chunks, "reuse.chunks");
	if (!r->chunks) {
		memset(r, 0, sizeof *r);
		return DC_ENOMEM;
	}
	memset(r->chunks, 0, r->chunk_cap * sizeof *r->chunks);
	r->cap = DC_REUSE_INIT_CAP;
	if (alloc_arrays(env, r->cap, &r->tree, &r->owner)) {
		dc_free(env, r->chunks);
		memset(r, 0, sizeof *r);
		return DC_ENOMEM;
	}
	tree_fill(r->tree, r->cap, 0);
	r->next = 1;
	return 0;
}

void dc_reuse_release(struct dc_reuse *r)
{
	if (r->env) {
		dc_free(r->env, r->tree);
		dc_free(r->env, r->owner);
		for (uint64_t i = 0; i < r->chunk_cap; i++)
			if (r->chunks[i].id)
				dc_free(r->env, r->chunks[i].recs);
		dc_free(r->env, r->chunks);
	}
	memset(r, 0, sizeof *r);
}

/* Renumbers the live 1s to 1..M in time order, into bigger arrays when
 * cap < 2(M+1).  When those cannot be had but the old arrays still have
 * room for this access (cap > M), it compacts in place: slower (compactions
 * come more often) but exact.  Fails only before changing anything. */
static int compact(struct dc_reuse *r)
{
	uint64_t need = 2 * (r->nblocks + 1), cap = r->cap, m = 0;
	struct dc_reuse_rec **owner = r->owner;
	uint32_t *tree = r->tree;

	if (cap < need) {
		while (cap < need)
			cap *= 2;
		if (cap > MAX_CAP || alloc_arrays(r->env, cap, &tree, &owner)) {
			if (r->cap <= r->nblocks)
				return DC_ENOMEM;
			cap = r->cap;
			owner = r->owner;
			tree = r->tree;
		}
	}
	/* In place, m <= i, so owner[i] is read before it can be overwritten. */
	for (uint64_t i = 1; i < r->next; i++) {
		struct dc_reuse_rec *rec = r->owner[i];
		if (!rec)
			continue;
		owner[++m] = rec;
		rec->idx = m;
	}
	if (owner == r->owner) {
		memset(owner + m + 1, 0, (cap - m) * sizeof *owner);
	} else {
		dc_free(r->env, r->tree);
		dc_free(r->env, r->owner);
	}
	tree_fill(tree, cap, m);
	r->tree = tree;
	r->owner = owner;
	r->cap = cap;
	r->next = m + 1;
	r->compactions++;
	return 0;
}

int dc_reuse_access(struct dc_reuse *r, uint64_t addr, uint32_t loc, struct dc_reuse_result *out)
{
	uint64_t block = addr >> r->block_bits, t = r->accesses + 1;
	struct dc_reuse_rec *rec = r->last;

	/* The same block again (the next word of a line): no other block came
	 * between, and its mark is already the latest, so only its time moves.
	 * Most accesses of a sequential loop take this path. */
	if (rec && rec->block == block) {
		out->first = false;
		out->stack_dist = 0;
		out->time_dist = t - rec->time;
		out->prev_loc = rec->loc;
		rec->time = t;
		rec->loc = loc;
		r->accesses = t;
		return 0;
	}
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
		rec->block = block;
		out->first = true;
		out->stack_dist = 0;
		out->time_dist = 0;
		out->prev_loc = 0;
		r->nblocks++;
	} else {
		out->first = false;
		/* 1s after idx: the blocks last touched after this one. */
		out->stack_dist = r->nblocks - tree_prefix(r->tree, rec->idx);
		out->time_dist = t - rec->time;
		out->prev_loc = rec->loc;
		tree_sub(r->tree, r->cap, rec->idx);
		r->owner[rec->idx] = NULL;
	}
	tree_add(r->tree, r->cap, r->next);
	r->owner[r->next] = rec;
	rec->idx = r->next++;
	rec->time = t;
	rec->loc = loc;
	r->accesses = t;
	r->last = rec;
	return 0;
}

unsigned dc_reuse_bin(uint64_t d, uint64_t first, uint64_t growth)
{
	uint64_t lo;
	unsigned k = 1;

	if (!first)
		first = 1;
	if (growth < 2)
		growth = 2;
	if (d < first)
		return 0;
	if (first == 1 && growth == 2)   /* the default: bin k >= 1 is [2^(k-1), 2^k) */
		return (unsigned)dc_log2(d) + 1;
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
