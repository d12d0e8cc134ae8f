/* html_data.c — the HTML report's JSON document: everything the page's
 * script draws, read from a profile (html.h; docs/cli.md, "dcprof html",
 * lists the members).
 *
 * Notes:
 *  - buckets: the object view of dcprof report (analysis/view.h), sorted
 *    by MissLat; rows as report --format json writes them.
 *  - details[i] belongs to buckets.rows[i]: the bucket's functions and
 *    source lines by MissLat (the top --top of each, with the number there
 *    are), and "fields": report --object NAME --by field of the bucket
 *    (analysis/fields.h) for the first FIELD_BUCKETS global, heap and user
 *    buckets of the table when the profile has offsets: {"type", "size",
 *    "summary", "counted", "beyond", "rows"} (rows as the JSON report's,
 *    Unused1.. with --cache-use), or {"why"} when no type is known; null
 *    otherwise.  Each costs a DWARF lookup, hence the bound.  Buckets are
 *    matched by name and kind, so two buckets of one name and kind show
 *    the same details (as report --object NAME sums them).
 *  - hot: the program's line view, the top --hot-lines rows with MissLat.
 *  - reuse, evictions, footprint: null when the profile was recorded
 *    without --reuse/--reuse-sample, --evictions=yes or --trace-window.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/evmatrix.h"
#include "analysis/fields.h"
#include "analysis/fptrace.h"
#include "analysis/mrc.h"
#include "analysis/rmodel.h"
#include "base/err.h"
#include "base/fmt.h"
#include "report/html_int.h"
#include "report/render.h"

#define REUSE_BUCKETS 10   /* buckets with their own reuse histogram */
#define EVICT_TOP 10       /* buckets of each eviction matrix */
#define FIELD_BUCKETS 20   /* buckets with their field view */

/* One row of a bucket's functions or lines. */
struct drow {
	size_t bucket;             /* row of the bucket table */
	char *k[2];                /* function, file (lines: file, function) */
	size_t klen[2];
	int64_t line;
	int64_t misslat;
	int64_t v[3 + 2 * DC_MAX_LEVELS];   /* Lat, Dr, Dw, misses per level */
};

/* A bucket table row's name and kind, for finding it by them. */
struct bkey {
	const char *name, *kind;
	size_t nlen, klen;
	size_t row;
};

struct hd {
	struct profile *p;
	const struct html_opts *o;
	struct sbuf *out;
	char *err;
	size_t errlen;
	struct table buckets;
	struct bkey *keys;
	size_t nkeys;
	const char *miss[2 * DC_MAX_LEVELS];   /* the report's miss column names */
	int nv;                    /* used entries of drow.v */
	struct html_lineref *refs;
	size_t nrefs, caprefs;
};

static int cmp_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? c : (alen > blen) - (alen < blen);
}

static int cmp_bkey(const void *x, const void *y)
{
	const struct bkey *a = x, *b = y;
	int c = cmp_bytes(a->name, a->nlen, b->name, b->nlen);
	return c ? c : cmp_bytes(a->kind, a->klen, b->kind, b->klen);
}

static void add_ref(struct hd *d, const char *file, size_t len, int64_t line)
{
	if (!len || line <= 0)
		return;
	if (d->nrefs == d->caprefs) {
		d->caprefs = d->caprefs ? 2 * d->caprefs : 256;
		d->refs = xrealloc(d->refs, d->caprefs * sizeof *d->refs);
	}
	d->refs[d->nrefs++] = (struct html_lineref){ file, len, line };
}

static void json_num(struct sbuf *out, double v)
{
	if (isfinite(v))
		sbuf_addf(out, "%.10g", v);
	else
		sbuf_adds(out, "null");
}

static int read_error(struct hd *d)
{
	profile_read_error(d->p, d->err, d->errlen);
	return -1;
}

/* ---- summary and bucket table ------------------------------------------- */

