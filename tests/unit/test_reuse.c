/* test_reuse.c — exact reuse distances (reuse.h Notes): sweeps and cycles
 * with distances derived by hand, block granularity, prev_loc, a seeded
 * random trace against a brute-force LRU stack across several compactions,
 * the histogram bins, and allocation failure leaving the state unchanged. */
#include <stdlib.h>
#include <string.h>

#include "core/reuse.h"
#include "host/port_libc.h"
#include "unit.h"

/* ---- a brute-force reference: an LRU stack, most recent first ----------- */

struct ref {
	uint64_t *blk, *time;           /* parallel, stack order */
	uint32_t *loc;
	size_t n, cap;
	uint64_t now;
};

static void ref_init(struct ref *f, size_t cap)
{
	f->blk = malloc(cap * sizeof *f->blk);
	f->time = malloc(cap * sizeof *f->time);
	f->loc = malloc(cap * sizeof *f->loc);
	CHECK(f->blk && f->time && f->loc);
	f->n = 0;
	f->cap = cap;
	f->now = 0;
}

static void ref_release(struct ref *f)
{
	free(f->blk);
	free(f->time);
	free(f->loc);
}

/* The stack distance is the block's depth in the LRU stack: exactly the
 * distinct blocks touched since.  O(M) per access. */
static void ref_access(struct ref *f, uint64_t blk, uint32_t loc, struct dc_reuse_result *out)
{
	size_t i = 0;

	while (i < f->n && f->blk[i] != blk)
		i++;
	f->now++;
	if (i == f->n) {
		CHECK(f->n < f->cap);
		out->first = true;
		out->stack_dist = out->time_dist = 0;
		out->prev_loc = 0;
		f->n++;
	} else {
		out->first = false;
		out->stack_dist = i;
		out->time_dist = f->now - f->time[i];
		out->prev_loc = f->loc[i];
	}
	memmove(f->blk + 1, f->blk, i * sizeof *f->blk);
	memmove(f->time + 1, f->time, i * sizeof *f->time);
	memmove(f->loc + 1, f->loc, i * sizeof *f->loc);
	f->blk[0] = blk;
	f->time[0] = f->now;
	f->loc[0] = loc;
}

static void check_same(const struct dc_reuse_result *a, const struct dc_reuse_result *b)
{
	CHECK_EQ(a->first, b->first);
	CHECK_EQ(a->stack_dist, b->stack_dist);
	CHECK_EQ(a->time_dist, b->time_dist);
	CHECK_EQ(a->prev_loc, b->prev_loc);
}

/* xorshift64*, seeded per test. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* A trace that mixes a hot set (short reuses), a growing cold range (first
 * touches, long reuses) and strides: blocks are line numbers << 6 plus a
 * random offset inside the line. */
static uint64_t trace_addr(uint64_t *s, uint64_t nblocks)
{
	uint64_t x = rnd(s), blk;

	switch (x % 4) {
	case 0: blk = (x >> 8) % 16; break;                  /* hot */
	case 1: blk = (x >> 8) % 256; break;                 /* warm */
	default: blk = (x >> 8) % nblocks; break;            /* cold */
	}
	return (blk << 6) | ((x >> 40) & 63);
}

/* ---- init ---------------------------------------------------------------- */

/* block_bits above 20 is rejected before allocating anything; 0 and 20 are
 * accepted. */
DC_TEST(reuse, init_block_bits)
{
	struct dc_failenv fe;
	struct dc_reuse r;

	dc_failenv_init(&fe, 0);
	CHECK_EQ(dc_reuse_init(&r, &fe.env, 21), DC_EINVAL);
	CHECK_EQ(fe.calls, 0);
	CHECK_EQ(dc_reuse_init(&r, &fe.env, 20), 0);
	dc_reuse_release(&r);
	CHECK_EQ(dc_reuse_init(&r, &fe.env, 0), 0);
	dc_reuse_release(&r);
	CHECK_EQ(fe.live, 0);
}

