/* profile.c — the SQLite profile: schema, writer, and opening for reading.
 *
 * Schema version 9 (docs/schema.md):
 *
 *   TABLE         COLUMNS
 *   meta          key TEXT PRIMARY KEY, value TEXT NOT NULL
 *   level         level INTEGER PRIMARY KEY, name, size, assoc, line_size, latency
 *   bucket        id INTEGER PRIMARY KEY, name, kind, blocks, max_live_blocks,
 *                 max_live_bytes, total_bytes, min_size, max_size
 *   location      id INTEGER PRIMARY KEY, ip, object, function, file, line,
 *                 inlined_into (version 6), outer_function, outer_file,
 *                 outer_line (version 9)
 *   cost          bucket, location, thread, Dr, Dw, D1mr, D1mw, ... D4mr, D4mw,
 *                 Lat; PRIMARY KEY(bucket, location, thread)
 *   cost_sampled  the same columns and key as cost (version 2)
 *   block         id INTEGER PRIMARY KEY, bucket, address, size, alloc_seq, free_seq
 *   eviction      level, evictor, victim, location, count, sampled;
 *                 PRIMARY KEY(level, evictor, victim, location, sampled) (version 2)
 *   level_fill    level INTEGER PRIMARY KEY, fills, empty_fills, evictions (version 2)
 *   residency     bucket, level, avg_lines REAL; PRIMARY KEY(bucket, level) (version 2)
 *   reuse_hist    bucket, kind, bin, lo, hi, count, mean REAL (version 4);
 *                 PRIMARY KEY(bucket, kind, bin) (version 3)
 *   reuse_first   bucket INTEGER PRIMARY KEY, count (version 3)
 *   reuse_pair    use_location, reuse_location, count, mean_stack REAL,
 *                 mean_time REAL; PRIMARY KEY(use_location, reuse_location) (version 3)
 *   reuse_unseen  bucket INTEGER PRIMARY KEY, count (version 4)
 *   reuse_pair_sampled  use_location, reuse_location, count, mean_time REAL;
 *                 PRIMARY KEY(use_location, reuse_location) (version 4)
 *   cache_use     bucket, location, thread, level, SpLoss, AcCost, Evicted (version 5);
 *                 PRIMARY KEY(bucket, location, thread, level) (version 4)
 *   call_arc      kind, site, callee, thread, count, Dr, Dw, D1mr, ... D4mw, Lat
 *                 (version 4)
 *   call_use      kind, site, callee, thread, level, SpLoss, AcCost (version 4),
 *                 Evicted (version 5)
 *   trace_window  id INTEGER PRIMARY KEY, start, period, ref_f, ref_f_str,
 *                 ref_f_irr (version 4)
 *   trace_access  window, time INTEGER PRIMARY KEY, location, bucket, address,
 *                 class TEXT, implied (version 4)
 *   trace_function_ref  function TEXT PRIMARY KEY, accesses, const_loads, f,
 *                 f_str, f_irr (version 4)
 *   offset_cost   bucket, offset, size, Dr, Dw, D1m, D2m, D3m, D4m, Lat;
 *                 PRIMARY KEY(bucket, offset) (version 7)
 *   bucket_type   bucket INTEGER PRIMARY KEY, type TEXT NOT NULL (version 7)
 *   ip_sample     location, thread, count; PRIMARY KEY(location, thread) (version 8)
 *   offset_unused bucket, offset, end_offset, Unused1, ... Unused4;
 *                 PRIMARY KEY(bucket, offset, end_offset) (version 8)
 *   indexes       cost(location), block(bucket)
 *
 *   PRAGMA application_id = 0x64637066 ("dcpf"), PRAGMA user_version = 9.
 *   Version 8 is version 9 without the columns marked (version 9).
 *   Version 7 is version 8 without the tables marked (version 8).
 *   Version 6 is version 7 without the tables marked (version 7).
 *   Version 5 is version 6 without the columns marked (version 6); version 4
 *   also lacks the columns marked (version 5); version 3
 *   also lacks the tables marked (version 4), version 2 those marked
 *   (version 3), version 1 those marked (version 2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/profile.h"
#include "base/err.h"
#include "base/num.h"

static const char schema_sql[] =
	"CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE level(level INTEGER PRIMARY KEY, name TEXT, size INTEGER,"
	" assoc INTEGER, line_size INTEGER, latency INTEGER);"
	"CREATE TABLE bucket(id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,"
	" blocks INTEGER, max_live_blocks INTEGER, max_live_bytes INTEGER,"
	" total_bytes INTEGER, min_size INTEGER, max_size INTEGER);"
	"CREATE TABLE location(id INTEGER PRIMARY KEY, ip INTEGER, object TEXT,"
	" function TEXT, file TEXT, line INTEGER, inlined_into TEXT, outer_function TEXT,"
	" outer_file TEXT, outer_line INTEGER);"
	"CREATE TABLE cost(bucket INTEGER, location INTEGER, thread INTEGER,"
	" Dr INTEGER, Dw INTEGER, D1mr INTEGER, D1mw INTEGER, D2mr INTEGER, D2mw INTEGER,"
	" D3mr INTEGER, D3mw INTEGER, D4mr INTEGER, D4mw INTEGER, Lat INTEGER,"
	" PRIMARY KEY(bucket, location, thread));"
	"CREATE TABLE cost_sampled(bucket INTEGER, location INTEGER, thread INTEGER,"
	" Dr INTEGER, Dw INTEGER, D1mr INTEGER, D1mw INTEGER, D2mr INTEGER, D2mw INTEGER,"
	" D3mr INTEGER, D3mw INTEGER, D4mr INTEGER, D4mw INTEGER, Lat INTEGER,"
	" PRIMARY KEY(bucket, location, thread));"
	"CREATE TABLE block(id INTEGER PRIMARY KEY, bucket INTEGER, address INTEGER,"
	" size INTEGER, alloc_seq INTEGER, free_seq INTEGER);"
	"CREATE TABLE eviction(level INTEGER, evictor INTEGER, victim INTEGER,"
	" location INTEGER, count INTEGER, sampled INTEGER,"
	" PRIMARY KEY(level, evictor, victim, location, sampled));"
	"CREATE TABLE level_fill(level INTEGER PRIMARY KEY, fills INTEGER,"
	" empty_fills INTEGER, evictions INTEGER);"
	"CREATE TABLE residency(bucket INTEGER, level INTEGER, avg_lines REAL,"
	" PRIMARY KEY(bucket, level));"
	"CREATE TABLE reuse_hist(bucket INTEGER, kind TEXT, bin INTEGER, lo INTEGER,"
	" hi INTEGER, count INTEGER, mean REAL, PRIMARY KEY(bucket, kind, bin));"
	"CREATE TABLE reuse_first(bucket INTEGER PRIMARY KEY, count INTEGER);"
	"CREATE TABLE reuse_unseen(bucket INTEGER PRIMARY KEY, count INTEGER);"
	"CREATE TABLE reuse_pair(use_location INTEGER, reuse_location INTEGER, count INTEGER,"
	" mean_stack REAL, mean_time REAL, PRIMARY KEY(use_location, reuse_location));"
	"CREATE TABLE reuse_pair_sampled(use_location INTEGER, reuse_location INTEGER,"
	" count INTEGER, mean_time REAL, PRIMARY KEY(use_location, reuse_location));"
	"CREATE TABLE cache_use(bucket INTEGER, location INTEGER, thread INTEGER, level INTEGER,"
	" SpLoss INTEGER, AcCost INTEGER, Evicted INTEGER,"
	" PRIMARY KEY(bucket, location, thread, level));"
	"CREATE TABLE call_arc(kind TEXT NOT NULL, site INTEGER, callee INTEGER, thread INTEGER,"
	" count INTEGER, Dr INTEGER, Dw INTEGER, D1mr INTEGER, D1mw INTEGER, D2mr INTEGER,"
	" D2mw INTEGER, D3mr INTEGER, D3mw INTEGER, D4mr INTEGER, D4mw INTEGER, Lat INTEGER);"
	"CREATE TABLE call_use(kind TEXT NOT NULL, site INTEGER, callee INTEGER, thread INTEGER,"
	" level INTEGER, SpLoss INTEGER, AcCost INTEGER, Evicted INTEGER);"
	"CREATE TABLE trace_window(id INTEGER PRIMARY KEY, start INTEGER, period INTEGER,"
	" ref_f INTEGER, ref_f_str INTEGER, ref_f_irr INTEGER);"
	"CREATE TABLE trace_access(window INTEGER, time INTEGER PRIMARY KEY, location INTEGER,"
	" bucket INTEGER, address INTEGER, class TEXT, implied INTEGER);"
	"CREATE TABLE trace_function_ref(function TEXT PRIMARY KEY, accesses INTEGER,"
	" const_loads INTEGER, f INTEGER, f_str INTEGER, f_irr INTEGER);"
	"CREATE TABLE offset_cost(bucket INTEGER, offset INTEGER, size INTEGER, Dr INTEGER,"
	" Dw INTEGER, D1m INTEGER, D2m INTEGER, D3m INTEGER, D4m INTEGER, Lat INTEGER,"
	" PRIMARY KEY(bucket, offset));"
	"CREATE TABLE bucket_type(bucket INTEGER PRIMARY KEY, type TEXT NOT NULL);"
	"CREATE TABLE first_touch(bucket INTEGER, location INTEGER, thread INTEGER,"
	" pages INTEGER, PRIMARY KEY(bucket, location, thread));"
	"CREATE TABLE ip_sample(location INTEGER, thread INTEGER, count INTEGER,"
	" PRIMARY KEY(location, thread));"
	"CREATE TABLE offset_unused(bucket INTEGER, offset INTEGER, end_offset INTEGER,"
	" Unused1 INTEGER, Unused2 INTEGER, Unused3 INTEGER, Unused4 INTEGER,"
	" PRIMARY KEY(bucket, offset, end_offset));";

/* Indexes are built after the rows are in: one sorted build is much faster
 * than keeping them up to date row by row. */
