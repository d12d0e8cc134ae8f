/* test_approx.c — dcprof approx's arithmetic (src/analysis/approx.c)
 * against the worked examples of N. Rutar, J. K. Hollingsworth, "Software
 * Analysis Techniques to Approximate Data Centric Direct Measurements".
 *
 * The expected numbers are typed from the paper's tables (§3.3.2, §3.3.3),
 * or derived here in comments; none come from a dcprof run.
 */
#include <math.h>

#include "analysis/approx.h"
#include "unit.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

/* §3.3.2's table, from Figure 2's loop: 4 code lines (the for line and the
 * three body lines); x[a], x[b], y[a] are read on 1 of them, y[b] on 2, a
 * on 3 (for line, lines 2 and 3), b on all 4.  Paper: raw .94 .94 .94 .75
 * .44 .00 (sum 4.0), adjusted .52 .52 .52 .42 .00 .00 (sum 2.0), final
 * 1.46 1.46 1.46 1.17 .44 .00 (sum 6.0) at threshold 0.75. */
DC_TEST(approx, loop_weights_paper_table)
{
	const uint32_t lines[6] = { 1, 1, 1, 2, 3, 4 };
	const double raw_p[6] = { .94, .94, .94, .75, .44, .00 };
	const double adj_p[6] = { .52, .52, .52, .42, .00, .00 };
	const double fin_p[6] = { 1.46, 1.46, 1.46, 1.17, .44, .00 };
	double raw[6], adj[6], fin[6], sr = 0, sa = 0, sf = 0;

	approx_loop_weights(lines, 6, 4, 0.75, raw, adj, fin);
	for (int i = 0; i < 6; i++) {
		/* The paper prints .52 for 0.9375 / 3.5625 * 2 = 0.526: cut, not
		 * rounded (its final 1.46 = 0.9375 + 0.526 is rounded); two
		 * decimals within 0.01. */
		CHECK(NEAR(raw[i], raw_p[i], 0.005));
		CHECK(NEAR(adj[i], adj_p[i], 0.01));
		CHECK(NEAR(fin[i], fin_p[i], 0.005));
		sr += raw[i];
		sa += adj[i];
		sf += fin[i];
	}
	CHECK(NEAR(sr, 4.0, 1e-12));
	CHECK(NEAR(sa, 2.0, 1e-12));
	CHECK(NEAR(sf, 6.0, 1e-12));
}

/* Below the threshold nothing is added; with nothing above it there is no
 * compensation (weights 1). */
DC_TEST(approx, loop_weights_threshold)
{
	const uint32_t lines[2] = { 2, 4 };
	double raw[2], adj[2], fin[2];

	/* raw = 1 - (2/4)^2 = .75 and 0; threshold .8: V' empty. */
	approx_loop_weights(lines, 2, 4, 0.8, raw, adj, fin);
	CHECK(NEAR(raw[0], 0.75, 1e-12));
	CHECK(NEAR(fin[0], 1.0, 1e-12));
	CHECK(NEAR(fin[1], 1.0, 1e-12));
	CHECK(NEAR(adj[0], 0.0, 1e-12));
	/* threshold .5: V' = {first}; redistribute .25 + 1 = 1.25 to it. */
	approx_loop_weights(lines, 2, 4, 0.5, raw, adj, fin);
	CHECK(NEAR(fin[0], 2.0, 1e-12));
	CHECK(NEAR(fin[1], 0.0, 1e-12));
}

/* §3.3.3's example: mean one line back, probability .5 there and .25 on
 * the sampled line and the line before: a Gaussian with
 * exp(-1 / (2 sd^2)) = .5, sd = 1 / sqrt(2 ln 2). */
DC_TEST(approx, skid_offsets_paper_example)
{
	double w[8];
	size_t n = approx_skid_offsets(1.0, 1.0 / sqrt(2.0 * log(2.0)), w, 8);

	CHECK_EQ(n, 3);
	CHECK(NEAR(w[0], 0.25, 1e-12));
	CHECK(NEAR(w[1], 0.50, 1e-12));
	CHECK(NEAR(w[2], 0.25, 1e-12));
}

DC_TEST(approx, skid_offsets_precise_and_cut)
{
	double w[8];

	/* No skid: all on the sampled line. */
	CHECK_EQ(approx_skid_offsets(0, 0, w, 8), 1);
	CHECK(NEAR(w[0], 1.0, 1e-12));
	/* sd 0, mean 2.4: all on offset 2. */
	CHECK_EQ(approx_skid_offsets(2.4, 0, w, 8), 3);
	CHECK(NEAR(w[2], 1.0, 1e-12) && w[0] == 0 && w[1] == 0);
	/* mean 0, sd 1: offsets 0..2 (|k| <= 2), weights 1, e^-1/2, e^-2
	 * normalised; negative offsets cut. */
	CHECK_EQ(approx_skid_offsets(0, 1, w, 8), 3);
	{
		double s = 1 + exp(-0.5) + exp(-2.0);

		CHECK(NEAR(w[0], 1 / s, 1e-12));
		CHECK(NEAR(w[1], exp(-0.5) / s, 1e-12));
		CHECK(NEAR(w[2], exp(-2.0) / s, 1e-12));
	}
}

/* Spearman: identical order 1, reversed -1; with a tie, the ranks 1, 2.5,
 * 2.5, 4 against 1..4: sxy = 2.25+0+0+2.25 - ... computed below. */
DC_TEST(approx, spearman)
{
	const double x[4] = { 40, 30, 20, 10 };
	const double rev[4] = { 1, 2, 3, 4 };
	const double tie[4] = { 9, 5, 5, 1 };
	double rx[4], ry[4], rho;

	CHECK_EQ(approx_spearman(x, x, 4, rx, ry, &rho), 0);
	CHECK(NEAR(rho, 1.0, 1e-12));
	CHECK_EQ(approx_spearman(x, rev, 4, rx, ry, &rho), 0);
	CHECK(NEAR(rho, -1.0, 1e-12));
	/* Ranks 1,2,3,4 and 1,2.5,2.5,4 (mean 2.5): deviations -1.5,-.5,.5,1.5
	 * and -1.5,0,0,1.5; sxy = 4.5, sxx = 5, syy = 4.5; rho = 4.5 /
	 * sqrt(22.5) = 0.9487. */
	CHECK_EQ(approx_spearman(x, tie, 4, rx, ry, &rho), 0);
	CHECK(NEAR(rho, 4.5 / sqrt(22.5), 1e-12));
	/* One pair, or all ties: no correlation. */
	CHECK_EQ(approx_spearman(x, x, 1, rx, ry, &rho), -1);
	CHECK_EQ(approx_spearman(x, (const double[4]){ 1, 1, 1, 1 }, 4, rx, ry, &rho), -1);
}