static void add_levels(struct hd *d, const struct level_totals *lt)
{
	struct profile *p = d->p;
	struct sbuf *out = d->out;

	sbuf_adds(out, ",\"levels\":[");
	for (int k = 0; k < p->nlevels; k++) {
		const struct profile_level *l = &p->lv[k];

		sbuf_addf(out, "%s{\"level\":%d,\"name\":", k ? "," : "", k + 1);
		fmt_json_str(out, l->name, strlen(l->name));
		sbuf_addf(out, ",\"size\":%lld,\"assoc\":%lld,\"line_size\":%lld,\"latency\":%lld,"
			  "\"accesses\":%lld,\"misses\":%lld}", (long long)l->size,
			  (long long)l->assoc, (long long)l->line_size, (long long)l->latency,
			  (long long)lt->accesses[k], (long long)lt->misses[k]);
	}
	sbuf_addf(out, "],\"memory\":{\"latency\":%lld,\"accesses\":%lld},"
		  "\"latency\":{\"total\":%lld,\"miss\":%lld}", (long long)p->mem_latency,
		  (long long)lt->accesses[p->nlevels], (long long)lt->lat, (long long)lt->misslat);
}

static const char *type_name(enum col_type t)
{
	switch (t) {
	case COL_STR: return "str";
	case COL_INT: return "int";
	case COL_PCT: return "pct";
	case COL_BOOL: return "bool";
	default: return "real";
	}
}

static void add_columns(struct sbuf *out, const struct table *t)
{
	bool first = true;

	sbuf_addc(out, '[');
	for (int j = 0; j < t->ncols; j++) {
		const struct column *c = &t->cols[j];

		if (c->show == SHOW_TEXT)
			continue;
		sbuf_adds(out, first ? "{\"name\":" : ",{\"name\":");
		first = false;
		fmt_json_str(out, c->name, strlen(c->name));
		sbuf_adds(out, ",\"label\":");
		fmt_json_str(out, c->label, strlen(c->label));
		sbuf_addf(out, ",\"type\":\"%s\",\"key\":%s}", type_name(c->type),
			  c->key ? "true" : "false");
	}
	sbuf_addc(out, ']');
}

static int add_buckets(struct hd *d)
{
	struct view_opts vo = { .kind = VIEW_OBJECT };
	struct table *t = &d->buckets;
	struct sbuf *out = d->out;

	if (view_build(d->p, &vo, t, d->err, d->errlen))
		return -1;
	table_sort(t, view_default_sort(t, &vo));
	sbuf_adds(out, ",\"buckets\":{\"columns\":");
	add_columns(out, t);
	sbuf_adds(out, ",\"rows\":");
	render_table_json_rows(out, t, 0);
	sbuf_adds(out, ",\"totals\":");
	render_table_json_totals(out, t);
	sbuf_addc(out, '}');

	/* The report's names of the miss columns follow Dw. */
	for (int j = table_find_metric(t, "Dw") + 1, k = 0; k < 2 * d->p->nlevels; j++, k++)
		d->miss[k] = t->cols[j].name;
	d->nv = 3 + 2 * d->p->nlevels;
	d->nkeys = t->nrows;
	d->keys = xcalloc(t->nrows ? t->nrows : 1, sizeof *d->keys);
	for (size_t i = 0; i < t->nrows; i++) {
		const struct cell *row = table_row(t, i);

		d->keys[i] = (struct bkey){ row[0].s, row[1].s, row[0].len, row[1].len, i };
	}
	qsort(d->keys, d->nkeys, sizeof *d->keys, cmp_bkey);
	return 0;
}

/* ---- details: each bucket's functions and lines ------------------------- */

static int cmp_drow(const void *x, const void *y)
{
	const struct drow *a = x, *b = y;
	int c;

	if (a->bucket != b->bucket)
		return a->bucket < b->bucket ? -1 : 1;
	if (a->misslat != b->misslat)
		return a->misslat > b->misslat ? -1 : 1;
	for (int i = 0; i < 2; i++)
		if ((c = cmp_bytes(a->k[i], a->klen[i], b->k[i], b->klen[i])))
			return c;
	return (a->line > b->line) - (a->line < b->line);
}

