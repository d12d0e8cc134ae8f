/* test_blockmap.c — the small-block map (blockmap.h Notes): what fits,
 * replacement at one start, removal keeping the other blocks of a cluster
 * findable, containment lookups checked against a brute-force list of the
 * same blocks, growth, allocation failure. */
#include "core/blockmap.h"
#include "core/util.h"
#include "unit.h"

static struct dc_failenv fe;

static const struct dc_env *env(void)
{
	dc_failenv_init(&fe, 0);
	return &fe.env;
}

static struct dc_blockmap_ent ent(uint64_t lo, uint64_t size, uint32_t bucket, uint64_t seq)
{
	struct dc_blockmap_ent e = { lo, size, seq, bucket };
	return e;
}

DC_TEST(blockmap, fits)
{
	struct dc_blockmap_ent e = ent(0x7fff12345670, DC_BLOCKMAP_MAX, (1u << 24) - 1,
				       (1ULL << 40) - 1);

	CHECK(dc_blockmap_fits(&e));
	e.lo = 0;                           /* no block starts at 0 */
	CHECK(!dc_blockmap_fits(&e));
	e.lo = 0x1008;                      /* not 16-byte aligned */
	CHECK(!dc_blockmap_fits(&e));
	e.lo = 1ULL << 48;                  /* beyond 44 bits of lo / 16 */
	CHECK(!dc_blockmap_fits(&e));
	e = ent(0x1000, DC_BLOCKMAP_MAX + 1, 0, 0);
	CHECK(!dc_blockmap_fits(&e));
	e = ent(0x1000, 8, 1u << 24, 0);
	CHECK(!dc_blockmap_fits(&e));
	e = ent(0x1000, 8, 0, 1ULL << 40);
	CHECK(!dc_blockmap_fits(&e));
}

/* The fields come back as they went in, at their limits too. */
DC_TEST(blockmap, put_take_roundtrip)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e = ent(0xfffffffffc00, DC_BLOCKMAP_MAX, (1u << 24) - 1,
				       (1ULL << 40) - 1), got, old;

	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	CHECK(dc_blockmap_lookup(&m, 0xfffffffffc00 + 100, &got));
	CHECK_EQ(got.lo, e.lo);
	CHECK_EQ(got.size, e.size);
	CHECK_EQ(got.bucket, e.bucket);
	CHECK_EQ(got.seq, e.seq);
	CHECK(!dc_blockmap_take(&m, 0xfffffffffc00 + 16, &got));
	CHECK(dc_blockmap_take(&m, 0xfffffffffc00, &got));
	CHECK_EQ(got.seq, e.seq);
	CHECK_EQ(m.n, 0);
	CHECK(!dc_blockmap_lookup(&m, 0xfffffffffc00, &got));
	dc_blockmap_release(&m);
}

/* A block put where another starts replaces it and reports the old one;
 * a size-0 block covers its first byte only. */
DC_TEST(blockmap, replace_and_zero_size)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e = ent(0x2000, 64, 3, 1), got, old;

	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	e = ent(0x2000, 0, 4, 2);
	CHECK_EQ(dc_blockmap_put(&m, &e, &old), 1);
	CHECK_EQ(old.bucket, 3);
	CHECK_EQ(old.size, 64);
	CHECK_EQ(m.n, 1);
	CHECK(dc_blockmap_lookup(&m, 0x2000, &got));
	CHECK_EQ(got.bucket, 4);
	CHECK(!dc_blockmap_lookup(&m, 0x2001, &got));
	dc_blockmap_release(&m);
}

/* 200,000 blocks of sizes 0..1024 laid out without overlap in random
 * order, half of them removed again in another order: after each phase
 * every address near every block resolves as a linear search of the
 * reference list says (the block whose [lo, lo + max(size, 1)) holds it,
 * else none). */
#define NB 200000
static uint64_t ref_lo[NB], ref_size[NB];
static bool ref_live[NB];

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
			CHECK_EQ(got.bucket, (uint32_t)want);
			CHECK_EQ(got.seq, (uint64_t)want + 7);
		}
	}
}

DC_TEST(blockmap, against_reference)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e, old;
	static uint32_t order[NB];
	uint64_t rng = 42, lo = 0x10000;

	for (int i = 0; i < NB; i++) {
		ref_size[i] = dc_rand64(&rng) % 8 == 0 ? dc_rand64(&rng) % (DC_BLOCKMAP_MAX + 1)
						       : 16 + dc_rand64(&rng) % 48;
		ref_lo[i] = lo;
		ref_live[i] = true;
		/* a gap of 0..3 granules after each block */
		lo += (((ref_size[i] ? ref_size[i] : 1) + 15) & ~15ULL) + 16 * (dc_rand64(&rng) % 4);
		order[i] = (uint32_t)i;
	}
	for (int i = NB - 1; i > 0; i--) {
		int j = (int)(dc_rand64(&rng) % (uint64_t)(i + 1));
		uint32_t t = order[i];
		order[i] = order[j];
		order[j] = t;
	}
	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	for (int k = 0; k < NB; k++) {
		int i = (int)order[k];
		e = ent(ref_lo[i], ref_size[i], (uint32_t)i, (uint64_t)i + 7);
		CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	}
	CHECK_EQ(m.n, NB);
	CHECK(4 * m.n <= 3 * m.cap);
	check_all(&m, &rng);
	for (int k = 0; k < NB; k += 2) {
		int i = (int)order[(k * 7919) % NB];
		if (!ref_live[i])
			continue;
		CHECK(dc_blockmap_take(&m, ref_lo[i], &e));
		CHECK_EQ(e.bucket, (uint32_t)i);
		ref_live[i] = false;
	}
	check_all(&m, &rng);
	for (int i = 0; i < NB; i++)
		if (!ref_live[i])
			CHECK(!dc_blockmap_take(&m, ref_lo[i], &e));
	dc_blockmap_release(&m);
}

static void count_cb(void *ud, const struct dc_blockmap_ent *e)
{
	*(uint64_t *)ud += e->seq;
}

DC_TEST(blockmap, each_visits_every_block)
{
	struct dc_blockmap m;
	struct dc_blockmap_ent e, old;
	uint64_t sum = 0;

	CHECK_EQ(dc_blockmap_init(&m, env()), 0);
	for (uint64_t i = 1; i <= 5000; i++) {
		e = ent(i * 64, 32, 0, i);
		CHECK_EQ(dc_blockmap_put(&m, &e, &old), 0);
	}
	dc_blockmap_each(&m, count_cb, &sum);
	CHECK_EQ(sum, 5000 * 5001 / 2);
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
		e = ent(i * 32, 24, 1, i);
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
