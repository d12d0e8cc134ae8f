/* reuse.h — exact reuse distances (stack and time) per memory block.
 *
 * Notes:
 *  - A block is addr >> block_bits (6: 64-byte cache lines, 3: 8-byte
 *    words).  Every access names one block; an access straddling blocks is
 *    the caller's business (call once per block).
 *  - Stack distance (LRU reuse distance) of an access: the number of
 *    distinct OTHER blocks accessed since the previous access to the same
 *    block.  Time distance: accesses since then (now - then, so an
 *    immediate re-access has stack distance 0 and time distance 1).  The
 *    first access to a block reports first = true and no distances.  A
 *    fully-associative LRU cache of C blocks hits exactly the accesses with
 *    stack distance < C.
 *  - Method (Bennett & Kruskal / Almási et al.): a record per block holds
 *    the time index of its latest access, its real access number and the
 *    loc passed with it.  Records live in chunks of CHUNK_BLOCKS
 *    consecutive blocks, found through a small hash table of chunks with
 *    the chunks used lately remembered (DC_REUSE_RECENT, direct-mapped
 *    by id), so a walk down a column (a matrix of up to 256 chunks, 64
 *    MiB at 64-byte blocks) rarely hashes.  In its chunk a block's record
 *    sits at its offset's low 8 bits followed by its high 4: blocks 256,
 *    512, ... apart (rows of 16 KiB, 32 KiB, ... at 64-byte blocks) have
 *    their records side by side, so a walk down a column of such a matrix
 *    reads 4 records per host cache line instead of a line and a page per
 *    record (a transposition of 2048 x 2048 doubles: 6 % less time with
 *    --reuse), and a sweep reads records 256 bytes apart, a stride the
 *    host's prefetcher follows.
 *  - The front: the DC_REUSE_FRONT most recent distinct blocks, most recent
 *    first, an exact LRU stack kept in a ring: a block found at place j has
 *    stack distance j and moves to place 0, with no tree work — loops over
 *    a few arrays take this path, inline in the caller, for most accesses;
 *    a block entering from the tree takes the least recent one's place.
 *    Once the front is full, place 0 is compared first (dc_reuse_again:
 *    the block of the access just before, stack distance 0 and time
 *    distance 1, so only the record's loc is read) and then its slots
 *    directly (the place is the slot's distance from the ring's head),
 *    and a hit on the least recent place only turns the ring.
 *  - Every other block seen has a 1 at the time index of its latest
 *    access: a bit per index, and a Fenwick (binary indexed) tree over the
 *    bit words' counts, so a prefix count is a walk over 1/64 as many
 *    nodes plus one masked popcount, and the tree stays in the host's
 *    cache (a tree over the indices themselves missed it on every level).
 *    The newest 64 words (4096 indices) are left out of the tree: 1s set
 *    and cleared there cost no walk, a count there takes at most 7 words'
 *    popcounts and 8 counts of groups of 8 recent words, and a word enters
 *    the tree when the newest index leaves it 64 words behind (one walk
 *    per 64 indices).
 *    1s cleared one after another in the same old word (a sweep reusing
 *    its oldest blocks) leave the tree in one walk when the run of them
 *    ends; a count before then subtracts them.  Popcounts use the POPCNT
 *    instruction when the CPU has it.  A block
 *    not in the front was last touched before every front block, so its
 *    stack distance is the number of front blocks plus the 1s after its
 *    index.  Its 1 is cleared and it enters the front; when the front is
 *    full its least recent block leaves it and takes the next time index:
 *    all 1s are older, so the indices keep the recency order.
 *  - Time indices only grow.  When they reach the tree's capacity, the
 *    live 1s (at most one per distinct block) are renumbered 1..M in
 *    order: each block record's index becomes the rank of its 1 (the 1s
 *    of the words before its word, counted once, plus those before it in
 *    its word), a pass over the records of every chunk, and the capacity
 *    is grown (powers of two) to at least 2(M+1) and a quarter of the
 *    records, so at least max(M + 2, records/4 - M) accesses pass before
 *    the next O(capacity + records) compaction (a few record visits per
 *    access, even with one block per chunk).  No array from time index to
 *    record is kept: it cost a write per access and 8 bytes per index.
 *    Real access numbers, for time distance, are kept apart as uint64 and
 *    never renumbered.  If the bigger arrays cannot be allocated but the
 *    tree has a free slot (capacity > marks), it compacts in place
 *    instead: exact, only slower.
 *  - Cost per access: a scan of the front; past it O(log M) amortized (one
 *    chunk look-up, a count, at most one tree update, and a share of the
 *    word entering the tree); a reuse within the last 4096 indices takes
 *    no tree walk.  Memory: 16 bytes per block of every chunk touched (64
 *    KiB per chunk of 4096 blocks: at most a quarter of the address range
 *    touched at 64-byte blocks, more for sparse accesses at small blocks),
 *    plus per time index a bit (the tree adds 1/16 byte) with fewer than
 *    max(DC_REUSE_INIT_CAP, 4(M+1), records/2) indices.  Blocks are never
 *    forgotten.  Indices stop growing at 2^31 (uint32 in records and
 *    counts), i.e. about 2^30 distinct blocks.
 *  - A reuse from far back misses the host's caches three times in a row:
 *    the block's record, then (from its index) the bitmap word and the
 *    tree nodes near it.  A caller with other work per access can start
 *    the first early (dc_reuse_prefetch), which reads the recent chunks
 *    only and changes nothing.  Prefetching the other two once the record
 *    has arrived made the engine slower (docs/performance.md, seventh
 *    pass, "the access helper and the eviction tracker").
 *  - dc_reuse_access either records the access fully or, on DC_ENOMEM,
 *    changes nothing a later access can observe.  That happens for a new
 *    block when its chunk cannot be allocated, and for any access when all
 *    tree slots hold live blocks and the tree cannot grow.
 */
