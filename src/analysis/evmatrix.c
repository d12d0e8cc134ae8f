/* evmatrix.c — the eviction matrix (see evmatrix.h). */
#include <stdlib.h>

#include "analysis/evmatrix.h"
#include "base/num.h"
#include "base/err.h"
#include "base/sbuf.h"

void evmatrix_release(struct evmatrix *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		free(m->v[i].kind);
	}
	m->n = 0;
}

static int top_buckets(struct profile *p, int level, bool sampled, size_t top,
		       struct evmatrix *m)
{
	struct sbuf sql;
	sqlite3_stmt *st;
	int rc;

	if (top > EVMATRIX_MAX)
		top = EVMATRIX_MAX;
	sbuf_init(&sql);
	sbuf_addf(&sql, "SELECT b.id, b.name, b.kind, SUM(c.D%dmr + c.D%dmw) AS m"
		  " FROM %s c JOIN bucket b ON b.id = c.bucket GROUP BY b.id HAVING m > 0"
		  " ORDER BY m DESC, b.name, b.id LIMIT %zu", level, level,
		  sampled ? "cost_sampled" : "cost", top);
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	sbuf_release(&sql);
	if (rc != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct ev_victim *v = &m->v[m->n++];

		v->id = sqlite3_column_int64(st, 0);
		v->name_len = (size_t)sqlite3_column_bytes(st, 1);
		v->name = xmemdup(sqlite3_column_blob(st, 1), v->name_len);
		v->kind = xmemdup(sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2));
		v->misses = sqlite3_column_int64(st, 3);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int find_victim(const struct evmatrix *m, int64_t id)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].id == id)
			return (int)i;
	return -1;
}

static int count_evictions(struct profile *p, int level, bool sampled, struct evmatrix *m)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(p->db, "SELECT evictor, victim, SUM(count) FROM eviction"
				" WHERE level = ?1 AND sampled = ?2 GROUP BY evictor, victim",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return -1;
	sqlite3_bind_int(st, 1, level);
	sqlite3_bind_int(st, 2, sampled);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int victim = find_victim(m, sqlite3_column_int64(st, 1));
		int evictor = find_victim(m, sqlite3_column_int64(st, 0));
		int64_t n = sqlite3_column_int64(st, 2);

		if (victim < 0)
			continue;
		int64_t *c = &m->count[evictor < 0 ? (int)m->n : evictor][victim];

		/* crafted counts saturate (base/num.h) */
		*c = num_add(*c, n, NULL);
		m->v[victim].evictions = num_add(m->v[victim].evictions, n, NULL);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int evmatrix_read(struct profile *p, int level, bool sampled, size_t top, struct evmatrix *m)
{
	if (top_buckets(p, level, sampled, top, m) || count_evictions(p, level, sampled, m))
		return -1;
	return 0;
}
