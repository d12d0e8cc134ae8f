/* test_rawout.c — the raw dump writer against docs/raw-dump.md: the exact
 * text of every record, the escaping of string fields, buffering across
 * the 64 KiB buffer, and error reporting when the sink fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rawout.h"
#include "unit.h"

/* A sink that keeps what it gets in memory.  Call number fail_call
 * (1-based; 0 = never) returns fail_rc, later calls return later_rc. */
struct mem {
	char *data;
	size_t len, cap;
	int calls;
	size_t chunk[64];
	int fail_call, fail_rc, later_rc;
};

static int mem_write(void *ud, const void *buf, size_t n)
{
	struct mem *m = ud;

	m->calls++;
	if (m->calls <= 64)
		m->chunk[m->calls - 1] = n;
	if (m->fail_call && m->calls == m->fail_call)
		return m->fail_rc;
	if (m->fail_call && m->calls > m->fail_call)
		return m->later_rc;
	if (m->len + n + 1 > m->cap) {
		m->cap = 2 * (m->len + n + 1);
		m->data = realloc(m->data, m->cap);
		CHECK(m->data);
	}
	memcpy(m->data + m->len, buf, n);
	m->len += n;
	m->data[m->len] = 0;
	return 0;
}

static struct dc_rawout *open_mem(struct mem *m)
{
	struct dc_rawout *o = malloc(sizeof *o);

	CHECK(o);
	memset(m, 0, sizeof *m);
	dc_rawout_init(o, (struct dc_sink){ mem_write, m });
	return o;
}

/* Finishes o, which must succeed, and checks the whole text. */
static void finish_expect(struct dc_rawout *o, struct mem *m, const char *want)
{
	CHECK_EQ(dc_rawout_finish(o), 0);
	CHECK_STREQ(m->len ? m->data : "", want);
	CHECK_EQ(m->len, strlen(want));
	free(o);
	free(m->data);
}

/* ---- records ---------------------------------------------------------- */

DC_TEST(rawout, header_and_end)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);

	CHECK_EQ(DC_RAW_VERSION, 10);
	dc_raw_header(o);
	dc_raw_end(o, true);
	dc_raw_end(o, false);
	finish_expect(o, &m, "dcprof-raw 10\nend 1\nend 0\n");
}

DC_TEST(rawout, meta)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);

	dc_raw_meta(o, "program", "/usr/bin/ls");
	/* Spaces and '%' escaped; the empty string is %-. */
	dc_raw_meta(o, "command", "ls -l 100%");
	dc_raw_meta(o, "exit_code", "");
	dc_raw_meta_u64(o, "pid", 12345);
	dc_raw_meta_u64(o, "Ir", 0);
	dc_raw_meta_u64(o, "big", UINT64_MAX);
	finish_expect(o, &m,
		      "meta program /usr/bin/ls\n"
		      "meta command ls%20-l%20100%25\n"
		      "meta exit_code %-\n"
		      "meta pid 12345\n"
		      "meta Ir 0\n"
		      "meta big 18446744073709551615\n");
}

/* level N NAME SIZE ASSOC LINE LATENCY, one per level, then memory. */
DC_TEST(rawout, hier)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_hier h = { 0 };

	h.nlevels = 3;
	h.lv[0] = (struct dc_level_cfg){ 32768, 8, 64, 4 };
	h.lv[1] = (struct dc_level_cfg){ 1048576, 16, 64, 14 };
	h.lv[2] = (struct dc_level_cfg){ 536870912, 2, 64, 40 };
	h.mem_latency = 200;
	dc_raw_hier(o, &h);
	h.nlevels = 4;
	h.lv[3] = (struct dc_level_cfg){ 1073741824, 16, 128, 80 };
	h.mem_latency = 0;
	dc_raw_hier(o, &h);
	finish_expect(o, &m,
		      "level 1 L1 32768 8 64 4\n"
		      "level 2 L2 1048576 16 64 14\n"
		      "level 3 L3 536870912 2 64 40\n"
		      "memory 200\n"
		      "level 1 L1 32768 8 64 4\n"
		      "level 2 L2 1048576 16 64 14\n"
		      "level 3 L3 536870912 2 64 40\n"
		      "level 4 L4 1073741824 16 128 80\n"
		      "memory 0\n");
}