static char *col_dup(sqlite3_stmt *st, int i, size_t *len)
{
	const void *s = sqlite3_column_blob(st, i);

	*len = (size_t)sqlite3_column_bytes(st, i);
	return xmemdup(s ? s : "", *len);
}

/* The cost of each bucket (by name and kind) per function, or per line,
 * sorted by bucket row, then MissLat. */
static int read_details(struct hd *d, bool lines, struct drow **out, size_t *n)
{
	struct profile *p = d->p;
	int64_t l1 = p->lv[0].latency;
	size_t cap = 0;
	struct sbuf sql;
	sqlite3_stmt *st;
	struct sbuf keys;
	int rc;

	*out = NULL;
	*n = 0;
	/* Functions as report names them ("??? (object)" for code without
	 * symbols); line 0 (no line) as 0, written null. */
	sbuf_init(&keys);
	view_fn_sql(&keys, p, "l");
	if (lines)
		sbuf_adds(&keys, ", l.file, MAX(l.line, 0)");
	else
		sbuf_adds(&keys, ", l.file, 0");
	sbuf_init(&sql);
	sbuf_addf(&sql, "SELECT b.name, b.kind, %s, SUM(c.Lat), SUM(c.Dr), SUM(c.Dw)", keys.buf);
	for (int k = 1; k <= p->nlevels; k++)
		sbuf_addf(&sql, ", SUM(c.D%dmr), SUM(c.D%dmw)", k, k);
	sbuf_addf(&sql, " FROM cost c JOIN bucket b ON b.id = c.bucket"
		  " JOIN location l ON l.id = c.location GROUP BY b.name, b.kind, 3, 4, 5");
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	sbuf_release(&sql);
	sbuf_release(&keys);
	if (rc != SQLITE_OK)
		return read_error(d);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bkey key, *found;
		struct drow *r;

		key.name = (const char *)sqlite3_column_blob(st, 0);
		key.nlen = (size_t)sqlite3_column_bytes(st, 0);
		key.kind = (const char *)sqlite3_column_blob(st, 1);
		key.klen = (size_t)sqlite3_column_bytes(st, 1);
		if (!key.name)
			key.name = "";
		if (!key.kind)
			key.kind = "";
		found = bsearch(&key, d->keys, d->nkeys, sizeof *d->keys, cmp_bkey);
		if (!found)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		r = &(*out)[(*n)++];
		r->bucket = found->row;
		/* lines: file, function; functions: function, file */
		r->k[lines ? 1 : 0] = col_dup(st, 2, &r->klen[lines ? 1 : 0]);
		r->k[lines ? 0 : 1] = col_dup(st, 3, &r->klen[lines ? 0 : 1]);
		r->line = sqlite3_column_int64(st, 4);
		for (int i = 0; i < d->nv; i++)
			r->v[i] = sqlite3_column_int64(st, 5 + i);
		r->misslat = view_misslat(r->v[0], r->v[1] + r->v[2], r->v[3] + r->v[4], l1);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return read_error(d);
	qsort(*out, *n, sizeof **out, cmp_drow);
	return 0;
}

static void free_drows(struct drow *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].k[0]);
		free(r[i].k[1]);
	}
	free(r);
}

static void json_drow(struct hd *d, const struct drow *r, bool lines)
{
	struct sbuf *out = d->out;
	static const char *const metrics[3] = { "Lat", "Dr", "Dw" };

	if (lines) {
		sbuf_adds(out, "{\"file\":");
		fmt_json_str(out, r->k[0], r->klen[0]);
		if (r->line > 0)
			sbuf_addf(out, ",\"line\":%lld,\"function\":", (long long)r->line);
		else
			sbuf_adds(out, ",\"line\":null,\"function\":");
		fmt_json_str(out, r->k[1], r->klen[1]);
	} else {
		sbuf_adds(out, "{\"function\":");
		fmt_json_str(out, r->k[0], r->klen[0]);
		sbuf_adds(out, ",\"file\":");
		fmt_json_str(out, r->k[1], r->klen[1]);
	}
	sbuf_addf(out, ",\"MissLat\":%lld", (long long)r->misslat);
	for (int i = 0; i < d->nv; i++)
		sbuf_addf(out, ",\"%s\":%lld", i < 3 ? metrics[i] : d->miss[i - 3],
			  (long long)r->v[i]);
	sbuf_addc(out, '}');
}

