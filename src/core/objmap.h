/* objmap.h — address → data object map.
 *
 * Notes:
 *  - Objects are half-open address ranges [lo, hi) that never overlap: heap
 *    blocks, globals, user-named regions, program mmaps.  Inserting an
 *    object that overlaps another fails with DC_EINVAL (aliases of one
 *    global keep the first name).
 *  - Lookup is O(1) expected for objects up to DC_OBJMAP_LARGE bytes: a hash
 *    of 4 KiB pages, each holding the objects that start in it (sorted, 16
 *    bytes each, indexed by 64-byte line) and the one object that covers
 *    its first byte.  Larger objects live in a sorted array searched by
 *    bisection; programs have few of them.
 *  - Removal is O(1) expected: a removed small object leaves a dead entry
 *    that a later insert at the same address takes over, or that is
 *    dropped when dead entries are half of the page's.
 *  - The page table starts at 16 slots and doubles at half full: a map of
 *    a few objects costs a few KiB (it started at 1024 slots, 216 KiB,
 *    touched at start by every map of the native runtime, which made the
 *    runtime's fixed memory; docs/performance.md, "Native engine").
 *  - Object records come from a pool and are never returned to the
 *    allocator while the map lives, so an engine may keep pointers to them
 *    in per-instruction caches.  Removing an object increments its `gen`;
 *    a cached (pointer, gen) pair that no longer matches is stale.  A
 *    slab's records are touched as they are first handed out, so a map of
 *    a few objects does not fill a slab's 56 KiB.  A map
 *    holds at most 2^28 records (the entries number them in 28 bits, beside
 *    the kind): dc_objmap_new fails past that.
 */
#ifndef DC_OBJMAP_H
#define DC_OBJMAP_H

#include "core/port.h"

#define DC_OBJMAP_LARGE (256u << 10)
/* Kinds are below this (the map's entries keep them, in 4 bits). */
#define DC_OBJMAP_KINDS 16

struct dc_obj {
	uint64_t lo, hi;
	uint32_t bucket;
	uint32_t gen;
	uint64_t alloc_seq;      /* engine's allocation sequence number */
	uint64_t alloc_size;     /* bytes requested (hi - lo may be 1 for 0) */
	struct dc_obj *next;     /* pool free list */
	uint8_t kind;            /* engine-defined, < DC_OBJMAP_KINDS */
	uint8_t flags;           /* engine-defined */
	uint8_t live;
	uint32_t idx;            /* the record's number in the pool (the map's) */
};

/* What a lookup returns: the object's bounds, bucket and generation as kept
 * in the map's own arrays, so resolving an address does not touch the
 * (scattered) object record. */
struct dc_objmap_ent {
	uint64_t lo, hi;
	struct dc_obj *o;
	uint32_t bucket, gen;
};

struct dc_objmap_page;

struct dc_objmap {
	const struct dc_env *env;
	uint64_t *keys;                 /* page number + 1 of each slot; 0: empty */
	struct dc_objmap_page *pages;   /* open addressing, linear probing */
	uint64_t npages, page_cap;      /* used slots, capacity (power of two) */
	struct dc_objmap_ent *large;    /* sorted by lo */
	uint64_t nlarge, large_cap;
	struct dc_obj *free_list;
	void **slabs;
	uint64_t nslabs, slabs_cap;
	uint32_t fresh;            /* the newest slab's records handed out (the rest untouched) */
	uint64_t nobjs;
};

int dc_objmap_init(struct dc_objmap *m, const struct dc_env *env);
void dc_objmap_release(struct dc_objmap *m);

/* A zeroed record (gen preserved) for the caller to fill; NULL on ENOMEM. */
struct dc_obj *dc_objmap_new(struct dc_objmap *m);
/* Returns a record that was never inserted to the pool. */
void dc_objmap_discard(struct dc_objmap *m, struct dc_obj *o);

/* Inserts o (lo < hi, bucket set).  DC_EINVAL if it overlaps another object, DC_ENOMEM
 * if memory ran out (the map is unchanged in both cases). */
int dc_objmap_insert(struct dc_objmap *m, struct dc_obj *o);

/* Removes an inserted object and returns its record to the pool. */
void dc_objmap_remove(struct dc_objmap *m, struct dc_obj *o);

/* The object starting exactly at addr: fills *out and *kind (its record's
 * kind, from the map's own arrays for small objects) and returns true, or
 * returns false.  With dc_objmap_remove_ent, an allocator's `free` is
 * handled without loading the block's scattered record. */
bool dc_objmap_lookup_start(const struct dc_objmap *m, uint64_t addr, struct dc_objmap_ent *out,
			    unsigned *kind);

/* dc_objmap_remove of the object *e describes, as filled by a lookup since
 * the map last changed, reading only e and the map's arrays. */
void dc_objmap_remove_ent(struct dc_objmap *m, const struct dc_objmap_ent *e);

/* What dc_objmap_resolve found: the object, or only the bucket of the
 * 16-byte granule holding addr, or of the granule's first 8 bytes (*out's
 * lo and hi are the granule's or its half's, o is NULL, gen 0), valid
 * until an object in the map is removed or moved to another bucket. */
enum { DC_OBJMAP_OBJECT = 1, DC_OBJMAP_GRAIN = 2 };
#define DC_OBJMAP_MIXED 0xffffffffu

/* Like dc_objmap_lookup, but when the granule holding addr (or, for an
 * address in a granule's first 8 bytes, those 8 bytes) lies wholly inside
 * an object and every such granule or half of its 4 KiB page belongs to
 * objects of one bucket, answers DC_OBJMAP_GRAIN from the page alone,
 * without reading the object's entry; 0 when no object holds addr. */
int dc_objmap_resolve(const struct dc_objmap *m, uint64_t addr, struct dc_objmap_ent *out);

/* The object containing addr, or NULL. */
struct dc_obj *dc_objmap_find(const struct dc_objmap *m, uint64_t addr);

/* Fills *out with the object containing addr and returns true, or returns
 * false and leaves *out alone. */
bool dc_objmap_lookup(const struct dc_objmap *m, uint64_t addr, struct dc_objmap_ent *out);

/* Like dc_objmap_lookup for the object containing addr, or else the
 * object with the lowest start in (addr, limit); false if neither.  limit
 * must not pass the end of addr's 4 KiB page (a cache line's bytes: the
 * engine walks the unused bytes of an evicted line object by object). */
bool dc_objmap_lookup_from(const struct dc_objmap *m, uint64_t addr, uint64_t limit,
			   struct dc_objmap_ent *out);

/* Moves an inserted object to another bucket and increments its gen, so
 * cached resolutions of it go stale. */
void dc_objmap_rebucket(struct dc_objmap *m, struct dc_obj *o, uint32_t bucket);

/* Removes every object that starts inside [lo, hi), calling fn (may be
 * NULL) on each just before its removal. */
void dc_objmap_remove_in(struct dc_objmap *m, uint64_t lo, uint64_t hi,
			 void (*fn)(void *ud, struct dc_obj *o), void *ud);

/* True when no object intersects the 4 KiB page holding addr, so an engine
 * may cache "nothing here" for the whole page. */
bool dc_objmap_page_free(const struct dc_objmap *m, uint64_t addr);

/* Calls fn for every object in the map, in no particular order.  fn must
 * not change the map. */
void dc_objmap_each(const struct dc_objmap *m, void (*fn)(void *ud, struct dc_obj *o),
		    void *ud);

#endif
