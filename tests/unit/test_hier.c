/* test_hier.c — hierarchy specs, latencies, the host plausibility rules and
 * Cachegrind's configuration (every rule of hier.c's Notes).
 *
 * "This host" is the build machine as Valgrind 3.19 describes it: L1d 48K
 * 12-way, L1i 32K 8-way, L2 1M 8-way, L3 532676608 B (508 MiB) direct-mapped,
 * all with 64-byte lines.  Cachegrind on it says "specified LL cache:
 * line_size 64 assoc 1 total_size 532,676,608 / simulated LL cache:
 * line_size 64 assoc 2 total_size 536,870,912". */
#include <stdio.h>
#include <string.h>

#include "core/hier.h"
#include "unit.h"

static void check_level(const struct dc_level_cfg *l, uint64_t size, uint32_t assoc,
			uint32_t line, uint32_t latency)
{
	CHECK_EQ(l->size, size);
	CHECK_EQ(l->assoc, assoc);
	CHECK_EQ(l->line, line);
	CHECK_EQ(l->latency, latency);
}

/* An error message is one non-empty line without a trailing period. */
static void check_message(const char *err)
{
	size_t n = strlen(err);

	CHECK(n > 0);
	CHECK(strchr(err, '\n') == NULL);
	CHECK(err[n - 1] != '.');
}

static bool same_hier(const struct dc_hier *a, const struct dc_hier *b)
{
	if (a->nlevels != b->nlevels || a->mem_latency != b->mem_latency)
		return false;
	for (int k = 0; k < a->nlevels; k++)
		if (a->lv[k].size != b->lv[k].size || a->lv[k].assoc != b->lv[k].assoc ||
		    a->lv[k].line != b->lv[k].line || a->lv[k].latency != b->lv[k].latency)
			return false;
	return true;
}

/* Parses a spec that must fail with rc and a message equal to msg (or, if
 * msg is NULL, any one-line message); h must stay as it was. */
static void bad_spec(const char *spec, int rc, const char *msg)
{
	struct dc_hier h, before;
	char err[200];

	dc_hier_typical(&h);
	before = h;
	err[0] = 0;
	int got = dc_hier_parse_cache(&h, spec, err, sizeof err);
	if (got != rc)
		dc_unit_fail(__FILE__, __LINE__, "spec '%s': rc %d, want %d (%s)", spec, got, rc,
			     err);
	check_message(err);
	if (msg)
		CHECK_STREQ(err, msg);
	CHECK(same_hier(&h, &before));
}

/* ---- defaults ------------------------------------------------------------ */

DC_TEST(hier, default_latencies)
{
	CHECK_EQ(dc_hier_default_latency(1), 4);
	CHECK_EQ(dc_hier_default_latency(2), 14);
	CHECK_EQ(dc_hier_default_latency(3), 40);
	CHECK_EQ(dc_hier_default_latency(4), 80);
	CHECK_EQ(DC_DEFAULT_MEM_LATENCY, 200);
	/* Beyond the last level is memory. */
	CHECK_EQ(dc_hier_default_latency(5), 200);
	CHECK_EQ(dc_hier_default_latency(0), 200);
}

DC_TEST(hier, typical)
{
	struct dc_hier h;
	char err[100];

	dc_hier_typical(&h);
	CHECK_EQ(h.nlevels, 3);
	check_level(&h.lv[0], 32 << 10, 8, 64, 4);
	check_level(&h.lv[1], 1 << 20, 16, 64, 14);
	check_level(&h.lv[2], 32 << 20, 16, 64, 40);
	CHECK_EQ(h.mem_latency, 200);
	for (int k = 0; k < 3; k++)
		CHECK_EQ(dc_level_check(&h.lv[k], err, sizeof err), 0);
}

/* ---- --cache specs ------------------------------------------------------- */