/* ---- distances derived by hand ------------------------------------------- */

/* Two sweeps over L lines, one access per line.  First sweep: L first
 * touches.  Second sweep, line i at time L+i+1: its previous access was at
 * time i+1, so time distance L; in between, lines i+1..L-1 (first sweep) and
 * 0..i-1 (second sweep) were touched: L-1 distinct others.  L = 3000 is
 * beyond the initial tree capacity (1024), so the tree compacts and grows
 * mid-sweep. */
DC_TEST(reuse, two_sweeps)
{
	enum { L = 3000 };
	struct dc_reuse r;
	struct dc_reuse_result o;
	uint64_t firsts = 0;

	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	for (uint64_t i = 0; i < L; i++) {
		CHECK_EQ(dc_reuse_access(&r, 0x100000 + 64 * i, 1, &o), 0);
		firsts += o.first;
	}
	CHECK_EQ(firsts, L);
	for (uint64_t i = 0; i < L; i++) {
		CHECK_EQ(dc_reuse_access(&r, 0x100000 + 64 * i + 8, 2, &o), 0);
		CHECK(!o.first);
		CHECK_EQ(o.stack_dist, L - 1);
		CHECK_EQ(o.time_dist, L);
		CHECK_EQ(o.prev_loc, 1);
	}
	CHECK(r.compactions >= 2);
	dc_reuse_release(&r);
}

/* Touching the same block twice in a row: nothing in between, so stack
 * distance 0, and the next access, so time distance 1. */
DC_TEST(reuse, immediate_reaccess)
{
	struct dc_reuse r;
	struct dc_reuse_result o;

	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	CHECK_EQ(dc_reuse_access(&r, 0x40, 7, &o), 0);
	CHECK(o.first);
	CHECK_EQ(o.stack_dist, 0);
	CHECK_EQ(o.time_dist, 0);
	CHECK_EQ(o.prev_loc, 0);
	CHECK_EQ(dc_reuse_access(&r, 0x40, 8, &o), 0);
	CHECK(!o.first);
	CHECK_EQ(o.stack_dist, 0);
	CHECK_EQ(o.time_dist, 1);
	CHECK_EQ(o.prev_loc, 7);
	dc_reuse_release(&r);
}

/* A cycle over k blocks repeated `rounds` times: after the first round
 * every access has k-1 others and k accesses since its previous one. */
static void cycle(struct dc_reuse *r, unsigned k, unsigned rounds)
{
	struct dc_reuse_result o;

	CHECK_EQ(dc_reuse_init(r, dc_env_libc(), 6), 0);
	for (unsigned round = 0; round < rounds; round++)
		for (unsigned i = 0; i < k; i++) {
			CHECK_EQ(dc_reuse_access(r, 64 * i, 100 * round + i, &o), 0);
			CHECK_EQ(o.first, round == 0);
			if (round) {
				CHECK_EQ(o.stack_dist, k - 1);
				CHECK_EQ(o.time_dist, k);
				CHECK_EQ(o.prev_loc, 100 * (round - 1) + i);
			}
		}
}

/* K = DC_REUSE_FRONT: the blocks never leave the front, so the tree is
 * never touched and never compacts. */
DC_TEST(reuse, cyclic_in_front)
{
	struct dc_reuse r;

	cycle(&r, DC_REUSE_FRONT, 1000);
	CHECK_EQ(r.nfront, DC_REUSE_FRONT);
	CHECK_EQ(r.marks, 0);
	CHECK_EQ(r.compactions, 0);
	dc_reuse_release(&r);
}

/* K = 20 > DC_REUSE_FRONT, 1000 rounds: every reuse comes from the tree
 * (distance 19 is past the front) and the block leaving the front takes a
 * new time index each access; with at most 20 marks live the 1024-slot
 * tree compacts in place at least every ~1000 accesses without growing:
 * 20,000 accesses, at least 4 compactions. */
