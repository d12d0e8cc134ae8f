/* test_rdx.c — emulated debug-register watchpoints (rdx.h Notes):
 * configuration checks, the debug-register and block watch rules (with the
 * dc_rdx_maybe filter never saying "surely not" for an access that traps),
 * free-watchpoint arming and the sample bookkeeping, reservoir replacement
 * checked statistically against the probabilities the Notes' algorithm
 * implies, the oldest scheme, seed determinism, proportional attribution
 * with weights derived by hand, and allocation failure.
 *
 * Statistical checks use bounds of 5 binomial standard deviations; the
 * generator is seeded, so each check always passes or always fails. */
#include "core/rdx.h"
#include "host/port_libc.h"
#include "unit.h"

static double absd(double x)
{
	return x < 0 ? -x : x;
}

/* xorshift64*, the test's own generator (independent of the module's). */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static struct dc_rdx_cfg mkcfg(unsigned nwp, int watch, unsigned block_bits, int replace,
			       bool proportional, uint64_t seed)
{
	/* max_size 64: the largest access of the cases below but filter_walk's */
	struct dc_rdx_cfg c = { .nwp = nwp, .watch = watch, .block_bits = block_bits,
				.max_size = 64, .replace = replace,
				.proportional = proportional, .seed = seed };
	return c;
}

static void rinit(struct dc_rdx *r, unsigned nwp, int watch, unsigned block_bits, int replace,
		  bool proportional, uint64_t seed)
{
	struct dc_rdx_cfg c = mkcfg(nwp, watch, block_bits, replace, proportional, seed);

	CHECK_EQ(dc_rdx_init(r, dc_env_libc(), &c), 0);
}

/* ---- configuration ------------------------------------------------------- */

/* nwp must be 1..16, watch and replace one of their two values, block_bits
 * at most 20; a rejected configuration allocates nothing. */
DC_TEST(rdx, init_rejects_bad_config)
{
	static const struct { unsigned nwp; int watch; unsigned bb; int replace; int rc; } c[] = {
		{ 0, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, DC_EINVAL },
		{ 17, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, DC_EINVAL },
		{ 1000, DC_RDX_WATCH_BLOCK, 6, DC_RDX_OLDEST, DC_EINVAL },
		{ 4, 2, 6, DC_RDX_RESERVOIR, DC_EINVAL },
		{ 4, -1, 6, DC_RDX_RESERVOIR, DC_EINVAL },
		{ 4, DC_RDX_WATCH_DR, 6, 2, DC_EINVAL },
		{ 4, DC_RDX_WATCH_BLOCK, 6, -1, DC_EINVAL },
		{ 4, DC_RDX_WATCH_BLOCK, 21, DC_RDX_RESERVOIR, DC_EINVAL },
		{ 4, DC_RDX_WATCH_DR, 21, DC_RDX_RESERVOIR, DC_EINVAL },
		{ 4, DC_RDX_WATCH_BLOCK, 64, DC_RDX_RESERVOIR, DC_EINVAL },
		{ 1, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, 0 },
		{ 16, DC_RDX_WATCH_DR, 0, DC_RDX_OLDEST, 0 },
		{ 16, DC_RDX_WATCH_BLOCK, 20, DC_RDX_RESERVOIR, 0 },
		{ 2, DC_RDX_WATCH_BLOCK, 0, DC_RDX_OLDEST, 0 },
	};

	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct dc_failenv fe;
		struct dc_rdx r;
		struct dc_rdx_cfg cfg = mkcfg(c[i].nwp, c[i].watch, c[i].bb, c[i].replace, true, 1);

		dc_failenv_init(&fe, 0);
		/* the case number rides along so that a failure names it */
		CHECK_EQ(dc_rdx_init(&r, &fe.env, &cfg) * 100 + (int)i, c[i].rc * 100 + (int)i);
		if (c[i].rc)
			CHECK_EQ(fe.calls, 0);
		else
			dc_rdx_release(&r);
		CHECK_EQ(fe.live, 0);
	}
}

/* max_size must be at least 1. */
DC_TEST(rdx, init_rejects_bad_max_size)
{
	static const struct { unsigned max_size; int rc; } c[] = {
		{ 0, DC_EINVAL }, { 1, 0 }, { 32, 0 }, { 1u << 31, 0 },
	};

	for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
		struct dc_rdx r;
		struct dc_rdx_cfg cfg = mkcfg(16, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, true, 1);

		cfg.max_size = c[i].max_size;
		CHECK_EQ(dc_rdx_init(&r, dc_env_libc(), &cfg) * 100 + (int)i, c[i].rc * 100 + (int)i);
		if (!c[i].rc)
			dc_rdx_release(&r);
	}
}

/* A fresh watcher has nothing armed: the filter says "surely not" for any
 * access and nothing traps or drains. */
DC_TEST(rdx, fresh_is_empty)
{
	struct dc_rdx r;
	struct dc_rdx_hit h[DC_RDX_MAX_WP];

	rinit(&r, 4, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, true, 5);
	CHECK_EQ(r.narmed, 0);
	CHECK(!dc_rdx_maybe(&r, 0));
	CHECK(!dc_rdx_maybe(&r, 0x1000));
	CHECK_EQ(dc_rdx_access(&r, 0x1000, 8, h), 0);
	CHECK_EQ(dc_rdx_drain(&r, h), 0);
	CHECK_EQ(r.traps, 0);
	dc_rdx_release(&r);
}

/* ---- debug-register rules ------------------------------------------------ */

/* The watched length for an access of size s: the smallest of 1, 2, 4, 8
 * that holds s, 8 for anything larger (written independently of rdx.c). */
static uint64_t dr_len(unsigned s)
{
	return s <= 1 ? 1 : s <= 2 ? 2 : s <= 4 ? 4 : 8;
}

struct wcase {
	uint64_t a;
	unsigned s;             /* the use */
	uint64_t b;
	unsigned bs;            /* the later access */
	bool trap;
};

/* Each case on a fresh watcher with one watchpoint: the use at (a, s) is
 * access number 77 in bucket 3 at location 9; the access (b, bs) traps or
 * not.  A trap reports the use with weight 1 (proportional off), disarms
 * the watchpoint (narmed 0, the same access again does not trap, the filter
 * says "surely not"); a miss leaves it armed.  A trap also implies that
 * dc_rdx_maybe said "maybe" beforehand. */
