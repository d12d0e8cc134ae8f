/* test_cache.c — the cache model: each rule of cache.h's Notes on a tiny
 * hand-traced configuration, then a comparison with an independent
 * reference model on a few thousand pseudo-random accesses.
 *
 * Tiny geometries keep the traces short: "L1=128:2:64" is one set of two
 * 64-byte lines (fully associative), "L1=256:2:64" two sets, "L1=256:1:64"
 * four direct-mapped sets.  Blocks are addr / line; the set of a block is
 * block mod sets. */
#include <stdio.h>
#include <stdlib.h>

#include "core/cache.h"
#include "core/costtab.h"
#include "core/util.h"
#include "host/port_libc.h"
#include "unit.h"

static void parse(struct dc_hier *h, const char *spec)
{
	char err[160];

	if (dc_hier_parse_cache(h, spec, err, sizeof err))
		dc_unit_fail(__FILE__, __LINE__, "cannot parse '%s': %s", spec, err);
}

/* Builds a cache from a hierarchy spec and, if i1spec is not NULL, an I1
 * given as a one-level spec. */
static void mk(struct dc_cache *c, const char *spec, const char *i1spec)
{
	struct dc_hier h, hi;

	parse(&h, spec);
	if (i1spec)
		parse(&hi, i1spec);
	CHECK_EQ(dc_cache_init(c, &h, i1spec ? &hi.lv[0] : NULL, dc_env_libc()), 0);
}

static void rm(struct dc_cache *c)
{
	dc_cache_release(c, dc_env_libc());
}

/* ---- geometry ------------------------------------------------------------ */

/* sets = size / (assoc * line): 1K / (2 * 64) = 8 sets (mask 7), 64-byte
 * lines (6 bits), and every way starts empty. */
DC_TEST(cache, init_geometry)
{
	struct dc_cache c;

	mk(&c, "L1=1K:2:64,L2=8K:4:32", "L1=512:8:64");
	CHECK_EQ(c.nlevels, 2);
	CHECK_EQ(c.lv[0].set_mask, 7);
	CHECK_EQ(c.lv[0].assoc, 2);
	CHECK_EQ(c.lv[0].line_bits, 6);
	/* 8K / (4 * 32) = 64 sets, 32-byte lines = 5 bits. */
	CHECK_EQ(c.lv[1].set_mask, 63);
	CHECK_EQ(c.lv[1].line_bits, 5);
	/* 512 / (8 * 64) = 1 set. */
	CHECK_EQ(c.i1.set_mask, 0);
	CHECK_EQ(c.i1.assoc, 8);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(c.lv[0].tags[i], DC_EMPTY_TAG);
	for (int i = 0; i < 256; i++)
		CHECK_EQ(c.lv[1].tags[i], DC_EMPTY_TAG);
	rm(&c);

	mk(&c, "L1=1K:2:64", NULL);
	CHECK(c.i1.tags == NULL);
	rm(&c);
}

/* With 8 sets of 2 ways (1K:2:64), blocks 0, 8 and 16 (addresses 0, 512,
 * 1024) share set 0, so the third evicts the first.  Blocks 0, 4, 8 do not
 * all collide: 4 is in set 4.  A model with 16 sets would keep block 0 in
 * the first sequence; one with 4 sets would evict it in the second. */
DC_TEST(cache, set_index_uses_size_over_assoc_times_line)
{
	struct dc_cache c;

	mk(&c, "L1=1K:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 512, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 1024, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 2);           /* evicted */
	rm(&c);

	mk(&c, "L1=1K:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 256, 1), 2);         /* block 4, set 4 */
	CHECK_EQ(dc_cache_access(&c, 512, 1), 2);         /* block 8, set 0 */
	CHECK_EQ(dc_cache_access(&c, 0, 1), 1);           /* set 0 = [8, 0] */
	rm(&c);

	/* The whole 1K fits: 16 consecutive lines fill 8 sets x 2 ways. */
	mk(&c, "L1=1K:2:64", NULL);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(dc_cache_access(&c, (uint64_t)i * 64 + 7, 1), 2);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(dc_cache_access(&c, (uint64_t)i * 64, 8), 1);
	rm(&c);
}

/* ---- one level ----------------------------------------------------------- */

/* 2-way set 0 of "L1=256:2:64" holds blocks 0, 2, 4 (addresses 0, 128, 256).
 * A, B, A, C: the second A makes B least recently used, so C evicts B:
 * set 0 holds {A, C}. */
DC_TEST(cache, lru_order_in_a_set)
{
	struct dc_cache c;
	const uint64_t A = 0, B = 128, C = 256;

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, A, 4), 2);
	CHECK_EQ(dc_cache_access(&c, B, 4), 2);
	CHECK_EQ(dc_cache_access(&c, A, 4), 1);
	CHECK_EQ(dc_cache_access(&c, C, 4), 2);
	/* the set holds A and C, in whichever ways */
	CHECK(c.lv[0].tags[0] == C >> 6 || c.lv[0].tags[1] == C >> 6);
	CHECK(c.lv[0].tags[0] == A >> 6 || c.lv[0].tags[1] == A >> 6);
	CHECK_EQ(dc_cache_access(&c, A, 4), 1);           /* A stayed */
	CHECK_EQ(dc_cache_access(&c, B, 4), 2);           /* B was evicted */
	/* Set 1 (blocks 1, 3, ...) was never touched. */
	CHECK_EQ(c.lv[0].tags[2], DC_EMPTY_TAG);
	CHECK_EQ(c.lv[0].tags[3], DC_EMPTY_TAG);
	rm(&c);
}

/* Sets of 8 to 32 ways keep exact LRU order whichever search runs (with
 * AVX2 they are searched out of line, dc_cache_ref_wide; else one way at
 * a time).  One set of W ways ("L1=W*64:W:64"): fill it with blocks
 * 0..W-1, so block i sits in way W-1-i; touching the block in way p moves
 * it to way 0 and ways 0..p-1 down by one; a new block W evicts the block
 * in way W-1.  Each step is checked against the order it must give. */
