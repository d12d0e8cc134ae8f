/* rectab.h — a hash table of fixed-size records that never move.
 *
 * Notes:
 *  - Each record starts with its key: key_size bytes (a multiple of 4, at
 *    most 16) of uint32_t words, compared word by word.  The rest of the record is the caller's,
 *    zeroed when the record is created.
 *  - Records are carved from slabs and never move or go away before
 *    dc_rectab_release, so callers may keep pointers to them (engines cache
 *    them per instruction).  Open addressing on pointers, at most half full,
 *    from 256 slots.
 *  - The cost table (costtab.h) and the eviction table (evtab.h) are thin
 *    typed layers over this.
 */
#ifndef DC_RECTAB_H
#define DC_RECTAB_H

#include "core/port.h"

struct dc_rectab {
	const struct dc_env *env;
	const char *label;
	size_t rec_size, key_size;
	void **slots;
	uint64_t cap, n;
	char *slab;             /* current slab and how many records it gave */
	uint64_t slab_used;
	void **slabs;
	uint64_t nslabs, slabs_cap;
};

int dc_rectab_init(struct dc_rectab *t, const struct dc_env *env, size_t rec_size,
		   size_t key_size, const char *label);
void dc_rectab_release(struct dc_rectab *t);

/* The record with this key, created (zeroed, key copied) if new; NULL when
 * memory ran out. */
void *dc_rectab_get(struct dc_rectab *t, const void *key);

/* The record with this key, or NULL when there is none (nothing is
 * created). */
void *dc_rectab_find(const struct dc_rectab *t, const void *key);

/* Calls fn on every record, in no particular order; stops at non-zero. */
int dc_rectab_each(const struct dc_rectab *t, int (*fn)(void *ud, void *rec), void *ud);

#endif
