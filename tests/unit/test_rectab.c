/* test_rectab.c — the record table (rectab.h Notes): key sizes, records
 * created zeroed with the key copied, one record per key, pointers that
 * survive growth, each visiting every record once, and allocation failure. */
#include <stdlib.h>
#include <string.h>

#include "core/rectab.h"
#include "host/port_libc.h"
#include "unit.h"

/* An env that hands out memory full of 0xa5, so "zeroed" means the table
 * zeroed it (malloc, or ASan's malloc fill, might give zeros anyway). */
static void *dirty_alloc(void *ud, size_t n, const char *label)
{
	(void)ud;
	(void)label;
	void *p = malloc(n);
	if (p)
		memset(p, 0xa5, n);
	return p;
}

static void dirty_free(void *ud, void *p)
{
	(void)ud;
	free(p);
}

static const struct dc_env dirty_env = { dirty_alloc, dirty_free, NULL };

/* A record with a 12-byte key and a payload. */
struct rec12 {
	uint32_t k[3];
	uint32_t tag;
	uint64_t a, b;
};

static bool bytes_zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i])
			return false;
	return true;
}

/* ---- init ---------------------------------------------------------------- */

/* Keys are 4..16 bytes in steps of 4, and the record holds its key.  A
 * rejected init allocates nothing (counted with a never-failing failenv) and
 * leaves the table zeroed, so nothing needs releasing. */
DC_TEST(rectab, init_rejects_bad_sizes)
{
	static const size_t bad[][2] = {          /* rec_size, key_size */
		{ 16, 0 }, { 16, 3 }, { 32, 20 }, { 16, 6 }, { 32, 17 },
		{ 8, 12 }, { 3, 4 }, { 15, 16 },
	};
	struct dc_rectab t;

	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct dc_failenv fe;
		dc_failenv_init(&fe, 0);
		memset(&t, 0x5a, sizeof t);
		CHECK_EQ(dc_rectab_init(&t, &fe.env, bad[i][0], bad[i][1], "t"), DC_EINVAL);
		CHECK_EQ(fe.calls, 0);
		CHECK(t.slots == NULL && t.n == 0 && t.nslabs == 0);
	}

	/* The limits themselves are fine. */
	CHECK_EQ(dc_rectab_init(&t, dc_env_libc(), 4, 4, "t"), 0);
	dc_rectab_release(&t);
	CHECK_EQ(dc_rectab_init(&t, dc_env_libc(), 16, 16, "t"), 0);
	dc_rectab_release(&t);
	CHECK_EQ(dc_rectab_init(&t, dc_env_libc(), 40, 8, "t"), 0);
	dc_rectab_release(&t);
}

/* ---- get ------------------------------------------------------------------ */

DC_TEST(rectab, get_creates_zeroed_record_with_key)
{
	struct dc_rectab t;
	const uint32_t key[3] = { 0x11111111, 0x22222222, 0x33333333 };

	CHECK_EQ(dc_rectab_init(&t, &dirty_env, sizeof(struct rec12), 12, "t"), 0);
	struct rec12 *r = dc_rectab_get(&t, key);
	CHECK(r != NULL);
	CHECK(!memcmp(r->k, key, sizeof key));
	CHECK(bytes_zero((char *)r + 12, sizeof *r - 12));
	CHECK_EQ(t.n, 1);

	/* A second record from the same (dirty) slab is zeroed too, after the
	 * first one was written. */
	r->tag = 7;
	r->a = ~0ULL;
	r->b = 0x123;
	const uint32_t key2[3] = { 1, 2, 3 };
	struct rec12 *r2 = dc_rectab_get(&t, key2);
	CHECK(r2 != NULL && r2 != r);
	CHECK(!memcmp(r2->k, key2, sizeof key2));
	CHECK(bytes_zero((char *)r2 + 12, sizeof *r2 - 12));
	CHECK_EQ(r->a, ~0ULL);           /* the first one was not touched */
	CHECK_EQ(t.n, 2);
	dc_rectab_release(&t);
}

/* Same key, same record (not reset); keys differing in any byte of the key
 * (first, middle, last) are different records. */