/* The rows of bucket `bucket` from *pos on: the first --top as a JSON
 * array member `name`, and their number as name_total. */
static void json_drows(struct hd *d, const char *name, const struct drow *r, size_t n,
		       size_t *pos, size_t bucket, bool lines)
{
	size_t shown = 0, total = 0;

	sbuf_addf(d->out, "\"%s\":[", name);
	for (; *pos < n && r[*pos].bucket == bucket; (*pos)++, total++) {
		const struct drow *x = &r[*pos];

		if (d->o->top && shown >= d->o->top)
			continue;
		sbuf_adds(d->out, shown++ ? "," : "");
		json_drow(d, x, lines);
		if (lines)
			add_ref(d, x->k[0], x->klen[0], x->line);
	}
	sbuf_addf(d->out, "],\"%s_total\":%zu", name, total);
}

/* The field view of bucket table row b (the Notes); *left counts down
 * the buckets that may still have one. */
static void json_fields(struct hd *d, size_t b, bool offsets, int *left)
{
	const struct cell *row = table_row(&d->buckets, b);
	struct sbuf *out = d->out;
	struct fields_info fi;
	struct table t;
	char err[1024];

	if (!offsets || *left <= 0 || row[0].null || row[1].null ||
	    (strcmp(row[1].s, "global") && strcmp(row[1].s, "heap") && strcmp(row[1].s, "user"))) {
		sbuf_adds(out, ",\"fields\":null");
		return;
	}
	(*left)--;
	table_init(&t);
	fields_info_init(&fi);
	if (fields_build(d->p, row[0].s, FIELDS_FIELD, &t, &fi, err, sizeof err)) {
		sbuf_adds(out, ",\"fields\":{\"why\":");
		fmt_json_str(out, err, strlen(err));
	} else {
		sbuf_adds(out, ",\"fields\":{\"type\":");
		fmt_json_str(out, fi.type.buf, fi.type.len);
		sbuf_addf(out, ",\"size\":%lld,\"counted\":%lld,\"beyond\":%lld,\"summary\":",
			  (long long)fi.elem_size, (long long)fi.counted, (long long)fi.beyond);
		fmt_json_str(out, fi.summary.buf, fi.summary.len);
		sbuf_adds(out, ",\"rows\":");
		render_table_json_rows(out, &t, 0);
	}
	sbuf_addc(out, '}');
	fields_info_release(&fi);
	table_release(&t);
}

static int add_details(struct hd *d, struct drow **fns, size_t *nfns, struct drow **lines,
		       size_t *nlines)
{
	size_t fi = 0, li = 0;
	struct sbuf val;
	bool offsets;
	int left = FIELD_BUCKETS, rc;

	if (read_details(d, false, fns, nfns) || read_details(d, true, lines, nlines))
		return -1;
	sbuf_init(&val);
	rc = profile_meta(d->p, "offsets", &val);
	offsets = rc == 1 && !strcmp(val.buf, "yes");
	sbuf_release(&val);
	if (rc < 0)
		return read_error(d);
	sbuf_adds(d->out, ",\"details\":[");
	for (size_t b = 0; b < d->buckets.nrows; b++) {
		sbuf_adds(d->out, b ? ",{" : "{");
		json_drows(d, "functions", *fns, *nfns, &fi, b, false);
		sbuf_addc(d->out, ',');
		json_drows(d, "lines", *lines, *nlines, &li, b, true);
		json_fields(d, b, offsets, &left);
		sbuf_addc(d->out, '}');
	}
	sbuf_addc(d->out, ']');
	return 0;
}

