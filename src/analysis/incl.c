/* incl.c — inclusive costs per function for report --inclusive (see
 * incl.h Notes). */
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "analysis/incl.h"
#include "base/sbuf.h"

#define ROOT "<root>"

void incl_add_cols(struct table *t, const struct profile *p, int nuse, struct incl_cols *ic)
{
	static const char *const miss[DC_MAX_LEVELS][2] = {
		{ "InclD1mr", "InclD1mw" }, { "InclD2mr", "InclD2mw" },
		{ "InclD3mr", "InclD3mw" }, { "InclD4mr", "InclD4mw" },
	};
	static const char *const use[DC_MAX_LEVELS][3] = {
		{ "InclSpLoss1", "InclAcCost1", "InclEvicted1" },
		{ "InclSpLoss2", "InclAcCost2", "InclEvicted2" },
		{ "InclSpLoss3", "InclAcCost3", "InclEvicted3" },
		{ "InclSpLoss4", "InclAcCost4", "InclEvicted4" },
	};

	ic->nuse = nuse;
	ic->l1_latency = p->lv[0].latency;
	ic->calls = table_add_col(t, "calls", NULL, COL_INT, false);
	ic->misslat = table_add_col(t, "InclMissLat", NULL, COL_INT, false);
	ic->misslat_pct = table_add_col(t, "InclMissLatPct", "InclMissLat%", COL_PCT, false);
	ic->lat = table_add_col(t, "InclLat", NULL, COL_INT, false);
	table_add_col(t, "InclDr", NULL, COL_INT, false);
	table_add_col(t, "InclDw", NULL, COL_INT, false);
	for (int k = 0; k < p->nlevels; k++) {
		bool last = k == p->nlevels - 1 && k > 0;
		table_add_col(t, last ? "InclDLmr" : miss[k][0], NULL, COL_INT, false);
		table_add_col(t, last ? "InclDLmw" : miss[k][1], NULL, COL_INT, false);
	}
	for (int k = 0; k < p->nlevels; k++)
		for (int i = 0; i < nuse; i++)
			table_add_col(t, use[k][i], NULL, COL_INT, false);
	ic->n = t->ncols - ic->lat;
}

/* Row lookup by key: function, file, thread. */
struct index {
	const struct table *t;
	bool thread;
	size_t *row;
	size_t n;
};

static int cell_cmp(const struct cell *a, const struct cell *b)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->s, b->s, n);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int key_cmp(bool thread, const struct cell *a, const struct cell *b)
{
	int c = cell_cmp(&a[0], &b[0]);

	if (!c)
		c = cell_cmp(&a[1], &b[1]);
	if (!c && thread)
		c = (a[2].i > b[2].i) - (a[2].i < b[2].i);
	return c;
}

static int index_cmp(const void *a, const void *b, void *ud)
{
	const struct index *x = ud;

	return key_cmp(x->thread, table_row(x->t, *(const size_t *)a),
		       table_row(x->t, *(const size_t *)b));
}

static void index_build(struct index *x, const struct table *t, bool thread)
{
	x->t = t;
	x->thread = thread;
	x->n = t->nrows;
	x->row = xcalloc(x->n ? x->n : 1, sizeof *x->row);
	for (size_t i = 0; i < x->n; i++)
		x->row[i] = i;
	qsort_r(x->row, x->n, sizeof *x->row, index_cmp, x);
}

