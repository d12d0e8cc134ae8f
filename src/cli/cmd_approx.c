/* cmd_approx.c — dcprof approx: data-centric misses approximated from
 * instruction-address samples and the program's sources (N. Rutar, J. K.
 * Hollingsworth, "Software Analysis Techniques to Approximate Data Centric
 * Direct Measurements"), compared with the exact counts of the same run.
 *
 * Notes (docs/approx.md defines every figure):
 *  - Samples: ip_sample (samples × period per code location), grouped by
 *    source file and line.  Lines of files that were not analysed are
 *    unattributed, as are lines without a counted location (attrib.h).
 *  - Objects, what approximation and exact counts are compared on: a
 *    global variable is the global bucket of its name; a pointer variable
 *    the sources assign an allocation to is the heap buckets whose
 *    allocation site (the first frame of the bucket's name, file:line) is
 *    that allocation; other locals and parameters are the stack bucket
 *    (<stack>, or <stack:function> when the profile has per-frame stack
 *    buckets); a local pointer with no allocation is "(unresolved)", which
 *    has no exact count; a pointer that may point into several variables
 *    (srcvars.h) gives each of their objects an equal share.  A bucket no
 *    variable reaches is its own object with no approximation.
 *  - Ranks, Spearman's rho over the exact top N, the top-N overlap and the
 *    largest share error (objects with at least 1 % of the exact events)
 *    as in dcprof accuracy, among the objects of a universe: the objects
 *    the sources' variables reach (the paper ranks program variables), or
 *    all buckets; both are computed, --rank picks the table's.  Shares of
 *    approximations are over all attributed samples, exact shares over the
 *    universe.
 *  - Skid given in instructions (--skid, or the profile's sample_skid) is
 *    turned into code lines with the profile's instructions per line:
 *    distinct data-accessing instructions per source line times Ir over
 *    data accesses (the paper's "average number of instructions associated
 *    to a source line", §3.3.3).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/approx.h"
#include "analysis/attrib.h"
#include "analysis/srcvars.h"
#include "base/fmt.h"
#include "cli/approx_insn.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"
#include "report/render.h"
#include "store/sample.h"

enum {
	OPT_SOURCES = OPT_OWN, OPT_CCMDS, OPT_CFLAGS, OPT_THRESHOLD, OPT_SKID, OPT_SKID_LINES,
	OPT_WRITES, OPT_TOP, OPT_BY, OPT_FORMAT, OPT_SKID_MODEL, OPT_SCALARS, OPT_UNIVERSE,
	OPT_LOOP_SCALARS, OPT_SPLIT,
};

static const struct opt_def approx_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_SOURCES, 0, "sources", OPT_REQUIRED },
	{ OPT_CCMDS, 0, "compile-commands", OPT_REQUIRED },
	{ OPT_CFLAGS, 0, "cflags", OPT_REQUIRED },
	{ OPT_THRESHOLD, 0, "loop-threshold", OPT_REQUIRED },
	{ OPT_SKID, 0, "skid", OPT_REQUIRED },
	{ OPT_SKID_LINES, 0, "skid-lines", OPT_REQUIRED },
	{ OPT_SKID_MODEL, 0, "skid-over", OPT_REQUIRED },
	{ OPT_SCALARS, 0, "register-scalars", OPT_REQUIRED },
	{ OPT_LOOP_SCALARS, 0, "loop-scalars", OPT_REQUIRED },
	{ OPT_SPLIT, 0, "split", OPT_REQUIRED },
	{ OPT_WRITES, 0, "writes", OPT_REQUIRED },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_UNIVERSE, 0, "rank", OPT_REQUIRED },
	{ OPT_BY, 0, "by", OPT_REQUIRED },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_approx_usage(FILE *f)
{
	fputs("usage: dcprof approx PROFILE (--sources DIR | --compile-commands FILE) [options]\n"
	      "\n"
	      "Approximate the misses of each variable from samples that carry only an\n"
	      "instruction address (ip_sample: record with --sample-ip-only) and a static\n"
	      "analysis of the program's C sources with libclang, as N. Rutar and\n"
	      "J. K. Hollingsworth, \"Software Analysis Techniques to Approximate Data\n"
	      "Centric Direct Measurements\", section 3.3: raw assignment (a line's\n"
	      "samples split over the locations it reads), loop compensation (LA) and\n"
	      "skid negation (SA, then loop compensation).  The exact counts of the same\n"
	      "run rank the same objects: Spearman's rho, top-N overlap and the largest\n"
	      "share error per method.  docs/approx.md defines every figure.\n"
	      "\n"
	      "  --sources DIR              analyse the C files under DIR\n"
	      "  --compile-commands FILE    analyse the C files of FILE\n"
	      "                             (compile_commands.json, e.g. from bear -- make)\n"
	      "  --cflags FLAGS             extra compiler flags for the analysis (-I, -D)\n"
	      "  --loop-threshold T|off     loop compensation threshold, 0 to 1, or off\n"
	      "                             (default: 0.75)\n"
	      "  --skid MEAN:SD             skid in instructions (default: the profile's\n"
	      "                             sample_skid; none without it)\n"
	      "  --skid-lines MEAN:SD       skid in source code lines, instead of --skid\n"
	      "  --skid-over instructions|lines\n"
	      "                             skid negation walks back over the instructions\n"
	      "                             (objdump's disassembly) or over source lines in\n"
	      "                             source order, the paper's first mapping\n"
	      "                             (default: instructions)\n"
	      "  --register-scalars exclude|count\n"
	      "                             whether reads of local scalars whose address is\n"
	      "                             never taken count (the paper counts them; at -O2\n"
	      "                             they live in registers; default: exclude)\n"
	      "  --split variables|locations\n"
	      "                             a line's samples split over the variables it\n"
	      "                             accesses, then over each one's locations, or over\n"
	      "                             its locations (the paper; default: variables)\n"
	      "  --loop-scalars demote|count\n"
	      "                             whether a whole variable read in a loop counts\n"
	      "                             on a line with other locations (the paper counts\n"
	      "                             it; it stays cached; default: demote)\n"
	      "  --writes yes|no            count written locations too (default: yes\n"
	      "                             unless the sampled event is Dr)\n"
	      "  --top N                    the top N objects of each order (default: 10)\n"
	      "  --rank variables|buckets   what is ranked: the objects the sources'\n"
	      "                             variables reach, the paper's universe, or every\n"
	      "                             bucket, library and loader data included; the\n"
	      "                             figures of both are printed (default: variables)\n"
	      "  --by object|variable|line  the table: objects compared with exact counts,\n"
	      "                             variables, or lines by variable (default: object)\n"
	      "  --format text|csv|json     output format; csv has the rows only\n"
	      "                             (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

enum by { BY_OBJECT, BY_VARIABLE, BY_LINE };

/* What the objects are ranked among (docs/approx.md, "Figures"). */
enum universe { U_VARIABLES, U_BUCKETS, U_N };

