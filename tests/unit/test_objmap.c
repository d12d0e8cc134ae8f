/* test_objmap.c — the address → object map: each rule of objmap.h's Notes,
 * a randomized comparison with a brute-force list of intervals, and an
 * allocation-failure walk that checks a failed insert changes nothing.
 *
 * Pages are 4 KiB: page(addr) = addr >> 12.  DC_OBJMAP_LARGE is 256 KiB;
 * objects of at most that size are "small" (page hash), larger ones "large"
 * (sorted array). */
#include <stdlib.h>
#include <string.h>

#include "core/objmap.h"
#include "host/port_libc.h"
#include "unit.h"

/* Inserts [lo, hi) and returns the record; the insert must succeed. */
static struct dc_obj *add(struct dc_objmap *m, uint64_t lo, uint64_t hi)
{
	struct dc_obj *o = dc_objmap_new(m);
	int rc;

	CHECK(o != NULL);
	o->lo = lo;
	o->hi = hi;
	rc = dc_objmap_insert(m, o);
	if (rc)
		dc_unit_fail(__FILE__, __LINE__, "insert [%#llx, %#llx): %d",
			     (unsigned long long)lo, (unsigned long long)hi, rc);
	CHECK_EQ(o->live, 1);
	return o;
}

/* Tries to insert [lo, hi); on failure returns the record to the pool. */
static int try_add(struct dc_objmap *m, uint64_t lo, uint64_t hi)
{
	struct dc_obj *o = dc_objmap_new(m);
	int rc;

	CHECK(o != NULL);
	o->lo = lo;
	o->hi = hi;
	rc = dc_objmap_insert(m, o);
	if (rc) {
		CHECK_EQ(o->live, 0);
		dc_objmap_discard(m, o);
	}
	return rc;
}

/* o is found at its first and last byte and nowhere just outside. */
static void check_bounds(const struct dc_objmap *m, const struct dc_obj *o)
{
	CHECK(dc_objmap_find(m, o->lo) == o);
	CHECK(dc_objmap_find(m, o->hi - 1) == o);
	CHECK(dc_objmap_find(m, (o->lo + o->hi) / 2) == o);
}

DC_TEST(objmap, insert_find_remove)
{
	struct dc_objmap m;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	CHECK(dc_objmap_find(&m, 0x1000) == NULL);
	struct dc_obj *o = add(&m, 0x1000, 0x1040);
	CHECK_EQ(m.nobjs, 1);
	CHECK(dc_objmap_find(&m, 0xfff) == NULL);
	CHECK(dc_objmap_find(&m, 0x1000) == o);
	CHECK(dc_objmap_find(&m, 0x103f) == o);
	CHECK(dc_objmap_find(&m, 0x1040) == NULL);       /* hi is outside */
	CHECK(dc_objmap_find(&m, 0) == NULL);
	CHECK(dc_objmap_find(&m, UINT64_MAX) == NULL);
	dc_objmap_remove(&m, o);
	CHECK_EQ(m.nobjs, 0);
	CHECK(dc_objmap_find(&m, 0x1000) == NULL);
	CHECK(dc_objmap_find(&m, 0x103f) == NULL);
	/* An object at address 0 of one byte (a malloc(0) block). */
	o = add(&m, 0, 1);
	CHECK(dc_objmap_find(&m, 0) == o);
	CHECK(dc_objmap_find(&m, 1) == NULL);
	dc_objmap_release(&m);
}

/* lookup_from: the object holding addr, else the first starting before
 * limit (small objects of the page, and a large one). */
DC_TEST(objmap, lookup_from_finds_the_next_object)
{
	struct dc_objmap m;
	struct dc_objmap_ent e;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	struct dc_obj *a = add(&m, 0x1010, 0x1018);
	struct dc_obj *b = add(&m, 0x1028, 0x1030);
	struct dc_obj *big = add(&m, 0x100000 + 0x20, 0x100000 + 0x20 + 2 * DC_OBJMAP_LARGE);
	CHECK(dc_objmap_lookup_from(&m, 0x1000, 0x1040, &e) && e.o == a);
	CHECK(dc_objmap_lookup_from(&m, 0x1014, 0x1040, &e) && e.o == a);  /* holds the address */
	CHECK(dc_objmap_lookup_from(&m, 0x1018, 0x1040, &e) && e.o == b);
	CHECK(!dc_objmap_lookup_from(&m, 0x1018, 0x1028, &e));   /* limit excluded */
	CHECK(!dc_objmap_lookup_from(&m, 0x1030, 0x1040, &e));
	CHECK(dc_objmap_lookup_from(&m, 0x100000, 0x100040, &e) && e.o == big);
	CHECK(!dc_objmap_lookup_from(&m, 0x100000, 0x100020, &e));
	/* a freed object in between is dead, not found: the next live one is */
	struct dc_obj *c = add(&m, 0x1040, 0x1048);
	struct dc_obj *d = add(&m, 0x1050, 0x1058);
	dc_objmap_remove(&m, c);
	CHECK(dc_objmap_lookup_from(&m, 0x1030, 0x1060, &e) && e.o == d);
	CHECK(!dc_objmap_lookup_from(&m, 0x1030, 0x1050, &e));
	dc_objmap_release(&m);
}

/* Empty and reversed ranges are refused. */
DC_TEST(objmap, rejects_empty_range)
{
	struct dc_objmap m;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	CHECK_EQ(try_add(&m, 0x1000, 0x1000), DC_EINVAL);
	CHECK_EQ(try_add(&m, 0x1000, 0xfff), DC_EINVAL);
	CHECK_EQ(m.nobjs, 0);
	dc_objmap_release(&m);
}

/* Kinds must fit the entries' 4 bits; the largest that does is kept. */
DC_TEST(objmap, rejects_kind_past_its_bits)
{
	struct dc_objmap m;
	struct dc_objmap_ent e;
	unsigned kind;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	struct dc_obj *o = dc_objmap_new(&m);
	CHECK(o);
	o->lo = 0x1000;
	o->hi = 0x1010;
	o->kind = DC_OBJMAP_KINDS;
	CHECK_EQ(dc_objmap_insert(&m, o), DC_EINVAL);
	o->kind = DC_OBJMAP_KINDS - 1;
	CHECK_EQ(dc_objmap_insert(&m, o), 0);
	CHECK(dc_objmap_lookup_start(&m, 0x1000, &e, &kind) && e.o == o);
	CHECK_EQ(kind, DC_OBJMAP_KINDS - 1);
	CHECK(!dc_objmap_lookup_start(&m, 0x1001, &e, &kind));
	dc_objmap_release(&m);
}

/* Every way [lo, hi) can overlap an existing object is refused with
 * DC_EINVAL and leaves the map as it was; touching is not overlapping. */
