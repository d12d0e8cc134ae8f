/* test_costtab.c — cost records (costtab.h Notes): one record per key,
 * created once and never moved, visited by each, zeroed in place, and
 * dc_cost_count's rule that level s serving an access means misses at
 * levels 1..s-1 and the latency of level s. */
#include <stdlib.h>
#include <string.h>

#include "core/costtab.h"
#include "host/port_libc.h"
#include "unit.h"

static void check_key(const struct dc_cost *c, uint32_t loc, uint32_t bucket, uint32_t tid)
{
	CHECK(c != NULL);
	CHECK_EQ(c->loc, loc);
	CHECK_EQ(c->bucket, bucket);
	CHECK_EQ(c->tid, tid);
}

static bool all_zero(const struct dc_cost *c)
{
	static const struct dc_cost zero;

	return !memcmp(c->acc, zero.acc, sizeof c->acc) &&
	       !memcmp(c->miss, zero.miss, sizeof c->miss) && c->lat == 0;
}

DC_TEST(costtab, get_creates_once)
{
	struct dc_costtab t;

	CHECK_EQ(dc_costtab_init(&t, dc_env_libc()), 0);
	struct dc_cost *c = dc_costtab_get(&t, 7, 3, 1);
	check_key(c, 7, 3, 1);
	CHECK(all_zero(c));
	CHECK_EQ(t.r.n, 1);
	c->acc[0] = 5;
	CHECK(dc_costtab_get(&t, 7, 3, 1) == c);
	CHECK_EQ(c->acc[0], 5);                 /* not reset by a second get */
	CHECK_EQ(t.r.n, 1);
	dc_costtab_release(&t);
}

/* Keys differing in one component are different records, including pairs
 * whose hash inputs collide: the hash mixes (loc << 32 | bucket) ^ (tid <<
 * 20), so (0, 1 << 20, 0) and (0, 0, 1) hash alike and only the full key
 * comparison tells them apart. */
DC_TEST(costtab, distinct_keys)
{
	static const uint32_t keys[][3] = {
		{ 1, 2, 3 }, { 2, 1, 3 }, { 1, 2, 4 }, { 3, 2, 1 }, { 0, 0, 0 },
		{ 0, 1u << 20, 0 }, { 0, 0, 1 }, { UINT32_MAX, UINT32_MAX, UINT32_MAX },
		{ 1, 0, 0 }, { 0, 1, 0 },
	};
	enum { N = sizeof keys / sizeof keys[0] };
	struct dc_cost *c[N];
	struct dc_costtab t;

	CHECK_EQ(dc_costtab_init(&t, dc_env_libc()), 0);
	for (int i = 0; i < N; i++) {
		c[i] = dc_costtab_get(&t, keys[i][0], keys[i][1], keys[i][2]);
		check_key(c[i], keys[i][0], keys[i][1], keys[i][2]);
		for (int j = 0; j < i; j++)
			CHECK(c[i] != c[j]);
	}
	CHECK_EQ(t.r.n, N);
	for (int i = 0; i < N; i++)
		CHECK(dc_costtab_get(&t, keys[i][0], keys[i][1], keys[i][2]) == c[i]);
	CHECK_EQ(t.r.n, N);
	dc_costtab_release(&t);
}

/* 20000 keys: the slot table (4096 at first, kept at most half full)
 * doubles several times and records come from several slabs.  Pointers
 * handed out early still are the same records, with what was written
 * through them. */
DC_TEST(costtab, growth_keeps_pointers)
{
	enum { N = 20000 };
	static struct dc_cost *c[N];
	struct dc_costtab t;

	CHECK_EQ(dc_costtab_init(&t, dc_env_libc()), 0);
	uint64_t cap0 = t.r.cap;
	for (uint32_t i = 0; i < N; i++) {
		c[i] = dc_costtab_get(&t, i / 7, i % 7, 1 + i % 3);
		check_key(c[i], i / 7, i % 7, 1 + i % 3);
		c[i]->lat = 1000 + i;
	}
	CHECK(t.r.cap > cap0);
	CHECK_EQ(t.r.n, N);
	for (uint32_t i = 0; i < N; i++) {
		CHECK(dc_costtab_get(&t, i / 7, i % 7, 1 + i % 3) == c[i]);
		CHECK_EQ(c[i]->lat, 1000 + i);
	}
	CHECK_EQ(t.r.n, N);
	dc_costtab_release(&t);
}

struct tally {
	int seen[300];
	int calls, other, stop_at, stop_rc;
};

static int count_each(void *ud, const struct dc_cost *c)
{
	struct tally *tl = ud;

	tl->calls++;
	if (c->loc < 300 && c->bucket == c->loc + 1 && c->tid == 2)
		tl->seen[c->loc]++;
	else
		tl->other++;
	return tl->calls == tl->stop_at ? tl->stop_rc : 0;
}

DC_TEST(costtab, each_visits_all_and_stops)
{
	struct dc_costtab t;
	struct tally tl = { { 0 }, 0, 0, 0, 0 };

	CHECK_EQ(dc_costtab_init(&t, dc_env_libc()), 0);
	CHECK_EQ(dc_costtab_each(&t, count_each, &tl), 0);
	CHECK_EQ(tl.calls, 0);
	for (uint32_t i = 0; i < 300; i++)
		CHECK(dc_costtab_get(&t, i, i + 1, 2));
	CHECK_EQ(dc_costtab_each(&t, count_each, &tl), 0);
	CHECK_EQ(tl.calls, 300);
	CHECK_EQ(tl.other, 0);
	for (int i = 0; i < 300; i++)
		CHECK_EQ(tl.seen[i], 1);

	/* A non-zero return stops the walk and is passed on. */
	memset(&tl, 0, sizeof tl);
	tl.stop_at = 5;
	tl.stop_rc = 7;
	CHECK_EQ(dc_costtab_each(&t, count_each, &tl), 7);
	CHECK_EQ(tl.calls, 5);
	dc_costtab_release(&t);
}