DC_TEST(reuse, cyclic_in_tree)
{
	struct dc_reuse r;

	cycle(&r, 20, 1000);
	CHECK_EQ(r.marks, 20 - DC_REUSE_FRONT);
	CHECK(r.compactions >= 4);
	CHECK_EQ(r.cap, DC_REUSE_INIT_CAP);
	dc_reuse_release(&r);
}

/* prev_loc is the loc of the previous access to the same block, not of the
 * previous access overall: A(1) B(2) A(3) B(4) A(5) -> A sees 1 then 3, B
 * sees 2.  Stack distance 1 and time distance 2 for each reuse. */
DC_TEST(reuse, prev_loc)
{
	static const struct { uint64_t addr; uint32_t loc, prev; } seq[] = {
		{ 0x1000, 1, 0 }, { 0x2000, 2, 0 }, { 0x1000, 3, 1 },
		{ 0x2000, 4, 2 }, { 0x1000, 5, 3 },
	};
	struct dc_reuse r;
	struct dc_reuse_result o;

	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
		CHECK_EQ(dc_reuse_access(&r, seq[i].addr, seq[i].loc, &o), 0);
		CHECK_EQ(o.first, i < 2);
		CHECK_EQ(o.prev_loc, seq[i].prev);
		if (i >= 2) {
			CHECK_EQ(o.stack_dist, 1);
			CHECK_EQ(o.time_dist, 2);
		}
	}
	dc_reuse_release(&r);
}

/* ---- granularity ----------------------------------------------------------- */

/* Addresses inside one block are the same block: with 8-byte words
 * (block_bits 3) 0x1000 and 0x1007 are one word, 0x1008 the next; with
 * 64-byte lines 0x1000..0x103f are one line, 0x1040 the next. */
DC_TEST(reuse, same_block)
{
	struct dc_reuse r;
	struct dc_reuse_result o;

	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 3), 0);
	CHECK_EQ(dc_reuse_access(&r, 0x1000, 0, &o), 0);
	CHECK(o.first);
	CHECK_EQ(dc_reuse_access(&r, 0x1007, 0, &o), 0);
	CHECK(!o.first);
	CHECK_EQ(o.stack_dist, 0);
	CHECK_EQ(dc_reuse_access(&r, 0x1008, 0, &o), 0);
	CHECK(o.first);
	dc_reuse_release(&r);

	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	CHECK_EQ(dc_reuse_access(&r, 0x1000, 0, &o), 0);
	CHECK(o.first);
	CHECK_EQ(dc_reuse_access(&r, 0x1008, 0, &o), 0);
	CHECK(!o.first);
	CHECK_EQ(dc_reuse_access(&r, 0x103f, 0, &o), 0);
	CHECK(!o.first);
	CHECK_EQ(o.time_dist, 1);
	CHECK_EQ(dc_reuse_access(&r, 0x1040, 0, &o), 0);
	CHECK(o.first);
	dc_reuse_release(&r);
}

/* Two sweeps over 16 consecutive 8-byte words (two 64-byte lines), times
 * 1..16 then 17..32.
 *  - block_bits 3: 16 blocks, so the second sweep has stack distance 15 and
 *    time distance 16 everywhere, like two_sweeps.
 *  - block_bits 6: the first sweep touches line 0 at times 1..8 and line 1
 *    at 9..16: words 0 and 8 are first touches, the others stack 0, time 1.
 *    Second sweep, word 0 at time 17: line 0 was last touched at 8, line 1
 *    since, so stack 1, time 9; word 8 at 25: line 1 last at 16, line 0
 *    since, stack 1, time 9; the rest again stack 0, time 1. */