static const char *const universe_name[U_N] = { "variables", "buckets" };

#define SKID_INSNS 256          /* instructions a skid window may span */

static const char *const method_name[AT_METHODS] = { "raw", "LA", "SA" };

struct object {
	char *name;
	const char *kind;
	int64_t exact;
	bool has_exact;
	double approx[AT_METHODS];
	size_t rank_exact, rank[AT_METHODS];
	bool row;
	bool var;               /* a variable of the sources with a counted access reaches it */
};

/* The comparison of the approximation with the exact counts over one
 * universe. */
struct figures {
	size_t ntop;
	int64_t exact_total;
	size_t overlap[AT_METHODS];
	bool has_rho[AT_METHODS], has_err[AT_METHODS];
	double rho[AT_METHODS], max_err[AT_METHODS];
};

struct bucket {
	int64_t id;
	char *name;
	char kind[16];
	int64_t exact;
	int obj;
};

struct approx {
	const char *path, *sources, *ccmds, *cflags;
	size_t top;
	enum by by;
	enum out_format format;
	struct at_opts at;
	bool has_skid, has_skid_lines;
	bool skid_lines_model;          /* --skid-over lines, or the fallback */
	struct approx_insn groups;
	double skid[2], insns_per_line;
	int writes;                     /* -1: by event */
	struct sample_info si;
	struct sbuf skid_meta;
	struct sv_prog prog;
	struct at_line *lines;
	size_t nlines;
	double total_samples, not_analysed;
	struct at_result res;
	double *var_approx[AT_METHODS];
	int *var_obj;
	struct bucket *b;
	size_t nb;
	struct object *o;
	size_t no;
	int64_t exact_total;
	double approx_total[AT_METHODS];
	enum universe universe;
	struct figures fig[U_N];
};

static int parse_real(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end == s || *end || !isfinite(*v) ? -1 : 0;
}

static int parse_pair(const char *opt, const char *s, double v[2])
{
	const char *colon = strchr(s, ':');
	char first[64];

	if (colon && (size_t)(colon - s) < sizeof first) {
		memcpy(first, s, (size_t)(colon - s));
		first[colon - s] = 0;
		if (!parse_real(first, &v[0]) && !parse_real(colon + 1, &v[1]) && v[0] >= 0 &&
		    v[1] >= 0 && v[0] < 1e6 && v[1] < 1e6)
			return 0;
	}
	err_msg("invalid %s value '%s' (MEAN:SD, two numbers 0 or more)", opt, s);
	return -1;
}

/* An option with two values: *second tells which. */
static int parse_either(const char *opt, const char *arg, const char *one, const char *two,
			bool *second)
{
	if (strcmp(arg, one) && strcmp(arg, two)) {
		err_msg("invalid %s value '%s' (%s or %s)", opt, arg, one, two);
		return -1;
	}
	*second = !strcmp(arg, two);
	return 0;
}

static int parse(struct approx *a, int argc, char **argv)
{
	struct opt_iter it;
	bool buckets = false;
	uint64_t v;
	int id;

	a->top = 10;
	a->writes = -1;
	a->at.loop = true;
	a->at.threshold = 0.75;
	a->at.registers = false;
	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, approx_opts, "approx", cmd_approx_usage, &a->path)) > 0) {
		switch (id) {
		case OPT_SOURCES:
			a->sources = it.arg;
			break;
		case OPT_CCMDS:
			a->ccmds = it.arg;
			break;
		case OPT_CFLAGS:
			a->cflags = it.arg;
			break;
		case OPT_THRESHOLD:
			if (!strcmp(it.arg, "off")) {
				a->at.loop = false;
			} else if (parse_real(it.arg, &a->at.threshold) || a->at.threshold < 0 ||
				   a->at.threshold > 1) {
				err_msg("invalid --loop-threshold value '%s' (a number from 0 to 1,"
					" or off)", it.arg);
				return -1;
			}
			break;
		case OPT_SKID:
			if (parse_pair("--skid", it.arg, a->skid))
				return -1;
			a->has_skid = true;
			break;
		case OPT_SKID_LINES:
			if (parse_pair("--skid-lines", it.arg, a->skid))
				return -1;
			a->has_skid_lines = true;
			break;
		case OPT_SKID_MODEL:
			if (parse_either("--skid-over", it.arg, "instructions", "lines",
					 &a->skid_lines_model))
				return -1;
			break;
		case OPT_SCALARS:
			if (parse_either("--register-scalars", it.arg, "exclude", "count",
					 &a->at.registers))
				return -1;
			break;
		case OPT_SPLIT:
			if (parse_either("--split", it.arg, "variables", "locations",
					 &a->at.per_location))
				return -1;
			break;
		case OPT_LOOP_SCALARS:
			if (parse_either("--loop-scalars", it.arg, "demote", "count",
					 &a->at.loop_scalars))
				return -1;
			break;
		case OPT_WRITES:
			a->writes = opt_parse_yesno(it.arg);
			if (a->writes < 0) {
				err_msg("invalid --writes value '%s' (yes or no)", it.arg);
				return -1;
			}
			break;
		case OPT_TOP:
			if (num_parse_u64(it.arg, SIZE_MAX, &v) || v == 0) {
				err_msg("invalid --top value '%s' (a number of objects, 1 or more)",
					it.arg);
				return -1;
			}
			a->top = (size_t)v;
			break;
		case OPT_UNIVERSE:
			if (parse_either("--rank", it.arg, "variables", "buckets", &buckets))
				return -1;
			a->universe = buckets ? U_BUCKETS : U_VARIABLES;
			break;
		case OPT_BY:
			if (!strcmp(it.arg, "object"))
				a->by = BY_OBJECT;
			else if (!strcmp(it.arg, "variable"))
				a->by = BY_VARIABLE;
			else if (!strcmp(it.arg, "line"))
				a->by = BY_LINE;
			else {
				err_msg("invalid --by value '%s' (object, variable or line)", it.arg);
				return -1;
			}
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &a->format))
				return -1;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	if (!a->sources == !a->ccmds) {
		err_msg("give the program's sources: --sources DIR or --compile-commands FILE"
			" (one of them)");
		return -1;
	}
	if (a->has_skid && a->has_skid_lines) {
		err_msg("--skid and --skid-lines exclude each other");
		return -1;
	}
	a->skid_lines_model |= a->has_skid_lines;
	return 0;
}

