/* ipsamp.c — IP-only samples per function or line (see ipsamp.h). */
#include <stdio.h>

#include "analysis/ipsamp.h"
#include "base/num.h"
#include "base/sbuf.h"

int ipsamp_build(struct profile *p, const struct view_opts *o, const struct sample_info *si,
		 struct table *t, char *err, size_t errlen)
{
	struct sbuf sql, sel, group;
	sqlite3_stmt *st = NULL;
	int nkeys, samples, events, pct, rc;
	bool ovf = false;

	sbuf_init(&sql);
	sbuf_init(&sel);
	sbuf_init(&group);
	view_add_keys(t, o->kind, o->outer, p, &sel, &group);
	if (o->thread) {
		table_add_col(t, "thread", NULL, COL_INT, true);
		sbuf_adds(&sel, ", s.thread");
		sbuf_adds(&group, ", s.thread");
	}
	nkeys = t->ncols;
	samples = table_add_col(t, "samples", NULL, COL_INT, false);
	events = table_add_col(t, "events", NULL, COL_INT, false);
	pct = table_add_col(t, "SamplesPct", "Samples%", COL_PCT, false);
	sbuf_addf(&sql, "SELECT %s, SUM(s.count) FROM ip_sample s"
		  " JOIN location l ON l.id = s.location WHERE 1", sel.buf);
	if (o->function) {
		sbuf_adds(&sql, " AND ");
		view_fn_filter_sql(&sql, p, "l", "?1", o->outer);
	}
	sbuf_addf(&sql, " GROUP BY %s", group.buf);
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto read_error;
	if (o->function)
		sqlite3_bind_text(st, 1, o->function, -1, SQLITE_STATIC);
	cell_set_int(&t->total[samples], 0);
	cell_set_int(&t->total[events], 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cell *row = table_add_row(t);
		int64_t n = sqlite3_column_int64(st, nkeys);

		view_set_keys(t, row, nkeys, st);
		cell_set_int(&row[events], n);
		/* a count is samples x period; a crafted one rounds down */
		cell_set_int(&row[samples], si->period > 0 ? n / si->period : 0);
		t->total[events].i = num_add(t->total[events].i, n, &ovf);
		t->total[samples].i = num_add(t->total[samples].i, row[samples].i, &ovf);
	}
	if (rc != SQLITE_DONE)
		goto read_error;
	if (ovf) {
		profile_overflow_error(p, err, errlen);
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < t->nrows; i++) {
		struct cell *row = table_row(t, i);
		if (t->total[samples].i)
			cell_set_real(&row[pct], 100.0 * (double)row[samples].i /
						 (double)t->total[samples].i);
	}
	if (t->total[samples].i)
		cell_set_real(&t->total[pct], 100.0);
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
