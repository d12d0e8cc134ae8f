/* objmap.c — address → data object map (see objmap.h Notes). */
#include "core/objmap.h"
#include "core/util.h"

#define PAGE_BITS 12
#define PAGE_MASK ((1u << PAGE_BITS) - 1)
#define SLAB_BITS 10
#define SLAB_OBJS (1 << SLAB_BITS)

/* Lookups read entries kept in the map's own arrays and never the
 * scattered object records: dereferencing records made lookups several
 * times slower when chasing pointers over a million blocks. */
#define LINE_BITS 6
#define INIT_PAGE_CAP 16 /* page-table slots at first (objmap.h Notes) */
#define PAGE_LINES (1 << (PAGE_BITS - LINE_BITS))

/* A small object starting in a page, in 16 bytes (half the host cache
 * lines a full entry takes: chasing pointers over a million blocks, the
 * load of the entry was nine tenths of a lookup's time).  Its start is an
 * offset in the page, its length at most DC_OBJMAP_LARGE, its record a
 * number in the pool.  A removed object stays as a dead entry (length 0,
 * its old length in `bucket`) until the page is compacted, so removing
 * blocks freed in random order moves nothing. */
#define LEN_BITS 20
#define LEN_MASK ((1u << LEN_BITS) - 1)

/* The entry also keeps the record's kind, so the object starting at an
 * address (a `free`) is known without the record: its load was a second
 * dependent host miss per free, after the entry's. */
#define IDX_BITS 28
#define IDX_MASK ((1u << IDX_BITS) - 1)

struct pent {
	uint32_t lolen;     /* offset in the page << LEN_BITS | length; 0 length: dead */
	uint32_t bucket;    /* a dead entry: the length it had */
	uint32_t gen;
	uint32_t idx;       /* kind << IDX_BITS | record number (slab << SLAB_BITS | slot) */
};

/* line_idx[l] counts the entries (dead ones too) that start at or before
 * the last byte of the page's 64-byte line l, so a lookup lands next to its
 * candidate, the last entry starting at or before the address, instead of
 * bisecting.  No live entry contains the start of a dead one (inserting
 * over dead entries compacts the page first), so a dead candidate means
 * no object starting in the page holds the address. */
/* Granules (16 bytes, GRAIN) wholly inside a live small object have their
 * bit set in gbits; while every object owning a set bit has the same
 * bucket, gbucket is that bucket (else DC_OBJMAP_MIXED, until no bit is
 * left), and dc_objmap_resolve answers from the page alone.  Chasing
 * pointers over a million blocks of one allocation site, that saves the
 * load of the entry, most of a lookup's time.  hbits does the same for the
 * first 8 bytes of a granule (its first half) wholly inside a live small
 * object when the granule is not: the last 8 bytes of glibc's 24-byte
 * blocks share a granule with the next chunk's size field, and a 64-byte
 * line starting at such a chunk (the victim lines of evictions, looked up
 * by their first byte) had no bit and took the entry walk, two host
 * misses.  The same objects own both arrays' bits (one gbucket). */
#define GRAIN_BITS 4
#define PAGE_GRAINS (1 << (PAGE_BITS - GRAIN_BITS))

struct dc_objmap_page {
	uint64_t gbits[PAGE_GRAINS / 64];  /* first: one host line with gbucket */
	uint32_t gbucket;
	uint32_t n;
	uint64_t hbits[PAGE_GRAINS / 64];  /* granules' first halves */
	struct pent *starts;           /* objects starting in this page, by lo */
	uint32_t cap, ndead;
	uint16_t line_idx[PAGE_LINES];
	struct dc_objmap_ent cover;    /* object covering the page's first byte */
};

static bool page_has_grains(const struct dc_objmap_page *p)
{
	return (p->gbits[0] | p->gbits[1] | p->gbits[2] | p->gbits[3] |
		p->hbits[0] | p->hbits[1] | p->hbits[2] | p->hbits[3]) != 0;
}

