/* cmd_export.c — dcprof export: a profile in Callgrind's format, for
 * callgrind_annotate and KCachegrind/QCachegrind (docs/cli.md).
 *
 * Notes:
 *  - One cost line per source line of a function: "LINE Dr Dw D1mr D1mw
 *    ... DLmr DLmw Lat [SpLoss1 AcCost1 [Evicted1] ...]", summed over buckets and
 *    threads (positions: line, absolute line numbers).
 *  - ob= is the location's ELF object; with --by-object it is the bucket
 *    ("NAME [KIND]"), and costs are summed per bucket, so each bucket
 *    shows as an object whose functions are those that accessed it.
 *  - A function's fl= is the first of its source files in name order;
 *    lines from its other files (inlined code) follow fi=, and fe= returns.
 *  - Names are compressed: "(id) name" the first time, "(id)" later.
 *    Program-supplied names are escaped as in text output (control bytes,
 *    backslash and invalid UTF-8 as \xNN), so a name cannot break a line.
 *    An unknown file is "???"; functions are named as report names them
 *    (view_fn_sql): code without a symbol is "??? (object)", one function
 *    per object, so KCachegrind does not merge every object's unknown
 *    code into one function.
 *  - Code without a line (line 0 in the profile) is line 0 here, Callgrind's
 *    own "unknown line": callgrind_annotate counts it for the function and
 *    leaves it out of the annotated source.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view.h"
#include "base/err.h"
#include "base/fmt.h"
#include "base/num.h"
#include "base/outfile.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"

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
	      "Dr, Dw, the misses per level, Lat and, when recorded, SpLoss<k>/AcCost<k>\n"
	      "(and Evicted<k> with --evictions).\n"
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
				err_msg("invalid --format value '%s' (callgrind)", it.arg);
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
		err_msg("--format is required (callgrind)");
		return -1;
	}
	if (!e->out) {
		err_msg("-o FILE is required");
		return -1;
	}
	return 0;
}

/* Callgrind's name compression: one table per kind (ob, fl, fn) from the
 * escaped name to its id; "(id) name" the first time, "(id)" later. */
struct names {
	char **key;
	size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

/* The id of name (1-based); *fresh when it is new. */
static size_t names_id(struct names *t, const char *name, bool *fresh)
{
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		struct names old = *t;
		t->cap = t->cap ? 2 * t->cap : 256;
		t->key = xcalloc(t->cap, sizeof *t->key);
		for (size_t j = 0; j < old.cap; j++) {
			if (!old.key[j])
				continue;
			for (i = hash_str(old.key[j]) & (t->cap - 1); t->key[i];
			     i = (i + 1) & (t->cap - 1))
				;
			t->key[i] = old.key[j];
		}
		free(old.key);
	}
	for (i = hash_str(name) & (t->cap - 1); t->key[i]; i = (i + 1) & (t->cap - 1)) {
		if (!strcmp(t->key[i] + sizeof(size_t), name)) {
			*fresh = false;
			return *(size_t *)t->key[i];
		}
	}
	/* The id is stored in front of the name. */
	t->key[i] = xmalloc(sizeof(size_t) + strlen(name) + 1);
	*(size_t *)t->key[i] = ++t->n;
	strcpy(t->key[i] + sizeof(size_t), name);
	*fresh = true;
	return t->n;
}

static void names_release(struct names *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->key[i]);
	free(t->key);
}

/* "key=(id)" or, the first time, "key=(id) name"; name escaped as text,
 * "???" when empty, suffix appended (escaped) when not NULL.  A name with a
 * scope gets an id of its own per scope: KCachegrind takes one fn id for
 * one function, in the object where it first appeared. */
