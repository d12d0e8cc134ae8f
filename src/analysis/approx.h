/* approx.h — the arithmetic of approximate data-centric attribution (N.
 * Rutar, J. K. Hollingsworth, "Software Analysis Techniques to Approximate
 * Data Centric Direct Measurements", §3.3.2 and §3.3.3), and the rank
 * figures that compare it with exact counts.  Pure functions on arrays:
 * no allocation, no I/O (unit-tested in tests/unit/test_approx.c).
 */
#ifndef DC_ANALYSIS_APPROX_H
#define DC_ANALYSIS_APPROX_H

#include <stddef.h>
#include <stdint.h>

/* Loop compensation weights (§3.3.2, equations 1-5) of the n locations
 * read in a loop of loop_lines lines, location i on lines_read[i] of them:
 * raw[i] (eq. 1), adj[i] (eq. 4, 0 below threshold) and final[i] (eq. 5);
 * when no raw weight reaches the threshold, every final weight is 1. */
void approx_loop_weights(const uint32_t *lines_read, size_t n, uint32_t loop_lines,
			 double threshold, double *raw, double *adj, double *final);

/* Skid distribution over offsets k = 0, 1, ... back from the sampled line
 * or instruction (§3.3.3): weight exp(-(k - mean)^2 / (2 sd^2)) for every
 * k >= 0 with |k - mean| <= 2 sd, normalised to sum 1; sd 0, or no
 * offset within 2 sd, puts all on the offset nearest mean.  Writes at most cap weights (w[k] for offset k)
 * and returns how many (the last offset + 1). */
size_t approx_skid_offsets(double mean, double sd, double *w, size_t cap);

/* Spearman's rank correlation of x and y (n pairs): Pearson's correlation
 * of their ranks, descending, ties sharing their average rank; rank_x and
 * rank_y (n each) are scratch.  Returns 0 and sets *rho, or -1 when n < 2
 * or either ranking is all ties. */
int approx_spearman(const double *x, const double *y, size_t n, double *rank_x,
		    double *rank_y, double *rho);

#endif