/* Zeroing clears every counter but keeps the records, their keys and their
 * addresses (a forked child starts counting anew). */
DC_TEST(costtab, zero_keeps_records)
{
	struct dc_costtab t;
	struct dc_cost *c[300];
	struct tally tl = { { 0 }, 0, 0, 0, 0 };
	const uint32_t lat[6] = { 0, 4, 14, 40, 80, 200 };

	CHECK_EQ(dc_costtab_init(&t, dc_env_libc()), 0);
	for (uint32_t i = 0; i < 300; i++) {
		c[i] = dc_costtab_get(&t, i, i + 1, 2);
		dc_cost_count(c[i], i % 2, 1 + (int)(i % 5), lat);
		CHECK(!all_zero(c[i]));
	}
	dc_costtab_zero(&t);
	CHECK_EQ(t.r.n, 300);
	for (uint32_t i = 0; i < 300; i++) {
		CHECK(all_zero(c[i]));
		check_key(c[i], i, i + 1, 2);
		CHECK(dc_costtab_get(&t, i, i + 1, 2) == c[i]);
	}
	CHECK_EQ(t.r.n, 300);
	CHECK_EQ(dc_costtab_each(&t, count_each, &tl), 0);
	CHECK_EQ(tl.calls, 300);
	dc_costtab_release(&t);
}

/* lat[s] is level s's hit latency, lat[N+1] memory's.  With N = 3 and
 * latencies 4, 14, 40, 200:
 *   read served by 1            acc r 1, no misses, lat 4
 *   write served by 3           acc w 1, misses w at L1, L2;   lat +40
 *   read served by 4 (memory)   acc r 2, misses r at L1..L3;   lat +200
 *   read served by 2            acc r 3, miss r at L1;         lat +14
 * Totals: acc {3, 1}, miss r {2, 1, 1}, miss w {1, 1, 0}, lat 258. */
DC_TEST(costtab, cost_count_rule)
{
	struct dc_cost c = { 0 };
	const uint32_t lat[5] = { 0, 4, 14, 40, 200 };

	dc_cost_count(&c, 0, 1, lat);
	CHECK(c.acc[0] == 1 && c.acc[1] == 0);
	CHECK_EQ(c.miss[0][0] + c.miss[0][1], 0);
	CHECK_EQ(c.lat, 4);
	dc_cost_count(&c, 1, 3, lat);
	dc_cost_count(&c, 0, 4, lat);
	dc_cost_count(&c, 0, 2, lat);
	CHECK_EQ(c.acc[0], 3);
	CHECK_EQ(c.acc[1], 1);
	CHECK_EQ(c.miss[0][0], 2);
	CHECK_EQ(c.miss[1][0], 1);
	CHECK_EQ(c.miss[2][0], 1);
	CHECK_EQ(c.miss[0][1], 1);
	CHECK_EQ(c.miss[1][1], 1);
	CHECK_EQ(c.miss[2][1], 0);
	CHECK_EQ(c.miss[3][0] + c.miss[3][1], 0);
	CHECK_EQ(c.lat, 258);

	/* Four levels, served by memory (5): a miss at every level, lat[5]. */
	struct dc_cost d = { 0 };
	const uint32_t lat4[6] = { 0, 4, 14, 40, 80, 200 };
	dc_cost_count(&d, 1, 5, lat4);
	for (int k = 0; k < 4; k++) {
		CHECK_EQ(d.miss[k][1], 1);
		CHECK_EQ(d.miss[k][0], 0);
	}
	CHECK_EQ(d.lat, 200);
	CHECK_EQ(d.acc[1], 1);
}

/* ---- allocation failures ------------------------------------------------ */

/* 9000 keys: two table growths (4096 -> 8192 -> 16384 -> 32768 is reached
 * at n = 2048, 4096, 8192) and three slabs.  After a failed get, every
 * record obtained before is intact and still the record of its key. */
static int costtab_scenario(const struct dc_env *env, void *ud)
{
	enum { N = 9000 };
	static struct dc_cost *got[N];
	const struct dc_failenv *fe = env->ud;
	struct dc_costtab t;
	int ok = 0;
	int rc = dc_costtab_init(&t, env);

	if (rc)
		return rc;
	for (uint32_t i = 0; i < N; i++) {
		got[i] = dc_costtab_get(&t, i, 0, 1);
		if (!got[i]) {
			CHECK(fe->failures > 0);
			continue;
		}
		got[i]->acc[1] = i;
		ok++;
	}
	CHECK_EQ(t.r.n, ok);
	for (uint32_t i = 0; i < N; i++) {
		if (!got[i])
			continue;
		check_key(got[i], i, 0, 1);
		CHECK_EQ(got[i]->acc[1], i);
	}
	struct tally tl = { { 0 }, 0, 0, 0, 0 };
	CHECK_EQ(dc_costtab_each(&t, count_each, &tl), 0);
	CHECK_EQ(tl.calls, ok);
	dc_costtab_release(&t);
	return fe->failures ? DC_ENOMEM : 0;
}

DC_TEST(costtab, alloc_walk)
{
	DC_ALLOC_WALK(costtab_scenario, NULL);
}
