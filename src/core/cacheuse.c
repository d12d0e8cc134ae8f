/* cacheuse.c — use records of the cache model: setup, fills, passing
 * level-1 use deeper, charging ended residencies (see cacheuse.h Notes). */
#include "core/cacheuse.h"
#include "core/util.h"

int dc_cacheuse_init(struct dc_cacheuse *u, struct dc_cache *c, uint32_t maxbits,
		     const struct dc_env *env)
{
	memset(u, 0, sizeof *u);
	for (int k = 0; k < c->nlevels; k++)
		if (c->lv[k].line_bits != c->lv[0].line_bits || c->lv[k].assoc > DC_USE_MAX_ASSOC ||
		    c->lv[k].set_mod)
			return DC_EINVAL;
	u->c = c;
	u->hw_popcnt = dc_cpu_popcnt();
	for (int k = 0; k < c->nlevels; k++) {
		struct dc_cache_level *l = &c->lv[k];
		struct dc_use_level *ul = &u->lv[k];
		size_t n = (size_t)(l->set_mask + 1) * l->assoc;
		size_t size = k ? sizeof(struct dc_use_line) : sizeof(struct dc_use_l1);
		uint32_t line = (uint32_t)1 << l->line_bits;

		ul->nbits = line < maxbits ? line : maxbits;
		ul->unit_bits = (uint32_t)dc_log2(line / ul->nbits);
		ul->set_bits = (uint32_t)dc_log2(l->set_mask + 1);
		ul->link = k > 0 && k + 1 < c->nlevels && l->set_mask <= c->lv[k + 1].set_mask;
		ul->rec = dc_alloc(env, n * size, "cacheuse.rec");
		if (!ul->rec) {
			dc_cacheuse_release(u, env);
			return DC_ENOMEM;
		}
		memset(ul->rec, 0, n * size);
		for (size_t i = 0; i < n; i++)
			l->tags[i] = DC_USE_EMPTY | (uint64_t)(i % l->assoc) << 56;
	}
	/* 8 counters per level-1 line, at least 4096: a count never reaches
	 * 2^16 (that many lines), and a block not in level 1 finds a count of
	 * 0 about 7 times in 8 (1 - e^(-1/8) of the counters are taken). */
	{
		uint64_t want = (c->lv[0].set_mask + 1) * c->lv[0].assoc * 8;
		u->l1f_bits = (uint32_t)dc_log2((want > 4096 ? want : 4096) - 1) + 1;
		u->l1f = dc_alloc(env, ((size_t)1 << u->l1f_bits) * sizeof *u->l1f, "cacheuse.l1f");
		if (!u->l1f) {
			dc_cacheuse_release(u, env);
			return DC_ENOMEM;
		}
		memset(u->l1f, 0, ((size_t)1 << u->l1f_bits) * sizeof *u->l1f);
	}
	return 0;
}

void dc_cacheuse_release(struct dc_cacheuse *u, const struct dc_env *env)
{
	for (int k = 0; k < DC_MAX_LEVELS; k++)
		dc_free(env, u->lv[k].rec);
	dc_free(env, u->l1f);
	memset(u, 0, sizeof *u);
}

/* The slot of `block` at level k, or -1 when the level lacks it. */
static int64_t find(const struct dc_cacheuse *u, int k, uint64_t block)
{
	const struct dc_cache_level *l = &u->c->lv[k];
	const uint64_t *set = l->tags + (block & l->set_mask) * l->assoc;

	for (uint32_t i = 0; i < l->assoc; i++)
		if ((set[i] & DC_USE_BLOCK) == block)
			return (int64_t)(set[i] >> 56);
	return -1;
}

/* block's counter of level 1's lines (u->l1f). */
static uint16_t *l1f(const struct dc_cacheuse *u, uint64_t block)
{
	return &u->l1f[(block * 0x9e3779b97f4a7c15ULL) >> (64 - u->l1f_bits)];
}

static struct dc_use_l1 *find_l1(const struct dc_cacheuse *u, uint64_t block)
{
	int64_t s;

	if (!*l1f(u, block))
		return NULL;
	s = find(u, 0, block);

	return s < 0 ? NULL : (struct dc_use_l1 *)u->lv[0].rec +
			      dc_cacheuse_index(&u->c->lv[0], block, (uint32_t)s);
}