DC_TEST(hier, parse_valid_specs)
{
	struct dc_hier h;
	char err[200];

	CHECK_EQ(dc_hier_parse_cache(&h, "L1=32K:8:64", err, sizeof err), 0);
	CHECK_EQ(h.nlevels, 1);
	check_level(&h.lv[0], 32768, 8, 64, 4);
	CHECK_EQ(h.mem_latency, 200);

	/* K, M, G are powers of 1024: 2^15, 2^20, 2^30. */
	CHECK_EQ(dc_hier_parse_cache(&h, "L1=32K:8:64,L2=1M:16:64,L3=1G:16:128", err,
				     sizeof err), 0);
	CHECK_EQ(h.nlevels, 3);
	check_level(&h.lv[0], 32768, 8, 64, 4);
	check_level(&h.lv[1], 1048576, 16, 64, 14);
	check_level(&h.lv[2], 1073741824, 16, 128, 40);
	CHECK_EQ(h.mem_latency, 200);

	/* Four levels, the maximum; each gets its default latency. */
	CHECK_EQ(dc_hier_parse_cache(&h, "L1=32K:8:64,L2=256K:8:64,L3=8M:16:64,L4=64M:16:64",
				     err, sizeof err), 0);
	CHECK_EQ(h.nlevels, 4);
	check_level(&h.lv[3], 64 << 20, 16, 64, 80);

	/* No suffix is bytes; lower-case suffixes are accepted. */
	CHECK_EQ(dc_hier_parse_cache(&h, "L1=4096:4:64,L2=64k:8:32", err, sizeof err), 0);
	check_level(&h.lv[0], 4096, 4, 64, 4);
	check_level(&h.lv[1], 65536, 8, 32, 14);

	/* Direct-mapped, fully associative (one set) and the smallest line. */
	CHECK_EQ(dc_hier_parse_cache(&h, "L1=1K:1:16,L2=4K:64:64", err, sizeof err), 0);
	check_level(&h.lv[0], 1024, 1, 16, 4);
	check_level(&h.lv[1], 4096, 64, 64, 14);

	/* This host's L1d: 48K / (12 * 64) = 64 sets, a power of two. */
	CHECK_EQ(dc_hier_parse_cache(&h, "L1=48K:12:64", err, sizeof err), 0);
	check_level(&h.lv[0], 49152, 12, 64, 4);
}

DC_TEST(hier, parse_rejects_bad_order)
{
	bad_spec("L2=1M:16:64", DC_EINVAL, "levels must be given in order; expected L1, got L2");
	bad_spec("L1=32K:8:64,L3=32M:16:64", DC_EINVAL,
		 "levels must be given in order; expected L2, got L3");
	bad_spec("L1=32K:8:64,L1=32K:8:64", DC_EINVAL,
		 "levels must be given in order; expected L2, got L1");
	bad_spec("L2=1M:16:64,L1=32K:8:64", DC_EINVAL, NULL);
}

DC_TEST(hier, parse_rejects_bad_geometry)
{
	/* Line sizes: 48 is not a power of two, 8 is below 16. */
	bad_spec("L1=32K:8:48", DC_EINVAL, "L1: line size 48 is not a power of two >= 16");
	bad_spec("L1=32K:8:8", DC_EINVAL, "L1: line size 8 is not a power of two >= 16");
	bad_spec("L1=32K:0:64", DC_EINVAL, "L1: associativity must be at least 1");
	/* 1K of 64-byte lines is 16 lines, fewer than 32 ways. */
	bad_spec("L1=1K:32:64", DC_EINVAL, "L1: associativity 32 exceeds the number of lines");
	bad_spec("L1=64:1:64", DC_EINVAL, "L1: size 64 must be larger than the line size");
	/* 1000 is not a multiple of 2 * 64. */
	bad_spec("L1=1000:2:64", DC_EINVAL,
		 "L1: size 1000 is not a multiple of associativity x line size");
	/* 128G / 64 = 2^31 sets, above the model's 2^30. */
	bad_spec("L1=128G:1:64", DC_ERANGE, "L1: too many sets (2147483648)");
}

/* Five levels is one more than DC_MAX_LEVELS; the parser reports it as out
 * of the model's range. */
DC_TEST(hier, parse_rejects_more_than_four_levels)
{
	bad_spec("L1=32K:8:64,L2=256K:8:64,L3=8M:16:64,L4=64M:16:64,L5=256M:16:64", DC_ERANGE,
		 "at most 4 cache levels are supported");
}

