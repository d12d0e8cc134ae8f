/* blockmap.h — small heap blocks by start address, 16 bytes a block.
 *
 * Notes:
 *  - A map for the many small blocks of a program that allocates a lot
 *    (a million 24-byte list nodes): the object map (objmap.h) spends
 *    ~110 bytes on each of them (a record, a page entry, the page's index),
 *    this one 16 bytes in a table at most 3/4 full (21-43 bytes a block).
 *    Blocks that do not fit (dc_blockmap_fits) go to the object map.
 *  - A block is its start address, its size, its bucket and its
 *    allocation sequence number, packed in two words: lo / 16 (44 bits:
 *    addresses below 2^48, 16-byte aligned as malloc's are) and the size
 *    (at most DC_BLOCKMAP_MAX bytes); the bucket (24 bits) and the
 *    sequence number (40 bits).  A size-0 block covers its first byte.
 *  - Open addressing keyed by lo, linear probing, removal by shifting the
 *    cluster back (no tombstones), so a free costs one probe sequence.
 *  - The table grows without ever holding an old and a new copy of itself
 *    (extendible hashing: Fagin et al., "Extendible hashing — a fast access
 *    method for dynamic files", ACM TODS 4(3), 1979): it is a
 *    directory of 2^depth pointers, indexed by the top bits of the key's
 *    hash, to segments of DC_BLOCKMAP_SEG slots, each an open-addressing
 *    table of its own at most 3/4 full.  A segment that would pass 3/4 is
 *    split in two by the next hash bit (the directory doubles, a pointer a
 *    slot, when that bit is beyond its depth), so growing costs one
 *    segment's worth of memory at a time instead of the doubled table
 *    next to the old one (chase's million blocks: 32 MiB, where doubling
 *    peaked at 48).  The first segment is made at the first block.
 *  - Lookup of the block containing an address probes the starts at and
 *    below it, 16 bytes apart, down to the largest block ever inserted:
 *    at most DC_BLOCKMAP_MAX / 16 + 1 probes, 2 for a program of 24-byte
 *    blocks.  The nearest start below an address is the only candidate,
 *    as blocks never overlap.
 *  - A block put at the start of another replaces it (the program freed
 *    the old one behind the wrappers' back); a block overlapping another
 *    without the same start is not checked for: lookups then find the
 *    nearer start.
 */
#ifndef DC_BLOCKMAP_H
#define DC_BLOCKMAP_H

#include "core/port.h"

#define DC_BLOCKMAP_MAX 1024u

struct dc_blockmap_ent {
	uint64_t lo, size, seq;
	uint32_t bucket;
};

#define DC_BLOCKMAP_SEG 2048u   /* slots a segment (a power of two) */

struct dc_blockmap_seg;

struct dc_blockmap {
	const struct dc_env *env;
	struct dc_blockmap_seg **dir; /* 2^depth segments, by the hash's top bits */
	unsigned depth;
	uint64_t cap, n;          /* slots in all segments, blocks */
	uint64_t max_ext;         /* the largest extent (size, at least 1) inserted */
};

int dc_blockmap_init(struct dc_blockmap *m, const struct dc_env *env);
void dc_blockmap_release(struct dc_blockmap *m);

/* True when the block can be kept here. */
bool dc_blockmap_fits(const struct dc_blockmap_ent *e);

/* Inserts e (which fits); 1 when it replaced a block with the same start
 * (copied to *old), 0 when new, DC_ENOMEM when the table could not grow
 * (the map keeps its blocks). */
int dc_blockmap_put(struct dc_blockmap *m, const struct dc_blockmap_ent *e,
		    struct dc_blockmap_ent *old);

/* Removes the block starting at lo into *out; false when there is none. */
bool dc_blockmap_take(struct dc_blockmap *m, uint64_t lo, struct dc_blockmap_ent *out);

/* The block containing addr into *out; false when none. */
bool dc_blockmap_lookup(const struct dc_blockmap *m, uint64_t addr, struct dc_blockmap_ent *out);

/* Calls fn for every block, in no particular order; fn must not change the
 * map. */
void dc_blockmap_each(const struct dc_blockmap *m,
		      void (*fn)(void *ud, const struct dc_blockmap_ent *e), void *ud);

#endif
