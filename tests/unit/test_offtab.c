/* test_offtab.c — accesses by offset (offtab.h Notes): one cell per
 * (bucket, offset) counting reads, writes, misses per level, latency and
 * the widest access; offsets at or past the window, new cells of a bucket
 * with its share and new cells once max_cells cells exist go to the
 * bucket's beyond cell; a bucket's grain is the least (at most 8) with
 * which its share covers its first object; zeroing keeps the cells; bad
 * sizes are DC_EINVAL. */
#include "core/offtab.h"
#include "host/port_libc.h"
#include "unit.h"

static const uint32_t lat[] = { 0, 4, 14, 200 };
/* Objects of 4096 bytes: with the shares below (>= 4096 cells), grain 1. */
#define OSIZE 4096

static void count(struct dc_offtab *t, uint32_t bucket, uint64_t off, uint32_t size,
		  int is_write, int served)
{
	struct dc_offcell *c = dc_offtab_cell(t, bucket, off, OSIZE);

	CHECK(c != NULL);
	dc_offcell_count(c, size, is_write, served, lat);
}

static long ncells(const struct dc_offtab *t)
{
	long n = 0;

	for (uint64_t i = 0; i < t->r.cap; i++)
		n += t->r.slots[i] != NULL;
	return n;
}

DC_TEST(offtab, counts_per_bucket_and_offset)
{
	struct dc_offtab t;
	struct dc_offcell *c;

	CHECK_EQ(dc_offtab_init(&t, dc_env_libc(), 4096, 100, 1000000, false), 0);
	count(&t, 1, 8, 8, 0, 1);      /* read, L1 hit */
	count(&t, 1, 8, 4, 1, 3);      /* write, missed L1 and L2 */
	count(&t, 2, 8, 16, 0, 2);     /* another bucket */
	c = dc_offtab_cell(&t, 1, 8, OSIZE);
	CHECK_EQ(c->acc[0], 1);
	CHECK_EQ(c->acc[1], 1);
	CHECK_EQ(c->miss[0], 1);
	CHECK_EQ(c->miss[1], 1);
	CHECK_EQ(c->miss[2], 0);
	CHECK_EQ(c->lat, 4 + 200);
	CHECK_EQ(c->size, 8);          /* the widest */
	CHECK(dc_offtab_cell(&t, 2, 8, OSIZE) != c);
	CHECK_EQ(dc_offtab_cell(&t, 2, 8, OSIZE)->size, 16);
	CHECK_EQ(t.cells, 2);
	dc_offtab_release(&t);
}

DC_TEST(offtab, window_and_cap_go_beyond)
{
	struct dc_offtab t;
	struct dc_offcell *b;

	CHECK_EQ(dc_offtab_init(&t, dc_env_libc(), 64, 3, 1000000, false), 0);
	count(&t, 0, 63, 1, 0, 1);
	count(&t, 0, 64, 8, 0, 1);     /* past the window */
	count(&t, 0, 1u << 20, 8, 1, 1);
	b = dc_offtab_cell(&t, 0, 64, OSIZE);
	CHECK_EQ(b->off, DC_OFF_BEYOND);
	CHECK_EQ(b->acc[0], 1);
	CHECK_EQ(b->acc[1], 1);
	count(&t, 0, 0, 8, 0, 1);
	count(&t, 1, 0, 8, 0, 1);      /* the third cell: the cap */
	CHECK_EQ(t.cells, 3);
	count(&t, 0, 8, 8, 0, 1);      /* new, once full: beyond */
	count(&t, 0, 0, 8, 0, 1);      /* a cell made before still counts */
	CHECK_EQ(dc_offtab_cell(&t, 0, 0, OSIZE)->acc[0], 2);
	CHECK_EQ(b->acc[0], 2);
	CHECK_EQ(t.cells, 3);
	CHECK_EQ(ncells(&t), 5);       /* three cells and two buckets' beyond */
	dc_offtab_zero(&t);
	CHECK_EQ(b->acc[0] + b->acc[1] + b->lat + b->size, 0);
	CHECK_EQ(ncells(&t), 5);
	dc_offtab_release(&t);
	CHECK_EQ(dc_offtab_init(&t, dc_env_libc(), 0, 1, 1000000, false), DC_EINVAL);
	CHECK_EQ(dc_offtab_init(&t, dc_env_libc(), 64, 0, 1000000, false), DC_EINVAL);
	CHECK_EQ(dc_offtab_init(&t, dc_env_libc(), 64, 1, 0, false), DC_EINVAL);
	CHECK_EQ(dc_offtab_init(&t, dc_env_libc(), DC_OFF_WINDOW_MAX + 1, 1, 1000000, false), DC_EINVAL);
}

/* Unused bytes (offtab.h Notes): a run is two boundary counts; past the
 * window and once the cap is reached, bytes in the beyond cell. */
