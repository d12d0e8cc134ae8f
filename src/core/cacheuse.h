/* cacheuse.h — cache-use metrics: spatial loss and accesses per residency
 * (seeds/001 §1, Callgrind's --cacheuse).
 *
 * Notes:
 *  - Runs the cache model of cache.h on the same tag arrays, with the same
 *    results (hit, miss, nfill, victim[]).  The top 8 bits of each tag word
 *    hold a slot number that moves with the tag and names the line's use
 *    record in its set (so at most 256 ways); the low 56 bits are the
 *    block, DC_USE_EMPTY for an empty way.  A use record holds the
 *    touched-bit mask, the access count since the line was loaded and the
 *    loader (the cost record of the access that loaded it; NULL: not
 *    charged).  With the slot in the tag word a set search reads one
 *    array, as the plain model does.
 *  - Mask granularity: a level with line size L has min(L, B) mask bits of
 *    L / min(L, B) bytes each, B = 64 (exact bytes up to 64-byte lines) or
 *    B = 32 (Callgrind's mask: 2-byte units on 64-byte lines).
 *  - Every level must have the same line size (as in Callgrind, whose
 *    levels exchange masks too): dc_cacheuse_init refuses others.
 *  - Every data access is counted in the level-1 record of each line it
 *    touches (a line that missed starts with count 1 and the access's
 *    bits).  A deeper level's record gathers the level-1 use of its line:
 *    the level-1 record keeps what it has not passed on yet (accesses and
 *    bits since the last pass) and passes it to every deeper level holding
 *    the line when the level-1 line is evicted, when a deeper level evicts
 *    the line, and when a deeper level loads it (a deeper level is
 *    consulted for every line of an access that missed level 1, also for
 *    a line that hit there).  A deeper line loaded by a data access starts
 *    with that access.  So each deeper residency gets exactly the accesses
 *    made while it lasted.  A level-1 record remembers the deeper records
 *    of its line (set when a deeper level is consulted for it, cleared
 *    when a deeper level evicts it, looked up otherwise), so passing
 *    rarely searches a deeper set and never reads a deeper record to
 *    check it.  Whether level 1 holds a deeper level's victim is first
 *    asked of a count of level 1's lines per hash of their block (0: it
 *    does not; most victims left level 1 long before).  An access within
 *    one line goes through the levels in one routine (cacheuse.c,
 *    access_line) that knows the line's level-1 record and which levels
 *    it consults next, so it searches neither; the model gives the same
 *    results as fill by fill, which the multi-line accesses and
 *    instruction fetches still take.  Callgrind passes level-1 use
 *    on only at level-1 eviction, to the LL slot found at load time; when
 *    LL evicted the line first, it charges that residency without the
 *    level-1 accesses (nothing at all if it had none) and later passes
 *    them to whatever the slot holds then.
 *  - A deeper record names the line's slot at the next level (`next`)
 *    once an access has consulted both levels for it, or a level-1
 *    eviction has searched the next level for it: a level-1 record that
 *    knows the line's level-2 record but not its level-3 one (a level-2
 *    hit after a level-1 miss, a matmul's column walk) takes the level-3
 *    record from there when level 1 evicts the line, instead of
 *    searching level 3's set, which missed the host's cache on every
 *    such eviction.  The record named keeps in `prev` the slot of the
 *    record above that named it, and both start at 0 with each new
 *    residency.  `next` may outlive the line it named; it is believed
 *    only when the record it names names back (prev), which proves it
 *    when the next level's sets nest this level's (at least as many
 *    sets, so lines of one next-level set share this level's set too):
 *    that record's residency was named during it from this level's set
 *    and slot, which this line has held since before it named its
 *    `next`, so it was named by this line.  Levels whose next level has
 *    fewer sets keep no `next`.  No eviction reads another level's
 *    record to keep this exact.
 *  - A residency ends at eviction or at dc_cacheuse_finish; then, if its
 *    count is not 0 and it has a loader, level k of the loader gets
 *    SpLoss += (mask bits not set) x bytes per bit and
 *    AcCost += 1000 / count (integer division), as Callgrind does, and,
 *    when the residency ended by eviction and `evictions` is set,
 *    Evicted += 1 (the lines the loader lost at that level, the eviction
 *    matrix's victims charged to who loaded them); so does the
 *    back-dating tree node the line references, if any.
 *  - When `unused` is set, a residency charged that way (a loader, a
 *    count not 0) whose mask is not full also calls
 *    unused(unused_ud, k, block, mask): the engine attributes the line's
 *    bytes that no access touched to the objects holding them
 *    (--offsets with --cache-use).  So the bytes it is given add up to
 *    the SpLoss charged.
 *  - Instruction fetches (through the I1) reach the last level, when
 *    there are two or more, through dc_cacheuse_ifetch; the lines they
 *    load have no loader.
 */
