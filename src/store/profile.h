/* profile.h — the SQLite profile: schema, writer, and opening for reading.
 *
 * The schema is documented in docs/schema.md (version 9; version 1 to 8
 * profiles, which lack the sampling and eviction tables (1), the reuse
 * tables (1 and 2), cache_use, the call and the trace tables (1 to 3) and
 * the Evicted columns (1 to 4), location.inlined_into (1 to 5) and
 * offset_cost and bucket_type (1 to 6) and first_touch, ip_sample and
 * offset_unused (1 to 7), location.outer_function, outer_file and
 * outer_line (1 to 8), are read too).  The writer fills a fresh
 * file inside one transaction with journalling and syncing off: the
 * file is a temporary name that finalize.c renames only when complete, so a
 * crash leaves no half-written profile under the real name.
 */
#ifndef DC_STORE_PROFILE_H
#define DC_STORE_PROFILE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "core/hier.h"

#define PROFILE_SCHEMA_VERSION 9
#define PROFILE_APPLICATION_ID 0x64637066   /* "dcpf" */

/* Cost columns in the order the writer takes them and the schema stores
 * them: Dr Dw D1mr D1mw ... D4mr D4mw Lat. */
enum { COST_DR, COST_DW, COST_D1MR, COST_LAT = COST_D1MR + 2 * DC_MAX_LEVELS, COST_NCOLS };

struct profile_writer {
	sqlite3 *db;
	sqlite3_stmt *meta, *level, *bucket, *bstat, *loc, *cost, *scost, *block, *evict,
		*fill, *resid, *rhist, *rfirst, *runseen, *rpair, *srpair, *use, *call, *calluse, *twin,
		*tper, *tref, *trec, *tfn, *offset, *btype, *ftouch, *ipsamp, *offu, *bfree;
	char msg[256];          /* profile_writer_errmsg's text */
};

/* Creates a new profile at path (which must be empty or not exist) and begins the
 * transaction.  On error, err says why and nothing needs releasing. */
int profile_writer_open(struct profile_writer *w, const char *path, char *err, size_t errlen);
/* Each returns 0 or a negative SQLite result code (-SQLITE_CONSTRAINT for a
 * duplicate key); profile_writer_errmsg says more. */
int pw_meta(struct profile_writer *w, const char *key, size_t klen,
	    const char *val, size_t vlen, int replace);
int pw_level(struct profile_writer *w, int n, const char *name, size_t nlen,
	     int64_t size, int64_t assoc, int64_t line, int64_t latency);
int pw_bucket(struct profile_writer *w, int64_t id, const char *kind,
	      const char *name, size_t nlen);
/* blocks, max_live_blocks, max_live_bytes, total_bytes, min_size, max_size */
int pw_bstat(struct profile_writer *w, int64_t id, const int64_t st[6]);
/* Inlined code's place in the function compiled (schema 9): that
 * function, and the file and line of the outermost inlined call. */
struct pw_outer {
	const char *fn;
	size_t fnlen;
	const char *file;
	size_t filelen;
	int64_t line;
};
/* inl: the function fn was inlined into, empty when not inlined; outer:
 * NULL when not inlined (outer_function, outer_file, outer_line NULL). */
int pw_loc(struct profile_writer *w, int64_t id, int64_t ip,
	   const char *obj, size_t olen, const char *fn, size_t flen,
	   const char *file, size_t filelen, int64_t line, const char *inl, size_t inllen,
	   const struct pw_outer *outer);
/* Into cost, or into cost_sampled when sampled. */
int pw_cost(struct profile_writer *w, bool sampled, int64_t bucket, int64_t loc,
	    int64_t thread, const int64_t v[COST_NCOLS]);
/* Blocks are numbered 1, 2, ... in the order written; free_seq 0 (live at
 * exit) is stored as NULL. */
int pw_block(struct profile_writer *w, int64_t bucket, int64_t addr,
	     int64_t size, int64_t alloc_seq, int64_t free_seq);
