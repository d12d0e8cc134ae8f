/* blockmap.h — small heap blocks by start address, 8 bytes a block.
 *
 * Notes:
 *  - A map for the many small blocks of a program that allocates a lot
 *    (a million 24-byte list nodes): the object map (objmap.h) spends
 *    ~110 bytes on each of them (a record, a page entry, the page's index),
 *    this one 8 bytes in segments 3/8 to 3/4 full (11-21 bytes a block;
 *    chase's 2^20 blocks: 16 MiB, where 16-byte slots took 32).  Blocks
 *    that do not fit (dc_blockmap_fits, or a region more than the map
 *    holds) go to the object map.
 *  - Regions: the address space in 64 GiB pieces (addr >> 36).  The map
 *    keeps at most DC_BLOCKMAP_REGIONS of them, each a table of its own
 *    keyed by (lo mod 2^36) / 16, 32 bits: a program's small blocks live
 *    in the brk heap and a few malloc arenas (64 MiB each), a handful of
 *    regions.  A region left without blocks is taken for a new one when
 *    the array is full.  A block crossing a region boundary does not fit.
 *  - A slot is one word: the key (32 bits), the size plus one (11 bits:
 *    sizes 0..DC_BLOCKMAP_MAX; 0 marks an empty slot), the engine's
 *    "recorded" bit and the bucket (20 bits).  No allocation sequence
 *    number: the native engine writes a block's record when it allocates
 *    it and marks it recorded (docs/raw-dump.md, `block` and `bfree`).
 *    A size-0 block covers its first byte.
 *  - Open addressing keyed by the key, linear probing, removal by shifting
 *    the cluster back (no tombstones), so a free costs one probe sequence.
 *  - A region's table grows without ever holding an old and a new copy
 *    of itself (extendible hashing: Fagin et al., "Extendible hashing — a
 *    fast access method for dynamic files", ACM TODS 4(3), 1979): it is a
 *    directory of 2^depth pointers, indexed by the top bits of the key's
 *    hash, to segments of DC_BLOCKMAP_SEG slots, each an open-addressing
 *    table of its own at most 3/4 full.  A segment that would pass 3/4 is
 *    split in two by the next hash bit (the directory doubles, a pointer a
 *    slot, when that bit is beyond its depth), so growing costs one
 *    segment's worth of memory at a time.  The first segment is made at
 *    the region's first block.  As the hash spreads blocks evenly, the
 *    segments fill together and split at about the same count: the load
 *    is a sawtooth between 3/8 and 3/4 over the number of blocks, not a
 *    constant.  A limit of 7/8 was measured (bench/blockmap_replay.c,
 *    docs/performance.md "Native engine"): puts in address order take
 *    1.6-1.9x as long (longer clusters in the runs of hash_of) for 0-22 %
 *    less memory depending on where the count falls on the sawtooth (4 %
 *    at chase's 2^20 blocks, whose segments have just split).
 *  - Lookup of the block containing an address probes the starts at and
 *    below it in its region, 16 bytes apart, down to the largest block
 *    ever inserted: at most DC_BLOCKMAP_MAX / 16 + 1 probes, 2 for a
 *    program of 24-byte blocks.  The nearest start below an address is the
 *    only candidate, as blocks never overlap.
 *  - A block put at the start of another replaces it (the program freed
 *    the old one behind the wrappers' back); a block overlapping another
 *    without the same start is not checked for: lookups then find the
 *    nearer start.
 */
#ifndef DC_BLOCKMAP_H
#define DC_BLOCKMAP_H

#include "core/port.h"

#define DC_BLOCKMAP_MAX 1024u
#define DC_BLOCKMAP_BUCKETS (1u << 20)   /* buckets below this fit */
#define DC_BLOCKMAP_REGIONS 16u
#define DC_BLOCKMAP_REGION_BITS 36       /* 64 GiB a region */

struct dc_blockmap_ent {
	uint64_t lo, size;
	uint32_t bucket;
	bool recorded;          /* the engine's mark, kept with the block */
};

#define DC_BLOCKMAP_SEG 4096u   /* slots a segment (a power of two) */

struct dc_blockmap_seg;

struct dc_blockmap_region {
	uint64_t base;                /* addr >> DC_BLOCKMAP_REGION_BITS */
	struct dc_blockmap_seg **dir; /* 2^depth segments, by the hash's top bits */
	unsigned depth;
	uint64_t n;                   /* blocks */
};

struct dc_blockmap {
	const struct dc_env *env;
	struct dc_blockmap_region reg[DC_BLOCKMAP_REGIONS];
	unsigned nreg;
	unsigned last;            /* the region of the last put or take */
	uint64_t cap, n;          /* slots in all segments, blocks */
	uint64_t max_ext;         /* the largest extent (size, at least 1) inserted */
};

int dc_blockmap_init(struct dc_blockmap *m, const struct dc_env *env);
void dc_blockmap_release(struct dc_blockmap *m);

/* True when the block can be kept here (its region permitting). */
bool dc_blockmap_fits(const struct dc_blockmap_ent *e);

/* Inserts e (which fits); 1 when it replaced a block with the same start
 * (copied to *old), 0 when new, DC_ENOMEM when the table could not grow
 * (the map keeps its blocks), DC_ERANGE when e's region would be one more
 * than the map holds. */
int dc_blockmap_put(struct dc_blockmap *m, const struct dc_blockmap_ent *e,
		    struct dc_blockmap_ent *old);

/* Removes the block starting at lo into *out; false when there is none. */
bool dc_blockmap_take(struct dc_blockmap *m, uint64_t lo, struct dc_blockmap_ent *out);

/* The block containing addr into *out; false when none. */
bool dc_blockmap_lookup(const struct dc_blockmap *m, uint64_t addr, struct dc_blockmap_ent *out);

/* Clears every block's recorded bit. */
void dc_blockmap_unmark_all(struct dc_blockmap *m);

#endif