static void check_set_order(uint32_t ways)
{
	struct dc_cache c;
	uint64_t want[40], ev = 0;
	char spec[32];

	snprintf(spec, sizeof spec, "L1=%u:%u:64", ways * 64, ways);
	mk(&c, spec, NULL);
	CHECK_EQ(c.lv[0].wide, dc_cpu_avx2() && ways % 4 == 0 && ways >= 8 && ways <= 32 ? ways : 0u);
	for (uint32_t i = 0; i < ways; i++)
		CHECK_EQ(dc_cache_access(&c, (uint64_t)i * 64, 8), 2);
	for (uint32_t w = 0; w < ways; w++)
		want[w] = ways - 1 - w;
	for (uint32_t p = 0; p < ways; p++) {
		uint64_t b = want[p];
		CHECK_EQ(dc_cache_line_ref(&c.lv[0], b, &ev), true);
		for (uint32_t w = p; w > 0; w--)
			want[w] = want[w - 1];
		want[0] = b;
		for (uint32_t w = 0; w < ways; w++)
			CHECK_EQ(c.lv[0].tags[w], want[w]);
	}
	CHECK_EQ(dc_cache_line_ref(&c.lv[0], ways, &ev), false);
	CHECK_EQ(ev, want[ways - 1]);
	for (uint32_t w = ways - 1; w > 0; w--)
		want[w] = want[w - 1];
	want[0] = ways;
	for (uint32_t w = 0; w < ways; w++)
		CHECK_EQ(c.lv[0].tags[w], want[w]);
	rm(&c);
}

DC_TEST(cache, lru_order_in_sets_of_8_and_16_ways)
{
	check_set_order(8);
	check_set_order(16);
}

/* The wide search's other sizes (multiples of 4 up to 32), and sizes on
 * either side of them searched one way at a time. */
DC_TEST(cache, lru_order_in_sets_of_12_to_32_ways)
{
	for (uint32_t ways = 12; ways <= 32; ways += 4)
		check_set_order(ways);
	check_set_order(10);
	check_set_order(36);
}

/* Write-allocate: the model does not tell reads from writes, so a write
 * that misses fills the line exactly like a read, and the next access
 * (read or write) to the line hits.  The engine counts both through the
 * same dc_cache_access; this pins that a first access fills every level. */
DC_TEST(cache, write_allocates)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64,L2=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0x40, 8), 3);        /* the write misses */
	CHECK_EQ(dc_cache_access(&c, 0x44, 4), 1);        /* a read of it hits */
	/* Push block 1 out of L1 (1 set, 2 ways) with blocks 2 and 3; L2 (2
	 * sets, block 1 in set 1 with 3) still has it: served by L2. */
	CHECK_EQ(dc_cache_access(&c, 0x80, 8), 3);
	CHECK_EQ(dc_cache_access(&c, 0xc0, 8), 3);
	CHECK_EQ(dc_cache_access(&c, 0x40, 8), 2);
	rm(&c);
}

/* Cold ways hold DC_EMPTY_TAG, which no block number equals, so address 0
 * (block 0) misses on a fresh cache at every level. */
DC_TEST(cache, cold_cache_misses_on_address_zero)
{
	struct dc_cache c;

	mk(&c, "L1=256:1:16", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 1);
	rm(&c);

	mk(&c, "L1=1K:2:64,L2=4K:4:64,L3=16K:8:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 8), 4);
	CHECK_EQ(dc_cache_access(&c, 0, 8), 1);
	rm(&c);

	mk(&c, "L1=1K:2:64,L2=4K:4:64", "L1=1K:2:64");
	CHECK_EQ(dc_cache_ifetch(&c, 0, 4), 3);
	rm(&c);
}

/* ---- the hierarchy --------------------------------------------------------- */

/* L1 = 1 set x 2 ways, L2 = 1 set x 4 ways, L3 = 1 set x 16 ways, so only
 * recency matters.  Blocks A=0, B=1, ... (64-byte lines).
 *   A          all miss                  -> 4    L1 [A]      L2 [A]
 *   A          L1 hit                    -> 1
 *   B, C       all miss                  -> 4,4  L1 [C,B]    L2 [C,B,A]
 *   A          L1 miss, L2 hit           -> 2    L1 [A,C]    L2 [A,C,B]
 *   D,E,F,G    all miss                  -> 4    L1 [G,F]    L2 [G,F,E,D]
 *   A          L1, L2 miss, L3 hit       -> 3
 * So every return value 1..N+1 occurs, each exactly where derived. */
DC_TEST(cache, served_level_is_one_to_n_plus_one)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64,L2=256:4:64,L3=1K:16:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 4);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 1);
	CHECK_EQ(dc_cache_access(&c, 64, 4), 4);
	CHECK_EQ(dc_cache_access(&c, 128, 4), 4);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 2);
	for (uint64_t b = 3; b <= 6; b++)
		CHECK_EQ(dc_cache_access(&c, b * 64, 4), 4);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 3);
	rm(&c);
}

/* Does a set of a level hold a block (ways are in no particular order)? */
static bool set_holds(const struct dc_cache_level *l, uint64_t set, uint64_t block)
{
	for (uint32_t w = 0; w < l->assoc; w++)
		if (l->tags[set * l->assoc + w] == block)
			return true;
	return false;
}

/* A level is consulted only when the levels above missed, and filled then.
 * L1 = 1 set x 2 ways, L2 = 2 sets x 2 ways; A=0, B=128, C=256 are blocks
 * 0, 2, 4, all in L2's set 0.
 *   A, B      -> 3, 3    L1 [B,A]   L2.0 [B,A]
 *   A         -> 1       L1 [A,B]   L2 untouched: still [B,A]
 *   C         -> 3       L1 [C,A]   L2.0 [C,B]  (A was L2's LRU)
 *   B         -> 2       L1 [B,C]   L2.0 [B,C]
 *   A         -> 3
 * Had the L1 hit also refreshed A in L2, C would have evicted B from L2
 * and B would be served by memory. */
DC_TEST(cache, lower_level_consulted_only_on_miss_above)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64,L2=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 128, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 1);
	CHECK(set_holds(&c.lv[1], 0, 2) && set_holds(&c.lv[1], 0, 0)); /* L2.0 {B, A} */
	CHECK_EQ(dc_cache_access(&c, 256, 1), 3);
	CHECK(set_holds(&c.lv[1], 0, 4) && set_holds(&c.lv[1], 0, 2)); /* {C, B} */
	CHECK_EQ(dc_cache_access(&c, 128, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 3);
	rm(&c);
}

/* Non-inclusive: L1 = 1 set x 2 ways, L2 = 4 direct-mapped sets.  A = block
 * 0 and X = block 4 (address 256) share L2's set 0.
 *   A  -> 3   L1 [A]     L2.0 = A
 *   X  -> 3   L1 [X,A]   L2.0 = X (A evicted from L2 only)
 *   A  -> 1   still in L1 although L2 lost it */
DC_TEST(cache, line_evicted_from_l2_still_hits_in_l1)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64,L2=256:1:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 8), 3);
	CHECK_EQ(dc_cache_access(&c, 256, 8), 3);
	CHECK_EQ(c.lv[1].tags[0], 4);
	CHECK_EQ(dc_cache_access(&c, 0, 8), 1);
	rm(&c);
}

/* ---- accesses spanning lines ------------------------------------------------ */

/* An access of 8 bytes at 60 covers blocks 0 and 1.  It counts as one
 * access and at most one miss per level (the served level is a single
 * number, and dc_cost_count turns it into one miss per missed level), and
 * it misses when any line missed. */
