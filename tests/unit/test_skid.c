/* test_skid.c — the emulated skid (skid.h Notes): MEAN:SD parsing, the
 * logarithm and root the Gaussian needs, k = round(MEAN + SD z) truncated
 * at 0 (SD 0 exact; SD > 0 mean and spread within derived bounds; the seed
 * fixes the sequence), pending samples landing exactly k instructions on,
 * per thread, and a full queue dropping and counting.
 *
 * Statistical bounds are 5 standard errors of the quantity checked; the
 * generator is deterministic, so each check always passes or always fails. */
#include "core/skid.h"
#include "host/port_libc.h"
#include "unit.h"


DC_TEST(skid, parse)
{
	uint32_t m, s;

	CHECK_EQ(dc_skid_parse("0:0", &m, &s), 0);
	CHECK_EQ(m, 0);
	CHECK_EQ(s, 0);
	CHECK_EQ(dc_skid_parse("12:3.5", &m, &s), 0);
	CHECK_EQ(m, 12000);
	CHECK_EQ(s, 3500);
	CHECK_EQ(dc_skid_parse("0.125:1000000", &m, &s), 0);
	CHECK_EQ(m, 125);
	CHECK_EQ(s, 1000000000u);
	static const char *const bad[] = { "", ":", "1", "1:", ":1", "-1:0", "1:-1", "1.:0",
					   ".5:0", "1:0:0", "1.2345:0", "1000001:0",
					   "0:1000000.001", "1 :0", "1:0 ", "a:b", "1e3:0" };
	for (unsigned i = 0; i < sizeof bad / sizeof *bad; i++)
		if (dc_skid_parse(bad[i], &m, &s) != DC_EINVAL)
			dc_unit_fail(__FILE__, __LINE__, "'%s' accepted", bad[i]);
}

DC_TEST(skid, fmt_milli)
{
	char b[32];

	dc_skid_fmt_milli(b, sizeof b, 0);
	CHECK_STREQ(b, "0");
	dc_skid_fmt_milli(b, sizeof b, 12000);
	CHECK_STREQ(b, "12");
	dc_skid_fmt_milli(b, sizeof b, 3500);
	CHECK_STREQ(b, "3.5");
	dc_skid_fmt_milli(b, sizeof b, 125);
	CHECK_STREQ(b, "0.125");
	dc_skid_fmt_milli(b, sizeof b, 1000000050);
	CHECK_STREQ(b, "1000000.05");
}

static void near(double got, double want, double tol, int line)
{
	if (got - want > tol || want - got > tol)
		dc_unit_fail(__FILE__, line, "got %.17g, want %.17g", got, want);
}

/* Reference values (ln to 20 digits from the series' definition:
 * ln 2 = 0.69314718055994530942, ln 10 = 2.3025850929940456840). */
DC_TEST(skid, ln_and_sqrt)
{
	near(dc_skid_ln(1), 0, 1e-15, __LINE__);
	near(dc_skid_ln(2), 0.69314718055994530942, 1e-15, __LINE__);
	near(dc_skid_ln(0.5), -0.69314718055994530942, 1e-15, __LINE__);
	near(dc_skid_ln(10), 2.3025850929940456840, 1e-14, __LINE__);
	near(dc_skid_ln(1e-300), -300 * 2.3025850929940456840, 1e-11, __LINE__);
	/* ln 1.4142 = ln sqrt 2 + ln(1.4142 / sqrt 2) = 0.34657359 - 9.5908e-6 */
	near(dc_skid_ln(1.4142), 0.34656400, 1e-8, __LINE__);
	near(dc_skid_ln(0.999999), -1.0000005e-6, 1e-12, __LINE__);
	near(dc_skid_sqrt(2), 1.4142135623730950488, 1e-15, __LINE__);
	near(dc_skid_sqrt(0), 0, 0, __LINE__);
	near(dc_skid_sqrt(1e-10), 1e-5, 1e-20, __LINE__);
}

/* SD 0: every draw is round(MEAN); truncation at 0 never applies. */
DC_TEST(skid, sd_zero_is_exact)
{
	struct dc_skid s;

	CHECK_EQ(dc_skid_init(&s, dc_env_libc(), 7000, 0, 1, 4), 0);
	for (int i = 0; i < 1000; i++)
		CHECK_EQ(dc_skid_draw(&s), 7);
	s.mean_milli = 2500;               /* round half up */
	CHECK_EQ(dc_skid_draw(&s), 3);
	s.mean_milli = 2499;
	CHECK_EQ(dc_skid_draw(&s), 2);
	s.mean_milli = 0;
	CHECK_EQ(dc_skid_draw(&s), 0);
	dc_skid_release(&s);
}

/* SD > 0 with MEAN 20, SD 4 (truncation at 0 is 5 SD away: P = 3e-7):
 * k = round(X), X ~ N(20, 16); rounding adds a uniform-like error of
 * variance 1/12 and no bias, so E k = 20, Var k = 16 + 1/12.  Over D =
 * 200,000 draws the mean's standard error is sqrt(16.08 / D) = 0.00897:
 * bound 0.045.  The variance's standard error is Var sqrt(2 / D) = 0.0508
 * (normal fourth moment): bound 0.25.  The share within one SD of the
 * mean, P(|k - 20| <= 4) = P(|X - 20| < 4.5) = 2 Phi(1.125) - 1 = 0.7394,
 * has standard error sqrt(p (1 - p) / D) = 0.00098: bound 0.0049.  */
