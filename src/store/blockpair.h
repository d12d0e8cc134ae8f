/* blockpair.h — blocks recorded live, by address, until their bfree.
 *
 * Notes:
 *  - The native engine writes a heap block's `block` record when it
 *    allocates it (FREE 0) and a `bfree ADDR FREE` record when that block
 *    ends (docs/raw-dump.md); finalize keeps the profile row of each block
 *    recorded live here, keyed by its address, and sets its free_seq at
 *    the bfree.  A program has at most one live block at an address, so
 *    a bfree names one row; a `block` record at an address already held
 *    takes its place (the older row stays live at exit).
 *  - Open addressing, linear probing, removal by shifting the cluster
 *    back; at most half full, doubling.  Address 0 is kept apart (no
 *    heap block starts there, but a dump may say so).
 */
#ifndef DC_STORE_BLOCKPAIR_H
#define DC_STORE_BLOCKPAIR_H

#include <stdbool.h>
#include <stdint.h>

struct blockpair {
	uint64_t *addr;          /* 0: empty */
	int64_t *row;
	uint64_t cap, n;
	bool has_zero;
	int64_t zero_row;
};

void blockpair_init(struct blockpair *p);
void blockpair_release(struct blockpair *p);
/* Keeps row as the live block at addr (replacing any). */
void blockpair_put(struct blockpair *p, uint64_t addr, int64_t row);
/* Removes the live block at addr into *row; false when there is none. */
bool blockpair_take(struct blockpair *p, uint64_t addr, int64_t *row);

#endif
