/* test_sampler.c — the emulated event counter (sampler.h Notes): period 1
 * samples every event, drawn periods stay in [N - N/4, N + N/4] with mean
 * N, the seed fixes the sample positions, the sample count over M events is
 * M/N within a derived bound, and a loop whose length divides N is not
 * locked onto.
 *
 * Statistical checks use bounds of 5 standard deviations derived from the
 * distribution the Notes promise.  The generator is deterministic, so each
 * check either always passes or always fails for its seed; the 5-sigma
 * width is what makes a correct sampler pass for (practically) any seed,
 * and a sampler with the wrong range, mean or correlation fail. */
#include "core/sampler.h"
#include "unit.h"

/* h = N/4: the half-width of the period range. */
static uint64_t half(uint64_t n)
{
	return n / 4;
}

/* Variance of the uniform distribution on the 2h+1 integers N-h..N+h:
 * ((2h+1)^2 - 1) / 12. */
static double uvar(uint64_t n)
{
	double span = 2.0 * (double)half(n) + 1;

	return (span * span - 1) / 12;
}

/* ---- period 1 and period 0 ------------------------------------------------ */

/* N = 1: h = 1/4 = 0, so every period is exactly 1 and every event is a
 * sample.  N = 0 is taken as 1 (sampler_init). */
DC_TEST(sampler, period_one_samples_every_event)
{
	struct dc_sampler s;

	dc_sampler_init(&s, 1, 12345);
	for (int i = 0; i < 10000; i++)
		CHECK(dc_sampler_tick(&s));
	CHECK_EQ(s.samples, 10000);

	dc_sampler_init(&s, 0, 99);
	CHECK_EQ(s.period, 1);
	for (int i = 0; i < 1000; i++)
		CHECK(dc_sampler_tick(&s));
	CHECK_EQ(s.samples, 1000);
}

/* ---- the drawn periods ------------------------------------------------------ */

/* D draws for period N: every draw in [N - h, N + h] (h = N/4), and the
 * mean within 5 standard errors of N, where the standard error of a mean of
 * D independent uniform draws is sqrt(var / D), var = ((2h+1)^2 - 1)/12.
 *   N = 1000: h = 250, var = (501^2-1)/12 = 20916.7, SE = 0.457, bound 2.29
 *   N = 4096: h = 1024, var = (2049^2-1)/12 = 349866.7, SE = 1.87
 *   N = 8: h = 2, range 6..10;  N = 5: h = 1, range 4..6
 *   N = 1, 2, 3: h = 0, var = 0: every draw is N and the sum exact.
 * Also: the extremes N-h and N+h are both reached (a range one short at
 * either end would be found by the small N). */
static void check_periods(uint64_t n, uint64_t seed)
{
	enum { D = 100000 };
	struct dc_sampler s;
	uint64_t h = half(n), lo = n - h, hi = n + h, mn = UINT64_MAX, mx = 0;
	double sum = 0;

	dc_sampler_init(&s, n, seed);
	for (int i = 0; i < D; i++) {
		uint64_t p = dc_sampler_next(&s);
		if (p < lo || p > hi)
			dc_unit_fail(__FILE__, __LINE__, "N=%llu: draw %d = %llu outside [%llu, %llu]",
				     (unsigned long long)n, i, (unsigned long long)p,
				     (unsigned long long)lo, (unsigned long long)hi);
		sum += (double)p;
		if (p < mn)
			mn = p;
		if (p > mx)
			mx = p;
	}
	double dev = sum / D - (double)n, bound = 5 * dc_unit_sqrt(uvar(n) / D);
	if (dev > bound || dev < -bound)
		dc_unit_fail(__FILE__, __LINE__, "N=%llu: mean off by %g, bound %g",
			     (unsigned long long)n, dev, bound);
	if (h == 0)
		CHECK(sum == (double)n * D);
	CHECK_EQ(mn, lo);
	CHECK_EQ(mx, hi);
}

DC_TEST(sampler, periods_in_range_with_mean_n)
{
	static const uint64_t ns[] = { 1000, 8, 5, 1, 4096, 2, 3, 4, 7, 100 };

	for (unsigned i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		check_periods(ns[i], 1);
		check_periods(ns[i], 0xdeadbeefULL + i);
	}
}

/* Every value of the range occurs, about equally often.  N = 8: h = 2, the
 * five values 6..10 each with p = 1/5; over D = 10^5 independent draws a
 * count is binomial, mean D/5 = 20000, sd sqrt(D p (1-p)) = 126.5, so
 * within 5 sd = 633.  N = 5: h = 1, values 4, 5, 6, p = 1/3, mean 33333,
 * sd 149.1.  A missing value (or a value drawn twice as often) is far
 * outside. */