DC_TEST(reuse, word_vs_line)
{
	struct dc_reuse r;
	struct dc_reuse_result o;

	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 3), 0);
	for (unsigned pass = 0; pass < 2; pass++)
		for (uint64_t w = 0; w < 16; w++) {
			CHECK_EQ(dc_reuse_access(&r, 0x8000 + 8 * w, 0, &o), 0);
			CHECK_EQ(o.first, pass == 0);
			if (pass) {
				CHECK_EQ(o.stack_dist, 15);
				CHECK_EQ(o.time_dist, 16);
			}
		}
	dc_reuse_release(&r);

	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	for (unsigned pass = 0; pass < 2; pass++)
		for (uint64_t w = 0; w < 16; w++) {
			bool line_start = w % 8 == 0;
			CHECK_EQ(dc_reuse_access(&r, 0x8000 + 8 * w, 0, &o), 0);
			CHECK_EQ(o.first, pass == 0 && line_start);
			if (o.first)
				continue;
			CHECK_EQ(o.stack_dist, line_start ? 1 : 0);
			CHECK_EQ(o.time_dist, line_start ? 9 : 1);
		}
	dc_reuse_release(&r);
}

/* Blocks that differ only above bit 32 (of the block number) are distinct. */
DC_TEST(reuse, high_blocks_distinct)
{
	struct dc_reuse r;
	struct dc_reuse_result o;

	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 0), 0);
	CHECK_EQ(dc_reuse_access(&r, 0x5, 0, &o), 0);
	CHECK(o.first);
	CHECK_EQ(dc_reuse_access(&r, 0x100000005ULL, 0, &o), 0);
	CHECK(o.first);
	CHECK_EQ(dc_reuse_access(&r, UINT64_MAX, 0, &o), 0);
	CHECK(o.first);
	CHECK_EQ(dc_reuse_access(&r, 0x5, 0, &o), 0);
	CHECK(!o.first);
	CHECK_EQ(o.stack_dist, 2);
	dc_reuse_release(&r);
}

/* ---- against the brute-force reference -------------------------------------- */

/* 8000 seeded accesses over up to 4000 lines: the distinct blocks pass 2048,
 * so the tree grows 1024 -> 2048 -> 4096 -> 8192 and compacts in between,
 * and the record table grows too.  Every result matches the LRU stack.  The
 * tree stays within the memory bound of the Notes: cap < max(1024, 4(M+1)). */
static void random_vs_reference(bool hw_popcnt)
{
	enum { N = 8000, NBLK = 4000 };
	struct dc_reuse r;
	struct dc_reuse_result o, e;
	struct ref f;
	uint64_t s = 0x9e3779b97f4a7c15ULL;

	ref_init(&f, N);
	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	r.hw_popcnt = r.hw_popcnt && hw_popcnt;
	for (uint32_t i = 0; i < N; i++) {
		uint64_t a = trace_addr(&s, NBLK);
		ref_access(&f, a >> 6, i, &e);
		CHECK_EQ(dc_reuse_access(&r, a, i, &o), 0);
		check_same(&o, &e);
	}
	CHECK(f.n > 2048);
	CHECK(r.compactions >= 3);
	CHECK(r.cap > DC_REUSE_INIT_CAP);
	CHECK(r.cap < 4 * (r.nblocks + 1));
	CHECK_EQ(r.nblocks, f.n);
	dc_reuse_release(&r);
	ref_release(&f);
}

DC_TEST(reuse, random_vs_reference)
{
	random_vs_reference(true);
}

/* The same with the bit-parallel population count, the path of CPUs
 * without POPCNT (the test above takes the instruction where there is
 * one). */
DC_TEST(reuse, random_vs_reference_soft_popcount)
{
	random_vs_reference(false);
}

/* Sweeps over 1500 and 5000 blocks with a random block (of 6000) between
 * sweep steps: nearly every access leaves the front and takes a time
 * index, so a sweep block is reused about 3000 and 10000 indices back, on
 * both sides of the 4096 newest indices kept out of the tree (64 words),
 * the random ones anywhere; words enter the tree all along, and
 * compactions renumber in between.  Every result matches the LRU stack. */