DC_TEST(cache, straddle_misses_if_any_line_missed)
{
	struct dc_cache c;
	struct dc_cost cost = { 0 };
	const uint32_t lat[4] = { 0, 4, 14, 200 };

	mk(&c, "L1=256:2:64,L2=1K:4:64", NULL);
	/* Cold: both lines miss both levels, still one miss per level. */
	int s = dc_cache_access(&c, 60, 8);
	CHECK_EQ(s, 3);
	dc_cost_count(&cost, 0, s, lat);
	CHECK_EQ(cost.acc[0], 1);
	CHECK_EQ(cost.miss[0][0], 1);
	CHECK_EQ(cost.miss[1][0], 1);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 1);
	rm(&c);

	/* Only block 0 warm: block 1 misses in L1 and in L2, so the access
	 * misses both although half of it was cached. */
	mk(&c, "L1=256:2:64,L2=1K:4:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 3);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 1);
	rm(&c);

	/* Only block 1 warm (address 64): now block 0 is the missing one. */
	mk(&c, "L1=256:2:64,L2=1K:4:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 64, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 3);
	rm(&c);

	/* Both lines cached separately: the straddle hits. */
	mk(&c, "L1=256:2:64,L2=1K:4:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 64, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 63, 2), 1);
	rm(&c);
}

/* The next level gets the whole access, including the line that hit above.
 * L1 = 1 set x 2 ways, L2 = 4 direct-mapped sets (block mod 4).
 *   block 1 (64)     -> 3   L1 [1]     L2: s1=1
 *   block 0 (0)      -> 3   L1 [0,1]   L2: s0=0
 *   block 4 (256)    -> 3   L1 [4,0]   L2: s0=4, s1=1
 * Now block 0 is in L1 but not L2, block 1 in L2 but not L1.  The straddle
 * at 60 (blocks 0, 1) misses L1 (block 1); L2 sees both blocks and block 0
 * misses there, so memory serves it (3).  Had only block 1 gone down, L2
 * would have hit (2). */
DC_TEST(cache, straddle_consults_next_level_with_whole_access)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64,L2=256:1:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 64, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 256, 1), 3);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 3);
	/* ... and L2 was filled with block 0 by that access: s0 = 0. */
	CHECK_EQ(c.lv[1].tags[0], 0);
	CHECK_EQ(c.lv[1].tags[1], 1);
	rm(&c);
}

/* Both lines' LRU state is updated.  "L1=256:2:64": 2 sets x 2 ways; block
 * b is in set b mod 2.
 *   0, 2        set 0 [2,0]
 *   1, 3        set 1 [3,1]
 *   60+8 (0,1)  hit; set 0 [0,2], set 1 [1,3]
 *   4, 5        evict the LRU of each set: 2 and 3
 *   0, 1 hit;   2, 3 miss
 * If only the first line were refreshed, 5 would have evicted 1. */
DC_TEST(cache, straddle_updates_lru_of_both_lines)
{
	struct dc_cache c;

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 128, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 64, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 192, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 1);
	CHECK_EQ(dc_cache_access(&c, 256, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 320, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 1);
	CHECK_EQ(dc_cache_access(&c, 64, 1), 1);
	CHECK_EQ(dc_cache_access(&c, 128, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 192, 1), 2);
	rm(&c);
}

/* With 16-byte lines an access of 40 bytes at 8 covers [8, 48): blocks 0,
 * 1, 2.  "L1=256:2:16" has 8 sets, so the three are in sets 0, 1, 2.  One
 * access, one miss; all three lines are filled, block 3 is not. */
DC_TEST(cache, access_spanning_three_lines)
{
	struct dc_cache c;
	struct dc_cost cost = { 0 };
	const uint32_t lat[3] = { 0, 4, 200 };

	mk(&c, "L1=256:2:16", NULL);
	int s = dc_cache_access(&c, 8, 40);
	CHECK_EQ(s, 2);
	dc_cost_count(&cost, 1, s, lat);
	CHECK_EQ(cost.acc[1], 1);
	CHECK_EQ(cost.miss[0][1], 1);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 1);
	CHECK_EQ(dc_cache_access(&c, 16, 1), 1);
	CHECK_EQ(dc_cache_access(&c, 32, 1), 1);
	CHECK_EQ(dc_cache_access(&c, 47, 1), 1);
	CHECK_EQ(dc_cache_access(&c, 48, 1), 2);
	/* Evict only the middle line (set 1 gets blocks 9 and 17): the
	 * three-line access misses again although two lines are cached. */
	CHECK_EQ(dc_cache_access(&c, 9 * 16, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 17 * 16, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 8, 40), 2);
	CHECK_EQ(dc_cache_access(&c, 8, 40), 1);
	rm(&c);
}

/* ---- instruction fetches -------------------------------------------------- */

/* I1 misses go to the last level, never to L1d or a middle level, and
 * data accesses never touch I1.
 * Two levels, I1 = 1 set x 2 ways:
 *   ifetch A      -> 3; ifetch A -> 1
 *   data B        fills L1d and L2; ifetch B -> I1 miss, L2 hit -> 2
 *   ifetch C      -> 3; data C -> L1d miss (ifetch did not fill it), L2 hit -> 2 */
/* One level is a data cache: a fetch that misses the I1 does not fill it
 * (a fully associative L1 of 2 lines keeps A and B through fetches of C, D). */
DC_TEST(cache, ifetch_with_one_level_leaves_it_alone)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64", "L1=128:2:64");
	CHECK_EQ(dc_cache_access(&c, 0x000, 8), 2);
	CHECK_EQ(dc_cache_access(&c, 0x040, 8), 2);
	CHECK_EQ(dc_cache_ifetch(&c, 0x1000, 4), 3);
	CHECK_EQ(dc_cache_ifetch(&c, 0x2000, 4), 3);
	CHECK_EQ(dc_cache_access(&c, 0x000, 8), 1);
	CHECK_EQ(dc_cache_access(&c, 0x040, 8), 1);
	rm(&c);
}

DC_TEST(cache, ifetch_goes_to_last_level)
{
	struct dc_cache c;

	mk(&c, "L1=1K:2:64,L2=8K:4:64", "L1=128:2:64");
	CHECK_EQ(dc_cache_ifetch(&c, 0x1000, 4), 3);
	CHECK_EQ(dc_cache_ifetch(&c, 0x1002, 2), 1);
	CHECK_EQ(dc_cache_access(&c, 0x2000, 8), 3);
	CHECK_EQ(dc_cache_ifetch(&c, 0x2000, 4), 2);
	CHECK_EQ(dc_cache_ifetch(&c, 0x3000, 4), 3);
	CHECK_EQ(dc_cache_access(&c, 0x3000, 4), 2);
	/* I1 is now [0xc0, 0x80].  A straddling fetch is one fetch:
	 * 0x303e+4 covers blocks 0xc0 (in I1 and L2) and 0xc1 (nowhere) ->
	 * I1 miss, LL miss.  Both lines were referenced in I1, so 0x3040
	 * then hits there. */
	CHECK_EQ(dc_cache_ifetch(&c, 0x303e, 4), 3);
	CHECK_EQ(dc_cache_ifetch(&c, 0x3040, 4), 1);
	CHECK_EQ(dc_cache_ifetch(&c, 0x3000, 4), 1);
	rm(&c);
}