static void check_all_values(uint64_t n, uint64_t seed)
{
	enum { D = 100000 };
	uint64_t h = half(n), span = 2 * h + 1;
	long cnt[64] = { 0 };
	struct dc_sampler s;

	CHECK(span <= 64);
	dc_sampler_init(&s, n, seed);
	for (int i = 0; i < D; i++)
		cnt[dc_sampler_next(&s) - (n - h)]++;
	double p = 1.0 / (double)span, mean = D * p, bound = 5 * dc_unit_sqrt(D * p * (1 - p));
	for (uint64_t v = 0; v < span; v++) {
		double dev = (double)cnt[v] - mean;
		if (cnt[v] == 0 || dev > bound || dev < -bound)
			dc_unit_fail(__FILE__, __LINE__, "N=%llu: value %llu drawn %ld times, "
				     "expected %g +- %g", (unsigned long long)n,
				     (unsigned long long)(n - h + v), cnt[v], mean, bound);
	}
}

DC_TEST(sampler, every_value_of_small_range_occurs)
{
	check_all_values(8, 3);
	check_all_values(5, 4);
	check_all_values(4, 5);            /* h = 1: 3, 4, 5 */
	check_all_values(100, 6);          /* h = 25: 51 values, p = 1/51 */
}

/* ---- sample positions ---------------------------------------------------- */

/* Positions (1-based event numbers) of the first k samples. */
static void positions(uint64_t n, uint64_t seed, uint64_t *pos, int k)
{
	struct dc_sampler s;
	uint64_t ev = 0;

	dc_sampler_init(&s, n, seed);
	for (int i = 0; i < k;) {
		ev++;
		if (dc_sampler_tick(&s))
			pos[i++] = ev;
	}
	CHECK_EQ(s.samples, k);
}

/* Gaps between samples (and the first position: "the first period is drawn
 * too") are drawn periods, so each lies in [N - h, N + h]. */
DC_TEST(sampler, gaps_between_samples_are_periods)
{
	enum { K = 5000 };
	static uint64_t pos[K];
	const uint64_t n = 1000, lo = 750, hi = 1250;

	positions(n, 77, pos, K);
	CHECK(pos[0] >= lo && pos[0] <= hi);
	for (int i = 1; i < K; i++)
		CHECK(pos[i] - pos[i - 1] >= lo && pos[i] - pos[i - 1] <= hi);
}

/* The same seed gives the same sample positions; another seed gives other
 * ones.  With N = 1000 two independent renewal sequences coincide at a
 * given sample index with probability about 1/(sqrt(2 pi) * sd of the
 * position difference) <= 1/501 (at the first sample: both first periods
 * equal, 1 in 501; later the difference spreads further), so among 200
 * positions the expected number of coincidences is below 1; requiring 190
 * of 200 to differ is a wide margin. */
DC_TEST(sampler, seed_fixes_positions)
{
	enum { K = 200 };
	uint64_t a[K], b[K], c[K];
	int differ = 0;

	positions(1000, 42, a, K);
	positions(1000, 42, b, K);
	positions(1000, 43, c, K);
	for (int i = 0; i < K; i++) {
		CHECK_EQ(a[i], b[i]);
		differ += a[i] != c[i];
	}
	CHECK(differ >= 190);
}

/* The first period is drawn, not fixed at N: over 100 seeds (0..99) the
 * first sample position, uniform on 501 values, takes on average
 * 501 (1 - (500/501)^100) = 90.7 distinct values (sd below 3); a first
 * period fixed at N would give 1.  Require more than 60. */
DC_TEST(sampler, first_period_is_drawn)
{
	uint64_t first[100];
	int distinct = 0;

	for (int s = 0; s < 100; s++) {
		positions(1000, (uint64_t)s, &first[s], 1);
		bool seen = false;
		for (int t = 0; t < s && !seen; t++)
			seen = first[t] == first[s];
		distinct += !seen;
	}
	CHECK(distinct > 60);
}

/* ---- counts over many events ----------------------------------------------- */