/* The row of key, or SIZE_MAX. */
static size_t index_find(const struct index *x, const struct cell *key)
{
	size_t lo = 0, hi = x->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = key_cmp(x->thread, table_row(x->t, x->row[mid]), key);
		if (!c)
			return x->row[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* The key of statement row st (function, file, thread) in key[]. */
static void read_key(sqlite3_stmt *st, bool thread, struct cell key[3])
{
	for (int j = 0; j < 2; j++) {
		const unsigned char *s = sqlite3_column_text(st, j);
		key[j].s = (char *)(s ? s : (const unsigned char *)"");
		key[j].len = s ? (size_t)sqlite3_column_bytes(st, j) : 0;
	}
	key[2].i = thread ? sqlite3_column_int64(st, 2) : 0;
}

/* The row of key: t's, one added earlier, or a new one with zero self
 * and inclusive costs. */
static struct cell *row_for(struct table *t, struct index *x, const struct incl_cols *ic,
			    const struct cell key[3], int self_first, int self_end)
{
	size_t i = index_find(x, key);
	struct cell *row;

	if (i != SIZE_MAX)
		return table_row(t, i);
	for (i = x->n; i < t->nrows; i++)
		if (!key_cmp(x->thread, table_row(t, i), key))
			return table_row(t, i);
	row = table_add_row(t);
	cell_set_str(&row[0], key[0].s, key[0].len);
	cell_set_str(&row[1], key[1].s, key[1].len);
	if (x->thread)
		cell_set_int(&row[2], key[2].i);
	for (int j = self_first; j < self_end; j++)
		cell_set_int(&row[j], 0);
	for (int j = 0; j < ic->n; j++)
		cell_set_int(&row[ic->lat + j], 0);
	return row;
}

/* SELECT function, file, [thread,] [level,] then cols, over the rows of
 * table (call_arc or call_use, alias a) of kind 'call', by the function
 * of location `end` (site or callee, joined as l) and, for sites unless
 * one function is shown, UNION ALL the roots as "<root>". */
static void arcs_sql(struct sbuf *sql, struct profile *p, const char *table, const char *end,
		     const struct view_opts *o, const char *cols, bool level)
{
	struct sbuf group, key, filter;

	sbuf_init(&group);
	sbuf_init(&key);
	sbuf_init(&filter);
	if (o->function) {
		sbuf_adds(&filter, " AND ");
		view_fn_filter_sql(&filter, p, "l", "?1", false);
	}
	/* The function and file as the function view shows them. */
	view_fn_sql(&key, p, "l");
	sbuf_adds(&key, ", ");
	view_file_sql(&key, p, "l");
	if (o->thread)
		sbuf_adds(&group, "a.thread");
	if (level)
		sbuf_adds(&group, group.len ? ", a.level" : "a.level");
	/* A call whose callee shows as the caller's own row (recursion, or
	 * code without symbols calling code without symbols in one object:
	 * one "??? (object)" row) adds nothing: the callee's costs are the
	 * row's self costs and its calls' arcs already. */
	if (!strcmp(end, "site")) {
		sbuf_adds(&filter, " AND NOT (");
		view_fn_sql(&filter, p, "l");
		sbuf_adds(&filter, " = ");
		view_fn_sql(&filter, p, "cl");
		sbuf_adds(&filter, " AND ");
		view_file_sql(&filter, p, "l");
		sbuf_adds(&filter, " = ");
		view_file_sql(&filter, p, "cl");
		sbuf_adds(&filter, ")");
	}
	sbuf_addf(sql, "SELECT %s%s%s, %s FROM %s a"
		  " JOIN location l ON l.id = a.%s JOIN location cl ON cl.id = a.callee"
		  " WHERE a.kind = 'call'%s"
		  " GROUP BY %s%s%s", key.buf, group.len ? ", " : "", group.buf, cols,
		  table, end, filter.len ? filter.buf : "", key.buf,
		  group.len ? ", " : "", group.buf);
	if (!o->function && !strcmp(end, "site"))
		sbuf_addf(sql, " UNION ALL SELECT '" ROOT "', ''%s%s, %s FROM %s a"
			  " WHERE a.kind <> 'call'%s%s", group.len ? ", " : "", group.buf, cols,
			  table, group.len ? " GROUP BY " : "", group.buf);
	sbuf_release(&group);
	sbuf_release(&key);
	sbuf_release(&filter);
}

static int prepare(struct profile *p, const struct view_opts *o, const char *sql,
		   sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(p->db, sql, -1, st, NULL) != SQLITE_OK)
		return -1;
	if (o->function)
		sqlite3_bind_text(*st, 1, o->function, -1, SQLITE_STATIC);
	return 0;
}

int incl_fill(struct profile *p, const struct view_opts *o, struct table *t,
	      const struct incl_cols *ic, int self_first, int self_end, char *err,
	      size_t errlen)
{
	int nkey = o->thread ? 3 : 2, ncost = 3 + 2 * p->nlevels, rc = -1;
	int use0 = ic->lat + ncost;
	struct sbuf cols, sql;
	sqlite3_stmt *st = NULL;
	struct index x;
	struct cell key[3];
	struct level_totals lt;
	bool ovf = false;

	/* InclMissLatPct: of the program's MissLat */
	if (view_level_totals(p, false, &lt, err, errlen))
		return -1;
	for (size_t i = 0; i < t->nrows; i++) {
		struct cell *row = table_row(t, i);
		for (int j = 0; j < ic->n; j++)
			cell_set_int(&row[ic->lat + j], row[self_first + j].i);
	}
	index_build(&x, t, o->thread);
	sbuf_init(&cols);
	sbuf_init(&sql);

	/* the calls made: Lat, Dr, Dw, misses per level */
	sbuf_adds(&cols, "SUM(a.Lat), SUM(a.Dr), SUM(a.Dw)");
	for (int k = 1; k <= p->nlevels; k++)
		sbuf_addf(&cols, ", SUM(a.D%dmr), SUM(a.D%dmw)", k, k);
	arcs_sql(&sql, p, "call_arc", "site", o, cols.buf, false);
	if (prepare(p, o, sql.buf, &st))
		goto read_error;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cell *row;

		read_key(st, o->thread, key);
		row = row_for(t, &x, ic, key, self_first, self_end);
		for (int j = 0; j < ncost; j++)
			row[ic->lat + j].i = num_add(row[ic->lat + j].i,
						     sqlite3_column_int64(st, nkey + j), &ovf);
	}
	if (rc != SQLITE_DONE)
		goto read_error;
	sqlite3_finalize(st);
	st = NULL;

	/* their back-dated costs, per level */
	if (ic->nuse) {
		sbuf_reset(&cols);
		sbuf_reset(&sql);
		for (int i = 0; i < ic->nuse; i++)
			sbuf_addf(&cols, "%sCOALESCE(SUM(a.%s), 0)", i ? ", " : "",
				  view_use_metrics[i]);
		arcs_sql(&sql, p, "call_use", "site", o, cols.buf, true);
		if (prepare(p, o, sql.buf, &st))
			goto read_error;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct cell *row;
			int level = sqlite3_column_int(st, nkey);

			if (level < 1 || level > p->nlevels)
				continue;
			read_key(st, o->thread, key);
			row = row_for(t, &x, ic, key, self_first, self_end);
			for (int i = 0; i < ic->nuse; i++) {
				struct cell *c = &row[use0 + (level - 1) * ic->nuse + i];
				c->i = num_add(c->i, sqlite3_column_int64(st, nkey + 1 + i), &ovf);
			}
		}
		if (rc != SQLITE_DONE)
			goto read_error;
		sqlite3_finalize(st);
		st = NULL;
	}

	/* the calls received */
	sbuf_reset(&sql);
	arcs_sql(&sql, p, "call_arc", "callee", o, "SUM(a.count)", false);
	if (prepare(p, o, sql.buf, &st))
		goto read_error;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		read_key(st, o->thread, key);
		cell_set_int(&row_for(t, &x, ic, key, self_first, self_end)[ic->calls],
			     sqlite3_column_int64(st, nkey));
	}
	if (rc != SQLITE_DONE)
		goto read_error;

	if (ovf) {
		profile_overflow_error(p, err, errlen);
		rc = -1;
		goto out;
	}
	/* MissLat: the cycles of the accesses that missed L1 */
	for (size_t i = 0; i < t->nrows; i++) {
		struct cell *row = table_row(t, i);
		const struct cell *v = &row[ic->lat];
		int64_t misslat = view_misslat(v[0].i, num_add(v[1].i, v[2].i, NULL),
					       num_add(v[3].i, v[4].i, NULL), ic->l1_latency);

		cell_set_int(&row[ic->misslat], misslat);
		cell_set_real(&row[ic->misslat_pct], lt.misslat ? 100.0 * (double)misslat /
								  (double)lt.misslat : 0.0);
	}
	rc = 0;
	goto out;
read_error:
	profile_read_error(p, err, errlen);
	rc = -1;
out:
	sqlite3_finalize(st);
	sbuf_release(&cols);
	sbuf_release(&sql);
	free(x.row);
	return rc;
}