/* The id of the block pw_block wrote last. */
int64_t pw_block_id(const struct profile_writer *w);
/* Sets the free_seq of the block with that id (written live). */
int pw_block_free(struct profile_writer *w, int64_t id, int64_t free_seq);
int pw_eviction(struct profile_writer *w, int level, int64_t evictor, int64_t victim,
		int64_t loc, int64_t count, bool sampled);
int pw_fill(struct profile_writer *w, int level, int64_t fills, int64_t empty,
	    int64_t evictions);
/* Stored as avg_lines = millilines / 1000. */
int pw_residency(struct profile_writer *w, int64_t bucket, int level, int64_t millilines);
/* reuse_hist rows get their lo and hi from pw_reuse_bounds, called once
 * after the last pw_rhist with the bounds of bins 0 .. nbins-1 (hi NULL
 * where hi_inf). */
/* sum: of the distances counted, -1 or INT64_MAX when unknown; stored as
 * mean = sum / count (NULL when unknown). */
int pw_rhist(struct profile_writer *w, int64_t bucket, const char *kind, int64_t bin,
	     int64_t count, int64_t sum);
int pw_rfirst(struct profile_writer *w, int64_t bucket, int64_t count);
/* Schema 8: pages of bucket first touched by location on thread (the
 * native engine's --event=pagefault). */
int pw_ftouch(struct profile_writer *w, int64_t bucket, int64_t loc, int64_t thread,
	      int64_t pages);
int pw_runseen(struct profile_writer *w, int64_t bucket, int64_t count);
/* Stored as mean_stack = sumstack / count, mean_time = sumtime / count;
 * count > 0. */
int pw_rpair(struct profile_writer *w, int64_t use, int64_t reuse, int64_t count,
	     int64_t sumstack, int64_t sumtime);
/* Stored as mean_time = sumtime / count, NULL when sumtime is INT64_MAX. */
int pw_srpair(struct profile_writer *w, int64_t use, int64_t reuse, int64_t count,
	      int64_t sumtime);
/* One cache_use row: SpLoss, AcCost and Evicted (< 0: not counted, NULL)
 * at level of the lines loaded by loc's accesses to bucket on thread. */
int pw_use(struct profile_writer *w, int level, int64_t bucket, int64_t loc, int64_t thread,
	   int64_t sploss, int64_t accost, int64_t evicted);
/* One call_arc row; site and callee < 0 for NULL (roots). */
int pw_call(struct profile_writer *w, const char *kind, int64_t site, int64_t callee,
	    int64_t thread, int64_t count, const int64_t v[COST_NCOLS]);
/* One call_use row (site, callee, evicted < 0 for NULL). */
int pw_calluse(struct profile_writer *w, const char *kind, int64_t site, int64_t callee,
	       int64_t thread, int level, int64_t sploss, int64_t accost, int64_t evicted);
int pw_reuse_bounds(struct profile_writer *w, int64_t nbins, const int64_t *lo,
		    const int64_t *hi, const bool *hi_inf);
/* Sampled traces (version 4).  pw_tper and pw_tref fill the period and
 * the reference footprints of window id, which pw_twin must have written
 * (pw_tref: else -SQLITE_NOTFOUND); pw_trec takes window, time, location,
 * bucket, address, implied and the class letter; pw_tfn function,
 * accesses, const_loads, f, f_str, f_irr. */
int pw_twin(struct profile_writer *w, int64_t id, int64_t start);
int pw_tper(struct profile_writer *w, int64_t id, int64_t period);
int pw_tref(struct profile_writer *w, int64_t id, const int64_t f[3]);
int pw_trec(struct profile_writer *w, const int64_t v[6], const char *cls);
/* pw_tfn sums into the row of a function already written: finalize names
 * two versions of one symbol alike (memcpy@@GLIBC_2.14 and ld.so's own
 * memcpy are memcpy). */
int pw_tfn(struct profile_writer *w, const char *fn, size_t len, const int64_t v[5]);
/* One offset_cost row (version 7): bucket, offset (-1: beyond the
 * window), widest access, then v = reads, writes, misses at levels
 * 1..nlevels, latency. */
int pw_offset(struct profile_writer *w, int64_t bucket, int64_t offset, int64_t size,
	      const int64_t *v, int nlevels);
