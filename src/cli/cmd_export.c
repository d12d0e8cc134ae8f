/* cmd_export.c — dcprof export: a profile in Callgrind's format, for
 * callgrind_annotate and KCachegrind/QCachegrind (docs/cli.md).
 *
 * Notes:
 *  - One cost line per source line of a function: "LINE Dr Dw D1mr D1mw
 *    ... DLmr DLmw Lat [SpLoss1 AcCost1 ...]", summed over buckets and
 *    threads (positions: line, absolute line numbers).
 *  - ob= is the location's ELF object; with --by-object it is the bucket
 *    ("NAME [KIND]"), and costs are summed per bucket, so each bucket
 *    shows as an object whose functions are those that accessed it.
 *  - A function's fl= is the first of its source files in name order;
 *    lines from its other files (inlined code) follow fi=, and fe= returns.
 *  - Names are compressed: "(id) name" the first time, "(id)" later.
 *    Program-supplied names are escaped as in text output (control bytes,
 *    backslash and invalid UTF-8 as \xNN), so a name cannot break a line.
 *    An unknown function or file is "???".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/err.h"
#include "cli/fmt.h"
#include "cli/header.h"
#include "cli/opts.h"
#include "cli/view.h"

enum { OPT_OUTPUT = OPT_OWN, OPT_FORMAT, OPT_BY_OBJECT };

static const struct opt_def export_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_OUTPUT, 'o', "output", OPT_REQUIRED },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ OPT_BY_OBJECT, 0, "by-object", OPT_NOARG },
	{ 0, 0, NULL, 0 },
};

void cmd_export_usage(FILE *f)
{
	fputs("usage: dcprof export PROFILE --format=callgrind -o FILE [options]\n"
	      "\n"
	      "Write a profile in another tool's format.  callgrind: Callgrind's profile\n"
	      "format, for callgrind_annotate and KCachegrind/QCachegrind, with the events\n"
	      "Dr, Dw, the misses per level, Lat and, when recorded, SpLoss<k>/AcCost<k>.\n"
	      "\n"
	      "  --format callgrind         the output format (required)\n"
	      "  -o, --output FILE          the file to write (required)\n"
	      "  --by-object                one pseudo object per bucket (\"NAME [KIND]\")\n"
	      "                             instead of the ELF objects: the functions under\n"
	      "                             it are those that accessed the bucket\n"
	      "  -h, --help                 show this help\n", f);
}

struct export {
	const char *path, *out;
	bool by_object;
};

static int parse(struct export *e, int argc, char **argv)
{
	struct opt_iter it;
	bool format = false;
	int id;

	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, export_opts, "export", cmd_export_usage, &e->path)) > 0) {
		switch (id) {
		case OPT_OUTPUT:
			e->out = it.arg;
			break;
		case OPT_FORMAT:
			if (strcmp(it.arg, "callgrind")) {
				cli_error("invalid --format value '%s' (callgrind)", it.arg);
				return -1;
			}
			format = true;
			break;
		case OPT_BY_OBJECT:
			e->by_object = true;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	if (!format) {
		cli_error("--format is required (callgrind)");
		return -1;
	}
	if (!e->out) {
		cli_error("-o FILE is required");
		return -1;
	}
	return 0;
}

/* Names already written, by kind, as a growing bitmap of ids. */
struct seen {
	unsigned char *bits;
	size_t n;
};

static bool seen_test_set(struct seen *s, int64_t id)
{
	size_t i = (size_t)id / 8;
	bool was;

	if (i >= s->n) {
		size_t n = s->n ? s->n : 64;
		while (n <= i)
			n *= 2;
		s->bits = xrealloc(s->bits, n);
		memset(s->bits + s->n, 0, n - s->n);
		s->n = n;
	}
	was = s->bits[i] >> (id % 8) & 1;
	s->bits[i] |= (unsigned char)(1u << (id % 8));
	return was;
}

/* "key=(id)" or, the first time, "key=(id) name". */
static void put_name(struct sbuf *out, const char *key, struct seen *s, int64_t id,
		     const char *name, size_t len)
{
	sbuf_addf(out, "%s=(%lld)", key, (long long)id);
	if (!seen_test_set(s, id)) {
		sbuf_adds(out, " ");
		if (len)
			fmt_text(out, name, len);
		else
			sbuf_adds(out, "???");
	}
	sbuf_adds(out, "\n");
}

