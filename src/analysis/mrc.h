/* mrc.h — the miss-ratio curve of fully-associative LRU caches from an
 * exact stack-distance histogram (seeds/003 §II).  Used by dcprof mrc and
 * the HTML report.
 *
 * Notes (docs/cli.md, "dcprof mrc"):
 *  - An access with stack distance d hits an LRU cache of C blocks iff
 *    d < C; first touches always miss.  misses(C) = first touches +
 *    accesses with d >= C.
 *  - C = 1, 2, 4, ... up to the first power of two >= distinct (the
 *    program's distinct blocks, its first touches): from there on every
 *    reuse hits.
 *  - Exact only where C is a bin boundary: a bin [lo, hi) with lo < C < hi
 *    is counted as hits, so the point is a lower bound (exact = false).
 */
#ifndef DC_ANALYSIS_MRC_H
#define DC_ANALYSIS_MRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/rhist.h"

struct mrc_point {
	int64_t blocks;            /* cache size C in blocks */
	int64_t misses;
	bool exact;
};

/* The curve of h for caches up to `distinct` blocks, in *out (the
 * caller frees it); returns the number of points (0 when distinct <= 0). */
size_t mrc_curve(const struct rhist *h, int64_t distinct, struct mrc_point **out);

#endif