DC_TEST(reuse, recent_words_vs_reference)
{
	enum { N = 60000 };
	struct dc_reuse r;
	struct dc_reuse_result o, e;
	struct ref f;
	uint64_t s = 12345;

	ref_init(&f, 12000);
	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	for (uint32_t i = 0; i < N; i++) {
		uint64_t len = i < N / 2 ? 1500 : 5000;
		uint64_t blk = i & 1 ? 100000 + rnd(&s) % 6000 : (i / 2) % len;
		ref_access(&f, blk, i, &e);
		CHECK_EQ(dc_reuse_access(&r, blk << 6, i, &o), 0);
		check_same(&o, &e);
	}
	CHECK(r.compactions >= 2);
	CHECK(r.wr > 64);
	dc_reuse_release(&r);
	ref_release(&f);
}

/* A second reference, fast enough for tens of thousands of blocks: a
 * textbook Fenwick tree over access numbers 1..n holding a 1 at each
 * block's latest access (Bennett & Kruskal), so the stack distance of a
 * reuse is the number of 1s strictly between the previous access and now.
 * Blocks are small integers (an array of latest access numbers). */
struct timeref {
	uint32_t *bit, *last, *loc;    /* bit: 1-based over access numbers */
	uint32_t n, now;
};

static void timeref_init(struct timeref *f, uint32_t n, uint32_t nblk)
{
	f->bit = calloc(n + 1, sizeof *f->bit);
	f->last = calloc(nblk, sizeof *f->last);
	f->loc = calloc(nblk, sizeof *f->loc);
	CHECK(f->bit && f->last && f->loc);
	f->n = n;
	f->now = 0;
}

static void timeref_release(struct timeref *f)
{
	free(f->bit);
	free(f->last);
	free(f->loc);
}

static void timeref_add(struct timeref *f, uint32_t i, uint32_t d)
{
	for (; i <= f->n; i += i & -i)
		f->bit[i] += d;
}

static uint32_t timeref_prefix(const struct timeref *f, uint32_t i)
{
	uint32_t s = 0;

	for (; i; i -= i & -i)
		s += f->bit[i];
	return s;
}

static void timeref_access(struct timeref *f, uint32_t blk, uint32_t loc,
			   struct dc_reuse_result *out)
{
	uint32_t t = ++f->now, p = f->last[blk];

	CHECK(t <= f->n);
	out->first = !p;
	out->stack_dist = p ? timeref_prefix(f, t - 1) - timeref_prefix(f, p) : 0;
	out->time_dist = p ? t - p : 0;
	out->prev_loc = p ? f->loc[blk] : 0;
	if (p)
		timeref_add(f, p, (uint32_t)0 - 1);
	timeref_add(f, t, 1);
	f->last[blk] = t;
	f->loc[blk] = loc;
}

/* 40000 blocks, so the tree's capacity grows to 2^17 time indices (2049
 * bitmap words, a tree of 12 levels; more than any other test): rounds of a sweep over all blocks (runs of clears in one
 * word, a reuse in the next word while they are pending), a walk down
 * the columns of a 64 x 625 matrix of blocks (reuses about 625 indices,
 * 10 words, apart in the previous round's order), and random blocks,
 * interleaved (after the first sweep, which touches every block once),
 * with the engine's prefetches before every access.  Every result
 * matches the reference above, across the compactions. */
DC_TEST(reuse, many_words_vs_time_tree)
{
	enum { NBLK = 40000, ROWS = 64, COLS = NBLK / ROWS, N = 6 * NBLK };
	struct dc_reuse r;
	struct dc_reuse_result o, e;
	struct timeref f;
	uint64_t s = 4242;
	uint32_t i = 0;

	timeref_init(&f, N, NBLK);
	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	while (i < N) {
		uint32_t round = i / NBLK, k = i % NBLK, blk;
		if (round % 3 == 0)
			blk = k;                                  /* sweep */
		else if (round % 3 == 1)
			blk = (k % ROWS) * COLS + k / ROWS;       /* columns */
		else
			blk = (uint32_t)(rnd(&s) % NBLK);         /* random */
		if (round && k % 5 == 4)
			blk = (uint32_t)(rnd(&s) % NBLK);
		i++;
		timeref_access(&f, blk, i, &e);
		dc_reuse_prefetch(&r, (uint64_t)blk << 6);
		CHECK_EQ(dc_reuse_access(&r, (uint64_t)blk << 6, i, &o), 0);
		check_same(&o, &e);
	}
	CHECK(r.compactions >= 2);
	CHECK(r.wr > 20 * 64);
	CHECK_EQ(r.cap, (uint64_t)1 << 17);
	CHECK_EQ(r.nblocks, NBLK);
	dc_reuse_release(&r);
	timeref_release(&f);
}