/* ---- hot lines ----------------------------------------------------------- */

static int add_hot(struct hd *d, struct table *t)
{
	struct view_opts vo = { .kind = VIEW_LINE };
	int misslat, file, line;
	size_t n;

	if (view_build(d->p, &vo, t, d->err, d->errlen))
		return -1;
	misslat = table_find_metric(t, "MissLat");
	table_sort(t, misslat);
	n = d->o->hot_lines < t->nrows ? d->o->hot_lines : t->nrows;
	while (n > 0 && table_row(t, n - 1)[misslat].i <= 0)
		n--;
	for (file = 0; strcmp(t->cols[file].name, "file"); file++)
		;
	for (line = 0; strcmp(t->cols[line].name, "line"); line++)
		;
	sbuf_adds(d->out, ",\"hot\":");
	if (n)
		render_table_json_rows(d->out, t, n);
	else
		sbuf_adds(d->out, "[]");
	for (size_t i = 0; i < n; i++) {
		const struct cell *row = table_row(t, i);

		if (row[line].null)
			continue;       /* no line: nothing to show around it */
		for (int64_t k = -d->o->context; k <= d->o->context; k++)
			add_ref(d, row[file].s, row[file].len, row[line].i + k);
	}
	return 0;
}

/* ---- reuse ---------------------------------------------------------------- */

static void json_hist(struct sbuf *out, const struct rhist *h)
{
	sbuf_addf(out, "{\"reuses\":%lld,\"first\":%lld,\"bins\":[", (long long)h->reuses,
		  (long long)h->first);
	for (size_t i = 0; i < h->n; i++) {
		const struct rbin *b = &h->bins[i];

		sbuf_addf(out, "%s[%lld,", i ? "," : "", (long long)b->lo);
		if (b->hi_inf)
			sbuf_adds(out, "null");
		else
			sbuf_addf(out, "%lld", (long long)b->hi);
		sbuf_addf(out, ",%lld]", (long long)b->count);
	}
	sbuf_adds(out, "]}");
}

static int add_reuse(struct hd *d)
{
	struct profile *p = d->p;
	struct sbuf *out = d->out, v;
	struct reuse_info ri = { 0 };
	struct rhist h = { 0 };
	struct mrc_point *pts = NULL;
	enum rsource src;
	const char *kind;
	size_t n, shown = 0;
	int rc = 0;

	sbuf_adds(out, ",\"reuse\":");
	sbuf_init(&v);
	if (p->version >= 3)
		rc = profile_meta(p, "reuse_bins", &v);
	sbuf_release(&v);
	if (rc < 0)
		return read_error(d);
	if (rc == 0) {
		sbuf_adds(out, "null");
		return 0;
	}
	if (reuse_info_read(p, &ri, d->err, d->errlen))
		return -1;
	if (!ri.exact && !ri.sampled) {
		sbuf_adds(out, "null");
		return 0;
	}
	/* The exact stack distances if recorded, else the sampled time ones
	 * as measured. */
	src = ri.exact ? RSRC_EXACT : RSRC_SAMPLED;
	kind = ri.exact ? "stack" : "time";
	if (rhist_source_read(p, &ri, src, kind, NULL, &h, d->err, d->errlen))
		return -1;
	sbuf_addf(out, "{\"block\":%lld,\"bins\":\"%lld:%lld\",\"source\":\"%s\",\"kind\":\"%s\","
		  "\"hist\":", (long long)ri.block, (long long)ri.first, (long long)ri.growth,
		  ri.exact ? "exact" : "sampled", kind);
	json_hist(out, &h);
	sbuf_adds(out, ",\"mrc\":");
	if (ri.exact) {
		n = mrc_curve(&h, h.first, &pts);
		sbuf_addc(out, '[');
		for (size_t i = 0; i < n; i++)
			sbuf_addf(out, "%s[%lld,%lld,%s]", i ? "," : "", (long long)pts[i].blocks,
				  (long long)pts[i].misses, pts[i].exact ? "true" : "false");
		sbuf_addc(out, ']');
		free(pts);
	} else {
		sbuf_adds(out, "null");
	}
	rhist_release(&h);

	/* The top buckets' own histograms, keyed by their row; a second
	 * bucket of the same name would repeat the first one's. */
	sbuf_adds(out, ",\"buckets\":{");
	for (size_t i = 0; i < d->buckets.nrows && i < REUSE_BUCKETS; i++) {
		const struct cell *row = table_row(&d->buckets, i);
		bool repeat = false;

		for (size_t j = 0; j < i; j++)
			repeat |= !cmp_bytes(row[0].s, row[0].len, table_row(&d->buckets, j)[0].s,
					     table_row(&d->buckets, j)[0].len);
		if (repeat || memchr(row[0].s, 0, row[0].len))
			continue;
		memset(&h, 0, sizeof h);
		if (rhist_source_read(p, &ri, src, kind, row[0].s, &h, d->err, d->errlen))
			return -1;
		sbuf_addf(out, "%s\"%zu\":", shown++ ? "," : "", i);
		json_hist(out, &h);
		rhist_release(&h);
	}
	sbuf_adds(out, "}}");
	return 0;
}

