/* fields.h — one bucket's accesses by offset within its objects, and by
 * the fields of its element type (report --by offset|field).
 *
 * Notes (docs/cli.md, "Offsets and fields"):
 *  - Rows come from offset_cost (recorded with --offsets=yes): the
 *    accesses whose first byte is at each offset from the start of their
 *    object (a global's symbol, a heap or user block).
 *  - When DWARF names the bucket's element type (dwtype.h), offsets fold
 *    modulo its size (an array of structs shows one element) and each
 *    offset belongs to the field holding its byte; offsets no field holds
 *    are "(padding)".  Without a type, offsets stay as recorded and the
 *    field view is not available.
 *  - Shares (AccPct, MissPct) are of the accesses counted by offset; those
 *    beyond the window (or the cell cap) are one row, "(beyond)", without
 *    shares, and are summed separately.
 *  - Metrics per row: Dr, Dw, misses per level (reads and writes:
 *    D1m, D2m, ..., DLm), Lat, MissLat = Lat - (Dr + Dw - D1m) * L1
 *    latency, AccPct = 100 (Dr + Dw) / all, MissPct = 100 D1m / all D1m;
 *    the field view adds `note`: "never read" (Dr = 0) or "never accessed".
 *  - The engine counts offsets in cells of 1..8 bytes (its grain) at the
 *    cell's first byte; a cell holding bytes of several fields cannot say
 *    which one an access was to, so the field view shows such fields'
 *    accesses as one row, "a|b", and the fields' own rows say "see a|b"
 *    instead of claiming they were never accessed; the offset view names
 *    such a cell "a|b" too.
 */
#ifndef DC_ANALYSIS_FIELDS_H
#define DC_ANALYSIS_FIELDS_H

#include <stdbool.h>

#include "analysis/table.h"
#include "base/sbuf.h"
#include "store/profile.h"

enum fields_by { FIELDS_OFFSET, FIELDS_FIELD };

struct fields_info {
	struct sbuf type;          /* the element type's name, empty if unknown */
	int64_t elem_size;         /* 0 when unknown */
	bool folded;               /* offsets folded by elem_size (not for
	                            * --by offset of an array of scalars) */
	struct sbuf why;           /* why the type is unknown */
	struct sbuf summary;       /* "struct node: next 48.00 % of L1 misses, ..." */
	int64_t window;            /* meta offset_window */
	int64_t counted, beyond;   /* accesses counted by offset, and beyond */
	int64_t cell_bytes;        /* the width of the engine's cells: 1..8 */
	int64_t cell_share;        /* meta offset_bucket_cells, 0 unknown */
	int64_t cell_ext;          /* the bytes they cover (object or window) */
	size_t shared;             /* --by field: rows of fields sharing cells */
};

void fields_info_init(struct fields_info *fi);
void fields_info_release(struct fields_info *fi);

/* Fills t (initialised by the caller) with bucket `object`'s rows, in
 * offset order.  On error err holds the whole message. */
int fields_build(struct profile *p, const char *object, enum fields_by by, struct table *t,
		 struct fields_info *fi, char *err, size_t errlen);

#endif