/* Level k >= 1's record of `block` in `slot`. */
static inline struct dc_use_line *deep_rec(const struct dc_cacheuse *u, int k, uint64_t block,
					   uint32_t slot)
{
	return (struct dc_use_line *)u->lv[k].rec + dc_cacheuse_index(&u->c->lv[k], block, slot);
}

/* The slot of level k's record r. */
static inline uint32_t deep_slot(const struct dc_cacheuse *u, int k, const struct dc_use_line *r)
{
	return (uint32_t)((size_t)(r - (const struct dc_use_line *)u->lv[k].rec) >>
			  u->lv[k].set_bits);
}

/* Level k >= 1's record r, in slot rs, and level k + 1's record rn of the
 * same line, in slot sn, name each other (next, prev: see the Notes). */
static inline void link_next(struct dc_use_line *r, uint32_t rs, struct dc_use_line *rn,
			     uint32_t sn)
{
	r->next = (uint16_t)(sn + 1);
	rn->prev = (uint16_t)(rs + 1);
}

/* Level j's record of r1's line `block`, NULL when level j lacks it.  The
 * record of level j - 1 (known before, when j > 1) may name its slot. */
static struct dc_use_line *dep(const struct dc_cacheuse *u, struct dc_use_l1 *r1, int j,
			       uint64_t block)
{
	struct dc_use_line *r = r1->dep[j], *up;
	int64_t s;

	if (r != DC_USE_UNKNOWN)
		return r;
	up = j > 1 && u->lv[j - 1].link && r1->dep[j - 1] != DC_USE_UNKNOWN ? r1->dep[j - 1]
									     : NULL;
	if (up && up->next) {
		r = deep_rec(u, j, block, up->next - 1u);
		if (r->prev == deep_slot(u, j - 1, up) + 1) {
			r1->dep[j] = r;
			return r;
		}
	}
	s = find(u, j, block);
	r = s < 0 ? NULL : deep_rec(u, j, block, (uint32_t)s);
	if (r && up)
		link_next(up, deep_slot(u, j - 1, up), r, (uint32_t)s);
	r1->dep[j] = r;
	return r;
}

/* Adds r1's use not passed on yet to every deeper level holding `block`,
 * level k's record being `self` (NULL: skip level k). */
static void pass_on(struct dc_cacheuse *u, struct dc_use_l1 *r1, uint64_t block, int k,
		    struct dc_use_line *self)
{
	uint32_t n = r1->count - r1->passed;

	/* Nothing to pass (pmask is empty too): the lookups are skipped. */
	if (!n)
		return;
	for (int j = 1; j < u->c->nlevels; j++) {
		struct dc_use_line *r = j == k ? self : dep(u, r1, j, block);
		if (r) {
			r->count += n;
			r->mask |= r1->pmask;
		}
	}
	r1->passed = r1->count;
	r1->pmask = 0;
}

/* Ends a residency, by eviction or not: its loader and its tree node get
 * SpLoss, AcCost and Evicted. */
static inline void charge(struct dc_cacheuse *u, int k, uint64_t block, uint64_t mask,
			  uint32_t count, struct dc_cost *c, struct dc_bdnode *node, bool evicted)
{
	uint64_t sp = 0, ac = 0, ev = 0;

	if (c && count) {
		sp = (uint64_t)(u->lv[k].nbits - dc_popcount64(u->hw_popcnt, mask)) << u->lv[k].unit_bits;
		if (sp && u->unused)
			u->unused(u->unused_ud, k, block, mask);
		ac = 1000 / count;
		ev = evicted && u->evictions;
		c->sploss[k] += sp;
		c->accost[k] += ac;
		c->evicted[k] += ev;
	}
	if (node)
		dc_bdtree_charge(u->calls, node, k, sp, ac, ev);
}

/* The node a line loaded by `loader` references. */
static struct dc_bdnode *load_node(struct dc_cacheuse *u, const struct dc_cost *loader)
{
	if (!loader || !u->calls || !u->node)
		return NULL;
	dc_bdtree_ref(u->node);
	return u->node;
}

/* Level 1's record r ends its residency of `victim` (DC_EMPTY_TAG: none)
 * and starts one of `block`, which an access loads with `mask`. */