DC_TEST(hier, parse_rejects_bad_syntax)
{
	bad_spec("", DC_EINVAL, "empty cache specification");
	bad_spec("L1=32K:8:64x", DC_EINVAL, "L1: expected SIZE:ASSOC:LINE such as 32K:8:64");
	bad_spec("L1=32K:8:64 ", DC_EINVAL, NULL);
	bad_spec("L1=32KB:8:64", DC_EINVAL, NULL);
	bad_spec("L1=32X:8:64", DC_EINVAL, NULL);
	bad_spec("L1=32K:8", DC_EINVAL, "L1: expected SIZE:ASSOC:LINE such as 32K:8:64");
	bad_spec("L1=32K:8:64:1", DC_EINVAL, NULL);
	bad_spec("L1=:8:64", DC_EINVAL, NULL);
	bad_spec("L1=-32K:8:64", DC_EINVAL, NULL);
	bad_spec("L1=32K:8K:64,", DC_EINVAL, NULL);
	/* A trailing comma announces a level that is not there. */
	bad_spec("L1=32K:8:64,", DC_EINVAL, "expected 'L2=SIZE:ASSOC:LINE' at ''");
	bad_spec("32K:8:64", DC_EINVAL, "expected 'L1=SIZE:ASSOC:LINE' at '32K:8:64'");
	bad_spec("MEM=200", DC_EINVAL, NULL);
	bad_spec("L0=32K:8:64", DC_EINVAL, NULL);
	/* Digits beyond 2^64 and suffixes overflowing it. */
	bad_spec("L1=99999999999999999999:8:64", DC_EINVAL, NULL);
	bad_spec("L1=17179869184G:8:64", DC_EINVAL, NULL);
	bad_spec("L1=32K:4294967296:64", DC_ERANGE, "L1: value too large");
}

/* hier.h promises a one-line reason, also when the rejected spec itself
 * contains a line break: the parsers quote the unparsed rest of the spec
 * ("... at '%s'"), so a control character in it must not reach err
 * verbatim. */
DC_TEST(hier, parse_error_is_one_line_for_any_input)
{
	struct dc_hier h;
	char err[200];

	dc_hier_typical(&h);
	CHECK_EQ(dc_hier_parse_cache(&h, "L1=32K:8:64,\nL2=1M:16:64", err, sizeof err),
		 DC_EINVAL);
	check_message(err);
	CHECK_EQ(dc_hier_parse_cache(&h, "\nL1=32K:8:64", err, sizeof err), DC_EINVAL);
	check_message(err);
	CHECK_EQ(dc_hier_parse_latency(&h, "L1=4,\r\nMEM=9", err, sizeof err), DC_EINVAL);
	CHECK(strchr(err, '\r') == NULL);
	check_message(err);
}

/* A short buffer gets a truncated, terminated message. */
DC_TEST(hier, parse_error_fits_small_buffer)
{
	struct dc_hier h;
	char err[12];

	memset(err, 'Z', sizeof err);
	CHECK_EQ(dc_hier_parse_cache(&h, "", err, 8), DC_EINVAL);
	CHECK_STREQ(err, "empty c");
	CHECK_EQ(err[8], 'Z');
}

/* ---- --latency specs ------------------------------------------------------ */

