/* fptrace.h — footprint analysis of a profile's sampled trace (seeds/004
 * §4.3, §5, §6): per window, per function (code windows), per node of the
 * execution interval tree, per hot memory region (location zoom), and the
 * comparison with the full-trace reference (§7.1).
 *
 * Notes (docs/cli.md defines every figure):
 *  - Records of class Constant stand for 1 + implied Constant loads;
 *    others for one access (A) plus their implied Constant loads (A_const).
 *    Footprints count blocks (meta trace_block bytes) of non-Constant
 *    records only: Constant data is "1 unit of space" (§4.2).
 *  - F of a window: its distinct blocks; F_str and F_irr split them by the
 *    class of each block's first access in the window, so F = F_str + F_irr.
 *  - Window i covers period_i records, of which it recorded n_i: its
 *    estimates scale by rho_i = period_i / n_i (equation 1; equation 3's
 *    inter-window case).  The records before the first window count in
 *    the first window's period for the run's estimates (not for its own
 *    trace-window comparison), so the periods add up to the run.  A set of windows (a function's code window, an
 *    interval-tree node, the run) estimates F-hat = sum rho_i F_i, the same
 *    for F_str, F_irr, A and A_const.
 *  - dF = F / (A + A_const) = F / (kappa A) (equation 4), kappa = 1 +
 *    A_const / A (equation 2).
 *  - D (§6.2), intra-window: for a non-Constant record whose block was
 *    accessed earlier in the same window, the distinct other blocks in
 *    between (a stack distance, exact); D of a set is the mean over such
 *    reuses.  Inter-window: for a record whose block was last seen in an
 *    earlier window, dF x the records in between (unique blocks estimated
 *    from footprint growth); mean over such reuses.
 *  - Trace-window histograms (§7.1, Figure 8; core/fphist.h): each sampled
 *    window is a stream of its own, cut into tiles of 2, 4, ... records
 *    from its first record; the full trace's bins come from meta
 *    trace_hist (the engine's, --trace-full).  The MAPE is over the sizes
 *    both have tiles of, of |sampled mean - full mean| / full mean, a
 *    component counted only where its full mean is at least 1 % of the
 *    full mean F (and not 0), as the period comparison does.
 */
#ifndef DC_ANALYSIS_FPTRACE_H
#define DC_ANALYSIS_FPTRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/fphist.h"
#include "store/profile.h"

struct fp_sums {
	double a, aconst, f, fstr, firr;   /* rho-scaled estimates */
	int64_t records;                   /* sampled records */
	double dsum, dinter_sum;
	int64_t dn, dinter_n;
};

struct fp_win {
	int64_t start, period, n;
	double rho;                        /* scale of the run's estimates */
	struct fp_sums s;                  /* this window alone, scaled */
	int64_t f, fstr, firr;             /* observed, unscaled */
	bool has_ref;
	int64_t ref[3];                    /* full-trace F, F_str, F_irr of the period */
};

struct fp_fn {
	char *name;
	size_t len;
	struct fp_sums s;
	bool has_ref;
	int64_t ref_a, ref_aconst, ref[3];
};

struct fp_acc {
	uint64_t addr;
	int64_t time;
	uint32_t win, fn, bucket;
	double d;                          /* intra-window D, or -1 */
};

struct fp_trace {
	int64_t w, period, block, records;
	unsigned block_bits;
	bool full;
	struct fp_win *wins;
	size_t nwins;
	struct fp_fn *fns;                 /* by function name */
	size_t nfns;
	char **buckets;                    /* names by bucket id */
	size_t *bucket_len, nbuckets;
	struct fp_acc *acc;                /* non-Constant records, by time */
	size_t nacc;
	struct fp_sums all;
	unsigned nhist;                    /* histogram bins: sizes 2 .. 2^nhist */
	struct dc_fphist_bin hist[DC_FPHIST_MAX];      /* inside the sampled windows */
	bool has_full_hist;
	struct dc_fphist_bin full_hist[DC_FPHIST_MAX]; /* the full trace's (meta trace_hist) */
};

/* Reads and analyses the trace.  On error err holds the whole message
 * (a profile without a trace is one). */
int fp_load(struct profile *p, struct fp_trace *t, char *err, size_t errlen);
void fp_release(struct fp_trace *t);

/* dF, F_str %, F_irr %, A_const %, D and D inter of a sum (NAN if
 * undefined). */
double fp_growth(const struct fp_sums *s);
double fp_share(double part, double whole);
double fp_mean(double sum, int64_t n);

/* The trace-window histograms' MAPE of F, F_str and F_irr (NAN where no
 * size counts) and the sizes compared; 0 sizes without full bins. */
int fp_hist_mape(const struct fp_trace *t, double mape[3]);
/* Is bin k compared (both have tiles, the full mean F is not 0)? */
bool fp_hist_compared(const struct fp_trace *t, unsigned k);

/* Execution interval tree (§5.3): level 0 is the root; a node at level k
 * of L levels covers windows [first, last). */
struct fp_node {
	int level;
	size_t index, first, last;
	struct fp_sums s;
};
/* The nodes of the top `levels` levels (all levels if 0), root first,
 * level by level; the leaves (deepest level) are single windows. */
size_t fp_interval_tree(const struct fp_trace *t, int levels, struct fp_node **out);

/* Location zoom (§5.3): the final hot regions. */
struct fp_region {
	uint64_t lo, hi;                   /* [lo, hi) */
	int64_t accesses, blocks;
	double dsum;
	int64_t dn;
	uint32_t bucket;                   /* most frequent bucket */
	uint32_t fns[3];                   /* most frequent functions, UINT32_MAX if none */
	int64_t fn_count[3];
};
/* tau: percent of a region's accesses a subregion needs; min_page: the
 * smallest page size (bytes, a power of two).  Pages start at 2^30 bytes
 * and shrink 4 times per level; a region is split further only while its
 * accesses are to more than one bucket and its cold runs hold at most
 * tau % of them (sampled sweeps leave gaps in small pages that would
 * otherwise shatter an object and drop most of its accesses as cold). */
size_t fp_zoom(const struct fp_trace *t, double tau, uint64_t min_page,
	       struct fp_region **out);

#endif