DC_TEST(objmap, overlap_is_refused)
{
	struct dc_objmap m;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	struct dc_obj *a = add(&m, 0x1000, 0x1100);
	struct dc_obj *big = add(&m, 0x100000, 0x200000);         /* 1 MiB: large */
	struct dc_obj *span = add(&m, 0x7f00, 0xa100);            /* pages 7..10 */
	static const uint64_t bad[][2] = {
		{ 0x1080, 0x1180 },     /* starts inside */
		{ 0xf00, 0x1001 },      /* ends inside */
		{ 0xf00, 0x1200 },      /* encloses */
		{ 0x1000, 0x1100 },     /* the same range (an alias) */
		{ 0x1010, 0x1020 },     /* inside */
		{ 0x10ff, 0x1100 },     /* the last byte */
		{ 0x180000, 0x180010 }, /* small inside large */
		{ 0xff000, 0x100001 },  /* small ending in large */
		{ 0x1fffff, 0x200100 }, /* small starting at large's last byte */
		{ 0x80000, 0x300000 },  /* large enclosing large */
		{ 0x1c0000, 0x400000 }, /* large starting in large */
		{ 0x0, 0x100000 + 1 },  /* large enclosing small ones */
		{ 0x9000, 0x9010 },     /* small in a covered page */
		{ 0x7000, 0x8000 },     /* ending in the spanning object */
		{ 0xa0ff, 0xb000 },     /* starting at its last byte */
		{ 0x6000, 0x4a000 },    /* enclosing it, small */
	};

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = try_add(&m, bad[i][0], bad[i][1]);
		if (rc != DC_EINVAL)
			dc_unit_fail(__FILE__, __LINE__, "[%#llx, %#llx) overlaps: rc %d",
				     (unsigned long long)bad[i][0],
				     (unsigned long long)bad[i][1], rc);
		CHECK_EQ(m.nobjs, 3);
		check_bounds(&m, a);
		check_bounds(&m, big);
		check_bounds(&m, span);
		CHECK(dc_objmap_find(&m, 0xfff) == NULL);
		CHECK(dc_objmap_find(&m, 0x1100) == NULL);
		CHECK(dc_objmap_find(&m, 0xfffff) == NULL);
		CHECK(dc_objmap_find(&m, 0x200000) == NULL);
		CHECK(dc_objmap_find(&m, 0x7eff) == NULL);
		CHECK(dc_objmap_find(&m, 0xa100) == NULL);
	}
	/* Neighbours that only touch are fine. */
	struct dc_obj *before = add(&m, 0xf00, 0x1000), *after = add(&m, 0x1100, 0x1200);
	struct dc_obj *lbefore = add(&m, 0xff000, 0x100000);
	struct dc_obj *lafter = add(&m, 0x200000, 0x400000);
	CHECK(dc_objmap_find(&m, 0xfff) == before);
	CHECK(dc_objmap_find(&m, 0x1000) == a);
	CHECK(dc_objmap_find(&m, 0x10ff) == a);
	CHECK(dc_objmap_find(&m, 0x1100) == after);
	CHECK(dc_objmap_find(&m, 0xfffff) == lbefore);
	CHECK(dc_objmap_find(&m, 0x100000) == big);
	CHECK(dc_objmap_find(&m, 0x1fffff) == big);
	CHECK(dc_objmap_find(&m, 0x200000) == lafter);
	CHECK_EQ(m.nobjs, 7);
	dc_objmap_release(&m);
}

/* 128 objects of 16 bytes, 32 bytes apart, all in page 5, inserted in a
 * scrambled order (i * 37 mod 128 visits every i since gcd(37, 128) = 1). */
DC_TEST(objmap, small_objects_share_a_page)
{
	struct dc_objmap m;
	struct dc_obj *o[128];

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	for (int k = 0; k < 128; k++) {
		int i = (k * 37) % 128;
		o[i] = add(&m, 0x5000 + 32 * i, 0x5000 + 32 * i + 16);
	}
	for (int i = 0; i < 128; i++) {
		uint64_t lo = 0x5000 + 32 * i;
		CHECK(dc_objmap_find(&m, lo) == o[i]);
		CHECK(dc_objmap_find(&m, lo + 15) == o[i]);
		CHECK(dc_objmap_find(&m, lo + 16) == NULL);
		CHECK(dc_objmap_find(&m, lo + 31) == NULL);
	}
	/* Remove the odd ones; the even ones stay, the gaps grow. */
	for (int i = 1; i < 128; i += 2)
		dc_objmap_remove(&m, o[i]);
	for (int i = 0; i < 128; i++) {
		uint64_t lo = 0x5000 + 32 * i;
		CHECK(dc_objmap_find(&m, lo) == (i % 2 ? NULL : o[i]));
		CHECK(dc_objmap_find(&m, lo + 8) == (i % 2 ? NULL : o[i]));
	}
	CHECK_EQ(m.nobjs, 64);
	CHECK(!dc_objmap_page_free(&m, 0x5000));
	dc_objmap_release(&m);
}

/* [0x7ff0, 0xa010) starts in page 7 and covers the first bytes of pages 8,
 * 9 and 10.  Neighbours start in page 7 before it and in page 10 after it. */
DC_TEST(objmap, object_spanning_pages)
{
	struct dc_objmap m;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	struct dc_obj *pre = add(&m, 0x7000, 0x7010);
	struct dc_obj *o = add(&m, 0x7ff0, 0xa010);
	struct dc_obj *post = add(&m, 0xa010, 0xa020);
	CHECK(dc_objmap_find(&m, 0x7fef) == NULL);
	CHECK(dc_objmap_find(&m, 0x7ff0) == o);
	CHECK(dc_objmap_find(&m, 0x8000) == o);
	CHECK(dc_objmap_find(&m, 0x8fff) == o);
	CHECK(dc_objmap_find(&m, 0x9000) == o);
	CHECK(dc_objmap_find(&m, 0xa000) == o);
	CHECK(dc_objmap_find(&m, 0xa00f) == o);
	CHECK(dc_objmap_find(&m, 0xa010) == post);
	CHECK(dc_objmap_find(&m, 0xa020) == NULL);
	CHECK(dc_objmap_find(&m, 0x7008) == pre);
	for (uint64_t pg = 7; pg <= 10; pg++)
		CHECK(!dc_objmap_page_free(&m, pg << 12));
	CHECK(dc_objmap_page_free(&m, 0xb000));
	CHECK(dc_objmap_page_free(&m, 0x6fff));

	/* Removing it clears the covered pages; page 10 keeps post. */
	dc_objmap_remove(&m, o);
	CHECK(dc_objmap_find(&m, 0x7ff0) == NULL);
	CHECK(dc_objmap_find(&m, 0x8000) == NULL);
	CHECK(dc_objmap_find(&m, 0xa000) == NULL);
	CHECK(dc_objmap_find(&m, 0xa010) == post);
	CHECK(dc_objmap_page_free(&m, 0x8000));
	CHECK(dc_objmap_page_free(&m, 0x9000));
	CHECK(!dc_objmap_page_free(&m, 0xa000));
	CHECK(!dc_objmap_page_free(&m, 0x7000));

	/* The space can be reused by a differently shaped object. */
	struct dc_obj *again = add(&m, 0x8800, 0xa010);
	CHECK(dc_objmap_find(&m, 0x87ff) == NULL);
	CHECK(dc_objmap_find(&m, 0x9000) == again);
	CHECK(dc_objmap_find(&m, 0xa00f) == again);
	dc_objmap_release(&m);
}