static const char *col_text(sqlite3_stmt *st, int i, size_t *len)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	*len = s ? (size_t)sqlite3_column_bytes(st, i) : 0;
	return s ? s : "";
}

struct events {
	int n;                 /* cost columns */
	char names[4 + 4 * DC_MAX_LEVELS][32];
};

static void event_names(const struct profile *p, bool use, struct events *ev)
{
	ev->n = 0;
	snprintf(ev->names[ev->n++], 32, "Dr");
	snprintf(ev->names[ev->n++], 32, "Dw");
	for (int k = 1; k <= p->nlevels; k++) {
		bool last = k == p->nlevels && k > 1;
		snprintf(ev->names[ev->n++], 32, last ? "DLmr" : "D%dmr", k);
		snprintf(ev->names[ev->n++], 32, last ? "DLmw" : "D%dmw", k);
	}
	snprintf(ev->names[ev->n++], 32, "Lat");
	for (int k = 1; use && k <= p->nlevels; k++) {
		snprintf(ev->names[ev->n++], 32, "SpLoss%d", k);
		snprintf(ev->names[ev->n++], 32, "AcCost%d", k);
	}
}

/* Rows: obid, ob, kind, fnid, fn, flid, fl, line, then the events, ordered
 * by object and function, their files and lines. */
static void build_sql(struct sbuf *sql, const struct profile *p, bool use, bool by_object)
{
	const char *ob = by_object ? "b.name" : "l.object";

	sbuf_addf(sql, "SELECT DENSE_RANK() OVER (ORDER BY %s%s), %s, %s,"
		  " DENSE_RANK() OVER (ORDER BY %s%s, l.object, l.function),"
		  " l.function, DENSE_RANK() OVER (ORDER BY l.file), l.file, l.line,"
		  " SUM(c.Dr), SUM(c.Dw)", ob, by_object ? ", b.kind" : "", ob,
		  by_object ? "b.kind" : "''", ob, by_object ? ", b.kind" : "");
	for (int k = 1; k <= p->nlevels; k++)
		sbuf_addf(sql, ", SUM(c.D%dmr), SUM(c.D%dmw)", k, k);
	sbuf_adds(sql, ", SUM(c.Lat)");
	for (int k = 1; use && k <= p->nlevels; k++) {
		view_add_use_sum(sql, "SpLoss", k);
		view_add_use_sum(sql, "AcCost", k);
	}
	sbuf_adds(sql, " FROM cost c JOIN location l ON l.id = c.location"
		  " JOIN bucket b ON b.id = c.bucket");
	sbuf_addf(sql, " GROUP BY %sl.object, l.function, l.file, l.line"
		  " ORDER BY %sl.object, l.function, l.file, l.line",
		  by_object ? "c.bucket, " : "", by_object ? "c.bucket, " : "");
}