static void run_cases(const struct wcase *c, unsigned n, int watch, unsigned bb)
{
	for (unsigned i = 0; i < n; i++) {
		struct dc_rdx r;
		struct dc_rdx_hit h[DC_RDX_MAX_WP];
		unsigned got;

		rinit(&r, 1, watch, bb, DC_RDX_RESERVOIR, false, 11);
		CHECK_EQ(dc_rdx_sample(&r, c[i].a, c[i].s, 77, 0xabc, 3, 9), 0);
		CHECK_EQ(r.narmed, 1);
		if (c[i].trap)
			CHECK_EQ(dc_rdx_maybe(&r, c[i].b) * 1000 + i, 1000 + i);
		got = dc_rdx_access(&r, c[i].b, c[i].bs, h);
		/* the case number rides along so that a failure names it */
		CHECK_EQ(got * 1000 + i, (unsigned)c[i].trap * 1000 + i);
		if (c[i].trap) {
			CHECK_EQ(h[0].t_use, 77);
			CHECK_EQ(h[0].bucket, 3);
			CHECK_EQ(h[0].loc, 9);
			CHECK_EQ(h[0].weight, 1);
			CHECK_EQ(r.narmed, 0);
			CHECK_EQ(r.traps, 1);
			CHECK_EQ(dc_rdx_access(&r, c[i].b, c[i].bs, h), 0);
			CHECK(!dc_rdx_maybe(&r, c[i].b));
			CHECK_EQ(dc_rdx_drain(&r, h), 0);
		} else {
			CHECK_EQ(r.narmed, 1);
			CHECK_EQ(r.traps, 0);
			CHECK_EQ(dc_rdx_drain(&r, h), 1);
			CHECK_EQ(h[0].t_use, 77);
		}
		dc_rdx_release(&r);
	}
}

/* Watched ranges, derived from the rule (len = smallest of 1,2,4,8 >= s,
 * 8 for more; lo = a & ~(len-1)):
 *   (0x1003, 1) -> [0x1003, 0x1004)
 *   (0x1005, 2) -> len 2, [0x1004, 0x1006)
 *   (0x100e, 3) -> len 4, [0x100c, 0x1010): the use itself straddles into
 *                  0x1010, which is not watched
 *   (0x2001, 4) -> [0x2000, 0x2004)
 *   (0x3007, 8) -> [0x3000, 0x3008)
 *   (0x3105, 5), (0x3106, 7) -> len 8, [0x3100, 0x3108)
 *   (0x4010, 16) -> 8 bytes only, [0x4010, 0x4018)
 *   (0x403f, 2) -> len 2, [0x403e, 0x4040)  (end of a 64-byte granule)
 *   (0x4040, 1) -> [0x4040, 0x4041)         (start of one)
 * An access [b, b+bs) traps iff b < hi and b + bs > lo. */
DC_TEST(rdx, dr_rules)
{
	static const struct wcase c[] = {
		{ 0x1003, 1, 0x1003, 1, true },
		{ 0x1003, 1, 0x1002, 1, false },     /* adjacent below */
		{ 0x1003, 1, 0x1004, 1, false },     /* adjacent above */
		{ 0x1003, 1, 0x1002, 2, true },      /* [0x1002,0x1004) overlaps */
		{ 0x1003, 1, 0x1000, 4, true },
		{ 0x1003, 1, 0x1000, 3, false },     /* [0x1000,0x1003) ends at lo */
		{ 0x1005, 2, 0x1004, 1, true },      /* aligned down: 0x1004 watched */
		{ 0x1005, 2, 0x1006, 1, false },
		{ 0x1005, 2, 0x1003, 1, false },
		{ 0x1005, 2, 0x1003, 2, true },      /* unaligned, overlaps 0x1004 */
		{ 0x1005, 2, 0x1000, 8, true },
		{ 0x100e, 3, 0x100c, 1, true },      /* before the use, same aligned 4 */
		{ 0x100e, 3, 0x1010, 1, false },     /* the use's straddling byte */
		{ 0x100e, 3, 0x100f, 1, true },
		{ 0x100e, 3, 0x100b, 1, false },
		{ 0x100e, 3, 0x1008, 4, false },     /* [0x1008,0x100c) adjacent */
		{ 0x100e, 3, 0x100a, 4, true },      /* straddles in from below */
		{ 0x2001, 4, 0x2003, 1, true },
		{ 0x2001, 4, 0x2004, 4, false },
		{ 0x2001, 4, 0x1ffc, 4, false },
		{ 0x2001, 4, 0x1fff, 2, true },      /* [0x1fff,0x2001) */
		{ 0x3007, 8, 0x3000, 1, true },
		{ 0x3007, 8, 0x3008, 8, false },
		{ 0x3007, 8, 0x2ff8, 8, false },
		{ 0x3007, 8, 0x2fff, 2, true },      /* straddles in from below */
		{ 0x3007, 8, 0x3007, 8, true },      /* straddles out above */
		{ 0x3105, 5, 0x3100, 1, true },
		{ 0x3105, 5, 0x3108, 1, false },
		{ 0x3106, 7, 0x3107, 1, true },
		{ 0x3106, 7, 0x30ff, 1, false },
		{ 0x4010, 16, 0x4010, 1, true },
		{ 0x4010, 16, 0x4017, 1, true },
		{ 0x4010, 16, 0x4018, 1, false },    /* 2nd half of the use: unwatched */
		{ 0x4010, 16, 0x4018, 8, false },
		{ 0x4010, 16, 0x4000, 16, false },   /* [0x4000,0x4010) adjacent */
		{ 0x4010, 16, 0x4008, 16, true },    /* [0x4008,0x4018) */
		{ 0x4010, 16, 0x4001, 16, true },    /* [0x4001,0x4011) */
		{ 0x4010, 16, 0x3ff0, 64, true },    /* [0x3ff0,0x4030) covers it */
		{ 0x403f, 2, 0x403e, 1, true },
		{ 0x403f, 2, 0x4040, 1, false },
		{ 0x403f, 2, 0x403f, 2, true },      /* crosses the granule edge */
		{ 0x403f, 2, 0x403c, 2, false },
		{ 0x4040, 1, 0x403f, 2, true },      /* crosses into the next granule */
		{ 0x4040, 1, 0x403f, 1, false },
		{ 0x4040, 1, 0x4020, 64, true },     /* [0x4020,0x4060) */
		{ 0x4040, 1, 0x4000, 64, false },    /* [0x4000,0x4040) */
	};

	run_cases(c, sizeof c / sizeof c[0], DC_RDX_WATCH_DR, 6);
}

/* ---- block rule ------------------------------------------------------------ */

/* The watched block holds the use's first byte; an access traps iff its
 * first byte is in the block (a straddling access whose first byte lies
 * before the block does not).
 *   bb 6:  (0x1234, 4) -> [0x1200, 0x1240)
 *   bb 3:  (0x1235, 16) -> [0x1230, 0x1238) (the use's size is irrelevant)
 *   bb 12: (0x5678, 8) -> [0x5000, 0x6000)
 *   bb 0:  (0x7777, 8) -> [0x7777, 0x7778) */
