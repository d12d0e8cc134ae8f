/* callstack.c — shadow call stacks, arcs and their inclusive costs (see
 * callstack.h Notes). */
#include "core/callstack.h"

int dc_calls_init(struct dc_calls *c, const struct dc_env *env, bool tree)
{
	memset(c, 0, sizeof *c);
	c->env = env;
	c->tree = tree;
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

/* Prunes node and then its ancestors while they are inactive leaves that
 * no line references (callstack.h Notes). */
static void prune(struct dc_calls *c, struct dc_bdnode *node)
{
	while (node && !node->active && !node->refs && !node->child) {
		struct dc_bdnode *p = node->parent;
		for (int k = 0; k < DC_MAX_LEVELS; k++) {
			if (!node->nested) {
				node->arc->sploss[k] += node->sploss[k];
				node->arc->accost[k] += node->accost[k];
				node->arc->evicted[k] += node->evicted[k];
			}
			if (p) {
				p->sploss[k] += node->sploss[k];
				p->accost[k] += node->accost[k];
				p->evicted[k] += node->evicted[k];
			}
		}
		if (node->prev)
			node->prev->next = node->next;
		else if (p)
			p->child = node->next;
		if (node->next)
			node->next->prev = node->prev;
		dc_free(c->env, node);
		c->nodes--;
		node = p;
	}
}

void dc_bdtree_charge(struct dc_calls *c, struct dc_bdnode *node, int k, uint64_t sploss,
		      uint64_t accost, uint64_t evicted)
{
	node->sploss[k] += sploss;
	node->accost[k] += accost;
	node->evicted[k] += evicted;
	node->refs--;
	prune(c, node);
}

/* The node of a frame for (site, callee, kind) under parent (NULL: a new
 * root): the existing child for that arc, or a new one. */
static struct dc_bdnode *node_for(struct dc_calls *c, struct dc_bdnode *parent,
				  const uint32_t key[4], bool nested)
{
	struct dc_bdnode *n;

	for (n = parent ? parent->child : NULL; n; n = n->next)
		if (n->arc->site == key[0] && n->arc->callee == key[1] && n->arc->kind == key[3])
			return n;
	n = dc_alloc(c->env, sizeof *n, "calls.node");
	if (!n)
		return NULL;
	memset(n, 0, sizeof *n);
	n->arc = dc_rectab_get(&c->arcs, key);
	if (!n->arc) {
		dc_free(c->env, n);
		return NULL;
	}
	n->nested = nested;
	n->parent = parent;
	if (parent) {
		n->next = parent->child;
		if (n->next)
			n->next->prev = n;
		parent->child = n;
	}
	if (++c->nodes > c->max_nodes)
		c->max_nodes = c->nodes;
	return n;
}

static int push(struct dc_calls *c, struct dc_callstack *s, uint32_t site,
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
	if (c->tree) {
		uint32_t key[4] = { site, callee, s->tid, kind };
		f->node = node_for(c, kind == DC_ARC_CALL ? s->f[s->n - 1].node : NULL, key,
				   f->nested);
		if (!f->node)
			return DC_ENOMEM;
		f->node->active = true;
		c->node_sum += c->nodes;
		c->node_samples++;
	}
	s->n++;
	return 0;
}

static int pop(struct dc_calls *c, struct dc_callstack *s, const struct dc_cost *now)
{
	struct dc_frame *f = &s->f[--s->n];
	uint32_t key[4] = { f->site, f->callee, s->tid, f->kind };
	/* A frame's node holds its arc already: with the tree, popping
	 * cannot fail. */
	struct dc_arc *a = f->node ? f->node->arc : dc_rectab_get(&c->arcs, key);

	if (!a)
		return DC_ENOMEM;
	a->count++;
	if (!f->nested)
		add_diff(&a->incl, now, &f->snap);
	if (f->node) {
		f->node->active = false;
		prune(c, f->node);
	}
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

int dc_callstack_init(struct dc_callstack *s, struct dc_calls *c, uint32_t tid,
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

int dc_callstack_tailcall(struct dc_calls *c, struct dc_callstack *s, uint32_t site,
			  uint32_t callee, uint64_t sp, const struct dc_cost *now)
{
	int rc = unwind(c, s, sp, false, now);

	return rc ? rc : push(c, s, site, callee, DC_ARC_CALL, sp, now);
}

int dc_callstack_jump(struct dc_calls *c, struct dc_callstack *s, uint32_t callee,
		      const struct dc_cost *now)
{
	struct dc_frame top;
	int rc;

	if (!s->n || s->f[s->n - 1].kind != DC_ARC_CALL)
		return 0;
	top = s->f[s->n - 1];
	rc = pop(c, s, now);
	return rc ? rc : push(c, s, top.site, callee, DC_ARC_CALL, top.sp, now);
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

static void zero_node(struct dc_bdnode *n)
{
	memset(n->sploss, 0, sizeof n->sploss);
	memset(n->accost, 0, sizeof n->accost);
	memset(n->evicted, 0, sizeof n->evicted);
}

static void zero_tree(struct dc_bdnode *n)
{
	for (; n; n = n->next) {
		zero_node(n);
		zero_tree(n->child);
	}
}

void dc_callstack_zero(struct dc_callstack *s)
{
	for (uint32_t i = 0; i < s->n; i++) {
		memset(&s->f[i].snap, 0, sizeof s->f[i].snap);
		if (s->f[i].kind != DC_ARC_CALL && s->f[i].node) {
			zero_node(s->f[i].node);
			zero_tree(s->f[i].node->child);
		}
	}
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
	memset(a->sploss, 0, sizeof a->sploss);
	memset(a->accost, 0, sizeof a->accost);
	memset(a->evicted, 0, sizeof a->evicted);
	return 0;
}

void dc_calls_zero(struct dc_calls *c)
{
	dc_rectab_each(&c->arcs, zero_cb, NULL);
}