DC_TEST(rawout, bucket_and_bstat)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);

	dc_raw_bucket(o, 0, "global", "table");
	dc_raw_bucket(o, 3, "heap", "main<make_list<xmalloc");
	dc_raw_bucket(o, 4, "user", "my buffer");
	dc_raw_bucket(o, 5, "unknown", "");
	dc_raw_bstat(o, 3, 10, 4, 4096, 40960, 16, 8192);
	dc_raw_bstat(o, 0, 1, 1, 0, 0, 0, UINT64_MAX);
	finish_expect(o, &m,
		      "bucket 0 global table\n"
		      "bucket 3 heap main<make_list<xmalloc\n"
		      "bucket 4 user my%20buffer\n"
		      "bucket 5 unknown %-\n"
		      "bstat 3 10 4 4096 40960 16 8192\n"
		      "bstat 0 1 1 0 0 0 18446744073709551615\n");
}

/* loc ID IP OBJECT FUNCTION FILE LINE INLINED OUTFN OUTFILE OUTLINE: the
 * IP in 0x hex; unknown strings (empty, or NULL from the engine) are %-;
 * INLINED (version 6) the function FUNCTION was inlined into, %- when not
 * inlined; OUTFN OUTFILE OUTLINE (version 10) the function the code was
 * compiled into and its line of the outermost inlined call, %- %- 0 when
 * not inlined. */
DC_TEST(rawout, loc)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_raw_outer out = { "main", "/src/my dir/prog.c", 4294967295u };

	dc_raw_loc(o, 7, 0x401a2f, "/usr/bin/prog", "main", "", "/src/prog.c", 42, NULL);
	dc_raw_loc(o, 0, 0, "", NULL, NULL, NULL, 0, NULL);
	dc_raw_loc(o, 8, 0xffffffffffffffffULL, "/lib/x 86/libc.so.6", "operator new(unsigned long)",
		   NULL, "/src/my dir/a.c", 4294967295u, NULL);
	dc_raw_loc(o, 9, 0x401b00, "/usr/bin/prog", "smvp", "main", "/src/prog.c", 7, &out);
	finish_expect(o, &m,
		      "loc 7 0x401a2f /usr/bin/prog main /src/prog.c 42 %- %- %- 0\n"
		      "loc 0 0x0 %- %- %- 0 %- %- %- 0\n"
		      "loc 8 0xffffffffffffffff /lib/x%2086/libc.so.6 "
		      "operator%20new(unsigned%20long) /src/my%20dir/a.c 4294967295 %- %- %- 0\n"
		      "loc 9 0x401b00 /usr/bin/prog smvp /src/prog.c 7 main main"
		      " /src/my%20dir/prog.c 4294967295\n");
}

/* cost BUCKET LOC THREAD DR DW M1R M1W ... MNR MNW LAT: as many miss
 * pairs as levels, nothing from the levels beyond. */
DC_TEST(rawout, cost)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_cost c = { 0 };

	c.loc = 5;
	c.bucket = 2;
	c.tid = 1;
	c.acc[0] = 10;
	c.acc[1] = 3;
	c.miss[0][0] = 4, c.miss[0][1] = 1;
	c.miss[1][0] = 2, c.miss[1][1] = 0;
	c.miss[2][0] = 1, c.miss[2][1] = 6;
	c.miss[3][0] = 99, c.miss[3][1] = 98;
	c.lat = 999;
	dc_raw_cost(o, &c, 3);
	dc_raw_cost(o, &c, 1);
	dc_raw_cost(o, &c, 4);
	finish_expect(o, &m,
		      "cost 2 5 1 10 3 4 1 2 0 1 6 999\n"
		      "cost 2 5 1 10 3 4 1 999\n"
		      "cost 2 5 1 10 3 4 1 2 0 1 6 99 98 999\n");
}