#ifndef DC_REUSE_H
#define DC_REUSE_H

#include "core/port.h"

/* Time-index capacity the tree starts with; it grows with the number of
 * distinct blocks. */
#define CHUNK_BITS 12
#define CHUNK_BLOCKS (1u << CHUNK_BITS)

struct dc_reuse_chunk;

#define DC_REUSE_INIT_CAP 1024
#define DC_REUSE_FRONT 4         /* a power of two */
#define DC_REUSE_RECENT 256      /* a power of two */
#define DC_REUSE_GROUPS 16       /* a power of two, more than 9 */

struct dc_reuse_result {
	bool first;            /* the block was never accessed before */
	uint64_t stack_dist;   /* distinct OTHER blocks accessed since the previous access to this block */
	uint64_t time_dist;    /* accesses since the previous access to this block (now - then) */
	uint32_t prev_loc;     /* loc passed with the previous access to this block */
};

/* rec->idx of a block in the front: it has no mark in the tree. */
#define DC_REUSE_IN_FRONT UINT32_MAX

/* One per block of every chunk touched. */
struct dc_reuse_rec {
	uint32_t idx;           /* time index of the latest access, IN_FRONT,
				 * or 0: none yet (indices stay below 2^31) */
	uint32_t loc;           /* loc of the latest access */
	uint64_t time;          /* real access number of the latest access */
};