/* Three data levels: L1 = 1 set x 2 ways, L2 = 1 set x 4 ways, L3 big.
 *   data X (0)          fills L1, L2, L3
 *   data 1..4           L2 = [4,3,2,1] (X evicted), L1 = [4,3]; L3 has X
 *   ifetch X            I1 miss, last level (L3) hit -> 2
 * Going through L2 would have missed there.  Then an ifetch of Y fills
 * only I1 and L3: a data access to Y misses L1 and L2 and is served by L3. */
DC_TEST(cache, ifetch_skips_middle_levels)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64,L2=256:4:64,L3=8K:8:64", "L1=128:2:64");
	CHECK_EQ(dc_cache_access(&c, 0, 4), 4);
	for (uint64_t b = 1; b <= 4; b++)
		CHECK_EQ(dc_cache_access(&c, b * 64, 4), 4);
	CHECK_EQ(dc_cache_ifetch(&c, 0, 4), 2);
	CHECK_EQ(dc_cache_ifetch(&c, 0x4000, 4), 3);
	CHECK_EQ(dc_cache_access(&c, 0x4000, 4), 3);
	rm(&c);
}

/* ---- an independent reference model --------------------------------------- */

/* LRU by timestamps (the model shifts ways), set = block % sets (the model
 * masks), block = addr / line (the model shifts), and a free way is found
 * by a valid flag (the model uses a sentinel tag). */
struct ref_way {
	bool valid;
	uint64_t block, used;
};

struct ref_level {
	uint64_t sets, assoc, line, clock;
	struct ref_way *w;
};

struct ref_cache {
	int n;
	struct ref_level lv[DC_MAX_LEVELS], i1;
};

static void ref_level_init(struct ref_level *r, const struct dc_level_cfg *cfg)
{
	r->line = cfg->line;
	r->assoc = cfg->assoc;
	r->sets = cfg->size / ((uint64_t)cfg->assoc * cfg->line);
	r->clock = 0;
	r->w = calloc(r->sets * r->assoc, sizeof *r->w);
	CHECK(r->w);
}

static bool ref_line_hit(struct ref_level *r, uint64_t block)
{
	struct ref_way *set = r->w + (block % r->sets) * r->assoc, *victim = NULL;

	r->clock++;
	for (uint64_t i = 0; i < r->assoc; i++) {
		if (set[i].valid && set[i].block == block) {
			set[i].used = r->clock;
			return true;
		}
	}
	for (uint64_t i = 0; i < r->assoc && !victim; i++)
		if (!set[i].valid)
			victim = &set[i];
	if (!victim) {
		victim = &set[0];
		for (uint64_t i = 1; i < r->assoc; i++)
			if (set[i].used < victim->used)
				victim = &set[i];
	}
	victim->valid = true;
	victim->block = block;
	victim->used = r->clock;
	return false;
}

static bool ref_level_miss(struct ref_level *r, uint64_t addr, uint32_t size)
{
	bool miss = false;

	for (uint64_t b = addr / r->line; b <= (addr + size - 1) / r->line; b++)
		if (!ref_line_hit(r, b))
			miss = true;
	return miss;
}

static int ref_access(struct ref_cache *r, uint64_t addr, uint32_t size)
{
	for (int k = 0; k < r->n; k++)
		if (!ref_level_miss(&r->lv[k], addr, size))
			return k + 1;
	return r->n + 1;
}

static int ref_ifetch(struct ref_cache *r, uint64_t addr, uint32_t size)
{
	if (!ref_level_miss(&r->i1, addr, size))
		return 1;
	if (r->n < 2)
		return 3;
	return ref_level_miss(&r->lv[r->n - 1], addr, size) ? 3 : 2;
}

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* Runs n pseudo-random accesses (and, with an I1, instruction fetches)
 * through the model and the reference and compares every served level.
 * Addresses fall half of the time in a hot window twice the size of L1,
 * otherwise anywhere in four times the last level; sizes up to 64 bytes at
 * any byte offset, so accesses straddle two or more lines often. */
static void compare_with_reference(const char *spec, const char *i1spec, uint64_t seed, int n)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 3, 12, 32, 64 };
	struct dc_hier h, hi;
	struct dc_cache c;
	struct ref_cache r = { 0 };
	long served[DC_MAX_LEVELS + 2] = { 0 }, multi = 0;

	parse(&h, spec);
	if (i1spec)
		parse(&hi, i1spec);
	CHECK_EQ(dc_cache_init(&c, &h, i1spec ? &hi.lv[0] : NULL, dc_env_libc()), 0);
	r.n = h.nlevels;
	for (int k = 0; k < h.nlevels; k++)
		ref_level_init(&r.lv[k], &h.lv[k]);
	if (i1spec)
		ref_level_init(&r.i1, &hi.lv[0]);

	uint64_t hot = 2 * h.lv[0].size, wide = 4 * h.lv[h.nlevels - 1].size;
	for (int i = 0; i < n; i++) {
		uint64_t x = rng_next(&seed);
		uint64_t addr = (x & 1) ? (x >> 8) % hot : (x >> 8) % wide;
		uint32_t size = sizes[(x >> 1) % (sizeof sizes / sizeof sizes[0])];
		bool fetch = i1spec && ((x >> 5) & 3) == 0;
		int got, want;

		if (fetch) {
			got = dc_cache_ifetch(&c, addr, size);
			want = ref_ifetch(&r, addr, size);
		} else {
			got = dc_cache_access(&c, addr, size);
			want = ref_access(&r, addr, size);
			served[got]++;
		}
		if (addr / h.lv[0].line != (addr + size - 1) / h.lv[0].line)
			multi++;
		if (got != want)
			dc_unit_fail(__FILE__, __LINE__,
				     "%s: %s %d of %llx+%u served by %d, reference says %d", spec,
				     fetch ? "fetch" : "access", i, (unsigned long long)addr, size,
				     got, want);
	}
	/* The run is only a check if it exercised every outcome. */
	for (int k = 1; k <= h.nlevels + 1; k++)
		if (served[k] == 0)
			dc_unit_fail(__FILE__, __LINE__, "%s: no access served by level %d", spec, k);
	CHECK(multi > n / 20);

	for (int k = 0; k < h.nlevels; k++)
		free(r.lv[k].w);
	free(r.i1.w);
	dc_cache_release(&c, dc_env_libc());
}

