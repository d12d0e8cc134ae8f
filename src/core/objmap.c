/* objmap.c — address → data object map (see objmap.h Notes). */
#include "core/objmap.h"
#include "core/util.h"

#define PAGE_BITS 12
#define SLAB_OBJS 1024

/* Entries (bounds, bucket, gen) are kept in the map's arrays so a lookup
 * bisects one contiguous array and never touches the scattered object
 * records: dereferencing records made lookups several times slower when
 * chasing pointers over a million blocks. */
#define LINE_BITS 6
#define PAGE_LINES (1 << (PAGE_BITS - LINE_BITS))

/* line_idx[l] counts the objects that start at or before the last byte of
 * the page's 64-byte line l, so a lookup lands next to its candidate instead
 * of bisecting: with ~100 small blocks per page, bisection missed the host
 * cache at every step when chasing pointers. */
struct dc_objmap_page {
	uint64_t page;                 /* page number + 1; 0 = empty slot */
	struct dc_objmap_ent cover;    /* object covering the page's first byte */
	struct dc_objmap_ent *starts;  /* objects starting in this page, by lo */
	uint32_t n, cap;
	uint16_t line_idx[PAGE_LINES];
};

/* An object starting at lo joined (delta 1) or left (-1) the page: every
 * line from lo's on counts it. */
static void page_index(struct dc_objmap_page *p, uint64_t lo, int delta)
{
	for (uint32_t l = (uint32_t)(lo >> LINE_BITS) & (PAGE_LINES - 1); l < PAGE_LINES; l++)
		p->line_idx[l] = (uint16_t)(p->line_idx[l] + delta);
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
	m->page_cap = 1024;
	m->pages = dc_alloc(env, m->page_cap * sizeof *m->pages, "objmap.pages");
	if (!m->pages)
		return DC_ENOMEM;
	memset(m->pages, 0, m->page_cap * sizeof *m->pages);
	return 0;
}