DC_TEST(rdx, block_rule_6)
{
	static const struct wcase c[] = {
		{ 0x1234, 4, 0x1234, 1, true },
		{ 0x1234, 4, 0x1200, 1, true },
		{ 0x1234, 4, 0x123f, 1, true },
		{ 0x1234, 4, 0x123f, 8, true },      /* first byte in, rest beyond */
		{ 0x1234, 4, 0x1240, 1, false },
		{ 0x1234, 4, 0x11ff, 1, false },
		{ 0x1234, 4, 0x11ff, 8, false },     /* straddles in: first byte out */
		{ 0x1234, 4, 0x11c0, 64, false },
		{ 0x1234, 4, 0x1210, 64, true },
	};

	run_cases(c, sizeof c / sizeof c[0], DC_RDX_WATCH_BLOCK, 6);
}

DC_TEST(rdx, block_rule_3)
{
	static const struct wcase c[] = {
		{ 0x1235, 16, 0x1230, 1, true },
		{ 0x1235, 16, 0x1237, 4, true },
		{ 0x1235, 16, 0x1238, 1, false },    /* inside the use, past the block */
		{ 0x1235, 16, 0x122f, 1, false },
		{ 0x1235, 16, 0x122f, 4, false },    /* straddles in */
		{ 0x1235, 16, 0x1228, 8, false },
	};

	run_cases(c, sizeof c / sizeof c[0], DC_RDX_WATCH_BLOCK, 3);
}

DC_TEST(rdx, block_rule_12)
{
	static const struct wcase c[] = {
		{ 0x5678, 8, 0x5000, 1, true },
		{ 0x5678, 8, 0x5fff, 1, true },
		{ 0x5678, 8, 0x5fff, 16, true },
		{ 0x5678, 8, 0x5800, 8, true },
		{ 0x5678, 8, 0x6000, 1, false },
		{ 0x5678, 8, 0x4fff, 1, false },
		{ 0x5678, 8, 0x4ff8, 16, false },    /* straddles in */
	};

	run_cases(c, sizeof c / sizeof c[0], DC_RDX_WATCH_BLOCK, 12);
}

DC_TEST(rdx, block_rule_0)
{
	static const struct wcase c[] = {
		{ 0x7777, 8, 0x7777, 1, true },
		{ 0x7777, 8, 0x7778, 1, false },     /* inside the use, not the block */
		{ 0x7777, 8, 0x7776, 2, false },
	};

	run_cases(c, sizeof c / sizeof c[0], DC_RDX_WATCH_BLOCK, 0);
}

/* ---- the filter against random accesses ------------------------------------ */

/* The test's own picture of what is armed: the watched range of each use. */
struct oracle {
	uint64_t lo[DC_RDX_MAX_WP], hi[DC_RDX_MAX_WP], t[DC_RDX_MAX_WP];
	unsigned n;
};

static bool o_touches(int watch, uint64_t lo, uint64_t hi, uint64_t b, unsigned bs)
{
	if (watch == DC_RDX_WATCH_BLOCK)
		return b >= lo && b < hi;
	return b < hi && b + bs > lo;
}

/* Arms a use at (a, s) with access number t on a watcher that has a free
 * watchpoint (so the use is certainly armed) and records it. */
static void o_arm(struct dc_rdx *r, struct oracle *o, int watch, unsigned bb, uint64_t a,
		  unsigned s, uint64_t t)
{
	uint64_t len = watch == DC_RDX_WATCH_BLOCK ? (uint64_t)1 << bb : dr_len(s);
	uint64_t arms = r->arms;

	CHECK(o->n < r->cfg.nwp);
	CHECK_EQ(dc_rdx_sample(r, a, s, t, t % 3, 0, 0), 0);
	CHECK_EQ(r->arms, arms + 1);
	o->lo[o->n] = a / len * len;
	o->hi[o->n] = o->lo[o->n] + len;
	o->t[o->n] = t;
	o->n++;
}

/* K = 4 watchpoints armed on uses at random addresses in a 640-byte window
 * (ten 64-byte granules, so accesses often cross granule edges) with sizes
 * 1..16; then random accesses of sizes smax_lo..smax_hi starting in and
 * around the window.  Before each access: if the oracle says it touches an
 * armed range, dc_rdx_maybe must say "maybe".  The access must trap exactly
 * the watchpoints the oracle names (matched by t_use); they are re-armed
 * with new uses.  Every 97 accesses the watcher is drained: then nothing is
 * armed, and the filter must say "surely not" for every access. */
static void filter_walk(int watch, unsigned bb, unsigned smin, unsigned smax, uint64_t seed)
{
	enum { K = 4, N = 20000, WIN = 640 };
	struct dc_rdx r;
	struct oracle o = { .n = 0 };
	struct dc_rdx_hit h[DC_RDX_MAX_WP];
	uint64_t s = seed, t = 0, base = 0x7f0000001000ULL, traps = 0;

	struct dc_rdx_cfg cfg = mkcfg(K, watch, bb, DC_RDX_RESERVOIR, false, seed);

	cfg.max_size = smax;
	CHECK_EQ(dc_rdx_init(&r, dc_env_libc(), &cfg), 0);
	for (unsigned q = 0; q < N; q++) {
		uint64_t x = rnd(&s), b;
		unsigned bs, expect = 0, got;
		bool hit[K] = { false };

		while (o.n < K) {
			uint64_t y = rnd(&s);
			o_arm(&r, &o, watch, bb, base + y % WIN, 1 + (unsigned)(y >> 32) % 16, ++t);
		}
		CHECK_EQ(r.narmed, K);
		b = base - 128 + x % (WIN + 256);
		bs = smin + (unsigned)((x >> 40) % (smax - smin + 1));
		for (unsigned j = 0; j < o.n; j++)
			expect += hit[j] = o_touches(watch, o.lo[j], o.hi[j], b, bs);
		if (expect)
			CHECK(dc_rdx_maybe(&r, b));
		got = dc_rdx_access(&r, b, bs, h);
		CHECK_EQ(got, expect);
		for (unsigned i = 0; i < got; i++) {
			unsigned j = 0;
			while (j < o.n && !(hit[j] && o.t[j] == h[i].t_use))
				j++;
			CHECK(j < o.n);
			hit[j] = false;
		}
		/* drop the trapped ones from the oracle */
		{
			unsigned k = 0;
			for (unsigned j = 0; j < o.n; j++)
				if (!o_touches(watch, o.lo[j], o.hi[j], b, bs)) {
					o.lo[k] = o.lo[j];
					o.hi[k] = o.hi[j];
					o.t[k] = o.t[j];
					k++;
				}
			o.n = k;
		}
		traps += got;
		CHECK_EQ(r.narmed, o.n);
		if (q % 97 == 96) {
			CHECK_EQ(dc_rdx_drain(&r, h), o.n);
			o.n = 0;
			CHECK_EQ(r.narmed, 0);
			for (int i = 0; i < 50; i++) {
				uint64_t y = rnd(&s);
				CHECK(!dc_rdx_maybe(&r, base - 128 + y % (WIN + 256)));
			}
		}
	}
	CHECK_EQ(r.traps, traps);
	CHECK(traps > N / 500);         /* the walk did exercise traps (1-byte blocks: ~0.4%) */
	dc_rdx_release(&r);
}