/* Exactly DC_OBJMAP_LARGE bytes is still small (65 pages when not page
 * aligned); one byte more is large.  Both are found everywhere inside, and
 * small objects next to a large one in the same page are found too. */
DC_TEST(objmap, large_objects)
{
	struct dc_objmap m;
	const uint64_t L = DC_OBJMAP_LARGE;

	CHECK_EQ(L, 256 << 10);
	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	struct dc_obj *s = add(&m, 0x1000010, 0x1000010 + L);
	CHECK_EQ(m.nlarge, 0);
	struct dc_obj *l = add(&m, 0x2000010, 0x2000010 + L + 1);
	CHECK_EQ(m.nlarge, 1);
	check_bounds(&m, s);
	check_bounds(&m, l);
	CHECK(dc_objmap_find(&m, 0x1000010 + L) == NULL);
	CHECK(dc_objmap_find(&m, 0x2000010 + L + 1) == NULL);
	CHECK(dc_objmap_find(&m, 0x200000f) == NULL);
	for (uint64_t a = 0x2000010; a < 0x2000010 + L + 1; a += 0x1000)
		CHECK(dc_objmap_find(&m, a) == l);

	/* Small neighbours in the large object's first and last pages. */
	struct dc_obj *n1 = add(&m, 0x2000000, 0x2000010);
	struct dc_obj *n2 = add(&m, 0x2000010 + L + 1, 0x2000010 + L + 9);
	CHECK(dc_objmap_find(&m, 0x2000000) == n1);
	CHECK(dc_objmap_find(&m, 0x200000f) == n1);
	CHECK(dc_objmap_find(&m, 0x2000010) == l);
	CHECK(dc_objmap_find(&m, 0x2000010 + L) == l);
	CHECK(dc_objmap_find(&m, 0x2000010 + L + 1) == n2);

	/* Several large ones, inserted out of order, are kept sorted. */
	struct dc_obj *big[6];
	static const int order[6] = { 3, 0, 5, 1, 4, 2 };
	for (int k = 0; k < 6; k++) {
		uint64_t lo = 0x10000000 + (uint64_t)order[k] * 0x1000000;
		big[order[k]] = add(&m, lo, lo + 0x800000 + (uint64_t)order[k]);
	}
	CHECK_EQ(m.nlarge, 7);
	for (int i = 0; i < 6; i++) {
		check_bounds(&m, big[i]);
		CHECK(dc_objmap_find(&m, big[i]->hi) == NULL);
		CHECK(dc_objmap_find(&m, big[i]->lo - 1) == NULL);
	}
	dc_objmap_remove(&m, big[2]);
	CHECK(dc_objmap_find(&m, big[2]->lo) == NULL);
	check_bounds(&m, big[1]);
	check_bounds(&m, big[3]);
	dc_objmap_remove(&m, l);
	CHECK(dc_objmap_find(&m, 0x2000010) == NULL);
	CHECK(dc_objmap_find(&m, 0x2000000) == n1);
	CHECK_EQ(m.nlarge, 5);
	dc_objmap_release(&m);
}

/* Removing an object increments gen and clears live; the record goes back
 * to the pool and comes back (gen kept, the rest zeroed), so a cached
 * (pointer, gen) pair is recognisably stale. */
DC_TEST(objmap, gen_marks_stale_records)
{
	struct dc_objmap m;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	struct dc_obj *o = add(&m, 0x4000, 0x4100);
	struct dc_obj *cached = o;
	uint32_t cached_gen = o->gen;
	o->kind = 3;
	o->alloc_seq = 77;
	dc_objmap_remove(&m, o);
	CHECK_EQ(o->gen, cached_gen + 1);
	CHECK_EQ(o->live, 0);
	CHECK(cached->gen != cached_gen);               /* stale */

	/* The pool is a free list: the record just returned is reused. */
	struct dc_obj *r = dc_objmap_new(&m);
	CHECK(r == o);
	CHECK_EQ(r->gen, cached_gen + 1);
	CHECK_EQ(r->kind, 0);
	CHECK_EQ(r->alloc_seq, 0);
	CHECK_EQ(r->lo, 0);
	r->lo = 0x4000;
	r->hi = 0x4100;
	CHECK_EQ(dc_objmap_insert(&m, r), 0);
	/* Same pointer, same address, different gen: still stale. */
	CHECK(dc_objmap_find(&m, 0x4000) == cached);
	CHECK(cached->gen != cached_gen);

	/* A record never inserted is discarded with a new gen too. */
	struct dc_obj *d = dc_objmap_new(&m);
	uint32_t g = d->gen;
	dc_objmap_discard(&m, d);
	CHECK_EQ(d->gen, g + 1);
	CHECK(dc_objmap_new(&m) == d);
	CHECK_EQ(d->gen, g + 1);
	dc_objmap_discard(&m, d);

	/* Removing and re-adding many times keeps counting up. */
	for (int i = 0; i < 5; i++) {
		dc_objmap_remove(&m, r);
		struct dc_obj *x = add(&m, 0x4000, 0x4100);
		CHECK(x == r);
	}
	CHECK_EQ(r->gen, cached_gen + 6);
	dc_objmap_release(&m);
}

/* A page is free when no object intersects it: objects that start in it,
 * cover it from an earlier page, or (large) cover any part of it. */
DC_TEST(objmap, page_free)
{
	struct dc_objmap m;
	const uint64_t L = DC_OBJMAP_LARGE;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	CHECK(dc_objmap_page_free(&m, 0));
	CHECK(dc_objmap_page_free(&m, 0x12345));
	/* Ends exactly at the page boundary: page 2 stays free. */
	struct dc_obj *a = add(&m, 0x1f00, 0x2000);
	CHECK(!dc_objmap_page_free(&m, 0x1000));
	CHECK(!dc_objmap_page_free(&m, 0x1fff));
	CHECK(dc_objmap_page_free(&m, 0x2000));
	CHECK(dc_objmap_page_free(&m, 0x0fff));
	/* One byte into page 4. */
	struct dc_obj *b = add(&m, 0x3f00, 0x4001);
	CHECK(!dc_objmap_page_free(&m, 0x3000));
	CHECK(!dc_objmap_page_free(&m, 0x4fff));
	CHECK(dc_objmap_page_free(&m, 0x5000));
	/* Large, page aligned: [0x1000000, 0x1080000). */
	struct dc_obj *l = add(&m, 0x1000000, 0x1080000);
	CHECK(dc_objmap_page_free(&m, 0xffffff));
	CHECK(!dc_objmap_page_free(&m, 0x1000000));
	CHECK(!dc_objmap_page_free(&m, 0x1040000));
	CHECK(!dc_objmap_page_free(&m, 0x107ffff));
	CHECK(dc_objmap_page_free(&m, 0x1080000));
	/* Large, mid-page at both ends: [0x2000800, 0x2040801). */
	struct dc_obj *l2 = add(&m, 0x2000800, 0x2000800 + L + 1);
	CHECK(dc_objmap_page_free(&m, 0x1fff000));
	CHECK(!dc_objmap_page_free(&m, 0x2000000));
	CHECK(!dc_objmap_page_free(&m, 0x2040000));
	CHECK(!dc_objmap_page_free(&m, 0x2040fff));
	CHECK(dc_objmap_page_free(&m, 0x2041000));
	/* Between the two large objects. */
	CHECK(dc_objmap_page_free(&m, 0x1800000));

	dc_objmap_remove(&m, a);
	dc_objmap_remove(&m, b);
	dc_objmap_remove(&m, l);
	dc_objmap_remove(&m, l2);
	CHECK(dc_objmap_page_free(&m, 0x1000));
	CHECK(dc_objmap_page_free(&m, 0x3000));
	CHECK(dc_objmap_page_free(&m, 0x4000));
	CHECK(dc_objmap_page_free(&m, 0x1000000));
	CHECK(dc_objmap_page_free(&m, 0x2000000));
	CHECK(dc_objmap_page_free(&m, 0x2040000));
	dc_objmap_release(&m);
}