DC_TEST(rectab, one_record_per_key)
{
	struct dc_rectab t;
	unsigned char k[16] = { 0 }, k2[16];
	struct { unsigned char key[16]; uint64_t v; } *r0, *r;

	CHECK_EQ(dc_rectab_init(&t, dc_env_libc(), 24, 16, "t"), 0);
	r0 = dc_rectab_get(&t, k);
	CHECK(r0 != NULL);
	r0->v = 99;
	memcpy(k2, k, sizeof k);
	CHECK(dc_rectab_get(&t, k2) == (void *)r0);   /* a copy of the key */
	CHECK_EQ(r0->v, 99);
	CHECK_EQ(t.n, 1);
	for (int i = 0; i < 16; i++) {
		memcpy(k2, k, sizeof k);
		k2[i] = 1;
		r = dc_rectab_get(&t, k2);
		CHECK(r != NULL && r != r0);
		CHECK(!memcmp(r->key, k2, 16));
		CHECK_EQ(r->v, 0);
		CHECK(dc_rectab_get(&t, k2) == (void *)r);
	}
	CHECK_EQ(t.n, 17);
	CHECK(dc_rectab_get(&t, k) == (void *)r0);
	dc_rectab_release(&t);
}

/* 256 keys that differ only in one byte position, for each position of a
 * 16-byte key and of a 4-byte key: 256 records with distinct pointers.
 * With 256 keys in 4096 slots about 256^2 / (2 * 4096) = 8 pairs share a
 * home slot, so the probe chains do compare keys that differ in just that
 * byte (a comparison skipping a byte would merge them). */
DC_TEST(rectab, keys_differing_in_one_byte)
{
	static void *p[256];
	struct dc_rectab t;

	for (size_t ks = 4; ks <= 16; ks += 12) {
		for (size_t pos = 0; pos < ks; pos++) {
			CHECK_EQ(dc_rectab_init(&t, dc_env_libc(), ks + 8, ks, "t"), 0);
			for (int v = 0; v < 256; v++) {
				unsigned char k[16] = { 0 };
				k[pos] = (unsigned char)v;
				p[v] = dc_rectab_get(&t, k);
				CHECK(p[v] != NULL);
				CHECK(!memcmp(p[v], k, ks));
			}
			CHECK_EQ(t.n, 256);
			for (int v = 0; v < 256; v++) {
				unsigned char k[16] = { 0 };
				k[pos] = (unsigned char)v;
				CHECK(dc_rectab_get(&t, k) == p[v]);
			}
			dc_rectab_release(&t);
		}
	}
}

/* ---- growth ----------------------------------------------------------------- */

/* The slot array starts at 4096 and doubles when more than half full, and
 * records come from slabs of 4096: 20000 keys grow the slot array four
 * times (at 2049, 4097, 8193, 16385 records) and take five slabs.  Every
 * pointer handed out stays valid and keeps its payload; re-getting a key
 * returns the same pointer.  Keys are 8 bytes with the low word varying
 * least, so neighbouring keys differ only in the high word. */
DC_TEST(rectab, pointers_stable_across_growth)
{
	enum { N = 20000 };
	struct rec { uint32_t k[2]; uint64_t v; };
	static struct rec *p[N];
	struct dc_rectab t;

	CHECK_EQ(dc_rectab_init(&t, &dirty_env, sizeof(struct rec), 8, "t"), 0);
	for (uint32_t i = 0; i < N; i++) {
		const uint32_t key[2] = { i % 7, i };
		p[i] = dc_rectab_get(&t, key);
		CHECK(p[i] != NULL);
		CHECK_EQ(p[i]->v, 0);
		p[i]->v = (uint64_t)i * 3 + 1;
		/* the earliest records survive every growth step */
		if (i % 1024 == 0)
			for (uint32_t j = 0; j <= i; j += 97) {
				const uint32_t kj[2] = { j % 7, j };
				CHECK(dc_rectab_get(&t, kj) == p[j]);
			}
	}
	CHECK_EQ(t.n, N);
	CHECK(t.cap >= 2 * (uint64_t)N);
	CHECK_EQ(t.nslabs, 5);
	for (uint32_t i = 0; i < N; i++) {
		const uint32_t key[2] = { i % 7, i };
		CHECK(dc_rectab_get(&t, key) == p[i]);
		CHECK_EQ(p[i]->k[0], i % 7);
		CHECK_EQ(p[i]->k[1], i);
		CHECK_EQ(p[i]->v, (uint64_t)i * 3 + 1);
	}
	CHECK_EQ(t.n, N);
	/* distinct records do not overlap */
	for (uint32_t i = 1; i < N; i++)
		CHECK(p[i] != p[i - 1]);
	dc_rectab_release(&t);
}

/* ---- each ------------------------------------------------------------------- */

struct visit {
	unsigned char *seen;
	long n, visits, stop_after;
};

struct rec4 {
	uint32_t k;
	uint32_t i;
};