DC_TEST(hier, parse_latency)
{
	struct dc_hier h, before;
	char err[200];

	CHECK_EQ(dc_hier_parse_cache(&h, "L1=32K:8:64,L2=1M:16:64,L3=32M:16:64", err,
				     sizeof err), 0);
	/* Named keys change, unnamed ones keep their defaults. */
	CHECK_EQ(dc_hier_parse_latency(&h, "L1=5,MEM=300", err, sizeof err), 0);
	CHECK_EQ(h.lv[0].latency, 5);
	CHECK_EQ(h.lv[1].latency, 14);
	CHECK_EQ(h.lv[2].latency, 40);
	CHECK_EQ(h.mem_latency, 300);
	/* A second spec applies on top of the first; order is free. */
	CHECK_EQ(dc_hier_parse_latency(&h, "L3=33,L2=0,mem=1000000", err, sizeof err), 0);
	CHECK_EQ(h.lv[0].latency, 5);
	CHECK_EQ(h.lv[1].latency, 0);
	CHECK_EQ(h.lv[2].latency, 33);
	CHECK_EQ(h.mem_latency, 1000000);
	/* Geometry is untouched. */
	check_level(&h.lv[0], 32768, 8, 64, 5);

	before = h;
	CHECK_EQ(dc_hier_parse_latency(&h, "L4=10", err, sizeof err), DC_EINVAL);
	CHECK_STREQ(err, "latency given for L4 but the hierarchy has 3 levels");
	check_message(err);
	CHECK_EQ(dc_hier_parse_latency(&h, "", err, sizeof err), DC_EINVAL);
	CHECK_STREQ(err, "empty latency specification");
	CHECK_EQ(dc_hier_parse_latency(&h, "X=1", err, sizeof err), DC_EINVAL);
	check_message(err);
	CHECK_EQ(dc_hier_parse_latency(&h, "L1=", err, sizeof err), DC_EINVAL);
	CHECK_STREQ(err, "expected a number of cycles after '='");
	CHECK_EQ(dc_hier_parse_latency(&h, "MEM=abc", err, sizeof err), DC_EINVAL);
	CHECK_EQ(dc_hier_parse_latency(&h, "L1=5,", err, sizeof err), DC_EINVAL);
	CHECK_EQ(dc_hier_parse_latency(&h, "L1=5K", err, sizeof err), DC_EINVAL);
	CHECK_EQ(dc_hier_parse_latency(&h, "L0=5", err, sizeof err), DC_EINVAL);
	CHECK_EQ(dc_hier_parse_latency(&h, "L1=1000001", err, sizeof err), DC_ERANGE);
	check_message(err);
	/* A failure part-way leaves the earlier keys unapplied. */
	CHECK_EQ(dc_hier_parse_latency(&h, "L1=7,MEM=9,L9=1", err, sizeof err), DC_EINVAL);
	CHECK(same_hier(&h, &before));

	CHECK_EQ(dc_hier_parse_cache(&h, "L1=32K:8:64", err, sizeof err), 0);
	CHECK_EQ(dc_hier_parse_latency(&h, "L2=10", err, sizeof err), DC_EINVAL);
	CHECK_STREQ(err, "latency given for L2 but the hierarchy has 1 level");
}

/* ---- dc_level_check --------------------------------------------------------- */

DC_TEST(hier, level_check)
{
	char err[100];
	struct dc_level_cfg ok = { 32768, 8, 64, 4 };
	struct dc_level_cfg l;

	CHECK_EQ(dc_level_check(&ok, err, sizeof err), 0);
	l = ok, l.line = 0;
	CHECK_EQ(dc_level_check(&l, err, sizeof err), DC_EINVAL);
	l = ok, l.line = 24;
	CHECK_EQ(dc_level_check(&l, err, sizeof err), DC_EINVAL);
	l = ok, l.line = 16;
	CHECK_EQ(dc_level_check(&l, err, sizeof err), 0);
	l = ok, l.assoc = 0;
	CHECK_EQ(dc_level_check(&l, err, sizeof err), DC_EINVAL);
	/* assoc == size/line: one set, fully associative. */
	l = ok, l.assoc = 512;
	CHECK_EQ(dc_level_check(&l, err, sizeof err), 0);
	l = ok, l.assoc = 1024;
	CHECK_EQ(dc_level_check(&l, err, sizeof err), DC_EINVAL);
	/* size == line is not larger than the line. */
	l = ok, l.size = 64, l.assoc = 1;
	CHECK_EQ(dc_level_check(&l, err, sizeof err), DC_EINVAL);
	/* Set counts need not be powers of two: a 532676608 B direct-mapped
	 * L3 has 8323072 sets = 2^23 - 2^16, a 30 MiB 20-way one 24576. */
	struct dc_level_cfg l3 = { 532676608, 1, 64, 40 };
	CHECK_EQ(dc_level_check(&l3, err, sizeof err), 0);
	l3.size = 30 << 20, l3.assoc = 20;
	CHECK_EQ(dc_level_check(&l3, err, sizeof err), 0);
}

/* Sets that are not a power of two parse (they were refused before):
 * 48K / (12 * 64) = 64 sets but 48K / (8 * 64) = 96; 30M / (20 * 64) =
 * 24576; 3M / (16 * 64) = 3072. */