DC_TEST(rawout, block)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);

	dc_raw_block(o, 2, 0x7f0000001000ULL, 64, 5, 0);
	dc_raw_block(o, 0, 0, 0, 1, 2);
	dc_raw_bfree(o, 0x7f0000001000ULL, 9);
	finish_expect(o, &m,
		      "block 2 0x7f0000001000 64 5 0\nblock 0 0x0 0 1 2\nbfree 0x7f0000001000 9\n");
}

/* A dump in the documented order, as one text. */
DC_TEST(rawout, whole_dump)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_hier h = { 1, { { 1024, 2, 64, 4 } }, 200 };
	struct dc_cost c = { .loc = 0, .bucket = 0, .tid = 1, .acc = { 3, 1 },
			     .miss = { { 1, 1 } }, .lat = 408 };

	dc_raw_header(o);
	dc_raw_meta(o, "cache_source", "option");
	dc_raw_hier(o, &h);
	dc_raw_bucket(o, 0, "heap", "main");
	dc_raw_loc(o, 0, 0x1000, "/a", "f", NULL, "a.c", 3, NULL);
	dc_raw_block(o, 0, 0x5000, 16, 1, 2);
	dc_raw_bstat(o, 0, 1, 1, 16, 16, 16, 16);
	dc_raw_cost(o, &c, 1);
	dc_raw_end(o, true);
	finish_expect(o, &m,
		      "dcprof-raw 10\n"
		      "meta cache_source option\n"
		      "level 1 L1 1024 2 64 4\n"
		      "memory 200\n"
		      "bucket 0 heap main\n"
		      "loc 0 0x1000 /a f a.c 3 %- %- %- 0\n"
		      "block 0 0x5000 16 1 2\n"
		      "bstat 0 1 1 16 16 16 16\n"
		      "cost 0 0 1 3 1 1 1 408\n"
		      "end 1\n");
}

/* ---- escaping ----------------------------------------------------------- */

/* Every byte 0x01..0xff alone as a field: bytes <= 0x20, 0x25 and 0x7f
 * become %XX with upper-case hex digits, all others (UTF-8 lead and
 * continuation bytes included) are copied. */
DC_TEST(rawout, escapes_exactly_the_documented_bytes)
{
	static const char hex[] = "0123456789ABCDEF";

	for (int b = 1; b < 256; b++) {
		struct mem m;
		struct dc_rawout *o = open_mem(&m);
		char s[2] = { (char)b, 0 }, field[8], want[32];
		bool escaped = b <= 0x20 || b == 0x25 || b == 0x7f;

		if (escaped)
			snprintf(field, sizeof field, "%%%c%c", hex[b >> 4], hex[b & 15]);
		else
			snprintf(field, sizeof field, "%c", b);
		snprintf(want, sizeof want, "meta k %s\n", field);
		dc_raw_meta(o, "k", s);
		finish_expect(o, &m, want);
	}
}

/* Whole strings: "naïve — ok" passes through but for its spaces; the
 * empty string is "%-", and the data "%-" is not empty: its '%' is
 * escaped. */
DC_TEST(rawout, escape_strings)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);

	dc_raw_meta(o, "a", "a b\tc\nd%e\x7f" "f");
	dc_raw_meta(o, "u", "na\xc3\xafve \xe2\x80\x94 ok");
	dc_raw_meta(o, "e", "");
	dc_raw_meta(o, "p", "%-");
	finish_expect(o, &m,
		      "meta a a%20b%09c%0Ad%25e%7Ff\n"
		      "meta u na\xc3\xafve%20\xe2\x80\x94%20ok\n"
		      "meta e %-\n"
		      "meta p %25-\n");
}

/* ---- buffering and errors ------------------------------------------------ */

/* 10000 meta records are 138890 bytes (see below): two full 64 KiB
 * buffers (131072) and 7818 bytes more.
 * Before finish the sink has only seen whole 64 KiB buffers; after it, the
 * concatenation is exactly the records, in order. */
