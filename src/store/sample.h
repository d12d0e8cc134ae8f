/* sample.h — the sampled event of a profile (dcprof record --sample=EVENT:N).
 *
 * Events: D1m..D4m misses at that level, DLm misses at the last level, Dr
 * data reads, Dw data writes, Da all data accesses.  An event's count in a
 * cost row is an SQL expression over the row's columns; the same
 * expression gives the exact count over `cost` and the estimate over
 * `cost_sampled`.
 */
#ifndef DC_STORE_SAMPLE_H
#define DC_STORE_SAMPLE_H

#include "store/profile.h"
#include "base/sbuf.h"

struct sample_info {
	char event[4];
	int level;               /* level of a miss event, 0 for Dr, Dw and Da */
	int64_t period, seed, samples;
};

/* The level a miss event names (DLm: nlevels; D<k>m: k, which may exceed
 * nlevels), 0 for Dr, Dw and Da, -1 for anything else. */
int sample_event_level(const char *event, int nlevels);
/* Reads the sample_* meta keys.  A profile without them (or of schema
 * version 1) is the error "profile 'F' has no samples; record with
 * --sample=EVENT:N". */
int sample_info_read(struct profile *p, struct sample_info *si, char *err, size_t errlen);
/* Appends the event's count over the cost columns of table alias c. */
void sample_event_sql(struct sbuf *out, const struct sample_info *si);
/* "1,234 samples of D1m, period 10,000, seed 1" */
void sample_describe(struct sbuf *out, const struct sample_info *si);
/* {"event":"D1m","period":10000,"seed":1,"samples":1234} */
void sample_json(struct sbuf *out, const struct sample_info *si);

#endif
