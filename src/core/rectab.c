/* rectab.c — a hash table of fixed-size records that never move. */
#include "core/rectab.h"
#include "core/util.h"

#define SLAB_RECS 4096

int dc_rectab_init(struct dc_rectab *t, const struct dc_env *env, size_t rec_size,
		   size_t key_size, const char *label)
{
	memset(t, 0, sizeof *t);
	if (key_size == 0 || key_size > 16 || key_size % 4 || rec_size < key_size)
		return DC_EINVAL;
	t->env = env;
	t->label = label;
	t->rec_size = (rec_size + 7) & ~(size_t)7;
	t->key_size = key_size;
	t->cap = 256;     /* 2 KiB: a table a run barely uses costs little */
	t->slots = dc_alloc(env, t->cap * sizeof *t->slots, label);
	if (!t->slots)
		return DC_ENOMEM;
	memset(t->slots, 0, t->cap * sizeof *t->slots);
	return 0;
}

void dc_rectab_release(struct dc_rectab *t)
{
	for (uint64_t i = 0; i < t->nslabs; i++)
		dc_free(t->env, t->slabs[i]);
	dc_free(t->env, t->slabs);
	dc_free(t->env, t->slots);
	memset(t, 0, sizeof *t);
}

/* Keys are arrays of uint32_t (records start with uint32_t fields), read
 * as such: a memcpy per word was a library call in the Valgrind tool, which
 * is built with -fno-builtin, and dominated eviction tracking. */
static uint64_t key_hash(const void *key, size_t n)
{
	const uint32_t *k = key;
	uint64_t h = 0;

	for (size_t i = 0; i < n / 4; i++)
		h = h * 0x9e3779b97f4a7c15ULL + k[i];
	return dc_hash64(h);
}

static bool key_eq(const void *a, const void *b, size_t n)
{
	const uint32_t *x = a, *y = b;
	for (size_t i = 0; i < n / 4; i++)
		if (x[i] != y[i])
			return false;
	return true;
}

static void **slot(void **slots, uint64_t cap, const void *key, size_t n)
{
	uint64_t i = key_hash(key, n) & (cap - 1);

	while (slots[i] && !key_eq(slots[i], key, n))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct dc_rectab *t)
{
	uint64_t cap = t->cap * 2;
	void **s = dc_alloc(t->env, cap * sizeof *s, t->label);

	if (!s)
		return DC_ENOMEM;
	memset(s, 0, cap * sizeof *s);
	for (uint64_t i = 0; i < t->cap; i++)
		if (t->slots[i])
			*slot(s, cap, t->slots[i], t->key_size) = t->slots[i];
	dc_free(t->env, t->slots);
	t->slots = s;
	t->cap = cap;
	return 0;
}

static void *new_record(struct dc_rectab *t)
{
	if (!t->slab || t->slab_used == SLAB_RECS) {
		char *slab;
		if (t->nslabs == t->slabs_cap) {
			uint64_t cap = t->slabs_cap ? 2 * t->slabs_cap : 16;
			void **v = dc_alloc(t->env, cap * sizeof *v, t->label);
			if (!v)
				return NULL;
			if (t->nslabs)
				memcpy(v, t->slabs, t->nslabs * sizeof *v);
			dc_free(t->env, t->slabs);
			t->slabs = v;
			t->slabs_cap = cap;
		}
		slab = dc_alloc(t->env, SLAB_RECS * t->rec_size, t->label);
		if (!slab)
			return NULL;
		t->slabs[t->nslabs++] = slab;
		t->slab = slab;
		t->slab_used = 0;
	}
	return t->slab + t->rec_size * t->slab_used++;
}

void *dc_rectab_get(struct dc_rectab *t, const void *key)
{
	void **s = slot(t->slots, t->cap, key, t->key_size), *r;

	if (*s)
		return *s;
	if ((t->n + 1) * 2 > t->cap) {
		if (grow(t))
			return NULL;
		s = slot(t->slots, t->cap, key, t->key_size);
	}
	r = new_record(t);
	if (!r)
		return NULL;
	memset(r, 0, t->rec_size);
	memcpy(r, key, t->key_size);
	*s = r;
	t->n++;
	return r;
}

void *dc_rectab_find(const struct dc_rectab *t, const void *key)
{
	return *slot(t->slots, t->cap, key, t->key_size);
}

int dc_rectab_each(const struct dc_rectab *t, int (*fn)(void *ud, void *rec), void *ud)
{
	for (uint64_t i = 0; i < t->cap; i++) {
		int rc;
		if (!t->slots[i])
			continue;
		rc = fn(ud, t->slots[i]);
		if (rc)
			return rc;
	}
	return 0;
}