struct seen {
	struct dc_objmap *m;
	struct dc_obj *o[64];
	int n;
};

/* The callback runs just before removal: the object is still in the map. */
static void note_removed(void *ud, struct dc_obj *o)
{
	struct seen *s = ud;

	CHECK_EQ(o->live, 1);
	CHECK(dc_objmap_find(s->m, o->lo) == o);
	CHECK(s->n < 64);
	s->o[s->n++] = o;
}

static bool saw(const struct seen *s, const struct dc_obj *o)
{
	for (int i = 0; i < s->n; i++)
		if (s->o[i] == o)
			return true;
	return false;
}

/* remove_in removes exactly the objects that start inside [lo, hi) —
 * small, spanning and large — and not one that starts before lo although
 * it overlaps the range, nor one starting at hi. */
DC_TEST(objmap, remove_in)
{
	struct dc_objmap m;
	struct seen s = { &m, { 0 }, 0 };

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	struct dc_obj *a = add(&m, 0x1000, 0x1100);
	struct dc_obj *b = add(&m, 0x2000, 0x2100);
	struct dc_obj *c = add(&m, 0x3000, 0x5000);
	struct dc_obj *d = add(&m, 0x100000, 0x200000);
	struct dc_obj *e = add(&m, 0x200000, 0x200100);
	dc_objmap_remove_in(&m, 0x1080, 0x200000, note_removed, &s);
	CHECK_EQ(s.n, 3);
	CHECK(saw(&s, b) && saw(&s, c) && saw(&s, d));
	CHECK(dc_objmap_find(&m, 0x1000) == a);
	CHECK(dc_objmap_find(&m, 0x200000) == e);
	CHECK(dc_objmap_find(&m, 0x2000) == NULL);
	CHECK(dc_objmap_find(&m, 0x4000) == NULL);
	CHECK(dc_objmap_find(&m, 0x180000) == NULL);
	CHECK_EQ(m.nobjs, 2);
	/* Their records went back to the pool with a new gen. */
	CHECK_EQ(b->live, 0);
	CHECK_EQ(d->gen, 1);

	/* Empty and reversed ranges remove nothing; fn may be NULL. */
	dc_objmap_remove_in(&m, 0x1000, 0x1000, NULL, NULL);
	dc_objmap_remove_in(&m, 0x2000, 0x1000, NULL, NULL);
	CHECK_EQ(m.nobjs, 2);
	dc_objmap_remove_in(&m, 0x1000, 0x1001, NULL, NULL);
	CHECK(dc_objmap_find(&m, 0x1000) == NULL);
	CHECK_EQ(m.nobjs, 1);
	dc_objmap_release(&m);
}

/* A range far wider than the page table (the munmap of a huge mapping)
 * removes the same objects as a narrow one would. */
DC_TEST(objmap, remove_in_huge_range)
{
	struct dc_objmap m;
	struct seen s = { &m, { 0 }, 0 };

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	struct dc_obj *keep = add(&m, 0x1000, 0x1010);
	struct dc_obj *x[5];
	x[0] = add(&m, 0x2000, 0x2010);
	x[1] = add(&m, 0x7ff0, 0x9010);
	x[2] = add(&m, 0x40000000, 0x40100000);
	x[3] = add(&m, 0x7f0000000000, 0x7f0000000040);
	x[4] = add(&m, 0xfffffffff000, 0xfffffffff100);
	struct dc_obj *tail = add(&m, (uint64_t)1 << 50, ((uint64_t)1 << 50) + 8);
	dc_objmap_remove_in(&m, 0x2000, (uint64_t)1 << 50, note_removed, &s);
	CHECK_EQ(s.n, 5);
	for (int i = 0; i < 5; i++)
		CHECK(saw(&s, x[i]));
	CHECK(dc_objmap_find(&m, 0x1000) == keep);
	CHECK(dc_objmap_find(&m, (uint64_t)1 << 50) == tail);
	CHECK(dc_objmap_find(&m, 0x8000) == NULL);
	CHECK(dc_objmap_find(&m, 0x7f0000000000) == NULL);
	CHECK_EQ(m.nobjs, 2);
	dc_objmap_remove_in(&m, 0, UINT64_MAX, NULL, NULL);
	CHECK_EQ(m.nobjs, 0);
	CHECK(dc_objmap_find(&m, 0x1000) == NULL);
	dc_objmap_release(&m);
}

struct visit {
	struct dc_obj **want;
	int nwant;
	int *count;          /* per wanted object */
	int other;
};

static void visit(void *ud, struct dc_obj *o)
{
	struct visit *v = ud;

	for (int i = 0; i < v->nwant; i++)
		if (v->want[i] == o) {
			v->count[i]++;
			return;
		}
	v->other++;
}

/* each visits every inserted object exactly once; removed records, records
 * never inserted and records of failed inserts are not visited. */
DC_TEST(objmap, each_visits_every_object_once)
{
	struct dc_objmap m;
	struct dc_obj *o[40];
	int count[40] = { 0 };
	struct visit v = { o, 40, count, 0 };

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	dc_objmap_each(&m, visit, &v);
	CHECK_EQ(v.other, 0);
	for (int i = 0; i < 40; i++) {
		uint64_t lo = 0x10000 + (uint64_t)i * 0x60000;
		o[i] = add(&m, lo, lo + (i % 4 == 3 ? 0x50000 : 0x10 + (uint64_t)i));
	}
	struct dc_obj *spare = dc_objmap_new(&m);          /* never inserted */
	CHECK(spare);
	CHECK_EQ(try_add(&m, 0x10000, 0x10001), DC_EINVAL);
	dc_objmap_each(&m, visit, &v);
	for (int i = 0; i < 40; i++)
		CHECK_EQ(count[i], 1);
	CHECK_EQ(v.other, 0);

	for (int i = 0; i < 40; i += 3)
		dc_objmap_remove(&m, o[i]);
	memset(count, 0, sizeof count);
	dc_objmap_each(&m, visit, &v);
	for (int i = 0; i < 40; i++)
		CHECK_EQ(count[i], i % 3 ? 1 : 0);
	CHECK_EQ(v.other, 0);
	dc_objmap_discard(&m, spare);
	dc_objmap_release(&m);
}