static void grain_bit(uint64_t *bits, uint32_t g, bool on)
{
	uint64_t bit = (uint64_t)1 << (g & 63);

	if (on)
		bits[g >> 6] |= bit;
	else
		bits[g >> 6] &= ~bit;
}

/* Sets (on) or clears the bits of the granules of page pg wholly inside
 * [lo, hi), and the half bits of those only half inside from their start;
 * returns whether there were any. */
static bool page_grains(struct dc_objmap_page *p, uint64_t pg, uint64_t lo, uint64_t hi, bool on)
{
	uint64_t page_lo = pg << PAGE_BITS, page_hi = page_lo + ((uint64_t)1 << PAGE_BITS);
	uint64_t a = lo > page_lo ? lo : page_lo, b = hi < page_hi ? hi : page_hi;
	uint32_t g0 = (uint32_t)((a - page_lo + (1u << GRAIN_BITS) - 1) >> GRAIN_BITS);
	uint32_t g1 = (uint32_t)((b - page_lo) >> GRAIN_BITS);
	/* the granule b falls in: its first half is inside if b is past it */
	bool half = g0 <= g1 && g1 < PAGE_GRAINS && b - page_lo - ((uint64_t)g1 << GRAIN_BITS) >= 8;

	for (uint32_t g = g0; g < g1; g++)
		grain_bit(p->gbits, g, on);
	if (half)
		grain_bit(p->hbits, g1, on);
	return g0 < g1 || half;
}

/* o's granules in page pg join the page's: the page stays uniform if it
 * had none or they have o's bucket. */
static void page_grains_add(struct dc_objmap_page *p, uint64_t pg, const struct dc_obj *o)
{
	bool had = page_has_grains(p);

	if (page_grains(p, pg, o->lo, o->hi, true)) {
		if (!had)
			p->gbucket = o->bucket;
		else if (p->gbucket != o->bucket)
			p->gbucket = DC_OBJMAP_MIXED;
	}
}

static uint32_t pent_off(const struct pent *e)
{
	return e->lolen >> LEN_BITS;
}

static uint32_t pent_len(const struct pent *e)
{
	return e->lolen & LEN_MASK;
}

static struct dc_obj *obj_at(const struct dc_objmap *m, uint32_t idx)
{
	idx &= IDX_MASK;
	return (struct dc_obj *)m->slabs[idx >> SLAB_BITS] + (idx & (SLAB_OBJS - 1));
}

static void pent_set(struct pent *e, const struct dc_obj *o)
{
	e->lolen = (uint32_t)(o->lo & PAGE_MASK) << LEN_BITS | (uint32_t)(o->hi - o->lo);
	e->bucket = o->bucket;
	e->gen = o->gen;
	e->idx = (uint32_t)o->kind << IDX_BITS | o->idx;
}

static void pent_get(const struct dc_objmap *m, uint64_t page_lo, const struct pent *e,
		     struct dc_objmap_ent *out)
{
	out->lo = page_lo + pent_off(e);
	out->hi = out->lo + pent_len(e);
	out->o = obj_at(m, e->idx);
	out->bucket = e->bucket;
	out->gen = e->gen;
}

/* Index of the first entry starting at or after page offset off. */
static uint32_t pent_at(const struct dc_objmap_page *p, uint32_t off)
{
	uint32_t k = p->line_idx[off >> LINE_BITS];

	while (k > 0 && pent_off(&p->starts[k - 1]) >= off)
		k--;
	return k;
}

/* The line index from scratch. */
static void page_reindex(struct dc_objmap_page *p)
{
	uint32_t k = 0;

	for (uint32_t l = 0; l < PAGE_LINES; l++) {
		while (k < p->n && pent_off(&p->starts[k]) >> LINE_BITS <= l)
			k++;
		p->line_idx[l] = (uint16_t)k;
	}
}

