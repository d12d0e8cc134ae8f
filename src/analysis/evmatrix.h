/* evmatrix.h — the eviction matrix (seeds/002 ch. 5, Tables 13-18): who
 * evicts whom among the top buckets at one cache level.  Used by dcprof
 * evictions and the HTML report.
 *
 * Notes (docs/cli.md, "dcprof evictions"):
 *  - The top N buckets by misses at the level (cost, or cost_sampled when
 *    sampled; ties by name, then id) are both the victims (columns) and
 *    the evictors (rows); row n ("other") holds every other evictor, so
 *    count[.][j] sums to the victim's evictions.
 *  - Rows of eviction with the given sampled flag only.
 */
#ifndef DC_ANALYSIS_EVMATRIX_H
#define DC_ANALYSIS_EVMATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "store/profile.h"

#define EVMATRIX_MAX 20

/* The matrix's buckets, in order of misses. */
struct ev_victim {
	int64_t id, misses, evictions;
	char *name, *kind;         /* owned, NUL-terminated */
	size_t name_len;
};

struct evmatrix {
	struct ev_victim v[EVMATRIX_MAX];
	size_t n;
	int64_t count[EVMATRIX_MAX + 1][EVMATRIX_MAX];   /* [evictor, n = other][victim] */
};

/* Fills m (zeroed by the caller) with the top `top` (1 to EVMATRIX_MAX)
 * buckets at level and their evictions.  0, or -1 on a read error
 * (profile_read_error says why); m is to be released either way. */
int evmatrix_read(struct profile *p, int level, bool sampled, size_t top, struct evmatrix *m);
void evmatrix_release(struct evmatrix *m);

#endif