/* ---- evictions ------------------------------------------------------------ */

static int add_fill(struct hd *d, int level)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(d->p->db, "SELECT fills, empty_fills, evictions FROM level_fill"
			       " WHERE level = ?1", -1, &st, NULL) != SQLITE_OK)
		return read_error(d);
	sqlite3_bind_int(st, 1, level);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		sbuf_addf(d->out, "{\"fills\":%lld,\"empty_fills\":%lld,\"evictions\":%lld}",
			  (long long)sqlite3_column_int64(st, 0),
			  (long long)sqlite3_column_int64(st, 1),
			  (long long)sqlite3_column_int64(st, 2));
	else
		sbuf_adds(d->out, "null");
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : read_error(d);
}

static int add_evictions(struct hd *d)
{
	struct profile *p = d->p;
	struct sbuf *out = d->out, v;
	struct evmatrix *m;
	int rc = 0;

	sbuf_adds(out, ",\"evictions\":");
	sbuf_init(&v);
	if (p->version >= 2)
		rc = profile_meta(p, "evictions", &v);
	rc = rc > 0 ? !strcmp(v.buf, "yes") : rc;
	sbuf_release(&v);
	if (rc < 0)
		return read_error(d);
	if (!rc) {
		sbuf_adds(out, "null");
		return 0;
	}
	m = xcalloc(1, sizeof *m);
	rc = 0;
	sbuf_addc(out, '[');
	for (int k = 1; k <= p->nlevels && !rc; k++) {
		memset(m, 0, sizeof *m);
		if (evmatrix_read(p, k, false, EVICT_TOP, m)) {
			rc = read_error(d);
			break;
		}
		sbuf_addf(out, "%s{\"level\":%d,\"name\":", k > 1 ? "," : "", k);
		fmt_json_str(out, p->lv[k - 1].name, strlen(p->lv[k - 1].name));
		sbuf_adds(out, ",\"fill\":");
		rc = add_fill(d, k);
		sbuf_adds(out, ",\"victims\":[");
		for (size_t i = 0; i < m->n; i++) {
			sbuf_adds(out, i ? ",{\"bucket\":" : "{\"bucket\":");
			fmt_json_str(out, m->v[i].name, m->v[i].name_len);
			sbuf_adds(out, ",\"kind\":");
			fmt_json_str(out, m->v[i].kind, strlen(m->v[i].kind));
			sbuf_addf(out, ",\"misses\":%lld,\"evictions\":%lld}",
				  (long long)m->v[i].misses, (long long)m->v[i].evictions);
		}
		/* Rows: the evictors in the victims' order, then "other". */
		sbuf_adds(out, "],\"counts\":[");
		for (size_t i = 0; i <= m->n; i++) {
			sbuf_adds(out, i ? ",[" : "[");
			for (size_t j = 0; j < m->n; j++)
				sbuf_addf(out, "%s%lld", j ? "," : "", (long long)m->count[i][j]);
			sbuf_addc(out, ']');
		}
		sbuf_adds(out, "]}");
		evmatrix_release(m);
	}
	evmatrix_release(m);
	free(m);
	sbuf_addc(out, ']');
	return rc;
}