DC_TEST(rdx, filter_never_misses_dr)
{
	filter_walk(DC_RDX_WATCH_DR, 6, 1, 64, 0x1234567);
	filter_walk(DC_RDX_WATCH_DR, 6, 1, 16, 0x89abcdef);
}

DC_TEST(rdx, filter_never_misses_block)
{
	filter_walk(DC_RDX_WATCH_BLOCK, 6, 1, 64, 0x5151);
	filter_walk(DC_RDX_WATCH_BLOCK, 3, 1, 32, 0x6262);
	filter_walk(DC_RDX_WATCH_BLOCK, 12, 1, 64, 0x7373);
	filter_walk(DC_RDX_WATCH_BLOCK, 0, 1, 8, 0x8484);
}

/* rdx.h promises "False means surely not" for any [a, a + size); an access
 * longer than 65 bytes can span three or more 64-byte granules. */
DC_TEST(rdx, filter_never_misses_dr_long_access)
{
	filter_walk(DC_RDX_WATCH_DR, 6, 65, 256, 0x4242);
}

/* The filter is probed at an access's first byte only, so a watchpoint
 * counts in the granules where an access that reaches it can start: a
 * 1-byte watch at 0x1040 (the first byte of granule 0x41) is reached
 * from 0x1040 - (max_size - 1) on, i.e. from granule 0x40 with max_size
 * 32 (0x1021) but not with max_size 1.  The two granules' slots differ
 * (the multiplicative hash of consecutive granules differs by
 * 0x9e3779b97f4a7c15 >> 54 = 632 slots, mod 1024).  The block rule traps
 * on the first byte only, whatever max_size is. */
/* A watcher of cfg, max_size m, rule watch, with a 1-byte use at 0x1040. */
static void watch_1040(struct dc_rdx *r, struct dc_rdx_cfg cfg, unsigned m, int watch)
{
	cfg.max_size = m;
	cfg.watch = watch;
	CHECK_EQ(dc_rdx_init(r, dc_env_libc(), &cfg), 0);
	CHECK_EQ(dc_rdx_sample(r, 0x1040, 1, 1, 0, 0, 0), 0);
}

DC_TEST(rdx, filter_reach_follows_max_size)
{
	struct dc_rdx r;
	struct dc_rdx_cfg cfg = mkcfg(1, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, false, 3);

	CHECK(dc_rdx_slot(0x40) != dc_rdx_slot(0x41));
	watch_1040(&r, cfg, 32, DC_RDX_WATCH_DR);
	CHECK(dc_rdx_maybe(&r, 0x1021));
	CHECK(dc_rdx_maybe(&r, 0x1000));           /* same granule: maybe */
	CHECK(dc_rdx_maybe(&r, 0x1040));
	CHECK(!dc_rdx_maybe(&r, 0x1080));
	dc_rdx_release(&r);

	watch_1040(&r, cfg, 1, DC_RDX_WATCH_DR);
	CHECK(!dc_rdx_maybe(&r, 0x103f));
	CHECK(dc_rdx_maybe(&r, 0x1040));
	dc_rdx_release(&r);

	watch_1040(&r, cfg, 64, DC_RDX_WATCH_BLOCK);
	CHECK(!dc_rdx_maybe(&r, 0x103f));
	CHECK(dc_rdx_maybe(&r, 0x107f));
	dc_rdx_release(&r);
}

/* A reach of as many granules as the filter has slots (accesses of up to
 * 64 KiB: 1024 granules before 0x1040 and its own) counts the watchpoint
 * in every slot: any probe says "maybe" while it is armed, as any 64 KiB
 * access starting in those granules can reach it, and none once it is
 * drained.  Two such watchpoints count twice and leave no trace. */
DC_TEST(rdx, filter_huge_reach_marks_every_slot)
{
	struct dc_rdx r;
	struct dc_rdx_hit h[DC_RDX_MAX_WP];
	struct dc_rdx_cfg cfg = mkcfg(2, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, false, 3);
	uint64_t s = 77;

	cfg.max_size = 65536;
	CHECK_EQ(dc_rdx_init(&r, dc_env_libc(), &cfg), 0);
	CHECK_EQ(dc_rdx_sample(&r, 0x100040, 1, 1, 0, 0, 0), 0);
	CHECK_EQ(dc_rdx_sample(&r, 0x7f0000000000, 8, 2, 0, 0, 0), 0);
	for (unsigned i = 0; i < DC_RDX_FILTER; i++)
		CHECK_EQ(r.filter[i], 2);
	for (int i = 0; i < 100; i++)
		CHECK(dc_rdx_maybe(&r, rnd(&s)));
	CHECK_EQ(dc_rdx_drain(&r, h), 2);
	for (unsigned i = 0; i < DC_RDX_FILTER; i++)
		CHECK_EQ(r.filter[i], 0);
	dc_rdx_release(&r);
}

/* ---- free watchpoints and the bookkeeping ------------------------------------ */

/* For every K: the first K uses land in free watchpoints (arms == K,
 * replaced == dropped == 0).  Every later use, all armed, is either placed
 * (arms and replaced +1) or dropped (dropped +1), and samples == arms +
 * dropped throughout, narmed staying K.  A trap frees one watchpoint, and
 * the next use certainly arms it (arms +1, replaced and dropped unchanged). */