/* ---- the profile ----------------------------------------------------------- */

static int query_error(struct profile *p, sqlite3_stmt *st, char *err, size_t errlen)
{
	sqlite3_finalize(st);
	profile_read_error(p, err, errlen);
	return -1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The samples per source line; lines of files not analysed are counted in
 * not_analysed. */
static int read_samples(struct profile *p, struct approx *a, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	rc = sqlite3_prepare_v2(p->db, "SELECT name FROM sqlite_master WHERE type = 'table'"
				" AND name = 'ip_sample'", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return query_error(p, NULL, err, errlen);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		snprintf(err, errlen, "profile '%s' has no instruction-address samples (ip_sample);"
			 " record with --sample=EVENT:N --sample-ip-only", p->path);
		return -1;
	}
	rc = sqlite3_prepare_v2(p->db, "SELECT l.file, l.line, SUM(s.count) FROM ip_sample s"
				" JOIN location l ON l.id = s.location"
				" GROUP BY l.file, l.line ORDER BY l.file, l.line", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return query_error(p, NULL, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *file = (const char *)sqlite3_column_text(st, 0);
		int64_t line = sqlite3_column_int64(st, 1);
		double count = sqlite3_column_double(st, 2);
		int f = -1;

		if (count <= 0)
			continue;
		a->total_samples += count;
		if (file && *file && line > 0 && line <= UINT32_MAX)
			f = approx_find_file(&a->prog, file);
		if (f < 0) {
			a->not_analysed += count;
			continue;
		}
		if (a->nlines == cap) {
			cap = cap ? 2 * cap : 256;
			a->lines = xrealloc(a->lines, cap * sizeof *a->lines);
		}
		a->lines[a->nlines++] = (struct at_line){ (uint32_t)f, (uint32_t)line, count };
	}
	if (rc != SQLITE_DONE)
		return query_error(p, st, err, errlen);
	sqlite3_finalize(st);
	return 0;
}

/* Per analysed file: samples on lines past its end or on lines without any
 * location mean the file is not the one the program was built from. */
static void check_lines(struct approx *a)
{
	for (size_t f = 0; f < a->prog.nfiles; f++) {
		double total = 0, off = 0;
		bool past = false;

		for (size_t i = 0; i < a->nlines; i++) {
			size_t n;

			if (a->lines[i].file != f)
				continue;
			total += a->lines[i].count;
			sv_line_accesses(&a->prog, (uint32_t)f, a->lines[i].line, &n);
			if (!n)
				off += a->lines[i].count;
			past |= a->lines[i].line > a->prog.files[f].nlines;
		}
		if (past || (total > 0 && off > total / 2))
			err_note("warning: '%s': %.0f of %.0f samples are on lines %s; is it the"
				 " source the program was built from?", a->prog.files[f].path, off,
				 total, past ? "past its end or without variables" : "without variables");
	}
}

static int read_buckets(struct profile *p, struct approx *a, char *err, size_t errlen)
{
	struct sbuf ev, sql;
	sqlite3_stmt *st;
	size_t cap = 0;
	bool ovf = false;
	int rc;

	sbuf_init(&ev);
	sbuf_init(&sql);
	sample_event_sql(&ev, &a->si);
	sbuf_addf(&sql, "SELECT b.id, b.name, b.kind, (SELECT SUM(%s) FROM cost c"
		  " WHERE c.bucket = b.id) FROM bucket b ORDER BY b.id", ev.buf);
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	sbuf_release(&ev);
	sbuf_release(&sql);
	if (rc != SQLITE_OK)
		return query_error(p, NULL, err, errlen);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bucket *b;

		if (a->nb == cap) {
			cap = cap ? 2 * cap : 64;
			a->b = xrealloc(a->b, cap * sizeof *a->b);
		}
		b = &a->b[a->nb++];
		b->id = sqlite3_column_int64(st, 0);
		b->name = xmemdup(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1));
		snprintf(b->kind, sizeof b->kind, "%s", (const char *)sqlite3_column_text(st, 2));
		b->exact = sqlite3_column_int64(st, 3);
		b->obj = -1;
		a->exact_total = num_add(a->exact_total, b->exact, &ovf);
	}
	if (rc != SQLITE_DONE)
		return query_error(p, st, err, errlen);
	sqlite3_finalize(st);
	if (ovf) {
		profile_overflow_error(p, err, errlen);
		return -1;
	}
	return 0;
}

static int meta_real(struct profile *p, const char *key, double *v)
{
	struct sbuf s;
	int rc;

	sbuf_init(&s);
	rc = profile_meta(p, key, &s);
	rc = rc == 1 && !parse_real(s.buf, v) ? 0 : -1;
	sbuf_release(&s);
	return rc;
}

