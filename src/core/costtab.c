/* costtab.c — exact cost counters per (location, bucket, thread): a typed
 * layer over rectab. */
#include "core/costtab.h"

int dc_costtab_init(struct dc_costtab *t, const struct dc_env *env)
{
	return dc_rectab_init(&t->r, env, sizeof(struct dc_cost), 3 * sizeof(uint32_t),
			      "costtab");
}

void dc_costtab_release(struct dc_costtab *t)
{
	dc_rectab_release(&t->r);
}

struct dc_cost *dc_costtab_get(struct dc_costtab *t, uint32_t loc, uint32_t bucket,
			       uint32_t tid)
{
	uint32_t key[3] = { loc, bucket, tid };
	return dc_rectab_get(&t->r, key);
}

struct each {
	int (*fn)(void *ud, const struct dc_cost *c);
	void *ud;
};

static int each_cb(void *ud, void *rec)
{
	struct each *e = ud;
	return e->fn(e->ud, rec);
}

int dc_costtab_each(const struct dc_costtab *t, int (*fn)(void *ud, const struct dc_cost *c),
		    void *ud)
{
	struct each e = { fn, ud };
	return dc_rectab_each(&t->r, each_cb, &e);
}

static int zero_cb(void *ud, void *rec)
{
	struct dc_cost *c = rec;
	memset(c->acc, 0, sizeof c->acc);
	memset(c->miss, 0, sizeof c->miss);
	c->lat = 0;
	memset(c->sploss, 0, sizeof c->sploss);
	memset(c->accost, 0, sizeof c->accost);
	memset(c->evicted, 0, sizeof c->evicted);
	return 0;
}

void dc_costtab_zero(struct dc_costtab *t)
{
	dc_rectab_each(&t->r, zero_cb, NULL);
}