/* Drops the dead entries. */
static void page_compact(struct dc_objmap_page *p)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < p->n; i++)
		if (pent_len(&p->starts[i]))
			p->starts[k++] = p->starts[i];
	p->n = k;
	p->ndead = 0;
	page_reindex(p);
}

static void ent_set(struct dc_objmap_ent *e, struct dc_obj *o)
{
	e->lo = o->lo;
	e->hi = o->hi;
	e->o = o;
	e->bucket = o->bucket;
	e->gen = o->gen;
}

static bool is_large(const struct dc_obj *o)
{
	return o->hi - o->lo > DC_OBJMAP_LARGE;
}

int dc_objmap_init(struct dc_objmap *m, const struct dc_env *env)
{
	memset(m, 0, sizeof *m);
	m->env = env;
	m->page_cap = INIT_PAGE_CAP;
	m->keys = dc_alloc(env, m->page_cap * sizeof *m->keys, "objmap.keys");
	m->pages = dc_alloc(env, m->page_cap * sizeof *m->pages, "objmap.pages");
	if (!m->keys || !m->pages) {
		dc_free(env, m->keys);
		dc_free(env, m->pages);
		return DC_ENOMEM;
	}
	memset(m->keys, 0, m->page_cap * sizeof *m->keys);
	memset(m->pages, 0, m->page_cap * sizeof *m->pages);
	return 0;
}

void dc_objmap_release(struct dc_objmap *m)
{
	if (m->pages)
		for (uint64_t i = 0; i < m->page_cap; i++)
			dc_free(m->env, m->pages[i].starts);
	dc_free(m->env, m->keys);
	dc_free(m->env, m->pages);
	dc_free(m->env, m->large);
	for (uint64_t i = 0; i < m->nslabs; i++)
		dc_free(m->env, m->slabs[i]);
	dc_free(m->env, m->slabs);
	memset(m, 0, sizeof *m);
}

struct dc_obj *dc_objmap_new(struct dc_objmap *m)
{
	struct dc_obj *o;
	uint32_t gen, idx;

	if (!m->free_list) {
		struct dc_obj *slab;
		if (m->nslabs && m->fresh < SLAB_OBJS) {
			/* the newest slab's next record, touched only now */
			o = (struct dc_obj *)m->slabs[m->nslabs - 1] + m->fresh;
			memset(o, 0, sizeof *o);
			o->idx = (uint32_t)((m->nslabs - 1) << SLAB_BITS) + m->fresh++;
			return o;
		}
		if (m->nslabs == (uint64_t)1 << (IDX_BITS - SLAB_BITS))
			return NULL;    /* record numbers are IDX_BITS wide */
		if (m->nslabs == m->slabs_cap) {
			uint64_t cap = m->slabs_cap ? 2 * m->slabs_cap : 16;
			void **s = dc_alloc(m->env, cap * sizeof *s, "objmap.slabs");
			if (!s)
				return NULL;
			if (m->nslabs)
				memcpy(s, m->slabs, m->nslabs * sizeof *s);
			dc_free(m->env, m->slabs);
			m->slabs = s;
			m->slabs_cap = cap;
		}
		slab = dc_alloc(m->env, SLAB_OBJS * sizeof *slab, "objmap.slab");
		if (!slab)
			return NULL;
		m->slabs[m->nslabs++] = slab;
		m->fresh = 1;
		memset(slab, 0, sizeof *slab);
		slab->idx = (uint32_t)((m->nslabs - 1) << SLAB_BITS);
		return slab;
	}
	o = m->free_list;
	m->free_list = o->next;
	gen = o->gen;
	idx = o->idx;
	memset(o, 0, sizeof *o);
	o->gen = gen;
	o->idx = idx;
	return o;
}

void dc_objmap_discard(struct dc_objmap *m, struct dc_obj *o)
{
	o->gen++;
	o->live = 0;
	o->next = m->free_list;
	m->free_list = o;
}

/* ---- page hash ------------------------------------------------------- */

/* The keys (page number + 1; 0 = empty slot) have their own array, which
 * stays in the host's cache when the pages do not. */
