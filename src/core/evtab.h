/* evtab.h — eviction counts: who evicts whom, where, at which level.
 *
 * Notes (seeds/002 chapter 5):
 *  - A key is (level, evictor bucket, victim bucket, code location of the
 *    evicting access); the value is a count (exact) or an estimate (sampled
 *    counts add the sampling period).
 *  - Records are created on first use and never move (rectab.h).  A small
 *    direct-mapped cache of recent records is tried before the hash table:
 *    a loop evicting other arrays' lines repeats a handful of keys many
 *    times over, and hashing every eviction dominated eviction tracking.
 */
#ifndef DC_EVTAB_H
#define DC_EVTAB_H

#include "core/rectab.h"

struct dc_evict {
	uint32_t level, evictor, victim, loc;
	uint64_t count;
};

#define DC_EVTAB_RECENT 64

struct dc_evtab {
	struct dc_rectab r;                        /* key: level, evictor, victim, loc */
	struct dc_evict *recent[DC_EVTAB_RECENT];  /* direct-mapped cache of records */
};

int dc_evtab_init(struct dc_evtab *t, const struct dc_env *env);
void dc_evtab_release(struct dc_evtab *t);

/* The key's place among the recent records. */
static inline struct dc_evict **dc_evtab_recent(struct dc_evtab *t, uint32_t level,
						uint32_t evictor, uint32_t victim, uint32_t loc)
{
	return &t->recent[(level + 3 * evictor + 7 * victim + 13 * loc) % DC_EVTAB_RECENT];
}

/* dc_evtab_add past the recent records: the hash table (out of line). */
int dc_evtab_add_slow(struct dc_evtab *t, uint32_t level, uint32_t evictor, uint32_t victim,
		      uint32_t loc, uint64_t n);

/* Adds n to the key's count; DC_ENOMEM when the record cannot be made.
 * Inline up to the recent record's check (one call per eviction with
 * --evictions cost 4.5 % of bench_transpose's run with every feature). */
static inline int dc_evtab_add(struct dc_evtab *t, uint32_t level, uint32_t evictor,
			       uint32_t victim, uint32_t loc, uint64_t n)
{
	struct dc_evict *e = *dc_evtab_recent(t, level, evictor, victim, loc);

	if (!e || e->level != level || e->evictor != evictor || e->victim != victim ||
	    e->loc != loc)
		return dc_evtab_add_slow(t, level, evictor, victim, loc, n);
	e->count += n;
	return 0;
}

/* Sets every count to zero, keeping the records (a forked child starts
 * anew). */
void dc_evtab_zero(struct dc_evtab *t);

/* Calls fn on every record; stops at non-zero. */
int dc_evtab_each(const struct dc_evtab *t, int (*fn)(void *ud, const struct dc_evict *e),
		  void *ud);

#endif