DC_TEST(rawout, buffers_across_64k)
{
	enum { N = 10000 };
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	size_t total = 0;
	char *want = malloc(N * 32), line[32];

	CHECK(want);
	want[0] = 0;
	for (int i = 0; i < N; i++) {
		dc_raw_meta_u64(o, "key", (uint64_t)i);
		int n = snprintf(line, sizeof line, "meta key %d\n", i);
		memcpy(want + total, line, (size_t)n + 1);
		total += (size_t)n;
	}
	/* "meta key " is 9 bytes, plus digits, plus newline: 10 * 11 +
	 * 90 * 12 + 900 * 13 + 9000 * 14 = 110 + 1080 + 11700 + 126000
	 * = 138890. */
	CHECK_EQ(total, 138890);
	/* Each write is the buffer, flushed early when a number (at most 21
	 * bytes) would not fit. */
	CHECK_EQ(m.calls, 2);
	CHECK(m.chunk[0] <= 65536 && m.chunk[0] > 65536 - 21);
	CHECK(m.chunk[1] <= 65536 && m.chunk[1] > 65536 - 21);
	CHECK_EQ(dc_rawout_finish(o), 0);
	CHECK_EQ(m.calls, 3);
	CHECK_EQ(m.chunk[0] + m.chunk[1] + m.chunk[2], total);
	CHECK_EQ(m.len, total);
	CHECK(memcmp(m.data, want, total) == 0);
	/* Nothing buffered: a second finish writes nothing. */
	CHECK_EQ(dc_rawout_finish(o), 0);
	CHECK_EQ(m.calls, 3);
	free(want);
	free(m.data);
	free(o);
}

/* A field longer than the buffer is split across writes intact. */
DC_TEST(rawout, long_field_crosses_buffers)
{
	enum { L = 150000 };
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	char *s = malloc(L + 1);

	CHECK(s);
	for (int i = 0; i < L; i++)
		s[i] = i % 1000 == 999 ? ' ' : (char)('a' + i % 26);
	s[L] = 0;
	dc_raw_bucket(o, 1, "user", s);
	CHECK_EQ(dc_rawout_finish(o), 0);
	/* "bucket 1 user " + 150 spaces grown to 3 bytes each + newline. */
	CHECK_EQ(m.len, 14 + L + 150 * 2 + 1);
	CHECK(m.calls >= 3);
	size_t k = 14;
	CHECK(memcmp(m.data, "bucket 1 user ", 14) == 0);
	for (int i = 0; i < L; i++) {
		if (s[i] == ' ') {
			CHECK(memcmp(m.data + k, "%20", 3) == 0);
			k += 3;
		} else {
			CHECK_EQ(m.data[k], s[i]);
			k++;
		}
	}
	CHECK_EQ(m.data[k], '\n');
	free(s);
	free(m.data);
	free(o);
}

/* The first failed write is remembered: later records are dropped without
 * calling the sink again, and finish reports that first error. */
DC_TEST(rawout, failing_sink_reports_eio)
{
	struct mem m;
	struct dc_rawout *o;

	/* Fails on the final flush. */
	o = open_mem(&m);
	m.fail_call = 1, m.fail_rc = DC_EIO, m.later_rc = DC_ENOMEM;
	dc_raw_header(o);
	CHECK_EQ(dc_rawout_finish(o), DC_EIO);
	CHECK_EQ(m.calls, 1);
	free(o);
	free(m.data);

	/* Fails on the first full buffer; the rest is never offered. */
	o = open_mem(&m);
	m.fail_call = 1, m.fail_rc = DC_EIO, m.later_rc = DC_ENOMEM;
	for (int i = 0; i < 20000; i++)
		dc_raw_meta_u64(o, "key", (uint64_t)i);
	CHECK_EQ(m.calls, 1);
	CHECK_EQ(dc_rawout_finish(o), DC_EIO);
	CHECK_EQ(m.calls, 1);
	CHECK_EQ(dc_rawout_finish(o), DC_EIO);
	free(o);
	free(m.data);

	/* Fails on the second write; later calls would report another
	 * error, which must not replace the first. */
	o = open_mem(&m);
	m.fail_call = 2, m.fail_rc = DC_EIO, m.later_rc = DC_ERANGE;
	for (int i = 0; i < 20000; i++)
		dc_raw_meta_u64(o, "key", (uint64_t)i);
	CHECK_EQ(dc_rawout_finish(o), DC_EIO);
	CHECK_EQ(m.calls, 2);
	/* the first write is the buffer, flushed early when a number (at most
	 * 21 bytes) would not fit */
	CHECK(m.len <= 65536 && m.len > 65536 - 21);
	free(o);
	free(m.data);

	/* A sink that never fails and an empty dump. */
	o = open_mem(&m);
	CHECK_EQ(dc_rawout_finish(o), 0);
	CHECK_EQ(m.calls, 0);
	free(o);
	free(m.data);
}