DC_TEST(hier, parse_accepts_any_set_count)
{
	struct dc_hier h;
	char err[160];

	CHECK_EQ(dc_hier_parse_cache(&h, "L1=48K:8:64,L2=3M:16:64,L3=30M:20:64", err, sizeof err),
		 0);
	CHECK_EQ(h.nlevels, 3);
	CHECK_EQ(h.lv[2].size, 30 << 20);
	CHECK_EQ(h.lv[2].assoc, 20);
}

/* ---- hierarchy from the host ------------------------------------------------- */

static const struct dc_host_cache this_host[] = {
	{ 1, DC_HOST_DATA, 48 << 10, 12, 64 },
	{ 1, DC_HOST_INSN, 32 << 10, 8, 64 },
	{ 2, DC_HOST_UNIFIED, 1 << 20, 8, 64 },
	{ 3, DC_HOST_UNIFIED, 532676608, 1, 64 },
};

static const struct dc_host_cache plausible_host[] = {
	{ 1, DC_HOST_INSN, 32 << 10, 8, 64 },
	{ 1, DC_HOST_DATA, 32 << 10, 8, 64 },
	{ 2, DC_HOST_UNIFIED, 1 << 20, 16, 64 },
	{ 3, DC_HOST_UNIFIED, 32 << 20, 16, 64 },
};

static bool is_typical(const struct dc_hier *h)
{
	struct dc_hier t;

	dc_hier_typical(&t);
	return same_hier(h, &t);
}

/* A common server L3, 30 MiB and 20 ways (24,576 sets), is the host's own
 * level, no longer replaced by the typical hierarchy. */
DC_TEST(hier, from_host_keeps_l3_with_sets_not_a_power_of_two)
{
	static const struct dc_host_cache server[] = {
		{ 1, DC_HOST_DATA, 32 << 10, 8, 64 },
		{ 1, DC_HOST_INSN, 32 << 10, 8, 64 },
		{ 2, DC_HOST_UNIFIED, 1 << 20, 16, 64 },
		{ 3, DC_HOST_UNIFIED, 30 << 20, 20, 64 },
	};
	struct dc_hier h;
	char why[256];

	CHECK_EQ(dc_hier_from_host(&h, server, 4, why, sizeof why), 1);
	CHECK_EQ(h.nlevels, 3);
	check_level(&h.lv[2], 30 << 20, 20, 64, 40);
	CHECK_STREQ(why, "the host's caches (CPUID)");
}

DC_TEST(hier, from_host_uses_plausible_host)
{
	struct dc_hier h;
	char why[256];

	CHECK_EQ(dc_hier_from_host(&h, plausible_host, 4, why, sizeof why), 1);
	CHECK_EQ(h.nlevels, 3);
	check_level(&h.lv[0], 32 << 10, 8, 64, 4);
	check_level(&h.lv[1], 1 << 20, 16, 64, 14);
	check_level(&h.lv[2], 32 << 20, 16, 64, 40);
	CHECK_EQ(h.mem_latency, 200);
	CHECK_STREQ(why, "the host's caches (CPUID)");

	/* A unified L1 stands in for a missing data cache; two levels. */
	struct dc_host_cache two[] = {
		{ 1, DC_HOST_UNIFIED, 64 << 10, 4, 64 },
		{ 2, DC_HOST_UNIFIED, 2 << 20, 8, 128 },
	};
	CHECK_EQ(dc_hier_from_host(&h, two, 2, why, sizeof why), 1);
	CHECK_EQ(h.nlevels, 2);
	check_level(&h.lv[0], 64 << 10, 4, 64, 4);
	check_level(&h.lv[1], 2 << 20, 8, 128, 14);

	/* The limits themselves are plausible: L1 8K and 256K, a 256 MiB
	 * level, lines of 32 and 256, 2 ways. */
	struct dc_host_cache edge[] = {
		{ 1, DC_HOST_DATA, 8 << 10, 2, 32 },
		{ 2, DC_HOST_UNIFIED, 256 << 10, 4, 256 },
		{ 3, DC_HOST_UNIFIED, 256 << 20, 16, 64 },
	};
	CHECK_EQ(dc_hier_from_host(&h, edge, 3, why, sizeof why), 1);
	CHECK_EQ(h.nlevels, 3);
	check_level(&h.lv[2], 256 << 20, 16, 64, 40);
}