static void l1_start(struct dc_cacheuse *u, struct dc_use_l1 *r, uint64_t block,
		     uint64_t victim, uint64_t mask, struct dc_cost *loader)
{
	if (victim != DC_EMPTY_TAG) {
		pass_on(u, r, victim, -1, NULL);
		charge(u, 0, victim, r->mask, r->count, r->loader, r->node, true);
		(*l1f(u, victim))--;
	}
	(*l1f(u, block))++;
	r->mask = r->pmask = mask;
	r->count = 1;
	r->passed = 0;
	r->loader = loader;
	r->node = load_node(u, loader);
	for (int j = 1; j < DC_MAX_LEVELS; j++)
		r->dep[j] = DC_USE_UNKNOWN;
}

/* Level k >= 1's record r ends its residency of `victim` (level 1's use
 * of it passed on first) and starts one loaded by `loader`. */
static void deep_start(struct dc_cacheuse *u, int k, struct dc_use_line *r, uint64_t victim,
		       struct dc_cost *loader)
{
	if (victim != DC_EMPTY_TAG) {
		struct dc_use_l1 *r1 = find_l1(u, victim);
		if (r1) {
			pass_on(u, r1, victim, k, r);
			r1->dep[k] = NULL;
		}
		charge(u, k, victim, r->mask, r->count, r->loader, r->node, true);
	}
	r->next = r->prev = 0;
	r->loader = loader;
	r->node = load_node(u, loader);
}

void dc_cacheuse_fill(struct dc_cacheuse *u, int k, uint64_t block, uint64_t victim,
		      uint32_t slot, uint64_t mask, struct dc_cost *loader)
{
	size_t i = dc_cacheuse_index(&u->c->lv[k], block, slot);

	if (k == 0) {
		l1_start(u, (struct dc_use_l1 *)u->lv[0].rec + i, block, victim, mask, loader);
	} else {
		struct dc_use_line *r = (struct dc_use_line *)u->lv[k].rec + i;
		struct dc_use_l1 *r1;
		deep_start(u, k, r, victim, loader);
		/* A data access has the line in level 1 (loaded or hit there);
		 * what level 1 counted before goes to the other levels. */
		r1 = find_l1(u, block);
		if (r1) {
			pass_on(u, r1, block, k, NULL);
			r1->dep[k] = r;
		}
		r->count = r1 ? 1 : 0;
		r->mask = r1 ? mask : 0;
	}
}

/* An access within one line that level 1 does not hold in its most
 * recent way, level by level in one routine.  What dc_cacheuse_fill and
 * dc_cacheuse_deep_hit do, with what is known here used instead of
 * searched: level 1's record of the line, and that the levels after a
 * missing one are consulted next.  When level 1 misses, the access is
 * level 1's only use of the line not passed on; each level that misses
 * starts its residency with it, and instead of the first deeper fill
 * passing it to the deeper levels holding the line (a search of each),
 * the level that hits gets it (and a level beyond that one, never
 * consulted, by a search).  A level-2 hit right after a level-1 miss
 * leaves it in level 1's record, to be passed on later, as the fill-by-
 * fill path does. */
static int access_line(struct dc_cacheuse *u, uint64_t block, uint64_t mask,
		       struct dc_cost *loader)
{
	struct dc_cache *c = u->c;
	struct dc_cache_level *l = &c->lv[0];
	struct dc_use_l1 *r0;
	struct dc_use_line *up = NULL;   /* the record of the level above, filled */
	uint64_t victim;
	uint32_t s, up_s = 0;
	int k;

