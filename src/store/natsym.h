/* natsym.h — the native engine's unnamed records named at finalize
 * (docs/raw-dump.md, "Native engine records").
 *
 * Notes:
 *  - The native runtime cannot symbolise in-process cheaply: it writes
 *    `map` records, `loc` records with the address only and heap buckets
 *    named `-` with their allocation path in an `hpath` record.  The
 *    reader (rawread.c) collects them here; natsym_apply then fills in the
 *    profile being written, exactly as the simulator engine would have
 *    written those records for the same instructions (dwarf/dwsym.h).
 *  - A location is named as engine/valgrind/dc_names.c names one: the
 *    object, the innermost inlined function with the function it was
 *    inlined into (except at a symbol's first instruction, which is the
 *    symbol's own), the source file with its directory and the line.
 *  - A bucket is named by core/heapname.h from its path: every return
 *    address is looked up at the address before it (the call
 *    instruction), inlined frames expanded; meta heap_names (`fn:N`,
 *    `site`), alloc_depth (N, taking precedence) and alloc_fns (the
 *    --alloc-fn names, comma-separated outside brackets) set the options.
 *  - Buckets whose names come out equal become one, as the simulator's
 *    share one bucket from the start: the lowest ID keeps the name, every
 *    row of the others moves to it (counts add up, means weighted by
 *    counts, widest access the widest), the others are deleted.  The
 *    merged bucket's peak of live blocks and bytes is recomputed from its
 *    block rows when they are all there (no block dropped); otherwise it
 *    is the largest of the parts' peaks, a lower bound.
 */
#ifndef DC_STORE_NATSYM_H
#define DC_STORE_NATSYM_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The most return addresses an hpath record may carry. */
#define NATSYM_MAX_PATH 64

struct natsym_path {
	int64_t bucket;
	uint64_t line;              /* where the record was, for errors */
	size_t first, n;            /* its return addresses: ips[first .. first + n) */
};

struct natsym {
	struct dwsym *dw;           /* the map records, NULL until the first */
	struct natsym_path *paths;
	size_t npaths, path_cap;
	uint64_t *ips;              /* the paths' return addresses */
	size_t nips, ip_cap;
	int64_t *locs;              /* IDs and addresses of loc records to name, in pairs */
	size_t nlocs, loc_cap;
	int64_t *unnamed;           /* IDs and lines of buckets named "-", in pairs */
	size_t nunnamed, unnamed_cap;
};

void natsym_init(struct natsym *ns);
void natsym_release(struct natsym *ns);
void natsym_add_map(struct natsym *ns, uint64_t start, uint64_t end, uint64_t off,
		    const char *path);
/* A copy of the path is kept. */
void natsym_add_path(struct natsym *ns, int64_t bucket, uint64_t line, const uint64_t *ips,
		     size_t n);
void natsym_add_loc(struct natsym *ns, int64_t id, int64_t ip);
void natsym_add_unnamed(struct natsym *ns, int64_t bucket, uint64_t line);

/* Checks that every hpath names a bucket named "-" and every such bucket
 * has exactly one; on a violation returns -1 with the message in err and
 * the line it is about in *line. */
int natsym_check(struct natsym *ns, char *err, size_t errlen, uint64_t *line);

/* Names the locations and buckets collected, in the profile db (inside
 * its write transaction, meta already written); *merged gets the number
 * of buckets merged away.  Returns 0 or -1 when SQLite failed. */
int natsym_apply(struct natsym *ns, sqlite3 *db, uint64_t *merged);

#endif