/* This host's L3, 508 MiB direct-mapped, is implausible (above 256 MiB,
 * one way), so the typical hierarchy is used and the reason names L3. */
DC_TEST(hier, from_host_this_machine_gets_typical)
{
	struct dc_hier h;
	char why[256];

	memset(&h, 0xff, sizeof h);
	CHECK_EQ(dc_hier_from_host(&h, this_host, 4, why, sizeof why), 0);
	CHECK(is_typical(&h));
	CHECK_STREQ(why, "host L3 (532676608 B, 1-way, 64 B lines) is implausible; "
			 "using the typical hierarchy");
	check_message(why);
}

/* Each implausibility rule on its own, everything else as plausible_host:
 * the typical hierarchy and a reason naming the level. */
static void implausible(const struct dc_host_cache *c, int n, const char *level)
{
	struct dc_hier h;
	char why[256];

	CHECK_EQ(dc_hier_from_host(&h, c, n, why, sizeof why), 0);
	CHECK(is_typical(&h));
	check_message(why);
	if (!strstr(why, level) || !strstr(why, "; using the typical hierarchy"))
		dc_unit_fail(__FILE__, __LINE__, "reason '%s' does not name %s", why, level);
}

DC_TEST(hier, from_host_rejects_implausible_levels)
{
	struct dc_host_cache c[4];

#define WITH(i, field, v)                                                       \
	do {                                                                    \
		memcpy(c, plausible_host, sizeof c);                            \
		c[i].field = v;                                                 \
	} while (0)
	/* L1 line 16: simulatable, but outside 32..256. */
	WITH(1, line, 16);
	implausible(c, 4, "host L1 (32768 B, 8-way, 16 B lines) is implausible");
	/* L2 line 512 (1M / (16 * 512) = 128 sets). */
	WITH(2, line, 512);
	implausible(c, 4, "host L2");
	/* Direct-mapped L1 (32K / 64 = 512 sets). */
	WITH(1, assoc, 1);
	implausible(c, 4, "host L1");
	/* L1 of 4K and of 512K. */
	WITH(1, size, 4 << 10);
	implausible(c, 4, "host L1");
	WITH(1, size, 512 << 10);
	implausible(c, 4, "host L1");
	/* An L3 of 512 MiB (32768 sets): above 256 MiB. */
	WITH(3, size, 512 << 20);
	implausible(c, 4, "host L3 (536870912 B, 16-way, 64 B lines) is implausible");
	/* L2 not larger than L1 (32K both), and L3 equal to L2. */
	WITH(2, size, 32 << 10);
	implausible(c, 4, "host L2");
	WITH(3, size, 1 << 20);
	implausible(c, 4, "host L3");
	/* Not simulatable: 48-byte lines. */
	WITH(2, line, 48);
	implausible(c, 4, "host L2 (1048576 B, 16-way, 48 B lines) cannot be simulated");
#undef WITH
}

DC_TEST(hier, from_host_missing_levels)
{
	struct dc_hier h;
	char why[256];

	CHECK_EQ(dc_hier_from_host(&h, NULL, 0, why, sizeof why), 0);
	CHECK(is_typical(&h));
	CHECK_STREQ(why, "the host describes no caches; using the typical hierarchy");

	/* L1d and L3 but no L2. */
	struct dc_host_cache gap[] = {
		{ 1, DC_HOST_DATA, 32 << 10, 8, 64 },
		{ 3, DC_HOST_UNIFIED, 32 << 20, 16, 64 },
	};
	CHECK_EQ(dc_hier_from_host(&h, gap, 2, why, sizeof why), 0);
	CHECK(is_typical(&h));
	CHECK_STREQ(why, "the host describes no data cache at L2; using the typical hierarchy");

	/* Only an instruction cache at L1. */
	struct dc_host_cache insn[] = {
		{ 1, DC_HOST_INSN, 32 << 10, 8, 64 },
		{ 2, DC_HOST_UNIFIED, 1 << 20, 16, 64 },
	};
	CHECK_EQ(dc_hier_from_host(&h, insn, 2, why, sizeof why), 0);
	CHECK_STREQ(why, "the host describes no data cache at L1; using the typical hierarchy");

	/* Five levels are more than the model has. */
	struct dc_host_cache five[] = {
		{ 1, DC_HOST_DATA, 32 << 10, 8, 64 },
		{ 2, DC_HOST_UNIFIED, 1 << 20, 16, 64 },
		{ 3, DC_HOST_UNIFIED, 8 << 20, 16, 64 },
		{ 4, DC_HOST_UNIFIED, 64 << 20, 16, 64 },
		{ 5, DC_HOST_UNIFIED, 128 << 20, 16, 64 },
	};
	CHECK_EQ(dc_hier_from_host(&h, five, 5, why, sizeof why), 0);
	CHECK(is_typical(&h));
	CHECK_STREQ(why, "the host describes 5 cache levels; using the typical hierarchy");
}

