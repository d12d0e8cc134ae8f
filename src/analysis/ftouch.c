/* ftouch.c — the first-touch view: which object's pages were first
 * touched where and by which thread (ftouch.h).
 *
 * Notes:
 *  - A page counts once per object, for the code location and thread of
 *    the first access to it (the first page fault; the native engine
 *    dedupes the zero-page read fault and the write fault after it).  On
 *    a NUMA machine the kernel places a page on the node of the thread
 *    that first touches it, so the thread column is where the pages live.
 *  - "where" is the location with the most of the row's pages: function
 *    (file:line) once symbolised, else the instruction address.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/ftouch.h"

static const char rows_sql[] =
	"SELECT b.name, b.kind, CASE WHEN ?1 THEN f.thread ELSE NULL END AS th,"
	" SUM(f.pages),"
	" (SELECT COALESCE(NULLIF(l.function, '') || ' (' || l.file || ':' || l.line || ')',"
	"   printf('0x%x', l.ip))"
	"  FROM first_touch g JOIN location l ON l.id = g.location"
	"  WHERE g.bucket = f.bucket AND (NOT ?1 OR g.thread = f.thread)"
	"  GROUP BY g.location ORDER BY SUM(g.pages) DESC, g.location LIMIT 1)"
	" FROM first_touch f JOIN bucket b ON b.id = f.bucket"
	" GROUP BY f.bucket, th";

int ftouch_build(struct profile *p, bool by_thread, struct table *t, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL, *total = NULL;
	int64_t all = 0;
	int rc;

	if (p->version < 8 || sqlite3_prepare_v2(p->db, "SELECT SUM(pages) FROM first_touch", -1,
						 &total, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "profile '%s' has no first touches; record with"
			 " --engine=native --event=pagefault", p->path);
		sqlite3_finalize(total);
		return -1;
	}
	if (sqlite3_step(total) == SQLITE_ROW)
		all = sqlite3_column_int64(total, 0);
	sqlite3_finalize(total);
	if (!all) {
		snprintf(err, errlen, "profile '%s' has no first touches; record with"
			 " --engine=native --event=pagefault", p->path);
		return -1;
	}
	table_add_col(t, "bucket", NULL, COL_STR, true);
	table_add_col(t, "kind", NULL, COL_STR, false);
	if (by_thread)
		table_add_col(t, "thread", NULL, COL_INT, true);
	int cpages = table_add_col(t, "Pages", NULL, COL_INT, false);
	int cpct = table_add_col(t, "Pages%", NULL, COL_PCT, false);
	int cwhere = table_add_col(t, "where", NULL, COL_STR, false);
	if (sqlite3_prepare_v2(p->db, rows_sql, -1, &st, NULL) != SQLITE_OK)
		goto fail;
	sqlite3_bind_int(st, 1, by_thread);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cell *row = table_add_row(t);
		int64_t pages = sqlite3_column_int64(st, 3);

		cell_set_str(&row[0], (const char *)sqlite3_column_text(st, 0),
			     (size_t)sqlite3_column_bytes(st, 0));
		cell_set_str(&row[1], (const char *)sqlite3_column_text(st, 1),
			     (size_t)sqlite3_column_bytes(st, 1));
		if (by_thread)
			cell_set_int(&row[2], sqlite3_column_int64(st, 2));
		cell_set_int(&row[cpages], pages);
		cell_set_real(&row[cpct], 100.0 * (double)pages / (double)all);
		if (sqlite3_column_type(st, 4) != SQLITE_NULL)
			cell_set_str(&row[cwhere], (const char *)sqlite3_column_text(st, 4),
				     (size_t)sqlite3_column_bytes(st, 4));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto fail;
	t->has_total = true;
	for (int j = 0; j < t->ncols; j++)
		t->total[j] = (struct cell){ .null = true };
	cell_set_str(&t->total[0], "total", 5);
	cell_set_int(&t->total[cpages], all);
	cell_set_real(&t->total[cpct], 100.0);
	table_sort(t, cpages);
	return 0;
fail:
	snprintf(err, errlen, "cannot read profile '%s': %s", p->path, sqlite3_errmsg(p->db));
	return -1;
}
