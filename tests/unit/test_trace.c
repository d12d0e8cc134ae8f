/* test_trace.c — the emulated trace unit (trace.h Notes): windows of w
 * records, periods drawn in [P - P/4, P + P/4] that tile the stream from
 * the first window on, a leading gap, loads counting implied Constant
 * loads, the last period cut at the end, and recording that stops cleanly
 * when memory runs out. */
#include "core/trace.h"
#include "unit.h"

static struct dc_failenv fe;

/* Feeds n records of 1 + implied loads; records those in windows. */
static void feed(struct dc_trace_unit *t, uint64_t n, unsigned implied)
{
	for (uint64_t i = 0; i < n; i++)
		if (dc_trace_tick(t, implied))
			dc_trace_put(t, 0x1000 + 8 * t->now, 0x400000, 1, 2, implied, DC_TC_STRIDED);
}

/* w = 10, P = 40: periods in [30, 50].  After 100,000 records: about
 * 100000/40 = 2500 windows; each window has exactly 10 records, numbered
 * consecutively from its start; start_{i+1} = start_i + period_i; the
 * first window starts after a gap of P_0 - w in [20, 40]. */
DC_TEST(trace, windows_tile_the_stream)
{
	struct dc_trace_unit t;
	uint64_t j = 0;

	dc_failenv_init(&fe, 0);
	dc_trace_init(&t, &fe.env, 10, 40, 7);
	feed(&t, 100000, 1);
	dc_trace_end(&t);
	CHECK_EQ(t.now, 100000);
	CHECK_EQ(t.loads, 200000);
	CHECK(t.nwins > 2300 && t.nwins < 2700);
	CHECK(t.wins[0].start >= 20 && t.wins[0].start <= 40);
	for (uint64_t i = 0; i < t.nwins; i++) {
		const struct dc_trace_win *w = &t.wins[i];
		if (i + 1 < t.nwins) {
			CHECK(w->period >= 30 && w->period <= 50);
			CHECK_EQ(w->start + w->period, t.wins[i + 1].start);
		} else {
			CHECK_EQ(w->start + w->period, 100000);
		}
		for (uint64_t k = 0; k < 10 && j < t.nrecs && t.recs[j].win == i; k++, j++) {
			CHECK_EQ(t.recs[j].time, w->start + k);
			CHECK_EQ(t.recs[j].implied, 1);
		}
	}
	CHECK_EQ(j, t.nrecs);
	CHECK(t.nrecs >= 10 * (t.nwins - 1) && t.nrecs <= 10 * t.nwins);
	dc_trace_release(&t);
}

/* The seed fixes the windows; another seed moves them. */
DC_TEST(trace, seed_fixes_windows)
{
	struct dc_trace_unit a, b, c;

	dc_failenv_init(&fe, 0);
	dc_trace_init(&a, &fe.env, 10, 1000, 3);
	dc_trace_init(&b, &fe.env, 10, 1000, 3);
	dc_trace_init(&c, &fe.env, 10, 1000, 4);
	feed(&a, 50000, 0);
	feed(&b, 50000, 0);
	feed(&c, 50000, 0);
	CHECK_EQ(a.nwins, b.nwins);
	for (uint64_t i = 0; i < a.nwins; i++)
		CHECK_EQ(a.wins[i].start, b.wins[i].start);
	CHECK(a.wins[0].start != c.wins[0].start || a.wins[1].start != c.wins[1].start);
	dc_trace_release(&a);
	dc_trace_release(&b);
	dc_trace_release(&c);
}

static int record_scenario(const struct dc_env *e, void *ud)
{
	struct dc_trace_unit t;
	bool failed;

	dc_trace_init(&t, e, 100, 200, 1);
	feed(&t, 100000, 0);
	failed = t.failed;
	/* After a failure nothing more is recorded, but time still counts. */
	CHECK_EQ(t.now, 100000);
	if (failed)
		CHECK(!t.on);
	dc_trace_release(&t);
	return failed ? DC_ENOMEM : 0;
}

DC_TEST(trace, alloc_walk)
{
	DC_ALLOC_WALK(record_scenario, NULL);
}
