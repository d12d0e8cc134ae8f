/* test_blockmap.c — the small-block map (blockmap.h Notes): what fits,
 * replacement at one start, removal keeping the other blocks of a cluster
 * findable, containment lookups checked against a reference list of the
 * same blocks in several regions, the region limit, the recorded bit,
 * growth, allocation failure. */
#include "core/blockmap.h"
#include "core/util.h"
#include "unit.h"

static struct dc_failenv fe;

static const struct dc_env *env(void)
{
	dc_failenv_init(&fe, 0);
	return &fe.env;
}

static struct dc_blockmap_ent ent(uint64_t lo, uint64_t size, uint32_t bucket, bool recorded)
{
	struct dc_blockmap_ent e = { lo, size, bucket, recorded };
	return e;
}

#define REGION (1ULL << DC_BLOCKMAP_REGION_BITS)

DC_TEST(blockmap, fits)
{
	struct dc_blockmap_ent e = ent(0x7fff12345670, DC_BLOCKMAP_MAX, DC_BLOCKMAP_BUCKETS - 1,
				       true);

	CHECK(dc_blockmap_fits(&e));
	e.lo = 0x1008;                      /* not 16-byte aligned */
	CHECK(!dc_blockmap_fits(&e));
	e = ent(0x1000, DC_BLOCKMAP_MAX + 1, 0, false);
	CHECK(!dc_blockmap_fits(&e));
	e = ent(0x1000, 8, DC_BLOCKMAP_BUCKETS, false);
	CHECK(!dc_blockmap_fits(&e));
	/* a block ending at a region's end fits, one crossing into the next
	 * does not; a size-0 block covers one byte */
	e = ent(5 * REGION - 32, 32, 0, false);
	CHECK(dc_blockmap_fits(&e));
	e.size = 33;
	CHECK(!dc_blockmap_fits(&e));
	e = ent(5 * REGION - 16, 0, 0, false);
	CHECK(dc_blockmap_fits(&e));
	e = ent(5 * REGION, 0, 0, false);   /* key 0 of its region */
	CHECK(dc_blockmap_fits(&e));
	e = ent(0xfffffffffffffff0, 16, 0, false);   /* the last bytes of the space */
	CHECK(dc_blockmap_fits(&e));
	e.size = 17;                        /* would wrap past 2^64 */
	CHECK(!dc_blockmap_fits(&e));
}

/* The fields come back as they went in, at their limits too: the last
 * block of the address space, a block at key 0 of a region, size 0. */
DC_TEST(blockmap, put_take_roundtrip)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e = ent(0xfffffffffffffc00, DC_BLOCKMAP_MAX,
				       DC_BLOCKMAP_BUCKETS - 1, true), z = ent(3 * REGION, 0, 1, false),
			       got, old;

	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	CHECK_EQ(dc_blockmap_put(&m, &z, &old), 0);
	CHECK_EQ(m.nreg, 2);
	CHECK(dc_blockmap_lookup(&m, 0xffffffffffffffff, &got));
	CHECK_EQ(got.lo, e.lo);
	CHECK_EQ(got.size, e.size);
	CHECK_EQ(got.bucket, e.bucket);
	CHECK(got.recorded);
	CHECK(dc_blockmap_lookup(&m, 3 * REGION, &got));
	CHECK_EQ(got.lo, z.lo);
	CHECK_EQ(got.size, 0);
	CHECK_EQ(got.bucket, 1);
	CHECK(!got.recorded);
	CHECK(!dc_blockmap_lookup(&m, 3 * REGION + 1, &got));
	CHECK(!dc_blockmap_lookup(&m, 3 * REGION - 1, &got));
	CHECK(!dc_blockmap_take(&m, e.lo + 16, &got));
	CHECK(dc_blockmap_take(&m, e.lo, &got));
	CHECK(got.recorded);
	CHECK_EQ(got.bucket, DC_BLOCKMAP_BUCKETS - 1);
	CHECK(dc_blockmap_take(&m, z.lo, &got));
	CHECK_EQ(m.n, 0);
	CHECK(!dc_blockmap_lookup(&m, e.lo, &got));
	dc_blockmap_release(&m);
}

/* A block put where another starts replaces it and reports the old one;
 * a size-0 block covers its first byte only. */