DC_TEST(cache, matches_reference_one_level)
{
	compare_with_reference("L1=1K:2:64", NULL, 0x1234567, 4000);
	compare_with_reference("L1=256:1:16", NULL, 0xabcdef, 4000);
	compare_with_reference("L1=512:8:32", NULL, 42, 4000);
}

DC_TEST(cache, matches_reference_two_levels)
{
	compare_with_reference("L1=1K:2:64,L2=4K:4:64", NULL, 7, 5000);
	compare_with_reference("L1=1K:2:64,L2=4K:4:64", "L1=512:2:64", 99, 5000);
	compare_with_reference("L1=512:4:32,L2=2K:2:128", "L1=256:1:16", 3, 5000);
}

DC_TEST(cache, matches_reference_three_and_four_levels)
{
	compare_with_reference("L1=512:2:16,L2=2K:4:32,L3=8K:8:64", NULL, 11, 6000);
	compare_with_reference("L1=512:2:16,L2=2K:4:32,L3=8K:8:64", "L1=256:2:32", 12, 6000);
	compare_with_reference("L1=256:2:16,L2=1K:2:32,L3=4K:4:64,L4=16K:8:128", NULL, 13, 6000);
}

/* Set counts that are not powers of two (block mod sets): 3, 5, 6 and 12
 * sets, with the wide search's 8 and 16 ways too. */
DC_TEST(cache, matches_reference_sets_not_a_power_of_two)
{
	compare_with_reference("L1=384:2:64", NULL, 31, 4000);
	compare_with_reference("L1=640:2:64,L2=6K:8:128", "L1=192:1:64", 32, 6000);
	compare_with_reference("L1=768:2:32,L2=3K:4:64,L3=12K:16:64", NULL, 33, 6000);
}

/* 3 sets of 2 ways (384:2:64): blocks 0, 3 and 6 share set 0, so the third
 * evicts the first; block 4 is in set 1 and evicts nothing of set 0.  A
 * mask (block & 3, as for 4 sets) would put 4 in set 0 and 3 in set 3. */
DC_TEST(cache, set_index_is_block_mod_sets)
{
	struct dc_cache c;

	mk(&c, "L1=384:2:64", NULL);
	CHECK_EQ(c.lv[0].set_mod, 3);
	CHECK_EQ(dc_cache_access(&c, 0 * 64, 8), 2);
	CHECK_EQ(dc_cache_access(&c, 3 * 64, 8), 2);
	CHECK_EQ(dc_cache_access(&c, 4 * 64, 8), 2);
	CHECK_EQ(dc_cache_access(&c, 0 * 64, 8), 1);   /* set 0 still holds 0 and 3 */
	CHECK_EQ(dc_cache_access(&c, 6 * 64, 8), 2);   /* evicts 3, the least recent */
	CHECK_EQ(dc_cache_access(&c, 0 * 64, 8), 1);
	CHECK_EQ(dc_cache_access(&c, 3 * 64, 8), 2);
	CHECK_EQ(dc_cache_access(&c, 4 * 64, 8), 1);
	rm(&c);
	/* A power of two keeps the mask. */
	mk(&c, "L1=512:2:64", NULL);
	CHECK_EQ(c.lv[0].set_mod, 0);
	CHECK_EQ(c.lv[0].set_mask, 3);
	rm(&c);
}

/* 8 to 32 ways, multiples of 4: the sets dc_cache_ref_wide searches on
 * CPUs with AVX2. */
DC_TEST(cache, matches_reference_wide_sets)
{
	compare_with_reference("L1=1K:8:32,L2=4K:16:32", NULL, 21, 6000);
	compare_with_reference("L1=1K:16:16,L2=4K:8:64,L3=16K:16:64", "L1=512:8:32", 22, 6000);
	compare_with_reference("L1=1536:12:32,L2=8K:32:64", NULL, 23, 6000);
	compare_with_reference("L1=1K:8:32,L2=5K:20:64,L3=24K:24:64", "L1=896:28:32", 24, 6000);
	/* 20 ways, 3 sets: a host's LL kind (block mod sets) */
	compare_with_reference("L1=512:8:64,L2=3840:20:64", NULL, 25, 6000);
}

/* ---- allocation ------------------------------------------------------------ */

struct cache_walk {
	const char *spec;
	bool i1;
};

static int cache_scenario(const struct dc_env *env, void *ud)
{
	const struct cache_walk *w = ud;
	struct dc_hier h;
	struct dc_cache c;
	int rc;

	parse(&h, w->spec);
	rc = dc_cache_init(&c, &h, w->i1 ? &h.lv[0] : NULL, env);
	if (rc)
		return rc;
	CHECK_EQ(dc_cache_access(&c, 0x100, 8), h.nlevels + 1);
	CHECK_EQ(dc_cache_access(&c, 0x100, 8), 1);
	if (w->i1)
		CHECK_EQ(dc_cache_ifetch(&c, 0x100, 4), h.nlevels > 1 ? 2 : 3);
	dc_cache_release(&c, env);
	return 0;
}

DC_TEST(cache, alloc_walk_init)
{
	struct cache_walk a = { "L1=1K:2:64,L2=4K:4:64,L3=16K:8:64,L4=64K:8:64", false };
	struct cache_walk b = { "L1=1K:2:64,L2=4K:4:64,L3=16K:8:64", true };
	struct cache_walk d = { "L1=1K:2:64", true };

	DC_ALLOC_WALK(cache_scenario, &a);
	DC_ALLOC_WALK(cache_scenario, &b);
	DC_ALLOC_WALK(cache_scenario, &d);
}

/* ---- victims: nfill and victim[] (cache.h Notes) ---------------------------- */

/* After an access served by level s, levels 1..s-1 missed and their nfill
 * and victim[] describe what that access filled there: one entry per line
 * that missed, in address order, holding the block it replaced or
 * DC_EMPTY_TAG for a way that was empty.  Levels s and below were not
 * consulted for victims (a level that hit, or one never reached): what they
 * hold is left from an earlier access, stale by contract, so no test reads
 * them. */

/* "L1=256:2:64": 2 sets x 2 ways; block b in set b mod 2.  On a cold cache
 * blocks 0, 2 (set 0) and 1 (set 1) each go to an empty way. */
DC_TEST(cache, victim_empty_way_on_cold_miss)
{
	struct dc_cache c;

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(dc_cache_access(&c, 128, 4), 2);         /* block 2, set 0's 2nd way */
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(dc_cache_access(&c, 64, 8), 2);          /* block 1, set 1 */
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	rm(&c);
}

