/* offtab.h — accesses by offset within their data object (--offsets).
 *
 * Notes:
 *  - A cell counts the accesses to one bucket whose first byte lies at one
 *    offset from the start of its object (a global's symbol, a heap or
 *    user block): reads, writes, misses per level (reads and writes
 *    together), the modelled latency, and the widest access seen there.
 *    An access is counted once, at the offset of its first byte, however
 *    many bytes (or fields) it covers.
 *  - Bounded memory, shared fairly among buckets.  A bucket's cells are
 *    `grain` bytes wide: the smallest power of two, at most
 *    DC_OFF_GRAIN_MAX, with which `share` cells cover its first object
 *    counted (or the window, if smaller); the grain is fixed then.  A cell
 *    counts the accesses whose first byte lies in [off, off + grain).  An
 *    offset at or beyond `window` bytes, a new cell of a bucket that has
 *    `share` cells, or a new cell once the table holds `max_cells`, counts
 *    in the bucket's *beyond* cell (offset DC_OFF_BEYOND) instead.  So a
 *    bucket of 4 KiB arrays zeroed byte by byte (as C++ value
 *    initialisation does) takes 1024 cells of 4 bytes, not 4096 cells,
 *    and cannot take the cells of buckets touched after it.  The table
 *    never holds more than max_cells cells plus one beyond cell per
 *    bucket (which keeps the bucket's grain and count of cells).
 *  - No folding by an element's size: that is the front end's, from the
 *    type DWARF gives (analysis/fields.h); the engine knows no types.  A
 *    grain of at most 8 bytes keeps fields of 8 bytes and more apart, and
 *    folding g-byte cells modulo an element size E, as the front end
 *    does, is exact when g divides E and no field is narrower than g.
 *  - Unused bytes (--cache-use, dc_offtab_unused): a run of bytes
 *    [a, b) of an object that a line held and no access touched while a
 *    residency at level k lasted is counted as a run boundary pair, not
 *    byte by byte: ubeg[k]++ in the cell of offset a and uend[k]++ in the
 *    cell of offset b (none when b is the window, where every run ends);
 *    a and b are first rounded to the grain, a up and b down (a run
 *    shorter than a grain may count nothing: never more than its bytes).
 *    The times byte o was loaded and left unused at level k is then the
 *    sum of ubeg[k] - uend[k] over the cells at offsets <= o (a sweep at
 *    dump time).  Two cell updates per run, whatever its length.  A run
 *    whose boundary cell cannot be made (the cap) and the part of a run
 *    past the window count as bytes in the beyond cell's ubeg[k].  The
 *    counts exist only in tables made with `unused` (cells of 136 bytes
 *    instead of 72).
 *  - Cells are records of a rectab (they never move); a direct-mapped
 *    cache of recent cells is tried first, as evtab does: a loop touches a
 *    handful of (bucket, offset) pairs over and over.
 */
#ifndef DC_OFFTAB_H
#define DC_OFFTAB_H

#include "core/hier.h"
#include "core/rectab.h"

#define DC_OFF_BEYOND 0xffffffffu
/* The largest window: offsets must stay below DC_OFF_BEYOND. */
#define DC_OFF_WINDOW_MAX (1ull << 31)
/* The widest grain, log2: 8 bytes. */
#define DC_OFF_GRAIN_SHIFT_MAX 3

struct dc_offcell {
	uint32_t bucket, off;               /* key; off DC_OFF_BEYOND: beyond */
	uint16_t size;                      /* widest access counted here */
	uint8_t mask;                       /* grain - 1 (beyond cell: 0) */
	uint8_t gshift;                     /* beyond cell: log2 grain + 1 */
	uint32_t ncells;                    /* beyond cell: the bucket's cells */
	uint64_t acc[2];                    /* reads, writes */
	uint64_t miss[DC_MAX_LEVELS];       /* misses at level k+1 */
	uint64_t lat;                       /* modelled cycles */
	/* Only in tables made with `unused` (see the Notes): unused-byte
	 * runs starting and ending here at level k+1; beyond cell: bytes */
	uint64_t ubeg[DC_MAX_LEVELS], uend[DC_MAX_LEVELS];
};
/* The size of a cell without the unused counts. */
#define DC_OFFCELL_PLAIN offsetof(struct dc_offcell, ubeg)

#define DC_OFFTAB_RECENT 1024

struct dc_offtab {
	struct dc_rectab r;
	uint64_t window, max_cells, share;
	uint64_t cells;                     /* in-window cells made */
	bool unused;                        /* cells have ubeg, uend */
	struct dc_offcell *recent[DC_OFFTAB_RECENT];
};

/* window: bytes from an object's start counted by offset (1 to
 * DC_OFF_WINDOW_MAX); max_cells: in-window cells at most (>= 1); share:
 * in-window cells of one bucket at most (>= 1); unused: the cells count
 * unused bytes too (dc_offtab_unused). */
int dc_offtab_init(struct dc_offtab *t, const struct dc_env *env, uint64_t window,
		   uint64_t max_cells, uint64_t share, bool unused);
void dc_offtab_release(struct dc_offtab *t);

struct dc_offcell *dc_offtab_cell_slow(struct dc_offtab *t, uint32_t bucket, uint64_t off,
					uint64_t osize);

/* The cell an access at `off` into an object of `osize` bytes of `bucket`
 * counts in (its beyond cell past the window, the bucket's share or the
 * cap); NULL when memory ran out.  osize matters only for the bucket's
 * first cell (its grain). */
static inline struct dc_offcell *dc_offtab_cell(struct dc_offtab *t, uint32_t bucket,
						uint64_t off, uint64_t osize)
{
	uint32_t o = off < t->window ? (uint32_t)off : DC_OFF_BEYOND;
	struct dc_offcell *c = t->recent[(o * 0x9e3779b1u + bucket * 0x85ebca6bu) >> 22];

	/* the cell's grain covers o (a beyond cell's mask is 0) */
	if (c && o - c->off <= c->mask && c->bucket == bucket)
		return c;
	return dc_offtab_cell_slow(t, bucket, off, osize);
}

static inline void dc_offcell_count(struct dc_offcell *c, uint16_t size, int is_write,
				    int served, const uint32_t *lat)
{
	c->acc[is_write]++;
	for (int k = 0; k < served - 1; k++)
		c->miss[k]++;
	c->lat += lat[served];
	if (size > c->size)
		c->size = size;
}

/* Bytes [a, b) (a < b, offsets from the start of an object of osize
 * bytes) of an object of `bucket` left level k + 1 unused once.  Needs a
 * table made with `unused`.  Memory running out drops the run. */
void dc_offtab_unused(struct dc_offtab *t, uint32_t bucket, uint64_t a, uint64_t b, int k,
		      uint64_t osize);

/* Zeroes every count, keeping the cells (a forked child starts anew). */
void dc_offtab_zero(struct dc_offtab *t);

/* Calls fn on every cell, in no particular order; stops at non-zero. */
int dc_offtab_each(const struct dc_offtab *t, int (*fn)(void *ud, const struct dc_offcell *c),
		   void *ud);

#endif
