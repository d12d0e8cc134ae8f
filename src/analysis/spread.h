/* spread.h — how a merged profile's processes differ, per bucket: load
 * imbalance across MPI ranks or workers (dcprof report --spread), as
 * hpcviewer's per-rank metrics show it.
 *
 * Notes:
 *  - Needs a merged profile (store/merge.h: tables process and
 *    process_cost); one process has no spread.
 *  - A process that never touched a bucket counts 0 for it: min, mean and
 *    max are over every process of the merge.
 *  - imbalance = max / mean (1 when every process did the same; the
 *    number of processes when one did everything).
 *  - The process with the max is the lowest-numbered one among equals.
 */
#ifndef DC_ANALYSIS_SPREAD_H
#define DC_ANALYSIS_SPREAD_H

#include "analysis/table.h"
#include "store/profile.h"

/* The SQL sum over a process_cost row of metric: Dr, Dw, Da (Dr + Dw),
 * D1m..D4m (misses at that level), DLm (at the last), Lat; NULL for any
 * other name. */
const char *spread_metric_sql(const char *metric, int nlevels, char *buf, size_t len);
/* Rows bucket, kind, metric (csv and json only), processes (that touched
 * the bucket), min, mean, max, imbalance, max_process (the path of its
 * profile) and max_rank; only bucket object when not NULL.  On error err holds the whole message. */
int spread_build(struct profile *p, const char *metric, const char *object, struct table *t,
		 char *err, size_t errlen);

#endif
