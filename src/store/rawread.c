/* rawread.c — read a raw dump (docs/raw-dump.md, versions 1 to 10) into a
 * profile.
 *
 * The reader is a hand-written line splitter: dumps hold millions of block
 * and cost lines, and a generic tokenizer or sscanf costs more than SQLite.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/num.h"
#include "dwarf/demangle.h"
#include "store/blockpair.h"
#include "store/natsym.h"
#include "core/rawout.h"
#include "core/util.h"
#include "store/rawread.h"
#include "store/rhist.h"

/* The widest record: hpath (wider than call, with 2 misses per level of
 * at most 4). */
#define MAXFIELDS (2 + NATSYM_MAX_PATH)
_Static_assert(MAXFIELDS >= 9 + 2 * DC_MAX_LEVELS, "a call record fits");

/* Declared IDs of one kind (bucket or location), indexed by ID. */
struct idset {
	unsigned char *flag;   /* ID_DECLARED | ID_STAT */
	size_t cap;
	uint64_t count;
	int64_t max;
};
enum { ID_DECLARED = 1, ID_STAT = 2, ID_COST = 4 };

struct reader {
	const char *path;
	struct profile_writer *w;
	struct raw_summary *s;
	uint64_t lineno;
	int version;
	bool header, memory, levels_used;
	struct idset buckets, locs;
	int64_t block_bucket_max;      /* largest bucket named by a block, -1 if none */
	uint64_t block_bucket_line;    /* where it was named */
	int64_t reuse_first, reuse_growth;   /* meta reuse_bins; 0 until seen */
	int64_t rhist_bin_max;         /* largest rhist bin, -1 if none */
	uint64_t rhist_bin_line;       /* where it was named */
	uint64_t twins, tpers;         /* trace windows declared, with their period */
	int64_t trec_time;             /* time of the next trec, -1 before any twin */
	int64_t trec_max[2];           /* largest location, bucket a trec names */
	uint64_t trec_line[2];         /* where it was named */
	struct natsym ns;              /* version 8: the native engine's records to name */
	struct blockpair live;         /* version 9: blocks written live, for their bfree */
	char *f[MAXFIELDS];
	size_t flen[MAXFIELDS];
	int nf;
	char *err;
	size_t errlen;
	bool write_failed;             /* the error is the profile's (write_fail) */
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
	char why[DC_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (r->lineno)
		snprintf(r->err, r->errlen, "cannot read raw dump '%s': line %llu: %s", r->path,
			 (unsigned long long)r->lineno, why);
	else
		snprintf(r->err, r->errlen, "cannot read raw dump '%s': %s", r->path, why);
	return -1;
}

/* The profile, not the dump, failed: err holds the writer's reason alone
 * and rawread returns RAWREAD_EWRITE. */
static int write_fail(struct reader *r)
{
	r->write_failed = true;
	snprintf(r->err, r->errlen, "%s", profile_writer_errmsg(r->w));
	return -1;
}

static int sql_fail(struct reader *r, int rc, const char *what)
{
	if (rc == -SQLITE_CONSTRAINT)
		return fail(r, "duplicate %s", what);
	return write_fail(r);
}

/* Splits on single spaces; empty fields are malformed. */
static int split(struct reader *r, char *line, size_t len)
{
	char *p = line, *end = line + len;

	r->nf = 0;
	for (;;) {
		char *sp = memchr(p, ' ', (size_t)(end - p));
		char *fe = sp ? sp : end;

		if (fe == p)
			return fail(r, "empty field");
		if (r->nf == MAXFIELDS)
			return fail(r, "too many fields");
		r->f[r->nf] = p;
		r->flen[r->nf] = (size_t)(fe - p);
		r->nf++;
		*fe = '\0';
		if (!sp)
			return 0;
		p = sp + 1;
	}
}

static int want_fields(struct reader *r, int n)
{
	if (r->nf != n)
		return fail(r, "%s record has %d fields, expected %d", r->f[0], r->nf - 1, n - 1);
	return 0;
}

/* Field i as an unsigned decimal that fits int64_t. */
static int num(struct reader *r, int i, int64_t *out)
{
	const char *s = r->f[i];
	uint64_t v = 0;

	for (size_t k = 0; k < r->flen[i]; k++) {
		unsigned d = (unsigned)(s[k] - '0');
		if (d > 9)
			return fail(r, "field %d: '%s' is not an unsigned decimal number", i, s);
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return fail(r, "field %d: number out of range", i);
		v = v * 10 + d;
	}
	*out = (int64_t)v;
	return 0;
}

/* Field i as 0x-prefixed hex that fits int64_t. */
static int hex(struct reader *r, int i, int64_t *out)
{
	const char *s = r->f[i];
	size_t n = r->flen[i];
	uint64_t v = 0;

	if (n < 3 || s[0] != '0' || s[1] != 'x')
		return fail(r, "field %d: '%s' is not a 0x hex address", i, s);
	for (size_t k = 2; k < n; k++) {
		int c = s[k], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return fail(r, "field %d: '%s' is not a 0x hex address", i, s);
		if (v > ((uint64_t)INT64_MAX >> 4))
			return fail(r, "field %d: address out of range", i);
		v = (v << 4) | (uint64_t)d;
	}
	*out = (int64_t)v;
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes string field i in place: %XX is a byte, a lone %- the empty
 * string. */
static int str(struct reader *r, int i)
{
	char *s = r->f[i], *o = s;
	size_t n = r->flen[i];

	if (n == 2 && s[0] == '%' && s[1] == '-') {
		s[0] = '\0';
		r->flen[i] = 0;
		return 0;
	}
	for (size_t k = 0; k < n; k++) {
		int hi, lo;

		if (s[k] != '%') {
			*o++ = s[k];
			continue;
		}
		if (k + 2 >= n)
			return fail(r, "field %d: '%%' not followed by two hex digits", i);
		hi = hexval((unsigned char)s[k + 1]);
		lo = hexval((unsigned char)s[k + 2]);
		if (hi < 0 || lo < 0)
			return fail(r, "field %d: '%%' not followed by two hex digits", i);
		*o++ = (char)(hi << 4 | lo);
		k += 2;
	}
	*o = '\0';
	r->flen[i] = (size_t)(o - s);
	return 0;
}

/* Declares ID (field i) in set; what names the kind for messages. */
static int declare(struct reader *r, struct idset *set, int i, const char *what, int64_t *id)
{
	if (num(r, i, id))
		return -1;
	/* Dense IDs, one declaration per line: a valid ID is below the line
	 * number, which bounds the flag array by the input size. */
	if ((uint64_t)*id >= r->lineno)
		return fail(r, "%s ID %lld is not dense", what, (long long)*id);
	if ((size_t)*id >= set->cap) {
		size_t cap = set->cap ? set->cap : 1024;
		while (cap <= (size_t)*id)
			cap *= 2;
		set->flag = xrealloc(set->flag, cap);
		memset(set->flag + set->cap, 0, cap - set->cap);
		set->cap = cap;
	}
	if (set->flag[*id] & ID_DECLARED)
		return fail(r, "duplicate %s ID %lld", what, (long long)*id);
	set->flag[*id] |= ID_DECLARED;
	set->count++;
	if (*id > set->max)
		set->max = *id;
	return 0;
}

/* Field i must name an ID already declared in set. */
static int ref(struct reader *r, struct idset *set, int i, const char *what, int64_t *id)
{
	if (num(r, i, id))
		return -1;
	if ((size_t)*id >= set->cap || !(set->flag[*id] & ID_DECLARED))
		return fail(r, "%s %lld is not declared", what, (long long)*id);
	return 0;
}

static int rec_header(struct reader *r)
{
	int64_t v;

	if (strcmp(r->f[0], "dcprof-raw"))
		return fail(r, "not a dcprof raw dump");
	if (want_fields(r, 2) || num(r, 1, &v))
		return -1;
	if (v < 1 || v > RAW_VERSION)
		return fail(r, "raw dump version %lld is not supported (this dcprof reads 1 to %d)",
			    (long long)v, RAW_VERSION);
	r->version = (int)v;
	r->header = true;
	return 0;
}

static int rec_meta(struct reader *r)
{
	int rc;

	if (want_fields(r, 3) || str(r, 1) || str(r, 2))
		return -1;
	if (r->flen[1] == 0)
		return fail(r, "empty meta key");
	rc = pw_meta(r->w, r->f[1], r->flen[1], r->f[2], r->flen[2], 0);
	if (rc)
		return sql_fail(r, rc, "meta key");
	if (!strcmp(r->f[1], "exit_code")) {
		if (num(r, 2, &r->s->exit_code))
			return -1;
		r->s->has_exit_code = true;
	}
	if (!strcmp(r->f[1], "checkpoint_ms") && num(r, 2, &r->s->checkpoint_ms))
		return -1;
	if (!strcmp(r->f[1], "engine") && !strcmp(r->f[2], "native"))
		r->s->native = true;
	/* the summary line's count; a bad value is the reports' to refuse */
	if (!strcmp(r->f[1], "samples")) {
		uint64_t n;
		r->s->samples = num_parse_u64(r->f[2], INT64_MAX, &n) ? -1 : (int64_t)n;
	}
	if (!strcmp(r->f[1], "reuse_bins") &&
	    reuse_parse_bins(r->f[2], INT64_MAX, INT64_MAX, &r->reuse_first, &r->reuse_growth))
		return fail(r, "meta reuse_bins '%s' is not FIRST:GROWTH (FIRST >= 1, GROWTH >= 2)",
			    r->f[2]);
	if (!strcmp(r->f[1], "reuse_block")) {
		int64_t v;
		if (num(r, 2, &v) || v == 0)
			return fail(r, "meta reuse_block must be a number of bytes >= 1");
	}
	return 0;
}

static int rec_level(struct reader *r)
{
	int64_t n, v[4];
	int rc;

	if (want_fields(r, 7) || num(r, 1, &n) || str(r, 2))
		return -1;
	for (int i = 0; i < 4; i++)
		if (num(r, 3 + i, &v[i]))
			return -1;
	if (r->levels_used)
		return fail(r, "level record after records that use the levels");
	if (n != r->s->nlevels + 1 || n > DC_MAX_LEVELS)
		return fail(r, "level %lld out of order (expected %d, at most %d levels)",
			    (long long)n, r->s->nlevels + 1, DC_MAX_LEVELS);
	rc = pw_level(r->w, (int)n, r->f[2], r->flen[2], v[0], v[1], v[2], v[3]);
	if (rc)
		return sql_fail(r, rc, "level");
	r->s->nlevels++;
	return 0;
}

static int rec_memory(struct reader *r)
{
	if (want_fields(r, 2) || num(r, 1, &r->s->memory_latency))
		return -1;
	if (r->memory)
		return fail(r, "duplicate memory record");
	r->memory = true;
	return 0;
}

static const char *const kinds[] = { "global", "heap", "user", "stack", "mmap", "unknown",
				      "tool" };

static int rec_bucket(struct reader *r)
{
	const char *kind = NULL;
	char *dm;
	int64_t id;
	int rc;

	if (want_fields(r, 4))
		return -1;
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (!strcmp(r->f[2], kinds[i]))
			kind = kinds[i];
	if (!kind)
		return fail(r, "unknown bucket kind '%s'", r->f[2]);
	if (str(r, 3) || declare(r, &r->buckets, 1, "bucket", &id))
		return -1;
	/* version 8: a native engine's heap or anonymous mmap bucket, named
	 * from its hpath */
	if (r->version >= 8 && (!strcmp(kind, "heap") || !strcmp(kind, "mmap")) &&
	    !strcmp(r->f[3], "-"))
		natsym_add_unnamed(&r->ns, id, r->lineno);
	/* a C++ global reads demangled: std::cout@libstdc++.so.6 */
	dm = kind == kinds[0] ? dc_demangle_global(r->f[3], r->flen[3]) : NULL;
	rc = dm ? pw_bucket(r->w, id, kind, dm, strlen(dm))
		: pw_bucket(r->w, id, kind, r->f[3], r->flen[3]);
	free(dm);
	if (rc)
		return sql_fail(r, rc, "bucket");
	r->s->buckets++;
	return 0;
}

static int rec_bstat(struct reader *r)
{
	int64_t id, st[6];
	int rc;

	if (want_fields(r, 8) || ref(r, &r->buckets, 1, "bucket", &id))
		return -1;
	for (int i = 0; i < 6; i++)
		if (num(r, 2 + i, &st[i]))
			return -1;
	if (r->buckets.flag[id] & ID_STAT)
		return fail(r, "duplicate bstat for bucket %lld", (long long)id);
	r->buckets.flag[id] |= ID_STAT;
	rc = pw_bstat(r->w, id, st);
	return rc ? sql_fail(r, rc, "bstat") : 0;
}

/* Functions are named without a symbol version (dc_sym_name_len):
 * Valgrind names them by their symbol, fopen@@GLIBC_2.2.5; the program
 * calls fopen, and the native engine, globals and heap names say fopen. */
static int rec_loc(struct reader *r)
{
	int64_t id, ip, line, oline = 0;
	int nf = r->version >= 10 ? 11 : r->version >= 6 ? 8 : 7;
	struct pw_outer out, *outp = NULL;
	int rc;

	/* INLINED (version 6): the function FUNCTION was inlined into;
	 * OUTFN OUTFILE OUTLINE (version 10): where, in the function
	 * compiled. */
	if (want_fields(r, nf) || hex(r, 2, &ip) || str(r, 3) ||
	    str(r, 4) || str(r, 5) || num(r, 6, &line) ||
	    (nf > 7 && str(r, 7)) ||
	    (nf > 8 && (str(r, 8) || str(r, 9) || num(r, 10, &oline))) ||
	    declare(r, &r->locs, 1, "location", &id))
		return -1;
	/* version 8: the native engine's address-only location */
	if (r->version >= 8 && !r->flen[3] && !r->flen[4] && !r->flen[5] && !line && !r->flen[7] &&
	    (nf == 8 || (!r->flen[8] && !r->flen[9] && !oline)))
		natsym_add_loc(&r->ns, id, ip);
	if (nf > 8 && (r->flen[8] || r->flen[9] || oline)) {
		out = (struct pw_outer){ r->f[8], dc_sym_name_len(r->f[8], r->flen[8]), r->f[9], r->flen[9],
					 oline };
		outp = &out;
	}
	rc = pw_loc(r->w, id, ip, r->f[3], r->flen[3], r->f[4], dc_sym_name_len(r->f[4], r->flen[4]),
		    r->f[5], r->flen[5], line, nf > 7 ? r->f[7] : "",
		    nf > 7 ? dc_sym_name_len(r->f[7], r->flen[7]) : 0, outp);
	return rc ? sql_fail(r, rc, "location") : 0;
}

/* map START END OFFSET PATH (version 8): an executable mapping. */
static int rec_map(struct reader *r)
{
	int64_t start, end, off;

	if (want_fields(r, 5) || hex(r, 1, &start) || hex(r, 2, &end) || hex(r, 3, &off) ||
	    str(r, 4))
		return -1;
	if (end <= start)
		return fail(r, "map record: end 0x%llx is not above start 0x%llx",
			    (unsigned long long)end, (unsigned long long)start);
	if (!r->flen[4])
		return fail(r, "map record without a path");
	natsym_add_map(&r->ns, (uint64_t)start, (uint64_t)end, (uint64_t)off, r->f[4]);
	return 0;
}

/* hpath BUCKET IP1 ... IPn (version 8): the allocation path of an
 * unnamed heap bucket, which may be declared later (checked at the end). */
static int rec_hpath(struct reader *r)
{
	uint64_t ips[NATSYM_MAX_PATH];
	int64_t bucket, ip;

	if (r->nf < 2)
		return fail(r, "hpath record has no bucket");
	if (num(r, 1, &bucket))
		return -1;
	for (int i = 2; i < r->nf; i++) {
		if (hex(r, i, &ip))
			return -1;
		if (ip == 0)
			return fail(r, "field %d: return address 0x0", i);
		ips[i - 2] = (uint64_t)ip;
	}
	natsym_add_path(&r->ns, bucket, r->lineno, ips, (size_t)(r->nf - 2));
	return 0;
}

/* Field i as a level of the hierarchy. */
static int level_ref(struct reader *r, int i, int *level)
{
	int64_t v;

	if (num(r, i, &v))
		return -1;
	if (v < 1 || v > r->s->nlevels)
		return fail(r, "level %lld does not exist (%d levels)", (long long)v,
			    r->s->nlevels);
	*level = (int)v;
	r->levels_used = true;
	return 0;
}

/* cost, or scost (sampled): the same fields. */
static int rec_cost(struct reader *r, bool sampled)
{
	int n = r->s->nlevels;
	int64_t bucket, loc, thread, v[COST_NCOLS] = { 0 };
	int rc;

	if (n == 0)
		return fail(r, "%s record before any level record", r->f[0]);
	if (want_fields(r, 7 + 2 * n) || ref(r, &r->buckets, 1, "bucket", &bucket) ||
	    ref(r, &r->locs, 2, "location", &loc) || num(r, 3, &thread))
		return -1;
	for (int i = 0; i < 2 + 2 * n; i++)
		if (num(r, 4 + i, &v[COST_DR + i]))
			return -1;
	if (num(r, 6 + 2 * n, &v[COST_LAT]))
		return -1;
	r->levels_used = true;
	rc = pw_cost(r->w, sampled, bucket, loc, thread, v);
	if (rc)
		return sql_fail(r, rc, sampled ? "scost record (same bucket, location and thread)"
				: "cost record (same bucket, location and thread)");
	if (sampled)
		return 0;
	if (!(r->buckets.flag[bucket] & ID_COST)) {
		r->buckets.flag[bucket] |= ID_COST;
		r->s->accessed++;
	}
	r->s->dr += (uint64_t)v[COST_DR];
	r->s->dw += (uint64_t)v[COST_DW];
	r->s->d1_misses += (uint64_t)v[COST_D1MR] + (uint64_t)v[COST_D1MR + 1];
	r->s->ll_misses += (uint64_t)v[COST_D1MR + 2 * (n - 1)] +
			   (uint64_t)v[COST_D1MR + 2 * (n - 1) + 1];
	return 0;
}

/* off BUCKET OFFSET SIZE DR DW M1 ... MN LAT (version 7); OFFSET "-" is
 * the bucket's beyond cell, stored as offset -1. */
static int rec_off(struct reader *r)
{
	int n = r->s->nlevels;
	int64_t bucket, off = -1, v[4 + DC_MAX_LEVELS];
	int rc;

	if (n == 0)
		return fail(r, "off record before any level record");
	if (want_fields(r, 7 + n) || ref(r, &r->buckets, 1, "bucket", &bucket) ||
	    (strcmp(r->f[2], "-") && num(r, 2, &off)))
		return -1;
	/* size, reads, writes, a miss count per level, latency */
	for (int i = 0; i < 4 + n; i++)
		if (num(r, 3 + i, &v[i]))
			return -1;
	rc = pw_offset(r->w, bucket, off, v[0], v + 1, n);
	return rc ? sql_fail(r, rc, "off record (same bucket and offset)") : 0;
}

/* offu BUCKET OFFSET END U1 ... UN (version 8); OFFSET and END "-" are
 * the bucket's beyond bytes, stored as -1. */
static int rec_offu(struct reader *r)
{
	int n = r->s->nlevels;
	int64_t bucket, off = -1, end = -1, u[DC_MAX_LEVELS];
	bool beyond;
	int rc;

	if (n == 0)
		return fail(r, "offu record before any level record");
	if (want_fields(r, 4 + n) || ref(r, &r->buckets, 1, "bucket", &bucket))
		return -1;
	beyond = !strcmp(r->f[2], "-");
	if (beyond != !strcmp(r->f[3], "-"))
		return fail(r, "offu record with one of OFFSET and END '-'");
	if (!beyond && (num(r, 2, &off) || num(r, 3, &end)))
		return -1;
	if (!beyond && (off < 0 || end <= off))
		return fail(r, "offu record with an empty or negative range");
	for (int i = 0; i < n; i++)
		if (num(r, 4 + i, &u[i]))
			return -1;
	rc = pw_offu(r->w, bucket, off, end, u, n);
	return rc ? sql_fail(r, rc, "offu record (same bucket and range)") : 0;
}

/* btype BUCKET TYPE (version 7). */
static int rec_btype(struct reader *r)
{
	int64_t bucket;
	int rc;

	if (want_fields(r, 3) || ref(r, &r->buckets, 1, "bucket", &bucket) || str(r, 2))
		return -1;
	rc = pw_btype(r->w, bucket, r->f[2], r->flen[2]);
	return rc ? sql_fail(r, rc, "btype record (same bucket)") : 0;
}

/* ipsamp LOC THREAD COUNT (version 8). */
static int rec_ipsamp(struct reader *r)
{
	int64_t loc, thread, count;
	int rc;

	if (want_fields(r, 4) || ref(r, &r->locs, 1, "location", &loc) || num(r, 2, &thread) ||
	    num(r, 3, &count))
		return -1;
	r->s->ip_events += (uint64_t)count;
	rc = pw_ipsamp(r->w, loc, thread, count);
	return rc ? sql_fail(r, rc, "ipsamp record (same location and thread)") : 0;
}

/* evict, or sevict (sampled): LEVEL EVICTOR VICTIM LOC COUNT. */
static int rec_evict(struct reader *r, bool sampled)
{
	int64_t evictor, victim, loc, count;
	int level, rc;

	if (want_fields(r, 6) || level_ref(r, 1, &level) ||
	    ref(r, &r->buckets, 2, "bucket", &evictor) ||
	    ref(r, &r->buckets, 3, "bucket", &victim) ||
	    ref(r, &r->locs, 4, "location", &loc) || num(r, 5, &count))
		return -1;
	rc = pw_eviction(r->w, level, evictor, victim, loc, count, sampled);
	return rc ? sql_fail(r, rc, sampled ? "sevict record" : "evict record") : 0;
}

static int rec_fill(struct reader *r)
{
	int64_t fills, empty, evictions;
	int level, rc;

	if (want_fields(r, 5) || level_ref(r, 1, &level) || num(r, 2, &fills) ||
	    num(r, 3, &empty) || num(r, 4, &evictions))
		return -1;
	if ((uint64_t)fills != (uint64_t)empty + (uint64_t)evictions)
		return fail(r, "fill record: %lld fills are not %lld empty + %lld evictions",
			    (long long)fills, (long long)empty, (long long)evictions);
	rc = pw_fill(r->w, level, fills, empty, evictions);
	return rc ? sql_fail(r, rc, "fill record") : 0;
}

static int rec_resid(struct reader *r)
{
	int64_t bucket, millilines;
	int level, rc;

	if (want_fields(r, 4) || ref(r, &r->buckets, 1, "bucket", &bucket) ||
	    level_ref(r, 2, &level) || num(r, 3, &millilines))
		return -1;
	rc = pw_residency(r->w, bucket, level, millilines);
	return rc ? sql_fail(r, rc, "resid record") : 0;
}

/* rhist KIND BUCKET BIN COUNT [SUM, version 4]; lo and hi are set at the
 * end, when meta reuse_bins is surely known. */
static int rec_rhist(struct reader *r)
{
	const char *kind;
	int64_t bucket, bin, count, sum = -1;
	int rc;

	if (want_fields(r, r->version >= 4 ? 6 : 5))
		return -1;
	if (!strcmp(r->f[1], "stack"))
		kind = "stack";
	else if (!strcmp(r->f[1], "time"))
		kind = "time";
	else if (r->version >= 4 && !strcmp(r->f[1], "sampled"))
		kind = "sampled";
	else
		return fail(r, "unknown reuse distance kind '%s' (%s)", r->f[1],
			    r->version >= 4 ? "stack, time or sampled" : "stack or time");
	if (ref(r, &r->buckets, 2, "bucket", &bucket) || num(r, 3, &bin) || num(r, 4, &count) ||
	    (r->version >= 4 && num(r, 5, &sum)))
		return -1;
	/* checked here, before reuse_bounds sizes arrays by it */
	if (bin >= REUSE_MAX_BINS)
		return fail(r, "rhist bin %lld is beyond the last there can be (%d)",
			    (long long)bin, REUSE_MAX_BINS - 1);
	if (bin > r->rhist_bin_max) {
		r->rhist_bin_max = bin;
		r->rhist_bin_line = r->lineno;
	}
	rc = pw_rhist(r->w, bucket, kind, bin, count, sum);
	return rc ? sql_fail(r, rc, "rhist record (same kind, bucket and bin)") : 0;
}

/* ftouch BUCKET LOC THREAD PAGES (version 8). */
static int rec_ftouch(struct reader *r)
{
	int64_t bucket, loc, thread, pages;
	int rc;

	if (want_fields(r, 5) || ref(r, &r->buckets, 1, "bucket", &bucket) ||
	    ref(r, &r->locs, 2, "location", &loc) || num(r, 3, &thread) || num(r, 4, &pages))
		return -1;
	r->s->pages += (uint64_t)pages;
	rc = pw_ftouch(r->w, bucket, loc, thread, pages);
	return rc ? sql_fail(r, rc, "ftouch record (same bucket, location and thread)") : 0;
}

/* rfirst and runseen: BUCKET COUNT. */
static int rec_bucket_count(struct reader *r,
			    int (*put)(struct profile_writer *, int64_t, int64_t),
			    const char *what)
{
	int64_t bucket, count;
	int rc;

	if (want_fields(r, 3) || ref(r, &r->buckets, 1, "bucket", &bucket) || num(r, 2, &count))
		return -1;
	rc = put(r->w, bucket, count);
	return rc ? sql_fail(r, rc, what) : 0;
}

static int rec_rpair(struct reader *r)
{
	int64_t use, reuse, count, sumstack, sumtime;
	int rc;

	if (want_fields(r, 6) || ref(r, &r->locs, 1, "location", &use) ||
	    ref(r, &r->locs, 2, "location", &reuse) || num(r, 3, &count) ||
	    num(r, 4, &sumstack) || num(r, 5, &sumtime))
		return -1;
	if (count == 0)
		return fail(r, "rpair record with count 0");
	rc = pw_rpair(r->w, use, reuse, count, sumstack, sumtime);
	return rc ? sql_fail(r, rc, "rpair record (same locations)") : 0;
}

static int rec_srpair(struct reader *r)
{
	int64_t use, reuse, count, sumtime;
	int rc;

	if (want_fields(r, 5) || ref(r, &r->locs, 1, "location", &use) ||
	    ref(r, &r->locs, 2, "location", &reuse) || num(r, 3, &count) || num(r, 4, &sumtime))
		return -1;
	if (count == 0)
		return fail(r, "srpair record with count 0");
	rc = pw_srpair(r->w, use, reuse, count, sumtime);
	return rc ? sql_fail(r, rc, "srpair record (same locations)") : 0;
}

/* The EVICTED field i of use and calluse (version 5): a count, or "-" (not
 * counted) as -1; -1 in older dumps. */
static int evicted(struct reader *r, int i, int64_t *out)
{
	*out = -1;
	if (r->version < 5 || !strcmp(r->f[i], "-"))
		return 0;
	return num(r, i, out);
}

static int rec_use(struct reader *r)
{
	int64_t level, bucket, loc, thread, sploss, accost, ev;
	int rc;

	if (want_fields(r, r->version >= 5 ? 8 : 7) || num(r, 1, &level) ||
	    ref(r, &r->buckets, 2, "bucket", &bucket) || ref(r, &r->locs, 3, "location", &loc) ||
	    num(r, 4, &thread) || num(r, 5, &sploss) || num(r, 6, &accost) || evicted(r, 7, &ev))
		return -1;
	if (level < 1 || level > r->s->nlevels)
		return fail(r, "use record for level %lld, which is not declared", (long long)level);
	rc = pw_use(r->w, (int)level, bucket, loc, thread, sploss, accost, ev);
	return rc ? sql_fail(r, rc, "use record (same level, bucket, location and thread)") : 0;
}

/* A location field of a call record: an ID, or "-" (a root) as -1. */
static int loc_or_none(struct reader *r, int i, int64_t *id)
{
	if (!strcmp(r->f[i], "-")) {
		*id = -1;
		return 0;
	}
	return ref(r, &r->locs, i, "location", id);
}

static const char *const arc_kinds[] = { "call", "thread", "signal" };

/* Fields 1-3 of call and calluse: KIND SITE CALLEE, a call having both
 * locations and a root neither. */
static int arc_head(struct reader *r, size_t *kind, int64_t *site, int64_t *callee)
{
	for (*kind = 0; *kind < 3 && strcmp(r->f[1], arc_kinds[*kind]); ++*kind)
		;
	if (*kind == 3)
		return fail(r, "%s record of unknown kind '%s'", r->f[0], r->f[1]);
	if (loc_or_none(r, 2, site) || loc_or_none(r, 3, callee))
		return -1;
	if ((*kind == 0) != (*site >= 0 && *callee >= 0))
		return fail(r, "%s record: a %s arc %s", r->f[0], arc_kinds[*kind],
			    *kind ? "has no site or callee" : "needs a site and a callee");
	return 0;
}

static int rec_call(struct reader *r)
{
	int n = r->s->nlevels;
	int64_t site, callee, thread, count, v[COST_NCOLS] = { 0 };
	size_t kind;
	int rc;

	if (n == 0)
		return fail(r, "call record before any level record");
	if (want_fields(r, 9 + 2 * n) || arc_head(r, &kind, &site, &callee) ||
	    num(r, 4, &thread) || num(r, 5, &count))
		return -1;
	for (int i = 0; i < 2 + 2 * n; i++)
		if (num(r, 6 + i, &v[COST_DR + i]))
			return -1;
	if (num(r, 8 + 2 * n, &v[COST_LAT]))
		return -1;
	rc = pw_call(r->w, arc_kinds[kind], site, callee, thread, count, v);
	return rc ? sql_fail(r, rc, "call record") : 0;
}

static int rec_calluse(struct reader *r)
{
	int64_t site, callee, thread, level, sploss, accost, ev;
	size_t kind;
	int rc;

	if (want_fields(r, r->version >= 5 ? 9 : 8) || arc_head(r, &kind, &site, &callee) ||
	    num(r, 4, &thread) || num(r, 5, &level) || num(r, 6, &sploss) || num(r, 7, &accost) ||
	    evicted(r, 8, &ev))
		return -1;
	if (level < 1 || level > r->s->nlevels)
		return fail(r, "calluse record for level %lld, which is not declared",
			    (long long)level);
	rc = pw_calluse(r->w, arc_kinds[kind], site, callee, thread, (int)level, sploss, accost,
			ev);
	return rc ? sql_fail(r, rc, "calluse record") : 0;
}

/* twin ID START: window ID starts at record START; the trec records that
 * follow are its accesses, at START, START + 1, ... */
static int rec_twin(struct reader *r)
{
	int64_t id, start;
	int rc;

	if (want_fields(r, 3) || num(r, 1, &id) || num(r, 2, &start))
		return -1;
	if ((uint64_t)id != r->twins)
		return fail(r, "trace window %lld out of order (expected %llu)", (long long)id,
			    (unsigned long long)r->twins);
	if (start < r->trec_time)
		return fail(r, "trace window %lld starts at %lld, before the last access",
			    (long long)id, (long long)start);
	r->twins++;
	r->trec_time = start;
	rc = pw_twin(r->w, id, start);
	return rc ? sql_fail(r, rc, "trace window") : 0;
}

static int window_ref(struct reader *r, int i, int64_t *id)
{
	if (num(r, i, id))
		return -1;
	if ((uint64_t)*id >= r->twins)
		return fail(r, "trace window %lld is not declared", (long long)*id);
	return 0;
}

static int rec_tper(struct reader *r)
{
	int64_t id, period;
	int rc;

	if (want_fields(r, 3) || window_ref(r, 1, &id) || num(r, 2, &period))
		return -1;
	if ((uint64_t)id != r->tpers)
		return fail(r, "period of trace window %lld out of order (expected %llu)",
			    (long long)id, (unsigned long long)r->tpers);
	r->tpers++;
	rc = pw_tper(r->w, id, period);
	return rc ? sql_fail(r, rc, "tper record") : 0;
}

static int rec_tref(struct reader *r)
{
	int64_t id, f[3];
	int rc;

	if (want_fields(r, 5) || window_ref(r, 1, &id) || num(r, 2, &f[0]) ||
	    num(r, 3, &f[1]) || num(r, 4, &f[2]))
		return -1;
	rc = pw_tref(r->w, id, f);
	return rc ? sql_fail(r, rc, "tref record") : 0;
}

/* trec LOC BUCKET ADDR CLASS IMPLIED, an access of the last window.  The
 * engine writes accesses before the locations and buckets (declared at
 * exit): those references are checked at the end. */
static int rec_trec(struct reader *r)
{
	int64_t v[6];
	int rc;

	if (want_fields(r, 6) || num(r, 1, &v[2]) || num(r, 2, &v[3]) || hex(r, 3, &v[4]) ||
	    num(r, 5, &v[5]))
		return -1;
	if (r->trec_time < 0)
		return fail(r, "trec before any twin");
	if (r->flen[4] != 1 || !strchr("csi", r->f[4][0]))
		return fail(r, "unknown load class '%s' (c, s or i)", r->f[4]);
	for (int k = 0; k < 2; k++) {
		if (v[2 + k] > r->trec_max[k]) {
			r->trec_max[k] = v[2 + k];
			r->trec_line[k] = r->lineno;
		}
	}
	v[0] = (int64_t)r->twins - 1;
	v[1] = r->trec_time++;
	rc = pw_trec(r->w, v, r->f[4]);
	return rc ? sql_fail(r, rc, "trec record") : 0;
}

static int rec_tfn(struct reader *r)
{
	int64_t v[5];
	int rc;

	if (want_fields(r, 7) || str(r, 1))
		return -1;
	for (int i = 0; i < 5; i++)
		if (num(r, 2 + i, &v[i]))
			return -1;
	rc = pw_tfn(r->w, r->f[1], dc_sym_name_len(r->f[1], r->flen[1]), v);
	return rc ? sql_fail(r, rc, "tfn record") : 0;
}

/* Sets lo and hi of every reuse_hist row from meta reuse_bins. */
static int reuse_bounds(struct reader *r)
{
	int64_t n = r->rhist_bin_max + 1, *lo, *hi;
	bool *inf;
	int rc = 0;

	if (r->rhist_bin_max < 0)
		return 0;
	if (!r->reuse_first)
		return fail(r, "rhist records without meta reuse_bins");
	lo = xcalloc((size_t)n, sizeof *lo);
	hi = xcalloc((size_t)n, sizeof *hi);
	inf = xcalloc((size_t)n, sizeof *inf);
	for (int64_t k = 0; k < n && !rc; k++) {
		if (reuse_bin_bounds(r->reuse_first, r->reuse_growth, k, &lo[k], &hi[k], &inf[k])) {
			r->lineno = r->rhist_bin_line;
			rc = fail(r, "rhist bin %lld is beyond the largest distance (bins %lld:%lld)",
				  (long long)r->rhist_bin_max, (long long)r->reuse_first,
				  (long long)r->reuse_growth);
		}
	}
	if (!rc && pw_reuse_bounds(r->w, n, lo, hi, inf))
		rc = write_fail(r);
	free(lo);
	free(hi);
	free(inf);
	return rc;
}

static int rec_block(struct reader *r)
{
	int64_t bucket, addr, size, alloc, freed;
	int rc;

	if (want_fields(r, 6) || num(r, 1, &bucket) || hex(r, 2, &addr) || num(r, 3, &size) ||
	    num(r, 4, &alloc) || num(r, 5, &freed))
		return -1;
	/* Buckets may be declared after their blocks; checked at the end. */
	if (bucket > r->block_bucket_max) {
		r->block_bucket_max = bucket;
		r->block_bucket_line = r->lineno;
	}
	rc = pw_block(r->w, bucket, addr, size, alloc, freed);
	if (rc)
		return sql_fail(r, rc, "block");
	if (r->version >= 9 && !freed)
		blockpair_put(&r->live, (uint64_t)addr, pw_block_id(r->w));
	return 0;
}

/* bfree ADDR FREE (version 9): the block recorded live at ADDR ended. */
static int rec_bfree(struct reader *r)
{
	int64_t addr, freed, id;
	int rc;

	if (want_fields(r, 3) || hex(r, 1, &addr) || num(r, 2, &freed))
		return -1;
	if (!freed)
		return fail(r, "bfree with free sequence number 0");
	if (!blockpair_take(&r->live, (uint64_t)addr, &id))
		return fail(r, "bfree at 0x%llx, where no block record is live",
			    (unsigned long long)addr);
	rc = pw_block_free(r->w, id, freed);
	return rc ? sql_fail(r, rc, "bfree") : 0;
}

static int rec_end(struct reader *r)
{
	int64_t v;

	if (want_fields(r, 2) || num(r, 1, &v))
		return -1;
	if (v > 1)
		return fail(r, "end record must be 0 or 1");
	r->s->end = (int)v;
	return 0;
}

static int record(struct reader *r, char *line, size_t len)
{
	const char *t;

	if (memchr(line, '\0', len))
		return fail(r, "NUL byte in line");
	if (split(r, line, len))
		return -1;
	if (!r->header)
		return rec_header(r);
	if (r->s->end >= 0)
		return fail(r, "record after the end record");
	t = r->f[0];
	/* Most frequent records first: a sampled trace has millions. */
	if (!strcmp(t, "trec") && r->version >= 4)
		return rec_trec(r);
	if (!strcmp(t, "block"))
		return rec_block(r);
	if (r->version >= 9 && !strcmp(t, "bfree"))
		return rec_bfree(r);
	if (!strcmp(t, "cost"))
		return rec_cost(r, false);
	if (!strcmp(t, "loc"))
		return rec_loc(r);
	if (!strcmp(t, "bucket"))
		return rec_bucket(r);
	if (!strcmp(t, "bstat"))
		return rec_bstat(r);
	if (!strcmp(t, "meta"))
		return rec_meta(r);
	if (!strcmp(t, "level"))
		return rec_level(r);
	if (!strcmp(t, "memory"))
		return rec_memory(r);
	if (!strcmp(t, "end"))
		return rec_end(r);
	/* Version 2 records are unknown to a version 1 dump. */
	if (r->version >= 2) {
		if (!strcmp(t, "scost"))
			return rec_cost(r, true);
		if (!strcmp(t, "evict"))
			return rec_evict(r, false);
		if (!strcmp(t, "sevict"))
			return rec_evict(r, true);
		if (!strcmp(t, "fill"))
			return rec_fill(r);
		if (!strcmp(t, "resid"))
			return rec_resid(r);
	}
	/* And version 3 records to a version 2 dump. */
	if (r->version >= 3) {
		if (!strcmp(t, "rhist"))
			return rec_rhist(r);
		if (!strcmp(t, "rfirst"))
			return rec_bucket_count(r, pw_rfirst, "rfirst record");
		if (!strcmp(t, "rpair"))
			return rec_rpair(r);
	}
	if (r->version >= 4 && !strcmp(t, "runseen"))
		return rec_bucket_count(r, pw_runseen, "runseen record");
	if (r->version >= 4 && !strcmp(t, "srpair"))
		return rec_srpair(r);
	if (r->version >= 4 && !strcmp(t, "use"))
		return rec_use(r);
	if (r->version >= 4 && !strcmp(t, "call"))
		return rec_call(r);
	if (r->version >= 4 && !strcmp(t, "calluse"))
		return rec_calluse(r);
	if (r->version >= 7 && !strcmp(t, "off"))
		return rec_off(r);
	if (r->version >= 7 && !strcmp(t, "btype"))
		return rec_btype(r);
	if (r->version >= 8) {
		if (!strcmp(t, "ftouch"))
			return rec_ftouch(r);
		if (!strcmp(t, "ipsamp"))
			return rec_ipsamp(r);
		if (!strcmp(t, "offu"))
			return rec_offu(r);
		if (!strcmp(t, "map"))
			return rec_map(r);
		if (!strcmp(t, "hpath"))
			return rec_hpath(r);
	}
	/* And version 4 records to older dumps. */
	if (r->version >= 4) {
		if (!strcmp(t, "twin"))
			return rec_twin(r);
		if (!strcmp(t, "tper"))
			return rec_tper(r);
		if (!strcmp(t, "tref"))
			return rec_tref(r);
		if (!strcmp(t, "tfn"))
			return rec_tfn(r);
	}
	return fail(r, "unknown record type '%s'", t);
}

/* The locations and buckets trec records named, and every window's
 * period.  A dump cut short may lack them: its unresolved accesses are
 * dropped and an unfinished window's period is its accesses (the profile
 * is marked incomplete anyway). */
static int trace_refs(struct reader *r)
{
	static const char *const what[2] = { "location", "bucket" };
	const uint64_t count[2] = { r->locs.count, r->buckets.count };
	bool cut = r->s->end < 0;

	for (int k = 0; k < 2; k++) {
		if (r->trec_max[k] < 0 || (uint64_t)r->trec_max[k] < count[k] || cut)
			continue;
		r->lineno = r->trec_line[k];
		return fail(r, "trec names %s %lld, which is never declared", what[k],
			    (long long)r->trec_max[k]);
	}
	if (r->tpers < r->twins && !cut)
		return fail(r, "trace window %llu has no tper record",
			    (unsigned long long)r->tpers);
	if (cut && pw_trace_prune(r->w, (int64_t)count[0], (int64_t)count[1]))
		return write_fail(r);
	return 0;
}

/* The native engine's locations and heap buckets named (natsym.h). */
static int native_names(struct reader *r)
{
	char why[DC_ERRLEN];
	uint64_t merged;

	if (natsym_check(&r->ns, why, sizeof why, &r->lineno))
		return fail(r, "%s", why);
	r->lineno = 0;
	if (natsym_apply(&r->ns, r->w->db, &merged))
		return write_fail(r);
	r->s->buckets -= merged;
	return 0;
}

static int check_dense(struct reader *r, const struct idset *set, const char *what)
{
	if (set->count && set->count != (uint64_t)set->max + 1)
		return fail(r, "%s IDs are not dense (%llu declared, largest %lld)", what,
			    (unsigned long long)set->count, (long long)set->max);
	return 0;
}

/* What must hold once the whole dump is read. */
static int check_end(struct reader *r, bool empty)
{
	r->lineno = 0;
	if (empty)
		return fail(r, "empty file");
	if (!r->header)
		return fail(r, "line 1: not a dcprof raw dump");
	if (r->s->nlevels == 0)
		return fail(r, "no level records (cut short before the cache description?)");
	if (!r->memory)
		return fail(r, "no memory record");
	if (check_dense(r, &r->buckets, "bucket") || check_dense(r, &r->locs, "location"))
		return -1;
	if (r->block_bucket_max >= 0 && (uint64_t)r->block_bucket_max >= r->buckets.count) {
		r->lineno = r->block_bucket_line;
		return fail(r, "block names bucket %lld, which is never declared",
			    (long long)r->block_bucket_max);
	}
	return trace_refs(r) || reuse_bounds(r) || native_names(r);
}

/* Lines of at most RAW_MAX_LINE bytes from a file: getline would grow its
 * buffer without bound on a file without newlines (/dev/zero).  The
 * buffer starts small and doubles up to RAW_MAX_LINE. */
struct lines {
	FILE *f;
	char *buf;
	size_t cap, start, end;   /* the bytes not handed out yet: buf[start, end) */
	bool eof;
};

/* The next line without its '\n' in *line, *len; 1 for a line ending in
 * '\n', 2 for a last line without one, 0 at the end, -1 when a line is
 * longer than RAW_MAX_LINE, -2 on a read error. */
static int lines_next(struct lines *l, char **line, size_t *len)
{
	for (;;) {
		char *nl = l->end > l->start ? memchr(l->buf + l->start, '\n', l->end - l->start)
					     : NULL;
		size_t got;

		if (nl) {
			*line = l->buf + l->start;
			*len = (size_t)(nl - *line);
			l->start += *len + 1;
			return 1;
		}
		if (l->eof) {
			if (l->start == l->end)
				return 0;
			*line = l->buf + l->start;
			*len = l->end - l->start;
			l->start = l->end;
			return 2;
		}
		if (l->start) {
			memmove(l->buf, l->buf + l->start, l->end - l->start);
			l->end -= l->start;
			l->start = 0;
		}
		if (l->end == l->cap) {
			if (l->cap >= RAW_MAX_LINE)
				return -1;
			l->cap = l->cap ? 2 * l->cap : 1 << 16;
			if (l->cap > RAW_MAX_LINE)
				l->cap = RAW_MAX_LINE;
			l->buf = xrealloc(l->buf, l->cap);
		}
		got = fread(l->buf + l->end, 1, l->cap - l->end, l->f);
		l->end += got;
		if (got == 0) {
			if (ferror(l->f))
				return -2;
			l->eof = true;
		}
	}
}

/* Opens path for reading if it is a regular file: a FIFO would block (and
 * O_NONBLOCK keeps the open itself from waiting for a writer), a device
 * such as /dev/zero never ends. */
static FILE *open_regular(struct reader *r, const char *path)
{
	struct stat sb;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb) < 0) {
		fail(r, "%s", strerror(errno));
		goto fail;
	}
	if (!S_ISREG(sb.st_mode)) {
		fail(r, "%s", S_ISDIR(sb.st_mode) ? strerror(EISDIR) : "not a regular file");
		goto fail;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0 || !(f = fdopen(fd, "r"))) {
		fail(r, "%s", strerror(errno));
		goto fail;
	}
	return f;
fail:
	if (fd >= 0)
		close(fd);
	return NULL;
}

