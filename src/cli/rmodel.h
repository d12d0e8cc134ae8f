/* rmodel.h — from time to stack reuse distances (Shen et al.'s model), and
 * the S and Ŝ similarity of two histograms (seeds/003 Appendix A, §V.A).
 *
 * Notes (docs/cli.md, "dcprof reuse"):
 *  - Model (seeds/003 Appendix A, after Shen et al.): accesses are taken as
 *    independent and the trace as stationary.  f(δ) is the share of reuses
 *    at time distance δ; a reuse histogram counts each (use, reuse) pair
 *    once, so read forwards it is the distribution of the distance to an
 *    access's next access.  A window of w accesses then holds in
 *    expectation E(w) = Σ_{i=1..w} P(δ ≥ i) = Σ_δ f(δ) min(δ, w) distinct
 *    blocks (an access is the last of its block in the window iff its next
 *    access lies beyond it).  A reuse at time distance Δ has Δ − 1
 *    accesses in between, none to its own block; each of the other N − 1
 *    blocks is taken to be among them with probability p = E(Δ − 1) / N,
 *    so its stack distance is Binomial(N − 1, p) (equations 3 and 4).
 *    N is the number of first touches, at least 1 + E(∞) (the mean time
 *    distance, what a window holds at most): sampled profiles know only
 *    the uses never reused.  First touches play no part in f: under a
 *    stationary trace they would be new blocks all along the run, while
 *    real programs touch most blocks first early.
 *  - Bins (Shen & Shaw's extension to wide bars): a time bin's count is
 *    spread evenly over its distances; bins wider than 32 distances are
 *    cut into 32 equal parts, each taken at its middle.  E(w) uses the
 *    same even spread.  The binomial is summed exactly (log-gamma) when
 *    its standard deviation is below 8, else taken as normal with a
 *    continuity correction.
 *  - The program's histogram gives f and N; a bucket's time histogram is
 *    converted with them (its reuses see every block in between, not only
 *    its own).
 *  - Similarity (§V.A): B_i are the shares of reuses (first touches left
 *    out) in bin i.  S = 1 − Σ|B_i − B̂_i| / 2 (equation 1); Ŝ averages
 *    adjacent bins first (equation 2), forgiving an off-by-one bin.
 */
#ifndef DC_CLI_RMODEL_H
#define DC_CLI_RMODEL_H

#include "cli/rhist.h"

/* The stack histogram of `time` (bins of ri) under the model whose f and N
 * come from `prog` (the whole program's time histogram and first
 * touches); counts rounded to integers.  out->first is time->first. */
void rmodel_convert(const struct reuse_info *ri, const struct rhist *prog,
		   const struct rhist *time, struct rhist *out);

/* Where a histogram comes from: the exact measurement, the model applied
 * to the exact time histogram, or the sampled one (time as measured, stack
 * converted by the model). */
enum rsource { RSRC_EXACT, RSRC_CONVERTED, RSRC_SAMPLED };

/* The histogram of kind "stack" or "time" from src for object (NULL: the
 * whole program).  On error err holds the whole message. */
int rhist_source_read(struct profile *p, const struct reuse_info *ri, enum rsource src,
		      const char *kind, const char *object, struct rhist *out, char *err,
		      size_t errlen);

/* S (sliding = false) or Ŝ (true) of est against truth; 1 when both are
 * empty, 0 when one is. */
double rhist_similarity(const struct rhist *truth, const struct rhist *est, bool sliding);

#endif
