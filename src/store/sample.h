/* sample.h — the sampled event of a profile (dcprof record --sample=EVENT:N).
 *
 * Events: D1m..D4m misses at that level, DLm misses at the last level, Dr
 * data reads, Dw data writes, Da all data accesses.  An event's count in a
 * cost row is an SQL expression over the row's columns; the same
 * expression gives the exact count over `cost` and the estimate over
 * `cost_sampled`.
 *
 * IP-only samples (record --sample-ip-only, schema version 8) carry no
 * data address: the profile has ip_sample rows instead of estimates, and
 * meta sample_ip_only = 1 with sample_skid (MEAN:SD in instructions, or
 * `hardware` for real samples) and sample_skid_lost.
 */
#ifndef DC_STORE_SAMPLE_H
#define DC_STORE_SAMPLE_H

#include "store/profile.h"
#include "base/sbuf.h"

struct sample_info {
	char event[16];          /* D1m..D4m, DLm, Dr, Dw, Da; cpu-clock (IP-only) */
	int level;               /* level of a miss event, 0 for Dr, Dw, Da and cpu-clock */
	int64_t period, seed, samples;
	bool ip_only;            /* sample_ip_only = 1 */
	char skid[32];           /* sample_skid, "" when absent */
	int64_t skid_lost;       /* sample_skid_lost, 0 when absent */
};

/* The level a miss event names (DLm: nlevels; D<k>m: k, which may exceed
 * nlevels), 0 for Dr, Dw and Da, -1 for anything else. */
int sample_event_level(const char *event, int nlevels);
/* Reads the sample_* meta keys.  A profile without them (or of schema
 * version 1) is the error "profile 'F' has no samples; record with
 * --sample=EVENT:N". */
int sample_info_read(struct profile *p, struct sample_info *si, char *err, size_t errlen);
/* The same for IP-only samples: "profile 'F' has no IP-only samples;
 * record with --sample=EVENT:N --sample-ip-only" when it has none.
 * sample_info_read says a profile with IP-only samples has no estimates. */
int sample_info_read_ip(struct profile *p, struct sample_info *si, char *err, size_t errlen);
/* Appends the event's count over the cost columns of table alias c. */
void sample_event_sql(struct sbuf *out, const struct sample_info *si);
/* "1,234 samples of D1m, period 10,000, seed 1" */
void sample_describe(struct sbuf *out, const struct sample_info *si);
/* "20,000 IP-only samples of D1m, period 1, seed 1, skid 5:0 instructions"
 * (and ", 3 lost" when skids were still pending at exit). */
void sample_describe_ip(struct sbuf *out, const struct sample_info *si);
/* {"event":"D1m","period":10000,"seed":1,"samples":1234}; IP-only samples
 * add "skid":"5:0","lost":0 */
void sample_json(struct sbuf *out, const struct sample_info *si);

#endif