/* 5000 objects on distinct pages: the page table (16 slots at first)
 * grows several times and the record pool spans several slabs; records
 * never move, so the pointers held from the start still are the objects. */
DC_TEST(objmap, grows_with_many_objects)
{
	enum { N = 5000 };
	struct dc_objmap m;
	static struct dc_obj *o[N];

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	uint64_t cap0 = m.page_cap;
	for (int i = 0; i < N; i++) {
		uint64_t lo = (uint64_t)i * 0x5000 + 0x10 * (uint64_t)(i % 200);
		o[i] = add(&m, lo, lo + 100);
		o[i]->alloc_seq = (uint64_t)i;
	}
	CHECK(m.page_cap > cap0);
	CHECK_EQ(m.nobjs, N);
	for (int i = 0; i < N; i++) {
		check_bounds(&m, o[i]);
		CHECK_EQ(o[i]->alloc_seq, i);
		CHECK(dc_objmap_find(&m, o[i]->hi) == NULL);
		CHECK(dc_objmap_find(&m, o[i]->lo + 0x2000) == NULL);
	}
	for (int i = 0; i < N; i += 2)
		dc_objmap_remove(&m, o[i]);
	for (int i = 0; i < N; i++)
		CHECK(dc_objmap_find(&m, o[i]->lo) == (i % 2 ? o[i] : NULL));
	/* Refill on other pages. */
	for (int i = 0; i < N; i += 2) {
		uint64_t lo = 0x100000000 + (uint64_t)i * 0x2000;
		o[i] = add(&m, lo, lo + 0x1800);
	}
	for (int i = 0; i < N; i++)
		check_bounds(&m, o[i]);
	CHECK_EQ(m.nobjs, N);
	dc_objmap_release(&m);
}

/* ---- a randomized comparison ------------------------------------------------ */

struct ref_obj {
	uint64_t lo, hi;
	struct dc_obj *o;
};

struct ref_map {
	struct ref_obj *v;
	int n;
};

static struct dc_obj *ref_find(const struct ref_map *r, uint64_t addr)
{
	for (int i = 0; i < r->n; i++)
		if (r->v[i].lo <= addr && addr < r->v[i].hi)
			return r->v[i].o;
	return NULL;
}

/* The object starting exactly at addr. */
static struct dc_obj *ref_start(const struct ref_map *r, uint64_t addr)
{
	for (int i = 0; i < r->n; i++)
		if (r->v[i].lo == addr)
			return r->v[i].o;
	return NULL;
}

/* dc_objmap_lookup_start(addr) against the reference: the object starting
 * at addr with its bounds, bucket, generation and kind, or none. */
/* A lookup's answer (got, e) against the reference's object want. */
static void check_ent(bool got, const struct dc_objmap_ent *e, const struct dc_obj *want,
		      const char *what, uint64_t addr, int op)
{
	if (got != (want != NULL) || (got && e->o != want))
		dc_unit_fail(__FILE__, __LINE__, "op %d: %s %#llx", op, what,
			     (unsigned long long)addr);
	if (got) {
		CHECK_EQ(e->lo, want->lo);
		CHECK_EQ(e->hi, want->hi);
		CHECK_EQ(e->bucket, want->bucket);
		CHECK_EQ(e->gen, want->gen);
	}
}

static void check_start(const struct dc_objmap *m, const struct ref_map *r, uint64_t addr, int op)
{
	struct dc_obj *want = ref_start(r, addr);
	struct dc_objmap_ent e;
	unsigned kind = ~0u;
	bool got = dc_objmap_lookup_start(m, addr, &e, &kind);

	check_ent(got, &e, want, "lookup_start", addr, op);
	if (got)
		CHECK_EQ(kind, want->kind);
}

static bool ref_overlaps(const struct ref_map *r, uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < r->n; i++)
		if (r->v[i].lo < hi && lo < r->v[i].hi)
			return true;
	return false;
}

static void ref_drop(struct ref_map *r, int i)
{
	r->v[i] = r->v[--r->n];
}

/* Removes r->v[i] from m, by record or (odd `how`) by the entry that
 * dc_objmap_lookup_start gives for its start, which must leave the record
 * as dc_objmap_remove does: back in the pool with its gen incremented. */
static void remove_either(struct dc_objmap *m, struct ref_map *r, int i, uint64_t how)
{
	struct dc_obj *o = r->v[i].o;
	uint32_t gen = o->gen;

	if (how & 1) {
		struct dc_objmap_ent e;
		unsigned kind;
		CHECK(dc_objmap_lookup_start(m, r->v[i].lo, &e, &kind));
		CHECK(e.o == o);
		dc_objmap_remove_ent(m, &e);
		CHECK(m->free_list == o);
	} else {
		dc_objmap_remove(m, o);
	}
	CHECK_EQ(o->gen, gen + 1);
	CHECK_EQ(o->live, 0);
	ref_drop(r, i);
}

