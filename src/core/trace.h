/* trace.h — the emulated trace unit: sampled windowed memory traces.
 *
 * Notes (seeds/004 §4.2, §4.3):
 *  - The unit sees a stream of trace records: every load that is not
 *    Constant, plus one proxy per straight-line block whose Constant loads
 *    it stands for (the engine decides which loads are records; see
 *    docs/engine.md).  Time is the number of records seen so far.
 *  - It records windows of w consecutive records (the processor-trace
 *    buffer) and skips z records between them.  Each period w + z is drawn
 *    by a sampler (sampler.h) with mean P, uniform on [P - P/4, P + P/4],
 *    seeded; the caller requires P >= 2w, so w + z >= w.  The run starts
 *    with a gap, so the first window starts at a random record.
 *  - A window i starts at record start_i and its period lasts period_i
 *    records, up to the next window's start (or the end of the stream).
 *  - Recorded accesses go straight to the raw dump and, if given, to the
 *    trace file: a twin record when a window starts, then a trec per
 *    access (window and time implicit), then the window's tper (period)
 *    when the next window starts or at dc_trace_end.  Nothing is kept in
 *    memory and nothing is allocated.
 *  - The hot path only counts down: the record index is derived from the
 *    end of the current phase.
 */
#ifndef DC_TRACE_H
#define DC_TRACE_H

#include "core/port.h"
#include "core/sampler.h"

struct dc_rawout;

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
	uint64_t w;               /* window length in records */
	struct dc_sampler period; /* period w + z */
	uint64_t countdown;       /* records left in this phase */
	uint64_t phase_end;       /* record index where this phase ends */
	uint64_t gap;             /* length of the gap after the current window */
	bool on;                  /* recording */
	uint64_t nwins;           /* windows started */
	struct dc_trace_win cur;  /* the last window started */
	struct dc_rawout *out;    /* raw dump */
	struct dc_rawout *file;   /* trace file, or NULL */
};

void dc_trace_init(struct dc_trace_unit *t, uint64_t w, uint64_t period, uint64_t seed,
		   struct dc_rawout *out, struct dc_rawout *file);
/* Starts the next phase (window or gap); called by dc_trace_tick. */
void dc_trace_phase(struct dc_trace_unit *t);

/* Counts one record; true when it falls in a window and must be recorded
 * with dc_trace_put. */
static inline bool dc_trace_tick(struct dc_trace_unit *t)
{
	if (t->countdown == 0)
		dc_trace_phase(t);
	t->countdown--;
	return t->on;
}

/* Records seen so far. */
static inline uint64_t dc_trace_now(const struct dc_trace_unit *t)
{
	return t->phase_end - t->countdown;
}

/* Writes a record of the current window (time = the record just counted). */
void dc_trace_put(struct dc_trace_unit *t, uint64_t addr, uint64_t ip, uint32_t loc,
		  uint32_t bucket, unsigned implied, unsigned cls);
/* Writes the last window's period, cut at the end of the stream; call
 * once, at the end. */
void dc_trace_end(struct dc_trace_unit *t);

#endif
