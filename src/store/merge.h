/* merge.h — many profiles of one program made into one (dcprof merge).
 *
 * Notes (docs/cli.md, "dcprof merge"; docs/schema.md, "Merged profiles"):
 *  - Buckets are matched by (name, kind), code locations by (object,
 *    function, file, line): ids differ from process to process and are
 *    never compared (and the function a location was inlined into is part
 *    of its key).  The merged profile numbers them anew.
 *  - Counts are summed: cost, cost_sampled, eviction, level_fill,
 *    cache_use, call_arc, call_use, reuse histograms, first touches and
 *    pairs.  Means (reuse_hist.mean, reuse_pair.mean_*) are weighted by
 *    their counts.  Bucket statistics: blocks and total_bytes summed,
 *    max_live_* the largest of one process, min/max_size the extremes.
 *    residency (average lines resident) is the mean over the processes
 *    that have the bucket.  Blocks (table block: addresses of one
 *    process's heap) are not merged; the bucket statistics are.
 *  - Profiles must agree on what they measured: the cache levels and
 *    memory latency, and the recording options kept in meta
 *    (merge_config_keys: sampling, reuse, eviction, cache-use, call and
 *    naming options), else the merge is refused with the first
 *    difference.  A profile of another program is refused unless forced,
 *    and so is a process given twice: one file under two names, or the
 *    same pid, rank, host, program and totals in two inputs (a merged
 *    profile and one of its inputs), which would count twice.
 *  - Sampled windowed traces (footprint) are per process and not merged:
 *    the merged profile has none, and a note says so.
 *  - Per process, the merged profile keeps a row in `process` (path, pid,
 *    rank, host, status) and its per-bucket totals in `process_cost`, for
 *    `report --spread`.  A merged profile merges again: its processes are
 *    carried over.
 *  - Memory stays bounded whatever the number of profiles: one input is
 *    attached at a time and rows go from table to table in SQL.
 */
#ifndef DC_STORE_MERGE_H
#define DC_STORE_MERGE_H

#include <stdbool.h>
#include <stddef.h>

struct merge_opts {
	bool force;     /* profiles of different programs; a process twice */
	bool quiet;     /* no notes */
};

/* Merges the n profiles into out (through a temporary file renamed at the
 * end: base/outfile.h).  0, or -1 with the whole message in err; out is
 * then as it was. */
int merge_profiles(const char *const *inputs, size_t n, const char *out,
		   const struct merge_opts *o, char *err, size_t errlen);

#endif
