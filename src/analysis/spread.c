/* spread.c — how a merged profile's processes differ, per bucket (see
 * spread.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/spread.h"
#include "base/sbuf.h"

const char *spread_metric_sql(const char *metric, int nlevels, char *buf, size_t len)
{
	static const char *const plain[] = { "Dr", "Dw", "Lat" };

	for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
		if (!strcmp(metric, plain[i])) {
			snprintf(buf, len, "pc.%s", plain[i]);
			return buf;
		}
	if (!strcmp(metric, "Da")) {
		snprintf(buf, len, "pc.Dr + pc.Dw");
		return buf;
	}
	if (!strcmp(metric, "DLm") ||
	    (metric[0] == 'D' && metric[1] >= '1' && metric[1] <= '0' + nlevels &&
	     !strcmp(metric + 2, "m"))) {
		int k = metric[1] == 'L' ? nlevels : metric[1] - '0';
		snprintf(buf, len, "pc.D%dmr + pc.D%dmw", k, k);
		return buf;
	}
	return NULL;
}

int spread_build(struct profile *p, const char *metric, const char *object, struct table *t,
		 char *err, size_t errlen)
{
	char expr[64];
	struct sbuf sql;
	sqlite3_stmt *st;
	int rc, col;
	int has = profile_has_rows(p, "process");

	if (has <= 0 || sqlite3_table_column_metadata(p->db, NULL, "process_cost", "process",
						      NULL, NULL, NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "profile '%s' is not a merged profile: --spread compares"
			 " the processes of one made by 'dcprof merge'", p->path);
		return -1;
	}
	if (!spread_metric_sql(metric, p->nlevels, expr, sizeof expr)) {
		snprintf(err, errlen, "unknown --spread metric '%s' (Dr, Dw, Da, D1m..D%dm, DLm or"
			 " Lat)", metric, p->nlevels);
		return -1;
	}
	table_add_col(t, "bucket", NULL, COL_STR, true);
	table_add_col(t, "kind", NULL, COL_STR, true);
	col = table_add_col(t, "metric", NULL, COL_STR, false);
	t->cols[col].show = SHOW_MACHINE;
	table_add_col(t, "processes", NULL, COL_INT, false);
	table_add_col(t, "min", NULL, COL_INT, false);
	table_add_col(t, "mean", NULL, COL_INT, false);
	table_add_col(t, "max", NULL, COL_INT, false);
	table_add_col(t, "imbalance", NULL, COL_REAL, false);
	table_add_col(t, "max_process", NULL, COL_STR, false);
	table_add_col(t, "max_rank", NULL, COL_INT, false);

	/* Every (process, bucket) pair, 0 where the process never touched it;
	 * total() keeps the sums exact below 2^53 and never overflows. */
	sbuf_init(&sql);
	sbuf_addf(&sql,
		  "WITH v AS (SELECT pr.id AS process, b.id AS bucket,"
		  " coalesce((SELECT total(%s) FROM process_cost pc WHERE pc.process = pr.id"
		  " AND pc.bucket = b.id), 0) AS x FROM process pr CROSS JOIN bucket b%s),"
		  " s AS (SELECT bucket, MIN(x) AS lo, AVG(x) AS mean, MAX(x) AS hi,"
		  " SUM(x > 0) AS n FROM v GROUP BY bucket)"
		  " SELECT b.name, b.kind, s.n, s.lo, s.mean, s.hi,"
		  " (SELECT v.process FROM v WHERE v.bucket = s.bucket ORDER BY v.x DESC,"
		  " v.process LIMIT 1) AS top FROM s JOIN bucket b ON b.id = s.bucket",
		  expr, object ? " WHERE b.name = ?1" : "");
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	sbuf_release(&sql);
	if (rc != SQLITE_OK)
		goto sql_error;
	if (object)
		sqlite3_bind_text(st, 1, object, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cell *row = table_add_row(t);
		double mean = sqlite3_column_double(st, 4), hi = sqlite3_column_double(st, 5);
		int64_t top = sqlite3_column_int64(st, 6);
		sqlite3_stmt *pq;

		for (col = 0; col < 2; col++)
			cell_set_str(&row[col], (const char *)sqlite3_column_text(st, col),
				     (size_t)sqlite3_column_bytes(st, col));
		cell_set_str(&row[2], metric, strlen(metric));
		cell_set_int(&row[3], sqlite3_column_int64(st, 2));
		cell_set_int(&row[4], (int64_t)sqlite3_column_double(st, 3));
		cell_set_int(&row[5], (int64_t)(mean + 0.5));
		cell_set_int(&row[6], (int64_t)hi);
		cell_set_real(&row[7], mean > 0 ? hi / mean : 1.0);
		row[8].null = row[9].null = true;
		if (sqlite3_prepare_v2(p->db, "SELECT path, rank FROM process WHERE id = ?1", -1,
				       &pq, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(pq, 1, top);
			if (sqlite3_step(pq) == SQLITE_ROW) {
				cell_set_str(&row[8], (const char *)sqlite3_column_text(pq, 0),
					     (size_t)sqlite3_column_bytes(pq, 0));
				if (sqlite3_column_type(pq, 1) != SQLITE_NULL)
					cell_set_int(&row[9], sqlite3_column_int64(pq, 1));
			}
		}
		sqlite3_finalize(pq);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
sql_error:
	profile_read_error(p, err, errlen);
	return -1;
}