struct dc_reuse {
	const struct dc_env *env;
	unsigned block_bits;
	struct dc_reuse_chunk *chunks; /* block >> CHUNK_BITS -> its records */
	uint64_t nchunks, chunk_cap;
	struct dc_reuse_recent {       /* chunks used lately, by id mod DC_REUSE_RECENT */
		uint64_t id;
		struct dc_reuse_rec *recs;
	} recent[DC_REUSE_RECENT];
	uint64_t *bits;                /* a bit per time index 0..cap: the 1s */
	uint32_t *tree;                /* Fenwick tree over the words of bits, 1-based */
	uint64_t cap;                  /* time indices 1..cap */
	uint64_t next;                 /* the time index the next access takes */
	uint64_t nblocks;              /* M: distinct blocks seen = live 1s */
	uint64_t accesses;             /* real accesses so far */
	uint64_t compactions;          /* for tests and statistics */
	bool hw_popcnt;                /* the CPU has POPCNT */
	uint64_t marks;                /* 1s: blocks seen, not in the front */
	uint64_t wr;                   /* the first bitmap word not counted in the tree */
	uint64_t tmarks;               /* 1s in the words before wr */
	uint32_t gcnt[DC_REUSE_GROUPS];/* 1s of the recent words per 8 (reuse.c) */
	uint64_t pend_w;               /* a word before wr ... */
	uint64_t pend;                 /* ... and its 1s cleared but still in the tree */
	unsigned nfront;               /* the front: the most recent distinct blocks, */
	unsigned fhead;                /* a ring: place j is at (fhead + j) mod FRONT */
	uint64_t front_block[DC_REUSE_FRONT];
	struct dc_reuse_rec *front[DC_REUSE_FRONT];
};

/* 0, DC_EINVAL (block_bits > 20) or DC_ENOMEM.  On error r needs no release. */
int dc_reuse_init(struct dc_reuse *r, const struct dc_env *env, unsigned block_bits);
void dc_reuse_release(struct dc_reuse *r);

/* The array index of front place j (0: the most recent block). */
static inline unsigned dc_reuse_place(const struct dc_reuse *r, unsigned j)
{
	return (r->fhead + j) & (DC_REUSE_FRONT - 1);
}

/* The place of a block's record in its chunk: the low 8 bits of its
 * offset above the high 4 (see the Notes), so blocks 256 apart sit side
 * by side. */
static inline uint32_t dc_reuse_rec_place(uint64_t block)
{
	uint32_t o = (uint32_t)block & (CHUNK_BLOCKS - 1);

	return (o & 0xff) << (CHUNK_BITS - 8) | o >> 8;
}

/* The record of addr's block when its chunk is a recent one, else NULL
 * (for prefetches: nothing changes). */
static inline const struct dc_reuse_rec *dc_reuse_recent_rec(const struct dc_reuse *r,
							     uint64_t addr)
{
	uint64_t block = addr >> r->block_bits, id = (block >> CHUNK_BITS) + 1;
	const struct dc_reuse_recent *c = &r->recent[id & (DC_REUSE_RECENT - 1)];

	return c->id == id ? &c->recs[dc_reuse_rec_place(block)] : NULL;
}

/* Prefetches the record of addr's block, so that the host miss of a
 * reuse from far back overlaps other work of the caller (the engine's
 * cache simulation); changes nothing. */
static inline void dc_reuse_prefetch(const struct dc_reuse *r, uint64_t addr)
{
	const struct dc_reuse_rec *rec = dc_reuse_recent_rec(r, addr);

	if (rec)
		__builtin_prefetch(rec);
}

/* dc_reuse_access past the inline path: while the front fills, and for
 * blocks not in it. */
int dc_reuse_access_slow(struct dc_reuse *r, uint64_t block, uint32_t loc,
			 struct dc_reuse_result *out);

/* The access of the block at front place j, in array slot k: its place is
 * its stack distance; it moves to place 0, places 0..j-1 one back. */
static inline void dc_reuse_front_hit(struct dc_reuse *r, unsigned j, unsigned k,
				      uint32_t loc, struct dc_reuse_result *out)
{
	struct dc_reuse_rec *rec = r->front[k];
	uint64_t block = r->front_block[k], t = r->accesses + 1;

	out->first = false;
	out->stack_dist = j;
	out->time_dist = t - rec->time;
	out->prev_loc = rec->loc;
	if (j == DC_REUSE_FRONT - 1 && r->nfront == DC_REUSE_FRONT) {
		r->fhead = k;   /* the least recent of a full ring: turn it */
	} else {
		for (; j; j--) {
			unsigned to = dc_reuse_place(r, j), from = dc_reuse_place(r, j - 1);
			r->front_block[to] = r->front_block[from];
			r->front[to] = r->front[from];
		}
		r->front_block[r->fhead] = block;
		r->front[r->fhead] = rec;
	}
	rec->time = t;
	rec->loc = loc;
	r->accesses = t;
}