DC_TEST(rdx, free_watchpoints_arm_first)
{
	for (unsigned K = 1; K <= DC_RDX_MAX_WP; K++) {
		for (int mode = 0; mode < 2; mode++) {
			struct dc_rdx r;
			struct dc_rdx_hit h[DC_RDX_MAX_WP];
			int replace = mode ? DC_RDX_OLDEST : DC_RDX_RESERVOIR;
			uint64_t t = 0;

			rinit(&r, K, DC_RDX_WATCH_DR, 6, replace, true, 1000 + K);
			for (unsigned i = 0; i < K; i++) {
				CHECK_EQ(dc_rdx_sample(&r, 0x10000 + 64 * t, 8, t + 1, t % 5, 0, 0), 0);
				t++;
				CHECK_EQ(r.arms, i + 1);
				CHECK_EQ(r.narmed, i + 1);
			}
			CHECK_EQ(r.dropped, 0);
			CHECK_EQ(r.replaced, 0);
			for (unsigned i = 0; i < 300; i++) {
				uint64_t arms = r.arms, dropped = r.dropped, repl = r.replaced;
				if (i % 50 == 49) {
					/* trap watchpoint 0's use, then a use must arm */
					uint64_t lo = r.wp[0].lo;
					CHECK(r.wp[0].armed);
					CHECK_EQ(dc_rdx_access(&r, lo, 1, h), 1);
					CHECK_EQ(r.narmed, K - 1);
					CHECK_EQ(dc_rdx_sample(&r, 0x10000 + 64 * t, 8, t + 1, t % 5, 0, 0), 0);
					t++;
					CHECK_EQ(r.arms, arms + 1);
					CHECK_EQ(r.replaced, repl);
					CHECK_EQ(r.dropped, dropped);
				} else {
					CHECK_EQ(dc_rdx_sample(&r, 0x10000 + 64 * t, 8, t + 1, t % 5, 0, 0), 0);
					t++;
					if (r.arms == arms + 1) {
						CHECK_EQ(r.replaced, repl + 1);
						CHECK_EQ(r.dropped, dropped);
					} else {
						CHECK_EQ(r.arms, arms);
						CHECK_EQ(r.replaced, repl);
						CHECK_EQ(r.dropped, dropped + 1);
						CHECK_EQ(replace, DC_RDX_RESERVOIR); /* oldest never drops */
					}
				}
				CHECK_EQ(r.narmed, K);
				CHECK_EQ(r.samples, t);
				CHECK_EQ(r.samples, r.arms + r.dropped);
			}
			CHECK_EQ(dc_rdx_drain(&r, h), K);
			CHECK_EQ(r.narmed, 0);
			dc_rdx_release(&r);
		}
	}
}

/* ---- reservoir, statistically ------------------------------------------------- */

/* Offers S uses (access numbers 1..S, distinct addresses, nothing traps),
 * drains, and counts which uses survived: cnt[t-1]++.  R runs in all: the
 * watcher is re-initialised with a new seed every R/SEEDS runs and drained
 * between runs (a drain empties every watchpoint, so the next run starts
 * from scratch). */
static void survivors(unsigned K, unsigned S, unsigned R, int replace, uint64_t seed0,
		      unsigned *cnt)
{
	enum { SEEDS = 8 };
	struct dc_rdx r;
	struct dc_rdx_hit h[DC_RDX_MAX_WP];

	for (unsigned t = 0; t < S; t++)
		cnt[t] = 0;
	for (unsigned run = 0; run < R; run++) {
		unsigned n;
		if (run % (R / SEEDS) == 0) {
			if (run)
				dc_rdx_release(&r);
			rinit(&r, K, DC_RDX_WATCH_DR, 6, replace, false,
			      seed0 * 1000003 + run);
		}
		for (uint64_t t = 1; t <= S; t++)
			CHECK_EQ(dc_rdx_sample(&r, 0x100000 + 64 * t, 4, t, 7, 0, 0), 0);
		CHECK_EQ(r.narmed, K < S ? K : S);
		n = dc_rdx_drain(&r, h);
		CHECK_EQ(n, K < S ? K : S);
		for (unsigned i = 0; i < n; i++) {
			CHECK(h[i].t_use >= 1 && h[i].t_use <= S);
			CHECK_EQ(h[i].weight, 1);
			cnt[h[i].t_use - 1]++;
		}
	}
	dc_rdx_release(&r);
}

/* |count - R p| <= 5 sqrt(R p (1 - p)): the binomial bound. */
static void check_binomial(unsigned count, unsigned R, double p, unsigned idx)
{
	double mean = R * p, sd = dc_unit_sqrt(R * p * (1 - p));

	if (absd((double)count - mean) > 5 * sd)
		dc_unit_fail(__FILE__, __LINE__, "use %u kept %u times, expected %.1f +- 5 * %.1f",
			     idx + 1, count, mean, sd);
}

/* K = 1 is classical reservoir sampling: use t (1-based) is placed with
 * probability 1/t and then survives each later use u with probability
 * 1 - 1/u, so it is kept with probability (1/t) prod_{u=t+1..S} (u-1)/u
 * = (1/t)(t/S) = 1/S, for every t (t = 1 included: placed with
 * probability 1).  S = 20, R = 20000: mean 1000, sd sqrt(20000 * 0.05 *
 * 0.95) = 30.8, so each count must lie within 1000 +- 154.  Each run keeps
 * exactly one use, so the counts sum to R. */
DC_TEST(rdx, reservoir_one_uniform)
{
	enum { S = 20, R = 20000 };
	unsigned cnt[S], sum = 0;

	survivors(1, S, R, DC_RDX_RESERVOIR, 1, cnt);
	for (unsigned t = 0; t < S; t++) {
		check_binomial(cnt[t], R, 1.0 / S, t);
		sum += cnt[t];
	}
	CHECK_EQ(sum, R);
}

/* The probabilities the Notes' algorithm implies for K watchpoints and S
 * uses with nothing trapping.  Watchpoint j (0-based, in the order they
 * fill) takes use j+1 and then has k_j = t - j after use t's bump; for
 * t > K, use t visits the watchpoints in a uniformly random order and
 * takes the first that accepts it (probability 1/k each), so with
 * q_j(t) = mean over the K! orders of (1/k_j) prod_{i before j} (1 - 1/k_i)
 * use t replaces watchpoint j with probability q_j(t), independently of
 * what the watchpoints hold.  Use t is then kept with probability
 *   sum_j P(t placed in j) prod_{u = max(t, K)+1..S} (1 - q_j(u)),
 * P(t placed in j) = [j == t-1] for t <= K, q_j(t) for t > K. */
static void model_keep(unsigned K, unsigned S, double *keep)
{
	double q[64][DC_RDX_MAX_WP];
	unsigned nperm = 0;

	CHECK(K <= 4 && S < 64);
	for (unsigned t = K + 1; t <= S; t++) {
		for (unsigned j = 0; j < K; j++)
			q[t][j] = 0;
		/* every K-tuple of indices, the permutations only */
		nperm = 0;
		for (unsigned code = 0; code < 256; code++) {
			unsigned ord[4], seen = 0, c = code;
			double rem = 1;
			bool perm = true;
			if (code >= (K == 1 ? 1u : K == 2 ? 4u : K == 3 ? 27u : 256u))
				break;
			for (unsigned i = 0; i < K; i++) {
				ord[i] = c % K;
				c /= K;
				if (seen & (1u << ord[i]))
					perm = false;
				seen |= 1u << ord[i];
			}
			if (!perm)
				continue;
			nperm++;
			for (unsigned i = 0; i < K; i++) {
				double k = (double)(t - ord[i]);
				q[t][ord[i]] += rem / k;
				rem *= 1 - 1 / k;
			}
		}
		for (unsigned j = 0; j < K; j++)
			q[t][j] /= nperm;
	}
	for (unsigned t = 1; t <= S; t++) {
		keep[t - 1] = 0;
		for (unsigned j = 0; j < K; j++) {
			double p = t <= K ? (j == t - 1) : q[t][j];
			for (unsigned u = (t > K ? t : K) + 1; u <= S; u++)
				p *= 1 - q[u][j];
			keep[t - 1] += p;
		}
	}
}