/* The record the engine prefetches (dc_reuse_recent_rec) is the block's
 * own: right after an access it is in the front with that access's loc,
 * and found unless the front answered (only a look-up past the front
 * makes its chunk the latest in its recent slot); for any other
 * block it is NULL or holds the loc of the block's latest access (0 and
 * index 0 for a block never accessed), as the LRU stack says.  The
 * prefetches run before every access and change no result.  Addresses
 * span 6000 lines at 256-line strides too (blocks that share a host
 * line of records), and a fifth of the accesses and a third of the
 * other blocks lie 256 chunks up, where their chunk takes the same
 * recent slot (the look-up then says NULL as often as not). */
DC_TEST(reuse, recent_record_is_the_blocks)
{
	enum { N = 20000, NBLK = 6000 };
	struct dc_reuse r;
	struct dc_reuse_result o, e;
	struct ref f;
	uint64_t s = 777, found = 0;

	ref_init(&f, N);
	CHECK_EQ(dc_reuse_init(&r, dc_env_libc(), 6), 0);
	for (uint32_t i = 1; i <= N; i++) {
		uint64_t far = i % 5 ? 0 : (uint64_t)1 << 26;
		uint64_t a = far | (i & 1 ? trace_addr(&s, NBLK)
					  : ((rnd(&s) % 24) * 256 + i % 7) << 6);
		uint64_t b = trace_addr(&s, NBLK) | (i % 3 ? 0 : (uint64_t)1 << 26);
		const struct dc_reuse_rec *rec;
		size_t k;

		dc_reuse_prefetch(&r, a);
		ref_access(&f, a >> 6, i, &e);
		CHECK_EQ(dc_reuse_access(&r, a, i, &o), 0);
		check_same(&o, &e);
		rec = dc_reuse_recent_rec(&r, a);
		CHECK(rec != NULL || (!o.first && o.stack_dist < DC_REUSE_FRONT));
		if (rec) {
			CHECK_EQ(rec->loc, i);
			CHECK_EQ(rec->idx, DC_REUSE_IN_FRONT);
		}
		rec = dc_reuse_recent_rec(&r, b);
		if (!rec)
			continue;
		found++;
		for (k = 0; k < f.n && f.blk[k] != b >> 6; k++)
			;
		CHECK_EQ(rec->loc, k < f.n ? f.loc[k] : 0);
		if (k == f.n)
			CHECK_EQ(rec->idx, 0);
		else
			CHECK((rec->idx == DC_REUSE_IN_FRONT) == (k < DC_REUSE_FRONT));
	}
	CHECK(found > N / 4 && found < N);
	dc_reuse_release(&r);
	ref_release(&f);
}

/* ---- bins -------------------------------------------------------------------- */

/* first 1, growth 2: bin 0 {0}, 1 {1}, 2 [2,4), 3 [4,8), ...; 2^63 starts
 * bin 64, which also holds UINT64_MAX. */