	if (dc_cacheuse_line_ref(l, block, &victim, &s)) {
		r0 = (struct dc_use_l1 *)u->lv[0].rec + dc_cacheuse_index(l, block, s);
		r0->count++;
		r0->mask |= mask;
		r0->pmask |= mask;
		return 1;
	}
	l->nfill = 1;
	l->victim[0] = victim;
	r0 = (struct dc_use_l1 *)u->lv[0].rec + dc_cacheuse_index(l, block, s);
	/* level 2's set and its victim's record fetched while level 1's victim
	 * is passed on and charged */
	if (c->nlevels > 1) {
		__builtin_prefetch(c->lv[1].tags + (block & c->lv[1].set_mask) * c->lv[1].assoc);
		dc_cacheuse_prefetch_victim(&c->lv[1], &u->lv[1], block);
	}
	l1_start(u, r0, block, victim, mask, loader);
	/* unrolled: each level's branches of its own (dc_cache_access) */
#pragma GCC unroll 4
	for (k = 1; k < c->nlevels; k++) {
		struct dc_use_line *r, *rec = u->lv[k].rec;

		l = &c->lv[k];
		if (k > 1)
			dc_cacheuse_prefetch_victim(l, &u->lv[k], block);
		if (dc_cacheuse_line_ref(l, block, &victim, &s)) {
			r = rec + dc_cacheuse_index(l, block, s);
			r0->dep[k] = r;
			if (up && u->lv[k - 1].link)
				link_next(up, up_s, r, s);
			if (k == 1) {
				__builtin_prefetch(r);   /* level 1 passes its use to it later */
				return 2;
			}
			r->count++;
			r->mask |= mask;
			for (int j = k + 1; j < c->nlevels; j++) {
				struct dc_use_line *rj = dep(u, r0, j, block);
				if (rj) {
					rj->count++;
					rj->mask |= mask;
				}
			}
			r0->passed = r0->count;
			r0->pmask = 0;
			return k + 1;
		}
		l->nfill = 1;
		l->victim[0] = victim;
		r = rec + dc_cacheuse_index(l, block, s);
		deep_start(u, k, r, victim, loader);
		r->count = 1;
		r->mask = mask;
		r0->dep[k] = r;
		if (up && u->lv[k - 1].link)
			link_next(up, up_s, r, s);
		up = r;
		up_s = s;
	}
	r0->passed = r0->count;
	r0->pmask = 0;
	return k + 1;
}

int dc_cacheuse_access_levels(struct dc_cacheuse *u, uint64_t addr, uint32_t size,
			      struct dc_cost *loader)
{
	const struct dc_cache_level *l = &u->c->lv[0];
	uint64_t block = addr >> l->line_bits;
	int k;

	if (block == (addr + size - 1) >> l->line_bits)
		return access_line(u, block, dc_cacheuse_mask(l, &u->lv[0], block, addr, size),
				   loader);
	for (k = 0; k < u->c->nlevels; k++)
		if (!dc_cacheuse_level_miss(u, k, addr, size, loader))
			break;
	return k + 1;
}

void dc_cacheuse_deep_hit(struct dc_cacheuse *u, int k, uint64_t block, uint32_t slot)
{
	struct dc_use_l1 *r1 = find_l1(u, block);
	struct dc_use_line *r = (struct dc_use_line *)u->lv[k].rec +
				dc_cacheuse_index(&u->c->lv[k], block, slot);

	/* Level 1 passes its use to r when it evicts the line: fetch r now,
	 * off the critical path (random chases stalled there on it). */
	__builtin_prefetch(r);
	if (r1)
		r1->dep[k] = r;
}

void dc_cacheuse_finish(struct dc_cacheuse *u)
{
	for (int k = 0; k < u->c->nlevels; k++) {
		const struct dc_cache_level *l = &u->c->lv[k];
		size_t n = (size_t)(l->set_mask + 1) * l->assoc;

		for (size_t i = 0; i < n; i++) {
			uint64_t block = l->tags[i] & DC_USE_BLOCK;
			size_t r = dc_cacheuse_index(l, i / l->assoc, (uint32_t)(l->tags[i] >> 56));
			if (block == DC_USE_EMPTY)
				continue;
			if (k == 0) {
				struct dc_use_l1 *r1 = (struct dc_use_l1 *)u->lv[0].rec + r;
				pass_on(u, r1, block, -1, NULL);
				charge(u, 0, block, r1->mask, r1->count, r1->loader, r1->node, false);
				r1->loader = NULL;
				r1->node = NULL;
				r1->count = r1->passed = 0;
				r1->mask = r1->pmask = 0;
			} else {
				struct dc_use_line *rd = (struct dc_use_line *)u->lv[k].rec + r;
				charge(u, k, block, rd->mask, rd->count, rd->loader, rd->node, false);
				rd->loader = NULL;
				rd->node = NULL;
				rd->count = 0;
				rd->mask = 0;
			}
		}
	}
}