/* The model for K = 1 is the classical 1/S (a check of the model). */
DC_TEST(rdx, reservoir_model_sanity)
{
	double keep[40], sum;

	model_keep(1, 20, keep);
	for (unsigned t = 0; t < 20; t++)
		CHECK(absd(keep[t] - 1.0 / 20) < 1e-12);
	/* with K = 4, exactly 4 uses survive: the probabilities sum to 4 */
	model_keep(4, 32, keep);
	sum = 0;
	for (unsigned t = 0; t < 32; t++)
		sum += keep[t];
	CHECK(absd(sum - 4) < 1e-9);
}

/* K = 4, S = 32, R = 20000.  For t > K the chance use t is placed at all is
 * 1 - prod_j (1 - 1/(t-j)) = 1 - prod_j (t-j-1)/(t-j) = 1 - (t-K)/t = K/t
 * (the product telescopes), as in reservoir sampling with K slots; but
 * which watchpoint it takes depends on the k's (younger watchpoints, with
 * smaller k, are replaced more often), so survival is only nearly uniform.
 * The model above gives, relative to K/S = 1/8: use 1 about 1.49x, use 2
 * about 1.23x (the favoured early ones: the oldest watchpoints, with the
 * largest k, are the hardest to replace), use 3 about 0.93x, use 4 about
 * 0.57x (armed with k = 1 and at k = 2 on use 5, it is the likeliest
 * victim), then uses 5.. rise from 0.93x back to 1: from use 2K+1 = 9 on
 * within 1.3% of K/S.  The 5-sigma band for p = 1/8 is 2500 +- 5 * 46.8
 * = +-9.4%, so uses 9..32 are checked against the uniform K/S, and every
 * use, the early ones included, against the model's own probability. */
DC_TEST(rdx, reservoir_four_nearly_uniform)
{
	enum { K = 4, S = 32, R = 20000 };
	unsigned cnt[S], sum = 0;
	double keep[S];

	model_keep(K, S, keep);
	for (unsigned t = 2 * K; t < S; t++)
		CHECK(absd(keep[t] * S / K - 1) < 0.013);
	CHECK(keep[0] * S / K > 1.3);   /* the first use is clearly favoured */
	CHECK(keep[K - 1] * S / K < 0.7);
	survivors(K, S, R, DC_RDX_RESERVOIR, 2, cnt);
	for (unsigned t = 0; t < S; t++) {
		sum += cnt[t];
		check_binomial(cnt[t], R, keep[t], t);
		if (t >= 2 * K)
			check_binomial(cnt[t], R, (double)K / S, t);
	}
	CHECK_EQ(sum, K * R);
}

/* Oldest: each use once all are armed replaces the watchpoint with the
 * smallest t_use, so after uses 1..S (S >= K) the survivors are exactly
 * S-K+1..S, deterministically: arms S, replaced S-K, dropped 0. */
DC_TEST(rdx, oldest_keeps_last_k)
{
	enum { S = 50 };

	for (unsigned K = 1; K <= DC_RDX_MAX_WP; K++) {
		struct dc_rdx r;
		struct dc_rdx_hit h[DC_RDX_MAX_WP];
		unsigned n, mask = 0;

		rinit(&r, K, DC_RDX_WATCH_DR, 6, DC_RDX_OLDEST, false, K);
		for (uint64_t t = 1; t <= S; t++)
			CHECK_EQ(dc_rdx_sample(&r, 0x100000 + 64 * t, 4, t, t % 3, 0, 0), 0);
		CHECK_EQ(r.arms, S);
		CHECK_EQ(r.replaced, S - K);
		CHECK_EQ(r.dropped, 0);
		n = dc_rdx_drain(&r, h);
		CHECK_EQ(n, K);
		for (unsigned i = 0; i < n; i++) {
			CHECK(h[i].t_use > S - K && h[i].t_use <= S);
			mask |= 1u << (h[i].t_use - (S - K + 1));
		}
		CHECK_EQ(mask, (1u << K) - 1);
		dc_rdx_release(&r);
	}
}

/* ---- seeds ------------------------------------------------------------------ */

/* K = 4, 300 uses: records after every use which t_use each watchpoint
 * holds (0 when free), then the drained set. */
static void trajectory(uint64_t seed, uint64_t *out)
{
	enum { K = 4, S = 300 };
	struct dc_rdx r;
	struct dc_rdx_hit h[DC_RDX_MAX_WP];
	unsigned n;

	rinit(&r, K, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, false, seed);
	for (uint64_t t = 1; t <= S; t++) {
		CHECK_EQ(dc_rdx_sample(&r, 0x200000 + 16 * t, 8, t, 1, 0, 0), 0);
		for (unsigned j = 0; j < K; j++)
			*out++ = r.wp[j].armed ? r.wp[j].t_use : 0;
	}
	n = dc_rdx_drain(&r, h);
	CHECK_EQ(n, K);
	for (unsigned i = 0; i < n; i++)
		*out++ = h[i].t_use;
	dc_rdx_release(&r);
}

/* The same seed gives the same decisions; two different seeds make the
 * same decisions at all of 296 uses with a full reservoir only with
 * probability about prod_t (1 - 8/t) ~ (5/300)^8, i.e. never. */
DC_TEST(rdx, seed_determines_choices)
{
	enum { N = 300 * 4 + 4 };
	static uint64_t a[N], b[N], c[N];
	bool same_ab = true, same_ac = true;

	trajectory(42, a);
	trajectory(42, b);
	trajectory(43, c);
	for (unsigned i = 0; i < N; i++) {
		same_ab &= a[i] == b[i];
		same_ac &= a[i] == c[i];
	}
	CHECK(same_ab);
	CHECK(!same_ac);
}

/* ---- proportional attribution ----------------------------------------------- */

#define CTX_A 0xa0a0a0a0a0a0ULL
#define CTX_B 0xb0b0b0b0b0b0ULL

/* One step of a scripted scenario: a use (ctx, address) that must arm or
 * must be dropped, or an access that must trap. */
