/* view.c — the report's views: SQL over a profile into a table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fmt.h"
#include "analysis/incl.h"
#include "base/sbuf.h"
#include "analysis/view.h"

static const char *const miss_names[DC_MAX_LEVELS][2] = {
	{ "D1mr", "D1mw" }, { "D2mr", "D2mw" }, { "D3mr", "D3mw" }, { "D4mr", "D4mw" },
};

/* Column indexes of the metrics, which follow the key columns. */
struct metric_cols {
	int misslat, misslat_pct, miss_pct, lat_per_miss, lat, dr, dw, miss[2 * DC_MAX_LEVELS];
};

const char *const view_use_metrics[3] = { "SpLoss", "AcCost", "Evicted" };

/* The report's names of the cache-use metrics per level. */
static const char *const use_names[DC_MAX_LEVELS][3] = {
	{ "SpLoss1", "AcCost1", "Evicted1" }, { "SpLoss2", "AcCost2", "Evicted2" },
	{ "SpLoss3", "AcCost3", "Evicted3" }, { "SpLoss4", "AcCost4", "Evicted4" },
};

const char *view_name(enum view_kind k)
{
	static const char *const names[] = { "object", "function", "line", "stats" };
	return names[k];
}

static void add_metric_cols(struct table *t, int nlevels, struct metric_cols *m)
{
	m->misslat = table_add_col(t, "MissLat", NULL, COL_INT, false);
	m->misslat_pct = table_add_col(t, "MissLatPct", "MissLat%", COL_PCT, false);
	m->miss_pct = table_add_col(t, "MissPct", "Miss%", COL_PCT, false);
	m->lat_per_miss = table_add_col(t, "LatPerMiss", "Lat/Miss", COL_REAL, false);
	m->lat = table_add_col(t, "Lat", NULL, COL_INT, false);
	m->dr = table_add_col(t, "Dr", NULL, COL_INT, false);
	m->dw = table_add_col(t, "Dw", NULL, COL_INT, false);
	for (int k = 0; k < nlevels; k++) {
		bool last = k == nlevels - 1 && k > 0;
		for (int rw = 0; rw < 2; rw++)
			m->miss[2 * k + rw] = table_add_col(t, last ? (rw ? "DLmw" : "DLmr")
							    : miss_names[k][rw],
							    NULL, COL_INT, false);
	}
}

int view_use_count(struct profile *p)
{
	int rc = profile_has_rows(p, "cache_use");

	if (rc <= 0)
		return rc;
	rc = profile_has_evicted(p);
	return rc < 0 ? rc : rc ? 3 : 2;
}

void view_add_use_sum(struct sbuf *sql, const char *metric, int level)
{
	sbuf_addf(sql, ", SUM((SELECT u.%s FROM cache_use u WHERE u.bucket = c.bucket"
		  " AND u.location = c.location AND u.thread = c.thread AND u.level = %d))",
		  metric, level);
}

/* MissLat and the shares, once every row and the totals are known. */
static void derive(struct cell *row, const struct metric_cols *m, int64_t l1_latency,
		   int64_t total_misslat, int64_t total_d1)
{
	int64_t d1 = num_add(row[m->miss[0]].i, row[m->miss[1]].i, NULL);
	int64_t misslat = view_misslat(row[m->lat].i, num_add(row[m->dr].i, row[m->dw].i, NULL),
				       d1, l1_latency);

	cell_set_int(&row[m->misslat], misslat);
	cell_set_real(&row[m->misslat_pct], total_misslat ? 100.0 * (double)misslat /
					    (double)total_misslat : 0.0);
	cell_set_real(&row[m->miss_pct], total_d1 ? 100.0 * (double)d1 / (double)total_d1 : 0.0);
	if (d1)
		cell_set_real(&row[m->lat_per_miss], (double)misslat / (double)d1);
}

static void set_text(struct cell *c, sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	cell_set_str(c, s ? (const char *)s : "", (size_t)sqlite3_column_bytes(st, i));
}