/* Over M events the sample count K is that of a renewal process with
 * period mean N and variance var: S_K <= M < S_{K+1} where S_K, a sum of K
 * draws, has mean K N and sd sqrt(K var).  By the renewal CLT, K is about
 * normal with mean M/N and variance M var / N^3; the last, incomplete
 * period adds at most one sample.  Bound: |K - M/N| <= 5 sqrt(M var / N^3)
 * + 1.
 *   N = 1000, M = 10^7: var = 20916.7, sd = sqrt(10^7 * 20916.7 / 10^9) =
 *   14.5, so 10^4 +- 73.
 *   N = 5, M = 10^6: var = (9-1)/12 = 0.667, sd = 73.0, so 2*10^5 +- 366.
 *   N = 4096, M = 10^7: var = 349866.7, sd = 9.0. */
static void check_count(uint64_t n, uint64_t m, uint64_t seed)
{
	struct dc_sampler s;
	uint64_t k = 0;

	dc_sampler_init(&s, n, seed);
	for (uint64_t i = 0; i < m; i++)
		k += dc_sampler_tick(&s);
	CHECK_EQ(s.samples, k);
	if (half(n) == 0)
		CHECK_EQ(k, m / n);        /* every period is N: samples at N, 2N, ... */
	double nn = (double)n, dev = (double)k - (double)m / nn;
	double bound = 5 * dc_unit_sqrt((double)m * uvar(n) / (nn * nn * nn)) + 1;
	if (dev > bound || dev < -bound)
		dc_unit_fail(__FILE__, __LINE__, "N=%llu M=%llu: %llu samples, expected %g +- %g",
			     (unsigned long long)n, (unsigned long long)m,
			     (unsigned long long)k, (double)m / nn, bound);
}

DC_TEST(sampler, sample_count_is_m_over_n)
{
	check_count(1000, 10000000, 1);
	check_count(1000, 10000000, 2);
	check_count(5, 1000000, 3);
	check_count(4096, 10000000, 4);
	check_count(8, 1000000, 5);
	/* h = 0: exact, K = floor(M / N) */
	check_count(2, 1000001, 6);
	check_count(3, 1000000, 7);
}

/* ---- no lock-on ----------------------------------------------------------- */

/* Events labelled i mod L (a loop of length L); period N a multiple of L.
 * A fixed period would sample one label forever.  With drawn periods the
 * sampled label moves by (period mod L) each time.
 *   N = 10, L = 10: h = 2, the label moves by -2..+2 (uniform), a random
 *   walk on Z_10 whose stationary distribution is uniform: each label has
 *   frequency 1/10.
 * Bound: were the K samples independent, a label's count would be
 * binomial(K, 1/10), sd sqrt(K p (1-p)).  Successive labels are correlated
 * (a Markov chain); the variance of a visit count then grows by the average
 * over the chain's non-trivial eigenvalues l_j of (1 + l_j)/(1 - l_j).  For
 * the step law uniform on -2..2, l_j = (1 + 2 cos(2 pi j/10) + 2 cos(4 pi
 * j/10)) / 5 = 0.647, 0, -0.247, 0, 0.2, 0, -0.247, 0, 0.647 (j = 1..9):
 * factors 4.67, 1, 0.60, 1, 1.5, 1, 0.60, 1, 4.67, average 1.78.  So the
 * bound is 5 sqrt(2 K p (1-p)) (factor 2 >= 1.78).  With K = 10^5: 0.1 +-
 * 0.0067 in frequency.
 *   N = 20, L = 10: h = 5, moves 15..25 mod 10: each residue once, 5 twice;
 *   l_j = (-1)^j / 11, factor <= 1.2, so the same bound holds. */
static void check_no_lock(uint64_t n, uint64_t len, uint64_t m, uint64_t seed)
{
	long cnt[16] = { 0 };
	struct dc_sampler s;

	CHECK(len <= 16);
	dc_sampler_init(&s, n, seed);
	for (uint64_t i = 0; i < m; i++)
		if (dc_sampler_tick(&s))
			cnt[i % len]++;
	double k = (double)s.samples, p = 1.0 / (double)len;
	double bound = 5 * dc_unit_sqrt(2 * k * p * (1 - p));
	for (uint64_t l = 0; l < len; l++) {
		double dev = (double)cnt[l] - k * p;
		if (cnt[l] == 0 || dev > bound || dev < -bound)
			dc_unit_fail(__FILE__, __LINE__, "N=%llu: label %llu sampled %ld of %g times, "
				     "expected %g +- %g", (unsigned long long)n,
				     (unsigned long long)l, cnt[l], k, k * p, bound);
	}
}

DC_TEST(sampler, no_lock_on_loop_dividing_period)
{
	check_no_lock(10, 10, 1000000, 1);
	check_no_lock(10, 10, 1000000, 2);
	check_no_lock(20, 10, 2000000, 3);
}