/* The cost lines and name records of every row; totals summed. */
static int write_body(struct profile *p, const struct export *e, const struct events *ev,
		      bool use, struct sbuf *body, int64_t *totals)
{
	struct seen obs = { 0 }, fns = { 0 }, fls = { 0 };
	int64_t cur_ob = -1, cur_fn = -1, fn_fl = -1, cur_fl = -1;
	struct sbuf sql;
	sqlite3_stmt *st = NULL;
	int rc;

	sbuf_init(&sql);
	build_sql(&sql, p, use, e->by_object);
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	while (rc == SQLITE_OK || rc == SQLITE_ROW) {
		if ((rc = sqlite3_step(st)) != SQLITE_ROW)
			break;
		int64_t obid = sqlite3_column_int64(st, 0), fnid = sqlite3_column_int64(st, 3);
		int64_t flid = sqlite3_column_int64(st, 5), v[4 + 4 * DC_MAX_LEVELS];
		size_t len, klen;
		const char *s;
		int last = 0;

		if (obid != cur_ob) {
			s = col_text(st, 1, &len);
			if (e->by_object && !seen_test_set(&obs, obid)) {
				const char *kind = col_text(st, 2, &klen);
				sbuf_addf(body, "ob=(%lld) ", (long long)obid);
				fmt_text(body, s, len);
				sbuf_adds(body, " [");
				fmt_text(body, kind, klen);
				sbuf_adds(body, "]\n");
			} else if (e->by_object) {
				sbuf_addf(body, "ob=(%lld)\n", (long long)obid);
			} else {
				put_name(body, "ob", &obs, obid, s, len);
			}
			cur_ob = obid;
			cur_fn = -1;
		}
		if (fnid != cur_fn) {
			s = col_text(st, 6, &len);
			put_name(body, "fl", &fls, flid, s, len);
			s = col_text(st, 4, &len);
			put_name(body, "fn", &fns, fnid, s, len);
			cur_fn = fnid;
			fn_fl = cur_fl = flid;
		}
		if (flid != cur_fl) {
			s = col_text(st, 6, &len);
			put_name(body, flid == fn_fl ? "fe" : "fi", &fls, flid, s, len);
			cur_fl = flid;
		}
		for (int i = 0; i < ev->n; i++) {
			v[i] = sqlite3_column_int64(st, 8 + i);
			totals[i] += v[i];
			if (v[i])
				last = i + 1;
		}
		sbuf_addf(body, "%lld", (long long)sqlite3_column_int64(st, 7));
		for (int i = 0; i < last; i++)
			sbuf_addf(body, " %lld", (long long)v[i]);
		sbuf_adds(body, "\n");
	}
	if (rc != SQLITE_DONE) {
		char err[DC_ERRLEN];
		profile_read_error(p, err, sizeof err);
		cli_error("%s", err);
	}
	sqlite3_finalize(st);
	sbuf_release(&sql);
	free(obs.bits);
	free(fns.bits);
	free(fls.bits);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void write_header(struct sbuf *out, struct profile *p, const struct header *h,
			 const struct events *ev, bool use, const int64_t *totals)
{
	sbuf_adds(out, "# callgrind format\nversion: 1\ncreator: dcprof " DCPROF_VERSION "\n");
	sbuf_adds(out, "cmd: ");
	fmt_text(out, h->command.buf, h->command.len);
	sbuf_adds(out, "\n");
	for (int k = 0; k < p->nlevels; k++) {
		const struct profile_level *l = &p->lv[k];
		sbuf_addf(out, "desc: %s cache: %lld B, %lld B, %lld-way associative\n",
			  l->name, (long long)l->size, (long long)l->line_size, (long long)l->assoc);
	}
	sbuf_adds(out, "positions: line\nevents:");
	for (int i = 0; i < ev->n; i++)
		sbuf_addf(out, " %s", ev->names[i]);
	sbuf_adds(out, "\n");
	sbuf_adds(out, "summary:");
	for (int i = 0; i < ev->n; i++)
		sbuf_addf(out, " %lld", (long long)totals[i]);
	sbuf_adds(out, "\n\n");
}

static int write_file(const char *path, const struct sbuf *a, const struct sbuf *b,
		      const struct sbuf *c)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		cli_error("cannot create '%s': %s", path, strerror(errno));
		return -1;
	}
	fwrite(a->buf, 1, a->len, f);
	fwrite(b->buf, 1, b->len, f);
	fwrite(c->buf, 1, c->len, f);
	if (ferror(f) | fclose(f)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		remove(path);
		return -1;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export e = { 0 };
	struct profile p;
	struct header h;
	struct events ev;
	struct sbuf head, body, tail;
	int64_t totals[4 + 4 * DC_MAX_LEVELS] = { 0 };
	char err[DC_ERRLEN];
	int rc, use;

	rc = parse(&e, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open_cmd(&p, e.path))
		return DC_EXIT_ERROR;
	header_init(&h);
	sbuf_init(&head);
	sbuf_init(&body);
	sbuf_init(&tail);
	rc = DC_EXIT_ERROR;
	use = profile_has_rows(&p, "cache_use");
	if (use < 0 || header_read(&p, &h, err, sizeof err)) {
		if (use < 0)
			profile_read_error(&p, err, sizeof err);
		cli_error("%s", err);
		goto out;
	}
	event_names(&p, use, &ev);
	if (write_body(&p, &e, &ev, use, &body, totals))
		goto out;
	write_header(&head, &p, &h, &ev, use, totals);
	sbuf_adds(&tail, "\ntotals:");
	for (int i = 0; i < ev.n; i++)
		sbuf_addf(&tail, " %lld", (long long)totals[i]);
	sbuf_adds(&tail, "\n");
	if (write_file(e.out, &head, &body, &tail) == 0)
		rc = 0;
out:
	sbuf_release(&head);
	sbuf_release(&body);
	sbuf_release(&tail);
	header_release(&h);
	profile_close(&p);
	return rc;
}