/* The version-2 records, field by field as docs/raw-dump.md lists them. */
DC_TEST(rawout, sampling_and_eviction_records)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_cost c;
	struct dc_evict e = { 2, 7, 9, 11, 12345 };

	memset(&c, 0, sizeof c);
	c.bucket = 3;
	c.loc = 4;
	c.tid = 1;
	c.acc[0] = 10000;
	c.miss[0][0] = 10000;
	c.lat = 140000;
	dc_raw_scost(o, &c, 2);
	dc_raw_evict(o, &e, false);
	dc_raw_evict(o, &e, true);
	dc_raw_fill(o, 1, 100, 40, 60);
	dc_raw_resid(o, 5, 2, 1500);
	finish_expect(o, &m,
		      "scost 3 4 1 10000 0 10000 0 0 0 140000\n"
		      "evict 2 7 9 11 12345\n"
		      "sevict 2 7 9 11 12345\n"
		      "fill 1 100 40 60\n"
		      "resid 5 2 1500\n");
}

/* The reuse records (version 3, with version 4's sums and sampled ones),
 * field by field as docs/raw-dump.md lists. */
DC_TEST(rawout, reuse_records)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);

	dc_raw_rhist(o, "stack", 3, 2, 40, 100);
	dc_raw_rhist(o, "time", 3, 5, 7, 0x7fffffffffffffffULL);
	dc_raw_rhist(o, "sampled", 3, 5, 700, 15000);
	dc_raw_rfirst(o, 3, 4);
	dc_raw_runseen(o, 3, 200);
	dc_raw_rpair(o, 10, 11, 4, 12, 16);
	finish_expect(o, &m,
		      "rhist stack 3 2 40 100\n"
		      "rhist time 3 5 7 9223372036854775807\n"
		      "rhist sampled 3 5 700 15000\n"
		      "rfirst 3 4\n"
		      "runseen 3 200\n"
		      "rpair 10 11 4 12 16\n");
}

/* The cache-use record (version 4; EVICTED version 5): one per level with
 * a charge, levels without any are left out; a level whose lines were all
 * used often (SpLoss and AcCost 0) but evicted has one.  EVICTED is "-"
 * when evictions were not counted. */
DC_TEST(rawout, use_records)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_cost c;

	memset(&c, 0, sizeof c);
	c.bucket = 3;
	c.loc = 4;
	c.tid = 2;
	c.sploss[0] = 4480;
	c.accost[0] = 125000;
	c.evicted[0] = 70;
	c.accost[2] = 1000;
	dc_raw_use(o, &c, 3, true);
	c.accost[2] = 0;
	c.evicted[2] = 1;
	dc_raw_use(o, &c, 3, true);
	c.evicted[2] = 0;
	dc_raw_use(o, &c, 3, false);
	finish_expect(o, &m,
		      "use 1 3 4 2 4480 125000 70\n"
		      "use 3 3 4 2 0 1000 0\n"
		      "use 1 3 4 2 4480 125000 70\n"
		      "use 3 3 4 2 0 0 1\n"
		      "use 1 3 4 2 4480 125000 -\n");
}

/* Version 4: a window's start, its records (class letter c/s/i, hex
 * address; window and time implicit), its period, reference footprints,
 * functions (escaped), and the trace file's header and lines. */