/* A full set gives up its least recently used block.  2-way set 0 of
 * "L1=256:2:64" with A, B, C = blocks 0, 2, 4:
 *   A, B, C    C evicts A (LRU of [B, A])           victim 0
 *   A          set [C, B]: A evicts B               victim 2
 * and A, B, A, C on a fresh cache: the second A makes B the LRU, so C
 * evicts B.  Direct-mapped "L1=256:1:64": block 4 replaces block 0. */
DC_TEST(cache, victim_is_lru_block_of_full_set)
{
	struct dc_cache c;
	const uint64_t A = 0, B = 128, C = 256;

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, A, 4), 2);
	CHECK_EQ(dc_cache_access(&c, B, 4), 2);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(dc_cache_access(&c, C, 4), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], A >> 6);
	CHECK_EQ(dc_cache_access(&c, A, 4), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], B >> 6);
	rm(&c);

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, A, 4), 2);
	CHECK_EQ(dc_cache_access(&c, B, 4), 2);
	CHECK_EQ(dc_cache_access(&c, A, 4), 1);
	CHECK_EQ(dc_cache_access(&c, C, 4), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], B >> 6);
	rm(&c);

	mk(&c, "L1=256:1:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 2);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(dc_cache_access(&c, 256, 4), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], 0);
	rm(&c);
}

/* Each level that missed records its own victim.  L1 = 1 set x 2 ways,
 * L2 = 4 direct-mapped sets (block mod 4):
 *   0   -> 3   L1 [0]     empty     L2 s0 = 0  empty
 *   4   -> 3   L1 [4,0]   empty     L2 s0 = 4  victim 0
 *   1   -> 3   L1 [1,4]   victim 0  L2 s1 = 1  empty
 *   0   -> 3   L1 [0,1]   victim 4  L2 s0 = 0  victim 4 */
DC_TEST(cache, victim_recorded_per_missing_level)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64,L2=256:1:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 3);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(c.lv[1].nfill, 1);
	CHECK_EQ(c.lv[1].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(dc_cache_access(&c, 4 * 64, 4), 3);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(c.lv[1].nfill, 1);
	CHECK_EQ(c.lv[1].victim[0], 0);
	CHECK_EQ(dc_cache_access(&c, 1 * 64, 4), 3);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], 0);
	CHECK_EQ(c.lv[1].nfill, 1);
	CHECK_EQ(c.lv[1].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 3);
	CHECK_EQ(c.lv[0].victim[0], 4);
	CHECK_EQ(c.lv[1].victim[0], 4);
	rm(&c);
}

/* A level that hit is not consulted for victims.  L1 = 1 set x 2 ways, L2
 * = 2 sets x 2 ways; blocks 0, 1, 2:
 *   0, 1   -> 3, 3   L1 [1,0]            L2 s0 [0], s1 [1]
 *   2      -> 3      L1 [2,1] victim 0   L2 s0 [2,0] empty way
 *   0      -> 2      L1 [0,2] victim 1   L2 hit: not consulted
 *   0      -> 1      L1 hit: nothing filled anywhere
 * Served 2 says only L1 missed, so only L1's record is read; L2's still
 * holds what the access to block 2 left (stale by contract). */
DC_TEST(cache, victim_only_for_levels_that_missed)
{
	struct dc_cache c;

	mk(&c, "L1=128:2:64,L2=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 3);
	CHECK_EQ(dc_cache_access(&c, 64, 4), 3);
	CHECK_EQ(dc_cache_access(&c, 128, 4), 3);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], 0);
	CHECK_EQ(c.lv[1].nfill, 1);
	CHECK_EQ(c.lv[1].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], 1);
	CHECK_EQ(dc_cache_access(&c, 0, 4), 1);
	rm(&c);
}

/* A straddle (8 bytes at 60: blocks 0 and 1) that misses both lines fills
 * both, victims in address order.  "L1=256:2:64", 2 sets x 2 ways:
 *   cold                    nfill 2, both empty ways
 *   sets full: 2, 4 in set 0 and 3, 5 in set 1 (LRU 2 and 3)
 *                           nfill 2, victims 2 then 3
 * and in one fully associative set "L1=128:2:64" holding [3, 2]: block 0
 * evicts 2 ([0, 3]), then block 1 evicts 3 — both victims from one set. */
DC_TEST(cache, victim_straddle_missing_both_lines)
{
	struct dc_cache c;

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 2);
	CHECK_EQ(c.lv[0].nfill, 2);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(c.lv[0].victim[1], DC_EMPTY_TAG);
	rm(&c);

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 128, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 256, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 192, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 320, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 2);
	CHECK_EQ(c.lv[0].nfill, 2);
	CHECK_EQ(c.lv[0].victim[0], 2);
	CHECK_EQ(c.lv[0].victim[1], 3);
	rm(&c);

	mk(&c, "L1=128:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 128, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 192, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 2);
	CHECK_EQ(c.lv[0].nfill, 2);
	CHECK_EQ(c.lv[0].victim[0], 2);
	CHECK_EQ(c.lv[0].victim[1], 3);
	rm(&c);
}

/* A straddle that hits one line and misses the other fills one line.
 * "L1=256:2:64": set 1 full with 3, 5 (LRU 3), block 0 cached: the access
 * at 60 hits 0 and misses 1, which evicts 3.  With only block 1 cached,
 * block 0 misses into an empty way of set 0. */
DC_TEST(cache, victim_straddle_missing_one_line)
{
	struct dc_cache c;

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 192, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 320, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 0, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], 3);
	rm(&c);

	mk(&c, "L1=256:2:64", NULL);
	CHECK_EQ(dc_cache_access(&c, 64, 1), 2);
	CHECK_EQ(dc_cache_access(&c, 60, 8), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], DC_EMPTY_TAG);
	rm(&c);
}

/* With 16-byte lines a 32-byte access at 8 covers [8, 40): blocks 0, 1, 2
 * of L1 "256:2:16" (8 sets, so sets 0, 1, 2), and blocks 0, 1 of L2
 * "1K:2:32" (16 sets).
 *   cold: L1 fills 3, L2 fills 2, all empty ways.
 * On a fresh cache, fill sets 0, 1, 2 of L1 with blocks 8, 16 / 9, 17 /
 * 10, 18 (addresses 16 b; LRU 8, 9, 10).  In L2 (block = L1 block / 2)
 * they are 4, 8, 4, 8, 5, 9: the accesses to 9 and 17 hit L2 (served 2),
 * the others miss it (3), and L2's sets 0 and 1 stay empty.  The access:
 * L1 victims 8, 9, 10 in address order, L1 set 1 becomes [1, 17]; L2 fills
 * 2 empty ways.
 * Then evict only L1 block 1 by blocks 25 and 33 (set 1): 25 evicts 17
 * ([25, 1]), 33 evicts 1 ([33, 25]).  The access hits blocks 0 and 2,
 * misses block 1: nfill 1, victim the LRU 25.  L2 (25, 33 are its blocks 12
 * and 16, sets 12 and 0; set 0 becomes [16, 0]) still has blocks 0 and 1,
 * so it is served by L2. */
