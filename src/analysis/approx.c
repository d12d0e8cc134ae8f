/* approx.c — loop compensation weights, the skid distribution and Spearman's
 * rank correlation for dcprof approx.
 *
 * Notes (N. Rutar, J. K. Hollingsworth, "Software Analysis Techniques to
 * Approximate Data Centric Direct Measurements"; docs/approx.md):
 *  - Eq. 1: raw = 1 - (lines of L reading v / lines of L)^2.
 *  - Eq. 2: the weight to redistribute is the sum over all v of 1 - raw.
 *  - Eq. 3: V' = the v whose raw weight is at or above the threshold (the
 *    paper's table counts y[b] with raw .75 at threshold .75); their raw
 *    weights summed.
 *  - Eq. 4-5: v in V' gets raw + raw / sum(V') * redistributed; the others
 *    keep raw.  With V' empty (a loop of one line: every raw weight is 0)
 *    there is nothing to favour: every final weight is 1, no compensation.
 *  - The skid window is mean +- 2 sd, cut at 0 (a sample lands after the
 *    instruction that missed, never before): with mean 1 and sd
 *    1/sqrt(2 ln 2) = 0.8493 it is offsets 0, 1, 2 weighted .25, .5, .25,
 *    the paper's example (§3.3.3).
 */
#include <math.h>
#include <stdbool.h>

#include "analysis/approx.h"

void approx_loop_weights(const uint32_t *lines_read, size_t n, uint32_t loop_lines,
			 double threshold, double *raw, double *adj, double *final)
{
	double redistribute = 0, above = 0;

	for (size_t i = 0; i < n; i++) {
		double f = loop_lines ? (double)lines_read[i] / (double)loop_lines : 1.0;

		raw[i] = 1.0 - f * f;
		redistribute += 1.0 - raw[i];
		if (raw[i] >= threshold)
			above += raw[i];
	}
	for (size_t i = 0; i < n; i++) {
		adj[i] = raw[i] >= threshold && above > 0 ? raw[i] / above * redistribute : 0.0;
		final[i] = above > 0 ? raw[i] + adj[i] : 1.0;
	}
}

size_t approx_skid_offsets(double mean, double sd, double *w, size_t cap)
{
	size_t n = 0;
	double sum = 0;

	if (!cap)
		return 0;
	if (!(sd > 0)) {
		double k = mean > 0 ? floor(mean + 0.5) : 0;

		if (k >= (double)cap)
			k = (double)cap - 1;
		for (size_t i = 0; i <= (size_t)k; i++)
			w[i] = 0;
		w[(size_t)k] = 1;
		return (size_t)k + 1;
	}
	for (size_t k = 0; k < cap && (double)k <= mean + 2 * sd; k++) {
		double d = (double)k - mean;

		w[k] = fabs(d) <= 2 * sd ? exp(-d * d / (2 * sd * sd)) : 0.0;
		sum += w[k];
		n = k + 1;
	}
	/* No offset within 2 sd of the mean (sd < 0.5): the nearest one. */
	if (!(sum > 0))
		return approx_skid_offsets(mean, 0, w, cap);
	for (size_t k = 0; k < n; k++)
		w[k] /= sum;
	return n;
}

/* Ranks by value, descending: 1 for the largest; ties get their average. */
static void average_ranks(const double *v, size_t n, double *r)
{
	for (size_t i = 0; i < n; i++) {
		size_t above = 0, same = 0;

		for (size_t j = 0; j < n; j++) {
			above += v[j] > v[i];
			same += v[j] == v[i];
		}
		r[i] = (double)above + (double)(same + 1) / 2.0;
	}
}

int approx_spearman(const double *x, const double *y, size_t n, double *rank_x,
		    double *rank_y, double *rho)
{
	double mean = ((double)n + 1) / 2, sxy = 0, sxx = 0, syy = 0;

	if (n < 2)
		return -1;
	average_ranks(x, n, rank_x);
	average_ranks(y, n, rank_y);
	/* Average ranks of 1..n always have mean (n + 1) / 2. */
	for (size_t i = 0; i < n; i++) {
		sxy += (rank_x[i] - mean) * (rank_y[i] - mean);
		sxx += (rank_x[i] - mean) * (rank_x[i] - mean);
		syy += (rank_y[i] - mean) * (rank_y[i] - mean);
	}
	if (!(sxx > 0 && syy > 0))
		return -1;
	*rho = sxy / sqrt(sxx * syy);
	return 0;
}
