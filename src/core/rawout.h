/* rawout.h — the raw dump writer (engine → dcprof finalize).
 *
 * The format is specified in docs/raw-dump.md; this module is its only
 * writer.  Output is buffered; the first failed write is remembered and
 * reported by dc_rawout_finish, so record writers need no error checks.
 */
#ifndef DC_RAWOUT_H
#define DC_RAWOUT_H

#include "core/hier.h"
#include "core/costtab.h"
#include "core/evtab.h"
#include "core/callstack.h"
#include "core/trace.h"
#include "core/offtab.h"

#define DC_RAW_VERSION 10

struct dc_rawout {
	struct dc_sink sink;
	int err;
	size_t n;
	char buf[1 << 16];
};

void dc_rawout_init(struct dc_rawout *o, struct dc_sink sink);
/* Flushes; returns 0 or the first write error. */
int dc_rawout_finish(struct dc_rawout *o);

void dc_raw_header(struct dc_rawout *o);
void dc_raw_meta(struct dc_rawout *o, const char *key, const char *value);
void dc_raw_meta_u64(struct dc_rawout *o, const char *key, uint64_t value);
void dc_raw_hier(struct dc_rawout *o, const struct dc_hier *h);
void dc_raw_bucket(struct dc_rawout *o, uint32_t id, const char *kind, const char *name);
void dc_raw_bstat(struct dc_rawout *o, uint32_t id, uint64_t blocks, uint64_t max_live,
		  uint64_t max_live_bytes, uint64_t total_bytes, uint64_t min_size,
		  uint64_t max_size);
/* Where inlined code sits in the function it was compiled into: that
 * function (the symbol's) and the file and line of its outermost inlined
 * call (version 10). */
struct dc_raw_outer {
	const char *fn, *file;
	uint32_t line;
};
/* inl: the function fn was inlined into at ip, NULL or empty when none
 * (version 6); outer: NULL when not inlined. */
void dc_raw_loc(struct dc_rawout *o, uint32_t id, uint64_t ip, const char *object,
		const char *fn, const char *inl, const char *file, uint32_t line,
		const struct dc_raw_outer *outer);
void dc_raw_cost(struct dc_rawout *o, const struct dc_cost *c, int nlevels);
/* A sampled estimate: the fields of dc_raw_cost under record type scost. */
void dc_raw_scost(struct dc_rawout *o, const struct dc_cost *c, int nlevels);
/* One call arc: call KIND SITE CALLEE THREAD COUNT, then its inclusive
 * counts as in cost (DR DW M1R M1W ... LAT); SITE and CALLEE "-" for roots.
 * Then, per level with back-dated costs, calluse KIND SITE CALLEE THREAD
 * LEVEL SPLOSS ACCOST EVICTED (EVICTED "-" unless `evictions`). */
void dc_raw_call(struct dc_rawout *o, const struct dc_arc *a, int nlevels, bool evictions);
/* The cache-use charges of c: one use record per level with any, use
 * LEVEL BUCKET LOC THREAD SPLOSS ACCOST EVICTED (EVICTED "-" unless
 * `evictions`: Evicted was not counted). */
void dc_raw_use(struct dc_rawout *o, const struct dc_cost *c, int nlevels, bool evictions);
void dc_raw_evict(struct dc_rawout *o, const struct dc_evict *e, bool sampled);
void dc_raw_fill(struct dc_rawout *o, uint32_t level, uint64_t fills, uint64_t empty,
		 uint64_t evictions);
void dc_raw_resid(struct dc_rawout *o, uint32_t bucket, uint32_t level, uint64_t millilines);
/* kind is "stack", "time" or "sampled"; sum is the sum of the distances
 * counted (2^63 - 1: unknown, it overflowed). */
void dc_raw_rhist(struct dc_rawout *o, const char *kind, uint32_t bucket, uint32_t bin,
		  uint64_t count, uint64_t sum);