void dc_objmap_release(struct dc_objmap *m)
{
	if (m->pages)
		for (uint64_t i = 0; i < m->page_cap; i++)
			dc_free(m->env, m->pages[i].starts);
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
	uint32_t gen;

	if (!m->free_list) {
		struct dc_obj *slab;
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
		memset(slab, 0, SLAB_OBJS * sizeof *slab);
		m->slabs[m->nslabs++] = slab;
		for (int i = SLAB_OBJS - 1; i >= 0; i--) {
			slab[i].next = m->free_list;
			m->free_list = &slab[i];
		}
	}
	o = m->free_list;
	m->free_list = o->next;
	gen = o->gen;
	memset(o, 0, sizeof *o);
	o->gen = gen;
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

static struct dc_objmap_page *page_find(const struct dc_objmap *m, uint64_t page)
{
	uint64_t mask = m->page_cap - 1;
	uint64_t i = dc_hash64(page) & mask;

	for (;;) {
		struct dc_objmap_page *p = &m->pages[i];
		if (p->page == page + 1)
			return p;
		if (p->page == 0)
			return NULL;
		i = (i + 1) & mask;
	}
}

static struct dc_objmap_page *slot_for(struct dc_objmap_page *tab, uint64_t cap, uint64_t page)
{
	uint64_t mask = cap - 1;
	uint64_t i = dc_hash64(page) & mask;

	while (tab[i].page && tab[i].page != page + 1)
		i = (i + 1) & mask;
	return &tab[i];
}

/* Entries that became empty are dropped when the table grows, so address
 * ranges a program stopped using do not accumulate. */
static int page_grow(struct dc_objmap *m)
{
	uint64_t cap = m->page_cap * 2, used = 0;
	struct dc_objmap_page *tab = dc_alloc(m->env, cap * sizeof *tab, "objmap.pages");

	if (!tab)
		return DC_ENOMEM;
	memset(tab, 0, cap * sizeof *tab);
	for (uint64_t i = 0; i < m->page_cap; i++) {
		struct dc_objmap_page *p = &m->pages[i];
		if (!p->page)
			continue;
		if (!p->n && !p->cover.o) {
			dc_free(m->env, p->starts);
			continue;
		}
		*slot_for(tab, cap, p->page - 1) = *p;
		used++;
	}
	dc_free(m->env, m->pages);
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

	if (p)
		return p;
	p = slot_for(m->pages, m->page_cap, page);
	p->page = page + 1;
	m->npages++;
	return p;
}

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

/* Inserts o into a sorted pointer array, growing it. */
static int vec_insert(const struct dc_env *env, struct dc_objmap_ent **v, uint64_t *n,
		      uint64_t *cap, struct dc_obj *o, const char *label)
{
	int64_t at = bisect(*v, *n, o->lo) + 1;

	if (*n == *cap) {
		uint64_t ncap = *cap ? 2 * *cap : 4;
		struct dc_objmap_ent *nv = dc_alloc(env, ncap * sizeof *nv, label);
		if (!nv)
			return DC_ENOMEM;
		if (*n)
			memcpy(nv, *v, *n * sizeof *nv);
		dc_free(env, *v);
		*v = nv;
		*cap = ncap;
	}
	memmove(*v + at + 1, *v + at, (*n - (uint64_t)at) * sizeof **v);
	ent_set(&(*v)[at], o);
	(*n)++;
	return 0;
}

static bool vec_remove(struct dc_objmap_ent *v, uint64_t *n, struct dc_obj *o)
{
	int64_t at = bisect(v, *n, o->lo);

	if (at < 0 || v[at].o != o)
		return false;
	memmove(v + at, v + at + 1, (*n - (uint64_t)at - 1) * sizeof *v);
	(*n)--;
	return true;
}

/* ---- queries ----------------------------------------------------------- */

const struct dc_objmap_ent *dc_objmap_lookup(const struct dc_objmap *m, uint64_t addr)
{
	const struct dc_objmap_page *p = page_find(m, addr >> PAGE_BITS);
	int64_t i;

	if (p) {
		uint32_t k = p->line_idx[(addr >> LINE_BITS) & (PAGE_LINES - 1)];
		while (k > 0 && p->starts[k - 1].lo > addr)
			k--;
		if (k > 0 && addr < p->starts[k - 1].hi)
			return &p->starts[k - 1];
		if (p->cover.o && addr < p->cover.hi)
			return &p->cover;
	}
	i = bisect(m->large, m->nlarge, addr);
	if (i >= 0 && addr < m->large[i].hi)
		return &m->large[i];
	return NULL;
}

const struct dc_objmap_ent *dc_objmap_lookup_from(const struct dc_objmap *m, uint64_t addr,
						  uint64_t limit)
{
	const struct dc_objmap_ent *e = dc_objmap_lookup(m, addr), *best = NULL;
	const struct dc_objmap_page *p;
	int64_t i;

	if (e)
		return e;
	/* objects starting in addr's page after addr (limit is in that page) */
	p = page_find(m, addr >> PAGE_BITS);
	if (p) {
		i = bisect(p->starts, p->n, addr) + 1;
		if ((uint64_t)i < p->n && p->starts[i].lo < limit)
			best = &p->starts[i];
	}
	i = bisect(m->large, m->nlarge, addr) + 1;
	if ((uint64_t)i < m->nlarge && m->large[i].lo < limit && (!best || m->large[i].lo < best->lo))
		best = &m->large[i];
	return best;
}

struct dc_obj *dc_objmap_find(const struct dc_objmap *m, uint64_t addr)
{
	const struct dc_objmap_ent *e = dc_objmap_lookup(m, addr);
	return e ? e->o : NULL;
}

/* Every entry that describes o. */
static void each_ent(struct dc_objmap *m, struct dc_obj *o,
		     void (*fn)(struct dc_objmap_ent *e, struct dc_obj *o))
{
	uint64_t first = o->lo >> PAGE_BITS, last = (o->hi - 1) >> PAGE_BITS;
	int64_t i;

	if (is_large(o)) {
		i = bisect(m->large, m->nlarge, o->lo);
		if (i >= 0 && m->large[i].o == o)
			fn(&m->large[i], o);
		return;
	}
	for (uint64_t pg = first; pg <= last; pg++) {
		struct dc_objmap_page *p = page_find(m, pg);
		if (!p)
			continue;
		if (pg == first) {
			i = bisect(p->starts, p->n, o->lo);
			if (i >= 0 && p->starts[i].o == o)
				fn(&p->starts[i], o);
		} else if (p->cover.o == o) {
			fn(&p->cover, o);
		}
	}
}

void dc_objmap_rebucket(struct dc_objmap *m, struct dc_obj *o, uint32_t bucket)
{
	o->bucket = bucket;
	o->gen++;
	each_ent(m, o, ent_set);
}

bool dc_objmap_page_free(const struct dc_objmap *m, uint64_t addr)
{
	uint64_t pg = addr >> PAGE_BITS, page_lo = pg << PAGE_BITS;
	const struct dc_objmap_page *p = page_find(m, pg);
	int64_t i;

	if (p && (p->n || p->cover.o))
		return false;
	i = bisect(m->large, m->nlarge, page_lo + ((uint64_t)1 << PAGE_BITS) - 1);
	return !(i >= 0 && m->large[i].hi > page_lo);
}

static struct dc_obj *first_in_page(const struct dc_objmap_page *p, uint64_t lo, uint64_t hi)
{
	for (uint32_t k = 0; k < p->n; k++)
		if (p->starts[k].lo >= lo && p->starts[k].lo < hi)
			return p->starts[k].o;
	return NULL;
}

static struct dc_obj *first_starting_in(const struct dc_objmap *m, uint64_t lo, uint64_t hi);

/* Any object starting inside [lo, hi)? */
static bool starts_inside(const struct dc_objmap *m, uint64_t lo, uint64_t hi)
{
	return first_starting_in(m, lo, hi) != NULL;
}

/* ---- updates ----------------------------------------------------------- */

static void page_unlink(struct dc_objmap *m, struct dc_obj *o)
{
	uint64_t first = o->lo >> PAGE_BITS, last = (o->hi - 1) >> PAGE_BITS;

	for (uint64_t pg = first; pg <= last; pg++) {
		struct dc_objmap_page *p = page_find(m, pg);
		if (!p)
			continue;
		if (pg == first) {
			uint64_t n = p->n;
			if (vec_remove(p->starts, &n, o))
				page_index(p, o->lo, -1);
			p->n = (uint32_t)n;
		} else if (p->cover.o == o) {
			memset(&p->cover, 0, sizeof p->cover);
		}
	}
}

static int page_link(struct dc_objmap *m, struct dc_obj *o)
{
	uint64_t first = o->lo >> PAGE_BITS, last = (o->hi - 1) >> PAGE_BITS;
	struct dc_objmap_page *p;
	uint64_t n, cap;
	int rc;

	/* Reserve every page slot first so a failure leaves nothing linked. */
	rc = page_reserve(m, last - first + 1);
	if (rc)
		return rc;
	for (uint64_t pg = first; pg <= last; pg++)
		page_get(m, pg);
	p = page_find(m, first);
	n = p->n;
	cap = p->cap;
	rc = vec_insert(m->env, &p->starts, &n, &cap, o, "objmap.starts");
	if (rc)
		return rc;
	p->n = (uint32_t)n;
	p->cap = (uint32_t)cap;
	page_index(p, o->lo, 1);
	for (uint64_t pg = first + 1; pg <= last; pg++)
		ent_set(&page_find(m, pg)->cover, o);
	return 0;
}

int dc_objmap_insert(struct dc_objmap *m, struct dc_obj *o)
{
	int rc;

	if (o->hi <= o->lo)
		return DC_EINVAL;
	if (dc_objmap_find(m, o->lo) || starts_inside(m, o->lo, o->hi))
		return DC_EINVAL;
	if (is_large(o))
		rc = vec_insert(m->env, &m->large, &m->nlarge, &m->large_cap, o, "objmap.large");
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
		vec_remove(m->large, &m->nlarge, o);
	else
		page_unlink(m, o);
	m->nobjs--;
	dc_objmap_discard(m, o);
}

static struct dc_obj *first_starting_in(const struct dc_objmap *m, uint64_t lo, uint64_t hi)
{
	int64_t i = bisect(m->large, m->nlarge, hi - 1);

	if (i >= 0 && m->large[i].lo >= lo)
		return m->large[i].o;
	if (((hi - 1) >> PAGE_BITS) - (lo >> PAGE_BITS) > 4 * m->page_cap) {
		/* A huge range: cheaper to scan the table than the range. */
		for (uint64_t s = 0; s < m->page_cap; s++) {
			struct dc_obj *o = first_in_page(&m->pages[s], lo, hi);
			if (o)
				return o;
		}
		return NULL;
	}
	for (uint64_t pg = lo >> PAGE_BITS; pg <= (hi - 1) >> PAGE_BITS; pg++) {
		const struct dc_objmap_page *p = page_find(m, pg);
		struct dc_obj *o = p ? first_in_page(p, lo, hi) : NULL;
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
		for (int k = 0; k < SLAB_OBJS; k++)
			if (slab[k].live)
				fn(ud, &slab[k]);
	}
}