/* Instructions per source line (Notes), for skid given in instructions. */
static int insns_per_line(struct profile *p, struct approx *a, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	double ir, per_line = 0, accesses = 0;
	int rc;

	if (meta_real(p, "Ir", &ir) || ir <= 0) {
		snprintf(err, errlen, "cannot turn --skid into source lines: profile '%s' has no"
			 " instruction count (meta Ir); give --skid-lines", p->path);
		return -1;
	}
	rc = sqlite3_prepare_v2(p->db, "SELECT (SELECT CAST(COUNT(*) AS REAL)"
				" / MAX(COUNT(DISTINCT file || ':' || line), 1) FROM location"
				" WHERE line > 0 AND id IN (SELECT location FROM cost)),"
				" (SELECT SUM(Dr + Dw) FROM cost)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return query_error(p, NULL, err, errlen);
	if (sqlite3_step(st) == SQLITE_ROW) {
		per_line = sqlite3_column_double(st, 0);
		accesses = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	if (per_line <= 0 || accesses <= 0) {
		snprintf(err, errlen, "cannot turn --skid into source lines: profile '%s' has no"
			 " data accesses with lines; give --skid-lines", p->path);
		return -1;
	}
	a->insns_per_line = per_line * (ir / accesses);
	return 0;
}

static int skid_in_lines(struct profile *p, struct approx *a, char *err, size_t errlen);

/* The skid in code lines: --skid-lines, --skid or meta sample_skid over
 * instructions per line, or none (sd -1). */
static int skid_setup(struct profile *p, struct approx *a, char *err, size_t errlen)
{
	int rc;

	a->at.skid_sd = -1;
	if (a->has_skid_lines) {
		a->at.skid_mean = a->skid[0];
		a->at.skid_sd = a->skid[1];
		return 0;
	}
	if (!a->has_skid) {
		rc = profile_meta(p, "sample_skid", &a->skid_meta);
		if (rc < 0)
			return query_error(p, NULL, err, errlen);
		if (rc == 0)
			return 0;
		if (!strcmp(a->skid_meta.buf, "hardware")) {
			err_note("warning: the samples' skid is the hardware's, unknown: no skid"
				 " negation; give --skid or --skid-lines");
			return 0;
		}
		{
			char *colon = strchr(a->skid_meta.buf, ':');

			if (!colon)
				goto bad_meta;
			*colon = 0;
			if (parse_real(a->skid_meta.buf, &a->skid[0]) ||
			    parse_real(colon + 1, &a->skid[1]))
				goto bad_meta;
			*colon = ':';
		}
	}
	if (a->skid[0] == 0 && a->skid[1] == 0)
		return 0;
	if (!a->skid_lines_model) {
		a->at.skid_mean = a->skid[0];
		a->at.skid_sd = a->skid[1];
		return 0;
	}
	return skid_in_lines(p, a, err, errlen);
bad_meta:
	snprintf(err, errlen, "cannot read profile '%s': invalid sample_skid", p->path);
	return -1;
}

/* The skid over instructions: the groups, or the skid over source lines
 * when no object could be disassembled. */
static int skid_groups(struct profile *p, struct approx *a, char *err, size_t errlen)
{
	double w[SKID_INSNS];
	size_t nw;

	if (a->skid_lines_model || a->at.skid_sd < 0)
		return 0;
	nw = approx_skid_offsets(a->skid[0], a->skid[1], w, SKID_INSNS);
	if (approx_insn_groups(p, &a->prog, w, nw, &a->groups, err, errlen))
		return -1;
	if (a->groups.objects)
		return 0;
	err_note("warning: no object disassembled: skid negation over source lines");
	a->skid_lines_model = true;
	return skid_in_lines(p, a, err, errlen);
}

/* --skid (instructions) in code lines. */
static int skid_in_lines(struct profile *p, struct approx *a, char *err, size_t errlen)
{
	if (insns_per_line(p, a, err, errlen))
		return -1;
	a->at.skid_mean = a->skid[0] / a->insns_per_line;
	a->at.skid_sd = a->skid[1] / a->insns_per_line;
	return 0;
}

/* The profile's --alloc-fn names (meta alloc_fns, comma-separated) are
 * allocation functions to the analysis too. */
static int alloc_fns(struct profile *p, struct sv_prog *pg, char *err, size_t errlen)
{
	struct sbuf v;
	int rc;

	sbuf_init(&v);
	rc = profile_meta(p, "alloc_fns", &v);
	if (rc < 0) {
		sbuf_release(&v);
		return query_error(p, NULL, err, errlen);
	}
	for (char *s = rc ? v.buf : NULL, *e; s && *s; s = e ? e + 1 : NULL) {
		e = strchr(s, ',');
		if (e)
			*e = 0;
		if (*s)
			sv_add_alloc_fn(pg, s);
	}
	sbuf_release(&v);
	return 0;
}

/* ---- objects --------------------------------------------------------------- */

static int add_object(struct approx *a, const char *name, const char *kind)
{
	struct object *o;

	a->o = xrealloc(a->o, (a->no + 1) * sizeof *a->o);
	o = &a->o[a->no];
	memset(o, 0, sizeof *o);
	o->name = xmemdup(name, strlen(name));
	o->kind = kind;
	return (int)a->no++;
}

static int find_bucket(const struct approx *a, const char *name, const char *kind)
{
	for (size_t i = 0; i < a->nb; i++)
		if (!strcmp(a->b[i].name, name) && !strcmp(a->b[i].kind, kind))
			return (int)i;
	return -1;
}

/* A global's bucket: its name, or "name (file.c)" for a file-static. */
static int global_bucket(const struct approx *a, const char *name)
{
	size_t n = strlen(name);
	int i = find_bucket(a, name, "global");

	for (size_t j = 0; i < 0 && j < a->nb; j++)
		if (!strncmp(a->b[j].name, name, n) && !strncmp(a->b[j].name + n, " (", 2) &&
		    !strcmp(a->b[j].kind, "global"))
			i = (int)j;
	return i;
}

/* The allocation site of a heap bucket "fn (file:line) < ...": file's last
 * component and line; false when the name has none. */
static bool heap_site(const char *name, char *file, size_t cap, unsigned long *line)
{
	const char *open = strstr(name, " ("), *close, *colon, *slash;

	if (!open)
		return false;
	open += 2;
	close = strchr(open, ')');
	if (!close)
		return false;
	colon = close;
	while (colon > open && *colon != ':')
		colon--;
	if (colon == open)
		return false;
	for (slash = colon; slash > open && slash[-1] != '/'; slash--)
		;
	if ((size_t)(colon - slash) >= cap)
		return false;
	memcpy(file, slash, (size_t)(colon - slash));
	file[colon - slash] = 0;
	*line = strtoul(colon + 1, NULL, 10);
	return true;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;

	return (x > y) - (x < y);
}

/* Which object each variable's approximation goes to (Notes); a pointer
 * that may point into several variables has one only when it is one of
 * them (it owns a block too). */
static void map_variables(struct approx *a)
{
	struct sv_prog *pg = &a->prog;
	int unresolved = -1, stack = -1;
	bool frames = false;
	struct sbuf name;

	sbuf_init(&name);
	for (size_t i = 0; i < a->nb; i++)
		frames |= !strncmp(a->b[i].name, "<stack:", 7);
	a->var_obj = xcalloc(pg->nvars + 1, sizeof *a->var_obj);
	for (size_t v = 0; v < pg->nvars; v++) {
		const struct sv_var *var = &pg->vars[v];
		bool heap = false, named = false;
		int o = -1, b;

		a->var_obj[v] = -1;
		if (var->alias >= 0 || (var->nmay && !bsearch(&(uint32_t){ (uint32_t)v }, var->may,
							       var->nmay, sizeof *var->may,
							       cmp_u32)))
			continue;
		for (size_t k = 0; k < pg->nallocs; k++) {
			heap |= pg->allocs[k].var == v;
			named |= pg->allocs[k].var == v && pg->allocs[k].label;
		}
		if (heap) {
			sbuf_reset(&name);
			sbuf_adds(&name, var->name);
			if (var->scope != SV_GLOBAL)
				sbuf_addf(&name, " (%s)", var->func);
			o = add_object(a, name.buf, named ? "user" : "heap");
			for (size_t i = 0; i < a->nb; i++) {
				char file[256];
				unsigned long line;

				if (strcmp(a->b[i].kind, "heap") || a->b[i].obj >= 0 ||
				    !heap_site(a->b[i].name, file, sizeof file, &line))
					continue;
				for (size_t k = 0; k < pg->nallocs; k++) {
					const struct sv_alloc *al = &pg->allocs[k];

					if (al->var == v && !al->label && line >= al->first &&
					    line <= al->last &&
					    !strcmp(file, base_name(pg->files[al->file].path)))
						a->b[i].obj = o;
				}
			}
			/* A naming allocator's block: the user bucket of its name. */
			for (size_t k = 0; k < pg->nallocs; k++) {
				const struct sv_alloc *al = &pg->allocs[k];
				int ub = al->var == v && al->label ?
					 find_bucket(a, al->label, "user") : -1;

				if (ub >= 0 && a->b[ub].obj < 0)
					a->b[ub].obj = o;
			}
		} else if (var->scope == SV_GLOBAL) {
			b = global_bucket(a, var->name);
			if (b >= 0 && a->b[b].obj >= 0) {
				o = a->b[b].obj;
			} else {
				o = add_object(a, var->name, "global");
				if (b >= 0)
					a->b[b].obj = o;
			}
		} else if (var->pointer && !var->array) {
			if (unresolved < 0)
				unresolved = add_object(a, "(unresolved)", "-");
			o = unresolved;
		} else if (frames) {
			sbuf_reset(&name);
			sbuf_addf(&name, "<stack:%s>", var->func);
			b = find_bucket(a, name.buf, "stack");
			if (b >= 0 && a->b[b].obj >= 0) {
				o = a->b[b].obj;
			} else {
				o = add_object(a, name.buf, "stack");
				if (b >= 0)
					a->b[b].obj = o;
			}
		} else {
			if (stack < 0) {
				b = find_bucket(a, "<stack>", "stack");
				stack = add_object(a, "<stack>", "stack");
				if (b >= 0)
					a->b[b].obj = stack;
			}
			o = stack;
		}
		a->var_obj[v] = o;
	}
	/* Buckets no variable reaches are objects of their own. */
	for (size_t i = 0; i < a->nb; i++)
		if (a->b[i].obj < 0 && a->b[i].exact > 0) {
			a->b[i].obj = add_object(a, a->b[i].name, "");
			a->o[a->b[i].obj].kind = NULL;
		}
	for (size_t i = 0; i < a->nb; i++) {
		struct object *o;

		if (a->b[i].obj < 0)
			continue;
		o = &a->o[a->b[i].obj];
		o->has_exact = true;
		o->exact += a->b[i].exact;
		if (!o->kind)
			o->kind = a->b[i].kind;
	}
	sbuf_release(&name);
}

static void sum_approx(struct approx *a)
{
	struct sv_prog *pg = &a->prog;

	for (int m = 0; m < AT_METHODS; m++)
		a->var_approx[m] = xcalloc(pg->nvars + 1, sizeof *a->var_approx[m]);
	for (size_t i = 0; i < pg->nacc; i++)
		for (int m = 0; m < AT_METHODS; m++)
			a->var_approx[m][pg->acc[i].var] += a->res.val[m][i];
	/* A pointer that may point into several variables: equal shares. */
	for (size_t v = 0; v < pg->nvars; v++) {
		const struct sv_var *var = &pg->vars[v];
		size_t n = var->nmay ? var->nmay : 1;

		for (size_t k = 0; k < n; k++) {
			int o = a->var_obj[var->nmay ? var->may[k] : v];

			for (int m = 0; o >= 0 && m < AT_METHODS; m++) {
				a->o[o].approx[m] += a->var_approx[m][v] / (double)n;
				a->approx_total[m] += a->var_approx[m][v] / (double)n;
			}
		}
	}
}

struct order_ctx {
	const struct object *o;
	int which;              /* -1: exact, else a method */
};

static double value(const struct object *o, int which)
{
	return which < 0 ? (double)o->exact : o->approx[which];
}

static int cmp_order(const void *pa, const void *pb, void *arg)
{
	const struct order_ctx *c = arg;
	const struct object *x = &c->o[*(const size_t *)pa], *y = &c->o[*(const size_t *)pb];
	double vx = value(x, c->which), vy = value(y, c->which);

	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The paper's universe, the program's variables: the objects the sources'
 * variables map to (globals, heap blocks assigned to a variable, user
 * buckets), the stack when a local that is not a register scalar maps to
 * it.  Library and loader data, <malloc>, a stack whose variables all live
 * in registers have no variable to be attributed to. */
static void mark_variables(struct approx *a)
{
	const struct sv_prog *pg = &a->prog;

	for (size_t v = 0; v < pg->nvars; v++) {
		const struct sv_var *var = &pg->vars[v];
		struct object *o = a->var_obj[v] >= 0 ? &a->o[a->var_obj[v]] : NULL;

		if (o && (!o->kind || strcmp(o->kind, "stack") || !var->automatic ||
			  var->addr_taken || a->at.registers))
			o->var = true;
	}
	for (size_t i = 0; i < a->nb; i++)
		if (a->b[i].obj >= 0 && !strcmp(a->b[i].kind, "user"))
			a->o[a->b[i].obj].var = true;
}

static bool in_universe(const struct object *o, enum universe u)
{
	return u == U_BUCKETS || o->var;
}

/* Ranks each order among the objects of universe u and computes its
 * figures; with mark, the ranks and rows shown are these. */
static void compare(struct approx *a, enum universe u, bool mark)
{
	struct figures *f = &a->fig[u];
	size_t *ord = xcalloc(a->no + 1, sizeof *ord), *top = xcalloc(a->no + 1, sizeof *top);
	size_t *rank = xcalloc((a->no + 1) * AT_METHODS, sizeof *rank);
	double *x = xcalloc(a->no + 1, sizeof *x), *y = xcalloc(a->no + 1, sizeof *y);
	double *rx = xcalloc(a->no + 1, sizeof *rx), *ry = xcalloc(a->no + 1, sizeof *ry);

	for (size_t i = 0; i < a->no; i++)
		if (in_universe(&a->o[i], u))
			f->exact_total += a->o[i].exact;
	for (int w = -1; w < AT_METHODS; w++) {
		struct order_ctx c = { a->o, w };
		size_t n = 0, r = 0;

		for (size_t i = 0; i < a->no; i++)
			if (in_universe(&a->o[i], u))
				ord[n++] = i;
		qsort_r(ord, n, sizeof *ord, cmp_order, &c);
		for (size_t i = 0; i < n && value(&a->o[ord[i]], w) > 0; i++) {
			struct object *o = &a->o[ord[i]];

			if (w >= 0)
				rank[ord[i] * AT_METHODS + (size_t)w] = i + 1;
			if (mark) {
				if (w < 0)
					o->rank_exact = i + 1;
				else
					o->rank[w] = i + 1;
				o->row |= i < a->top;
			}
			if (w < 0 && i < a->top)
				top[r++] = ord[i];
		}
		if (w < 0)
			f->ntop = r;
	}
	for (int m = 0; m < AT_METHODS; m++) {
		for (size_t i = 0; i < f->ntop; i++) {
			size_t rk = rank[top[i] * AT_METHODS + (size_t)m];

			x[i] = (double)a->o[top[i]].exact;
			y[i] = a->o[top[i]].approx[m];
			f->overlap[m] += rk && rk <= a->top;
		}
		f->has_rho[m] = !approx_spearman(x, y, f->ntop, rx, ry, &f->rho[m]);
		for (size_t i = 0; f->exact_total > 0 && a->approx_total[m] > 0 && i < a->no; i++) {
			const struct object *o = &a->o[i];
			double se = 100.0 * (double)o->exact / (double)f->exact_total;
			double sa = 100.0 * o->approx[m] / a->approx_total[m];

			if (in_universe(o, u) && o->has_exact && se >= 1.0 &&
			    (!f->has_err[m] || fabs(sa - se) > f->max_err[m])) {
				f->max_err[m] = fabs(sa - se);
				f->has_err[m] = true;
			}
		}
	}
	free(ord);
	free(top);
	free(rank);
	free(x);
	free(y);
	free(rx);
	free(ry);
}

/* ---- output ---------------------------------------------------------------- */

static void object_table(const struct approx *a, struct table *t)
{
	int ce, cr, cm;
	size_t *ord = xcalloc(a->no + 1, sizeof *ord);
	struct order_ctx c = { a->o, -1 };

	table_add_col(t, "object", NULL, COL_STR, true);
	table_add_col(t, "kind", NULL, COL_STR, true);
	cr = table_add_col(t, "exact_rank", "exact rank", COL_INT, false);
	ce = table_add_col(t, "exact", NULL, COL_INT, false);
	cm = table_add_col(t, "raw_rank", "raw rank", COL_INT, false);
	table_add_col(t, "raw", NULL, COL_REAL, false);
	table_add_col(t, "LA_rank", "LA rank", COL_INT, false);
	table_add_col(t, "LA", NULL, COL_REAL, false);
	table_add_col(t, "SA_rank", "SA rank", COL_INT, false);
	table_add_col(t, "SA", NULL, COL_REAL, false);
	for (size_t i = 0; i < a->no; i++)
		ord[i] = i;
	qsort_r(ord, a->no, sizeof *ord, cmp_order, &c);
	for (size_t i = 0; i < a->no; i++) {
		const struct object *o = &a->o[ord[i]];
		struct cell *row;

		if (!o->row)
			continue;
		row = table_add_row(t);
		cell_set_str(&row[0], o->name, strlen(o->name));
		cell_set_str(&row[1], o->kind, strlen(o->kind));
		if (o->rank_exact)
			cell_set_int(&row[cr], (int64_t)o->rank_exact);
		if (o->has_exact)
			cell_set_int(&row[ce], o->exact);
		for (int m = 0; m < AT_METHODS; m++) {
			if (o->rank[m])
				cell_set_int(&row[cm + 2 * m], (int64_t)o->rank[m]);
			cell_set_real(&row[cm + 2 * m + 1], o->approx[m]);
		}
	}
	free(ord);
}

static const char *scope_name(enum sv_scope s)
{
	return s == SV_GLOBAL ? "global" : s == SV_PARAM ? "parameter" : "local";
}

static void variable_table(const struct approx *a, struct table *t)
{
	const struct sv_prog *pg = &a->prog;
	struct sbuf objs;
	int cm;

	sbuf_init(&objs);
	table_add_col(t, "variable", NULL, COL_STR, true);
	table_add_col(t, "function", NULL, COL_STR, true);
	table_add_col(t, "scope", NULL, COL_STR, false);
	table_add_col(t, "object", NULL, COL_STR, false);
	cm = table_add_col(t, "raw", NULL, COL_REAL, false);
	table_add_col(t, "LA", NULL, COL_REAL, false);
	table_add_col(t, "SA", NULL, COL_REAL, false);
	for (size_t v = 0; v < pg->nvars; v++) {
		const struct sv_var *var = &pg->vars[v];
		struct cell *row;

		if (var->alias >= 0 || !(a->var_approx[AT_RAW][v] > 0 || a->var_approx[AT_SA][v] > 0))
			continue;
		row = table_add_row(t);
		cell_set_str(&row[0], var->name, strlen(var->name));
		cell_set_str(&row[1], var->func, strlen(var->func));
		cell_set_str(&row[2], scope_name(var->scope), strlen(scope_name(var->scope)));
		/* Several objects: "a | b", each an equal share. */
		sbuf_reset(&objs);
		for (size_t k = 0; k < (var->nmay ? var->nmay : 1); k++) {
			int o = a->var_obj[var->nmay ? var->may[k] : v];

			if (o >= 0)
				sbuf_addf(&objs, "%s%s", objs.len ? " | " : "", a->o[o].name);
		}
		if (objs.len)
			cell_set_str(&row[3], objs.buf, objs.len);
		for (int m = 0; m < AT_METHODS; m++)
			cell_set_real(&row[cm + m], a->var_approx[m][v]);
	}
	sbuf_release(&objs);
	table_sort(t, cm + AT_LA);
}

static void line_table(const struct approx *a, struct table *t)
{
	const struct sv_prog *pg = &a->prog;
	int cm;

	table_add_col(t, "file", NULL, COL_STR, true);
	table_add_col(t, "line", NULL, COL_INT, true);
	table_add_col(t, "variable", NULL, COL_STR, true);
	table_add_col(t, "location", NULL, COL_STR, true);
	cm = table_add_col(t, "raw", NULL, COL_REAL, false);
	table_add_col(t, "LA", NULL, COL_REAL, false);
	table_add_col(t, "SA", NULL, COL_REAL, false);
	for (size_t i = 0; i < pg->nacc; i++) {
		const struct sv_access *ac = &pg->acc[i];
		const char *path = pg->files[ac->file].path, *name = pg->vars[ac->var].name;
		struct cell *row;

		if (!(a->res.val[AT_RAW][i] > 0 || a->res.val[AT_SA][i] > 0))
			continue;
		row = table_add_row(t);
		cell_set_str(&row[0], path, strlen(path));
		cell_set_int(&row[1], ac->line);
		cell_set_str(&row[2], name, strlen(name));
		cell_set_str(&row[3], ac->key, strlen(ac->key));
		for (int m = 0; m < AT_METHODS; m++)
			cell_set_real(&row[cm + m], a->res.val[m][i]);
	}
}

static void add_real(struct sbuf *out, bool has, double v, const char *fmt, const char *null)
{
	if (has)
		sbuf_addf(out, fmt, v);
	else
		sbuf_adds(out, null);
}

static bool insn_model(const struct approx *a)
{
	return a->at.skid_sd >= 0 && !a->skid_lines_model;
}

static double unattributed(const struct approx *a, int m)
{
	if (m == AT_SA && insn_model(a))
		return a->total_samples - a->groups.grouped + a->res.unplaced[m];
	return a->not_analysed + a->res.unplaced[m];
}

static void print_text(const struct approx *a, struct profile *p, const struct header *h,
		       const struct table *t)
{
	struct sbuf out;
	char label[40];

	sbuf_init(&out);
	header_text(&out, p, h);
	sbuf_addf(&out, "%-10s", "sampled:");
	sample_describe_ip(&out, &a->si);
	sbuf_adds(&out, "\n");
	sbuf_addf(&out, "%-10s", "skid:");
	if (a->at.skid_sd < 0)
		sbuf_adds(&out, "none (SA = LA)\n");
	else if (a->has_skid_lines)
		sbuf_addf(&out, "%.3g:%.3g source lines (--skid-lines)\n", a->at.skid_mean,
			  a->at.skid_sd);
	else if (insn_model(a))
		sbuf_addf(&out, "%.3g:%.3g instructions, walked back over the instructions of %zu"
			  " object%s\n", a->skid[0], a->skid[1], a->groups.objects,
			  a->groups.objects == 1 ? "" : "s");
	else
		sbuf_addf(&out, "%.3g:%.3g instructions = %.3g:%.3g source lines (%.2f"
			  " instructions per line)\n", a->skid[0], a->skid[1], a->at.skid_mean,
			  a->at.skid_sd, a->insns_per_line);
	sbuf_addf(&out, "%-10s%zu C files analysed, %zu variables, %zu locations on lines,"
		  " %zu loops, %zu allocations\n", "sources:", a->prog.nfiles, a->prog.nvars,
		  a->prog.nacc, a->prog.nloops, a->prog.nallocs);
	sbuf_addf(&out, "%-14s", "unattributed:");
	fmt_thousands(&out, llround(unattributed(a, AT_RAW)));
	sbuf_adds(&out, " of ");
	fmt_thousands(&out, llround(a->total_samples));
	sbuf_adds(&out, " sampled events (");
	fmt_thousands(&out, llround(a->not_analysed));
	sbuf_adds(&out, " in files not analysed, ");
	fmt_thousands(&out, llround(a->res.unplaced[AT_RAW]));
	sbuf_adds(&out, " on lines without a counted location)\n\n");
	fwrite(out.buf, 1, out.len, stdout);
	render_table_text(stdout, t, 0);
	if (a->by != BY_OBJECT) {
		sbuf_release(&out);
		return;
	}
	sbuf_reset(&out);
	if (a->exact_total == 0) {
		/* the native engine's cpu-clock samples: nothing exact to rank */
		printf("\nno exact %s counts in this profile to compare with (the simulator"
		       " engine records them: record --sample=D1m:N --sample-ip-only)\n",
		       a->si.event);
		sbuf_release(&out);
		return;
	}
	for (int k = 0; k < U_N; k++) {
		enum universe u = k ? (a->universe == U_VARIABLES ? U_BUCKETS : U_VARIABLES) : a->universe;
		const struct figures *f = &a->fig[u];

		if (u == U_VARIABLES)
			sbuf_addf(&out, "\nranked among the objects the sources' variables reach"
				  " (--rank variables): exact top %zu\n", f->ntop);
		else
			sbuf_addf(&out, "\nranked among all buckets, library and loader data"
				  " included (--rank buckets): exact top %zu\n", f->ntop);
		sbuf_addf(&out, "%-17s%8s %8s %8s\n", "", "raw", "LA", "SA");
		sbuf_addf(&out, "%-17s", "Spearman:");
		for (int m = 0; m < AT_METHODS; m++)
			add_real(&out, f->has_rho[m], f->rho[m], " %8.4f", "        -");
		snprintf(label, sizeof label, "top-%zu overlap:", a->top);
		sbuf_addf(&out, "\n%-17s", label);
		for (int m = 0; m < AT_METHODS; m++)
			sbuf_addf(&out, " %4zu of %zu", f->overlap[m], f->ntop);
		sbuf_addf(&out, "\n%-17s", "max error:");
		for (int m = 0; m < AT_METHODS; m++)
			add_real(&out, f->has_err[m], f->max_err[m], " %8.2f", "        -");
		sbuf_adds(&out, "\n");
	}
	sbuf_addf(&out, "\nSpearman over the exact top %zu; max error in percentage points of"
		  " the share, objects with at least 1%% of the exact %s events of the objects"
		  " ranked; the table ranks %s\n", a->top, a->si.event,
		  a->universe == U_VARIABLES ? "variables' objects" : "all buckets");
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);
}

/* {"raw":{...},"LA":{...},"SA":{...}}: the figures over universe u. */
static void json_methods(struct sbuf *out, const struct approx *a, enum universe u,
			 bool unattrib)
{
	const struct figures *f = &a->fig[u];

	sbuf_adds(out, "{");
	for (int m = 0; m < AT_METHODS; m++) {
		sbuf_addf(out, "%s\"%s\":{", m ? "," : "", method_name[m]);
		if (unattrib)
			sbuf_addf(out, "\"unattributed\":%.10g,", unattributed(a, m));
		sbuf_adds(out, "\"spearman\":");
		add_real(out, f->has_rho[m], f->rho[m], "%.10g", "null");
		sbuf_addf(out, ",\"top_overlap\":%zu,\"max_abs_error_pp\":", f->overlap[m]);
		add_real(out, f->has_err[m], f->max_err[m], "%.10g", "null");
		sbuf_adds(out, "}");
	}
	sbuf_adds(out, "}");
}

static void print_json(const struct approx *a, struct profile *p, const struct header *h,
		       const struct table *t)
{
	struct sbuf out;

	sbuf_init(&out);
	header_json(&out, p, h);
	sbuf_adds(&out, ",\"sample\":");
	sample_json(&out, &a->si);
	sbuf_adds(&out, ",\"skid_lines\":");
	if (a->at.skid_sd < 0 || insn_model(a))
		sbuf_adds(&out, "null");
	else
		sbuf_addf(&out, "{\"mean\":%.10g,\"sd\":%.10g}", a->at.skid_mean, a->at.skid_sd);
	sbuf_adds(&out, ",\"skid_instructions\":");
	if (insn_model(a))
		sbuf_addf(&out, "{\"mean\":%.10g,\"sd\":%.10g}", a->skid[0], a->skid[1]);
	else
		sbuf_adds(&out, "null");
	sbuf_addf(&out, ",\"loop_threshold\":");
	add_real(&out, a->at.loop, a->at.threshold, "%.10g", "null");
	sbuf_addf(&out, ",\"files\":%zu,\"sampled_events\":%.10g,\"not_analysed\":%.10g,"
		  "\"exact_events\":%lld,\"top\":%zu,\"rank\":\"%s\",\"top_exact\":%zu,"
		  "\"methods\":", a->prog.nfiles, a->total_samples, a->not_analysed,
		  (long long)a->exact_total, a->top, universe_name[a->universe],
		  a->fig[a->universe].ntop);
	json_methods(&out, a, a->universe, true);
	sbuf_adds(&out, ",\"universes\":{");
	for (int u = 0; u < U_N; u++) {
		sbuf_addf(&out, "%s\"%s\":{\"exact_events\":%lld,\"top_exact\":%zu,\"methods\":",
			  u ? "," : "", universe_name[u], (long long)a->fig[u].exact_total,
			  a->fig[u].ntop);
		json_methods(&out, a, (enum universe)u, false);
		sbuf_adds(&out, "}");
	}
	sbuf_adds(&out, "},\"rows\":");
	render_table_json_rows(&out, t, 0);
	sbuf_adds(&out, "}\n");
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);
}

static void approx_release(struct approx *a)
{
	sv_prog_release(&a->prog);
	at_result_release(&a->res);
	for (int m = 0; m < AT_METHODS; m++)
		free(a->var_approx[m]);
	free(a->var_obj);
	for (size_t i = 0; i < a->nb; i++)
		free(a->b[i].name);
	for (size_t i = 0; i < a->no; i++)
		free(a->o[i].name);
	free(a->b);
	free(a->o);
	free(a->lines);
	sbuf_release(&a->skid_meta);
	approx_insn_release(&a->groups);
}

int cmd_approx(int argc, char **argv)
{
	struct approx a = { 0 };
	struct profile p;
	struct header h;
	struct table t;
	char err[DC_ERRLEN];
	int rc, n;

	sv_prog_init(&a.prog);
	sbuf_init(&a.skid_meta);
	rc = parse(&a, argc, argv);
	if (rc) {
		approx_release(&a);
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	}
	if (profile_open_cmd(&p, a.path)) {
		approx_release(&a);
		return DC_EXIT_ERROR;
	}
	header_init(&h);
	table_init(&t);
	rc = DC_EXIT_ERROR;
	if (sample_info_read_ip(&p, &a.si, err, sizeof err) || header_read(&p, &h, err, sizeof err) ||
	    skid_setup(&p, &a, err, sizeof err))
		goto fail;
	if (alloc_fns(&p, &a.prog, err, sizeof err))
		goto fail;
	if (a.sources)
		n = sv_add_sources(&a.prog, a.sources, a.cflags, err, sizeof err);
	else
		n = sv_add_compile_commands(&a.prog, a.ccmds, a.cflags, err, sizeof err);
	if (n < 0)
		goto fail;
	if (n == 0) {
		snprintf(err, sizeof err, "no C file of '%s' could be analysed",
			 a.sources ? a.sources : a.ccmds);
		goto fail;
	}
	sv_prog_finish(&a.prog);
	if (read_samples(&p, &a, err, sizeof err) || read_buckets(&p, &a, err, sizeof err))
		goto fail;
	check_lines(&a);
	if (skid_groups(&p, &a, err, sizeof err))
		goto fail;
	a.at.writes = a.writes >= 0 ? a.writes : strcmp(a.si.event, "Dr") != 0;
	{
		struct at_groups g = { a.groups.from, a.groups.n, a.groups.count,
				       a.groups.ngroups };

		attrib_run(&a.prog, a.lines, a.nlines, &a.at, insn_model(&a) ? &g : NULL, &a.res);
	}
	map_variables(&a);
	sum_approx(&a);
	mark_variables(&a);
	compare(&a, a.universe == U_VARIABLES ? U_BUCKETS : U_VARIABLES, false);
	compare(&a, a.universe, true);
	if (a.by == BY_OBJECT)
		object_table(&a, &t);
	else if (a.by == BY_VARIABLE)
		variable_table(&a, &t);
	else
		line_table(&a, &t);
	switch (a.format) {
	case FMT_TEXT:
		print_text(&a, &p, &h, &t);
		break;
	case FMT_CSV:
		render_table_csv(stdout, &t, 0);
		break;
	case FMT_JSON:
		print_json(&a, &p, &h, &t);
		break;
	}
	rc = err_flush_output();
	goto out;
fail:
	err_msg("%s", err);
out:
	table_release(&t);
	header_release(&h);
	approx_release(&a);
	profile_close(&p);
	return rc;
}
