/* evtab.c — eviction counts: a typed layer over rectab. */
#include "core/evtab.h"

int dc_evtab_init(struct dc_evtab *t, const struct dc_env *env)
{
	memset(t->recent, 0, sizeof t->recent);
	return dc_rectab_init(&t->r, env, sizeof(struct dc_evict), 4 * sizeof(uint32_t),
			      "evtab");
}

void dc_evtab_release(struct dc_evtab *t)
{
	memset(t->recent, 0, sizeof t->recent);
	dc_rectab_release(&t->r);
}

int dc_evtab_add_slow(struct dc_evtab *t, uint32_t level, uint32_t evictor, uint32_t victim,
		      uint32_t loc, uint64_t n)
{
	uint32_t key[4] = { level, evictor, victim, loc };
	struct dc_evict *e = dc_rectab_get(&t->r, key);

	if (!e)
		return DC_ENOMEM;
	*dc_evtab_recent(t, level, evictor, victim, loc) = e;
	e->count += n;
	return 0;
}

struct each {
	int (*fn)(void *ud, const struct dc_evict *e);
	void *ud;
};

static int each_cb(void *ud, void *rec)
{
	struct each *e = ud;
	return e->fn(e->ud, rec);
}

int dc_evtab_each(const struct dc_evtab *t, int (*fn)(void *ud, const struct dc_evict *e),
		  void *ud)
{
	struct each e = { fn, ud };
	return dc_rectab_each(&t->r, each_cb, &e);
}

static int zero_cb(void *ud, void *rec)
{
	((struct dc_evict *)rec)->count = 0;
	return 0;
}

void dc_evtab_zero(struct dc_evtab *t)
{
	dc_rectab_each(&t->r, zero_cb, NULL);
}