static struct dc_objmap_page *page_find(const struct dc_objmap *m, uint64_t page)
{
	uint64_t mask = m->page_cap - 1;
	uint64_t i = dc_hash64(page) & mask;

	for (;;) {
		uint64_t k = m->keys[i];
		if (k == page + 1)
			return &m->pages[i];
		if (k == 0)
			return NULL;
		i = (i + 1) & mask;
	}
}

static uint64_t slot_for(const uint64_t *keys, uint64_t cap, uint64_t page)
{
	uint64_t mask = cap - 1;
	uint64_t i = dc_hash64(page) & mask;

	while (keys[i] && keys[i] != page + 1)
		i = (i + 1) & mask;
	return i;
}

/* Entries that became empty are dropped when the table grows, so address
 * ranges a program stopped using do not accumulate. */
static int page_grow(struct dc_objmap *m)
{
	uint64_t cap = m->page_cap * 2, used = 0;
	uint64_t *keys = dc_alloc(m->env, cap * sizeof *keys, "objmap.keys");
	struct dc_objmap_page *tab = dc_alloc(m->env, cap * sizeof *tab, "objmap.pages");

	if (!keys || !tab) {
		dc_free(m->env, keys);
		dc_free(m->env, tab);
		return DC_ENOMEM;
	}
	memset(keys, 0, cap * sizeof *keys);
	memset(tab, 0, cap * sizeof *tab);
	for (uint64_t i = 0; i < m->page_cap; i++) {
		struct dc_objmap_page *p = &m->pages[i];
		uint64_t s;
		if (!m->keys[i])
			continue;
		if (p->n == p->ndead && !p->cover.o) {
			dc_free(m->env, p->starts);
			continue;
		}
		s = slot_for(keys, cap, m->keys[i] - 1);
		keys[s] = m->keys[i];
		tab[s] = *p;
		used++;
	}
	dc_free(m->env, m->keys);
	dc_free(m->env, m->pages);
	m->keys = keys;
	m->pages = tab;
	m->page_cap = cap;
	m->npages = used;
	return 0;
}

/* Room for `need` more pages without growing (growing drops empty
 * entries, which would lose pages reserved but not yet filled). */
static int page_reserve(struct dc_objmap *m, uint64_t need)
{
	while ((m->npages + need) * 2 > m->page_cap)
		if (page_grow(m))
			return DC_ENOMEM;
	return 0;
}

static struct dc_objmap_page *page_get(struct dc_objmap *m, uint64_t page)
{
	struct dc_objmap_page *p = page_find(m, page);
	uint64_t s;

	if (p)
		return p;
	s = slot_for(m->keys, m->page_cap, page);
	m->keys[s] = page + 1;
	m->npages++;
	return &m->pages[s];
}

/* ---- the array of large objects ----------------------------------------- */

