/* costtab.c — exact cost counters per (location, bucket, thread). */
#include "core/costtab.h"
#include "core/util.h"

#define SLAB_RECS 4096

int dc_costtab_init(struct dc_costtab *t, const struct dc_env *env)
{
	memset(t, 0, sizeof *t);
	t->env = env;
	t->cap = 4096;
	t->slots = dc_alloc(env, t->cap * sizeof *t->slots, "costtab.slots");
	if (!t->slots)
		return DC_ENOMEM;
	memset(t->slots, 0, t->cap * sizeof *t->slots);
	return 0;
}

void dc_costtab_release(struct dc_costtab *t)
{
	for (uint64_t i = 0; i < t->nslabs; i++)
		dc_free(t->env, t->slabs[i]);
	dc_free(t->env, t->slabs);
	dc_free(t->env, t->slots);
	memset(t, 0, sizeof *t);
}

static uint64_t key_hash(uint32_t loc, uint32_t bucket, uint32_t tid)
{
	return dc_hash64(((uint64_t)loc << 32 | bucket) ^ ((uint64_t)tid << 20));
}

static struct dc_cost **slot(struct dc_cost **slots, uint64_t cap, uint32_t loc,
			     uint32_t bucket, uint32_t tid)
{
	uint64_t i = key_hash(loc, bucket, tid) & (cap - 1);

	while (slots[i] && !(slots[i]->loc == loc && slots[i]->bucket == bucket &&
			     slots[i]->tid == tid))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct dc_costtab *t)
{
	uint64_t cap = t->cap * 2;
	struct dc_cost **s = dc_alloc(t->env, cap * sizeof *s, "costtab.slots");

	if (!s)
		return DC_ENOMEM;
	memset(s, 0, cap * sizeof *s);
	for (uint64_t i = 0; i < t->cap; i++) {
		struct dc_cost *c = t->slots[i];
		if (c)
			*slot(s, cap, c->loc, c->bucket, c->tid) = c;
	}
	dc_free(t->env, t->slots);
	t->slots = s;
	t->cap = cap;
	return 0;
}

static struct dc_cost *new_record(struct dc_costtab *t)
{
	if (!t->slab || t->slab_used == SLAB_RECS) {
		struct dc_cost *slab;
		if (t->nslabs == t->slabs_cap) {
			uint64_t cap = t->slabs_cap ? 2 * t->slabs_cap : 16;
			void **v = dc_alloc(t->env, cap * sizeof *v, "costtab.slablist");
			if (!v)
				return NULL;
			if (t->nslabs)
				memcpy(v, t->slabs, t->nslabs * sizeof *v);
			dc_free(t->env, t->slabs);
			t->slabs = v;
			t->slabs_cap = cap;
		}
		slab = dc_alloc(t->env, SLAB_RECS * sizeof *slab, "costtab.slab");
		if (!slab)
			return NULL;
		t->slabs[t->nslabs++] = slab;
		t->slab = slab;
		t->slab_used = 0;
	}
	return &t->slab[t->slab_used++];
}

struct dc_cost *dc_costtab_get(struct dc_costtab *t, uint32_t loc, uint32_t bucket,
			       uint32_t tid)
{
	struct dc_cost **s = slot(t->slots, t->cap, loc, bucket, tid), *c;

	if (*s)
		return *s;
	if ((t->n + 1) * 2 > t->cap) {
		if (grow(t))
			return NULL;
		s = slot(t->slots, t->cap, loc, bucket, tid);
	}
	c = new_record(t);
	if (!c)
		return NULL;
	memset(c, 0, sizeof *c);
	c->loc = loc;
	c->bucket = bucket;
	c->tid = tid;
	*s = c;
	t->n++;
	return c;
}

int dc_costtab_each(const struct dc_costtab *t, int (*fn)(void *ud, const struct dc_cost *c),
		    void *ud)
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

void dc_costtab_zero(struct dc_costtab *t)
{
	for (uint64_t i = 0; i < t->cap; i++) {
		struct dc_cost *c = t->slots[i];
		if (!c)
			continue;
		memset(c->acc, 0, sizeof c->acc);
		memset(c->miss, 0, sizeof c->miss);
		c->lat = 0;
	}
}
