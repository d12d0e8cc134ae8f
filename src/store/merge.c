/* merge.c — many profiles of one program made into one (see merge.h).
 *
 * Each input is first opened and checked with profile_open (a real
 * dcprof profile of the expected shape), then attached read-only as
 * "src"; its rows reach the output by INSERT ... SELECT through two
 * temporary maps from its ids to the output's:
 *   bmap(src, dst): buckets by (name, kind, n), n counting buckets of the
 *     same name and kind in id order (two static "counter" globals stay two);
 *   lmap(src, dst): locations by (object, function, file, line, inlined_into,
 *     outer_function, outer_file, outer_line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/outfile.h"
#include "store/merge.h"
#include "store/profile.h"

/* Recording options that must be the same (or absent) in every profile. */
static const char *const config_keys[] = {
	"heap_names", "stack_frames", "collect_atstart", "cache_use", "cache_use_granularity",
	"calls", "evictions", "offsets", "offset_window", "offset_bucket_cells",
	"reuse_block", "reuse_bins", "reuse_sample_period",
	"reuse_watchpoints", "reuse_watch", "reuse_replace", "reuse_attrib", "sample_event",
	"sample_period", NULL
};

/* Counts of the run kept in meta: summed. */
static const char *const summed_keys[] = {
	"samples", "block_records_dropped", "checkpoints", "reuse_accesses", "reuse_arms",
	"reuse_dropped", "reuse_replaced", "reuse_samples", "reuse_traps", "offset_cells_used",
	NULL
};

/* Keys of one process, kept in the process table rather than in meta
 * (and the trace keys: traces are not merged). */
static const char *const process_keys[] = {
	"pid", "exit_code", "exit_status", "complete", "incomplete_reason", "checkpoint_ms",
	"bdtree_nodes_max", "bdtree_nodes_avg", "rank", "host", "exec", "merged_profiles",
	"merged_incomplete", NULL
};

static const char merge_schema[] =
	"CREATE TABLE process(id INTEGER PRIMARY KEY, path TEXT, program TEXT, pid INTEGER,"
	" rank INTEGER, host TEXT, complete INTEGER, incomplete_reason TEXT, exit_status TEXT);"
	"CREATE TABLE process_cost(process INTEGER, bucket INTEGER, Dr INTEGER, Dw INTEGER,"
	" D1mr INTEGER, D1mw INTEGER, D2mr INTEGER, D2mw INTEGER, D3mr INTEGER, D3mw INTEGER,"
	" D4mr INTEGER, D4mw INTEGER, Lat INTEGER, PRIMARY KEY(process, bucket));"
	"CREATE TEMP TABLE bkey(dst INTEGER PRIMARY KEY, name TEXT, kind TEXT, n INTEGER,"
	" UNIQUE(name, kind, n));"
	"CREATE TEMP TABLE lkey(dst INTEGER PRIMARY KEY, object TEXT, function TEXT, file TEXT,"
	" line INTEGER, inlined_into TEXT, outer_function TEXT, outer_file TEXT,"
	" outer_line INTEGER, ip INTEGER,"
	" UNIQUE(object, function, file, line, inlined_into, outer_function, outer_file,"
	" outer_line));"
	"CREATE UNIQUE INDEX merge_call_arc ON call_arc(kind, site, callee, thread);"
	"CREATE UNIQUE INDEX merge_call_use ON call_use(kind, site, callee, thread, level);";

#define COSTS "Dr, Dw, D1mr, D1mw, D2mr, D2mw, D3mr, D3mw, D4mr, D4mw, Lat"

struct merge {
	sqlite3 *db;
	const char *out;
	const struct merge_opts *o;
	char *err;
	size_t errlen;
	struct profile first;        /* the first input, open for its levels and meta */
	bool have_first;
	size_t incomplete;
	struct sbuf incomplete_names;
	bool traces_dropped;
};

/* A failed write (full disk, file size limit) is the output's; anything
 * else is the input's that was being merged. */
static int sql_fail(struct merge *m, const char *path)
{
	int code = sqlite3_errcode(m->db) & 0xff;

	if (path == m->out || code == SQLITE_IOERR || code == SQLITE_FULL)
		snprintf(m->err, m->errlen, "cannot write '%s': %s", m->out,
			 sqlite3_errmsg(m->db));
	else
		snprintf(m->err, m->errlen, "cannot merge '%s' into '%s': %s", path, m->out,
			 sqlite3_errmsg(m->db));
	return -1;
}

