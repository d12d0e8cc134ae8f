/* test_blockset.c — the set that empties in constant time (blockset.h
 * Notes): new keys are reported once per generation, clearing forgets them
 * all, growth keeps the current generation's keys, allocation failure adds
 * nothing. */
#include "core/blockset.h"
#include "core/util.h"
#include "unit.h"

static struct dc_failenv fe;

static const struct dc_env *env(void)
{
	dc_failenv_init(&fe, 0);
	return &fe.env;
}

DC_TEST(blockset, new_once_per_generation)
{
	struct dc_blockset s;

	CHECK_EQ(dc_blockset_init(&s, env()), 0);
	CHECK_EQ(dc_blockset_add(&s, 5), 1);
	CHECK_EQ(dc_blockset_add(&s, 5), 0);
	CHECK_EQ(dc_blockset_add(&s, 0), 1);
	CHECK_EQ(dc_blockset_add(&s, UINT64_MAX), 1);
	CHECK_EQ(s.n, 3);
	dc_blockset_clear(&s);
	CHECK_EQ(s.n, 0);
	CHECK_EQ(dc_blockset_add(&s, 5), 1);
	CHECK_EQ(dc_blockset_add(&s, 0), 1);
	CHECK_EQ(dc_blockset_add(&s, 0), 0);
	dc_blockset_release(&s);
}

/* 100,000 keys force several doublings from 1024 slots; every key is new
 * exactly once before and once after a clear, and the set stays at most
 * half full. */
DC_TEST(blockset, growth_keeps_keys)
{
	struct dc_blockset s;
	uint64_t fresh = 0;

	CHECK_EQ(dc_blockset_init(&s, env()), 0);
	for (int round = 0; round < 2; round++) {
		for (uint64_t k = 0; k < 100000; k++)
			fresh += dc_blockset_add(&s, k * 64) == 1;
		for (uint64_t k = 0; k < 100000; k++)
			CHECK_EQ(dc_blockset_add(&s, k * 64), 0);
		CHECK(s.n * 2 <= s.cap);
		dc_blockset_clear(&s);
	}
	CHECK_EQ(fresh, 200000);
	dc_blockset_release(&s);
}

/* The generation wraps after 2^32 - 1 clears: slots are wiped then, so a
 * key from long ago cannot look current. */
DC_TEST(blockset, generation_wrap)
{
	struct dc_blockset s;

	CHECK_EQ(dc_blockset_init(&s, env()), 0);
	s.gen = UINT32_MAX;
	CHECK_EQ(dc_blockset_add(&s, 9), 1);
	dc_blockset_clear(&s);
	CHECK_EQ(s.gen, 1);
	CHECK_EQ(dc_blockset_add(&s, 9), 1);
	dc_blockset_release(&s);
}

/* Removing keys in one order keeps every other key findable (the
 * clusters shifted back), checked against a flag per key; a removed key
 * is new again, and removal across a clear finds nothing. */
DC_TEST(blockset, remove)
{
	struct dc_blockset s;
	static bool in[20000];
	uint64_t rng = 7;

	CHECK_EQ(dc_blockset_init(&s, env()), 0);
	for (uint64_t k = 0; k < 20000; k++) {
		CHECK_EQ(dc_blockset_add(&s, k * 4096), 1);
		in[k] = true;
	}
	for (int i = 0; i < 15000; i++) {
		uint64_t k = dc_rand64(&rng) % 20000;
		CHECK_EQ(dc_blockset_remove(&s, k * 4096), in[k]);
		in[k] = false;
	}
	for (uint64_t k = 0; k < 20000; k++)
		CHECK_EQ(dc_blockset_add(&s, k * 4096), !in[k]);
	CHECK_EQ(s.n, 20000);
	dc_blockset_clear(&s);
	CHECK(!dc_blockset_remove(&s, 0));
	CHECK_EQ(s.n, 0);
	dc_blockset_release(&s);
}

static int grow_scenario(const struct dc_env *e, void *ud)
{
	struct dc_blockset s;
	int rc = dc_blockset_init(&s, e);

	if (rc)
		return rc;
	for (uint64_t k = 0; k < 5000 && rc >= 0; k++)
		rc = dc_blockset_add(&s, k);
	/* A failed growth leaves the set usable: the old keys are still in. */
	if (rc < 0)
		CHECK_EQ(dc_blockset_add(&s, 0), 0);
	dc_blockset_release(&s);
	return rc < 0 ? rc : 0;
}

DC_TEST(blockset, alloc_walk)
{
	DC_ALLOC_WALK(grow_scenario, NULL);
}