static uint64_t rng(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

struct removed {
	struct ref_map *r;
	int n;
};

static void drop_from_ref(void *ud, struct dc_obj *o)
{
	struct removed *rm = ud;

	for (int i = 0; i < rm->r->n; i++)
		if (rm->r->v[i].o == o) {
			ref_drop(rm->r, i);
			rm->n++;
			return;
		}
	dc_unit_fail(__FILE__, __LINE__, "remove_in removed an unknown object");
}

/* An address likely to be interesting: a boundary of an existing object,
 * inside one, or anywhere. */
static uint64_t pick_addr(const struct ref_map *r, uint64_t x, uint64_t space)
{
	if (r->n == 0 || x % 4 == 0)
		return (x >> 8) % space;
	const struct ref_obj *e = &r->v[(x >> 8) % (uint64_t)r->n];
	switch ((x >> 4) % 6) {
	case 0: return e->lo;
	case 1: return e->hi - 1;
	case 2: return e->hi;
	case 3: return e->lo ? e->lo - 1 : 0;
	case 4: return e->lo + (x >> 32) % (e->hi - e->lo);
	default: return (e->lo & ~(uint64_t)0xfff) + ((x >> 32) & 0xfff);
	}
}

static uint64_t pick_size(uint64_t x)
{
	switch (x % 20) {
	case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9:
	case 10:
		return 1 + (x >> 8) % 64;
	case 11: case 12: case 13: case 14:
		return 65 + (x >> 8) % 20000;
	case 15: case 16:
		return 20000 + (x >> 8) % DC_OBJMAP_LARGE;
	case 17:
		return DC_OBJMAP_LARGE + (x >> 8) % 2;
	default:
		return DC_OBJMAP_LARGE + 1 + (x >> 8) % (3 << 20);
	}
}

DC_TEST(objmap, matches_brute_force_reference)
{
	enum { OPS = 30000, MAXOBJ = 2500 };
	const uint64_t space = 64 << 20;
	struct dc_objmap m;
	struct ref_map r = { calloc(MAXOBJ, sizeof(struct ref_obj)), 0 };
	uint64_t seed = 20240611;
	long inserted = 0, refused = 0, found = 0, removed_in = 0;

	CHECK(r.v);
	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	for (int op = 0; op < OPS; op++) {
		uint64_t x = rng(&seed), y = rng(&seed);
		unsigned kind = (unsigned)(x % 100);

		if (kind < 40 && r.n < MAXOBJ) {
			uint64_t lo = pick_addr(&r, y, space), size = pick_size(x >> 8);
			/* Sometimes end exactly where an object starts. */
			if (r.n && (x >> 40) % 8 == 0) {
				uint64_t s = r.v[(y >> 16) % (uint64_t)r.n].lo;
				lo = s > size ? s - size : 0;
				size = s - lo;
				if (!size)
					continue;
			}
			bool want_ok = !ref_overlaps(&r, lo, lo + size);
			struct dc_obj *o = dc_objmap_new(&m);
			CHECK(o);
			o->lo = lo;
			o->hi = lo + size;
			o->kind = (uint8_t)((y >> 52) % DC_OBJMAP_KINDS);
			int rc = dc_objmap_insert(&m, o);
			if (rc != (want_ok ? 0 : DC_EINVAL))
				dc_unit_fail(__FILE__, __LINE__, "op %d: insert [%#llx, %#llx): rc %d, "
					     "want %d", op, (unsigned long long)lo,
					     (unsigned long long)(lo + size), rc,
					     want_ok ? 0 : DC_EINVAL);
			if (rc) {
				dc_objmap_discard(&m, o);
				refused++;
			} else {
				r.v[r.n++] = (struct ref_obj){ lo, lo + size, o };
				inserted++;
			}
		} else if (kind < 65 && r.n) {
			remove_either(&m, &r, (int)(y % (uint64_t)r.n), x >> 40);
		} else if (kind < 93) {
			uint64_t a = pick_addr(&r, y, space);
			check_start(&m, &r, a, op);
			struct dc_obj *want = ref_find(&r, a), *got = dc_objmap_find(&m, a);
			if (got != want)
				dc_unit_fail(__FILE__, __LINE__, "op %d: find %#llx gave [%#llx, %#llx), "
					     "want [%#llx, %#llx)", op, (unsigned long long)a,
					     got ? (unsigned long long)got->lo : 0ULL,
					     got ? (unsigned long long)got->hi : 0ULL,
					     want ? (unsigned long long)want->lo : 0ULL,
					     want ? (unsigned long long)want->hi : 0ULL);
			found += want != NULL;
		} else if (kind < 99) {
			uint64_t a = pick_addr(&r, y, space), pg = a & ~(uint64_t)0xfff;
			bool want = !ref_overlaps(&r, pg, pg + 0x1000);
			if (dc_objmap_page_free(&m, a) != want)
				dc_unit_fail(__FILE__, __LINE__, "op %d: page_free(%#llx) is %d",
					     op, (unsigned long long)a, !want);
		} else {
			uint64_t lo = pick_addr(&r, y, space), hi = lo + (x >> 12) % (2 << 20);
			struct removed rm = { &r, 0 };
			int expect = 0;
			for (int i = 0; i < r.n; i++)
				expect += r.v[i].lo >= lo && r.v[i].lo < hi;
			dc_objmap_remove_in(&m, lo, hi, drop_from_ref, &rm);
			CHECK_EQ(rm.n, expect);
			removed_in += rm.n;
		}
		CHECK_EQ(m.nobjs, r.n);
		if (op % 2000 == 1999)
			for (int i = 0; i < r.n; i++) {
				CHECK(dc_objmap_find(&m, r.v[i].lo) == r.v[i].o);
				CHECK(dc_objmap_find(&m, r.v[i].hi - 1) == r.v[i].o);
			}
	}
	/* The run must have exercised every outcome. */
	CHECK(inserted > 1000);
	CHECK(refused > 100);
	CHECK(found > 1000);
	CHECK(removed_in > 10);

	int *count = calloc((size_t)r.n + 1, sizeof *count);
	struct dc_obj **want = calloc((size_t)r.n + 1, sizeof *want);
	CHECK(count && want);
	for (int i = 0; i < r.n; i++)
		want[i] = r.v[i].o;
	struct visit v = { want, r.n, count, 0 };
	dc_objmap_each(&m, visit, &v);
	CHECK_EQ(v.other, 0);
	for (int i = 0; i < r.n; i++)
		CHECK_EQ(count[i], 1);
	free(count);
	free(want);
	free(r.v);
	dc_objmap_release(&m);
}

/* dc_objmap_resolve answers from the page alone while every granule (16
 * bytes) wholly inside an object belongs to objects of one bucket. */
DC_TEST(objmap, resolve_by_granule)
{
	struct dc_objmap m;
	struct dc_objmap_ent e;
	struct dc_obj *o[100], *other, *big;

	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	/* glibc's 24-byte blocks: 32 bytes apart, 16 past a chunk header. */
	for (int i = 0; i < 100; i++) {
		o[i] = dc_objmap_new(&m);
		o[i]->lo = 0x10010 + 32 * (uint64_t)i;
		o[i]->hi = o[i]->lo + 24;
		o[i]->bucket = 3;
		CHECK_EQ(dc_objmap_insert(&m, o[i]), 0);
	}
	CHECK_EQ(dc_objmap_resolve(&m, 0x10010 + 8, &e), DC_OBJMAP_GRAIN);
	CHECK_EQ(e.lo, 0x10010);
	CHECK_EQ(e.hi, 0x10020);
	CHECK_EQ(e.bucket, 3);
	CHECK(e.o == NULL);
	/* The block's last 8 bytes share a granule with the next header:
	 * they are the granule's first half, [0x10020, 0x10028), answered
	 * by its half bit; the header's 8 bytes belong to no object. */
	CHECK_EQ(dc_objmap_resolve(&m, 0x10010 + 20, &e), DC_OBJMAP_GRAIN);
	CHECK_EQ(e.lo, 0x10020);
	CHECK_EQ(e.hi, 0x10028);
	CHECK_EQ(e.bucket, 3);
	CHECK_EQ(dc_objmap_resolve(&m, 0x10010 + 24, &e), 0);
	/* A block ending 4 bytes into a granule's first half: by entry. */
	dc_objmap_remove(&m, o[99]);
	o[99] = dc_objmap_new(&m);
	o[99]->lo = 0x10010 + 32 * 99;
	o[99]->hi = o[99]->lo + 20;
	o[99]->bucket = 3;
	CHECK_EQ(dc_objmap_insert(&m, o[99]), 0);
	CHECK_EQ(dc_objmap_resolve(&m, o[99]->lo + 16, &e), DC_OBJMAP_OBJECT);
	CHECK(e.o == o[99]);
	CHECK_EQ(dc_objmap_resolve(&m, o[99]->lo + 20, &e), 0);
	/* A block of another bucket mixes the page; its removal leaves it
	 * mixed (the page's granules are not recounted) ... */
	other = dc_objmap_new(&m);
	other->lo = 0x10f00;
	other->hi = 0x10f40;
	other->bucket = 4;
	CHECK_EQ(dc_objmap_insert(&m, other), 0);
	CHECK_EQ(dc_objmap_resolve(&m, 0x10010, &e), DC_OBJMAP_OBJECT);
	CHECK_EQ(dc_objmap_resolve(&m, 0x10f10, &e), DC_OBJMAP_OBJECT);
	CHECK_EQ(e.bucket, 4);
	dc_objmap_remove(&m, other);
	CHECK_EQ(dc_objmap_resolve(&m, 0x10010, &e), DC_OBJMAP_OBJECT);
	/* ... until no granule is left: then the next object sets it. */
	for (int i = 0; i < 100; i++)
		dc_objmap_remove(&m, o[i]);
	o[0] = dc_objmap_new(&m);
	o[0]->lo = 0x10100;
	o[0]->hi = 0x10200;
	o[0]->bucket = 5;
	CHECK_EQ(dc_objmap_insert(&m, o[0]), 0);
	CHECK_EQ(dc_objmap_resolve(&m, 0x101f0, &e), DC_OBJMAP_GRAIN);
	CHECK_EQ(e.bucket, 5);
	/* Moving it to another bucket mixes the page. */
	dc_objmap_rebucket(&m, o[0], 6);
	CHECK_EQ(dc_objmap_resolve(&m, 0x101f0, &e), DC_OBJMAP_OBJECT);
	CHECK_EQ(e.bucket, 6);
	/* An object over several pages: its middle page by granule, its
	 * first and last too; a large object never (it has no page). */
	o[1] = dc_objmap_new(&m);
	o[1]->lo = 0x20008;
	o[1]->hi = 0x22ff8;
	o[1]->bucket = 7;
	CHECK_EQ(dc_objmap_insert(&m, o[1]), 0);
	CHECK_EQ(dc_objmap_resolve(&m, 0x21800, &e), DC_OBJMAP_GRAIN);
	CHECK_EQ(dc_objmap_resolve(&m, 0x20010, &e), DC_OBJMAP_GRAIN);
	CHECK_EQ(dc_objmap_resolve(&m, 0x2000f, &e), DC_OBJMAP_OBJECT);
	CHECK_EQ(dc_objmap_resolve(&m, 0x22fe8, &e), DC_OBJMAP_GRAIN);
	/* its last 8 bytes, the first half of their granule */
	CHECK_EQ(dc_objmap_resolve(&m, 0x22ff0, &e), DC_OBJMAP_GRAIN);
	CHECK_EQ(e.hi, 0x22ff8);
	CHECK_EQ(e.bucket, 7);
	CHECK_EQ(dc_objmap_resolve(&m, 0x22ff8, &e), 0);
	dc_objmap_remove(&m, o[1]);
	CHECK_EQ(dc_objmap_resolve(&m, 0x21800, &e), 0);
	big = dc_objmap_new(&m);
	big->lo = 0x1000000;
	big->hi = big->lo + 2 * DC_OBJMAP_LARGE;
	big->bucket = 8;
	CHECK_EQ(dc_objmap_insert(&m, big), 0);
	CHECK_EQ(dc_objmap_resolve(&m, big->lo + 0x1000, &e), DC_OBJMAP_OBJECT);
	CHECK(e.o == big);
	dc_objmap_release(&m);
}

/* An allocator's churn in three pages: blocks freed in any order and
 * allocated again at the same address, at addresses merged from several
 * freed blocks, or across them, as glibc's malloc does.  Removed objects
 * leave dead entries in their page (objmap.c), which every later insert,
 * lookup and removal must see through.  The reference is the brute-force
 * list above; every address of the three pages and the bytes around them
 * are looked up every 50 operations, and each hit's entry must carry the
 * record's bounds, bucket and generation. */
DC_TEST(objmap, churn_matches_brute_force_reference)
{
	enum { OPS = 40000, MAXOBJ = 800, FREED = 64 };
	const uint64_t base = 0x7000, span = 3 * 0x1000;
	struct dc_objmap m;
	struct ref_map r = { calloc(MAXOBJ, sizeof(struct ref_obj)), 0 };
	uint64_t freed[FREED] = { 0 }, seed = 20250611;
	long reused = 0, merged = 0, inserted = 0, refused = 0, rebucketed = 0, grains = 0, halves = 0;

	CHECK(r.v);
	CHECK_EQ(dc_objmap_init(&m, dc_env_libc()), 0);
	for (int op = 0; op < OPS; op++) {
		uint64_t x = rng(&seed), y = rng(&seed);
		unsigned kind = (unsigned)(x % 100);

		if (kind < 45 && r.n < MAXOBJ) {
			uint64_t lo, size;
			int how = (int)((x >> 8) % 4);
			if (how == 0) {                 /* a freed block again */
				lo = freed[(y >> 8) % FREED];
				size = 16 * (1 + (y >> 20) % 4);
			} else if (how == 1) {          /* freed neighbours merged */
				lo = freed[(y >> 8) % FREED];
				size = 16 * (2 + (y >> 20) % 16);
			} else {                        /* anywhere, any small size */
				lo = base + (y >> 8) % span;
				size = (x >> 16) % 8 == 0 ? 0x800 + (y >> 24) % 0x1800
							  : 1 + (y >> 24) % 200;
			}
			if (!lo)
				continue;
			bool want_ok = !ref_overlaps(&r, lo, lo + size);
			struct dc_obj *o = dc_objmap_new(&m);
			CHECK(o);
			o->lo = lo;
			o->hi = lo + size;
			o->bucket = (uint32_t)(y >> 40) % 7;
			o->kind = (uint8_t)((y >> 52) % DC_OBJMAP_KINDS);
			int rc = dc_objmap_insert(&m, o);
			if (rc != (want_ok ? 0 : DC_EINVAL))
				dc_unit_fail(__FILE__, __LINE__, "op %d: insert [%#llx, %#llx): rc %d",
					     op, (unsigned long long)lo,
					     (unsigned long long)(lo + size), rc);
			if (rc) {
				dc_objmap_discard(&m, o);
				refused++;
			} else {
				r.v[r.n++] = (struct ref_obj){ lo, lo + size, o };
				inserted++;
				reused += how == 0;
				merged += how == 1;
			}
		} else if (kind < 85 && r.n) {
			int i = (int)(y % (uint64_t)r.n);
			freed[(x >> 8) % FREED] = r.v[i].lo;
			remove_either(&m, &r, i, x >> 40);
		} else if (kind < 90 && r.n) {
			struct dc_obj *o = r.v[y % (uint64_t)r.n].o;
			uint32_t gen = o->gen;
			dc_objmap_rebucket(&m, o, (uint32_t)(x >> 32) % 7);
			CHECK_EQ(o->gen, gen + 1);
			rebucketed++;
		} else {
			uint64_t a = base - 64 + (y >> 8) % (span + 128);
			CHECK(dc_objmap_find(&m, a) == ref_find(&r, a));
		}
		CHECK_EQ(m.nobjs, r.n);
		if (op % 50 == 49)
			for (uint64_t a = base - 256; a < base + span + 256; a++) {
				struct dc_obj *want = ref_find(&r, a);
				struct dc_objmap_ent e;
				check_ent(dc_objmap_lookup(&m, a, &e), &e, want, "lookup", a, op);
				check_start(&m, &r, a, op);
				/* resolve: the object, or a granule wholly inside it
				 * with its bucket, or the first 8 bytes of one. */
				int how = dc_objmap_resolve(&m, a, &e);
				if (how == DC_OBJMAP_GRAIN) {
					CHECK(want != NULL);
					CHECK_EQ(e.lo, a & ~(uint64_t)15);
					if (e.hi == e.lo + 8) {
						CHECK(a < e.hi);
						halves++;
					} else {
						CHECK_EQ(e.hi, e.lo + 16);
					}
					CHECK(want->lo <= e.lo && e.hi <= want->hi);
					CHECK_EQ(e.bucket, want->bucket);
					grains++;
				} else {
					CHECK_EQ(how, want ? DC_OBJMAP_OBJECT : 0);
					CHECK(!want || e.o == want);
				}
				if ((a & 0xfff) == 0) {
					bool pf = !ref_overlaps(&r, a, a + 0x1000);
					CHECK_EQ(dc_objmap_page_free(&m, a), pf);
				}
			}
	}
	/* The run must have exercised every kind of insert. */
	CHECK(reused > 500);
	CHECK(merged > 500);
	CHECK(inserted > 3000);
	CHECK(refused > 1000);
	CHECK(rebucketed > 1000);
	CHECK(grains > 10000);
	CHECK(halves > 0);
	free(r.v);
	dc_objmap_release(&m);
}

/* ---- allocation failures ------------------------------------------------------ */

/* The objects the walk scenario inserts, in order. */
enum { W_DENSE = 1100, W_SPREAD = 600, W_MULTI = 20, W_LARGE = 12 };
#define W_TOTAL (W_DENSE + W_SPREAD + W_MULTI + 1 + W_LARGE)

static void walk_plan(int i, uint64_t *lo, uint64_t *hi)
{
	if (i < W_DENSE) {
		/* 2-byte objects 3 bytes apart in one page: more records than
		 * one slab holds and a starts array that grows ten times. */
		*lo = 0x10000000 + 3 * (uint64_t)i;
		*hi = *lo + 2;
		return;
	}
	i -= W_DENSE;
	if (i < W_SPREAD) {
		/* One per page: the page table has to grow. */
		*lo = 0x20000000 + (uint64_t)i * 0x3000 + (uint64_t)(i % 13) * 8;
		*hi = *lo + 40 + (uint64_t)(i % 50);
		return;
	}
	i -= W_SPREAD;
	if (i < W_MULTI) {
		*lo = 0x40000000 + (uint64_t)i * 0x100000 + 0x800;
		*hi = *lo + 0x1000 * (3 + (uint64_t)i) + 5;
		return;
	}
	i -= W_MULTI;
	if (i == 0) {
		/* The largest small object: 65 pages. */
		*lo = 0x50000010;
		*hi = *lo + DC_OBJMAP_LARGE;
		return;
	}
	i -= 1;
	*lo = 0x60000000 + (uint64_t)i * 0x1000000;
	*hi = *lo + DC_OBJMAP_LARGE + 1 + (uint64_t)i * 0x10000;
}

/* Inserts, finds, removes (one by one and with remove_in) and releases.
 * Every insert that fails must have changed nothing. */
static int objmap_scenario(const struct dc_env *env, void *ud)
{
	const struct dc_failenv *fe = env->ud;
	static bool in[W_TOTAL];
	struct dc_objmap m;
	int rc = dc_objmap_init(&m, env);

	if (rc)
		return rc;
	for (int i = 0; i < W_TOTAL; i++) {
		uint64_t lo, hi, n0 = m.nobjs;
		walk_plan(i, &lo, &hi);
		bool free_lo = dc_objmap_page_free(&m, lo), free_hi = dc_objmap_page_free(&m, hi - 1);
		struct dc_obj *o = dc_objmap_new(&m);

		in[i] = false;
		if (!o) {
			CHECK(fe->failures > 0);
			continue;
		}
		o->lo = lo;
		o->hi = hi;
		rc = dc_objmap_insert(&m, o);
		if (rc == 0) {
			in[i] = true;
			CHECK(dc_objmap_find(&m, lo) == o);
			CHECK(dc_objmap_find(&m, hi - 1) == o);
			continue;
		}
		CHECK_EQ(rc, DC_ENOMEM);
		CHECK(fe->failures > 0);
		CHECK_EQ(o->live, 0);
		CHECK_EQ(m.nobjs, n0);
		CHECK(dc_objmap_find(&m, lo) == NULL);
		CHECK(dc_objmap_find(&m, hi - 1) == NULL);
		CHECK(dc_objmap_find(&m, lo + (hi - lo) / 2) == NULL);
		CHECK_EQ(dc_objmap_page_free(&m, lo), free_lo);
		CHECK_EQ(dc_objmap_page_free(&m, hi - 1), free_hi);
		dc_objmap_discard(&m, o);
	}
	/* Everything that went in is still there, nothing else is. */
	for (int i = 0; i < W_TOTAL; i++) {
		uint64_t lo, hi;
		walk_plan(i, &lo, &hi);
		struct dc_obj *o = dc_objmap_find(&m, lo);
		CHECK(in[i] ? o != NULL && o->lo == lo && o->hi == hi : o == NULL);
	}
	/* Remove every other dense object, then the spread ones by range,
	 * then one large one. */
	for (int i = 0; i < W_DENSE; i += 2) {
		uint64_t lo, hi;
		walk_plan(i, &lo, &hi);
		struct dc_obj *o = dc_objmap_find(&m, lo);
		if (o)
			dc_objmap_remove(&m, o);
	}
	dc_objmap_remove_in(&m, 0x20000000, 0x30000000, NULL, NULL);
	{
		uint64_t lo, hi;
		walk_plan(W_TOTAL - 3, &lo, &hi);
		struct dc_obj *o = dc_objmap_find(&m, lo);
		if (o)
			dc_objmap_remove(&m, o);
		CHECK(dc_objmap_find(&m, lo) == NULL);
	}
	for (int i = 1; i < W_DENSE; i += 2) {
		uint64_t lo, hi;
		walk_plan(i, &lo, &hi);
		CHECK((dc_objmap_find(&m, lo) != NULL) == in[i]);
	}
	CHECK(dc_objmap_find(&m, 0x20000000) == NULL);
	dc_objmap_release(&m);
	return fe->failures ? DC_ENOMEM : 0;
}

DC_TEST(objmap, alloc_walk)
{
	DC_ALLOC_WALK(objmap_scenario, NULL);
}