DC_TEST(cache, victim_access_filling_three_lines)
{
	struct dc_cache c;

	mk(&c, "L1=256:2:16,L2=1K:2:32", NULL);
	CHECK_EQ(dc_cache_access(&c, 8, 32), 3);
	CHECK_EQ(c.lv[0].nfill, 3);
	for (int j = 0; j < 3; j++)
		CHECK_EQ(c.lv[0].victim[j], DC_EMPTY_TAG);
	CHECK_EQ(c.lv[1].nfill, 2);
	CHECK_EQ(c.lv[1].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(c.lv[1].victim[1], DC_EMPTY_TAG);
	rm(&c);

	mk(&c, "L1=256:2:16,L2=1K:2:32", NULL);
	for (uint64_t b = 8; b <= 10; b++) {
		CHECK_EQ(dc_cache_access(&c, b * 16, 1), b == 9 ? 2 : 3);
		CHECK_EQ(dc_cache_access(&c, (b + 8) * 16, 1), b == 9 ? 2 : 3);
	}
	CHECK_EQ(dc_cache_access(&c, 8, 32), 3);
	CHECK_EQ(c.lv[0].nfill, 3);
	CHECK_EQ(c.lv[0].victim[0], 8);
	CHECK_EQ(c.lv[0].victim[1], 9);
	CHECK_EQ(c.lv[0].victim[2], 10);
	CHECK_EQ(c.lv[1].nfill, 2);
	CHECK_EQ(c.lv[1].victim[0], DC_EMPTY_TAG);
	CHECK_EQ(c.lv[1].victim[1], DC_EMPTY_TAG);

	CHECK_EQ(dc_cache_access(&c, 25 * 16, 1), 3);
	CHECK_EQ(c.lv[0].victim[0], 17);
	CHECK_EQ(dc_cache_access(&c, 33 * 16, 1), 3);
	CHECK_EQ(c.lv[0].victim[0], 1);
	CHECK_EQ(dc_cache_access(&c, 8, 32), 2);
	CHECK_EQ(c.lv[0].nfill, 1);
	CHECK_EQ(c.lv[0].victim[0], 25);
	rm(&c);
}

/* ---- victims against the reference model -------------------------------------- */

/* The reference of compare_with_reference, extended to report what each
 * missing line replaced: the block of the LRU way, or DC_EMPTY_TAG when it
 * took a way whose valid flag was clear. */
static bool ref_line_fill(struct ref_level *r, uint64_t block, uint64_t *victim)
{
	struct ref_way *set = r->w + (block % r->sets) * r->assoc, *way = NULL;

	r->clock++;
	for (uint64_t i = 0; i < r->assoc; i++) {
		if (set[i].valid && set[i].block == block) {
			set[i].used = r->clock;
			return true;
		}
	}
	for (uint64_t i = 0; i < r->assoc && !way; i++)
		if (!set[i].valid)
			way = &set[i];
	if (way) {
		*victim = DC_EMPTY_TAG;
	} else {
		way = &set[0];
		for (uint64_t i = 1; i < r->assoc; i++)
			if (set[i].used < way->used)
				way = &set[i];
		*victim = way->block;
	}
	way->valid = true;
	way->block = block;
	way->used = r->clock;
	return false;
}

/* Per level: the model's counts (from nfill and victim[]) and the
 * brute-force ones (from the reference and a per-block "ever placed" map). */
struct vlevel {
	uint64_t fills, empty, evict;        /* model */
	uint64_t ref_fills;
	unsigned char *placed;               /* by block number */
	uint64_t nblocks, *distinct;         /* per set: distinct blocks placed */
};

struct vharness {
	struct dc_hier h;
	struct dc_cache c;
	struct ref_cache r;
	struct vlevel v[DC_MAX_LEVELS];
	long served[DC_MAX_LEVELS + 2];
	long nfill_hist[DC_MAX_FILLS + 1];   /* model nfill per missing level */
};

static void vh_init(struct vharness *x, const char *spec, uint64_t max_addr)
{
	memset(x, 0, sizeof *x);
	parse(&x->h, spec);
	CHECK_EQ(dc_cache_init(&x->c, &x->h, NULL, dc_env_libc()), 0);
	x->r.n = x->h.nlevels;
	for (int k = 0; k < x->h.nlevels; k++) {
		ref_level_init(&x->r.lv[k], &x->h.lv[k]);
		x->v[k].nblocks = max_addr / x->h.lv[k].line + 2;
		x->v[k].placed = calloc(x->v[k].nblocks, 1);
		x->v[k].distinct = calloc(x->r.lv[k].sets, sizeof *x->v[k].distinct);
		CHECK(x->v[k].placed && x->v[k].distinct);
	}
}

static void vh_release(struct vharness *x)
{
	for (int k = 0; k < x->h.nlevels; k++) {
		free(x->r.lv[k].w);
		free(x->v[k].placed);
		free(x->v[k].distinct);
	}
	dc_cache_release(&x->c, dc_env_libc());
}

/* One access through both; the served level, and at every level that
 * missed nfill and each victim (in address order), must agree. */
static void vh_access(struct vharness *x, uint64_t addr, uint32_t size)
{
	int n = x->h.nlevels, want = n + 1;
	uint32_t rn[DC_MAX_LEVELS] = { 0 };
	uint64_t rv[DC_MAX_LEVELS][8];

	for (int k = 0; k < n; k++) {
		struct ref_level *r = &x->r.lv[k];
		for (uint64_t b = addr / r->line; b <= (addr + size - 1) / r->line; b++) {
			uint64_t victim;
			if (ref_line_fill(r, b, &victim))
				continue;
			CHECK(rn[k] < 8);
			rv[k][rn[k]++] = victim;
			CHECK(b < x->v[k].nblocks);
			if (!x->v[k].placed[b]) {
				x->v[k].placed[b] = 1;
				x->v[k].distinct[b % r->sets]++;
			}
		}
		if (!rn[k]) {
			want = k + 1;
			break;
		}
	}
	int got = dc_cache_access(&x->c, addr, size);
	if (got != want)
		dc_unit_fail(__FILE__, __LINE__, "%llx+%u served by %d, reference says %d",
			     (unsigned long long)addr, size, got, want);
	x->served[got]++;
	for (int k = 0; k < got - 1; k++) {
		const struct dc_cache_level *l = &x->c.lv[k];
		if (l->nfill != rn[k])
			dc_unit_fail(__FILE__, __LINE__, "%llx+%u: L%d nfill %u, reference %u",
				     (unsigned long long)addr, size, k + 1, l->nfill, rn[k]);
		for (uint32_t j = 0; j < rn[k]; j++)
			if (l->victim[j] != rv[k][j])
				dc_unit_fail(__FILE__, __LINE__, "%llx+%u: L%d victim[%u] = %llx, "
					     "reference %llx", (unsigned long long)addr, size, k + 1,
					     j, (unsigned long long)l->victim[j],
					     (unsigned long long)rv[k][j]);
		x->nfill_hist[l->nfill]++;
		x->v[k].fills += l->nfill;
		x->v[k].ref_fills += rn[k];
		for (uint32_t j = 0; j < l->nfill; j++) {
			if (l->victim[j] == DC_EMPTY_TAG)
				x->v[k].empty++;
			else
				x->v[k].evict++;
		}
	}
}

/* Fills add up (model sum of nfill = reference's line misses), fills =
 * empty fills + evictions, and empty fills per level = the sum over sets of
 * min(distinct blocks ever placed in the set, assoc): no block leaves a set
 * except by eviction, so a set is never refilled empty once full, and
 * until it is full every fill brings a new block into an empty way.  Hence
 * empty fills <= lines, with equality once every set saw assoc blocks. */
static void vh_check_totals(struct vharness *x)
{
	for (int k = 0; k < x->h.nlevels; k++) {
		struct vlevel *v = &x->v[k];
		const struct ref_level *r = &x->r.lv[k];
		uint64_t want_empty = 0, lines = r->sets * r->assoc;
		bool all_full = true;

		CHECK_EQ(v->fills, v->ref_fills);
		CHECK_EQ(v->empty + v->evict, v->fills);
		for (uint64_t s = 0; s < r->sets; s++) {
			want_empty += v->distinct[s] < r->assoc ? v->distinct[s] : r->assoc;
			all_full &= v->distinct[s] >= r->assoc;
		}
		CHECK_EQ(v->empty, want_empty);
		CHECK(v->empty <= lines);
		if (all_full)
			CHECK_EQ(v->empty, lines);
	}
}

/* The access mix of compare_with_reference, sizes up to 32 bytes: lines
 * are at least 16 bytes, so an access fills at most 3 lines per level
 * (the tool's largest access is 32 bytes, V256). */
static void vh_random(struct vharness *x, uint64_t seed, int n, uint64_t hot, uint64_t wide)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 3, 12, 32 };

	for (int i = 0; i < n; i++) {
		uint64_t r = rng_next(&seed);
		uint64_t addr = (r & 1) ? (r >> 8) % hot : (r >> 8) % wide;
		vh_access(x, addr, sizes[(r >> 1) % (sizeof sizes / sizeof sizes[0])]);
	}
}

