/* rawread.h — read a raw dump (docs/raw-dump.md, versions 1 to 10) into a
 * profile.
 *
 * Notes:
 *  - Strict: a malformed line, an unknown record or bucket kind, a number
 *    that does not fit a signed 64-bit integer, a duplicate ID, key or cost
 *    triple, or a reference to a bucket or location not declared yet is an
 *    error naming the line.  The version 2 records (scost, evict, sevict,
 *    fill, resid) are unknown record types in a version 1 dump, the
 *    version 3 records (rhist, rfirst, rpair) in versions 1 and 2, the
 *    version 4 records (twin, trec, tper, tref, tfn) in versions 1 to 3,
 *    the version 7 records (off, btype) in versions 1 to 6, the version 8
 *    records (map, hpath, ftouch, ipsamp, offu) in versions 1 to 7,
 *    the version 9 record (bfree) in versions 1 to 8.  A loc record has
 *    the fields of its version: INLINED from 6, OUTFN OUTFILE OUTLINE
 *    from 10.
 *  - Version 9: a block record with FREE 0 is a block live at that point
 *    (blockpair.h); a later bfree at its address sets its free_seq.  A
 *    bfree where no block record is live is an error.
 *  - Version 8: a loc record whose strings are all empty and line 0 is
 *    the native engine's address-only location, and a heap bucket named
 *    "-" its unnamed bucket; with the map and hpath records they are
 *    named once the dump is read (natsym.h).  Every hpath names such a
 *    bucket, and each of those has exactly one hpath.
 *    twin IDs come in order from 0; a trec belongs to the last twin; tper
 *    and tref name a declared window, tper in order.  A trec's location
 *    and bucket may be declared later (the engine streams accesses); in a
 *    dump cut short, accesses whose references never came are dropped and
 *    an unfinished window's period is its accesses.
 *  - rhist rows get their bin bounds from meta reuse_bins once the whole
 *    dump is read (meta may come after them); rhist without reuse_bins,
 *    or a bin whose lower bound does not fit 64 bits, is an error.
 *  - Cut short: a last line without its '\n' is a partial write and is
 *    dropped; like a dump without an `end` record, the profile is then
 *    marked incomplete by the caller (finalize.c).
 *  - Only a regular file is read (a FIFO or a device is an error, before
 *    any read that could block or never end), and no line may be longer
 *    than RAW_MAX_LINE.
 *  - IDs of buckets and locations are dense: every ID below the largest
 *    must be declared, which also bounds an ID by the line number.
 */
#ifndef DC_STORE_RAWREAD_H
#define DC_STORE_RAWREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "store/profile.h"

/* The longest line a raw dump may have, its '\n' included
 * (docs/raw-dump.md); a longer one is an error. */
#define RAW_MAX_LINE (16 << 20)

/* The newest raw-dump version this reader reads. */
#define RAW_VERSION 10

struct raw_summary {
	int nlevels;
	int64_t memory_latency;
	uint64_t buckets;
	uint64_t accessed;       /* buckets with exact costs: report's rows */
	uint64_t dr, dw, d1_misses, ll_misses;
	bool native;             /* meta engine is native: no exact counts */
	uint64_t pages;          /* ftouch pages, summed */
	uint64_t ip_events;      /* ipsamp counts, summed */
	int64_t samples;         /* meta samples, -1 when absent */
	int end;                 /* value of the end record, -1 if there is none */
	bool has_exit_code;      /* meta exit_code was present */
	int64_t exit_code;
	int64_t checkpoint_ms;   /* meta checkpoint_ms (a checkpoint), else -1 */
};

/* Parses path and writes its records through w.  On error returns
 * RAWREAD_EREAD with the whole message in err ("cannot read raw dump 'F':
 * line N: ..."), or RAWREAD_EWRITE when writing through w failed, with the
 * writer's reason alone in err. */
enum { RAWREAD_EREAD = -1, RAWREAD_EWRITE = -2 };
int rawread(const char *path, struct profile_writer *w, struct raw_summary *s,
	    char *err, size_t errlen);

#endif