DC_TEST(blockmap, replace_and_zero_size)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e = ent(0x2000, 64, 3, true), got, old;

	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	e = ent(0x2000, 0, 4, false);
	CHECK_EQ(dc_blockmap_put(&m, &e, &old), 1);
	CHECK_EQ(old.bucket, 3);
	CHECK_EQ(old.size, 64);
	CHECK(old.recorded);
	CHECK_EQ(m.n, 1);
	CHECK(dc_blockmap_lookup(&m, 0x2000, &got));
	CHECK_EQ(got.bucket, 4);
	CHECK(!got.recorded);
	CHECK(!dc_blockmap_lookup(&m, 0x2001, &got));
	dc_blockmap_release(&m);
}

/* The map holds DC_BLOCKMAP_REGIONS regions: a block of one more does not
 * go in (DC_ERANGE) until a region is left without blocks, which is then
 * taken over; lookups in it no longer find its old blocks. */
DC_TEST(blockmap, regions_full)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e, got, old;

	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	for (uint64_t r = 0; r < DC_BLOCKMAP_REGIONS; r++) {
		e = ent(r * 2 * REGION + 0x1000, 24, (uint32_t)r, false);
		CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	}
	e = ent(99 * REGION + 0x1000, 24, 99, false);
	CHECK_EQ(dc_blockmap_put(&m, &e, &old), DC_ERANGE);
	CHECK_EQ(m.n, DC_BLOCKMAP_REGIONS);
	CHECK(!dc_blockmap_lookup(&m, 99 * REGION + 0x1000, &got));
	CHECK(dc_blockmap_take(&m, 4 * REGION + 0x1000, &got));   /* region 2's only block */
	CHECK_EQ(got.bucket, 2);
	CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	CHECK_EQ(m.nreg, DC_BLOCKMAP_REGIONS);
	CHECK(dc_blockmap_lookup(&m, 99 * REGION + 0x1010, &got));
	CHECK_EQ(got.bucket, 99);
	CHECK(!dc_blockmap_lookup(&m, 4 * REGION + 0x1000, &got));
	for (uint64_t r = 0; r < DC_BLOCKMAP_REGIONS; r++) {
		if (r == 2)
			continue;
		CHECK(dc_blockmap_lookup(&m, r * 2 * REGION + 0x1000 + 23, &got));
		CHECK_EQ(got.bucket, (uint32_t)r);
	}
	dc_blockmap_release(&m);
}

/* 200,000 blocks of sizes 0..1024 (both ends included) laid out without
 * overlap in four runs — one in a region of its own, one ending at the
 * last byte of a region and one starting at the first byte of the next
 * (key 0), one in a far region — put in random order, half of them
 * removed again in another order: after each phase every address near
 * every block resolves as a search of the reference list says (the block
 * whose [lo, lo + max(size, 1)) holds it, else none), with its bucket
 * (near 2^20) and recorded bit. */
#define NB 200000
static uint64_t ref_lo[NB], ref_size[NB];
static bool ref_live[NB];

static uint32_t bucket_of(int64_t i)
{
	return DC_BLOCKMAP_BUCKETS - 1 - (uint32_t)i;
}