int rawread(const char *path, struct profile_writer *w, struct raw_summary *s,
	    char *err, size_t errlen)
{
	struct reader r;
	struct lines in = { 0 };
	char *line;
	size_t n;
	bool empty = true;
	int rc = -1, got;

	memset(&r, 0, sizeof r);
	memset(s, 0, sizeof *s);
	s->samples = -1;
	s->end = -1;
	s->checkpoint_ms = -1;
	r.path = path;
	r.w = w;
	r.s = s;
	r.err = err;
	r.errlen = errlen;
	r.block_bucket_max = -1;
	r.rhist_bin_max = -1;
	r.trec_max[0] = r.trec_max[1] = -1;
	r.trec_time = -1;
	r.buckets.max = r.locs.max = -1;
	natsym_init(&r.ns);
	blockpair_init(&r.live);
	in.f = open_regular(&r, path);
	if (!in.f)
		return -1;
	/* A partial last line (2): the writer was cut short. */
	while ((got = lines_next(&in, &line, &n)) == 1) {
		empty = false;
		r.lineno++;
		/* record() splits the line in place: it ends at the '\n' */
		line[n] = '\0';
		if (record(&r, line, n))
			goto out;
	}
	if (got == 2)
		empty = false;
	if (got == -1) {
		r.lineno++;
		fail(&r, "line longer than %d bytes", RAW_MAX_LINE);
		goto out;
	}
	if (got == -2) {
		fail(&r, "%s", strerror(errno));
		goto out;
	}
	rc = check_end(&r, empty);
out:
	if (rc && r.write_failed)
		rc = RAWREAD_EWRITE;
	free(in.buf);
	free(r.buckets.flag);
	free(r.locs.flag);
	natsym_release(&r.ns);
	blockpair_release(&r.live);
	fclose(in.f);
	return rc;
}