DC_TEST(skid, gaussian_mean_spread_and_shape)
{
	enum { D = 200000 };
	struct dc_skid s;
	double sum = 0, sq = 0;
	long within = 0;

	CHECK_EQ(dc_skid_init(&s, dc_env_libc(), 20000, 4000, 12345, 4), 0);
	for (int i = 0; i < D; i++) {
		double k = (double)dc_skid_draw(&s);
		sum += k;
		sq += k * k;
		within += k >= 16 && k <= 24;
	}
	double mean = sum / D, var = sq / D - mean * mean, share = (double)within / D;
	near(mean, 20, 0.045, __LINE__);
	near(var, 16 + 1.0 / 12, 0.25, __LINE__);
	near(share, 0.7394, 0.0049, __LINE__);
	dc_skid_release(&s);
}

/* MEAN 0, SD 2: half the draws are truncated to 0.  P(k = 0) = P(X < 0.5)
 * = Phi(0.25) = 0.5987; D = 100,000: standard error 0.00155, bound 0.0078. */
DC_TEST(skid, truncated_at_zero)
{
	enum { D = 100000 };
	struct dc_skid s;
	long zeros = 0;

	CHECK_EQ(dc_skid_init(&s, dc_env_libc(), 0, 2000, 9, 4), 0);
	for (int i = 0; i < D; i++)
		zeros += dc_skid_draw(&s) == 0;
	near((double)zeros / D, 0.5987, 0.0078, __LINE__);
	dc_skid_release(&s);
}

DC_TEST(skid, seed_fixes_sequence)
{
	struct dc_skid a, b, c;
	int differ = 0;

	CHECK_EQ(dc_skid_init(&a, dc_env_libc(), 10000, 3000, 5, 4), 0);
	CHECK_EQ(dc_skid_init(&b, dc_env_libc(), 10000, 3000, 5, 4), 0);
	CHECK_EQ(dc_skid_init(&c, dc_env_libc(), 10000, 3000, 6, 4), 0);
	for (int i = 0; i < 1000; i++) {
		uint64_t x = dc_skid_draw(&a);
		CHECK_EQ(x, dc_skid_draw(&b));
		differ += x != dc_skid_draw(&c);
	}
	/* two independent draws of SD 3 agree with probability about
	 * 1 / (2 sqrt(pi) 3) = 0.094: 906 of 1000 differ on average, sd 9 */
	CHECK(differ > 850);
	dc_skid_release(&a);
	dc_skid_release(&b);
	dc_skid_release(&c);
}

struct landed {
	uint64_t index[16];
	uint32_t tid[16];
	int n;
};

static void land(void *ud, uint64_t index, uint32_t tid)
{
	struct landed *l = ud;

	CHECK(l->n < 16);
	l->index[l->n] = index;
	l->tid[l->n++] = tid;
}

/* Instructions are numbered by the caller; a stretch [start, end) reports
 * the samples landing in it by their index in it. */
DC_TEST(skid, lands_in_the_right_stretch)
{
	struct dc_skid s;
	struct landed l = { { 0 }, { 0 }, 0 };

	CHECK_EQ(dc_skid_init(&s, dc_env_libc(), 0, 0, 1, 2), 0);
	CHECK_EQ(s.next, UINT64_MAX);
	CHECK(dc_skid_push(&s, 105));       /* e.g. instruction 100 + k 5 */
	CHECK(dc_skid_push(&s, 103));
	CHECK(!dc_skid_push(&s, 200));      /* cap 2: dropped, counted */
	CHECK_EQ(s.dropped, 1);
	CHECK_EQ(s.next, 103);
	dc_skid_due(&s, 100, 104, land, &l);   /* stretch 100..103 */
	CHECK_EQ(l.n, 1);
	CHECK_EQ(l.index[0], 3);
	CHECK_EQ(s.next, 105);
	dc_skid_due(&s, 104, 110, land, &l);
	CHECK_EQ(l.n, 2);
	CHECK_EQ(l.index[1], 1);
	CHECK_EQ(s.n, 0);
	CHECK_EQ(s.next, UINT64_MAX);
	dc_skid_clear(&s);
	CHECK_EQ(s.dropped, 0);
	dc_skid_release(&s);
}

/* Thread 1 samples at 1000 with k 10 (lands on 1010) and runs 4 more
 * instructions (to 1004); thread 2 runs 1004..2000; thread 1 resumes at
 * 2000, so its sample lands 6 instructions later, on 2006. */
DC_TEST(skid, parks_with_its_thread)
{
	struct dc_skid s;
	struct landed l = { { 0 }, { 0 }, 0 };

	CHECK_EQ(dc_skid_init(&s, dc_env_libc(), 0, 0, 1, 4), 0);
	dc_skid_switch(&s, 1, 0);
	CHECK(dc_skid_push(&s, 1010));
	dc_skid_switch(&s, 2, 1004);
	CHECK_EQ(s.next, UINT64_MAX);
	dc_skid_due(&s, 1004, 2000, land, &l);
	CHECK_EQ(l.n, 0);
	dc_skid_switch(&s, 1, 2000);
	CHECK_EQ(s.next, 2006);
	dc_skid_due(&s, 2000, 2010, land, &l);
	CHECK_EQ(l.n, 1);
	CHECK_EQ(l.index[0], 6);
	CHECK_EQ(l.tid[0], 1);
	dc_skid_release(&s);
}

static int skid_scenario(const struct dc_env *e, void *ud)
{
	struct dc_skid s;
	int rc = dc_skid_init(&s, e, 1000, 0, 1, 8);

	(void)ud;
	if (rc)
		return rc;
	dc_skid_push(&s, 1);
	dc_skid_release(&s);
	return 0;
}

DC_TEST(skid, alloc_walk)
{
	DC_ALLOC_WALK(skid_scenario, NULL);
}