/* ---- footprint ------------------------------------------------------------ */

static int add_footprint(struct hd *d)
{
	struct sbuf *out = d->out;
	struct fp_trace tr;
	int rc = profile_has_rows(d->p, "trace_window");

	sbuf_adds(out, ",\"footprint\":");
	if (rc < 0)
		return read_error(d);
	if (!rc) {
		sbuf_adds(out, "null");
		return 0;
	}
	memset(&tr, 0, sizeof tr);
	if (fp_load(d->p, &tr, d->err, d->errlen))
		return -1;
	sbuf_addf(out, "{\"block\":%lld,\"w\":%lld,\"period\":%lld,\"records\":%lld,\"F\":",
		  (long long)tr.block, (long long)tr.w, (long long)tr.period,
		  (long long)tr.records);
	json_num(out, tr.all.f);
	sbuf_adds(out, ",\"dF\":");
	json_num(out, fp_growth(&tr.all));
	/* Per window: start, period, records sampled, and its rho-scaled
	 * F, F_str, F_irr (the estimate for its period). */
	sbuf_adds(out, ",\"windows\":[");
	for (size_t i = 0; i < tr.nwins; i++) {
		const struct fp_win *w = &tr.wins[i];

		sbuf_addf(out, "%s[%lld,%lld,%lld,", i ? "," : "", (long long)w->start,
			  (long long)w->period, (long long)w->n);
		json_num(out, w->s.f);
		sbuf_addc(out, ',');
		json_num(out, w->s.fstr);
		sbuf_addc(out, ',');
		json_num(out, w->s.firr);
		sbuf_addc(out, ']');
	}
	sbuf_adds(out, "]}");
	fp_release(&tr);
	return 0;
}

/* ---- the document --------------------------------------------------------- */

int html_data(struct profile *p, const struct html_opts *o, const struct level_totals *lt,
	      struct sbuf *out, char *err, size_t errlen)
{
	struct hd d = { .p = p, .o = o, .out = out, .err = err, .errlen = errlen };
	struct drow *fns = NULL, *lines = NULL;
	size_t nfns = 0, nlines = 0;
	struct table hot;
	int rc = -1;

	table_init(&d.buckets);
	table_init(&hot);
	sbuf_addf(out, "{\"dcprof_version\":\"%s\",\"profile\":", DCPROF_VERSION);
	fmt_json_str(out, p->path, strlen(p->path));
	sbuf_addf(out, ",\"schema_version\":%d,\"context\":%d", p->version, o->context);
	sbuf_adds(out, ",\"source_dirs\":[");
	for (size_t i = 0; i < o->nsource_dirs; i++) {
		sbuf_adds(out, i ? "," : "");
		fmt_json_str(out, o->source_dirs[i], strlen(o->source_dirs[i]));
	}
	sbuf_addc(out, ']');
	add_levels(&d, lt);
	if (add_buckets(&d) || add_details(&d, &fns, &nfns, &lines, &nlines) ||
	    add_hot(&d, &hot))
		goto out;
	sbuf_adds(out, ",\"sources\":");
	html_sources(out, d.refs, d.nrefs, o);
	if (add_reuse(&d) || add_evictions(&d) || add_footprint(&d))
		goto out;
	sbuf_adds(out, "}");
	rc = 0;
out:
	free(d.refs);
	free_drows(fns, nfns);
	free_drows(lines, nlines);
	free(d.keys);
	table_release(&hot);
	table_release(&d.buckets);
	return rc;
}