DC_TEST(reuse, bins_pow2)
{
	CHECK_EQ(dc_reuse_bin(0, 1, 2), 0);
	CHECK_EQ(dc_reuse_bin(1, 1, 2), 1);
	CHECK_EQ(dc_reuse_bin(2, 1, 2), 2);
	CHECK_EQ(dc_reuse_bin(3, 1, 2), 2);
	CHECK_EQ(dc_reuse_bin(4, 1, 2), 3);
	CHECK_EQ(dc_reuse_bin(7, 1, 2), 3);
	CHECK_EQ(dc_reuse_bin(8, 1, 2), 4);
	CHECK_EQ(dc_reuse_bin(1023, 1, 2), 10);
	CHECK_EQ(dc_reuse_bin(1024, 1, 2), 11);
	CHECK_EQ(dc_reuse_bin((uint64_t)1 << 63, 1, 2), 64);
	CHECK_EQ(dc_reuse_bin(UINT64_MAX, 1, 2), 64);
}

/* first 4, growth 4: bin 0 [0,4), 1 [4,16), 2 [16,64), 3 [64,256). */
DC_TEST(reuse, bins_first4_growth4)
{
	CHECK_EQ(dc_reuse_bin(0, 4, 4), 0);
	CHECK_EQ(dc_reuse_bin(3, 4, 4), 0);
	CHECK_EQ(dc_reuse_bin(4, 4, 4), 1);
	CHECK_EQ(dc_reuse_bin(15, 4, 4), 1);
	CHECK_EQ(dc_reuse_bin(16, 4, 4), 2);
	CHECK_EQ(dc_reuse_bin(63, 4, 4), 2);
	CHECK_EQ(dc_reuse_bin(64, 4, 4), 3);
	CHECK_EQ(dc_reuse_bin(255, 4, 4), 3);
	CHECK_EQ(dc_reuse_bin(256, 4, 4), 4);
	CHECK_EQ(dc_reuse_bin_lo(0, 4, 4), 0);
	CHECK_EQ(dc_reuse_bin_lo(1, 4, 4), 4);
	CHECK_EQ(dc_reuse_bin_lo(2, 4, 4), 16);
	CHECK_EQ(dc_reuse_bin_lo(3, 4, 4), 64);
}

/* bin_lo is the least distance in each bin: bin(lo(k)) = k and
 * bin(lo(k+1) - 1) = k while lo does not saturate; beyond, UINT64_MAX. */
DC_TEST(reuse, bin_lo)
{
	static const uint64_t fg[][2] = { { 1, 2 }, { 4, 4 }, { 3, 10 }, { 1000, 2 } };

	CHECK_EQ(dc_reuse_bin_lo(0, 1, 2), 0);
	CHECK_EQ(dc_reuse_bin_lo(1, 1, 2), 1);
	CHECK_EQ(dc_reuse_bin_lo(2, 1, 2), 2);
	CHECK_EQ(dc_reuse_bin_lo(3, 1, 2), 4);
	CHECK_EQ(dc_reuse_bin_lo(64, 1, 2), (uint64_t)1 << 63);
	CHECK(dc_reuse_bin_lo(65, 1, 2) == UINT64_MAX);
	CHECK(dc_reuse_bin_lo(1000, 1, 2) == UINT64_MAX);
	for (size_t j = 0; j < sizeof fg / sizeof fg[0]; j++)
		for (unsigned k = 0; k < 200; k++) {
			uint64_t lo = dc_reuse_bin_lo(k, fg[j][0], fg[j][1]);
			uint64_t hi = dc_reuse_bin_lo(k + 1, fg[j][0], fg[j][1]);
			if (hi == UINT64_MAX)
				break;
			CHECK_EQ(dc_reuse_bin(lo, fg[j][0], fg[j][1]), k);
			CHECK_EQ(dc_reuse_bin(hi - 1, fg[j][0], fg[j][1]), k);
		}
}

/* ---- allocation failure ------------------------------------------------------ */

/* With memory gone after 600 blocks are known, a cycle over those 600 still
 * works: when the 1024-slot tree fills, growing it to 2(600+1) fails, and it
 * compacts in place instead (1024 > 600 leaves room), so every access has
 * stack distance 599 and time distance 600 and the capacity stays 1024.
 * New blocks then keep coming in (records and hash slots came in bulk)
 * until all 1024 tree slots hold live blocks, with DC_REUSE_FRONT more in
 * the front: the next distinct block fails with DC_ENOMEM and counts
 * neither as a block nor as an access. */