struct step {
	char op;                /* 's' sample, 'a' access */
	uint64_t ctx, addr;
	char want;              /* 's': 'A' armed, 'D' dropped; 'a': trap count */
	uint64_t weight;        /* 'a': expected weight of the trap */
};

/* Runs a script with this seed; returns false as soon as the generator's
 * choice differs from the script's (then the caller tries another seed). */
static bool run_script(const struct step *st, unsigned n, unsigned K, bool prop, uint64_t seed,
		       uint64_t drain_weight, uint64_t *wsum)
{
	struct dc_rdx r;
	struct dc_rdx_hit h[DC_RDX_MAX_WP];
	uint64_t t = 0;

	*wsum = 0;
	rinit(&r, K, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, prop, seed);
	for (unsigned i = 0; i < n; i++) {
		if (st[i].op == 's') {
			uint64_t arms = r.arms;
			CHECK_EQ(dc_rdx_sample(&r, st[i].addr, 8, ++t, st[i].ctx, 0, i), 0);
			if ((r.arms > arms) != (st[i].want == 'A')) {
				dc_rdx_release(&r);
				return false;
			}
			CHECK_EQ(r.replaced, 0);        /* scripts never replace */
		} else {
			unsigned got = dc_rdx_access(&r, st[i].addr, 8, h);
			CHECK_EQ(got, 1);
			CHECK_EQ(h[0].weight * 100 + i, (prop ? st[i].weight : 1) * 100 + i);
			*wsum += h[0].weight;
		}
	}
	if (drain_weight) {
		CHECK_EQ(dc_rdx_drain(&r, h), 1);
		CHECK_EQ(h[0].weight, prop ? drain_weight : 1);
		*wsum += h[0].weight;
	}
	CHECK_EQ(r.narmed, 0);
	dc_rdx_release(&r);
	return true;
}

/* Finds a seed under which the script's arm/drop choices happen (the
 * checks inside run_script then apply to it), checks the sum of the
 * weights, and runs it again with proportional attribution off: the same
 * seed makes the same choices (attribution draws nothing) and every weight
 * is 1.  A script of d drops in turn has a chance of about 1/2^d per seed
 * or better, so 20000 seeds always find one. */
static void script(const struct step *st, unsigned n, unsigned K, uint64_t drain_weight,
		   uint64_t expect_sum)
{
	uint64_t seed, wsum, nweights = drain_weight ? 1 : 0;

	for (unsigned i = 0; i < n; i++)
		nweights += st[i].op == 'a';
	for (seed = 1; seed < 20000; seed++)
		if (run_script(st, n, K, true, seed, drain_weight, &wsum))
			break;
	CHECK(seed < 20000);
	CHECK_EQ(wsum, expect_sum);
	CHECK(run_script(st, n, K, false, seed, drain_weight, &wsum));
	CHECK_EQ(wsum, nweights);
}

/* Under attribution a trap (or the drain) weighs 1 + the samples its
 * context lost (dropped, or armed and then replaced) that no earlier trap
 * of the context claimed, and claims them (rdx.h Notes).  In the scripts
 * below nothing is ever replaced, so the lost samples are the dropped ones.
 *
 * K = 1.  lostA / lostB count each context's lost samples:
 *   s1 A@X armed (free)
 *   s2 A@Y dropped               lostA 1  (k = 2: dropped w.p. 1/2)
 *   s3 A@Z dropped               lostA 2  (k = 3: 2/3)
 *   X traps: 1 + s2, s3 -> 3
 *   s4 B@V armed (free)
 *   s5 B@U dropped               lostB 1  (1/2)
 *   V traps: 1 + s5 -> 2
 *   s6 A@W armed (free)
 *   s7..s9 A dropped             lostA 5  (1/2, 2/3, 3/4)
 *   drain: W still armed: 1 + s7, s8, s9 -> 4
 * Every sample was either trapped/drained or lost while its own context's
 * use was armed, so the weights 3 + 2 + 4 account for exactly the 9
 * samples. */
DC_TEST(rdx, proportional_one_watchpoint)
{
	static const struct step st[] = {
		{ 's', CTX_A, 0x1000, 'A', 0 },
		{ 's', CTX_A, 0x2000, 'D', 0 },
		{ 's', CTX_A, 0x3000, 'D', 0 },
		{ 'a', 0, 0x1000, 1, 3 },
		{ 's', CTX_B, 0x4000, 'A', 0 },
		{ 's', CTX_B, 0x5000, 'D', 0 },
		{ 'a', 0, 0x4000, 1, 2 },
		{ 's', CTX_A, 0x6000, 'A', 0 },
		{ 's', CTX_A, 0x7000, 'D', 0 },
		{ 's', CTX_A, 0x8000, 'D', 0 },
		{ 's', CTX_A, 0x9000, 'D', 0 },
	};

	script(st, sizeof st / sizeof st[0], 1, 4, 9);
}

/* K = 2, both free, nothing lost (deterministic): every weight is 1.
 *   s1 A@X armed, s2 A@Y armed; X traps -> 1; Y traps -> 1 */
DC_TEST(rdx, proportional_nothing_lost)
{
	static const struct step st[] = {
		{ 's', CTX_A, 0x1000, 'A', 0 },
		{ 's', CTX_A, 0x2000, 'A', 0 },
		{ 'a', 0, 0x1000, 1, 1 },
		{ 'a', 0, 0x2000, 1, 1 },
	};

	script(st, sizeof st / sizeof st[0], 2, 0, 2);
}

/* K = 2, two uses of A armed, one A sample lost, traps in arming order:
 *   s1 A@X armed (free)
 *   s2 A@Y armed (free)
 *   s3 A@Z dropped         lostA 1 (k's 3 and 2: dropped w.p. 2/3 * 1/2 = 1/3)
 *   X traps: 1 + s3 -> 2 (s3 now claimed)
 *   Y traps: X's trap claimed s3 -> 1
 * Total 3 = the 3 samples, s3 counted once. */
DC_TEST(rdx, proportional_claimed_once)
{
	static const struct step st[] = {
		{ 's', CTX_A, 0x1000, 'A', 0 },
		{ 's', CTX_A, 0x2000, 'A', 0 },
		{ 's', CTX_A, 0x3000, 'D', 0 },
		{ 'a', 0, 0x1000, 1, 2 },
		{ 'a', 0, 0x2000, 1, 1 },
	};

	script(st, sizeof st / sizeof st[0], 2, 0, 3);
}

/* K = 2, a later use of a context trapping before an earlier one:
 *   s1 A@X armed (free)
 *   s2 B@Y armed (free)
 *   s3 A@Z dropped        lostA 1 (k's 3 and 2: dropped w.p. 1/3)
 *   Y traps: 1 (nothing of B lost)
 *   s4 A@W armed (free)
 *   W traps: the next trap of A claims s3, lost before W was armed -> 2
 *   X traps: nothing of A unclaimed -> 1
 * Total 1 + 2 + 1 = 4 = the 4 samples. */