#ifndef DC_CACHEUSE_H
#define DC_CACHEUSE_H

#include "core/cache.h"
#include "core/callstack.h"
#include "core/costtab.h"

enum { DC_USE_EXACT = 64, DC_USE_CALLGRIND = 32 };   /* mask bits per line, at most */

#define DC_USE_BLOCK (((uint64_t)1 << 56) - 1)    /* block bits of a tag word */
#define DC_USE_EMPTY DC_USE_BLOCK                 /* the block of an empty way */
#define DC_USE_MAX_ASSOC 256

/* A line's use at a deeper level (32 bytes: two per host cache line). */
struct dc_use_line {
	uint64_t mask;
	uint32_t count;
	/* next: 1 + the line's slot at the next level, 0: not known; prev:
	 * 1 + the slot at the level above of the last record whose next
	 * named this one, 0: none (see the Notes). */
	uint16_t next, prev;
	struct dc_cost *loader;
	struct dc_bdnode *node;   /* back-dating tree node of the load */
};

/* A line's use at level 1, and what it has not passed deeper yet. */
struct dc_use_l1 {
	uint64_t mask, pmask;
	uint32_t count, passed;
	struct dc_cost *loader;
	struct dc_bdnode *node;
	/* dep[k]: the line's record at level k, NULL when the level lacks
	 * it, DC_USE_UNKNOWN until known.  Kept exact: a level that loads the
	 * line or is found holding it sets it, one that evicts it clears it. */
	struct dc_use_line *dep[DC_MAX_LEVELS];
};
#define DC_USE_UNKNOWN ((struct dc_use_line *)1)

struct dc_use_level {
	void *rec;                /* per slot: dc_cacheuse_index */
	uint32_t unit_bits;       /* log2(bytes per mask bit) */
	uint32_t nbits;           /* mask bits per line */
	uint32_t set_bits;        /* log2(sets) */
	bool link;                /* records name the line's slot at the next
				   * level, whose sets nest this level's */
};

struct dc_cacheuse {
	struct dc_cache *c;
	struct dc_use_level lv[DC_MAX_LEVELS];
	/* Back-dating (callstack.h): when calls is set, lines loaded with a
	 * loader reference `node`, which the caller keeps up to date. */
	struct dc_calls *calls;
	struct dc_bdnode *node;
	bool evictions;           /* count Evicted (--evictions) */
	/* Called for each charged residency with bytes left unused (Notes) */
	void (*unused)(void *ud, int k, uint64_t block, uint64_t mask);
	void *unused_ud;
	/* Level 1's lines counted by a hash of their block (l1f_bits bits):
	 * a deeper level's victim whose count is 0 is not in level 1, with no
	 * search of its set (most are not: the line left level 1 first). */
	uint16_t *l1f;
	uint32_t l1f_bits;
	bool hw_popcnt;           /* dc_cpu_popcnt() */
};

/* c must be initialised and still empty; maxbits is DC_USE_EXACT or
 * DC_USE_CALLGRIND.  Rewrites c's tag words.  Returns DC_EINVAL when the
 * levels' line sizes differ or a level has more than 256 ways. */
int dc_cacheuse_init(struct dc_cacheuse *u, struct dc_cache *c, uint32_t maxbits,
		     const struct dc_env *env);
void dc_cacheuse_release(struct dc_cacheuse *u, const struct dc_env *env);

/* A miss at level k put `block` into the slot whose line `victim` (or
 * DC_EMPTY_TAG) held: ends that residency (passes level-1 use on,
 * charges) and starts the new one; `mask` is the access's bits, NULL
 * `loader` for instruction fetches.  Out of line: misses only. */