static const char index_sql[] =
	"CREATE INDEX cost_location ON cost(location);"
	"CREATE INDEX block_bucket ON block(bucket);";

/* dcprof uses SQLite from one thread: without its mutexes and memory
 * statistics, inserting a row costs about a third less. */
static void sqlite_setup(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* The writer's statements: where each lives in struct profile_writer and
 * its SQL, prepared in this order by profile_writer_open. */
static const struct {
	size_t off;
	const char *sql;
} writer_sql[] = {
	{ offsetof(struct profile_writer, meta), "INSERT INTO meta VALUES(?1, ?2)" },
	{ offsetof(struct profile_writer, level), "INSERT INTO level VALUES(?1, ?2, ?3, ?4, ?5, ?6)" },
	{ offsetof(struct profile_writer, bucket),
	  "INSERT INTO bucket(id, kind, name) VALUES(?1, ?2, ?3)" },
	{ offsetof(struct profile_writer, bstat),
	  "UPDATE bucket SET blocks=?2, max_live_blocks=?3, max_live_bytes=?4,"
	  " total_bytes=?5, min_size=?6, max_size=?7 WHERE id=?1" },
	{ offsetof(struct profile_writer, loc), "INSERT INTO location VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)" },
	{ offsetof(struct profile_writer, cost),
	  "INSERT INTO cost VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)" },
	{ offsetof(struct profile_writer, scost),
	  "INSERT INTO cost_sampled VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9,"
	  " ?10, ?11, ?12, ?13, ?14)" },
	{ offsetof(struct profile_writer, block),
	  "INSERT INTO block(bucket, address, size, alloc_seq, free_seq)"
	  " VALUES(?1, ?2, ?3, ?4, ?5)" },
	{ offsetof(struct profile_writer, evict), "INSERT INTO eviction VALUES(?1, ?2, ?3, ?4, ?5, ?6)" },
	{ offsetof(struct profile_writer, fill), "INSERT INTO level_fill VALUES(?1, ?2, ?3, ?4)" },
	{ offsetof(struct profile_writer, resid), "INSERT INTO residency VALUES(?1, ?2, ?3)" },
	{ offsetof(struct profile_writer, rhist),
	  "INSERT INTO reuse_hist(bucket, kind, bin, count, mean) VALUES(?1, ?2, ?3, ?4, ?5)" },
	{ offsetof(struct profile_writer, rfirst), "INSERT INTO reuse_first VALUES(?1, ?2)" },
	{ offsetof(struct profile_writer, runseen), "INSERT INTO reuse_unseen VALUES(?1, ?2)" },
	{ offsetof(struct profile_writer, rpair), "INSERT INTO reuse_pair VALUES(?1, ?2, ?3, ?4, ?5)" },
	{ offsetof(struct profile_writer, srpair),
	  "INSERT INTO reuse_pair_sampled VALUES(?1, ?2, ?3, ?4)" },
	{ offsetof(struct profile_writer, use),
	  "INSERT INTO cache_use VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
	{ offsetof(struct profile_writer, call),
	  "INSERT INTO call_arc VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
	  " ?14, ?15, ?16)" },
	{ offsetof(struct profile_writer, calluse),
	  "INSERT INTO call_use VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)" },
	{ offsetof(struct profile_writer, twin), "INSERT INTO trace_window(id, start) VALUES(?1, ?2)" },
	{ offsetof(struct profile_writer, tper), "UPDATE trace_window SET period = ?2 WHERE id = ?1" },
	{ offsetof(struct profile_writer, tref),
	  "UPDATE trace_window SET ref_f = ?2, ref_f_str = ?3, ref_f_irr = ?4 WHERE id = ?1" },
	{ offsetof(struct profile_writer, trec),
	  "INSERT INTO trace_access VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
	{ offsetof(struct profile_writer, tfn),
	  "INSERT INTO trace_function_ref VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(function)"
	  " DO UPDATE SET accesses = accesses + excluded.accesses,"
	  " const_loads = const_loads + excluded.const_loads, f = f + excluded.f,"
	  " f_str = f_str + excluded.f_str, f_irr = f_irr + excluded.f_irr" },
	{ offsetof(struct profile_writer, offset),
	  "INSERT INTO offset_cost VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)" },
	{ offsetof(struct profile_writer, btype), "INSERT INTO bucket_type VALUES(?1, ?2)" },
	{ offsetof(struct profile_writer, ftouch), "INSERT INTO first_touch VALUES(?1, ?2, ?3, ?4)" },
	{ offsetof(struct profile_writer, ipsamp), "INSERT INTO ip_sample VALUES(?1, ?2, ?3)" },
	{ offsetof(struct profile_writer, offu),
	  "INSERT INTO offset_unused VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)" },
	{ offsetof(struct profile_writer, bfree), "UPDATE block SET free_seq = ?2 WHERE id = ?1" },
};

/* SQLite's message, with the system's reason for an I/O error ("disk I/O
 * error: File too large" rather than "disk I/O error" alone). */
static const char *writer_message(const struct profile_writer *w, char *buf, size_t len)
{
	int code = sqlite3_errcode(w->db) & 0xff, sys = sqlite3_system_errno(w->db);

	if ((code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN) && sys)
		snprintf(buf, len, "%s: %s", sqlite3_errmsg(w->db), strerror(sys));
	else
		snprintf(buf, len, "%s", sqlite3_errmsg(w->db));
	return buf;
}

static sqlite3_stmt **writer_stmt(struct profile_writer *w, size_t i)
{
	return (sqlite3_stmt **)((char *)w + writer_sql[i].off);
}

static void finalize_all(struct profile_writer *w)
{
	for (size_t i = 0; i < sizeof writer_sql / sizeof *writer_sql; i++) {
		sqlite3_finalize(*writer_stmt(w, i));
		*writer_stmt(w, i) = NULL;
	}
}

int profile_writer_open(struct profile_writer *w, const char *path, char *err, size_t errlen)
{
	char setup[256];
	int rc;

	memset(w, 0, sizeof *w);
	sqlite_setup();
	rc = sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			     NULL);
	if (rc != SQLITE_OK)
		goto fail;
	snprintf(setup, sizeof setup,
		 "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
		 "PRAGMA page_size=65536; PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;"
		 "PRAGMA application_id=%d; PRAGMA user_version=%d;"
		 "BEGIN;", PROFILE_APPLICATION_ID, PROFILE_SCHEMA_VERSION);
	rc = sqlite3_exec(w->db, setup, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(w->db, schema_sql, NULL, NULL, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof writer_sql / sizeof *writer_sql; i++)
		rc = sqlite3_prepare_v3(w->db, writer_sql[i].sql, -1, SQLITE_PREPARE_PERSISTENT,
					writer_stmt(w, i), NULL);
	if (rc == SQLITE_OK)
		return 0;
fail:
	if (w->db)
		writer_message(w, err, errlen);
	else
		snprintf(err, errlen, "%s", sqlite3_errstr(rc));
	finalize_all(w);
	sqlite3_close(w->db);
	w->db = NULL;
	return -rc;
}

static int step(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -rc;
}

int pw_meta(struct profile_writer *w, const char *key, size_t klen,
	    const char *val, size_t vlen, int replace)
{
	sqlite3_stmt *st = w->meta;
	int rc;

	if (replace) {
		/* Values dcprof itself computes win over the dump's. */
		rc = sqlite3_prepare_v2(w->db, "INSERT OR REPLACE INTO meta VALUES(?1, ?2)",
					-1, &st, NULL);
		if (rc != SQLITE_OK)
			return -rc;
	}
	sqlite3_bind_text(st, 1, key, (int)klen, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, val, (int)vlen, SQLITE_STATIC);
	rc = step(st);
	if (replace)
		sqlite3_finalize(st);
	return rc;
}

int pw_level(struct profile_writer *w, int n, const char *name, size_t nlen,
	     int64_t size, int64_t assoc, int64_t line, int64_t latency)
{
	sqlite3_bind_int(w->level, 1, n);
	sqlite3_bind_text(w->level, 2, name, (int)nlen, SQLITE_STATIC);
	sqlite3_bind_int64(w->level, 3, size);
	sqlite3_bind_int64(w->level, 4, assoc);
	sqlite3_bind_int64(w->level, 5, line);
	sqlite3_bind_int64(w->level, 6, latency);
	return step(w->level);
}

int pw_bucket(struct profile_writer *w, int64_t id, const char *kind,
	      const char *name, size_t nlen)
{
	sqlite3_bind_int64(w->bucket, 1, id);
	sqlite3_bind_text(w->bucket, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(w->bucket, 3, name, (int)nlen, SQLITE_STATIC);
	return step(w->bucket);
}

int pw_bstat(struct profile_writer *w, int64_t id, const int64_t st[6])
{
	sqlite3_bind_int64(w->bstat, 1, id);
	for (int i = 0; i < 6; i++)
		sqlite3_bind_int64(w->bstat, i + 2, st[i]);
	return step(w->bstat);
}

int pw_loc(struct profile_writer *w, int64_t id, int64_t ip,
	   const char *obj, size_t olen, const char *fn, size_t flen,
	   const char *file, size_t filelen, int64_t line, const char *inl, size_t inllen,
	   const struct pw_outer *outer)
{
	sqlite3_bind_int64(w->loc, 1, id);
	sqlite3_bind_int64(w->loc, 2, ip);
	sqlite3_bind_text(w->loc, 3, obj, (int)olen, SQLITE_STATIC);
	sqlite3_bind_text(w->loc, 4, fn, (int)flen, SQLITE_STATIC);
	sqlite3_bind_text(w->loc, 5, file, (int)filelen, SQLITE_STATIC);
	sqlite3_bind_int64(w->loc, 6, line);
	sqlite3_bind_text(w->loc, 7, inl, (int)inllen, SQLITE_STATIC);
	if (outer) {
		sqlite3_bind_text(w->loc, 8, outer->fn, (int)outer->fnlen, SQLITE_STATIC);
		sqlite3_bind_text(w->loc, 9, outer->file, (int)outer->filelen, SQLITE_STATIC);
		sqlite3_bind_int64(w->loc, 10, outer->line);
	} else {
		for (int i = 8; i <= 10; i++)
			sqlite3_bind_null(w->loc, i);
	}
	return step(w->loc);
}

int pw_cost(struct profile_writer *w, bool sampled, int64_t bucket, int64_t loc,
	    int64_t thread, const int64_t v[COST_NCOLS])
{
	sqlite3_stmt *st = sampled ? w->scost : w->cost;

	sqlite3_bind_int64(st, 1, bucket);
	sqlite3_bind_int64(st, 2, loc);
	sqlite3_bind_int64(st, 3, thread);
	for (int i = 0; i < COST_NCOLS; i++)
		sqlite3_bind_int64(st, i + 4, v[i]);
	return step(st);
}

/* The id is left to SQLite (1, 2, ... in dump order): appending without
 * checking for an existing rowid is much faster for millions of blocks. */
int pw_block(struct profile_writer *w, int64_t bucket, int64_t addr,
	     int64_t size, int64_t alloc_seq, int64_t free_seq)
{
	sqlite3_bind_int64(w->block, 1, bucket);
	sqlite3_bind_int64(w->block, 2, addr);
	sqlite3_bind_int64(w->block, 3, size);
	sqlite3_bind_int64(w->block, 4, alloc_seq);
	if (free_seq)
		sqlite3_bind_int64(w->block, 5, free_seq);
	else
		sqlite3_bind_null(w->block, 5);
	return step(w->block);
}

int64_t pw_block_id(const struct profile_writer *w)
{
	return sqlite3_last_insert_rowid(w->db);
}

int pw_block_free(struct profile_writer *w, int64_t id, int64_t free_seq)
{
	sqlite3_bind_int64(w->bfree, 1, id);
	sqlite3_bind_int64(w->bfree, 2, free_seq);
	return step(w->bfree);
}

int pw_eviction(struct profile_writer *w, int level, int64_t evictor, int64_t victim,
		int64_t loc, int64_t count, bool sampled)
{
	sqlite3_bind_int(w->evict, 1, level);
	sqlite3_bind_int64(w->evict, 2, evictor);
	sqlite3_bind_int64(w->evict, 3, victim);
	sqlite3_bind_int64(w->evict, 4, loc);
	sqlite3_bind_int64(w->evict, 5, count);
	sqlite3_bind_int(w->evict, 6, sampled);
	return step(w->evict);
}

int pw_fill(struct profile_writer *w, int level, int64_t fills, int64_t empty,
	    int64_t evictions)
{
	sqlite3_bind_int(w->fill, 1, level);
	sqlite3_bind_int64(w->fill, 2, fills);
	sqlite3_bind_int64(w->fill, 3, empty);
	sqlite3_bind_int64(w->fill, 4, evictions);
	return step(w->fill);
}

int pw_residency(struct profile_writer *w, int64_t bucket, int level, int64_t millilines)
{
	sqlite3_bind_int64(w->resid, 1, bucket);
	sqlite3_bind_int(w->resid, 2, level);
	sqlite3_bind_double(w->resid, 3, (double)millilines / 1000.0);
	return step(w->resid);
}

int pw_rhist(struct profile_writer *w, int64_t bucket, const char *kind, int64_t bin,
	     int64_t count, int64_t sum)
{
	sqlite3_bind_int64(w->rhist, 1, bucket);
	sqlite3_bind_text(w->rhist, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(w->rhist, 3, bin);
	sqlite3_bind_int64(w->rhist, 4, count);
	if (sum >= 0 && sum < INT64_MAX && count > 0)
		sqlite3_bind_double(w->rhist, 5, (double)sum / (double)count);
	else
		sqlite3_bind_null(w->rhist, 5);
	return step(w->rhist);
}

int pw_ftouch(struct profile_writer *w, int64_t bucket, int64_t loc, int64_t thread,
	      int64_t pages)
{
	sqlite3_bind_int64(w->ftouch, 1, bucket);
	sqlite3_bind_int64(w->ftouch, 2, loc);
	sqlite3_bind_int64(w->ftouch, 3, thread);
	sqlite3_bind_int64(w->ftouch, 4, pages);
	return step(w->ftouch);
}

int pw_rfirst(struct profile_writer *w, int64_t bucket, int64_t count)
{
	sqlite3_bind_int64(w->rfirst, 1, bucket);
	sqlite3_bind_int64(w->rfirst, 2, count);
	return step(w->rfirst);
}

int pw_runseen(struct profile_writer *w, int64_t bucket, int64_t count)
{
	sqlite3_bind_int64(w->runseen, 1, bucket);
	sqlite3_bind_int64(w->runseen, 2, count);
	return step(w->runseen);
}

int pw_rpair(struct profile_writer *w, int64_t use, int64_t reuse, int64_t count,
	     int64_t sumstack, int64_t sumtime)
{
	sqlite3_bind_int64(w->rpair, 1, use);
	sqlite3_bind_int64(w->rpair, 2, reuse);
	sqlite3_bind_int64(w->rpair, 3, count);
	sqlite3_bind_double(w->rpair, 4, (double)sumstack / (double)count);
	sqlite3_bind_double(w->rpair, 5, (double)sumtime / (double)count);
	return step(w->rpair);
}

int pw_srpair(struct profile_writer *w, int64_t use, int64_t reuse, int64_t count,
	      int64_t sumtime)
{
	sqlite3_bind_int64(w->srpair, 1, use);
	sqlite3_bind_int64(w->srpair, 2, reuse);
	sqlite3_bind_int64(w->srpair, 3, count);
	if (sumtime < INT64_MAX)
		sqlite3_bind_double(w->srpair, 4, (double)sumtime / (double)count);
	else
		sqlite3_bind_null(w->srpair, 4);
	return step(w->srpair);
}

/* A count, or NULL when it is < 0. */
static void bind_count_or_null(sqlite3_stmt *st, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

int pw_use(struct profile_writer *w, int level, int64_t bucket, int64_t loc, int64_t thread,
	   int64_t sploss, int64_t accost, int64_t evicted)
{
	sqlite3_bind_int64(w->use, 1, bucket);
	sqlite3_bind_int64(w->use, 2, loc);
	sqlite3_bind_int64(w->use, 3, thread);
	sqlite3_bind_int64(w->use, 4, level);
	sqlite3_bind_int64(w->use, 5, sploss);
	sqlite3_bind_int64(w->use, 6, accost);
	bind_count_or_null(w->use, 7, evicted);
	return step(w->use);
}

int pw_call(struct profile_writer *w, const char *kind, int64_t site, int64_t callee,
	    int64_t thread, int64_t count, const int64_t v[COST_NCOLS])
{
	sqlite3_bind_text(w->call, 1, kind, -1, SQLITE_STATIC);
	bind_count_or_null(w->call, 2, site);
	bind_count_or_null(w->call, 3, callee);
	sqlite3_bind_int64(w->call, 4, thread);
	sqlite3_bind_int64(w->call, 5, count);
	for (int i = 0; i < COST_NCOLS; i++)
		sqlite3_bind_int64(w->call, i + 6, v[i]);
	return step(w->call);
}

int pw_calluse(struct profile_writer *w, const char *kind, int64_t site, int64_t callee,
	       int64_t thread, int level, int64_t sploss, int64_t accost, int64_t evicted)
{
	sqlite3_bind_text(w->calluse, 1, kind, -1, SQLITE_STATIC);
	bind_count_or_null(w->calluse, 2, site);
	bind_count_or_null(w->calluse, 3, callee);
	sqlite3_bind_int64(w->calluse, 4, thread);
	sqlite3_bind_int64(w->calluse, 5, level);
	sqlite3_bind_int64(w->calluse, 6, sploss);
	sqlite3_bind_int64(w->calluse, 7, accost);
	bind_count_or_null(w->calluse, 8, evicted);
	return step(w->calluse);
}

int pw_reuse_bounds(struct profile_writer *w, int64_t nbins, const int64_t *lo,
		    const int64_t *hi, const bool *hi_inf)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_exec(w->db, "CREATE TEMP TABLE reuse_bounds(bin INTEGER PRIMARY KEY,"
			  " lo INTEGER, hi INTEGER)", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return -rc;
	rc = sqlite3_prepare_v2(w->db, "INSERT INTO reuse_bounds VALUES(?1, ?2, ?3)", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return -rc;
	for (int64_t k = 0; k < nbins && rc == SQLITE_OK; k++) {
		sqlite3_bind_int64(st, 1, k);
		sqlite3_bind_int64(st, 2, lo[k]);
		if (hi_inf[k])
			sqlite3_bind_null(st, 3);
		else
			sqlite3_bind_int64(st, 3, hi[k]);
		rc = -step(st);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(w->db, "UPDATE reuse_hist SET (lo, hi) = (SELECT lo, hi FROM"
				  " reuse_bounds r WHERE r.bin = reuse_hist.bin);"
				  "DROP TABLE temp.reuse_bounds", NULL, NULL, NULL);
	return -rc;
}

int pw_twin(struct profile_writer *w, int64_t id, int64_t start)
{
	sqlite3_bind_int64(w->twin, 1, id);
	sqlite3_bind_int64(w->twin, 2, start);
	return step(w->twin);
}

int pw_tper(struct profile_writer *w, int64_t id, int64_t period)
{
	sqlite3_bind_int64(w->tper, 1, id);
	sqlite3_bind_int64(w->tper, 2, period);
	return step(w->tper);
}

int pw_tref(struct profile_writer *w, int64_t id, const int64_t f[3])
{
	sqlite3_bind_int64(w->tref, 1, id);
	for (int i = 0; i < 3; i++)
		sqlite3_bind_int64(w->tref, 2 + i, f[i]);
	if (step(w->tref))
		return -SQLITE_ERROR;
	return sqlite3_changes(w->db) == 1 ? 0 : -SQLITE_NOTFOUND;
}

int pw_trec(struct profile_writer *w, const int64_t v[6], const char *cls)
{
	for (int i = 0; i < 5; i++)
		sqlite3_bind_int64(w->trec, 1 + i, v[i]);
	sqlite3_bind_text(w->trec, 6, cls, 1, SQLITE_STATIC);
	sqlite3_bind_int64(w->trec, 7, v[5]);
	return step(w->trec);
}

int pw_tfn(struct profile_writer *w, const char *fn, size_t len, const int64_t v[5])
{
	sqlite3_bind_text(w->tfn, 1, fn, (int)len, SQLITE_STATIC);
	for (int i = 0; i < 5; i++)
		sqlite3_bind_int64(w->tfn, 2 + i, v[i]);
	return step(w->tfn);
}

int pw_offset(struct profile_writer *w, int64_t bucket, int64_t offset, int64_t size,
	      const int64_t *v, int nlevels)
{
	sqlite3_bind_int64(w->offset, 1, bucket);
	sqlite3_bind_int64(w->offset, 2, offset);
	sqlite3_bind_int64(w->offset, 3, size);
	sqlite3_bind_int64(w->offset, 4, v[0]);
	sqlite3_bind_int64(w->offset, 5, v[1]);
	for (int k = 0; k < DC_MAX_LEVELS; k++)
		sqlite3_bind_int64(w->offset, 6 + k, k < nlevels ? v[2 + k] : 0);
	sqlite3_bind_int64(w->offset, 10, v[2 + nlevels]);
	return step(w->offset);
}

int pw_offu(struct profile_writer *w, int64_t bucket, int64_t offset, int64_t end,
	    const int64_t *u, int nlevels)
{
	sqlite3_bind_int64(w->offu, 1, bucket);
	sqlite3_bind_int64(w->offu, 2, offset);
	sqlite3_bind_int64(w->offu, 3, end);
	for (int k = 0; k < DC_MAX_LEVELS; k++)
		sqlite3_bind_int64(w->offu, 4 + k, k < nlevels ? u[k] : 0);
	return step(w->offu);
}

int pw_btype(struct profile_writer *w, int64_t bucket, const char *type, size_t len)
{
	sqlite3_bind_int64(w->btype, 1, bucket);
	sqlite3_bind_text(w->btype, 2, type, (int)len, SQLITE_STATIC);
	return step(w->btype);
}

int pw_ipsamp(struct profile_writer *w, int64_t loc, int64_t thread, int64_t count)
{
	sqlite3_bind_int64(w->ipsamp, 1, loc);
	sqlite3_bind_int64(w->ipsamp, 2, thread);
	sqlite3_bind_int64(w->ipsamp, 3, count);
	return step(w->ipsamp);
}

int pw_trace_prune(struct profile_writer *w, int64_t locs, int64_t buckets)
{
	char sql[512];

	snprintf(sql, sizeof sql, "DELETE FROM trace_access WHERE location >= %lld OR"
		 " bucket >= %lld; UPDATE trace_window SET period = (SELECT COUNT(*) FROM"
		 " trace_access a WHERE a.window = trace_window.id) WHERE period IS NULL",
		 (long long)locs, (long long)buckets);
	return -sqlite3_exec(w->db, sql, NULL, NULL, NULL);
}

const char *profile_writer_errmsg(struct profile_writer *w)
{
	return writer_message(w, w->msg, sizeof w->msg);
}

int profile_writer_commit(struct profile_writer *w, char *err, size_t errlen)
{
	int rc;

	finalize_all(w);
	rc = sqlite3_exec(w->db, index_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		writer_message(w, err, errlen);
	if (sqlite3_close(w->db) != SQLITE_OK && rc == SQLITE_OK) {
		snprintf(err, errlen, "cannot close the database");
		rc = SQLITE_ERROR;
	}
	w->db = NULL;
	return -rc;
}

void profile_writer_abort(struct profile_writer *w)
{
	finalize_all(w);
	sqlite3_close(w->db);
	w->db = NULL;
}

/* ---- reading ------------------------------------------------------------ */

static int pragma_int(sqlite3 *db, const char *sql, int64_t *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/* The messages of the limits profile_open sets, which SQLite words for
 * the programmer, say what happened to the profile instead. */
void profile_read_error(const struct profile *p, char *err, size_t errlen)
{
	int code = sqlite3_errcode(p->db);
	const char *why = sqlite3_errmsg(p->db);

	if (p->steps_exceeded)
		snprintf(err, errlen, "cannot read profile '%s': a query took more than %llu"
			 " steps, too many for a profile of this size (corrupt or crafted?)",
			 p->path, (unsigned long long)p->steps_max);
	else if (code == SQLITE_TOOBIG)
		snprintf(err, errlen, "cannot read profile '%s': a string or value is longer"
			 " than %d bytes", p->path, PROFILE_MAX_LENGTH);
	else if (code == SQLITE_ERROR && !strcmp(why, "integer overflow"))
		profile_overflow_error(p, err, errlen);
	else
		snprintf(err, errlen, "cannot read profile '%s': %s", p->path, why);
}

void profile_overflow_error(const struct profile *p, char *err, size_t errlen)
{
	snprintf(err, errlen, "cannot read profile '%s': integer overflow (a sum of its"
		 " counts does not fit 64 bits)", p->path);
}

/* ---- the shape of a profile --------------------------------------------
 *
 * A profile may come from someone else: read only real tables (not views,
 * virtual tables or generated columns, whose reading could run any SQL)
 * with the columns and primary keys the schema gives them (a missing key
 * would turn the reports' lookups into scans).  Columns are "name" or
 * "name@V" for one added in schema version V; a leading '*' marks a
 * primary-key column, in key order. */
static const struct {
	const char *name;
	int since;
	const char *cols;
} shape[] = {
	{ "meta", 1, "*key value" },
	{ "level", 1, "*level name size assoc line_size latency" },
	{ "bucket", 1, "*id name kind blocks max_live_blocks max_live_bytes total_bytes min_size"
	  " max_size" },
	{ "location", 1, "*id ip object function file line outer_function@9 outer_file@9"
	  " outer_line@9" },
	{ "cost", 1, "*bucket *location *thread Dr Dw D1mr D1mw D2mr D2mw D3mr D3mw D4mr D4mw Lat" },
	{ "block", 1, "*id bucket address size alloc_seq free_seq" },
	{ "cost_sampled", 2, "*bucket *location *thread Dr Dw D1mr D1mw D2mr D2mw D3mr D3mw D4mr"
	  " D4mw Lat" },
	{ "eviction", 2, "*level *evictor *victim *location count *sampled" },
	{ "level_fill", 2, "*level fills empty_fills evictions" },
	{ "residency", 2, "*bucket *level avg_lines" },
	{ "reuse_hist", 3, "*bucket *kind *bin lo hi count mean@4" },
	{ "reuse_first", 3, "*bucket count" },
	{ "reuse_pair", 3, "*use_location *reuse_location count mean_stack mean_time" },
	{ "reuse_unseen", 4, "*bucket count" },
	{ "reuse_pair_sampled", 4, "*use_location *reuse_location count mean_time" },
	{ "cache_use", 4, "*bucket *location *thread *level SpLoss AcCost Evicted@5" },
	{ "call_arc", 4, "kind site callee thread count Dr Dw D1mr D1mw D2mr D2mw D3mr D3mw D4mr"
	  " D4mw Lat" },
	{ "call_use", 4, "kind site callee thread level SpLoss AcCost Evicted@5" },
	{ "trace_window", 4, "*id start period ref_f ref_f_str ref_f_irr" },
	{ "trace_access", 4, "window *time location bucket address class implied" },
	{ "trace_function_ref", 4, "*function accesses const_loads f f_str f_irr" },
	{ "offset_cost", 7, "*bucket *offset size Dr Dw D1m D2m D3m D4m Lat" },
	{ "bucket_type", 7, "*bucket type" },
	{ "first_touch", 8, "*bucket *location *thread pages" },
	{ "ip_sample", 8, "*location *thread count" },
	{ "offset_unused", 8, "*bucket *offset *end_offset Unused1 Unused2 Unused3 Unused4" },
};

/* Is column `want` (its primary-key place pk, 0 if none) in table_xinfo's
 * rows as a plain stored column with that key place?  1, 0, or an SQLite
 * error (negative). */
static int has_column(struct profile *p, const char *table, const char *want, size_t len,
		      int pk)
{
	sqlite3_stmt *st;
	int rc, found = 0;

	rc = sqlite3_prepare_v2(p->db, "SELECT name, pk, hidden FROM pragma_table_xinfo(?1)"
				" WHERE name = ?2 COLLATE NOCASE", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return -rc;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, want, (int)len, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		found = sqlite3_column_int(st, 1) == pk && sqlite3_column_int(st, 2) == 0;
	else if (rc != SQLITE_DONE)
		found = -rc;
	sqlite3_finalize(st);
	return found;
}

/* 0, or -1 with err saying which table or column is not what it should be. */
static int check_shape(struct profile *p, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(p->db, "SELECT type, rootpage FROM sqlite_schema"
				    " WHERE name = ?1 COLLATE NOCASE", -1, &st, NULL);

	if (rc != SQLITE_OK)
		goto sql_error;
	for (size_t i = 0; i < sizeof shape / sizeof *shape; i++) {
		const char *c = shape[i].cols;
		int pk = 0;
		bool table;

		if (shape[i].since > p->version)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, shape[i].name, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			goto sql_error;
		table = rc == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), "table") &&
			sqlite3_column_int64(st, 1) > 0;
		if (!table) {
			const char *type = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0)
							    : NULL;
			snprintf(err, errlen, "cannot read profile '%s': %s %s is %s", p->path,
				 !type ? "table" : !strcmp(type, "table") ? "virtual table" : type,
				 shape[i].name, type ? "not a table" : "missing");
			sqlite3_finalize(st);
			return -1;
		}
		while (*c) {
			size_t len;
			int since = 1, key = 0;
			const char *at;

			if (*c == '*') {
				key = ++pk;
				c++;
			}
			len = strcspn(c, " ");
			at = memchr(c, '@', len);
			if (at)
				since = at[1] - '0';
			if (since <= p->version) {
				rc = has_column(p, shape[i].name, c, at ? (size_t)(at - c) : len, key);
				if (rc < 0) {
					rc = -rc;
					goto sql_error;
				}
				if (!rc) {
					snprintf(err, errlen, "cannot read profile '%s': table %s: column"
						 " %.*s is missing or not as written by dcprof", p->path,
						 shape[i].name, (int)(at ? at - c : (ptrdiff_t)len), c);
					sqlite3_finalize(st);
					return -1;
				}
			}
			c += len;
			c += *c == ' ';
		}
	}
	sqlite3_finalize(st);
	return 0;
sql_error:
	sqlite3_finalize(st);
	profile_read_error(p, err, errlen);
	return -1;
}

static int read_levels(struct profile *p, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(p->db, "SELECT level, name, size, assoc, line_size, latency"
				    " FROM level ORDER BY level", -1, &st, NULL);

	if (rc != SQLITE_OK)
		goto sql_error;
	p->nlevels = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct profile_level *l;
		const unsigned char *name;
		bool bad = false;

		if (p->nlevels == DC_MAX_LEVELS ||
		    sqlite3_column_int64(st, 0) != p->nlevels + 1) {
			snprintf(err, errlen, "cannot read profile '%s': bad level table", p->path);
			sqlite3_finalize(st);
			return -1;
		}
		l = &p->lv[p->nlevels++];
		name = sqlite3_column_text(st, 1);
		snprintf(l->name, sizeof l->name, "%s", name ? (const char *)name : "");
		l->size = sqlite3_column_int64(st, 2);
		l->assoc = sqlite3_column_int64(st, 3);
		l->line_size = sqlite3_column_int64(st, 4);
		l->latency = sqlite3_column_int64(st, 5);
		for (int k = 2; k <= 5; k++)
			bad |= sqlite3_column_int64(st, k) < 0 ||
			       sqlite3_column_int64(st, k) > PROFILE_MAX_LEVEL_VALUE;
		if (bad) {
			snprintf(err, errlen, "cannot read profile '%s': level %d: a size or latency"
				 " out of range (0 to 2^40)", p->path, p->nlevels);
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto sql_error;
	if (p->nlevels == 0) {
		snprintf(err, errlen, "cannot read profile '%s': no cache levels", p->path);
		return -1;
	}
	rc = pragma_int(p->db, "SELECT CAST(value AS INTEGER) FROM meta"
			" WHERE key = 'memory_latency'", &p->mem_latency);
	if (rc == SQLITE_DONE) {
		snprintf(err, errlen, "cannot read profile '%s': no memory latency", p->path);
		return -1;
	}
	if (rc != SQLITE_OK)
		goto sql_error;
	if (p->mem_latency < 0 || p->mem_latency > PROFILE_MAX_LEVEL_VALUE) {
		snprintf(err, errlen, "cannot read profile '%s': memory latency out of range"
			 " (0 to 2^40)", p->path);
		return -1;
	}
	return 0;
sql_error:
	profile_read_error(p, err, errlen);
	return -1;
}

/* The progress handler: SQLite calls it every STEP_CHUNK virtual-machine
 * steps; a nonzero return interrupts the query. */
#define STEP_CHUNK 256

static int count_steps(void *arg)
{
	struct profile *p = arg;

	p->steps += STEP_CHUNK;
	if (p->steps <= p->steps_max)
		return 0;
	p->steps_exceeded = true;
	return 1;
}

/* How many steps all of a command's queries may take: generous for what
 * dcprof's queries do (a few passes over each table, an index lookup per
 * row: tens of steps per stored byte), finite for a profile built to make
 * them run away.  DCPROF_MAX_SQL_STEPS overrides it (for tests). */
static uint64_t steps_budget(const struct stat *sb)
{
	const char *env = getenv("DCPROF_MAX_SQL_STEPS");
	uint64_t v;

	if (env && !num_parse_u64(env, UINT64_MAX / 2, &v))
		return v;
	return PROFILE_STEPS_BASE + PROFILE_STEPS_PER_BYTE * (uint64_t)sb->st_size;
}

/* "file:PATH?immutable=1" with every byte of PATH that a URI would read
 * otherwise ('?', '#', '%', ...) as %XX: immutable opens without locks and
 * without -wal or -shm files, which a profile opened for reading must
 * not leave behind (even a WAL-mode one). */
static void profile_uri(struct sbuf *uri, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";

	/* "file:///abs" for an absolute path: "file://x" would name a host */
	sbuf_adds(uri, path[0] == '/' ? "file://" : "file:");
	for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    strchr("/._-~", *s)) {
			sbuf_addc(uri, (char)*s);
		} else {
			sbuf_addc(uri, '%');
			sbuf_addc(uri, hex[*s >> 4]);
			sbuf_addc(uri, hex[*s & 15]);
		}
	}
	sbuf_adds(uri, "?immutable=1");
}

/* Limits on what any query may build from the profile's values. */
static void set_limits(sqlite3 *db)
{
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, PROFILE_MAX_LENGTH);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 1 << 20);
	sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
	sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 8);
	sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 1000);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
}

int profile_open(struct profile *p, const char *path, char *err, size_t errlen)
{
	struct stat sb;
	struct sbuf uri;
	int64_t appid, version;
	int fd, rc;

	memset(p, 0, sizeof *p);
	p->path = path;
	/* SQLite's own messages for a missing or unreadable file are vague;
	 * ask the system first.  O_NONBLOCK: opening a FIFO must not wait for
	 * a writer. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		snprintf(err, errlen, "cannot open profile '%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (S_ISDIR(sb.st_mode)) {
		snprintf(err, errlen, "cannot open profile '%s': %s", path, strerror(EISDIR));
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "cannot open profile '%s': not a regular file", path);
		return -1;
	}
	sqlite_setup();
	sbuf_init(&uri);
	profile_uri(&uri, path);
	rc = sqlite3_open_v2(uri.buf, &p->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	sbuf_release(&uri);
	if (rc != SQLITE_OK) {
		snprintf(err, errlen, "cannot open profile '%s': %s", path,
			 p->db ? sqlite3_errmsg(p->db) : sqlite3_errstr(rc));
		goto fail;
	}
	set_limits(p->db);
	p->steps_max = steps_budget(&sb);
	sqlite3_progress_handler(p->db, STEP_CHUNK, count_steps, p);
	rc = pragma_int(p->db, "PRAGMA application_id", &appid);
	if (rc == SQLITE_NOTADB || (rc == SQLITE_OK && appid != PROFILE_APPLICATION_ID)) {
		snprintf(err, errlen, "cannot open profile '%s': not a dcprof profile", path);
		goto fail;
	}
	if (rc == SQLITE_OK)
		rc = pragma_int(p->db, "PRAGMA user_version", &version);
	if (rc != SQLITE_OK) {
		profile_read_error(p, err, errlen);
		goto fail;
	}
	if (version > PROFILE_SCHEMA_VERSION) {
		snprintf(err, errlen, "cannot open profile '%s': schema version %lld is newer"
			 " than this dcprof supports (%d)", path, (long long)version,
			 PROFILE_SCHEMA_VERSION);
		goto fail;
	}
	if (version < 1) {
		snprintf(err, errlen, "cannot open profile '%s': unknown schema version %lld",
			 path, (long long)version);
		goto fail;
	}
	p->version = (int)version;
	if (check_shape(p, err, errlen) || read_levels(p, err, errlen))
		goto fail;
	return 0;
fail:
	sqlite3_close(p->db);
	p->db = NULL;
	return -1;
}

void profile_close(struct profile *p)
{
	sqlite3_close(p->db);
	p->db = NULL;
	free(p->src_root);
	p->src_root = NULL;
	p->src_root_done = false;
}

/* The schema version that introduced a table whose rows are optional. */
static int table_version(const char *table)
{
	if (!strcmp(table, "reuse_unseen") || !strcmp(table, "reuse_pair_sampled") || !strcmp(table, "cache_use") ||
	    !strcmp(table, "call_arc") || !strcmp(table, "call_use") ||
	    !strncmp(table, "trace_", 6))
		return 4;
	return strncmp(table, "reuse_", 6) ? 2 : 3;
}

int profile_has_rows(struct profile *p, const char *table)
{
	char sql[128];
	int64_t one;
	int rc;

	if (p->version < table_version(table))
		return 0;
	snprintf(sql, sizeof sql, "SELECT 1 FROM %s LIMIT 1", table);
	rc = pragma_int(p->db, sql, &one);
	return rc == SQLITE_OK ? 1 : rc == SQLITE_DONE ? 0 : -rc;
}

int profile_has_evicted(struct profile *p)
{
	int64_t one;
	int rc;

	if (p->version < 5)
		return 0;
	rc = pragma_int(p->db, "SELECT 1 FROM cache_use WHERE Evicted IS NOT NULL LIMIT 1", &one);
	return rc == SQLITE_OK ? 1 : rc == SQLITE_DONE ? 0 : -rc;
}

int profile_meta(struct profile *p, const char *key, struct sbuf *out)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(p->db, "SELECT value FROM meta WHERE key = ?1", -1, &st, NULL);

	if (rc != SQLITE_OK)
		return -rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sbuf_reset(out);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const void *v = sqlite3_column_blob(st, 0);
		sbuf_add(out, v ? v : "", (size_t)sqlite3_column_bytes(st, 0));
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : -rc;
	}
	sqlite3_finalize(st);
	return rc;
}

int profile_open_cmd(struct profile *p, const char *path)
{
	char err[DC_ERRLEN];

	if (!profile_open(p, path, err, sizeof err))
		return 0;
	err_msg("%s", err);
	return -1;
}