/* One offset_unused row (version 8): every byte at offsets [offset, end)
 * of bucket's objects left level k + 1 unused u[k] times; offset and end
 * -1: u[k] bytes beyond the window or the cell cap. */
int pw_offu(struct profile_writer *w, int64_t bucket, int64_t offset, int64_t end,
	    const int64_t *u, int nlevels);
/* One bucket_type row (version 7). */
int pw_btype(struct profile_writer *w, int64_t bucket, const char *type, size_t len);
/* One ip_sample row (version 8): samples x period at a code location. */
int pw_ipsamp(struct profile_writer *w, int64_t loc, int64_t thread, int64_t count);
/* A dump cut short: deletes the trace accesses naming a location or
 * bucket at or beyond these counts, and gives windows without a period
 * their number of accesses. */
int pw_trace_prune(struct profile_writer *w, int64_t locs, int64_t buckets);
const char *profile_writer_errmsg(struct profile_writer *w);
/* Builds the indexes, commits and closes.  The writer is released either
 * way; on error err says why. */
int profile_writer_commit(struct profile_writer *w, char *err, size_t errlen);
/* Closes without committing; the caller removes the file. */
void profile_writer_abort(struct profile_writer *w);

struct profile_level {
	char name[32];
	int64_t size, assoc, line_size, latency;
};

struct profile {
	sqlite3 *db;
	const char *path;
	int version;             /* schema version, 1 to 9 */
	int nlevels;
	struct profile_level lv[DC_MAX_LEVELS];
	int64_t mem_latency;
	uint64_t steps, steps_max;   /* SQLite steps taken, and allowed */
	bool steps_exceeded;
	/* analysis/view.c: the directory reports show source files relative
	 * to, found on first use (NULL: none); freed by profile_close. */
	char *src_root;
	bool src_root_done;
};

/* The longest string or blob a query may read or build: a stored string
 * comes from one raw-dump line, at most RAW_MAX_LINE bytes (rawread.h). */
#define PROFILE_MAX_LENGTH (16 << 20)
/* Sizes and latencies of the level table and meta memory_latency. */
#define PROFILE_MAX_LEVEL_VALUE (INT64_C(1) << 40)
/* The SQLite steps all queries of one command may take: this many plus
 * PER_BYTE per byte of the file (see steps_budget in profile.c). */
#define PROFILE_STEPS_BASE (UINT64_C(1) << 32)
#define PROFILE_STEPS_PER_BYTE 2048

/* Opens a regular file read-only (immutable: no lock, no -wal or -shm
 * files left behind, even for a WAL-mode database) and checks that this
 * is a dcprof profile this version understands, whose tables are real
 * tables with the columns and keys of its schema version; reads the cache
 * levels.  Queries on it are limited in the length of what they read or
 * build (PROFILE_MAX_LENGTH) and in the steps they take.  On error err
 * holds the whole message ("cannot open profile 'F': ...") and nothing
 * needs releasing. */
int profile_open(struct profile *p, const char *path, char *err, size_t errlen);
/* profile_open for a command: prints the error itself; 0 or -1. */
int profile_open_cmd(struct profile *p, const char *path);
void profile_close(struct profile *p);
/* Fills out with meta value key; 1 if present, 0 if not, negative on error. */
int profile_meta(struct profile *p, const char *key, struct sbuf *out);
/* 1 if table (a version 2, 3 or 4 table) has a row, 0 if not or the profile
 * is older than the table, negative on error. */
int profile_has_rows(struct profile *p, const char *table);
/* 1 if cache_use has Evicted counts (version 5, recorded with --evictions),
 * 0 if not, negative on error. */
int profile_has_evicted(struct profile *p);
/* "cannot read profile 'F': <reason>" for a failed query: SQLite's, or
 * what its limits mean (too many steps, a string too long, a sum that
 * overflows). */
void profile_read_error(const struct profile *p, char *err, size_t errlen);
/* "cannot read profile 'F': integer overflow ...", for a sum in C. */
void profile_overflow_error(const struct profile *p, char *err, size_t errlen);

#endif