void dc_raw_rfirst(struct dc_rawout *o, uint32_t bucket, uint64_t count);
/* Sampled reuses by code-location pair: estimated count and time sum. */
void dc_raw_srpair(struct dc_rawout *o, uint32_t use_loc, uint32_t reuse_loc, uint64_t count,
		   uint64_t sum_time);
/* Sampled uses of BUCKET whose watchpoint was still armed at exit. */
void dc_raw_runseen(struct dc_rawout *o, uint32_t bucket, uint64_t count);
void dc_raw_rpair(struct dc_rawout *o, uint32_t use_loc, uint32_t reuse_loc, uint64_t count,
		  uint64_t sum_stack, uint64_t sum_time);
void dc_raw_block(struct dc_rawout *o, uint32_t bucket, uint64_t addr, uint64_t size,
		  uint64_t alloc_seq, uint64_t free_seq);
/* The end of a block written at its allocation with free_seq 0 (version
 * 9): bfree ADDR FREE. */
void dc_raw_bfree(struct dc_rawout *o, uint64_t addr, uint64_t free_seq);
/* Sampled traces (version 4): a window's start, one recorded access (of
 * the last window started, at the next time), a window's period, the
 * full-trace footprints of a window's period and of one function. */
void dc_raw_twin(struct dc_rawout *o, uint64_t id, uint64_t start);
void dc_raw_trec(struct dc_rawout *o, const struct dc_trace_rec *r);
void dc_raw_tper(struct dc_rawout *o, uint64_t id, uint64_t period);
void dc_raw_tref(struct dc_rawout *o, uint64_t win, uint64_t f, uint64_t fstr, uint64_t firr);
void dc_raw_tfn(struct dc_rawout *o, const char *fn, uint64_t a, uint64_t aconst, uint64_t f,
		uint64_t fstr, uint64_t firr);
/* The sampled-trace file (--trace-out, docs/raw-dump.md): its header and
 * one line per recorded access. */
void dc_trace_file_header(struct dc_rawout *o, uint64_t w, uint64_t period, uint64_t block);
void dc_trace_file_rec(struct dc_rawout *o, const struct dc_trace_rec *r);
/* --offsets (version 7): one cell, off BUCKET OFFSET SIZE DR DW M1 ... MN
 * LAT (OFFSET "-" for the bucket's beyond cell), and the type a program
 * gave a user bucket, btype BUCKET TYPE. */
void dc_raw_off(struct dc_rawout *o, const struct dc_offcell *c, int nlevels);
/* --offsets with --cache-use (version 8): every byte at offsets [OFFSET,
 * END) of BUCKET's objects left level k unused u[k] times; OFFSET
 * DC_OFF_BEYOND (written "- -"): u[k] bytes beyond the window or cap. */
void dc_raw_offu(struct dc_rawout *o, uint32_t bucket, uint64_t off, uint64_t end,
		 const uint64_t *u, int nlevels);
void dc_raw_btype(struct dc_rawout *o, uint32_t bucket, const char *type);
/* The native engine (version 8): an executable mapping of an ELF object
 * (map START END OFFSET PATH); the allocation call path of a heap bucket
 * whose name finalize makes (hpath BUCKET IP1 ... IPn, innermost first);
 * pages first touched by code location LOC on THREAD in BUCKET (ftouch
 * BUCKET LOC THREAD PAGES); IP-only samples (ipsamp LOC THREAD COUNT). */
void dc_raw_map(struct dc_rawout *o, uint64_t start, uint64_t end, uint64_t offset,
		const char *path);
void dc_raw_hpath(struct dc_rawout *o, uint32_t bucket, const uint64_t *ips, unsigned n);
void dc_raw_ftouch(struct dc_rawout *o, uint32_t bucket, uint32_t loc, uint32_t thread,
		   uint64_t pages);
void dc_raw_ipsamp(struct dc_rawout *o, uint32_t loc, uint32_t thread, uint64_t count);
void dc_raw_end(struct dc_rawout *o, bool complete);

#endif