void dc_cacheuse_fill(struct dc_cacheuse *u, int k, uint64_t block, uint64_t victim,
		      uint32_t slot, uint64_t mask, struct dc_cost *loader);
/* Level k >= 1 was consulted for `block` and holds it in `slot`. */
void dc_cacheuse_deep_hit(struct dc_cacheuse *u, int k, uint64_t block, uint32_t slot);
/* Ends every residency still in the cache (at exit).  The cache keeps its
 * lines; their use starts again from zero with no loader. */
void dc_cacheuse_finish(struct dc_cacheuse *u);

/* The index of the use record of `block`'s set and `slot` at a level:
 * records are slot-major (all sets' slot 0, then slot 1, ...), so lines
 * filled in consecutive sets, whose victims take the same slot when a
 * stream fills the sets in turn, have their records side by side, and
 * the host's prefetcher fetches them: set-major, every deep fill of a
 * stream loaded a record line from memory. */
static inline size_t dc_cacheuse_index(const struct dc_cache_level *l, uint64_t block,
				       uint32_t slot)
{
	return (size_t)slot * (l->set_mask + 1) + (block & l->set_mask);
}

/* The mask bits [addr, addr + size) covers in `block` at level k. */
static inline uint64_t dc_cacheuse_mask(const struct dc_cache_level *l,
					const struct dc_use_level *ul, uint64_t block,
					uint64_t addr, uint32_t size)
{
	uint64_t base = block << l->line_bits, last = base + ((uint64_t)1 << l->line_bits) - 1;
	uint64_t lo = addr > base ? addr - base : 0;
	uint64_t hi = (addr + size - 1 < last ? addr + size - 1 : last) - base;
	uint32_t b0 = (uint32_t)(lo >> ul->unit_bits), b1 = (uint32_t)(hi >> ul->unit_bits);

	return (~(uint64_t)0 >> (63 - b1)) & (~(uint64_t)0 << b0);
}

/* At a deeper level: a miss replaces the set's last way, so fetch that
 * way's use record before the set is searched (deeper records are rarely
 * in the host's cache; access_line does it for level 2 before level 1's
 * victim is charged).  Always inline: GCC finds an out-of-line copy free
 * of side effects (a prefetch is none) and drops its calls as dead code,
 * which it did in access_line (cacheuse.c) until this was inlined. */
static inline __attribute__((always_inline)) void
dc_cacheuse_prefetch_victim(const struct dc_cache_level *l, const struct dc_use_level *ul,
			    uint64_t block)
{
	const uint64_t *set = l->tags + (block & l->set_mask) * l->assoc;

	__builtin_prefetch((struct dc_use_line *)ul->rec +
			   dc_cacheuse_index(l, block, (uint32_t)(set[l->assoc - 1] >> 56)));
}

/* dc_cache_line_ref on tag words: *slot is the use record's slot of
 * `block` afterwards (on a miss, the evicted line's, reused). */
static inline bool dc_cacheuse_line_ref(struct dc_cache_level *l, uint64_t block,
					uint64_t *evicted, uint32_t *slot)
{
	uint64_t *set = l->tags + (block & l->set_mask) * l->assoc;
	uint64_t prev, cur;
	uint32_t i;

	if ((set[0] & DC_USE_BLOCK) == block) {
		*slot = (uint32_t)(set[0] >> 56);
		return true;
	}
	prev = set[0];
	for (i = 1; i < l->assoc; i++) {
		cur = set[i];
		set[i] = prev;
		if ((cur & DC_USE_BLOCK) == block) {
			set[0] = cur;
			*slot = (uint32_t)(cur >> 56);
			return true;
		}
		prev = cur;
	}
	set[0] = block | (prev & ~DC_USE_BLOCK);
	*slot = (uint32_t)(prev >> 56);
	*evicted = (prev & DC_USE_BLOCK) == DC_USE_EMPTY ? DC_EMPTY_TAG : prev & DC_USE_BLOCK;
	return false;
}

