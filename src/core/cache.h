/* cache.h — the data-cache hierarchy model (one model for every engine).
 *
 * Notes:
 *  - Each level is set-associative with true LRU replacement and
 *    write-allocate: reads and writes are treated alike (no write-back
 *    traffic is modelled).
 *  - Non-strictly inclusive, as Cachegrind: a level is consulted only when
 *    every level above it missed, and then it is updated (filled) too.  A
 *    line evicted from L2 may stay in L1.
 *  - An access covers the bytes [addr, addr+size).  When they span several
 *    lines of a level, every line is referenced (so LRU state is updated for
 *    all of them) but the access counts as one access and at most one miss
 *    at that level: it misses if any of its lines missed.  The next level is
 *    then consulted with the whole access, including lines that hit above —
 *    exactly what Cachegrind does for an access straddling two lines.
 *  - The result of an access is the level that served it: 1..N for a hit
 *    at that level, N+1 when it came from memory.  It missed every level
 *    above the serving one.
 *  - An optional level-1 instruction cache (the engine always has one)
 *    feeds its misses to the last level, as Cachegrind's I1 does; with a
 *    single level, which is a data cache, they go to memory.
 *  - A block's set is block mod sets.  Any set count works: a power of two
 *    takes a mask, any other count a division (hosts describe such caches:
 *    a 30 MiB 20-way L3 has 24,576 sets).  The branch between the two is
 *    the same at every access of a level, so it is predicted.
 *  - Tags are block numbers (addr >> log2(line)); empty ways hold a value no
 *    block number can take, so a cold cache misses on every address.
 *  - Every miss records, per level, the lines it filled and the block each
 *    one replaced, so callers can count evictions without a second model.
 *    At most DC_MAX_FILLS lines are recorded per access; the engine's
 *    accesses are at most 32 bytes (dirty helpers are capped at the
 *    smallest line, itself >= 16 bytes), so they touch at most 3 lines.
 */
#ifndef DC_CACHE_H
#define DC_CACHE_H

#include "core/hier.h"

#define DC_EMPTY_TAG (~(uint64_t)0)

#define DC_MAX_FILLS 4   /* lines one access can fill at one level */

struct dc_cache_level {
	uint64_t *tags;      /* sets x assoc, most recently used first */
	uint64_t set_mask;   /* sets - 1 when sets is a power of two */
	uint64_t set_mod;    /* 0 when it is, else sets (block % sets) */
	uint32_t assoc;
	uint32_t line_bits;
	uint32_t wide;       /* assoc when dc_cache_ref_wide searches the sets
			      * (8 to 32 ways, a multiple of 4, and AVX2),
			      * else 0 */
	/* The lines the last missing access filled here and what each
	 * replaced (DC_EMPTY_TAG for an empty way); valid right after an access
	 * that missed this level.  Eviction tracking reads them. */
	uint32_t nfill;
	uint64_t victim[DC_MAX_FILLS];
};

struct dc_cache {
	int nlevels;
	struct dc_cache_level lv[DC_MAX_LEVELS];
	struct dc_cache_level i1;    /* tags == NULL when not simulated */
};

/* Allocates the tag arrays; h must have passed dc_hier_parse_cache or
 * dc_level_check.  i1 may be NULL. */
int dc_cache_init(struct dc_cache *c, const struct dc_hier *h,
		  const struct dc_level_cfg *i1, const struct dc_env *env);
void dc_cache_release(struct dc_cache *c, const struct dc_env *env);

/* dc_cache_line_ref past the most recent way of a set of 8 to 32 ways, a
 * multiple of 4 (wide), with AVX2: every way compared at once, the ways before the
 * block's (all, on a miss) moved down by one without a branch per way. */
bool dc_cache_ref_wide(uint64_t *set, uint32_t wide, uint64_t block, uint64_t *evicted);