DC_TEST(reuse, no_memory_compacts_in_place)
{
	enum { K = 600 };
	struct dc_failenv fe;
	struct dc_reuse r;
	struct dc_reuse_result o;
	uint64_t k, accesses;
	int rc;

	dc_failenv_init(&fe, 0);
	CHECK_EQ(dc_reuse_init(&r, &fe.env, 6), 0);
	for (k = 0; k < K; k++)
		CHECK_EQ(dc_reuse_access(&r, 64 * k, 0, &o), 0);
	fe.fail_at = fe.calls + 1;
	for (unsigned round = 0; round < 8; round++)
		for (k = 0; k < K; k++) {
			CHECK_EQ(dc_reuse_access(&r, 64 * k, 0, &o), 0);
			CHECK(!o.first);
			CHECK_EQ(o.stack_dist, K - 1);
			CHECK_EQ(o.time_dist, K);
		}
	CHECK(fe.failures > 0);
	CHECK(r.compactions >= 4);
	CHECK_EQ(r.cap, DC_REUSE_INIT_CAP);
	for (k = K;; k++) {
		rc = dc_reuse_access(&r, 64 * k, 0, &o);
		if (rc)
			break;
		CHECK(o.first);
	}
	CHECK_EQ(rc, DC_ENOMEM);
	CHECK_EQ(k, DC_REUSE_INIT_CAP + DC_REUSE_FRONT);
	CHECK_EQ(r.nblocks, DC_REUSE_INIT_CAP + DC_REUSE_FRONT);
	accesses = r.accesses;
	CHECK_EQ(dc_reuse_access(&r, 0, 0, &o), DC_ENOMEM);
	CHECK_EQ(r.accesses, accesses);
	dc_reuse_release(&r);
	CHECK_EQ(fe.live, 0);
}

/* Init, 7000 accesses over up to 4000 lines (over 2048 distinct: the tree
 * and the record table both grow), release.  An access that fails with DC_ENOMEM must leave no
 * trace: it is left out of the reference too, and every later access that
 * succeeds (reuses of known blocks, in-place compactions) must still match
 * the reference exactly. */
static int reuse_scenario(const struct dc_env *env, void *ud)
{
	enum { N = 7000, NBLK = 4000 };
	struct dc_reuse r;
	struct dc_reuse_result o, e;
	struct ref f;
	uint64_t s = 12345;
	long ok_after_fail = 0;
	bool failed = false, tree_full = false;
	int rc;

	(void)ud;
	rc = dc_reuse_init(&r, env, 6);
	if (rc)
		return rc;
	ref_init(&f, N);
	for (uint32_t i = 0; i < N; i++) {
		uint64_t a = trace_addr(&s, NBLK);
		rc = dc_reuse_access(&r, a, i, &o);
		if (rc) {
			CHECK_EQ(rc, DC_ENOMEM);
			if (!failed)
				tree_full = r.marks >= r.cap;
			failed = true;
			continue;
		}
		ok_after_fail += failed;
		ref_access(&f, a >> 6, i, &e);
		check_same(&o, &e);
	}
	/* Known blocks keep hitting after a failure, unless it came before the
	 * first record existed or every tree slot holds a live block (the tree
	 * could not grow; see no_memory_compacts_in_place). */
	if (failed && f.n && !tree_full)
		CHECK(ok_after_fail > 0);
	if (!failed)
		CHECK(f.n > 2048);
	dc_reuse_release(&r);
	ref_release(&f);
	/* A failed tree growth is absorbed (compaction in place), so ask the
	 * env whether anything failed. */
	return ((struct dc_failenv *)env->ud)->failures ? DC_ENOMEM : 0;
}

DC_TEST(reuse, alloc_walk)
{
	DC_ALLOC_WALK(reuse_scenario, NULL);
}