static void put_scoped_name(struct sbuf *out, const char *key, struct names *t,
			    const char *scope, const char *name, size_t len, const char *suffix)
{
	struct sbuf esc;
	size_t id, start = 0;
	bool fresh;

	sbuf_init(&esc);
	if (scope) {
		/* The scope is a prefix of the key only: a unit separator
		 * cannot occur in an escaped name. */
		sbuf_adds(&esc, scope);
		sbuf_addc(&esc, '\x1f');
		start = esc.len;
	}
	if (len)
		fmt_text(&esc, name, len);
	else
		sbuf_adds(&esc, "???");
	if (suffix) {
		sbuf_adds(&esc, " [");
		fmt_text(&esc, suffix, strlen(suffix));
		sbuf_adds(&esc, "]");
	}
	id = names_id(t, esc.buf, &fresh);
	sbuf_addf(out, "%s=(%zu)%s%s\n", key, id, fresh ? " " : "", fresh ? esc.buf + start : "");
	sbuf_release(&esc);
}

static void put_name(struct sbuf *out, const char *key, struct names *t, const char *name,
		     size_t len, const char *suffix)
{
	put_scoped_name(out, key, t, NULL, name, len, suffix);
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	return xmemdup(s ? s : "", s ? (size_t)sqlite3_column_bytes(st, i) : 0);
}

/* Dr, Dw, Lat, then per level 2 misses and at most 3 cache-use metrics. */
#define MAX_EVENTS (3 + 5 * DC_MAX_LEVELS)

struct events {
	int n;                 /* cost columns */
	char names[MAX_EVENTS][32];
};

/* nuse: cache-use metrics per level (view_use_count). */
static void event_names(const struct profile *p, int nuse, struct events *ev)
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
	for (int k = 1; k <= p->nlevels; k++)
		for (int i = 0; i < nuse; i++)
			snprintf(ev->names[ev->n++], 32, "%s%d", view_use_metrics[i], k);
}

/* One row of either query: the function it belongs to (object or bucket
 * and kind, function), its file and line, and its numbers. */
struct row {
	char *ob, *kind, *fn, *fl;
	int64_t line;
	/* calls: the callee and its first line, the call count */
	char *cob, *cfn, *cfl;
	int64_t cline, count;
	int64_t v[MAX_EVENTS];
};

static void row_release(struct row *r)
{
	free(r->ob);
	free(r->kind);
	free(r->fn);
	free(r->fl);
	free(r->cob);
	free(r->cfn);
	free(r->cfl);
}

/* Cost rows: ob, kind, fn, fl, line, then the events, ordered by object
 * and function, their files and lines; summed per bucket with by_object. */
static void cost_sql(struct sbuf *sql, const struct profile *p, int nuse, bool by_object)
{
	const char *ob = by_object ? "b.name" : "l.object";
	struct sbuf fn;

	/* Inlined code is its own function, "f [inlined into g]" (cli.md). */
	sbuf_init(&fn);
	view_fn_sql(&fn, p, "l");
	sbuf_addf(sql, "SELECT %s, %s, %s, l.file, l.line, SUM(c.Dr), SUM(c.Dw)", ob,
		  by_object ? "b.kind" : "NULL", fn.buf);
	for (int k = 1; k <= p->nlevels; k++)
		sbuf_addf(sql, ", SUM(c.D%dmr), SUM(c.D%dmw)", k, k);
	sbuf_adds(sql, ", SUM(c.Lat)");
	for (int k = 1; k <= p->nlevels; k++)
		for (int i = 0; i < nuse; i++)
			view_add_use_sum(sql, view_use_metrics[i], k);
	sbuf_addf(sql, " FROM cost c JOIN location l ON l.id = c.location"
		  " JOIN bucket b ON b.id = c.bucket"
		  " GROUP BY %s, l.object, 3, l.file, l.line"
		  " ORDER BY %s%s, 3, l.file, l.line", by_object ? "c.bucket" : "l.object",
		  ob, by_object ? ", b.kind, c.bucket" : "");
	sbuf_release(&fn);
}

/* Call rows: the caller's object, function, the site's file and line, the
 * callee's object, function, file and first line, count, inclusive costs
 * (back-dated SpLoss/AcCost/Evicted from call_use, nuse per level). */
