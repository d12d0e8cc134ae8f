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

struct dc_blockmap {
	const struct dc_env *env;
	uint64_t *slots;          /* 2 words a slot; word 0 == 0: empty */
	uint64_t cap, n;          /* slots (a power of two), blocks */
	uint64_t max_ext;         /* the largest extent (size, at least 1) inserted */
};

int dc_blockmap_init(struct dc_blockmap *m, const struct dc_env *env);
void dc_blockmap_release(struct dc_blockmap *m);

/* True when the block can be kept here. */
bool dc_blockmap_fits(const struct dc_blockmap_ent *e);

/* Inserts e (which fits); 1 when it replaced a block with the same start
 * (copied to *old), 0 when new, DC_ENOMEM when the table could not grow
 * (the map is unchanged). */
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