static int visit_cb(void *ud, void *rec)
{
	struct visit *v = ud;
	struct rec4 *r = rec;

	v->visits++;
	CHECK(r->i < (uint32_t)v->n);
	CHECK_EQ(r->k, r->i * 2654435761u);
	v->seen[r->i]++;
	if (v->stop_after && v->visits == v->stop_after)
		return 7;
	return 0;
}

DC_TEST(rectab, each_visits_every_record_once)
{
	enum { N = 5000 };
	static unsigned char seen[N];
	struct visit v = { seen, N, 0, 0 };
	struct dc_rectab t;

	CHECK_EQ(dc_rectab_init(&t, dc_env_libc(), sizeof(struct rec4), 4, "t"), 0);
	/* an empty table visits nothing */
	CHECK_EQ(dc_rectab_each(&t, visit_cb, &v), 0);
	CHECK_EQ(v.visits, 0);

	for (uint32_t i = 0; i < N; i++) {
		uint32_t key = i * 2654435761u;       /* distinct: odd multiplier */
		struct rec4 *r = dc_rectab_get(&t, &key);
		CHECK(r != NULL);
		r->i = i;
	}
	/* getting existing keys again adds nothing */
	for (uint32_t i = 0; i < N; i += 3) {
		uint32_t key = i * 2654435761u;
		CHECK(dc_rectab_get(&t, &key) != NULL);
	}
	CHECK_EQ(dc_rectab_each(&t, visit_cb, &v), 0);
	CHECK_EQ(v.visits, N);
	for (int i = 0; i < N; i++)
		CHECK_EQ(seen[i], 1);

	/* non-zero from the callback stops the walk and is returned */
	memset(seen, 0, sizeof seen);
	v.visits = 0;
	v.stop_after = 3;
	CHECK_EQ(dc_rectab_each(&t, visit_cb, &v), 7);
	CHECK_EQ(v.visits, 3);
	dc_rectab_release(&t);
}

/* ---- allocation ------------------------------------------------------------- */

/* init, then 70000 new keys: the slot array grows six times (4096 -> 262144
 * slots) and the 18 slabs outgrow the slab list's first 16 entries, so
 * every allocation site is reached; then re-gets and an each.  When a get
 * returns NULL an allocation must have failed; the records made before are
 * still there, found again without allocating (every later allocation
 * fails too), and release frees everything. */
struct rec8 {
	uint32_t k[2];
	uint32_t i, pad;
};

static int count_cb(void *ud, void *rec)
{
	(void)rec;
	++*(long *)ud;
	return 0;
}

static int rectab_scenario(const struct dc_env *env, void *ud)
{
	enum { N = 70000 };
	static struct rec8 *got[N];
	const struct dc_failenv *fe = env->ud;
	struct dc_rectab t;
	uint32_t i;
	long visits = 0;
	int rc = dc_rectab_init(&t, env, sizeof(struct rec8), 8, "walk");

	(void)ud;
	if (rc)
		return rc;
	for (i = 0; i < N; i++) {
		const uint32_t key[2] = { i, ~i };
		got[i] = dc_rectab_get(&t, key);
		if (!got[i])
			break;
		got[i]->i = i;
	}
	if (i < N) {
		CHECK(fe->failures > 0);
		CHECK_EQ(t.n, i);
		for (uint32_t j = 0; j < i; j += (j < 16 ? 1 : 101)) {
			const uint32_t key[2] = { j, ~j };
			CHECK(dc_rectab_get(&t, key) == got[j]);
			CHECK_EQ(got[j]->i, j);
		}
		if (i > 0) {
			const uint32_t key[2] = { i - 1, ~(i - 1) };
			CHECK(dc_rectab_get(&t, key) == got[i - 1]);
		}
		CHECK_EQ(dc_rectab_each(&t, count_cb, &visits), 0);
		CHECK_EQ(visits, i);
		dc_rectab_release(&t);
		return DC_ENOMEM;
	}
	CHECK_EQ(t.n, N);
	CHECK_EQ(t.nslabs, 18);
	for (i = 0; i < N; i += 7) {
		const uint32_t key[2] = { i, ~i };
		CHECK(dc_rectab_get(&t, key) == got[i]);
		CHECK_EQ(got[i]->k[0], i);
		CHECK_EQ(got[i]->k[1], ~i);
		CHECK_EQ(got[i]->i, i);
	}
	CHECK_EQ(dc_rectab_each(&t, count_cb, &visits), 0);
	CHECK_EQ(visits, N);
	dc_rectab_release(&t);
	return 0;
}

DC_TEST(rectab, alloc_walk)
{
	DC_ALLOC_WALK(rectab_scenario, NULL);
}
