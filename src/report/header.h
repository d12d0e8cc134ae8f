/* header.h — what every command's output says about the profile first:
 * program, command, status and caches (text), or the same meta values as
 * the first members of the JSON object.  Shared by report, accuracy and
 * evictions.
 */
#ifndef DC_REPORT_HEADER_H
#define DC_REPORT_HEADER_H

#include <stdbool.h>

#include "store/profile.h"
#include "base/sbuf.h"

/* Meta values; a missing key is an empty sbuf with its has_ flag false. */
struct header {
	struct sbuf program, command, complete, reason, exit_status, source, cache_reason;
	struct sbuf omp_policy;    /* meta omp_wait_policy */
	struct sbuf rank, host;    /* meta rank and host (dcprof record under a launcher) */
	bool has_reason, has_exit, has_source, has_cache_reason;
	bool has_omp_policy;       /* ... and the program ran a spinning runtime */
	bool has_rank, has_host;
	/* meta engine (absent: the simulator), sample_event, sample_period,
	 * pmu_event (the native engine's live PMU event) */
	struct sbuf engine, event, period, pmu;
	bool has_engine, has_event, has_period, has_pmu;
	long long processes;       /* rows of table process (dcprof merge), else 0 */
};

void header_init(struct header *h);
void header_release(struct header *h);
/* On error err holds the whole message. */
int header_read(struct profile *p, struct header *h, char *err, size_t errlen);
bool header_complete(const struct header *h);
/* The program:, command:, status: and caches: lines, merged: for a
 * merged profile, and runtime: for a program that ran a spinning runtime
 * (analysis/spin.h). */
void header_text(struct sbuf *out, const struct profile *p, const struct header *h);
/* Opens the JSON object: {"schema_version":V,"program":...,"cache_reason":...
 * (no closing brace; V is the profile's schema version). */
void header_json(struct sbuf *out, const struct profile *p, const struct header *h);
/* "%-10s" label, then the value escaped for text, then a newline. */
void header_text_line(struct sbuf *out, const char *label, const char *val, size_t len);

#endif