static void call_sql(struct sbuf *sql, const struct profile *p, int nuse)
{
	sbuf_adds(sql, "SELECT sl.object, NULL, ");
	view_fn_sql(sql, p, "sl");
	sbuf_adds(sql, ", sl.file, sl.line, cl.object, ");
	view_fn_sql(sql, p, "cl");
	sbuf_adds(sql, ", cl.file, cl.line, SUM(a.count), SUM(a.Dr), SUM(a.Dw)");
	for (int k = 1; k <= p->nlevels; k++)
		sbuf_addf(sql, ", SUM(a.D%dmr), SUM(a.D%dmw)", k, k);
	sbuf_adds(sql, ", SUM(a.Lat)");
	for (int k = 1; k <= p->nlevels; k++)
		for (int i = 0; i < nuse; i++)
			sbuf_addf(sql, ", SUM((SELECT u.%s FROM call_use u WHERE u.kind = a.kind"
				  " AND u.site = a.site AND u.callee = a.callee"
				  " AND u.thread = a.thread AND u.level = %d))",
				  view_use_metrics[i], k);
	sbuf_adds(sql, " FROM call_arc a JOIN location sl ON sl.id = a.site"
		  " JOIN location cl ON cl.id = a.callee WHERE a.kind = 'call'"
		  " GROUP BY 1, 3, 4, 5, 6, 7, 8, 9 ORDER BY 1, 3, 4, 5, 6, 7, 8, 9");
}

/* Steps st into r; false at the end (or on error: rc says). */
static bool next_row(sqlite3_stmt *st, bool call, int nv, struct row *r, int *rc)
{
	int i = 5;

	row_release(r);
	memset(r, 0, sizeof *r);
	if (!st || (*rc = sqlite3_step(st)) != SQLITE_ROW)
		return false;
	r->ob = col_dup(st, 0);
	r->kind = sqlite3_column_type(st, 1) == SQLITE_NULL ? NULL : col_dup(st, 1);
	r->fn = col_dup(st, 2);
	r->fl = col_dup(st, 3);
	r->line = sqlite3_column_int64(st, 4);
	if (call) {
		r->cob = col_dup(st, 5);
		r->cfn = col_dup(st, 6);
		r->cfl = col_dup(st, 7);
		r->cline = sqlite3_column_int64(st, 8);
		r->count = sqlite3_column_int64(st, 9);
		i = 10;
	}
	for (int j = 0; j < nv; j++)
		r->v[j] = sqlite3_column_int64(st, i + j);
	return true;
}

/* The order of both queries (SQLite's BINARY collation is memcmp). */
static int fn_cmp(const struct row *a, const struct row *b)
{
	int c = strcmp(a->ob, b->ob);
	return c ? c : strcmp(a->fn, b->fn);
}

static void put_costs(struct sbuf *out, int64_t line, const int64_t *v, int n)
{
	int last = 0;

	for (int i = 0; i < n; i++)
		if (v[i])
			last = i + 1;
	sbuf_addf(out, "%lld", (long long)line);
	for (int i = 0; i < last; i++)
		sbuf_addf(out, " %lld", (long long)v[i]);
	sbuf_adds(out, "\n");
}

struct writer {
	struct sbuf *out;
	bool by_object;
	struct names ob, fl, fn;
	const struct row *cur;     /* the function written last */
	char *cur_fl;              /* the file of the last cost line */
};

/* fl= and fn= for r's function, after ob= when the object changes (or
 * force_ob: the first function, a new bucket with --by-object). */
static void enter_function(struct writer *w, const struct row *r, bool force_ob)
{
	if (force_ob || strcmp(w->cur->ob, r->ob) ||
	    (r->kind && strcmp(w->cur->kind ? w->cur->kind : "", r->kind)))
		put_name(w->out, "ob", &w->ob, r->ob, strlen(r->ob), r->kind);
	put_name(w->out, "fl", &w->fl, r->fl, strlen(r->fl), NULL);
	if (w->by_object) {
		/* One function in many buckets is a function per bucket. */
		struct sbuf scope;

		sbuf_init(&scope);
		sbuf_adds(&scope, r->ob);
		sbuf_addc(&scope, '\x1f');
		sbuf_adds(&scope, r->kind ? r->kind : "");
		put_scoped_name(w->out, "fn", &w->fn, scope.buf, r->fn, strlen(r->fn), NULL);
		sbuf_release(&scope);
	} else {
		put_name(w->out, "fn", &w->fn, r->fn, strlen(r->fn), NULL);
	}
	free(w->cur_fl);
	w->cur_fl = xmemdup(r->fl, strlen(r->fl));
}