DC_TEST(offtab, unused_runs_are_boundary_pairs)
{
	struct dc_offtab t;
	struct dc_offcell *c;

	CHECK_EQ(dc_offtab_init(&t, dc_env_libc(), 128, 4, 1000000, true), 0);
	dc_offtab_unused(&t, 1, 8, 64, 0, OSIZE);      /* bytes 8..63 at level 1 */
	dc_offtab_unused(&t, 1, 8, 64, 1, OSIZE);      /* and at level 2 */
	dc_offtab_unused(&t, 1, 16, 64, 0, OSIZE);     /* a run ending at the same place */
	c = dc_offtab_cell(&t, 1, 8, OSIZE);
	CHECK_EQ(c->ubeg[0], 1);
	CHECK_EQ(c->ubeg[1], 1);
	CHECK_EQ(c->uend[0], 0);
	CHECK_EQ(dc_offtab_cell(&t, 1, 16, OSIZE)->ubeg[0], 1);
	c = dc_offtab_cell(&t, 1, 64, OSIZE);
	CHECK_EQ(c->uend[0], 2);
	CHECK_EQ(c->uend[1], 1);
	CHECK_EQ(c->ubeg[0], 0);
	CHECK_EQ(t.cells, 3);
	/* ending at the window: no end cell; past it: the rest as bytes */
	dc_offtab_unused(&t, 1, 120, 128, 0, OSIZE);
	dc_offtab_unused(&t, 1, 120, 200, 0, OSIZE);
	CHECK_EQ(dc_offtab_cell(&t, 1, 120, OSIZE)->ubeg[0], 2);
	CHECK_EQ(t.cells, 4);
	c = dc_offtab_cell(&t, 1, 128, OSIZE);
	CHECK_EQ(c->off, DC_OFF_BEYOND);
	CHECK_EQ(c->ubeg[0], 72);
	/* the cap is reached: a run needing a new cell counts as bytes */
	dc_offtab_unused(&t, 1, 8, 40, 0, OSIZE);
	CHECK_EQ(c->ubeg[0], 72 + 32);
	CHECK_EQ(dc_offtab_cell(&t, 1, 8, OSIZE)->ubeg[0], 1);
	/* a run whose cells exist still counts as a run */
	dc_offtab_unused(&t, 1, 16, 64, 1, OSIZE);
	CHECK_EQ(dc_offtab_cell(&t, 1, 16, OSIZE)->ubeg[1], 1);
	CHECK_EQ(dc_offtab_cell(&t, 1, 64, OSIZE)->uend[1], 2);
	dc_offtab_zero(&t);
	CHECK_EQ(dc_offtab_cell(&t, 1, 64, OSIZE)->uend[1] + c->ubeg[0], 0);
	dc_offtab_release(&t);
}

/* The share and the grain (offtab.h Notes): share 4 cells.  Bucket 0's
 * first object has 16 bytes: 16 / 4 = 4-byte cells, at 0, 4, 8, 12.
 * Bucket 1's has 1000: 1000 / 4 = 250, more than the widest grain, so
 * 8-byte cells at 0, 8, 16, 24 and offset 32 (a fifth cell) is beyond.
 * Bucket 2 still gets its cells: 4 + 4 + 1 = 9 of the cap's 100. */
DC_TEST(offtab, share_and_grain)
{
	struct dc_offtab t;
	struct dc_offcell *c;

	CHECK_EQ(dc_offtab_init(&t, dc_env_libc(), 4096, 100, 4, true), 0);
	for (uint64_t o = 0; o < 16; o++)      /* zeroed byte by byte */
		dc_offcell_count(dc_offtab_cell(&t, 0, o, 16), 1, 1, 1, lat);
	c = dc_offtab_cell(&t, 0, 0, 16);
	CHECK_EQ(c->acc[1], 4);
	CHECK_EQ(c->mask, 3);
	CHECK(dc_offtab_cell(&t, 0, 3, 16) == c);
	CHECK_EQ(dc_offtab_cell(&t, 0, 12, 16)->off, 12);
	CHECK_EQ(dc_offtab_cell(&t, 0, 15, 16)->acc[1], 4);
	for (uint64_t o = 0; o < 40; o += 4)
		dc_offcell_count(dc_offtab_cell(&t, 1, o, 1000), 4, 0, 1, lat);
	CHECK_EQ(dc_offtab_cell(&t, 1, 12, 1000)->off, 8);
	CHECK_EQ(dc_offtab_cell(&t, 1, 12, 1000)->acc[0], 2);
	c = dc_offtab_cell(&t, 1, 32, 1000);
	CHECK_EQ(c->off, DC_OFF_BEYOND);
	CHECK_EQ(c->acc[0], 2);                /* offsets 32 and 36 */
	CHECK_EQ(c->ncells, 4);
	CHECK_EQ(dc_offtab_cell(&t, 2, 0, 1)->off, 0);
	CHECK_EQ(t.cells, 9);
	/* unused runs in whole grains: [1, 11) of bucket 0 is [4, 8) */
	dc_offtab_unused(&t, 0, 1, 11, 0, 16);
	CHECK_EQ(dc_offtab_cell(&t, 0, 4, 16)->ubeg[0], 1);
	CHECK_EQ(dc_offtab_cell(&t, 0, 8, 16)->uend[0], 1);
	dc_offtab_unused(&t, 0, 5, 7, 0, 16);  /* within a grain: nothing */
	CHECK_EQ(dc_offtab_cell(&t, 0, 4, 16)->ubeg[0], 1);
	CHECK_EQ(dc_offtab_cell(&t, 0, 8, 16)->ubeg[0], 0);
	CHECK_EQ(t.cells, 9);
	dc_offtab_release(&t);
}
