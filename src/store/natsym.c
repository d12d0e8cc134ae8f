/* natsym.c — the native engine's locations and heap buckets named at
 * finalize (see natsym.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "core/heapname.h"
#include "dwarf/dwsym.h"
#include "store/natsym.h"

void natsym_init(struct natsym *ns)
{
	memset(ns, 0, sizeof *ns);
}

void natsym_release(struct natsym *ns)
{
	dwsym_free(ns->dw);
	free(ns->paths);
	free(ns->ips);
	free(ns->locs);
	free(ns->unnamed);
	memset(ns, 0, sizeof *ns);
}

void natsym_add_map(struct natsym *ns, uint64_t start, uint64_t end, uint64_t off,
		    const char *path)
{
	if (!ns->dw)
		ns->dw = dwsym_new();
	dwsym_add_map(ns->dw, start, end, off, path);
}

/* Appends the pair (a, b) to *v. */
static void add_pair(int64_t **v, size_t *n, size_t *cap, int64_t a, int64_t b)
{
	if (*n + 2 > *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = a;
	(*v)[(*n)++] = b;
}

void natsym_add_path(struct natsym *ns, int64_t bucket, uint64_t line, const uint64_t *ips,
		     size_t n)
{
	if (ns->npaths == ns->path_cap) {
		ns->path_cap = ns->path_cap ? 2 * ns->path_cap : 64;
		ns->paths = xrealloc(ns->paths, ns->path_cap * sizeof *ns->paths);
	}
	while (ns->nips + n > ns->ip_cap) {
		ns->ip_cap = ns->ip_cap ? 2 * ns->ip_cap : 1024;
		ns->ips = xrealloc(ns->ips, ns->ip_cap * sizeof *ns->ips);
	}
	memcpy(ns->ips + ns->nips, ips, n * sizeof *ips);
	ns->paths[ns->npaths++] = (struct natsym_path){ bucket, line, ns->nips, n };
	ns->nips += n;
}

void natsym_add_loc(struct natsym *ns, int64_t id, int64_t ip)
{
	add_pair(&ns->locs, &ns->nlocs, &ns->loc_cap, id, ip);
}

void natsym_add_unnamed(struct natsym *ns, int64_t bucket, uint64_t line)
{
	add_pair(&ns->unnamed, &ns->nunnamed, &ns->unnamed_cap, bucket, (int64_t)line);
}

static int path_cmp(const void *a, const void *b)
{
	const struct natsym_path *x = a, *y = b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int pair_cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

int natsym_check(struct natsym *ns, char *err, size_t errlen, uint64_t *line)
{
	size_t j = 0;

	if (!ns->npaths && !ns->nunnamed)
		return 0;
	if (ns->npaths)
		qsort(ns->paths, ns->npaths, sizeof *ns->paths, path_cmp);
	if (ns->nunnamed)
		qsort(ns->unnamed, ns->nunnamed / 2, 2 * sizeof *ns->unnamed, pair_cmp);
	for (size_t i = 0; i < ns->npaths; i++) {
		const struct natsym_path *p = &ns->paths[i];

		*line = p->line;
		if (i && p->bucket == p[-1].bucket) {
			snprintf(err, errlen, "second hpath record for bucket %lld",
				 (long long)p->bucket);
			return -1;
		}
		while (j < ns->nunnamed && ns->unnamed[j] < p->bucket) {
			*line = (uint64_t)ns->unnamed[j + 1];
			snprintf(err, errlen, "bucket %lld is named '-' but has no hpath record",
				 (long long)ns->unnamed[j]);
			return -1;
		}
		if (j == ns->nunnamed || ns->unnamed[j] != p->bucket) {
			snprintf(err, errlen, "hpath names bucket %lld, which is not a heap or mmap"
				 " bucket named '-'", (long long)p->bucket);
			return -1;
		}
		j += 2;
	}
	if (j < ns->nunnamed) {
		*line = (uint64_t)ns->unnamed[j + 1];
		snprintf(err, errlen, "bucket %lld is named '-' but has no hpath record",
			 (long long)ns->unnamed[j]);
		return -1;
	}
	return 0;
}

/* ---- locations ---------------------------------------------------------- */

static void bind_str(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
}

/* As engine/valgrind/dc_names.c's dc_loc_get: code inlined at ip counts
 * for the inlined function, except at a symbol's first instruction. */
static int name_locs(struct natsym *ns, sqlite3 *db)
{
	sqlite3_stmt *st;
	int rc = SQLITE_OK;

	if (!ns->nlocs || !ns->dw)
		return 0;
	if (sqlite3_prepare_v2(db, "UPDATE location SET object = ?2, function = ?3, file = ?4,"
			       " line = ?5, inlined_into = ?6, outer_function = ?7, outer_file = ?8,"
			       " outer_line = ?9 WHERE id = ?1", -1, &st, NULL))
		return -1;
	for (size_t i = 0; i < ns->nlocs && rc == SQLITE_OK; i += 2) {
		const struct dwsym_frame *f;
		const char *obj;
		int entry;
		size_t n = dwsym_frames(ns->dw, (uint64_t)ns->locs[i + 1], &f, &obj, &entry);
		bool inl = !entry && n > 1 && f[0].fn[0];

		if (!n)
			continue;
		sqlite3_bind_int64(st, 1, ns->locs[i]);
		bind_str(st, 2, obj);
		bind_str(st, 3, inl ? f[0].fn : f[n - 1].fn);
		bind_str(st, 4, f[0].file);
		sqlite3_bind_int64(st, 5, f[0].line);
		bind_str(st, 6, inl ? f[1].fn : "");
		/* Inlined: the symbol's function and its outermost call's line
		 * (the chain's last frame); NULL when not inlined or all
		 * unknown, as rawread.c stores the simulator's. */
		if (inl && (f[n - 1].fn[0] || f[n - 1].file[0] || f[n - 1].line)) {
			bind_str(st, 7, f[n - 1].fn);
			bind_str(st, 8, f[n - 1].file);
			sqlite3_bind_int64(st, 9, f[n - 1].line);
		} else {
			for (int k = 7; k <= 9; k++)
				sqlite3_bind_null(st, k);
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = SQLITE_ERROR;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : -1;
}

/* ---- buckets ------------------------------------------------------------ */

/* Meta key's value into buf ("" when absent). */
static int meta(sqlite3 *db, const char *key, char *buf, size_t len)
{
	sqlite3_stmt *st;
	int rc;

	buf[0] = 0;
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?1", -1, &st, NULL))
		return -1;
	bind_str(st, 1, key);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The options of the engine's naming from meta heap_names, alloc_depth
 * and alloc_fns (split in place into names[]). */
static int naming_opts(sqlite3 *db, struct dc_heapname_opts *o, char *fns, size_t fnlen,
		       const char **names, size_t max)
{
	char v[64];
	int depth = 0, nest = 0;
	size_t n = 0;

	o->depth = 3;
	o->site = false;
	if (meta(db, "heap_names", v, sizeof v))
		return -1;
	if (!strcmp(v, "site"))
		o->site = true;
	else if (sscanf(v, "fn:%d", &depth) == 1 && depth > 0)
		o->depth = depth;
	if (meta(db, "alloc_depth", v, sizeof v))
		return -1;
	if (sscanf(v, "%d", &depth) == 1 && depth > 0)
		o->depth = depth;
	if (o->site)
		o->depth = 1 << 30;
	if (meta(db, "alloc_fns", fns, fnlen))
		return -1;
	/* commas inside a C++ name's brackets belong to the name */
	for (char *p = fns, *start = fns; n < max; p++) {
		if (*p == '(' || *p == '<')
			nest++;
		else if ((*p == ')' || *p == '>') && nest)
			nest--;
		if (*p && (*p != ',' || nest))
			continue;
		if (p > start)
			names[n++] = start;
		if (!*p)
			break;
		*p = 0;
		start = p + 1;
	}
	o->alloc_fns = names;
	o->n_alloc_fns = n;
	return 0;
}

/* Expands one path's return addresses into frames (each looked up at the
 * call instruction, the address before it). */
static size_t path_frames(struct natsym *ns, const struct natsym_path *p,
			  struct dc_hframe *fr, size_t max)
{
	size_t m = 0;

	for (size_t i = 0; i < p->n && m < max; i++) {
		uint64_t ip = ns->ips[p->first + i] - 1;
		const struct dwsym_frame *f;
		const char *obj = "";
		int entry;
		size_t k = ns->dw ? dwsym_frames(ns->dw, ip, &f, &obj, &entry) : 0;

		if (!k) {
			fr[m++] = (struct dc_hframe){ "", "", 0, "", ip };
			continue;
		}
		for (size_t j = 0; j < k && m < max; j++)
			fr[m++] = (struct dc_hframe){ f[j].fn, f[j].file, f[j].line, obj, ip };
	}
	return m;
}

static int name_buckets(struct natsym *ns, sqlite3 *db)
{
	struct dc_heapname_opts o;
	struct dc_hframe fr[4 * NATSYM_MAX_PATH];
	const char *names[64];
	char fns[4096];
	static char name[DC_HEAP_NAME_MAX];
	sqlite3_stmt *st, *mark, *kind;
	int rc = SQLITE_OK;

	if (naming_opts(db, &o, fns, sizeof fns, names, sizeof names / sizeof *names) ||
	    sqlite3_exec(db, "CREATE TEMP TABLE natsym_named(id INTEGER PRIMARY KEY)", NULL, NULL,
			 NULL))
		return -1;
	if (sqlite3_prepare_v2(db, "UPDATE bucket SET name = ?2 WHERE id = ?1", -1, &st, NULL))
		return -1;
	if (sqlite3_prepare_v2(db, "INSERT INTO temp.natsym_named VALUES(?1)", -1, &mark, NULL)) {
		sqlite3_finalize(st);
		return -1;
	}
	if (sqlite3_prepare_v2(db, "SELECT kind = 'mmap' FROM bucket WHERE id = ?1", -1, &kind,
			       NULL)) {
		sqlite3_finalize(st);
		sqlite3_finalize(mark);
		return -1;
	}
	for (size_t i = 0; i < ns->npaths && rc == SQLITE_OK; i++) {
		const struct natsym_path *p = &ns->paths[i];
		size_t m = path_frames(ns, p, fr, sizeof fr / sizeof *fr);
		bool region;

		sqlite3_bind_int64(kind, 1, p->bucket);
		region = sqlite3_step(kind) == SQLITE_ROW && sqlite3_column_int(kind, 0);
		sqlite3_reset(kind);
		/* an anonymous mapping is named as the simulator names one:
		 * "<mmap:f-g-h>" after the code that mapped it */
		if (region) {
			char chain[sizeof name - 8];
			dc_chain_name(fr, m, 3, false, dc_is_mmap_fn, chain, sizeof chain);
			snprintf(name, sizeof name, "<mmap:%s>", chain);
		} else {
			dc_heap_name(fr, m, &o, name, sizeof name);
		}
		sqlite3_bind_int64(st, 1, p->bucket);
		bind_str(st, 2, name);
		sqlite3_bind_int64(mark, 1, p->bucket);
		if (sqlite3_step(st) != SQLITE_DONE || sqlite3_step(mark) != SQLITE_DONE)
			rc = SQLITE_ERROR;
		sqlite3_reset(st);
		sqlite3_reset(mark);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(mark);
	sqlite3_finalize(kind);
	return rc == SQLITE_OK ? 0 : -1;
}

#define SUM(c) c " = " c " + excluded." c
#define COSTS_SET SUM("Dr") ", " SUM("Dw") ", " SUM("D1mr") ", " SUM("D1mw") ", " \
	SUM("D2mr") ", " SUM("D2mw") ", " SUM("D3mr") ", " SUM("D3mw") ", " SUM("D4mr") \
	", " SUM("D4mw") ", " SUM("Lat")
#define COSTS_T "t.Dr, t.Dw, t.D1mr, t.D1mw, t.D2mr, t.D2mw, t.D3mr, t.D3mw, t.D4mr," \
	" t.D4mw, t.Lat"
#define MOVED " JOIN temp.natsym_bmap m ON m.src = t.bucket WHERE true"
#define GONE(table, col) "DELETE FROM " table " WHERE " col " IN (SELECT src FROM temp.natsym_bmap);"
#define NULLSUM(c) c " = CASE WHEN " c " IS NULL OR excluded." c " IS NULL THEN NULL ELSE " \
	c " + excluded." c " END"

/* Every row of a bucket in natsym_bmap(src, dst) moved to dst (the
 * upserts read their own table: SQLite evaluates such a SELECT whole
 * before the first insert). */
static const char merge_sql[] =
	"INSERT INTO cost SELECT m.dst, t.location, t.thread, " COSTS_T " FROM cost t" MOVED
	" ON CONFLICT(bucket, location, thread) DO UPDATE SET " COSTS_SET ";"
	GONE("cost", "bucket")
	"INSERT INTO cost_sampled SELECT m.dst, t.location, t.thread, " COSTS_T
	" FROM cost_sampled t" MOVED
	" ON CONFLICT(bucket, location, thread) DO UPDATE SET " COSTS_SET ";"
	GONE("cost_sampled", "bucket")
	"UPDATE block SET bucket = (SELECT dst FROM temp.natsym_bmap WHERE src = bucket)"
	" WHERE bucket IN (SELECT src FROM temp.natsym_bmap);"
	"UPDATE trace_access SET bucket = (SELECT dst FROM temp.natsym_bmap WHERE src = bucket)"
	" WHERE bucket IN (SELECT src FROM temp.natsym_bmap);"
	"INSERT INTO eviction SELECT t.level, coalesce(e.dst, t.evictor), coalesce(v.dst, t.victim),"
	" t.location, t.count, t.sampled FROM eviction t"
	" LEFT JOIN temp.natsym_bmap e ON e.src = t.evictor"
	" LEFT JOIN temp.natsym_bmap v ON v.src = t.victim"
	" WHERE e.src IS NOT NULL OR v.src IS NOT NULL"
	" ON CONFLICT(level, evictor, victim, location, sampled) DO UPDATE SET " SUM("count") ";"
	GONE("eviction", "evictor") GONE("eviction", "victim")
	"INSERT INTO residency SELECT m.dst, t.level, t.avg_lines FROM residency t" MOVED
	" ON CONFLICT(bucket, level) DO UPDATE SET " SUM("avg_lines") ";"
	GONE("residency", "bucket")
	"INSERT INTO reuse_hist SELECT m.dst, t.kind, t.bin, t.lo, t.hi, t.count, t.mean"
	" FROM reuse_hist t" MOVED " ON CONFLICT(bucket, kind, bin) DO UPDATE SET"
	" mean = CASE WHEN mean IS NULL OR excluded.mean IS NULL THEN NULL"
	" WHEN count + excluded.count = 0 THEN mean"
	" ELSE (mean * count + excluded.mean * excluded.count) / (count + excluded.count) END, "
	SUM("count") ";"
	GONE("reuse_hist", "bucket")
	"INSERT INTO reuse_first SELECT m.dst, t.count FROM reuse_first t" MOVED
	" ON CONFLICT(bucket) DO UPDATE SET " SUM("count") ";"
	GONE("reuse_first", "bucket")
	"INSERT INTO reuse_unseen SELECT m.dst, t.count FROM reuse_unseen t" MOVED
	" ON CONFLICT(bucket) DO UPDATE SET " SUM("count") ";"
	GONE("reuse_unseen", "bucket")
	"INSERT INTO cache_use SELECT m.dst, t.location, t.thread, t.level, t.SpLoss, t.AcCost,"
	" t.Evicted FROM cache_use t" MOVED
	" ON CONFLICT(bucket, location, thread, level) DO UPDATE SET " SUM("SpLoss") ", "
	SUM("AcCost") ", " NULLSUM("Evicted") ";"
	GONE("cache_use", "bucket")
	"INSERT INTO offset_cost SELECT m.dst, t.offset, t.size, t.Dr, t.Dw, t.D1m, t.D2m, t.D3m,"
	" t.D4m, t.Lat FROM offset_cost t" MOVED " ON CONFLICT(bucket, offset) DO UPDATE SET"
	" size = MAX(size, excluded.size), " SUM("Dr") ", " SUM("Dw") ", " SUM("D1m") ", "
	SUM("D2m") ", " SUM("D3m") ", " SUM("D4m") ", " SUM("Lat") ";"
	GONE("offset_cost", "bucket")
	"INSERT INTO offset_unused SELECT m.dst, t.offset, t.end_offset, t.Unused1, t.Unused2,"
	" t.Unused3, t.Unused4 FROM offset_unused t" MOVED
	" ON CONFLICT(bucket, offset, end_offset) DO UPDATE SET " SUM("Unused1") ", "
	SUM("Unused2") ", " SUM("Unused3") ", " SUM("Unused4") ";"
	GONE("offset_unused", "bucket")
	"INSERT INTO first_touch SELECT m.dst, t.location, t.thread, t.pages FROM first_touch t"
	MOVED " ON CONFLICT(bucket, location, thread) DO UPDATE SET " SUM("pages") ";"
	GONE("first_touch", "bucket")
	"INSERT OR IGNORE INTO bucket_type SELECT m.dst, t.type FROM bucket_type t" MOVED ";"
	GONE("bucket_type", "bucket")
	/* statistics: counts add up; peaks are the parts' largest ... */
	"UPDATE bucket AS d SET blocks = s.blocks, total_bytes = s.total, min_size = s.mn,"
	" max_size = s.mx, max_live_blocks = s.lb, max_live_bytes = s.lby FROM"
	" (SELECT g.dst AS id, SUM(b.blocks) AS blocks, SUM(b.total_bytes) AS total,"
	" MIN(b.min_size) AS mn, MAX(b.max_size) AS mx, MAX(b.max_live_blocks) AS lb,"
	" MAX(b.max_live_bytes) AS lby FROM bucket b JOIN (SELECT src, dst FROM temp.natsym_bmap"
	" UNION SELECT dst, dst FROM temp.natsym_bmap) g ON g.src = b.id GROUP BY g.dst) s"
	" WHERE d.id = s.id;"
	/* ... or, with every block on record, the merged bucket's own peaks:
	 * blocks and bytes live after each allocation event, in order */
	"WITH ev AS (SELECT bucket, alloc_seq AS seq, 1 AS n, size AS sz FROM block"
	" WHERE bucket IN (SELECT dst FROM temp.natsym_bmap) UNION ALL"
	" SELECT bucket, free_seq, -1, -size FROM block"
	" WHERE bucket IN (SELECT dst FROM temp.natsym_bmap) AND free_seq IS NOT NULL),"
	" run AS (SELECT bucket, SUM(n) OVER w AS live, SUM(sz) OVER w AS bytes FROM ev"
	" WINDOW w AS (PARTITION BY bucket ORDER BY seq ROWS UNBOUNDED PRECEDING)),"
	" peak AS (SELECT bucket, MAX(live) AS live, MAX(bytes) AS bytes FROM run GROUP BY bucket)"
	" UPDATE bucket AS d SET max_live_blocks = p.live, max_live_bytes = p.bytes FROM peak p"
	" WHERE d.id = p.bucket AND d.blocks = (SELECT COUNT(*) FROM block WHERE bucket = d.id);"
	"DELETE FROM bucket WHERE id IN (SELECT src FROM temp.natsym_bmap);";

static int merge_buckets(sqlite3 *db, uint64_t *merged)
{
	sqlite3_stmt *st;
	int rc;

	*merged = 0;
	/* the groups of equal names that hold a bucket just named */
	if (sqlite3_exec(db,
		"CREATE TEMP TABLE natsym_bmap(src INTEGER PRIMARY KEY, dst INTEGER);"
		"INSERT INTO temp.natsym_bmap SELECT b.id, g.dst FROM bucket b JOIN"
		" (SELECT name, MIN(id) AS dst FROM bucket GROUP BY name"
		" HAVING COUNT(*) > 1 AND SUM(id IN (SELECT id FROM temp.natsym_named)) > 0) g"
		" ON g.name = b.name WHERE b.id != g.dst;", NULL, NULL, NULL))
		return -1;
	if (sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM temp.natsym_bmap", -1, &st, NULL))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*merged = (uint64_t)sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return -1;
	if (*merged && sqlite3_exec(db, merge_sql, NULL, NULL, NULL))
		return -1;
	return sqlite3_exec(db, "DROP TABLE temp.natsym_bmap; DROP TABLE temp.natsym_named;",
			    NULL, NULL, NULL) ? -1 : 0;
}

int natsym_apply(struct natsym *ns, sqlite3 *db, uint64_t *merged)
{
	*merged = 0;
	if (name_locs(ns, db))
		return -1;
	if (!ns->npaths)
		return 0;
	return name_buckets(ns, db) || merge_buckets(db, merged) ? -1 : 0;
}