/* fi= (a file other than the function's, fn_fl) or fe= (back to it)
 * before a line of r's file, when it is not the current one. */
static void switch_file(struct writer *w, const struct row *r, const char *fn_fl)
{
	if (!strcmp(w->cur_fl, r->fl))
		return;
	put_name(w->out, strcmp(r->fl, fn_fl) ? "fi" : "fe", &w->fl, r->fl, strlen(r->fl), NULL);
	free(w->cur_fl);
	w->cur_fl = xmemdup(r->fl, strlen(r->fl));
}

static void write_cost(struct writer *w, const struct row *r, const char *fn_fl, int n)
{
	switch_file(w, r, fn_fl);
	put_costs(w->out, r->line, r->v, n);
}

static void write_call(struct writer *w, const struct row *r, const char *fn_fl, int n)
{
	static const int64_t none[MAX_EVENTS];

	switch_file(w, r, fn_fl);
	if (strcmp(r->cob, r->ob))
		put_name(w->out, "cob", &w->ob, r->cob, strlen(r->cob), NULL);
	put_name(w->out, "cfi", &w->fl, r->cfl, strlen(r->cfl), NULL);
	put_name(w->out, "cfn", &w->fn, r->cfn, strlen(r->cfn), NULL);
	sbuf_addf(w->out, "calls=%lld %lld\n", (long long)r->count, (long long)r->cline);
	/* A call into the same function (recursion, or code without symbols
	 * calling code without symbols of its object: one "??? (object)")
	 * carries no cost: the callee's is the function's own already, and
	 * callgrind_annotate would count it twice (as report --inclusive). */
	put_costs(w->out, r->line, strcmp(r->cob, r->ob) || strcmp(r->cfn, r->fn) ? r->v : none, n);
}

/* The cost lines of every function, each followed by its calls (not with
 * --by-object: a call's inclusive costs cover every bucket); totals. */
static int write_body(struct profile *p, const struct export *e, const struct events *ev,
		      int nuse, bool calls, struct sbuf *body, int64_t *totals)
{
	struct writer w = { body, e->by_object, { 0 }, { 0 }, { 0 }, NULL, NULL };
	struct sbuf sql1, sql2;
	sqlite3_stmt *cs = NULL, *ks = NULL;
	struct row c = { 0 }, k = { 0 }, cur = { 0 };
	int rc = SQLITE_DONE, rc2 = SQLITE_DONE, nk = ev->n;
	bool hc, hk, ovf = false;
	char *fn_fl = NULL;

	sbuf_init(&sql1);
	sbuf_init(&sql2);
	cost_sql(&sql1, p, nuse, e->by_object);
	call_sql(&sql2, p, nuse);
	if (sqlite3_prepare_v2(p->db, sql1.buf, -1, &cs, NULL) != SQLITE_OK ||
	    (calls && !e->by_object &&
	     sqlite3_prepare_v2(p->db, sql2.buf, -1, &ks, NULL) != SQLITE_OK)) {
		rc = SQLITE_ERROR;
		goto out;
	}
	hc = next_row(cs, false, ev->n, &c, &rc);
	hk = next_row(ks, true, nk, &k, &rc2);
	while (hc || hk) {
		/* the next function: the smaller of the two heads */
		bool take_cost = hc && (!hk || fn_cmp(&c, &k) <= 0);
		struct row *head = take_cost ? &c : &k;
		bool new_ob = e->by_object && cur.ob &&
			      (strcmp(cur.ob, head->ob) || strcmp(cur.kind, head->kind));

		if (!cur.ob || fn_cmp(&cur, head) || new_ob) {
			enter_function(&w, head, new_ob || !cur.ob);
			row_release(&cur);
			cur.ob = xmemdup(head->ob, strlen(head->ob));
			cur.fn = xmemdup(head->fn, strlen(head->fn));
			cur.kind = head->kind ? xmemdup(head->kind, strlen(head->kind)) : NULL;
			w.cur = &cur;
			free(fn_fl);
			fn_fl = xmemdup(head->fl, strlen(head->fl));
		}
		if (take_cost) {
			write_cost(&w, &c, fn_fl, ev->n);
			for (int i = 0; i < ev->n; i++)
				totals[i] = num_add(totals[i], c.v[i], &ovf);
			hc = next_row(cs, false, ev->n, &c, &rc);
		} else {
			write_call(&w, &k, fn_fl, nk);
			hk = next_row(ks, true, nk, &k, &rc2);
		}
	}
	if (ovf) {
		char err[DC_ERRLEN];
		profile_overflow_error(p, err, sizeof err);
		err_msg("%s", err);
		rc = SQLITE_TOOBIG;     /* reported */
	}
out:
	if ((rc != SQLITE_DONE && !ovf) || rc2 != SQLITE_DONE) {
		char err[DC_ERRLEN];
		profile_read_error(p, err, sizeof err);
		err_msg("%s", err);
	}
	sqlite3_finalize(cs);
	sqlite3_finalize(ks);
	row_release(&c);
	row_release(&k);
	row_release(&cur);
	free(fn_fl);
	free(w.cur_fl);
	names_release(&w.ob);
	names_release(&w.fl);
	names_release(&w.fn);
	sbuf_release(&sql1);
	sbuf_release(&sql2);
	return rc == SQLITE_DONE && rc2 == SQLITE_DONE ? 0 : -1;
}