/* Does any row of the profile match?  1, 0, or -1 on a read error. */
static int exists(struct profile *p, const char *sql, const char *name)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(p->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int view_parse_by(const char *arg, enum view_kind *k)
{
	if (!strcmp(arg, "object"))
		*k = VIEW_OBJECT;
	else if (!strcmp(arg, "function"))
		*k = VIEW_FUNCTION;
	else if (!strcmp(arg, "line"))
		*k = VIEW_LINE;
	else {
		err_msg("invalid --by value '%s' (object, function or line)", arg);
		return -1;
	}
	return 0;
}

static void describe_name(struct sbuf *out, const char *what, const char *name)
{
	if (!name)
		return;
	sbuf_addf(out, ", %s '", what);
	fmt_text(out, name, strlen(name));
	sbuf_adds(out, "'");
}

void view_describe(struct sbuf *out, const struct view_opts *o)
{
	sbuf_addf(out, "by %s", view_name(o->kind));
	if (o->outer)
		sbuf_adds(out, ", inlined code on its outermost call's line");
	describe_name(out, "bucket", o->object);
	describe_name(out, "function", o->function);
}

static void json_name(struct sbuf *out, const char *member, const char *name)
{
	sbuf_addf(out, ",\"%s\":", member);
	if (name)
		fmt_json_str(out, name, strlen(name));
	else
		sbuf_adds(out, "null");
}

void view_json_filters(struct sbuf *out, const struct view_opts *o)
{
	json_name(out, "object", o->object);
	json_name(out, "function", o->function);
}

int view_check_filters(struct profile *p, const struct view_opts *o, char *err, size_t errlen)
{
	int rc;

	if (o->object) {
		rc = exists(p, "SELECT 1 FROM bucket WHERE name = ?1", o->object);
		if (rc == 0)
			snprintf(err, errlen, "no bucket named '%s'", o->object);
		if (rc <= 0)
			goto fail;
	}
	if (o->function) {
		struct sbuf sql;

		sbuf_init(&sql);
		sbuf_adds(&sql, "SELECT 1 FROM location l WHERE ");
		view_fn_filter_sql(&sql, p, "l", "?1", o->outer);
		rc = exists(p, sql.buf, o->function);
		sbuf_release(&sql);
		if (rc == 0)
			snprintf(err, errlen, "no function named '%s'", o->function);
		if (rc <= 0)
			goto fail;
	}
	return 0;
fail:
	if (rc < 0)
		profile_read_error(p, err, errlen);
	return -1;
}

static void add_sql(struct sbuf *sb, const char *s)
{
	if (sb->len)
		sbuf_adds(sb, ", ");
	sbuf_adds(sb, s);
}

const char *view_src_root(struct profile *p)
{
	sqlite3_stmt *st;
	char *root = NULL;
	size_t rlen = 0;

	if (p->src_root_done)
		return p->src_root;
	p->src_root_done = true;
	if (sqlite3_prepare_v2(p->db, "SELECT DISTINCT file FROM location"
			       " WHERE substr(file, 1, 1) = '/' AND substr(file, 1, 5) <> '/usr/'",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 0);
		size_t n = 0;

		if (!f)
			continue;
		if (!root) {
			rlen = (size_t)(strrchr(f, '/') - f) + 1;
			root = xmalloc(strlen(f) + 1);
			memcpy(root, f, strlen(f) + 1);
			continue;
		}
		while (n < rlen && f[n] == root[n])
			n++;
		while (n > 0 && root[n - 1] != '/')
			n--;
		rlen = n;
	}
	sqlite3_finalize(st);
	if (root && rlen > 1) {
		root[rlen] = '\0';
		p->src_root = root;
	} else {
		free(root);
	}
	return p->src_root;
}

/* The source file of column expression col, as view_file_sql shows it. */
static void file_col_sql(struct sbuf *sb, struct profile *p, const char *col)
{
	const char *root = view_src_root(p);
	char *q;

	if (!root) {
		sbuf_adds(sb, col);
		return;
	}
	/* length() and substr() count characters, alike for both. */
	q = sqlite3_mprintf("%Q", root);
	sbuf_addf(sb, "(CASE WHEN substr(%s, 1, length(%s)) = %s"
		  " THEN substr(%s, length(%s) + 1) ELSE %s END)", col, q, q, col, q, col);
	sqlite3_free(q);
}

void view_file_sql(struct sbuf *sb, struct profile *p, const char *a)
{
	struct sbuf col;

	sbuf_init(&col);
	sbuf_addf(&col, "%s.file", a);
	file_col_sql(sb, p, col.buf);
	sbuf_release(&col);
}

/* The base name of a.object: what follows its last '/' (rtrim takes off
 * the characters that are not '/'). */
static void object_base_sql(struct sbuf *sb, const char *a)
{
	sbuf_addf(sb, "substr(%s.object, length(rtrim(%s.object, replace(%s.object, '/', ''))) + 1)",
		  a, a, a);
}

/* The name code views show for function column fn of location alias a;
 * with inl, " [inlined into CALLER]" after inlined code's. */
static void fn_col_sql(struct sbuf *sb, const struct profile *p, const char *a, const char *fn,
		       bool inl)
{
	/* Code without a symbol is "??? (object)", as Cachegrind names it,
	 * one function per object; the preloads' functions carry their
	 * object too, so they never read as the program's (cli.md). */
	sbuf_addf(sb, "(CASE WHEN COALESCE(%s.%s, '') = '' THEN"
		  " CASE WHEN COALESCE(%s.object, '') = '' THEN '?\?\?' ELSE '??? (' || ", a, fn, a);
	object_base_sql(sb, a);
	sbuf_addf(sb, " || ')' END WHEN %s.object LIKE '%%/vgpreload!_%%' ESCAPE '!'"
		  " THEN %s.%s || ' (' || ", a, a, fn);
	object_base_sql(sb, a);
	sbuf_addf(sb, " || ')' ELSE %s.%s", a, fn);
	if (inl && p->version >= 6)
		sbuf_addf(sb, " || CASE WHEN COALESCE(%s.inlined_into, '') <> ''"
			  " THEN ' [inlined into ' || %s.inlined_into || ']' ELSE '' END", a, a);
	sbuf_adds(sb, " END)");
}

void view_fn_sql(struct sbuf *sb, const struct profile *p, const char *a)
{
	fn_col_sql(sb, p, a, "function", true);
}

void view_fn_filter_sql(struct sbuf *sb, const struct profile *p, const char *a,
			const char *param, bool outer)
{
	sbuf_addf(sb, "(%s.function = %s OR ", a, param);
	view_fn_sql(sb, p, a);
	sbuf_addf(sb, " = %s", param);
	if (outer && p->version >= 9)
		sbuf_addf(sb, " OR %s.outer_function = %s", a, param);
	sbuf_adds(sb, ")");
}

/* The outer line view's columns of l: inlined code (outer_line not NULL,
 * schema 9) at its outermost call, in the function compiled; other code
 * where it is. */
static void outer_keys_sql(struct profile *p, struct sbuf *fn, struct sbuf *file,
			   struct sbuf *line)
{
	sbuf_adds(fn, "(CASE WHEN l.outer_line IS NULL THEN ");
	fn_col_sql(fn, p, "l", "function", true);
	sbuf_adds(fn, " ELSE ");
	fn_col_sql(fn, p, "l", "outer_function", false);
	sbuf_adds(fn, " END)");
	file_col_sql(file, p, "(CASE WHEN l.outer_line IS NULL THEN l.file ELSE l.outer_file END)");
	sbuf_adds(line, "(CASE WHEN l.outer_line IS NULL THEN l.line ELSE l.outer_line END)");
}

void view_add_keys(struct table *t, enum view_kind k, bool outer, struct profile *p,
		   struct sbuf *sel, struct sbuf *group)
{
	struct sbuf fn, file, line, s;
	int c;

	sbuf_init(&fn);
	sbuf_init(&file);
	sbuf_init(&line);
	sbuf_init(&s);
	if (outer && k == VIEW_LINE && p->version >= 9) {
		outer_keys_sql(p, &fn, &file, &line);
	} else {
		view_fn_sql(&fn, p, "l");
		view_file_sql(&file, p, "l");
		sbuf_adds(&line, "l.line");
	}

	switch (k) {
	case VIEW_OBJECT:
		table_add_col(t, "bucket", NULL, COL_STR, true);
		table_add_col(t, "kind", NULL, COL_STR, true);
		add_sql(sel, "b.name, b.kind");
		add_sql(group, "b.id");
		break;
	case VIEW_FUNCTION:
		table_add_col(t, "function", NULL, COL_STR, true);
		table_add_col(t, "file", NULL, COL_STR, true);
		sbuf_addf(&s, "%s, %s", fn.buf, file.buf);
		add_sql(sel, s.buf);
		add_sql(group, s.buf);
		break;
	default:
		c = table_add_col(t, "location", "file:line", COL_STR, false);
		t->cols[c].show = SHOW_TEXT;
		c = table_add_col(t, "file", NULL, COL_STR, true);
		t->cols[c].show = SHOW_MACHINE;
		c = table_add_col(t, "line", NULL, COL_INT, true);
		t->cols[c].show = SHOW_MACHINE;
		table_add_col(t, "function", NULL, COL_STR, true);
		/* Line 0 (the code has no line) is the function's "file:?"
		 * row, its line null (cli.md). */
		sbuf_addf(&s, "%s || ':' || CASE WHEN %s > 0 THEN %s ELSE '?' END, %s,"
			  " CASE WHEN %s > 0 THEN %s END, %s", file.buf, line.buf, line.buf,
			  file.buf, line.buf, line.buf, fn.buf);
		add_sql(sel, s.buf);
		sbuf_reset(&s);
		sbuf_addf(&s, "%s, MAX(%s, 0), %s", file.buf, line.buf, fn.buf);
		add_sql(group, s.buf);
	}
	sbuf_release(&fn);
	sbuf_release(&file);
	sbuf_release(&line);
	sbuf_release(&s);
}

void view_set_keys(const struct table *t, struct cell *row, int nkeys, sqlite3_stmt *st)
{
	for (int j = 0; j < nkeys; j++) {
		if (t->cols[j].type == COL_INT) {
			if (sqlite3_column_type(st, j) != SQLITE_NULL)
				cell_set_int(&row[j], sqlite3_column_int64(st, j));
		} else
			set_text(&row[j], st, j);
	}
	/* The file:line of an unknown file says so; the file follows it. */
	for (int j = 0; j + 1 < nkeys; j++)
		if (!strcmp(t->cols[j].name, "location") && row[j + 1].len == 0)
			cell_set_str(&row[j], "??", 2);
}

/* Key columns of a cost view and the SQL expressions that fill them. */
static int cost_keys(struct table *t, const struct view_opts *o, struct profile *p,
		     struct sbuf *sel, struct sbuf *group)
{
	view_add_keys(t, o->kind, o->outer, p, sel, group);
	if (o->thread) {
		table_add_col(t, "thread", NULL, COL_INT, true);
		add_sql(sel, "c.thread");
		add_sql(group, "c.thread");
	}
	if (o->per_bucket) {
		table_add_col(t, "bucket", NULL, COL_STR, true);
		add_sql(sel, "b.name");
		add_sql(group, "b.id");
	}
	return t->ncols;
}

static const char *cost_table(bool sampled)
{
	return sampled ? "cost_sampled" : "cost";
}

static int build_cost_view(struct profile *p, const struct view_opts *o, struct table *t,
			   char *err, size_t errlen)
{
	struct metric_cols m;
	struct incl_cols ic;
	struct sbuf sql, sel, group;
	sqlite3_stmt *st = NULL;
	int nkeys, rc, nuse, nself;
	int64_t total_misslat, total_d1;
	bool ovf = false;

	sbuf_init(&sql);
	sbuf_init(&sel);
	sbuf_init(&group);
	nkeys = cost_keys(t, o, p, &sel, &group);
	add_metric_cols(t, p->nlevels, &m);
	nuse = o->sampled ? 0 : view_use_count(p);
	if (nuse < 0)
		goto read_error;
	if (o->inclusive) {
		rc = profile_has_rows(p, "call_arc");
		if (rc < 0)
			goto read_error;
		if (!rc) {
			snprintf(err, errlen, "profile '%s' has no call data; record with --calls=yes",
				 p->path);
			rc = -1;
			goto out;
		}
	}
	sbuf_addf(&sql, "SELECT %s, SUM(c.Lat), SUM(c.Dr), SUM(c.Dw)", sel.buf);
	for (int k = 1; k <= p->nlevels; k++)
		sbuf_addf(&sql, ", SUM(c.D%dmr), SUM(c.D%dmw)", k, k);
	/* Cache use (seeds/001 §1), per level, when recorded: charged to the
	 * cost row of the access that loaded the line; Evicted with it when
	 * evictions were counted. */
	for (int k = 1; k <= p->nlevels; k++) {
		for (int i = 0; i < nuse; i++) {
			table_add_col(t, use_names[k - 1][i], NULL, COL_INT, false);
			view_add_use_sum(&sql, view_use_metrics[i], k);
		}
	}
	nself = t->ncols;
	if (o->inclusive)
		incl_add_cols(t, p, nuse, &ic);
	sbuf_addf(&sql, " FROM %s c JOIN bucket b ON b.id = c.bucket"
		  " JOIN location l ON l.id = c.location WHERE 1", cost_table(o->sampled));
	if (o->object)
		sbuf_adds(&sql, " AND b.name = ?1");
	if (o->function) {
		sbuf_adds(&sql, " AND ");
		view_fn_filter_sql(&sql, p, "l", "?2", o->outer);
	}
	sbuf_addf(&sql, " GROUP BY %s", group.buf);
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto read_error;
	if (o->object)
		sqlite3_bind_text(st, 1, o->object, -1, SQLITE_STATIC);
	if (o->function)
		sqlite3_bind_text(st, 2, o->function, -1, SQLITE_STATIC);

	for (int j = m.lat; j < nself; j++)
		cell_set_int(&t->total[j], 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cell *row = table_add_row(t);

		view_set_keys(t, row, nkeys, st);
		for (int j = m.lat; j < nself; j++) {
			cell_set_int(&row[j], sqlite3_column_int64(st, nkeys + j - m.lat));
			t->total[j].i = num_add(t->total[j].i, row[j].i, &ovf);
		}
	}
	if (rc != SQLITE_DONE)
		goto read_error;
	if (ovf) {
		profile_overflow_error(p, err, errlen);
		rc = -1;
		goto out;
	}
	if (o->inclusive && incl_fill(p, o, t, &ic, m.lat, nself, err, errlen)) {
		rc = -1;
		goto out;
	}
	derive(t->total, &m, p->lv[0].latency, 0, 0);
	total_misslat = t->total[m.misslat].i;
	total_d1 = num_add(t->total[m.miss[0]].i, t->total[m.miss[1]].i, NULL);
	for (size_t i = 0; i < t->nrows; i++)
		derive(table_row(t, i), &m, p->lv[0].latency, total_misslat, total_d1);
	derive(t->total, &m, p->lv[0].latency, total_misslat, total_d1);
	cell_set_str(&t->total[0], "total", 5);
	t->has_total = true;
	rc = 0;
	goto out;
read_error:
	profile_read_error(p, err, errlen);
	rc = -1;
out:
	sqlite3_finalize(st);
	sbuf_release(&sql);
	sbuf_release(&sel);
	sbuf_release(&group);
	return rc;
}

static const char *const stat_cols[] = {
	"blocks", "max_live_blocks", "max_live_bytes", "total_bytes", "min_size", "max_size",
};

static const char *const resident_cols[DC_MAX_LEVELS][2] = {
	{ "L1_resident_lines", "L1_resident_pct" }, { "L2_resident_lines", "L2_resident_pct" },
	{ "L3_resident_lines", "L3_resident_pct" }, { "L4_resident_lines", "L4_resident_pct" },
};

/* Per level, from column col on: the lines resident (statement column
 * first + k) and their share of the bucket's largest live size. */
static void set_residency(struct cell *row, int col, const struct profile *p, int nlevels,
			  sqlite3_stmt *st, int first, const struct cell *max_live_bytes)
{
	for (int k = 0; k < nlevels; k++) {
		double lines = sqlite3_column_double(st, first + k);

		cell_set_real(&row[col + 2 * k], lines);
		if (!max_live_bytes->null && max_live_bytes->i > 0)
			cell_set_real(&row[col + 2 * k + 1], 100.0 * lines *
				      (double)p->lv[k].line_size / (double)max_live_bytes->i);
	}
}

static int build_stats_view(struct profile *p, const struct view_opts *o, struct table *t,
			    char *err, size_t errlen)
{
	struct sbuf sql;
	sqlite3_stmt *st;
	int col[6], avg, rc, nres = 0;
	bool ovf = false;

	rc = profile_has_rows(p, "residency");
	if (rc < 0)
		goto read_error;
	if (rc)
		nres = p->nlevels;
	table_add_col(t, "bucket", NULL, COL_STR, true);
	table_add_col(t, "kind", NULL, COL_STR, true);
	for (int i = 0; i < 5; i++)
		col[i] = table_add_col(t, stat_cols[i], NULL, COL_INT, false);
	avg = table_add_col(t, "avg_size", NULL, COL_REAL, false);
	col[5] = table_add_col(t, stat_cols[5], NULL, COL_INT, false);
	sbuf_init(&sql);
	sbuf_adds(&sql, "SELECT name, kind, blocks, max_live_blocks, max_live_bytes,"
		  " total_bytes, min_size, max_size");
	for (int k = 0; k < nres; k++) {
		table_add_col(t, resident_cols[k][0], NULL, COL_REAL, false);
		table_add_col(t, resident_cols[k][1], NULL, COL_PCT, false);
		sbuf_addf(&sql, ", COALESCE((SELECT avg_lines FROM residency r"
			  " WHERE r.bucket = b.id AND r.level = %d), 0)", k + 1);
	}
	sbuf_adds(&sql, " FROM bucket b WHERE ?1 IS NULL OR name = ?1");
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	sbuf_release(&sql);
	if (rc != SQLITE_OK)
		goto read_error;
	if (o->object)
		sqlite3_bind_text(st, 1, o->object, -1, SQLITE_STATIC);
	cell_set_int(&t->total[col[0]], 0);
	cell_set_int(&t->total[col[3]], 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cell *row = table_add_row(t);

		set_text(&row[0], st, 0);
		set_text(&row[1], st, 1);
		for (int i = 0; i < 6; i++)
			if (sqlite3_column_type(st, 2 + i) != SQLITE_NULL)
				cell_set_int(&row[col[i]], sqlite3_column_int64(st, 2 + i));
		if (!row[col[0]].null && row[col[0]].i > 0 && !row[col[3]].null)
			cell_set_real(&row[avg], (double)row[col[3]].i / (double)row[col[0]].i);
		set_residency(row, col[5] + 1, p, nres, st, 8, &row[col[2]]);
		if (!row[col[0]].null)
			t->total[col[0]].i = num_add(t->total[col[0]].i, row[col[0]].i, &ovf);
		if (!row[col[3]].null)
			t->total[col[3]].i = num_add(t->total[col[3]].i, row[col[3]].i, &ovf);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto read_error;
	if (ovf) {
		profile_overflow_error(p, err, errlen);
		return -1;
	}
	cell_set_str(&t->total[0], "total", 5);
	t->has_total = true;
	return 0;
read_error:
	profile_read_error(p, err, errlen);
	return -1;
}

int view_build(struct profile *p, const struct view_opts *o, struct table *t,
	       char *err, size_t errlen)
{
	if (o->kind == VIEW_STATS)
		return build_stats_view(p, o, t, err, errlen);
	return build_cost_view(p, o, t, err, errlen);
}

int view_default_sort(const struct table *t, const struct view_opts *o)
{
	return table_find_metric(t, o->kind == VIEW_STATS ? "total_bytes"
				    : o->inclusive     ? "InclMissLat" : "MissLat");
}

int view_level_totals(struct profile *p, bool sampled, struct level_totals *lt,
		      char *err, size_t errlen)
{
	struct sbuf sql;
	sqlite3_stmt *st;
	int n = p->nlevels, rc;

	memset(lt, 0, sizeof *lt);
	sbuf_init(&sql);
	sbuf_adds(&sql, "SELECT SUM(Dr) + SUM(Dw), SUM(Lat)");
	for (int k = 1; k <= n; k++)
		sbuf_addf(&sql, ", SUM(D%dmr) + SUM(D%dmw)", k, k);
	sbuf_addf(&sql, " FROM %s", cost_table(sampled));
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	sbuf_release(&sql);
	if (rc != SQLITE_OK)
		goto read_error;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		lt->accesses[0] = sqlite3_column_int64(st, 0);
		lt->lat = sqlite3_column_int64(st, 1);
		for (int k = 0; k < n; k++) {
			lt->misses[k] = sqlite3_column_int64(st, 2 + k);
			lt->accesses[k + 1] = lt->misses[k];
		}
		lt->misslat = view_misslat(lt->lat, lt->accesses[0], lt->misses[0],
					   p->lv[0].latency);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		goto read_error;
	return 0;
read_error:
	profile_read_error(p, err, errlen);
	return -1;
}