/* The set of a block (Notes). */
static inline __attribute__((always_inline)) uint64_t dc_cache_set(const struct dc_cache_level *l,
								    uint64_t block)
{
	if (__builtin_expect(l->set_mod == 0, 1))
		return block & l->set_mask;
	return block % l->set_mod;
}

/* References one line; returns true on a hit.  Each set is kept in LRU
 * order.  One pass moves the block to the front while shifting the ways it
 * passes down by one, stopping where the block was (a hit) or dropping the
 * last way (a miss): a separate search and shift read the set twice, which
 * showed on transpositions where most hits are deep in 16-way sets.  With
 * AVX2, sets of 8 to 32 ways (multiples of 4) past their first two ways are
 * searched out of line, without a branch per way (dc_cache_ref_wide); the second way
 * is checked inline, as the hit a call would cost most on (a matmul's
 * level 2).  These and the callers are always inlined: GCC otherwise
 * left dc_cache_access out of line in the per-access helpers. */
static inline __attribute__((always_inline)) bool dc_cache_line_ref(struct dc_cache_level *l,
								     uint64_t block,
								     uint64_t *evicted)
{
	uint64_t *set = l->tags + dc_cache_set(l, block) * l->assoc;
	uint64_t prev, cur;
	uint32_t i;

	if (set[0] == block)
		return true;
	if (l->wide) {
		if (set[1] == block) {
			set[1] = set[0];
			set[0] = block;
			return true;
		}
		return dc_cache_ref_wide(set, l->wide, block, evicted);
	}
	prev = set[0];
	set[0] = block;
	for (i = 1; i < l->assoc; i++) {
		cur = set[i];
		set[i] = prev;
		if (cur == block)
			return true;
		prev = cur;
	}
	*evicted = prev;
	return false;
}

/* One access of size >= 1 at one level; returns true on a miss. */
static inline __attribute__((always_inline)) bool dc_cache_level_miss(struct dc_cache_level *l,
								       uint64_t addr, uint32_t size)
{
	uint64_t b1 = addr >> l->line_bits;
	uint64_t b2 = (addr + size - 1) >> l->line_bits;
	uint64_t ev;

	if (b1 == b2) {
		if (dc_cache_line_ref(l, b1, &l->victim[0]))
			return false;
		l->nfill = 1;
		return true;
	}
	l->nfill = 0;
	for (uint64_t b = b1; b <= b2; b++)
		if (!dc_cache_line_ref(l, b, &ev) && l->nfill < DC_MAX_FILLS)
			l->victim[l->nfill++] = ev;
	return l->nfill > 0;
}

/* A data access; returns the serving level (1..nlevels+1).  The level
 * loop is unrolled so that each level's way search has branches of its
 * own: shared, the exit of the way loop alternated between a level-1 miss
 * (all ways) and a level-2 hit (any way) in a matmul, most likely
 * mispredicted (no PMU here to count it), and the engine took 1.3x as
 * long on it (docs/performance.md, "Unrolled levels"). */
static inline __attribute__((always_inline)) int dc_cache_access(struct dc_cache *c,
								  uint64_t addr, uint32_t size)
{
	int k;

#pragma GCC unroll 4
	for (k = 0; k < c->nlevels; k++)
		if (!dc_cache_level_miss(&c->lv[k], addr, size))
			break;
	return k + 1;
}

/* An instruction fetch through I1 then the last level (none with one
 * level); only for caches initialised with an I1.
 * Returns 1 for an I1 hit, 2 for a last-level hit, 3 for memory. */
static inline int dc_cache_ifetch(struct dc_cache *c, uint64_t addr, uint32_t size)
{
	if (!dc_cache_level_miss(&c->i1, addr, size))
		return 1;
	if (c->nlevels < 2)
		return 3;     /* one level, a data cache: no unified level to fill */
	return dc_cache_level_miss(&c->lv[c->nlevels - 1], addr, size) ? 3 : 2;
}

#endif