/* Index of the last entry with lo <= addr in a sorted array, or -1. */
static int64_t bisect(const struct dc_objmap_ent *v, uint64_t n, uint64_t addr)
{
	int64_t lo = 0, hi = (int64_t)n - 1, best = -1;

	while (lo <= hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (v[mid].lo <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return best;
}

static int large_insert(struct dc_objmap *m, struct dc_obj *o)
{
	int64_t at = bisect(m->large, m->nlarge, o->lo) + 1;

	if (m->nlarge == m->large_cap) {
		uint64_t ncap = m->large_cap ? 2 * m->large_cap : 4;
		struct dc_objmap_ent *nv = dc_alloc(m->env, ncap * sizeof *nv, "objmap.large");
		if (!nv)
			return DC_ENOMEM;
		if (m->nlarge)
			memcpy(nv, m->large, m->nlarge * sizeof *nv);
		dc_free(m->env, m->large);
		m->large = nv;
		m->large_cap = ncap;
	}
	memmove(m->large + at + 1, m->large + at, (m->nlarge - (uint64_t)at) * sizeof *m->large);
	ent_set(&m->large[at], o);
	m->nlarge++;
	return 0;
}

static void large_remove(struct dc_objmap *m, uint64_t lo, const struct dc_obj *o)
{
	int64_t at = bisect(m->large, m->nlarge, lo);

	if (at < 0 || m->large[at].o != o)
		return;
	memmove(m->large + at, m->large + at + 1, (m->nlarge - (uint64_t)at - 1) * sizeof *m->large);
	m->nlarge--;
}

/* ---- queries ----------------------------------------------------------- */

/* The last entry of page p starting at or before page offset off, or
 * NULL: the only one that can hold off. */
static const struct pent *candidate(const struct dc_objmap_page *p, uint32_t off)
{
	uint32_t k = p->line_idx[off >> LINE_BITS];

	while (k > 0 && pent_off(&p->starts[k - 1]) > off)
		k--;
	return k > 0 ? &p->starts[k - 1] : NULL;
}

/* The full lookup, past the page's granules. */
static bool lookup_in(const struct dc_objmap *m, const struct dc_objmap_page *p, uint64_t addr,
		      struct dc_objmap_ent *out)
{
	int64_t i;

	if (p) {
		uint32_t off = (uint32_t)addr & PAGE_MASK;
		const struct pent *e = candidate(p, off);
		if (e) {
			if (off - pent_off(e) < pent_len(e)) {
				pent_get(m, addr & ~(uint64_t)PAGE_MASK, e, out);
				return true;
			}
		}
		if (p->cover.o && addr < p->cover.hi) {
			*out = p->cover;
			return true;
		}
	}
	i = bisect(m->large, m->nlarge, addr);
	if (i >= 0 && addr < m->large[i].hi) {
		*out = m->large[i];
		return true;
	}
	return false;
}

bool dc_objmap_lookup(const struct dc_objmap *m, uint64_t addr, struct dc_objmap_ent *out)
{
	return lookup_in(m, page_find(m, addr >> PAGE_BITS), addr, out);
}

int dc_objmap_resolve(const struct dc_objmap *m, uint64_t addr, struct dc_objmap_ent *out)
{
	const struct dc_objmap_page *p = page_find(m, addr >> PAGE_BITS);

	if (p) {
		uint32_t g = ((uint32_t)addr & PAGE_MASK) >> GRAIN_BITS;
		uint64_t w = p->gbits[g >> 6] >> (g & 63) & 1;
		/* the half bit stands only for the granule's first 8 bytes */
		uint64_t h = p->hbits[g >> 6] >> (g & 63) & ~(addr >> 3) & 1;
		if ((w | h) && p->gbucket != DC_OBJMAP_MIXED) {
			out->lo = addr & ~(uint64_t)((1u << GRAIN_BITS) - 1);
			out->hi = out->lo + (w ? 1u << GRAIN_BITS : 8);
			out->o = NULL;
			out->bucket = p->gbucket;
			out->gen = 0;
			return DC_OBJMAP_GRAIN;
		}
	}
	return lookup_in(m, p, addr, out) ? DC_OBJMAP_OBJECT : 0;
}

bool dc_objmap_lookup_from(const struct dc_objmap *m, uint64_t addr, uint64_t limit,
			   struct dc_objmap_ent *out)
{
	const struct dc_objmap_page *p = page_find(m, addr >> PAGE_BITS);
	int64_t i;
	bool found = false;

	if (lookup_in(m, p, addr, out))
		return true;
	/* the first live object starting in addr's page after addr (limit
	 * is in that page): entries are sorted by start, and one starting at
	 * addr itself would have held it, so it is dead, skipped like others */
	if (p) {
		uint32_t k = pent_at(p, (uint32_t)addr & PAGE_MASK);

		while (k < p->n && pent_len(&p->starts[k]) == 0)
			k++;
		if (k < p->n && (addr & ~(uint64_t)PAGE_MASK) + pent_off(&p->starts[k]) < limit) {
			pent_get(m, addr & ~(uint64_t)PAGE_MASK, &p->starts[k], out);
			found = true;
		}
	}
	i = bisect(m->large, m->nlarge, addr) + 1;
	if ((uint64_t)i < m->nlarge && m->large[i].lo < limit && (!found || m->large[i].lo < out->lo)) {
		*out = m->large[i];
		found = true;
	}
	return found;
}

struct dc_obj *dc_objmap_find(const struct dc_objmap *m, uint64_t addr)
{
	struct dc_objmap_ent e;

	return dc_objmap_lookup(m, addr, &e) ? e.o : NULL;
}

bool dc_objmap_lookup_start(const struct dc_objmap *m, uint64_t addr, struct dc_objmap_ent *out,
			    unsigned *kind)
{
	const struct dc_objmap_page *p = page_find(m, addr >> PAGE_BITS);
	int64_t i;

	if (p) {
		uint32_t off = (uint32_t)addr & PAGE_MASK;
		const struct pent *e = candidate(p, off);
		/* one entry at most starts at off (page_add) */
		if (e && pent_off(e) == off && pent_len(e)) {
			pent_get(m, addr & ~(uint64_t)PAGE_MASK, e, out);
			*kind = e->idx >> IDX_BITS;
			return true;
		}
	}
	i = bisect(m->large, m->nlarge, addr);
	if (i >= 0 && m->large[i].lo == addr) {
		*out = m->large[i];
		*kind = out->o->kind;
		return true;
	}
	return false;
}

/* The live entry of the small object whose record is o and which starts
 * at lo, in its first page, or NULL. */
static struct pent *pent_of(const struct dc_objmap *m, uint64_t lo, const struct dc_obj *o,
			    struct dc_objmap_page **pp)
{
	struct dc_objmap_page *p = page_find(m, lo >> PAGE_BITS);
	uint32_t off = (uint32_t)lo & PAGE_MASK, k;

	if (!p)
		return NULL;
	k = pent_at(p, off);
	if (k == p->n || obj_at(m, p->starts[k].idx) != o || !pent_len(&p->starts[k]) ||
	    pent_off(&p->starts[k]) != off)
		return NULL;
	*pp = p;
	return &p->starts[k];
}

void dc_objmap_rebucket(struct dc_objmap *m, struct dc_obj *o, uint32_t bucket)
{
	uint64_t first = o->lo >> PAGE_BITS, last = (o->hi - 1) >> PAGE_BITS;
	struct dc_objmap_page *p;
	struct pent *e;
	int64_t i;

	o->bucket = bucket;
	o->gen++;
	if (is_large(o)) {
		i = bisect(m->large, m->nlarge, o->lo);
		if (i >= 0 && m->large[i].o == o)
			ent_set(&m->large[i], o);
		return;
	}
	e = pent_of(m, o->lo, o, &p);
	if (e)
		pent_set(e, o);
	for (uint64_t pg = first; pg <= last; pg++) {
		p = page_find(m, pg);
		if (!p)
			continue;
		if (pg > first && p->cover.o == o)
			ent_set(&p->cover, o);
		if (page_grains(p, pg, o->lo, o->hi, true) && p->gbucket != bucket)
			p->gbucket = DC_OBJMAP_MIXED;
	}
}

bool dc_objmap_page_free(const struct dc_objmap *m, uint64_t addr)
{
	uint64_t pg = addr >> PAGE_BITS, page_lo = pg << PAGE_BITS;
	const struct dc_objmap_page *p = page_find(m, pg);
	int64_t i;

	if (p && (p->n > p->ndead || p->cover.o))
		return false;
	i = bisect(m->large, m->nlarge, page_lo + ((uint64_t)1 << PAGE_BITS) - 1);
	return !(i >= 0 && m->large[i].hi > page_lo);
}

/* The first live object of page pg starting inside [lo, hi). */
static struct dc_obj *first_in_page(const struct dc_objmap *m, const struct dc_objmap_page *p,
				    uint64_t pg, uint64_t lo, uint64_t hi)
{
	uint64_t page_lo = pg << PAGE_BITS;
	uint32_t k = 0;

	if (lo > page_lo) {
		if (lo - page_lo > PAGE_MASK)
			return NULL;
		k = pent_at(p, (uint32_t)(lo - page_lo));
	}
	for (; k < p->n; k++) {
		uint64_t s = page_lo + pent_off(&p->starts[k]);
		if (s >= hi)
			break;
		if (s >= lo && pent_len(&p->starts[k]))
			return obj_at(m, p->starts[k].idx);
	}
	return NULL;
}

static struct dc_obj *first_starting_in(const struct dc_objmap *m, uint64_t lo, uint64_t hi);

/* Any object starting inside [lo, hi)? */
static bool starts_inside(const struct dc_objmap *m, uint64_t lo, uint64_t hi)
{
	return first_starting_in(m, lo, hi) != NULL;
}

/* ---- updates ----------------------------------------------------------- */

/* Unlinks small object o, [lo, hi), without reading its record. */
static void page_unlink(struct dc_objmap *m, uint64_t lo, uint64_t hi, const struct dc_obj *o)
{
	uint64_t first = lo >> PAGE_BITS, last = (hi - 1) >> PAGE_BITS;
	struct dc_objmap_page *p;
	struct pent *e = pent_of(m, lo, o, &p);

	if (e) {
		e->bucket = pent_len(e);
		e->lolen &= ~LEN_MASK;
		if (++p->ndead == p->n) {
			p->n = p->ndead = 0;
			memset(p->line_idx, 0, sizeof p->line_idx);
		} else if (p->ndead >= 16 && 2 * p->ndead > p->n) {
			page_compact(p);
		}
	}
	for (uint64_t pg = first; pg <= last; pg++) {
		p = page_find(m, pg);
		if (!p)
			continue;
		page_grains(p, pg, lo, hi, false);
		if (pg > first && p->cover.o == o)
			memset(&p->cover, 0, sizeof p->cover);
	}
}

/* Puts small object o into its first page p. */
static int page_add(struct dc_objmap *m, struct dc_objmap_page *p, struct dc_obj *o)
{
	uint32_t off = (uint32_t)o->lo & PAGE_MASK;
	uint64_t end = (uint64_t)off + (o->hi - o->lo);
	uint32_t at = pent_at(p, off);

	if (p->ndead) {
		/* Dead entries starting inside the new object (live ones were
		 * refused before) must go.  One starting exactly at off, alone,
		 * is taken over: a block freed and allocated again. */
		uint32_t past = at;
		while (past < p->n && pent_off(&p->starts[past]) < end)
			past++;
		if (past == at + 1 && pent_off(&p->starts[at]) == off) {
			pent_set(&p->starts[at], o);
			p->ndead--;
			return 0;
		}
		if (past > at || p->n == p->cap) {
			page_compact(p);
			at = pent_at(p, off);
		}
	}
	if (p->n == p->cap) {
		uint32_t cap = p->cap ? 2 * p->cap : 4;
		struct pent *v = dc_alloc(m->env, cap * sizeof *v, "objmap.starts");
		if (!v)
			return DC_ENOMEM;
		if (p->n)
			memcpy(v, p->starts, p->n * sizeof *v);
		dc_free(m->env, p->starts);
		p->starts = v;
		p->cap = cap;
	}
	for (uint32_t k = p->n; k > at; k--)
		p->starts[k] = p->starts[k - 1];
	pent_set(&p->starts[at], o);
	p->n++;
	for (uint32_t l = off >> LINE_BITS; l < PAGE_LINES; l++)
		p->line_idx[l]++;
	return 0;
}

static int page_link(struct dc_objmap *m, struct dc_obj *o)
{
	uint64_t first = o->lo >> PAGE_BITS, last = (o->hi - 1) >> PAGE_BITS;
	int rc;

	/* Reserve every page slot first so a failure leaves nothing linked. */
	rc = page_reserve(m, last - first + 1);
	if (rc)
		return rc;
	for (uint64_t pg = first; pg <= last; pg++)
		page_get(m, pg);
	rc = page_add(m, page_find(m, first), o);
	if (rc)
		return rc;
	for (uint64_t pg = first; pg <= last; pg++) {
		struct dc_objmap_page *p = page_find(m, pg);
		if (pg > first)
			ent_set(&p->cover, o);
		page_grains_add(p, pg, o);
	}
	return 0;
}

int dc_objmap_insert(struct dc_objmap *m, struct dc_obj *o)
{
	int rc;

	if (o->hi <= o->lo || o->kind >= DC_OBJMAP_KINDS)
		return DC_EINVAL;
	if (dc_objmap_find(m, o->lo) || starts_inside(m, o->lo, o->hi))
		return DC_EINVAL;
	if (is_large(o))
		rc = large_insert(m, o);
	else
		rc = page_link(m, o);
	if (rc)
		return rc;
	o->live = 1;
	m->nobjs++;
	return 0;
}

void dc_objmap_remove(struct dc_objmap *m, struct dc_obj *o)
{
	if (is_large(o))
		large_remove(m, o->lo, o);
	else
		page_unlink(m, o->lo, o->hi, o);
	m->nobjs--;
	dc_objmap_discard(m, o);
}

void dc_objmap_remove_ent(struct dc_objmap *m, const struct dc_objmap_ent *e)
{
	struct dc_obj *o = e->o;

	if (e->hi - e->lo > DC_OBJMAP_LARGE)
		large_remove(m, e->lo, o);
	else
		page_unlink(m, e->lo, e->hi, o);
	m->nobjs--;
	/* dc_objmap_discard without loading the record: stores only */
	o->gen = e->gen + 1;
	o->live = 0;
	o->next = m->free_list;
	m->free_list = o;
}

static struct dc_obj *first_starting_in(const struct dc_objmap *m, uint64_t lo, uint64_t hi)
{
	int64_t i = bisect(m->large, m->nlarge, hi - 1);

	if (i >= 0 && m->large[i].lo >= lo)
		return m->large[i].o;
	if (((hi - 1) >> PAGE_BITS) - (lo >> PAGE_BITS) > 4 * m->page_cap) {
		/* A huge range: cheaper to scan the table than the range. */
		for (uint64_t s = 0; s < m->page_cap; s++) {
			struct dc_obj *o = m->keys[s]
				? first_in_page(m, &m->pages[s], m->keys[s] - 1, lo, hi) : NULL;
			if (o)
				return o;
		}
		return NULL;
	}
	for (uint64_t pg = lo >> PAGE_BITS; pg <= (hi - 1) >> PAGE_BITS; pg++) {
		const struct dc_objmap_page *p = page_find(m, pg);
		struct dc_obj *o = p ? first_in_page(m, p, pg, lo, hi) : NULL;
		if (o)
			return o;
	}
	return NULL;
}

void dc_objmap_remove_in(struct dc_objmap *m, uint64_t lo, uint64_t hi,
			 void (*fn)(void *ud, struct dc_obj *o), void *ud)
{
	struct dc_obj *o;

	if (hi <= lo)
		return;
	while ((o = first_starting_in(m, lo, hi))) {
		if (fn)
			fn(ud, o);
		dc_objmap_remove(m, o);
	}
}

void dc_objmap_each(const struct dc_objmap *m, void (*fn)(void *ud, struct dc_obj *o),
		    void *ud)
{
	for (uint64_t i = 0; i < m->nslabs; i++) {
		struct dc_obj *slab = m->slabs[i];
		uint32_t used = i + 1 < m->nslabs ? SLAB_OBJS : m->fresh;
		for (uint32_t k = 0; k < used; k++)
			if (slab[k].live)
				fn(ud, &slab[k]);
	}
}