/* The access of block by loc when the front is full and block is its most
 * recent block: the previous access was to it, so its stack distance is
 * 0 and its time distance 1; true and *prev_loc set (the loc of that
 * access).  Else false and nothing changed.  Nothing but the loc is read
 * from the record, so a caller that folds the constant distances (the
 * engine's helper) skips their bins too. */
static inline bool dc_reuse_again(struct dc_reuse *r, uint64_t block, uint32_t loc,
				  uint32_t *prev_loc)
{
	struct dc_reuse_rec *rec;

	if (r->nfront != DC_REUSE_FRONT || r->front_block[r->fhead] != block)
		return false;
	rec = r->front[r->fhead];
	*prev_loc = rec->loc;
	rec->time = ++r->accesses;
	rec->loc = loc;
	return true;
}

/* The access of block by loc when the front is full and holds it at a
 * place other than 0 (dc_reuse_again has said no): true, and out filled;
 * else false and nothing changed.  Every slot is compared inline (a fixed
 * count: the compiler unrolls it). */
static inline bool dc_reuse_front_older(struct dc_reuse *r, uint64_t block, uint32_t loc,
					struct dc_reuse_result *out)
{
	unsigned k;

	if (r->nfront != DC_REUSE_FRONT)
		return false;
	for (k = 0; k < DC_REUSE_FRONT; k++)
		if (r->front_block[k] == block) {
			dc_reuse_front_hit(r, (k - r->fhead) & (DC_REUSE_FRONT - 1), k, loc, out);
			return true;
		}
	return false;
}

/* The access of block by loc when the front is full and holds it: true,
 * and out filled; else false and nothing changed.  The most recent block
 * is compared first, then the slots.  Slot by slot alone, a sweep's block
 * (at place 0 for a block's worth of accesses) is found by a branch that
 * changes with each new block: the place-0 check makes bench_stream
 * 1.07-1.10x faster with --reuse, and costs bench_matmul and bench_chase
 * 1.03x (docs/performance.md, session 9). */
static inline bool dc_reuse_front(struct dc_reuse *r, uint64_t block, uint32_t loc,
				  struct dc_reuse_result *out)
{
	if (dc_reuse_again(r, block, loc, &out->prev_loc)) {
		out->first = false;
		out->stack_dist = 0;
		out->time_dist = 1;
		return true;
	}
	return dc_reuse_front_older(r, block, loc, out);
}

/* One access at addr (block = addr >> block_bits) by code location loc.
 * Returns 0 or DC_ENOMEM (then out is not filled and the state is
 * unchanged).  When out->first, the distances and prev_loc are 0.  The
 * front's blocks are found inline, the rest out of line. */
static inline int dc_reuse_access(struct dc_reuse *r, uint64_t addr, uint32_t loc,
				  struct dc_reuse_result *out)
{
	uint64_t block = addr >> r->block_bits;

	if (dc_reuse_front(r, block, loc, out))
		return 0;
	return dc_reuse_access_slow(r, block, loc, out);
}

/* Histogram bin of a distance: bin 0 holds d < first; bin k >= 1 holds
 * [first*growth^(k-1), first*growth^k).  first >= 1, growth >= 2 (smaller
 * values are taken as 1 and 2).  The last bin before first*growth^k would
 * overflow also holds everything up to UINT64_MAX. */
unsigned dc_reuse_bin_slow(uint64_t d, uint64_t first, uint64_t growth);
static inline unsigned dc_reuse_bin(uint64_t d, uint64_t first, uint64_t growth)
{
	/* the default: bin k >= 1 is [2^(k-1), 2^k) */
	if (first == 1 && growth == 2)
		return d ? 64 - (unsigned)__builtin_clzll(d) : 0;
	return dc_reuse_bin_slow(d, first, growth);
}

/* Lower bound of bin k (0 for k = 0), saturating at UINT64_MAX. */
uint64_t dc_reuse_bin_lo(unsigned k, uint64_t first, uint64_t growth);

#endif