static int exec(struct merge *m, const char *path, const char *sql)
{
	return sqlite3_exec(m->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : sql_fail(m, path);
}

/* "a = a + excluded.a, ...", for an upsert. */
static void add_sums(struct sbuf *sql, const char *cols)
{
	char buf[256];
	char *save, *c;
	bool first = true;

	snprintf(buf, sizeof buf, "%s", cols);
	for (c = strtok_r(buf, ", ", &save); c; c = strtok_r(NULL, ", ", &save)) {
		sbuf_addf(sql, "%s%s = %s + excluded.%s", first ? "" : ", ", c, c, c);
		first = false;
	}
}

/* INSERT INTO table(keys, cols) SELECT mapped keys, cols FROM src.table
 * joined ... ON CONFLICT(keys) DO UPDATE SET sums: rows that map to one
 * key (several instruction addresses of one line) add up as they come,
 * with no sort. */
static int upsert(struct merge *m, const char *path, const char *table, const char *keys,
		  const char *select_keys, const char *joins, const char *cols)
{
	struct sbuf sql;
	char buf[256];
	char *save, *c;
	int rc;

	sbuf_init(&sql);
	sbuf_addf(&sql, "INSERT INTO main.%s(%s, %s) SELECT %s", table, keys, cols, select_keys);
	snprintf(buf, sizeof buf, "%s", cols);
	for (c = strtok_r(buf, ", ", &save); c; c = strtok_r(NULL, ", ", &save))
		sbuf_addf(&sql, ", t.%s", c);
	sbuf_addf(&sql, " FROM src.%s t %s WHERE true ON CONFLICT(%s) DO UPDATE SET ", table,
		  joins, keys);
	add_sums(&sql, cols);
	rc = exec(m, path, sql.buf);
	sbuf_release(&sql);
	return rc;
}

static bool src_has_table(struct merge *m, const char *table)
{
	sqlite3_stmt *st;
	bool yes = false;

	if (sqlite3_prepare_v2(m->db, "SELECT 1 FROM src.sqlite_master WHERE type = 'table'"
			       " AND name = ?1", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		yes = sqlite3_step(st) == SQLITE_ROW;
	}
	sqlite3_finalize(st);
	return yes;
}

static int src_count(struct merge *m, const char *sql, int64_t *n)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(m->db, sql, -1, &st, NULL);

	*n = 0;
	if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		*n = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_OK ? 0 : -1;
}

/* ---- checks before anything is merged --------------------------------- */

static int meta_of(struct profile *p, const char *key, struct sbuf *v, bool *present)
{
	int rc = profile_meta(p, key, v);

	*present = rc == 1;
	return rc < 0 ? -1 : 0;
}

/* The first difference between p and the first profile in what they
 * measured, in err; 0 when none. */
static int compare(struct merge *m, struct profile *p, const char *path)
{
	const struct profile *f = &m->first;
	struct sbuf a, b;
	bool ha, hb;
	int rc = 0;

	if (p->nlevels != f->nlevels || p->mem_latency != f->mem_latency)
		goto caches;
	for (int k = 0; k < p->nlevels; k++)
		if (p->lv[k].size != f->lv[k].size || p->lv[k].assoc != f->lv[k].assoc ||
		    p->lv[k].line_size != f->lv[k].line_size || p->lv[k].latency != f->lv[k].latency)
			goto caches;
	sbuf_init(&a);
	sbuf_init(&b);
	for (size_t i = 0; !rc && config_keys[i]; i++) {
		if (meta_of(&m->first, config_keys[i], &a, &ha) || meta_of(p, config_keys[i], &b, &hb)) {
			profile_read_error(p, m->err, m->errlen);
			rc = -1;
		} else if (ha != hb || strcmp(a.buf, b.buf)) {
			snprintf(m->err, m->errlen, "cannot merge '%s' with '%s': recorded with"
				 " different options (%s %s%s%s, not %s%s%s)", path, m->first.path,
				 config_keys[i], hb ? "'" : "", hb ? b.buf : "unset", hb ? "'" : "",
				 ha ? "'" : "", ha ? a.buf : "unset", ha ? "'" : "");
			rc = -1;
		}
	}
	if (!rc && !m->o->force) {
		if (meta_of(&m->first, "program", &a, &ha) || meta_of(p, "program", &b, &hb)) {
			profile_read_error(p, m->err, m->errlen);
			rc = -1;
		} else if (strcmp(a.buf, b.buf)) {
			snprintf(m->err, m->errlen, "cannot merge '%s' with '%s': profiles of"
				 " different programs ('%s', '%s'); --force merges them", path,
				 m->first.path, b.buf, a.buf);
			rc = -1;
		}
	}
	sbuf_release(&a);
	sbuf_release(&b);
	return rc;
caches:
	snprintf(m->err, m->errlen, "cannot merge '%s' with '%s': different cache configurations",
		 path, m->first.path);
	return -1;
}

/* ---- one input ---------------------------------------------------------- */

static int map_buckets(struct merge *m, const char *path)
{
	return exec(m, path,
		"DROP TABLE IF EXISTS temp.sb; DROP TABLE IF EXISTS temp.bmap;"
		"CREATE TEMP TABLE sb AS SELECT id, name, kind, ROW_NUMBER() OVER"
		" (PARTITION BY name, kind ORDER BY id) AS n FROM src.bucket;"
		"INSERT INTO temp.bkey(name, kind, n) SELECT name, kind, n FROM temp.sb WHERE true"
		" ON CONFLICT DO NOTHING;"
		/* new keys have the largest ids */
		"INSERT INTO main.bucket(id, name, kind) SELECT dst, name, kind FROM temp.bkey"
		" WHERE dst > (SELECT coalesce(MAX(id), 0) FROM main.bucket);"
		"CREATE TEMP TABLE bmap(src INTEGER PRIMARY KEY, dst INTEGER);"
		"INSERT INTO temp.bmap SELECT s.id, k.dst FROM temp.sb s JOIN temp.bkey k"
		" ON k.name = s.name AND k.kind = s.kind AND k.n = s.n;"
		/* Statistics: NULL (not a heap bucket) stays NULL. */
		"UPDATE main.bucket AS d SET"
		" blocks = CASE WHEN d.blocks IS NULL THEN s.blocks WHEN s.blocks IS NULL THEN"
		" d.blocks ELSE d.blocks + s.blocks END,"
		" total_bytes = CASE WHEN d.total_bytes IS NULL THEN s.total_bytes WHEN"
		" s.total_bytes IS NULL THEN d.total_bytes ELSE d.total_bytes + s.total_bytes END,"
		" max_live_blocks = coalesce(max(d.max_live_blocks, s.max_live_blocks),"
		" d.max_live_blocks, s.max_live_blocks),"
		" max_live_bytes = coalesce(max(d.max_live_bytes, s.max_live_bytes),"
		" d.max_live_bytes, s.max_live_bytes),"
		" min_size = coalesce(min(d.min_size, s.min_size), d.min_size, s.min_size),"
		" max_size = coalesce(max(d.max_size, s.max_size), d.max_size, s.max_size)"
		" FROM (SELECT m.dst, b.* FROM src.bucket b JOIN temp.bmap m ON m.src = b.id) s"
		" WHERE d.id = s.dst;");
}

static int map_locations(struct merge *m, const char *path)
{
	return exec(m, path,
		"DROP TABLE IF EXISTS temp.lmap;"
		/* A location keeps the instruction address it had where first
		 * seen; new keys have the largest ids. */
		/* Outer columns: NULL (not inlined) all three together, kept
		 * apart from '' and 0 by outer_line -1 in the key. */
		"INSERT INTO temp.lkey(object, function, file, line, inlined_into, outer_function,"
		" outer_file, outer_line, ip) SELECT"
		" coalesce(object, ''), coalesce(function, ''), coalesce(file, ''),"
		" coalesce(line, 0), coalesce(inlined_into, ''), coalesce(outer_function, ''),"
		" coalesce(outer_file, ''), coalesce(outer_line, -1), ip FROM src.location"
		" WHERE true ON CONFLICT DO NOTHING;"
		"INSERT INTO main.location(id, ip, object, function, file, line, inlined_into,"
		" outer_function, outer_file, outer_line)"
		" SELECT dst, ip, object, function, file, line, nullif(inlined_into, ''),"
		" CASE WHEN outer_line >= 0 THEN outer_function END,"
		" CASE WHEN outer_line >= 0 THEN outer_file END, nullif(outer_line, -1)"
		" FROM temp.lkey WHERE dst > (SELECT coalesce(MAX(id), 0) FROM main.location);"
		"CREATE TEMP TABLE lmap(src INTEGER PRIMARY KEY, dst INTEGER);"
		"INSERT INTO temp.lmap SELECT s.id, k.dst FROM src.location s JOIN temp.lkey k"
		" ON k.object = coalesce(s.object, '') AND k.function = coalesce(s.function, '')"
		" AND k.file = coalesce(s.file, '') AND k.line = coalesce(s.line, 0)"
		" AND k.inlined_into = coalesce(s.inlined_into, '')"
		" AND k.outer_function = coalesce(s.outer_function, '')"
		" AND k.outer_file = coalesce(s.outer_file, '')"
		" AND k.outer_line = coalesce(s.outer_line, -1);");
}

#define BJ(alias, col) " JOIN temp.bmap " alias " ON " alias ".src = t." col
#define LJ(alias, col) " JOIN temp.lmap " alias " ON " alias ".src = t." col
#define LJN(alias, col) " LEFT JOIN temp.lmap " alias " ON " alias ".src = t." col
#define BJN(alias, col) " LEFT JOIN temp.bmap " alias " ON " alias ".src = t." col

static int merge_counts(struct merge *m, const char *path)
{
	int rc = upsert(m, path, "cost", "bucket, location, thread", "b.dst, l.dst, t.thread",
			BJ("b", "bucket") LJ("l", "location"), COSTS);

	if (!rc && src_has_table(m, "cost_sampled"))
		rc = upsert(m, path, "cost_sampled", "bucket, location, thread",
			    "b.dst, l.dst, t.thread", BJ("b", "bucket") LJ("l", "location"), COSTS);
	if (!rc && src_has_table(m, "eviction"))
		rc = upsert(m, path, "eviction", "level, evictor, victim, location, sampled",
			    "t.level, e.dst, v.dst, l.dst, t.sampled",
			    BJN("e", "evictor") BJN("v", "victim") LJN("l", "location"), "count");
	if (!rc && src_has_table(m, "level_fill"))
		rc = upsert(m, path, "level_fill", "level", "t.level", "",
			    "fills, empty_fills, evictions");
	if (!rc && src_has_table(m, "cache_use"))
		rc = upsert(m, path, "cache_use", "bucket, location, thread, level",
			    "b.dst, l.dst, t.thread, t.level", BJ("b", "bucket") LJ("l", "location"),
			    "SpLoss, AcCost, Evicted");
	if (!rc && src_has_table(m, "call_arc"))
		rc = upsert(m, path, "call_arc", "kind, site, callee, thread",
			    "t.kind, s.dst, c.dst, t.thread", LJN("s", "site") LJN("c", "callee"),
			    "count, " COSTS);
	if (!rc && src_has_table(m, "call_use"))
		rc = upsert(m, path, "call_use", "kind, site, callee, thread, level",
			    "t.kind, s.dst, c.dst, t.thread, t.level",
			    LJN("s", "site") LJN("c", "callee"), "SpLoss, AcCost, Evicted");
	if (!rc && src_has_table(m, "ip_sample"))
		rc = upsert(m, path, "ip_sample", "location, thread", "l.dst, t.thread",
			    LJ("l", "location"), "count");
	if (!rc && src_has_table(m, "first_touch"))
		rc = upsert(m, path, "first_touch", "bucket, location, thread",
			    "b.dst, l.dst, t.thread", BJ("b", "bucket") LJ("l", "location"), "pages");
	if (!rc && src_has_table(m, "reuse_first"))
		rc = upsert(m, path, "reuse_first", "bucket", "b.dst", BJ("b", "bucket"), "count");
	if (!rc && src_has_table(m, "reuse_unseen"))
		rc = upsert(m, path, "reuse_unseen", "bucket", "b.dst", BJ("b", "bucket"), "count");
	/* offsets: counts add up, the widest access is the widest of all */
	if (!rc && src_has_table(m, "offset_cost"))
		rc = exec(m, path,
			  "INSERT INTO main.offset_cost(bucket, offset, size, Dr, Dw, D1m, D2m, D3m,"
			  " D4m, Lat) SELECT b.dst, t.offset, t.size, t.Dr, t.Dw, t.D1m, t.D2m, t.D3m,"
			  " t.D4m, t.Lat FROM src.offset_cost t" BJ("b", "bucket") " WHERE true"
			  " ON CONFLICT(bucket, offset) DO UPDATE SET size = MAX(size, excluded.size),"
			  " Dr = Dr + excluded.Dr, Dw = Dw + excluded.Dw, D1m = D1m + excluded.D1m,"
			  " D2m = D2m + excluded.D2m, D3m = D3m + excluded.D3m,"
			  " D4m = D4m + excluded.D4m, Lat = Lat + excluded.Lat");
	/* unused bytes: rows are ranges whose counts add up byte by byte, so
	 * ranges of different profiles may overlap; equal ones add */
	if (!rc && src_has_table(m, "offset_unused"))
		rc = upsert(m, path, "offset_unused", "bucket, offset, end_offset",
			    "b.dst, t.offset, t.end_offset", BJ("b", "bucket"),
			    "Unused1, Unused2, Unused3, Unused4");
	if (!rc && src_has_table(m, "bucket_type"))
		rc = exec(m, path, "INSERT OR IGNORE INTO main.bucket_type(bucket, type)"
			  " SELECT b.dst, t.type FROM src.bucket_type t" BJ("b", "bucket"));
	return rc;
}

/* Tables with means weighted by counts: the sums of mean * count are
 * carried in the mean column until finish() divides them. */
static int merge_weighted(struct merge *m, const char *path)
{
	int rc = 0;

	if (src_has_table(m, "reuse_hist"))
		rc = exec(m, path,
			"INSERT INTO main.reuse_hist(bucket, kind, bin, lo, hi, count, mean)"
			" SELECT b.dst, t.kind, t.bin, t.lo, t.hi, SUM(t.count),"
			" SUM(t.mean * t.count) FROM src.reuse_hist t" BJ("b", "bucket")
			" GROUP BY b.dst, t.kind, t.bin ON CONFLICT(bucket, kind, bin) DO UPDATE SET"
			" count = count + excluded.count,"
			" mean = coalesce(mean, 0) + coalesce(excluded.mean, 0);");
	if (!rc && src_has_table(m, "reuse_pair"))
		rc = exec(m, path,
			"INSERT INTO main.reuse_pair(use_location, reuse_location, count, mean_stack,"
			" mean_time) SELECT u.dst, r.dst, SUM(t.count), SUM(t.mean_stack * t.count),"
			" SUM(t.mean_time * t.count) FROM src.reuse_pair t" LJN("u", "use_location")
			LJN("r", "reuse_location") " GROUP BY u.dst, r.dst"
			" ON CONFLICT(use_location, reuse_location) DO UPDATE SET"
			" count = count + excluded.count,"
			" mean_stack = coalesce(mean_stack, 0) + coalesce(excluded.mean_stack, 0),"
			" mean_time = coalesce(mean_time, 0) + coalesce(excluded.mean_time, 0);");
	if (!rc && src_has_table(m, "reuse_pair_sampled"))
		rc = exec(m, path,
			"INSERT INTO main.reuse_pair_sampled(use_location, reuse_location, count,"
			" mean_time) SELECT u.dst, r.dst, SUM(t.count), SUM(t.mean_time * t.count)"
			" FROM src.reuse_pair_sampled t" LJN("u", "use_location")
			LJN("r", "reuse_location") " GROUP BY u.dst, r.dst"
			" ON CONFLICT(use_location, reuse_location) DO UPDATE SET"
			" count = count + excluded.count,"
			" mean_time = coalesce(mean_time, 0) + coalesce(excluded.mean_time, 0);");
	/* residency: the sum of the processes' averages and their number, kept
	 * in a temporary table until finish(). */
	if (!rc && src_has_table(m, "residency"))
		rc = exec(m, path,
			"INSERT INTO temp.resid(bucket, level, total, n) SELECT b.dst, t.level,"
			" SUM(t.avg_lines), 1 FROM src.residency t" BJ("b", "bucket")
			" GROUP BY b.dst, t.level ON CONFLICT(bucket, level) DO UPDATE SET"
			" total = total + excluded.total, n = n + 1;");
	return rc;
}

/* The process rows: carried over from a merged profile, else one. */
static int merge_processes(struct merge *m, const char *path)
{
	sqlite3_stmt *st;
	int rc;

	if (src_has_table(m, "process") && src_has_table(m, "process_cost"))
		return exec(m, path,
			"DROP TABLE IF EXISTS temp.pmap;"
			"CREATE TEMP TABLE pmap(src INTEGER PRIMARY KEY, dst INTEGER);"
			"INSERT INTO temp.pmap SELECT id, (SELECT coalesce(MAX(id), 0) FROM"
			" main.process) + ROW_NUMBER() OVER (ORDER BY id) FROM src.process;"
			"INSERT INTO main.process SELECT p.dst, s.path, s.program, s.pid, s.rank,"
			" s.host, s.complete, s.incomplete_reason, s.exit_status FROM src.process s"
			" JOIN temp.pmap p ON p.src = s.id;"
			"INSERT INTO main.process_cost(process, bucket, " COSTS ") SELECT p.dst,"
			" b.dst, t.Dr, t.Dw, t.D1mr, t.D1mw, t.D2mr, t.D2mw, t.D3mr, t.D3mw, t.D4mr,"
			" t.D4mw, t.Lat FROM src.process_cost t JOIN temp.pmap p ON p.src = t.process"
			BJ("b", "bucket") ";");
	rc = sqlite3_prepare_v2(m->db,
		"INSERT INTO main.process(path, program, pid, rank, host, complete,"
		" incomplete_reason, exit_status) SELECT ?1,"
		" (SELECT value FROM src.meta WHERE key = 'program'),"
		" (SELECT CAST(value AS INTEGER) FROM src.meta WHERE key = 'pid'),"
		" (SELECT CAST(value AS INTEGER) FROM src.meta WHERE key = 'rank'),"
		" (SELECT value FROM src.meta WHERE key = 'host'),"
		" coalesce((SELECT CAST(value AS INTEGER) FROM src.meta WHERE key = 'complete'), 0),"
		" (SELECT value FROM src.meta WHERE key = 'incomplete_reason'),"
		" (SELECT value FROM src.meta WHERE key = 'exit_status')", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(m, path);
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_fail(m, path);
	return exec(m, path,
		"INSERT INTO main.process_cost(process, bucket, " COSTS ") SELECT"
		" (SELECT MAX(id) FROM main.process), b.dst, t.Dr, t.Dw, t.D1mr, t.D1mw, t.D2mr,"
		" t.D2mw, t.D3mr, t.D3mw, t.D4mr, t.D4mw, t.Lat FROM src.cost t" BJ("b", "bucket")
		" WHERE true ON CONFLICT(process, bucket) DO UPDATE SET Dr = Dr + excluded.Dr,"
		" Dw = Dw + excluded.Dw, D1mr = D1mr + excluded.D1mr, D1mw = D1mw + excluded.D1mw,"
		" D2mr = D2mr + excluded.D2mr, D2mw = D2mw + excluded.D2mw,"
		" D3mr = D3mr + excluded.D3mr, D3mw = D3mw + excluded.D3mw,"
		" D4mr = D4mr + excluded.D4mr, D4mw = D4mw + excluded.D4mw,"
		" Lat = Lat + excluded.Lat;");
}

/* The meta sums of one input, gathered before it is detached. */
static int gather_sums(struct merge *m, const char *path)
{
	struct sbuf sql;
	int rc;

	sbuf_init(&sql);
	sbuf_adds(&sql, "INSERT INTO temp.msum SELECT key, CAST(value AS INTEGER) FROM src.meta"
		  " WHERE key IN (");
	for (size_t i = 0; summed_keys[i]; i++)
		sbuf_addf(&sql, "%s'%s'", i ? ", " : "", summed_keys[i]);
	sbuf_adds(&sql, ");");
	rc = exec(m, path, sql.buf);
	sbuf_release(&sql);
	return rc;
}

/* "file:PATH?immutable=1" with every byte outside [A-Za-z0-9/._~-] as %XX:
 * a profile is only read, and SQLite leaves no side files. */
static void uri_of(struct sbuf *uri, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";

	sbuf_adds(uri, path[0] == '/' ? "file://" : "file:");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
		if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || strchr("/._~-", *c)) {
			sbuf_addc(uri, (char)*c);
		} else {
			sbuf_addc(uri, '%');
			sbuf_addc(uri, hex[*c >> 4]);
			sbuf_addc(uri, hex[*c & 15]);
		}
	}
	sbuf_adds(uri, "?mode=ro&immutable=1");
}