static void write_header(struct sbuf *out, struct profile *p, const struct header *h,
			 const struct events *ev, const int64_t *totals)
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

static int write_file(struct outfile *of, const struct sbuf *a, const struct sbuf *b,
		      const struct sbuf *c)
{
	char err[DC_ERRLEN];

	if (outfile_write(of, a->buf, a->len) || outfile_write(of, b->buf, b->len) ||
	    outfile_write(of, c->buf, c->len)) {
		err_msg("cannot write '%s': %s", of->target, strerror(errno));
		outfile_abort(of);
		return -1;
	}
	if (outfile_commit(of, err, sizeof err)) {
		err_msg("%s", err);
		return -1;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export e = { 0 };
	struct outfile of;
	struct profile p;
	struct header h;
	struct events ev;
	struct sbuf head, body, tail;
	int64_t totals[MAX_EVENTS] = { 0 };
	char err[DC_ERRLEN];
	int rc, nuse, calls;

	rc = parse(&e, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (outfile_open(&of, e.out, e.path, true, err, sizeof err)) {
		err_msg("%s", err);
		return DC_EXIT_ERROR;
	}
	if (profile_open_cmd(&p, e.path)) {
		outfile_abort(&of);
		return DC_EXIT_ERROR;
	}
	header_init(&h);
	sbuf_init(&head);
	sbuf_init(&body);
	sbuf_init(&tail);
	rc = DC_EXIT_ERROR;
	nuse = view_use_count(&p);
	if (nuse < 0 || header_read(&p, &h, err, sizeof err)) {
		if (nuse < 0)
			profile_read_error(&p, err, sizeof err);
		err_msg("%s", err);
		goto out;
	}
	calls = profile_has_rows(&p, "call_arc");
	if (calls < 0) {
		profile_read_error(&p, err, sizeof err);
		err_msg("%s", err);
		goto out;
	}
	event_names(&p, nuse, &ev);
	if (write_body(&p, &e, &ev, nuse, calls, &body, totals))
		goto out;
	write_header(&head, &p, &h, &ev, totals);
	sbuf_adds(&tail, "\ntotals:");
	for (int i = 0; i < ev.n; i++)
		sbuf_addf(&tail, " %lld", (long long)totals[i]);
	sbuf_adds(&tail, "\n");
	rc = write_file(&of, &head, &body, &tail) ? DC_EXIT_ERROR : 0;
out:
	if (rc)
		outfile_abort(&of);
	sbuf_release(&head);
	sbuf_release(&body);
	sbuf_release(&tail);
	header_release(&h);
	profile_close(&p);
	return rc;
}