DC_TEST(rdx, proportional_out_of_order_trap)
{
	static const struct step st[] = {
		{ 's', CTX_A, 0x1000, 'A', 0 },
		{ 's', CTX_B, 0x2000, 'A', 0 },
		{ 's', CTX_A, 0x3000, 'D', 0 },
		{ 'a', 0, 0x2000, 1, 1 },
		{ 's', CTX_A, 0x4000, 'A', 0 },
		{ 'a', 0, 0x4000, 1, 2 },
		{ 'a', 0, 0x1000, 1, 1 },
	};

	script(st, sizeof st / sizeof st[0], 2, 0, 4);
}

/* The same, but X is still armed at exit: W claims s3 (2), the drain
 * weighs 1. */
DC_TEST(rdx, proportional_out_of_order_drain)
{
	static const struct step st[] = {
		{ 's', CTX_A, 0x1000, 'A', 0 },
		{ 's', CTX_B, 0x2000, 'A', 0 },
		{ 's', CTX_A, 0x3000, 'D', 0 },
		{ 'a', 0, 0x2000, 1, 1 },
		{ 's', CTX_A, 0x4000, 'A', 0 },
		{ 'a', 0, 0x4000, 1, 2 },
	};

	script(st, sizeof st / sizeof st[0], 2, 1, 4);
}

/* K = 1 against a model of the Notes' rule over random runs: three
 * contexts, uses and accesses on 8 lines.  The model keeps a log of lost
 * samples (context, claimed?): a sample that arms nothing is lost when
 * offered; a use whose watchpoint a new sample takes is lost then, before
 * the new use is armed (the new use was not armed yet when it was lost).
 * A use trapping (or drained) weighs 1 + the unclaimed entries of its
 * context, and claims them.  Which
 * samples arm, and what they replace, is read from the watcher (the
 * reservoir's choice); the weights are the model's. */
DC_TEST(rdx, proportional_model_one_watchpoint)
{
	enum { N = 4000, LINES = 8 };
	static uint8_t lost_ctx[N + 1];
	static bool claimed[N + 1];

	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct dc_rdx r;
		struct dc_rdx_hit h[DC_RDX_MAX_WP];
		uint64_t s = seed * 7919, t = 0, traps = 0, weights = 0;
		unsigned nlost = 0, n;
		uint8_t held_ctx = 0;   /* context of the armed use */

		rinit(&r, 1, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, true, seed);
		for (unsigned step = 0; step < N; step++) {
			uint64_t x = rnd(&s), a = 0x10000 + 64 * ((x >> 8) % LINES);
			n = 0;
			if (x % 10 < 6) {
				uint8_t c = (uint8_t)((x >> 20) % 3);
				uint64_t arms = r.arms, repl = r.replaced;
				CHECK_EQ(dc_rdx_sample(&r, a, 8, ++t, 100 + c, 0, 0), 0);
				if (r.arms == arms) {
					lost_ctx[nlost] = c;
					claimed[nlost++] = false;
				} else {
					if (r.replaced != repl) {
						lost_ctx[nlost] = held_ctx;
						claimed[nlost++] = false;
					}
					held_ctx = c;
				}
			} else {
				n = dc_rdx_access(&r, a, 8, h);
			}
			if (step == N - 1)
				n += dc_rdx_drain(&r, h + n);
			CHECK(n <= 1);
			if (n) {
				uint64_t w = 1;
				for (unsigned j = 0; j < nlost; j++)
					if (lost_ctx[j] == held_ctx && !claimed[j]) {
						claimed[j] = true;
						w++;
					}
				CHECK_EQ(h[0].weight, w);
				traps++;
				weights += w;
			}
		}
		CHECK(traps > 100);
		CHECK(weights > traps);         /* some weights above 1 */
		CHECK_EQ(r.narmed, 0);
		dc_rdx_release(&r);
	}
}

/* ---- allocation failure ------------------------------------------------------ */

/* Init, then 5000 uses in 5000 distinct contexts (the context table grows
 * past 2048 records and into a second slab of 4096), traps and a drain.  A
 * use whose context record cannot be made returns DC_ENOMEM and is counted
 * as offered and dropped and changes nothing else; a use in a context
 * already known still works afterwards (its record exists).  The scenario
 * returns DC_ENOMEM when anything failed. */
static int rdx_scenario(const struct dc_env *env, void *ud)
{
	enum { N = 5000 };
	struct dc_rdx_cfg cfg = mkcfg(4, DC_RDX_WATCH_DR, 6, DC_RDX_RESERVOIR, true, 99);
	struct dc_rdx r;
	struct dc_rdx_hit h[DC_RDX_MAX_WP];
	bool failed = false;
	int rc;

	(void)ud;
	rc = dc_rdx_init(&r, env, &cfg);
	if (rc)
		return rc;
	for (uint64_t i = 0; i < N; i++) {
		uint64_t samples = r.samples, arms = r.arms, dropped = r.dropped;
		unsigned narmed = r.narmed;
		rc = dc_rdx_sample(&r, 0x100000 + 64 * (i % 256), 8, i + 1, i * 0x10001, 0, 0);
		CHECK_EQ(r.samples, samples + 1);
		CHECK_EQ(r.samples, r.arms + r.dropped);
		if (rc) {
			CHECK_EQ(rc, DC_ENOMEM);
			CHECK_EQ(r.dropped, dropped + 1);
			CHECK_EQ(r.arms, arms);
			CHECK_EQ(r.narmed, narmed);
			failed = true;
		}
		if (i % 16 == 15)
			(void)dc_rdx_access(&r, 0x100000 + 64 * (i % 256), 8, h);
	}
	if (failed && r.ctxs.n > 0) {
		/* context 0 exists (the first use succeeded): it still samples */
		uint64_t arms = r.arms;
		unsigned narmed = r.narmed;
		CHECK_EQ(dc_rdx_drain(&r, h), narmed);
		CHECK_EQ(r.narmed, 0);
		CHECK_EQ(dc_rdx_sample(&r, 0x900000, 8, N + 1, 0, 0, 0), 0);
		CHECK_EQ(r.arms, arms + 1);       /* all free after the drain */
	}
	if (!failed)
		CHECK_EQ(r.ctxs.n, N);
	CHECK(dc_rdx_drain(&r, h) <= 4);
	dc_rdx_release(&r);
	return failed ? DC_ENOMEM : 0;
}

DC_TEST(rdx, alloc_walk)
{
	DC_ALLOC_WALK(rdx_scenario, NULL);
}