/* ---- Cachegrind compatibility -------------------------------------------------- */

/* LL = host L3: 8323072 sets of 1 way.  cg-arch.c rounds the set count down
 * to 2^22 = 4194304; factor = 8323072 / 4194304 = 1.984375, assoc =
 * (int)(0.5 + 1.984375 * 1) = 2, size = 64 * 2 * 4194304 = 536870912 —
 * the "simulated LL cache" Cachegrind 3.19 prints on this host. */
DC_TEST(hier, cachegrind_this_machine)
{
	struct dc_hier h;
	struct dc_level_cfg i1;
	char why[256];

	CHECK_EQ(dc_hier_cachegrind(&h, &i1, this_host, 4, why, sizeof why), 0);
	CHECK_EQ(h.nlevels, 2);
	CHECK_EQ(i1.size, 32768);
	CHECK_EQ(i1.assoc, 8);
	CHECK_EQ(i1.line, 64);
	check_level(&h.lv[0], 49152, 12, 64, 4);
	check_level(&h.lv[1], 536870912, 2, 64, 14);
	CHECK_EQ(h.mem_latency, 200);
	CHECK(strstr(why, "L3") != NULL);
	check_message(why);
}

/* A 12 MiB 16-way L3 (common on Intel): 12582912 / (16 * 64) = 12288 sets
 * -> 8192, factor 1.5, assoc 24, size 64 * 24 * 8192 = 12582912. */
DC_TEST(hier, cachegrind_intel_12m)
{
	struct dc_host_cache c[] = {
		{ 1, DC_HOST_DATA, 32 << 10, 8, 64 },
		{ 1, DC_HOST_INSN, 32 << 10, 8, 64 },
		{ 2, DC_HOST_UNIFIED, 256 << 10, 4, 64 },
		{ 3, DC_HOST_UNIFIED, 12 << 20, 16, 64 },
	};
	struct dc_hier h;
	struct dc_level_cfg i1;
	char why[256];

	CHECK_EQ(dc_hier_cachegrind(&h, &i1, c, 4, why, sizeof why), 0);
	check_level(&h.lv[0], 32768, 8, 64, 4);
	check_level(&h.lv[1], 12582912, 24, 64, 14);

	/* A power-of-two LL is used as it is: 32M / (16 * 64) = 32768 sets. */
	c[3].size = 32 << 20;
	CHECK_EQ(dc_hier_cachegrind(&h, &i1, c, 4, why, sizeof why), 0);
	check_level(&h.lv[1], 32 << 20, 16, 64, 14);

	/* Rounding to nearest, half up: 640K / (2 * 64) = 5120 sets -> 4096,
	 * factor 1.25, 0.5 + 2.5 = 3.0 -> 3 ways, 64 * 3 * 4096 = 786432. */
	c[3].size = 640 << 10;
	c[3].assoc = 2;
	CHECK_EQ(dc_hier_cachegrind(&h, &i1, c, 4, why, sizeof why), 0);
	check_level(&h.lv[1], 786432, 3, 64, 14);

	/* Down: 704K / (2 * 64) = 5632 sets -> 4096, factor 1.375,
	 * 0.5 + 2.75 = 3.25 -> 3 ways. */
	c[3].size = 704 << 10;
	CHECK_EQ(dc_hier_cachegrind(&h, &i1, c, 4, why, sizeof why), 0);
	check_level(&h.lv[1], 786432, 3, 64, 14);

	/* LL is the deepest level's unified cache, even with only two. */
	struct dc_host_cache two[] = {
		{ 1, DC_HOST_DATA, 32 << 10, 8, 64 },
		{ 1, DC_HOST_INSN, 64 << 10, 4, 64 },
		{ 2, DC_HOST_UNIFIED, 2 << 20, 16, 64 },
	};
	CHECK_EQ(dc_hier_cachegrind(&h, &i1, two, 3, why, sizeof why), 0);
	CHECK_EQ(i1.size, 65536);
	CHECK_EQ(i1.assoc, 4);
	check_level(&h.lv[1], 2 << 20, 16, 64, 14);
}

