/* test_evtab.c — eviction counts (evtab.h Notes): dc_evtab_add accumulates
 * per (level, evictor, victim, loc), keys differing in any component are
 * separate, each visits every record with its count, and allocation
 * failure is reported as DC_ENOMEM without leaks. */
#include <string.h>

#include "core/evtab.h"
#include "host/port_libc.h"
#include "unit.h"

struct key4 {
	uint32_t level, evictor, victim, loc;
};

/* Finds the record of a key by walking the table (the API has no lookup). */
struct find {
	struct key4 k;
	const struct dc_evict *hit;
	int matches;
};

static int find_cb(void *ud, const struct dc_evict *e)
{
	struct find *f = ud;

	if (e->level == f->k.level && e->evictor == f->k.evictor &&
	    e->victim == f->k.victim && e->loc == f->k.loc) {
		f->hit = e;
		f->matches++;
	}
	return 0;
}

static const struct dc_evict *find(const struct dc_evtab *t, struct key4 k)
{
	struct find f = { k, NULL, 0 };

	CHECK_EQ(dc_evtab_each(t, find_cb, &f), 0);
	CHECK(f.matches <= 1);
	return f.hit;
}

static int count_cb(void *ud, const struct dc_evict *e)
{
	(void)e;
	++*(long *)ud;
	return 0;
}

static long nrecords(const struct dc_evtab *t)
{
	long n = 0;

	CHECK_EQ(dc_evtab_each(t, count_cb, &n), 0);
	return n;
}

/* 5 + 7 + 0 + 30 on one key: one record, count 42. */
DC_TEST(evtab, add_accumulates_per_key)
{
	struct dc_evtab t;
	const struct dc_evict *e;

	CHECK_EQ(dc_evtab_init(&t, dc_env_libc()), 0);
	CHECK_EQ(nrecords(&t), 0);
	CHECK_EQ(dc_evtab_add(&t, 1, 2, 3, 4, 5), 0);
	e = find(&t, (struct key4){ 1, 2, 3, 4 });
	CHECK(e != NULL);
	CHECK_EQ(e->count, 5);
	CHECK_EQ(dc_evtab_add(&t, 1, 2, 3, 4, 7), 0);
	CHECK_EQ(dc_evtab_add(&t, 1, 2, 3, 4, 0), 0);
	CHECK_EQ(dc_evtab_add(&t, 1, 2, 3, 4, 30), 0);
	CHECK(find(&t, (struct key4){ 1, 2, 3, 4 }) == e);   /* records never move */
	CHECK_EQ(e->count, 42);
	CHECK_EQ(nrecords(&t), 1);
	/* sampled estimates add the period: counts beyond 32 bits */
	CHECK_EQ(dc_evtab_add(&t, 1, 2, 3, 4, 1ULL << 40), 0);
	CHECK_EQ(e->count, (1ULL << 40) + 42);
	dc_evtab_release(&t);
}

/* Keys differing in exactly one component, permutations of one another
 * (evictor and victim swapped: A evicting B is not B evicting A), and the
 * extremes are separate records.  Each key i gets count i + 1 added twice,
 * interleaved, so each record must end at 2 (i + 1). */
DC_TEST(evtab, distinct_keys_are_separate)
{
	static const struct key4 keys[] = {
		{ 1, 2, 3, 4 }, { 2, 2, 3, 4 }, { 1, 3, 3, 4 }, { 1, 2, 4, 4 }, { 1, 2, 3, 5 },
		{ 1, 3, 2, 4 },                     /* evictor and victim swapped */
		{ 4, 3, 2, 1 }, { 2, 1, 4, 3 }, { 0, 0, 0, 0 },
		{ UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX },
		{ 1, 0, 0, 0 }, { 0, 1, 0, 0 }, { 0, 0, 1, 0 }, { 0, 0, 0, 1 },
	};
	enum { N = sizeof keys / sizeof keys[0] };
	struct dc_evtab t;

	CHECK_EQ(dc_evtab_init(&t, dc_env_libc()), 0);
	for (int rep = 0; rep < 2; rep++)
		for (int i = 0; i < N; i++)
			CHECK_EQ(dc_evtab_add(&t, keys[i].level, keys[i].evictor, keys[i].victim,
					      keys[i].loc, (uint64_t)i + 1), 0);
	CHECK_EQ(nrecords(&t), N);
	for (int i = 0; i < N; i++) {
		const struct dc_evict *e = find(&t, keys[i]);
		CHECK(e != NULL);
		CHECK_EQ(e->count, 2 * ((uint64_t)i + 1));
	}
	dc_evtab_release(&t);
}

/* ---- each ------------------------------------------------------------------- */

/* 4 levels x 30 evictors x 30 victims x 3 locations = 10800 keys, past the
 * first growth of the table (more than 2048 records).  Key (l, a, b, c)
 * receives count(l, a, b, c) = 1 + l + 7a + 31b + 101c, added in two parts
 * (1 and the rest) in separate passes.  each must visit each key exactly
 * once with that count. */
enum { NL = 4, NA = 30, NB = 30, NC = 3 };

static uint64_t want_count(uint32_t l, uint32_t a, uint32_t b, uint32_t c)
{
	return 1 + l + 7ull * a + 31ull * b + 101ull * c;
}

