/* costtab.h — exact cost counters per (code location, bucket, thread).
 *
 * Notes:
 *  - One record per key, created on first use and never moved (rectab.h),
 *    so engines keep pointers to records in per-instruction caches and the
 *    per-access path is a few increments (dc_cost_count).
 *  - An access served by level s (1..N+1, see cache.h) missed levels
 *    1..s-1: each of those gets one read or write miss.  Its latency is the
 *    latency of the serving level (lat[s]; lat[N+1] is memory's).
 *  - sploss/accost/evicted are not counted here: the cache-use model
 *    charges them when a line's residency ends (cacheuse.h).
 *  - A modify (read and write of the same bytes by one instruction) is
 *    counted by the engine as a read, as Cachegrind does.
 */
#ifndef DC_COSTTAB_H
#define DC_COSTTAB_H

#include "core/hier.h"
#include "core/rectab.h"

struct dc_cost {
	uint32_t loc, bucket, tid;
	uint32_t pad;
	uint64_t acc[2];                    /* [0] reads (Dr), [1] writes (Dw) */
	uint64_t miss[DC_MAX_LEVELS][2];    /* D<k>mr, D<k>mw */
	uint64_t lat;                       /* modelled cycles */
	/* --cache-use (cacheuse.h): charged to the access that loaded a line */
	uint64_t sploss[DC_MAX_LEVELS];     /* SpLoss<k>: bytes never touched */
	uint64_t accost[DC_MAX_LEVELS];     /* AcCost<k>: sum of 1000 / accesses */
	uint64_t evicted[DC_MAX_LEVELS];    /* Evicted<k>: of them, ended by eviction */
};

struct dc_costtab {
	struct dc_rectab r;   /* key: loc, bucket, tid */
};

int dc_costtab_init(struct dc_costtab *t, const struct dc_env *env);
void dc_costtab_release(struct dc_costtab *t);

/* Finds or creates the record; NULL when memory ran out. */
struct dc_cost *dc_costtab_get(struct dc_costtab *t, uint32_t loc, uint32_t bucket,
			       uint32_t tid);

/* Calls fn on every record, in no particular order; stops at non-zero. */
int dc_costtab_each(const struct dc_costtab *t, int (*fn)(void *ud, const struct dc_cost *c),
		    void *ud);

/* Zeroes every counter, keeping the records (a forked child starts anew). */
void dc_costtab_zero(struct dc_costtab *t);

static inline void dc_cost_count(struct dc_cost *c, int is_write, int served,
				 const uint32_t *lat)
{
	c->acc[is_write]++;
	for (int k = 0; k < served - 1; k++)
		c->miss[k][is_write]++;
	c->lat += lat[served];
}

/* The same for one sample standing for `weight` events. */
static inline void dc_cost_count_n(struct dc_cost *c, int is_write, int served,
				   const uint32_t *lat, uint64_t weight)
{
	c->acc[is_write] += weight;
	for (int k = 0; k < served - 1; k++)
		c->miss[k][is_write] += weight;
	c->lat += weight * lat[served];
}

#endif
