/* trace.h — the emulated trace unit: sampled windowed memory traces.
 *
 * Notes (seeds/004 §4.2, §4.3):
 *  - The unit sees a stream of trace records: every load that is not
 *    Constant, plus one proxy per straight-line block whose Constant loads
 *    it stands for (the engine decides which loads are records; see
 *    docs/engine.md).  Time is the number of records seen so far.
 *  - It records windows of w consecutive records (the processor-trace
 *    buffer) and skips z records between them.  Each period w + z is drawn
 *    by a sampler (sampler.h) with mean --trace-period, uniform on
 *    [P - P/4, P + P/4], seeded; w + z >= w always holds because the
 *    caller requires P >= 2w.  The run starts with a gap, so the first
 *    window starts at a random record.
 *  - A window i starts at record start_i and its period lasts period_i
 *    records (up to the next window's start): estimates for the whole run
 *    scale the window by rho = period_i / w (equation 1 without
 *    compression; compression is accounted for by the implied counts).
 *  - Recorded accesses are kept in memory (a growing array) until the
 *    engine writes them out; the hot path only counts down.
 */
#ifndef DC_TRACE_H
#define DC_TRACE_H

#include "core/port.h"
#include "core/sampler.h"

/* Load classes (seeds/004 §4.2). */
enum { DC_TC_CONST, DC_TC_STRIDED, DC_TC_IRREG };

struct dc_trace_rec {
	uint64_t time;            /* record index in the whole stream */
	uint64_t addr, ip;
	uint32_t win, loc, bucket;
	uint16_t implied;         /* Constant loads this record stands for */
	uint8_t cls;              /* DC_TC_* */
};

struct dc_trace_win {
	uint64_t start, period;   /* first record, records up to the next window */
};

struct dc_trace_unit {
	const struct dc_env *env;
	uint64_t w;               /* window length in records */
	struct dc_sampler period; /* period w + z */
	uint64_t countdown;       /* records left in this phase */
	uint64_t gap;             /* length of the gap after the current window */
	bool on;                  /* recording */
	bool failed;              /* ran out of memory: recording stopped */
	uint64_t now;             /* records seen */
	uint64_t loads;           /* loads they stand for (records + implied) */
	struct dc_trace_rec *recs;
	uint64_t nrecs, recs_cap;
	struct dc_trace_win *wins;
	uint64_t nwins, wins_cap;
};

void dc_trace_init(struct dc_trace_unit *t, const struct dc_env *env, uint64_t w,
		   uint64_t period, uint64_t seed);
void dc_trace_release(struct dc_trace_unit *t);
/* Starts the next phase (window or gap); called by dc_trace_tick. */
void dc_trace_phase(struct dc_trace_unit *t);

/* Counts one record that stands for 1 + implied loads; true when it falls
 * in a window and must be recorded with dc_trace_put. */
static inline bool dc_trace_tick(struct dc_trace_unit *t, unsigned implied)
{
	if (t->countdown == 0)
		dc_trace_phase(t);
	t->countdown--;
	t->now++;
	t->loads += 1 + implied;
	return t->on;
}

/* Appends a record of the current window (time = the record just
 * counted).  On allocation failure recording stops for good (failed). */
void dc_trace_put(struct dc_trace_unit *t, uint64_t addr, uint64_t ip, uint32_t loc,
		  uint32_t bucket, unsigned implied, unsigned cls);
/* The records of the last window's period that ran past the end of the
 * run are cut: the last window's period ends at now. */
void dc_trace_end(struct dc_trace_unit *t);

#endif