struct visit {
	unsigned char seen[NL][NA][NB][NC];
	long visits, stop_after;
};

static int visit_cb(void *ud, const struct dc_evict *e)
{
	struct visit *v = ud;

	v->visits++;
	CHECK(e->level >= 1 && e->level <= NL);
	CHECK(e->evictor < NA && e->victim < NB);
	CHECK(e->loc >= 1000 && e->loc < 1000 + NC);
	CHECK_EQ(e->count, want_count(e->level, e->evictor, e->victim, e->loc - 1000));
	v->seen[e->level - 1][e->evictor][e->victim][e->loc - 1000]++;
	return v->stop_after && v->visits == v->stop_after ? -3 : 0;
}

DC_TEST(evtab, each_visits_all_with_counts)
{
	static struct visit v;
	struct dc_evtab t;

	CHECK_EQ(dc_evtab_init(&t, dc_env_libc()), 0);
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t c = 0; c < NC; c++)
			for (uint32_t b = 0; b < NB; b++)
				for (uint32_t a = 0; a < NA; a++)
					for (uint32_t l = 1; l <= NL; l++)
						CHECK_EQ(dc_evtab_add(&t, l, a, b, 1000 + c,
							pass ? want_count(l, a, b, c) - 1 : 1), 0);
	memset(&v, 0, sizeof v);
	CHECK_EQ(dc_evtab_each(&t, visit_cb, &v), 0);
	CHECK_EQ(v.visits, NL * NA * NB * NC);
	for (int l = 0; l < NL; l++)
		for (int a = 0; a < NA; a++)
			for (int b = 0; b < NB; b++)
				for (int c = 0; c < NC; c++)
					CHECK_EQ(v.seen[l][a][b][c], 1);

	/* a non-zero return stops the walk and is passed back */
	memset(&v, 0, sizeof v);
	v.stop_after = 5;
	CHECK_EQ(dc_evtab_each(&t, visit_cb, &v), -3);
	CHECK_EQ(v.visits, 5);
	dc_evtab_release(&t);
}

/* ---- allocation --------------------------------------------------------------- */

/* init, 6000 distinct keys (the slot array grows at 2049 and 4097 records,
 * two slabs), a second pass adding to every key, an each.  When an add
 * fails it must say DC_ENOMEM after an injected failure; what was added
 * before stays countable and release frees everything. */
struct sum {
	long n;
	uint64_t total;
};

static int sum_cb(void *ud, const struct dc_evict *e)
{
	struct sum *s = ud;

	s->n++;
	s->total += e->count;
	return 0;
}

static int evtab_scenario(const struct dc_env *env, void *ud)
{
	enum { N = 6000 };
	const struct dc_failenv *fe = env->ud;
	struct dc_evtab t;
	struct sum s = { 0, 0 };
	uint32_t i;
	int rc = dc_evtab_init(&t, env);

	(void)ud;
	if (rc)
		return rc;
	for (i = 0; i < N; i++) {
		rc = dc_evtab_add(&t, 1 + i % 3, i, i / 2, i * 13, 2);
		if (rc)
			break;
	}
	if (rc) {
		CHECK_EQ(rc, DC_ENOMEM);
		CHECK(fe->failures > 0);
		/* existing keys still accept adds: no allocation needed */
		for (uint32_t j = 0; j < i; j++)
			CHECK_EQ(dc_evtab_add(&t, 1 + j % 3, j, j / 2, j * 13, 1), 0);
		CHECK_EQ(dc_evtab_each(&t, sum_cb, &s), 0);
		CHECK_EQ(s.n, i);
		CHECK_EQ(s.total, 3ull * i);
		dc_evtab_release(&t);
		return rc;
	}
	for (i = 0; i < N; i++)
		CHECK_EQ(dc_evtab_add(&t, 1 + i % 3, i, i / 2, i * 13, 3), 0);
	CHECK_EQ(dc_evtab_each(&t, sum_cb, &s), 0);
	CHECK_EQ(s.n, N);
	CHECK_EQ(s.total, 5ull * N);
	dc_evtab_release(&t);
	return 0;
}

DC_TEST(evtab, alloc_walk)
{
	DC_ALLOC_WALK(evtab_scenario, NULL);
}

struct sum_n {
	uint64_t sum, n;
};

static int zero_test_cb(void *ud, const struct dc_evict *e)
{
	struct sum_n *acc = ud;
	acc->sum += e->count;
	acc->n++;
	return 0;
}

/* zero keeps the records and clears their counts: adding again starts from
 * zero for the same key, and each still visits both. */
DC_TEST(evtab, zero_clears_counts)
{
	struct dc_evtab t;
	struct sum_n acc = { 0, 0 };

	CHECK_EQ(dc_evtab_init(&t, dc_env_libc()), 0);
	CHECK_EQ(dc_evtab_add(&t, 1, 2, 3, 4, 10), 0);
	CHECK_EQ(dc_evtab_add(&t, 2, 2, 3, 4, 5), 0);
	dc_evtab_zero(&t);
	CHECK_EQ(dc_evtab_add(&t, 1, 2, 3, 4, 7), 0);
	CHECK_EQ(dc_evtab_each(&t, zero_test_cb, &acc), 0);
	CHECK_EQ(acc.n, 2);
	CHECK_EQ(acc.sum, 7);
	dc_evtab_release(&t);
}