/* One line of an access at level k; returns true on a miss. */
static inline bool dc_cacheuse_line(struct dc_cacheuse *u, int k, uint64_t block,
				    uint64_t addr, uint32_t size, struct dc_cost *loader,
				    uint64_t *victim)
{
	struct dc_cache_level *l = &u->c->lv[k];
	const struct dc_use_level *ul = &u->lv[k];
	uint32_t s;
	bool hit;

	if (k > 0)
		dc_cacheuse_prefetch_victim(l, ul, block);
	hit = dc_cacheuse_line_ref(l, block, victim, &s);

	if (!hit) {
		dc_cacheuse_fill(u, k, block, *victim, s, dc_cacheuse_mask(l, ul, block, addr, size),
				 loader);
	} else if (k == 0) {
		struct dc_use_l1 *r = (struct dc_use_l1 *)ul->rec + dc_cacheuse_index(l, block, s);
		uint64_t m = dc_cacheuse_mask(l, ul, block, addr, size);
		r->count++;
		r->mask |= m;
		r->pmask |= m;
	} else {
		dc_cacheuse_deep_hit(u, k, block, s);
	}
	return !hit;
}

/* dc_cache_level_miss with use tracking. */
static inline bool dc_cacheuse_level_miss(struct dc_cacheuse *u, int k, uint64_t addr,
					  uint32_t size, struct dc_cost *loader)
{
	struct dc_cache_level *l = &u->c->lv[k];
	uint64_t b1 = addr >> l->line_bits;
	uint64_t b2 = (addr + size - 1) >> l->line_bits;
	uint64_t ev;

	if (b1 == b2) {
		if (!dc_cacheuse_line(u, k, b1, addr, size, loader, &l->victim[0]))
			return false;
		l->nfill = 1;
		return true;
	}
	l->nfill = 0;
	for (uint64_t b = b1; b <= b2; b++)
		if (dc_cacheuse_line(u, k, b, addr, size, loader, &ev) && l->nfill < DC_MAX_FILLS)
			l->victim[l->nfill++] = ev;
	return l->nfill > 0;
}

/* dc_cache_access with use tracking past the level-1 hit on the most
 * recent way (out of line). */
int dc_cacheuse_access_levels(struct dc_cacheuse *u, uint64_t addr, uint32_t size,
			      struct dc_cost *loader);

/* dc_cache_access with use tracking: lines loaded get `loader`.  Inline:
 * an access within one line that level 1 holds in the most recent way of
 * its set (a loop's next element: most accesses), which only counts the
 * access and its bits in the line's record. */
static inline int dc_cacheuse_access(struct dc_cacheuse *u, uint64_t addr, uint32_t size,
				     struct dc_cost *loader)
{
	const struct dc_cache_level *l = &u->c->lv[0];
	uint64_t block = addr >> l->line_bits, w;
	uint32_t lo, bit0, bit1;
	struct dc_use_l1 *r;

	if (block != (addr + size - 1) >> l->line_bits)
		return dc_cacheuse_access_levels(u, addr, size, loader);
	w = l->tags[(block & l->set_mask) * l->assoc];
	if ((w & DC_USE_BLOCK) != block)
		return dc_cacheuse_access_levels(u, addr, size, loader);
	r = (struct dc_use_l1 *)u->lv[0].rec + dc_cacheuse_index(l, block, (uint32_t)(w >> 56));
	lo = (uint32_t)addr & (((uint32_t)1 << l->line_bits) - 1);
	bit0 = lo >> u->lv[0].unit_bits;
	bit1 = (lo + size - 1) >> u->lv[0].unit_bits;
	r->count++;
	r->mask |= (~(uint64_t)0 >> (63 - bit1)) & (~(uint64_t)0 << bit0);
	r->pmask |= (~(uint64_t)0 >> (63 - bit1)) & (~(uint64_t)0 << bit0);
	return 1;
}

/* dc_cache_ifetch with use tracking at the last level. */
static inline int dc_cacheuse_ifetch(struct dc_cacheuse *u, uint64_t addr, uint32_t size)
{
	if (!dc_cache_level_miss(&u->c->i1, addr, size))
		return 1;
	if (u->c->nlevels < 2)
		return 3;
	return dc_cacheuse_level_miss(u, u->c->nlevels - 1, addr, size, NULL) ? 3 : 2;
}

#endif