/* A derived stream first.  "L1=512:2:16,L2=2K:4:32,L3=8K:8:64": L1 16 sets
 * x 2 ways (32 lines), L2 16 x 4 (64), L3 16 x 8 (128).  One byte at each
 * of 0, 16, ..., 16K - 16 (twice L3, 1024 accesses) on a cold cache:
 *   L1: every access is a new 16-byte block: 1024 fills, 1024/16 = 64
 *       distinct blocks per set > 2 ways, so 32 empty fills, 992 evictions.
 *   L2: reached by all 1024; the first access to each 32-byte block misses
 *       (512 fills), the second hits (served 2, 512 times).  512/16 = 32
 *       blocks per set > 4: 64 empty fills, 448 evictions.
 *   L3: reached by the 512 L2 misses; the first per 64-byte block misses
 *       (256 fills, served 4), the other hits (served 3, 256 times).
 *       256/16 = 16 per set > 8: 128 empty fills, 128 evictions.
 * Then 20000 random accesses compared one by one; the sets stay full, so
 * the empty fills stay at the number of lines. */
DC_TEST(cache, victims_match_reference_after_filling_sweep)
{
	static struct vharness x;
	const uint64_t lines[3] = { 32, 64, 128 }, fills[3] = { 1024, 512, 256 };

	vh_init(&x, "L1=512:2:16,L2=2K:4:32,L3=8K:8:64", 4 * 8192 + 64);
	for (uint64_t a = 0; a < 16384; a += 16)
		vh_access(&x, a, 1);
	CHECK_EQ(x.served[1], 0);
	CHECK_EQ(x.served[2], 512);
	CHECK_EQ(x.served[3], 256);
	CHECK_EQ(x.served[4], 256);
	for (int k = 0; k < 3; k++) {
		CHECK_EQ(x.v[k].fills, fills[k]);
		CHECK_EQ(x.v[k].empty, lines[k]);
		CHECK_EQ(x.v[k].evict, fills[k] - lines[k]);
	}
	vh_check_totals(&x);

	vh_random(&x, 0x5eed, 20000, 1024, 4 * 8192);
	vh_check_totals(&x);
	for (int k = 0; k < 3; k++) {
		CHECK_EQ(x.v[k].empty, lines[k]);
		CHECK(x.v[k].evict > fills[k]);          /* the random part evicted too */
	}
	/* the stream exercised 1-, 2- and 3-line fills */
	CHECK(x.nfill_hist[1] > 0 && x.nfill_hist[2] > 0 && x.nfill_hist[3] > 0);
	vh_release(&x);
}

/* Random streams from cold caches, so empty fills happen in the middle of
 * the stream and some sets of the bigger levels may never fill up: the
 * empty-fill count must still equal the brute-force sum over sets. */
DC_TEST(cache, victims_match_reference_random)
{
	static const struct {
		const char *spec;
		uint64_t hot, wide, seed;
		int n;
	} runs[] = {
		{ "L1=512:2:16,L2=2K:4:32,L3=8K:8:64", 1024, 32768, 11, 8000 },
		{ "L1=256:2:16,L2=1K:2:32,L3=4K:4:64,L4=16K:8:128", 512, 65536, 13, 8000 },
		{ "L1=1K:2:64,L2=4K:4:64", 2048, 16384, 7, 6000 },
		{ "L1=256:1:16,L2=1K:16:16", 512, 4096, 3, 6000 },
		/* few accesses: most sets of L2 are still partly empty */
		{ "L1=256:2:16,L2=4K:8:32", 512, 16384, 5, 300 },
	};
	static struct vharness x;

	for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		vh_init(&x, runs[i].spec, runs[i].wide + 64);
		vh_random(&x, runs[i].seed, runs[i].n, runs[i].hot, runs[i].wide);
		vh_check_totals(&x);
		for (int k = 0; k < x.h.nlevels; k++)
			CHECK(x.v[k].fills > 0 && x.v[k].empty > 0);
		CHECK(x.nfill_hist[2] > 0);
		vh_release(&x);
	}
}
