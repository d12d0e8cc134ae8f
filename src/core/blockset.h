/* blockset.h — a set of 64-bit keys that empties in constant time.
 *
 * Notes:
 *  - Counts distinct keys (memory blocks, or function x block pairs) over a
 *    window of accesses: dc_blockset_add says whether the key is new since
 *    the last dc_blockset_clear.
 *  - Each slot carries the generation it was filled in; clearing bumps the
 *    generation, so slots of older generations read as empty and are reused.
 *    Clearing costs nothing however many keys the window held, which the
 *    engine's full-trace reference mode (seeds/004 §7.1) relies on: it
 *    clears once per trace period.
 *  - dc_blockset_remove forgets one key (the native engine's first-touch
 *    pages of a block that ends), shifting its cluster back.
 *  - Open addressing, linear probing, at most half full (live keys of the
 *    current generation); it doubles when it would pass that.  The
 *    generation is 32 bits; at wrap-around every slot is wiped once.
 */
#ifndef DC_BLOCKSET_H
#define DC_BLOCKSET_H

#include "core/port.h"

struct dc_blockset_slot;

struct dc_blockset {
	const struct dc_env *env;
	struct dc_blockset_slot *slots;
	uint64_t cap, n;          /* slots (a power of two), keys of this generation */
	uint32_t gen;
};

int dc_blockset_init(struct dc_blockset *s, const struct dc_env *env);
void dc_blockset_release(struct dc_blockset *s);
void dc_blockset_clear(struct dc_blockset *s);
/* 1 if key is new since the last clear, 0 if already there, DC_ENOMEM if
 * the set had to grow and could not (the key is then not added). */
int dc_blockset_add(struct dc_blockset *s, uint64_t key);
/* Removes key; false when it was not there. */
bool dc_blockset_remove(struct dc_blockset *s, uint64_t key);

#endif
