/* rhist.h — exact reuse-distance histograms (docs/schema.md, version 3):
 * bin bounds and their syntax, the profile's reuse meta, and reading a
 * histogram.  Shared by rawread.c (bin bounds), cmd_record.c (the
 * --reuse-bins value), the reuse analyses and reports.
 *
 * Bins (meta reuse_bins = FIRST:GROWTH): bin 0 is [0, FIRST), bin k >= 1 is
 * [FIRST * GROWTH^(k-1), FIRST * GROWTH^k).  A bound that does not fit a
 * signed 64-bit integer is "unbounded" (hi NULL in the schema).
 */
#ifndef DC_STORE_RHIST_H
#define DC_STORE_RHIST_H

#include <stdbool.h>
#include <stdint.h>

#include "store/profile.h"
#include "base/sbuf.h"

/* The most bins there can be: bin k >= 1 starts at FIRST * GROWTH^(k-1)
 * >= 2^(k-1), which must fit a signed 64-bit integer, so k <= 63. */
#define REUSE_MAX_BINS 64

/* "FIRST:GROWTH", unsigned decimals with FIRST >= 1 and GROWTH >= 2, each at
 * most max_first / max_growth; 0 or -1. */
int reuse_parse_bins(const char *s, int64_t max_first, int64_t max_growth,
		     int64_t *first, int64_t *growth);
/* Bounds of bin k: 0, or -1 when lo itself does not fit (no such bin;
 * always so for k < 0 or k >= REUSE_MAX_BINS).
 * *hi_inf is set when hi does not fit. */
int reuse_bin_bounds(int64_t first, int64_t growth, int64_t k, int64_t *lo, int64_t *hi,
		     bool *hi_inf);

/* The meta values of a profile recorded with --reuse=yes and/or
 * --reuse-sample=N. */
struct reuse_info {
	int64_t block;             /* bytes per block */
	int64_t first, growth;     /* reuse_bins */
	bool exact;                /* exact histograms present (--reuse=yes) */
	bool sampled;              /* sampled ones present (--reuse-sample) */
	/* with sampled: */
	int64_t period, watchpoints, samples, traps, dropped;
	char watch[16], replace[16], attrib[16];
	/* what a time distance counts: "accesses" (the simulator engine), or
	 * "ns" of the thread's CPU time (the native engine's watchpoints: meta
	 * reuse_distance_unit); what a use point is a sample of: "access" or
	 * "pagefault" (meta reuse_use_event) */
	char unit[16], use_event[16];
};

/* The unit's name in reports: "accesses", or "ns of CPU time". */
const char *reuse_unit_text(const struct reuse_info *ri);
/* True when sampled time distances are accesses (can convert to stack). */
bool reuse_unit_accesses(const struct reuse_info *ri);

/* Fails with "profile 'F' has no reuse data; record with --reuse=yes" for
 * a profile without them (schema version < 3, or recorded without). */
int reuse_info_read(struct profile *p, struct reuse_info *ri, char *err, size_t errlen);

struct rbin {
	int64_t bin, lo, hi, count;
	bool hi_inf;
	bool has_mean;             /* the mean distance of the bin's count is known */
	double mean;
};

/* One histogram: the whole program's (the sum over buckets) or that of the
 * bucket(s) named object. */
struct rhist {
	struct rbin *bins;         /* non-empty bins, ascending */
	size_t n;
	int64_t reuses;            /* sum of the bins' counts */
	int64_t first;             /* first touches (sampled: uses never reused) */
};

/* kind "stack", "time" or "sampled" (sampled time distances, estimates
 * from --reuse-sample); object NULL for the whole program.  On error err
 * holds the whole message. */
int rhist_read(struct profile *p, const char *kind, const char *object, struct rhist *h,
	       char *err, size_t errlen);
void rhist_release(struct rhist *h);

/* v * block, or -1 when it does not fit. */
int64_t reuse_bytes(int64_t v, int64_t block);

#endif
