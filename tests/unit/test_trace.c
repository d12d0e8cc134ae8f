/* test_trace.c — the emulated trace unit (trace.h Notes): windows of w
 * records, periods drawn in [P - P/4, P + P/4] that tile the stream from
 * the first window on, a leading gap, the records and twins it writes (a
 * window's twin after its records), the trace file, and the last period
 * cut at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rawout.h"
#include "core/trace.h"
#include "unit.h"

struct text {
	char *data;
	size_t len, cap;
};

static int text_write(void *ud, const void *buf, size_t n)
{
	struct text *t = ud;

	if (t->len + n + 1 > t->cap) {
		t->cap = 2 * (t->len + n + 1);
		t->data = realloc(t->data, t->cap);
		CHECK(t->data);
	}
	memcpy(t->data + t->len, buf, n);
	t->len += n;
	t->data[t->len] = 0;
	return 0;
}

struct run {
	struct text text, file;
	struct dc_rawout out, fout;
	struct dc_trace_unit t;
};

static void start(struct run *r, uint64_t w, uint64_t p, uint64_t seed)
{
	memset(r, 0, sizeof *r);
	dc_rawout_init(&r->out, (struct dc_sink){ text_write, &r->text });
	dc_rawout_init(&r->fout, (struct dc_sink){ text_write, &r->file });
	dc_trace_init(&r->t, w, p, seed, &r->out, &r->fout);
}

/* Feeds n records; records those in windows (address = 8 x time). */
static void feed(struct run *r, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (dc_trace_tick(&r->t))
			dc_trace_put(&r->t, 8 * dc_trace_now(&r->t), 0x400000, 1, 2, 3,
				     DC_TC_STRIDED);
}

static void finish(struct run *r)
{
	dc_trace_end(&r->t);
	CHECK_EQ(dc_rawout_finish(&r->out), 0);
	CHECK_EQ(dc_rawout_finish(&r->fout), 0);
}

static void release(struct run *r)
{
	free(r->text.data);
	free(r->file.data);
}

/* w = 10, P = 40: periods in [30, 50].  After 100,000 records: about
 * 100000/40 = 2500 windows; each window's twin, then its 10 records
 * (consecutive times from its start), then its period; start_{i+1} = start_i + period_i;
 * the first window starts after a gap of P_0 - w in [20, 40]; the last
 * period ends at the end of the stream. */
DC_TEST(trace, windows_tile_the_stream)
{
	struct run r;
	uint64_t wins = 0, recs = 0, next_start = 0, in_win = 0, start_ = 0;
	unsigned long long a, b, c, d, e, f;
	char cls;

	start(&r, 10, 40, 7);
	feed(&r, 100000);
	CHECK_EQ(dc_trace_now(&r.t), 100000);
	finish(&r);
	for (char *line = strtok(r.text.data, "\n"); line; line = strtok(NULL, "\n")) {
		if (sscanf(line, "twin %llu %llu", &a, &b) == 2) {
			CHECK_EQ(a, wins);
			if (wins == 0)
				CHECK(b >= 20 && b <= 40);
			else
				CHECK_EQ(b, next_start);
			start_ = b;
			in_win = 0;
			wins++;
		} else if (sscanf(line, "tper %llu %llu", &a, &c) == 2) {
			CHECK_EQ(a, wins - 1);
			/* only the last window may be cut short by the end */
			CHECK(in_win == 10 || (start_ + c == 100000 && in_win == c && c < 10));
			next_start = start_ + c;
			if (next_start != 100000)
				CHECK(c >= 30 && c <= 50);
		} else {
			CHECK_EQ(sscanf(line, "trec %llu %llu 0x%llx %c %llu", &c, &d, &e, &cls, &f), 5);
			CHECK_EQ((c << 32) | d, (1ULL << 32) | 2);
			/* the record's time is implicit: start + its place */
			CHECK_EQ(e, 8 * (start_ + in_win + 1));
			CHECK_EQ(cls, 's');
			CHECK_EQ(f, 3);
			in_win++;
			recs++;
		}
	}
	CHECK_EQ(next_start, 100000);
	CHECK(wins > 2300 && wins < 2700);
	CHECK(recs >= 10 * (wins - 1) && recs <= 10 * wins);
	/* the trace file has one line per record */
	{
		size_t lines = 0;
		for (size_t i = 0; i < r.file.len; i++)
			lines += r.file.data[i] == '\n';
		CHECK_EQ(lines, recs);
	}
	release(&r);
}

/* The seed fixes the windows; another seed moves them. */
DC_TEST(trace, seed_fixes_windows)
{
	struct run a, b, c;

	start(&a, 10, 1000, 3);
	start(&b, 10, 1000, 3);
	start(&c, 10, 1000, 4);
	feed(&a, 50000);
	feed(&b, 50000);
	feed(&c, 50000);
	finish(&a);
	finish(&b);
	finish(&c);
	CHECK_EQ(a.text.len, b.text.len);
	CHECK(!memcmp(a.text.data, b.text.data, a.text.len));
	CHECK(c.text.len != a.text.len || memcmp(a.text.data, c.text.data, a.text.len));
	release(&a);
	release(&b);
	release(&c);
}

/* A stream shorter than the first gap has no window and writes nothing. */
DC_TEST(trace, no_window_in_a_short_stream)
{
	struct run r;

	start(&r, 100, 1000, 1);
	feed(&r, 10);
	finish(&r);
	CHECK_EQ(r.t.nwins, 0);
	CHECK_EQ(r.text.len, 0);
	release(&r);
}