DC_TEST(rawout, trace_records)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_trace_rec r = { 1234, 0x601040, 0x401a2f, 3, 7, 2, 5, DC_TC_STRIDED };

	dc_raw_twin(o, 3, 1200);
	dc_raw_trec(o, &r);
	r.cls = DC_TC_CONST;
	dc_raw_trec(o, &r);
	r.cls = DC_TC_IRREG;
	dc_raw_trec(o, &r);
	dc_raw_tper(o, 3, 99000);
	dc_raw_tref(o, 3, 10, 4, 6);
	dc_raw_tfn(o, "operator new(unsigned long)", 1, 2, 3, 4, 5);
	dc_raw_tfn(o, "", 0, 1, 0, 0, 0);
	dc_trace_file_header(o, 1000, 100000, 64);
	dc_trace_file_rec(o, &r);
	finish_expect(o, &m,
		      "twin 3 1200\n"
		      "trec 7 2 0x601040 s 5\n"
		      "trec 7 2 0x601040 c 5\n"
		      "trec 7 2 0x601040 i 5\n"
		      "tper 3 99000\n"
		      "tref 3 10 4 6\n"
		      "tfn operator%20new(unsigned%20long) 1 2 3 4 5\n"
		      "tfn %- 0 1 0 0 0\n"
		      "dcprof-trace 1\nwindow 1000\nperiod 100000\nblock 64\n"
		      "a 3 1234 0x401a2f 0x601040 i 5\n");
}

/* Numbers at the end of the buffer: a field never straddles a flush
 * wrongly (the buffer holds 64 KiB; 3,000 records of 27 bytes cross it). */
DC_TEST(rawout, records_across_flushes)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_trace_rec r = { 0, 0xffffffffffffffffULL, 0, 0, 4294967295u, 9, 0,
				  DC_TC_IRREG };
	size_t n = 3000, len = strlen("trec 4294967295 9 0xffffffffffffffff i 0\n");

	for (size_t i = 0; i < n; i++)
		dc_raw_trec(o, &r);
	CHECK_EQ(dc_rawout_finish(o), 0);
	CHECK_EQ(m.len, n * len);
	for (size_t i = 0; i < n; i++)
		CHECK(!memcmp(m.data + i * len, "trec 4294967295 9 0xffffffffffffffff i 0\n", len));
	free(o);
	free(m.data);
}

/* Version 7: an offset cell (OFFSET "-" for beyond; one miss count per
 * level) and a bucket's type (a string field, escaped). */
DC_TEST(rawout, off_and_btype)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	struct dc_offcell c = { .bucket = 3, .off = 8, .size = 16, .acc = { 5, 2 },
				.miss = { 4, 1 }, .lat = 900 };

	dc_raw_off(o, &c, 2);
	c.off = DC_OFF_BEYOND;
	dc_raw_off(o, &c, 1);
	dc_raw_btype(o, 3, "struct node");
	finish_expect(o, &m, "off 3 8 16 5 2 4 1 900\noff 3 - 16 5 2 4 900\n"
			     "btype 3 struct%20node\n");
}

/* Version 8: an IP-only sample count, ipsamp LOC THREAD COUNT. */
DC_TEST(rawout, ipsamp)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);

	dc_raw_ipsamp(o, 7, 1, 30000);
	dc_raw_ipsamp(o, 0, 4294967295u, 18446744073709551615ull);
	finish_expect(o, &m, "ipsamp 7 1 30000\nipsamp 0 4294967295 18446744073709551615\n");
}

/* Version 8: unused bytes of a range of offsets, one count per level;
 * "- -" for the beyond bytes. */
DC_TEST(rawout, offu)
{
	struct mem m;
	struct dc_rawout *o = open_mem(&m);
	const uint64_t u[2] = { 9, 1 };

	dc_raw_offu(o, 3, 16, 64, u, 2);
	dc_raw_offu(o, 3, DC_OFF_BEYOND, DC_OFF_BEYOND, u, 1);
	finish_expect(o, &m, "offu 3 16 64 9 1\noffu 3 - - 9\n");
}