/* A process merged twice — one profile given twice under two names, or a
 * merged profile and one of its own inputs — would count twice, and
 * nothing in the result would show it.  The processes path brought
 * (ids above before) are compared with all the others: the same pid,
 * rank, host and program and the same totals.  (A pid alone may come
 * back in another run; the totals of that run would differ.)  --force
 * lets it pass: copies of one profile, on purpose. */
static int process_twice(struct merge *m, const char *path, int64_t before)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(m->db,
		"SELECT a.path, b.pid, b.rank, b.host FROM main.process b JOIN main.process a"
		" ON a.id < b.id AND a.pid = b.pid AND a.rank IS b.rank AND a.host IS b.host"
		" AND a.program IS b.program WHERE b.id > ?1"
		" AND (SELECT total(Dr), total(Dw), total(Lat) FROM main.process_cost"
		"      WHERE process = a.id)"
		"   = (SELECT total(Dr), total(Dw), total(Lat) FROM main.process_cost"
		"      WHERE process = b.id) LIMIT 1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(m, path);
	sqlite3_bind_int64(st, 1, before);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *host = (const char *)sqlite3_column_text(st, 3);
		char rank[32] = "";

		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			snprintf(rank, sizeof rank, "rank %lld ",
				 (long long)sqlite3_column_int64(st, 2));
		snprintf(m->err, m->errlen, "cannot merge '%s': process %lld (%son %s) is"
			 " already merged, from '%s'; it would count twice", path,
			 (long long)sqlite3_column_int64(st, 1), rank, host ? host : "?",
			 (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		return -1;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : sql_fail(m, path);
}

static int merge_one(struct merge *m, const char *path)
{
	struct profile p;
	struct sbuf uri;
	sqlite3_stmt *st;
	bool complete;
	int64_t n;
	int rc;

	if (profile_open(&p, path, m->err, m->errlen))
		return -1;
	if (p.version != PROFILE_SCHEMA_VERSION) {
		snprintf(m->err, m->errlen, "cannot merge '%s': schema version %d (merge reads"
			 " version %d profiles)", path, p.version, PROFILE_SCHEMA_VERSION);
		profile_close(&p);
		return -1;
	}
	if (!m->have_first) {
		m->first = p;
		m->have_first = true;
	} else {
		rc = compare(m, &p, path);
		profile_close(&p);
		if (rc)
			return -1;
	}
	sbuf_init(&uri);
	uri_of(&uri, path);
	rc = sqlite3_prepare_v2(m->db, "ATTACH DATABASE ?1 AS src", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, uri.buf, -1, SQLITE_STATIC);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	sbuf_release(&uri);
	if (rc != SQLITE_OK)
		return sql_fail(m, path);
	rc = src_count(m, "SELECT coalesce(MAX(id), 0) FROM main.process", &n) ||
	     map_buckets(m, path) || map_locations(m, path) || merge_counts(m, path) ||
	     merge_weighted(m, path) || merge_processes(m, path) ||
	     (!m->o->force && process_twice(m, path, n)) || gather_sums(m, path);
	if (!rc) {
		/* A merged input is complete when all its processes were. */
		if (src_has_table(m, "process"))
			complete = src_count(m, "SELECT COUNT(*) FROM src.process WHERE"
					     " complete = 0", &n) == 0 && n == 0;
		else
			complete = src_count(m, "SELECT CAST(value AS INTEGER) FROM src.meta"
					     " WHERE key = 'complete'", &n) == 0 && n == 1;
		if (!complete) {
			m->incomplete++;
			sbuf_addf(&m->incomplete_names, "%s'%s'", m->incomplete_names.len ? ", " : "",
				  path);
		}
		m->traces_dropped |= src_count(m, "SELECT COUNT(*) FROM src.trace_window", &n) == 0
				     && n > 0;
	}
	if (sqlite3_exec(m->db, "DETACH DATABASE src", NULL, NULL, NULL) != SQLITE_OK && !rc)
		rc = sql_fail(m, path);
	return rc ? -1 : 0;
}

/* ---- the output ----------------------------------------------------------- */

static bool in_list(const char *const *list, const char *key)
{
	for (; *list; list++)
		if (!strcmp(*list, key))
			return true;
	return false;
}

/* meta: the first profile's, less what belongs to one process or to
 * traces, with the run counts summed and the merge's own keys. */
static int write_meta(struct merge *m, size_t n)
{
	sqlite3_stmt *st, *ins;
	char num[32];
	int rc;

	rc = sqlite3_prepare_v2(m->first.db, "SELECT key, value FROM meta", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_fail(m, m->first.path);
	if (sqlite3_prepare_v2(m->db, "INSERT OR REPLACE INTO main.meta VALUES(?1, ?2)", -1, &ins,
			       NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return sql_fail(m, m->first.path);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		if (!key || in_list(process_keys, key) || in_list(summed_keys, key) ||
		    !strncmp(key, "trace_", 6))
			continue;
		sqlite3_bind_text(ins, 1, key, -1, SQLITE_TRANSIENT);
		sqlite3_bind_value(ins, 2, sqlite3_column_value(st, 1));
		if (sqlite3_step(ins) != SQLITE_DONE)
			break;
		sqlite3_reset(ins);
	}
	sqlite3_finalize(st);
	rc = rc == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	for (size_t i = 0; rc == SQLITE_OK && summed_keys[i]; i++) {
		sqlite3_stmt *sum;
		int64_t total = 0;
		bool any = false;

		/* the sums were gathered per input into temp.msum */
		if (sqlite3_prepare_v2(m->db, "SELECT SUM(value), COUNT(*) FROM temp.msum WHERE"
				       " key = ?1", -1, &sum, NULL) != SQLITE_OK) {
			rc = SQLITE_ERROR;
			break;
		}
		sqlite3_bind_text(sum, 1, summed_keys[i], -1, SQLITE_STATIC);
		if (sqlite3_step(sum) == SQLITE_ROW) {
			total = sqlite3_column_int64(sum, 0);
			any = sqlite3_column_int64(sum, 1) > 0;
		}
		sqlite3_finalize(sum);
		if (!any)
			continue;
		snprintf(num, sizeof num, "%lld", (long long)total);
		sqlite3_bind_text(ins, 1, summed_keys[i], -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 2, num, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_reset(ins);
	}
	if (rc == SQLITE_OK) {
		const char *kv[8][2];
		char count[32], incomplete[32];
		size_t k = 0;

		snprintf(count, sizeof count, "%zu", n);
		snprintf(incomplete, sizeof incomplete, "%zu", m->incomplete);
		kv[k][0] = "merged_profiles";
		kv[k++][1] = count;
		kv[k][0] = "merged_incomplete";
		kv[k++][1] = incomplete;
		kv[k][0] = "complete";
		kv[k++][1] = m->incomplete ? "0" : "1";
		kv[k][0] = "dcprof_version";
		kv[k++][1] = DCPROF_VERSION;
		for (size_t i = 0; rc == SQLITE_OK && i < k; i++) {
			sqlite3_bind_text(ins, 1, kv[i][0], -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 2, kv[i][1], -1, SQLITE_TRANSIENT);
			rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
			sqlite3_reset(ins);
		}
		if (rc == SQLITE_OK && m->incomplete) {
			struct sbuf why;

			sbuf_init(&why);
			sbuf_addf(&why, "merged from %zu profiles, %zu of them incomplete: %s", n,
				  m->incomplete, m->incomplete_names.buf);
			sqlite3_bind_text(ins, 1, "incomplete_reason", -1, SQLITE_STATIC);
			sqlite3_bind_text(ins, 2, why.buf, -1, SQLITE_TRANSIENT);
			rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
			sqlite3_reset(ins);
			sbuf_release(&why);
		}
	}
	sqlite3_finalize(ins);
	return rc == SQLITE_OK ? 0 : sql_fail(m, m->out);
}

static int copy_levels(struct merge *m)
{
	sqlite3_stmt *ins;
	int rc = sqlite3_prepare_v2(m->db, "INSERT INTO main.level VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
				    -1, &ins, NULL);

	for (int k = 0; rc == SQLITE_OK && k < m->first.nlevels; k++) {
		const struct profile_level *l = &m->first.lv[k];
		sqlite3_bind_int(ins, 1, k + 1);
		sqlite3_bind_text(ins, 2, l->name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 3, l->size);
		sqlite3_bind_int64(ins, 4, l->assoc);
		sqlite3_bind_int64(ins, 5, l->line_size);
		sqlite3_bind_int64(ins, 6, l->latency);
		rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	return rc == SQLITE_OK ? 0 : sql_fail(m, m->out);
}

/* Weighted sums become means; the merge's own indexes go. */
static int finish(struct merge *m)
{
	return exec(m, m->out,
		"UPDATE main.reuse_hist SET mean = mean / count WHERE count > 0 AND mean IS NOT NULL;"
		"UPDATE main.reuse_pair SET mean_stack = mean_stack / count,"
		" mean_time = mean_time / count WHERE count > 0;"
		"UPDATE main.reuse_pair_sampled SET mean_time = mean_time / count WHERE count > 0;"
		"INSERT INTO main.residency SELECT bucket, level, total / n FROM temp.resid;"
		"DROP INDEX main.merge_call_arc; DROP INDEX main.merge_call_use;");
}

/* One file given twice (a name and a link to it, a glob and a name)
 * would count its processes twice: refused before anything is read,
 * unless --force. */
static int same_file_twice(const char *const *inputs, size_t n, char *err, size_t errlen)
{
	struct stat *st = calloc(n, sizeof *st);
	int rc = 0;

	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		if (stat(inputs[i], &st[i]) != 0) {
			st[i].st_ino = 0;   /* profile_open says why it cannot be read */
			continue;
		}
		for (size_t j = 0; j < i && !rc; j++)
			if (st[j].st_ino && st[j].st_dev == st[i].st_dev &&
			    st[j].st_ino == st[i].st_ino) {
				snprintf(err, errlen, "cannot merge '%s': it is the same file as"
					 " '%s'; it would count twice", inputs[i], inputs[j]);
				rc = -1;
			}
	}
	free(st);
	return rc;
}

int merge_profiles(const char *const *inputs, size_t n, const char *out,
		   const struct merge_opts *o, char *err, size_t errlen)
{
	struct merge m = { .out = out, .o = o, .err = err, .errlen = errlen };
	struct profile_writer w;
	struct outfile of;
	char why[DC_ERRLEN];
	int rc = -1;

	if (n == 0) {
		snprintf(err, errlen, "no profiles to merge");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct stat a, b;
		if (stat(inputs[i], &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino) {
			snprintf(err, errlen, "cannot write '%s': it is one of the inputs", out);
			return -1;
		}
	}
	if (!o->force && same_file_twice(inputs, n, err, errlen))
		return -1;
	if (outfile_open(&of, out, NULL, false, err, errlen))
		return -1;
	if (profile_writer_open(&w, outfile_path(&of), why, sizeof why)) {
		snprintf(err, errlen, "cannot write '%s': %s", out, why);
		outfile_abort(&of);
		return -1;
	}
	m.db = w.db;
	sbuf_init(&m.incomplete_names);
	/* ATTACH is not allowed inside a transaction: without a journal each
	 * statement commits on its own at no extra cost, and the writer's
	 * commit ends one begun at the end. */
	if (exec(&m, out, "COMMIT;") || exec(&m, out, merge_schema) ||
	    exec(&m, out, "CREATE TEMP TABLE resid(bucket INTEGER, level INTEGER, total REAL,"
		 " n INTEGER, PRIMARY KEY(bucket, level));"
		 "CREATE TEMP TABLE msum(key TEXT, value INTEGER);"))
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (merge_one(&m, inputs[i]))
			goto fail;
	if (copy_levels(&m) || finish(&m) || write_meta(&m, n) || exec(&m, out, "BEGIN;"))
		goto fail;
	if (profile_writer_commit(&w, why, sizeof why)) {
		snprintf(err, errlen, "cannot write '%s': %s", out, why);
		outfile_abort(&of);
		goto out;
	}
	if (outfile_commit(&of, err, errlen))
		goto out;
	if (!o->quiet && m.incomplete)
		err_note("warning: %zu of the %zu profiles merged into %s are incomplete: %s",
			 m.incomplete, n, out, m.incomplete_names.buf);
	if (!o->quiet && m.traces_dropped)
		err_note("note: sampled traces (footprint) are per process and were not merged");
	rc = 0;
	goto out;
fail:
	profile_writer_abort(&w);
	outfile_abort(&of);
out:
	if (m.have_first)
		profile_close(&m.first);
	sbuf_release(&m.incomplete_names);
	return rc;
}