static void check_cachegrind_defaults(const struct dc_host_cache *c, int n)
{
	struct dc_hier h;
	struct dc_level_cfg i1;
	char why[256];

	CHECK_EQ(dc_hier_cachegrind(&h, &i1, c, n, why, sizeof why), 0);
	CHECK_EQ(h.nlevels, 2);
	CHECK_EQ(i1.size, 65536);
	CHECK_EQ(i1.assoc, 2);
	CHECK_EQ(i1.line, 64);
	check_level(&h.lv[0], 65536, 2, 64, 4);
	check_level(&h.lv[1], 262144, 8, 64, 14);
	CHECK(strstr(why, "defaults") != NULL);
	check_message(why);
}

DC_TEST(hier, cachegrind_defaults_when_caches_missing)
{
	check_cachegrind_defaults(NULL, 0);
	/* No I1. */
	check_cachegrind_defaults(this_host + 0, 1);
	/* No unified cache at the deepest level. */
	check_cachegrind_defaults(this_host, 2);
	/* No D1. */
	check_cachegrind_defaults(this_host + 1, 3);
}

/* What Cachegrind would refuse, dcprof refuses too. */
DC_TEST(hier, cachegrind_rejects_unsimulatable)
{
	struct dc_host_cache c[4];
	struct dc_hier h;
	struct dc_level_cfg i1;
	char why[256];

	/* D1 48K 8-way: 96 sets (only LL gets adjusted). */
	memcpy(c, this_host, sizeof c);
	c[0].assoc = 8;
	CHECK_EQ(dc_hier_cachegrind(&h, &i1, c, 4, why, sizeof why), DC_EINVAL);
	CHECK_STREQ(why, "Cachegrind's configuration cannot be simulated: "
			 "set count 96 is not a power of two");
	/* I1 with 48-byte lines. */
	memcpy(c, this_host, sizeof c);
	c[1].line = 48;
	CHECK_EQ(dc_hier_cachegrind(&h, &i1, c, 4, why, sizeof why), DC_EINVAL);
	check_message(why);
}

/* ---- formatting ---------------------------------------------------------- */

DC_TEST(hier, level_format)
{
	char buf[64];
	struct dc_level_cfg l = { 32768, 8, 64, 4 };

	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "32K:8:64");
	l.size = 49152, l.assoc = 12;
	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "48K:12:64");
	l.size = 1 << 20, l.assoc = 16;
	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "1M:16:64");
	/* 1536K is not a whole number of MiB. */
	l.size = 1536 << 10;
	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "1536K:16:64");
	l.size = 536870912, l.assoc = 2;
	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "512M:2:64");
	/* 532676608 = 508 * 2^20. */
	l.size = 532676608, l.assoc = 1;
	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "508M:1:64");
	l.size = (uint64_t)2 << 30, l.assoc = 16, l.line = 128;
	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "2G:16:128");
	l.size = 1000, l.assoc = 1, l.line = 16;
	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "1000:1:16");
	/* Round trip through the parser. */
	struct dc_hier h;
	char spec[80], err[100];
	l = (struct dc_level_cfg){ 12582912, 24, 64, 4 };
	dc_level_format(&l, buf, sizeof buf);
	CHECK_STREQ(buf, "12M:24:64");
	snprintf(spec, sizeof spec, "L1=%s", buf);
	CHECK_EQ(dc_hier_parse_cache(&h, spec, err, sizeof err), 0);
	check_level(&h.lv[0], 12582912, 24, 64, 4);
	/* Truncated. */
	l = (struct dc_level_cfg){ 32768, 8, 64, 4 };
	dc_level_format(&l, buf, 5);
	CHECK_STREQ(buf, "32K:");
}
