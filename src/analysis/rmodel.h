/* rmodel.h — from time to stack reuse distances (Shen et al.'s model), and
 * the S and Ŝ similarity of two histograms (seeds/003 Appendix A, §V.A).
 *
 * Notes (docs/cli.md, "dcprof reuse"):
 *  - Model (seeds/003 Appendix A, after Shen et al.): accesses are taken as
 *    independent and the trace as stationary.  f(δ) is the share of
 *    accesses whose next access to their block comes δ accesses later; a
 *    reuse histogram counts each (use, reuse) pair once, so read forwards
 *    it gives f for the reuses, and the first touches (as many as the last
 *    touches; for sampled profiles, the uses never reused) are the
 *    accesses with no next access, δ = ∞.  A window of w accesses then
 *    holds in expectation E(w) = Σ_{i=1..w} P(δ ≥ i) = Σ_δ f(δ) min(δ, w)
 *    distinct blocks (an access is the last of its block in the window iff
 *    its next access lies beyond it), the mean over the run's windows.
 *  - A reuse at time distance Δ has Δ − 1 accesses in between, none to its
 *    own block; each of the other N − 1 blocks is taken to be among them
 *    with probability E(Δ − 1) / N (equations 3 and 4), so its stack
 *    distance has mean μ = (N − 1) E(Δ − 1) / N.  Its distribution is
 *    taken as Binomial(m, μ / m) over m = min(Δ − 1, N − 1) trials, the
 *    most distinct blocks there can be: for windows longer than N this is
 *    Shen's Binomial(N − 1, p); for shorter ones the trials are the
 *    accesses in between, each a new block or not, which keeps a stack
 *    distance at most Δ − 1 and, for independent uniform accesses, has the
 *    variance of the exact occupancy count ((Δ − 1)² / 2N collisions when
 *    Δ ≪ N), where Shen's binomial would spread a sweep's reuses, all at
 *    Δ − 1, over both sides of it.  N is the number of first touches, at
 *    least 1 + the mean reuse time distance (what a window holds at most
 *    when every block is reused).
 *  - Bins (Shen & Shaw's extension to wide bars): a time bin's count is
 *    spread over its distances evenly or, when the engine recorded the
 *    bin's mean distance, along exp(λ t) (t the place in the bin) with λ
 *    such that the spread has that mean (a mean at the bin's lower bound,
 *    a sweep's, keeps the whole count there); bins wider than 32
 *    distances are taken at 32 quantiles of the spread.  E(w) uses the
 *    same points.  The binomial is summed exactly (log-gamma) when
 *    its standard deviation is below 8, else taken as normal with a
 *    continuity correction.
 *  - The program's histogram gives f and N; a bucket's time histogram is
 *    converted with them (its reuses see every block in between, not only
 *    its own).
 *  - Similarity (§V.A): B_i are the shares of reuses (first touches left
 *    out) in bin i.  S = 1 − Σ|B_i − B̂_i| / 2 (equation 1); Ŝ averages
 *    adjacent bins first (equation 2), forgiving an off-by-one bin.
 */
#ifndef DC_ANALYSIS_RMODEL_H
#define DC_ANALYSIS_RMODEL_H

#include "store/rhist.h"

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
