/* callstack.c — shadow call stacks, arcs and their inclusive costs (see
 * callstack.h Notes). */
#include "core/callstack.h"

int dc_calls_init(struct dc_calls *c, const struct dc_env *env)
{
	c->env = env;
	return dc_rectab_init(&c->arcs, env, sizeof(struct dc_arc), 4 * sizeof(uint32_t),
			      "calls.arcs");
}

void dc_calls_release(struct dc_calls *c)
{
	dc_rectab_release(&c->arcs);
}

/* d += a - b over the counters. */
static void add_diff(struct dc_cost *d, const struct dc_cost *a, const struct dc_cost *b)
{
	for (int rw = 0; rw < 2; rw++) {
		d->acc[rw] += a->acc[rw] - b->acc[rw];
		for (int k = 0; k < DC_MAX_LEVELS; k++)
			d->miss[k][rw] += a->miss[k][rw] - b->miss[k][rw];
	}
	d->lat += a->lat - b->lat;
}

static int push(const struct dc_calls *c, struct dc_callstack *s, uint32_t site,
		uint32_t callee, uint32_t kind, uint64_t sp, const struct dc_cost *now)
{
	struct dc_frame *f;

	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 64;
		struct dc_frame *nf = dc_alloc(c->env, cap * sizeof *nf, "calls.frames");
		if (!nf)
			return DC_ENOMEM;
		if (s->n)
			memcpy(nf, s->f, s->n * sizeof *nf);
		dc_free(c->env, s->f);
		s->f = nf;
		s->cap = cap;
	}
	f = &s->f[s->n];
	memset(f, 0, sizeof *f);
	f->site = site;
	f->callee = callee;
	f->kind = kind;
	f->sp = sp;
	f->snap.acc[0] = now->acc[0];
	f->snap.acc[1] = now->acc[1];
	memcpy(f->snap.miss, now->miss, sizeof f->snap.miss);
	f->snap.lat = now->lat;
	if (kind == DC_ARC_CALL)
		for (uint32_t i = s->n; i-- > 0 && s->f[i].kind == DC_ARC_CALL;)
			if (s->f[i].callee == callee) {
				f->nested = true;
				break;
			}
	s->n++;
	return 0;
}

static int pop(struct dc_calls *c, struct dc_callstack *s, const struct dc_cost *now)
{
	struct dc_frame *f = &s->f[--s->n];
	uint32_t key[4] = { f->site, f->callee, s->tid, f->kind };
	struct dc_arc *a = dc_rectab_get(&c->arcs, key);

	if (!a)
		return DC_ENOMEM;
	a->count++;
	if (!f->nested)
		add_diff(&a->incl, now, &f->snap);
	return 0;
}

/* Pops the call frames above the nearest root whose sp is below `sp`
 * (or equal, when `equal`). */
static int unwind(struct dc_calls *c, struct dc_callstack *s, uint64_t sp, bool equal,
		  const struct dc_cost *now)
{
	while (s->n && s->f[s->n - 1].kind == DC_ARC_CALL &&
	       (s->f[s->n - 1].sp < sp || (equal && s->f[s->n - 1].sp == sp))) {
		int rc = pop(c, s, now);
		if (rc)
			return rc;
	}
	return 0;
}

int dc_callstack_init(struct dc_callstack *s, const struct dc_calls *c, uint32_t tid,
		      const struct dc_cost *now)
{
	memset(s, 0, sizeof *s);
	s->tid = tid;
	return push(c, s, DC_CALL_NONE, DC_CALL_NONE, DC_ARC_THREAD, ~(uint64_t)0, now);
}

void dc_callstack_release(struct dc_callstack *s, const struct dc_calls *c)
{
	dc_free(c->env, s->f);
	memset(s, 0, sizeof *s);
}

int dc_callstack_call(struct dc_calls *c, struct dc_callstack *s, uint32_t site,
		      uint32_t callee, uint64_t sp, const struct dc_cost *now)
{
	int rc = unwind(c, s, sp, true, now);

	return rc ? rc : push(c, s, site, callee, DC_ARC_CALL, sp, now);
}

int dc_callstack_ret(struct dc_calls *c, struct dc_callstack *s, uint64_t sp,
		     const struct dc_cost *now)
{
	return unwind(c, s, sp, false, now);
}

int dc_callstack_signal(struct dc_calls *c, struct dc_callstack *s, const struct dc_cost *now)
{
	return push(c, s, DC_CALL_NONE, DC_CALL_NONE, DC_ARC_SIGNAL, 0, now);
}

int dc_callstack_signal_end(struct dc_calls *c, struct dc_callstack *s,
			    const struct dc_cost *now)
{
	struct dc_cost handler = { 0 };
	uint32_t i;
	int rc;

	while (s->n && s->f[s->n - 1].kind == DC_ARC_CALL)
		if ((rc = pop(c, s, now)))
			return rc;
	if (!s->n || s->f[s->n - 1].kind != DC_ARC_SIGNAL)
		return 0;   /* no handler was seen starting (collection began inside) */
	add_diff(&handler, now, &s->f[s->n - 1].snap);
	if ((rc = pop(c, s, now)))
		return rc;
	for (i = 0; i < s->n; i++)
		add_diff(&s->f[i].snap, &handler, &(struct dc_cost){ 0 });
	return 0;
}

int dc_callstack_finish(struct dc_calls *c, struct dc_callstack *s, const struct dc_cost *now)
{
	while (s->n) {
		int rc = s->f[s->n - 1].kind == DC_ARC_SIGNAL ? dc_callstack_signal_end(c, s, now)
							      : pop(c, s, now);
		if (rc)
			return rc;
	}
	return 0;
}

void dc_callstack_zero(struct dc_callstack *s)
{
	for (uint32_t i = 0; i < s->n; i++)
		memset(&s->f[i].snap, 0, sizeof s->f[i].snap);
}

struct each {
	int (*fn)(void *ud, const struct dc_arc *a);
	void *ud;
};

static int each_cb(void *ud, void *rec)
{
	struct each *e = ud;
	return e->fn(e->ud, rec);
}

int dc_calls_each(const struct dc_calls *c, int (*fn)(void *ud, const struct dc_arc *a),
		  void *ud)
{
	struct each e = { fn, ud };
	return dc_rectab_each(&c->arcs, each_cb, &e);
}

static int zero_cb(void *ud, void *rec)
{
	struct dc_arc *a = rec;
	a->count = 0;
	memset(&a->incl, 0, sizeof a->incl);
	return 0;
}

void dc_calls_zero(struct dc_calls *c)
{
	dc_rectab_each(&c->arcs, zero_cb, NULL);
}