static int64_t ref_find(uint64_t addr)
{
	/* the blocks are laid out in increasing lo: bisect for the last lo <= addr */
	int64_t lo = 0, hi = NB - 1, best = -1;

	while (lo <= hi) {
		int64_t mid = (lo + hi) / 2;
		if (ref_lo[mid] <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	/* the nearest live start below addr */
	while (best >= 0 && !ref_live[best])
		best--;
	if (best >= 0 && addr < ref_lo[best] + (ref_size[best] ? ref_size[best] : 1))
		return best;
	return -1;
}

static void check_all(struct dc_blockmap *m, uint64_t *rng)
{
	struct dc_blockmap_ent got;

	for (int k = 0; k < 50000; k++) {
		int64_t i = (int64_t)(dc_rand64(rng) % NB);
		uint64_t addr = ref_lo[i] + dc_rand64(rng) % 1100;
		int64_t want = ref_find(addr);
		bool found = dc_blockmap_lookup(m, addr, &got);
		CHECK_EQ(found, want >= 0);
		if (found) {
			CHECK_EQ(got.lo, ref_lo[want]);
			CHECK_EQ(got.size, ref_size[want]);
			CHECK_EQ(got.bucket, bucket_of(want));
			CHECK_EQ(got.recorded, want % 3 == 0);
		}
	}
}

DC_TEST(blockmap, against_reference)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e, old;
	static uint32_t order[NB];
	uint64_t rng = 42, gap[NB];
	/* run k: blocks [k * NB / 4, (k + 1) * NB / 4), starting at start[k];
	 * run 1's start is set below so that it ends at 7 * REGION */
	uint64_t start[4] = { 5 * REGION + 0x10000, 0, 7 * REGION, 0x7f0000000000 }, span = 0;

	for (int i = 0; i < NB; i++) {
		ref_size[i] = dc_rand64(&rng) % 8 == 0 ? dc_rand64(&rng) % (DC_BLOCKMAP_MAX + 1)
						       : 16 + dc_rand64(&rng) % 48;
		gap[i] = 16 * (dc_rand64(&rng) % 4);   /* 0..3 granules after each block */
		ref_live[i] = true;
		order[i] = (uint32_t)i;
	}
	ref_size[10] = 0;
	ref_size[11] = DC_BLOCKMAP_MAX;
	ref_size[NB / 2 - 1] = DC_BLOCKMAP_MAX;   /* run 1's last: its last byte the region's */
	gap[NB / 2 - 1] = 0;
	ref_size[NB / 2] = 0;                     /* run 2's first: key 0 */
	for (int i = NB / 4; i < NB / 2; i++)
		span += (((ref_size[i] ? ref_size[i] : 1) + 15) & ~15ULL) + gap[i];
	start[1] = 7 * REGION - span;
	for (int k = 0; k < 4; k++) {
		uint64_t lo = start[k];
		for (int i = k * NB / 4; i < (k + 1) * NB / 4; i++) {
			ref_lo[i] = lo;
			lo += (((ref_size[i] ? ref_size[i] : 1) + 15) & ~15ULL) + gap[i];
		}
	}
	CHECK_EQ(ref_lo[NB / 2 - 1] + ref_size[NB / 2 - 1], 7 * REGION);
	CHECK_EQ(ref_lo[NB / 2], 7 * REGION);
	for (int i = NB - 1; i > 0; i--) {
		int j = (int)(dc_rand64(&rng) % (uint64_t)(i + 1));
		uint32_t t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	for (int k = 0; k < NB; k++) {
		int i = (int)order[k];
		e = ent(ref_lo[i], ref_size[i], bucket_of(i), i % 3 == 0);
		CHECK(dc_blockmap_fits(&e));
		CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	}
	CHECK_EQ(m.n, NB);
	CHECK_EQ(m.nreg, 4);
	CHECK(4 * m.n <= 3 * m.cap);
	check_all(&m, &rng);
	for (int k = 0; k < NB; k += 2) {
		int i = (int)order[(k * 7919) % NB];
		if (!ref_live[i])
			continue;
		CHECK(dc_blockmap_take(&m, ref_lo[i], &e));
		CHECK_EQ(e.bucket, bucket_of(i));
		CHECK_EQ(e.recorded, i % 3 == 0);
		ref_live[i] = false;
	}
	check_all(&m, &rng);
	for (int i = 0; i < NB; i++)
		if (!ref_live[i])
			CHECK(!dc_blockmap_take(&m, ref_lo[i], &e));
	dc_blockmap_release(&m);
}

/* unmark_all clears every recorded bit and nothing else. */
DC_TEST(blockmap, unmark_all)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e, got, old;

	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	for (uint64_t i = 1; i <= 5000; i++) {
		e = ent(i * 64 + (i % 2) * REGION, 32, (uint32_t)i, true);
		CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	}
	dc_blockmap_unmark_all(&m);
	for (uint64_t i = 1; i <= 5000; i++) {
		CHECK(dc_blockmap_lookup(&m, i * 64 + (i % 2) * REGION + 31, &got));
		CHECK_EQ(got.bucket, (uint32_t)i);
		CHECK_EQ(got.size, 32);
		CHECK(!got.recorded);
	}
	dc_blockmap_release(&m);
}

/* Growing fails: the map keeps what it had. */
static int blockmap_scenario(const struct dc_env *env, void *ud)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e, old;
	int rc = dc_blockmap_init(&m, env);

	(void)ud;
	if (rc)
		return rc;
	for (uint64_t i = 1; i <= 3000 && !rc; i++) {
		e = ent(i * 32 + (i % 3) * REGION, 24, 1, false);   /* three regions */
		rc = dc_blockmap_put(&m, &e, &old);
		if (rc == DC_ENOMEM && m.n != i - 1)
			rc = DC_EINVAL;
	}
	dc_blockmap_release(&m);
	return rc < 0 ? rc : 0;
}

DC_TEST(blockmap, alloc_walk)
{
	DC_ALLOC_WALK(blockmap_scenario, NULL);
}
