/* test_cacheuse.c — cache-use metrics (cacheuse.h Notes): hand-traced
 * residencies on tiny caches, agreement with the plain model, and an
 * independent reference of the metrics on pseudo-random traces.
 *
 * "L1=128:2:64" is one set of two 64-byte lines; block = addr / 64. */
#include <stdlib.h>
#include <string.h>

#include "core/cacheuse.h"
#include "host/port_libc.h"
#include "unit.h"

struct uc {
	struct dc_cache c;
	struct dc_cacheuse u;
};

static void mk(struct uc *x, const char *spec, const char *i1spec, uint32_t maxbits)
{
	struct dc_hier h, hi;
	char err[160];

	if (dc_hier_parse_cache(&h, spec, err, sizeof err) ||
	    (i1spec && dc_hier_parse_cache(&hi, i1spec, err, sizeof err)))
		dc_unit_fail(__FILE__, __LINE__, "cannot parse '%s': %s", spec, err);
	CHECK_EQ(dc_cache_init(&x->c, &h, i1spec ? &hi.lv[0] : NULL, dc_env_libc()), 0);
	CHECK_EQ(dc_cacheuse_init(&x->u, &x->c, maxbits, dc_env_libc()), 0);
}

static void rm(struct uc *x)
{
	dc_cacheuse_release(&x->u, dc_env_libc());
	dc_cache_release(&x->c, dc_env_libc());
}

/* ---- one level ------------------------------------------------------------ */

/* A at 0x0 is read with 8 bytes at offsets 0 and 8: one residency of 2
 * accesses touching 16 of 64 bytes.  B (0x40) and C (0x80) evict it:
 * SpLoss1 = 64 - 16 = 48, AcCost1 = 1000 / 2 = 500, charged to the loader
 * of A (the first access), not to the second one. */
DC_TEST(cacheuse, spatial_loss_and_accesses_at_eviction)
{
	struct uc x;
	struct dc_cost a = { 0 }, a2 = { 0 }, other = { 0 };

	mk(&x, "L1=128:2:64", NULL, DC_USE_EXACT);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x0, 8, &a), 2);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x8, 8, &a2), 1);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x40, 64, &other), 2);
	CHECK_EQ(a.sploss[0], 0);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x80, 64, &other), 2);
	CHECK_EQ(a.sploss[0], 48);
	CHECK_EQ(a.accost[0], 500);
	CHECK_EQ(a2.sploss[0] + a2.accost[0], 0);
	/* B was read whole once: no loss, 1000 / 1 when C's successor evicts
	 * it; nothing evicted it yet. */
	CHECK_EQ(other.sploss[0] + other.accost[0], 0);
	rm(&x);
}

/* Lines still resident at exit are charged by dc_cacheuse_finish: B and C
 * above, each read whole once: SpLoss 0, AcCost 1000 + 1000.  A second
 * finish charges nothing (the residencies were ended). */
DC_TEST(cacheuse, finish_charges_resident_lines_once)
{
	struct uc x;
	struct dc_cost a = { 0 }, b = { 0 };

	mk(&x, "L1=128:2:64", NULL, DC_USE_EXACT);
	dc_cacheuse_access(&x.u, 0x0, 4, &a);
	dc_cacheuse_access(&x.u, 0x40, 64, &b);
	dc_cacheuse_access(&x.u, 0x80, 64, &b);   /* evicts A: 60 lost, 1000 */
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[0], 60);
	CHECK_EQ(a.accost[0], 1000);
	CHECK_EQ(b.sploss[0], 0);
	CHECK_EQ(b.accost[0], 2000);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(b.accost[0], 2000);
	rm(&x);
}

/* Evicted (with u.evictions): the residencies that ended by eviction, not
 * those finish ends.  A, B, C, D at 0x0, 0x40, 0x80, 0xc0 in a one-set
 * two-way L1: C evicts A, D evicts B; C and D are still resident at
 * finish.  A's and B's loader: 1 each; C's and D's: 0.  Without the flag
 * nothing is counted (SpLoss and AcCost as before). */
DC_TEST(cacheuse, evicted_counts_evictions_only)
{
	struct uc x;
	struct dc_cost a = { 0 }, b = { 0 }, cd = { 0 };

	for (int on = 0; on < 2; on++) {
		mk(&x, "L1=128:2:64", NULL, DC_USE_EXACT);
		x.u.evictions = on;
		memset(&a, 0, sizeof a);
		memset(&b, 0, sizeof b);
		memset(&cd, 0, sizeof cd);
		dc_cacheuse_access(&x.u, 0x0, 64, &a);
		dc_cacheuse_access(&x.u, 0x40, 64, &b);
		dc_cacheuse_access(&x.u, 0x80, 64, &cd);
		dc_cacheuse_access(&x.u, 0xc0, 64, &cd);
		dc_cacheuse_finish(&x.u);
		CHECK_EQ(a.evicted[0], on);
		CHECK_EQ(b.evicted[0], on);
		CHECK_EQ(cd.evicted[0], 0);
		CHECK_EQ(a.accost[0] + b.accost[0] + cd.accost[0], 4000);
		rm(&x);
	}
}

/* Granularity.  A 1-byte read at offset 5 of a 64-byte line: exact masks
 * lose 63 bytes; Callgrind's 32-bit mask has 2-byte units, the read covers
 * unit 2 (bytes 4-5) and 62 bytes count as lost.  (After finish that line
 * stays resident with no loader, so the next reads use another line.)  A
 * 3-byte read at offset 5 of block 1 covers units 2 and 3 (bytes 4-7): 60 lost.  With 32-byte lines both
 * masks are exact: 31 lost.  AcCost 1000 / 3 = 333 for three accesses
 * (integer division, as Callgrind). */
DC_TEST(cacheuse, mask_granularity)
{
	struct uc x;
	struct dc_cost a = { 0 };

	mk(&x, "L1=128:2:64", NULL, DC_USE_EXACT);
	dc_cacheuse_access(&x.u, 0x5, 1, &a);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[0], 63);
	rm(&x);

	a = (struct dc_cost){ 0 };
	mk(&x, "L1=128:2:64", NULL, DC_USE_CALLGRIND);
	dc_cacheuse_access(&x.u, 0x5, 1, &a);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[0], 62);
	dc_cacheuse_access(&x.u, 0x45, 3, &a);
	dc_cacheuse_access(&x.u, 0x45, 3, &a);
	dc_cacheuse_access(&x.u, 0x45, 3, &a);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[0], 62 + 60);
	CHECK_EQ(a.accost[0], 1000 + 333);
	rm(&x);

	a = (struct dc_cost){ 0 };
	mk(&x, "L1=64:2:32", NULL, DC_USE_CALLGRIND);
	dc_cacheuse_access(&x.u, 0x5, 1, &a);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[0], 31);
	rm(&x);
}

/* An access straddling two lines touches both: 8 bytes at 0x3c are bytes
 * 60-63 of block 0 and 0-3 of block 1, one access each: 2 x 60 lost. */
DC_TEST(cacheuse, straddle_touches_both_lines)
{
	struct uc x;
	struct dc_cost a = { 0 };

	mk(&x, "L1=256:2:64", NULL, DC_USE_EXACT);
	dc_cacheuse_access(&x.u, 0x3c, 8, &a);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[0], 120);
	CHECK_EQ(a.accost[0], 2000);
	rm(&x);
}

/* Lines loaded without a loader (collection off, instruction fetches) are
 * never charged, whoever accesses them later. */
DC_TEST(cacheuse, no_loader_no_charge)
{
	struct uc x;
	struct dc_cost a = { 0 };

	mk(&x, "L1=128:2:64", NULL, DC_USE_EXACT);
	dc_cacheuse_access(&x.u, 0x0, 4, NULL);
	dc_cacheuse_access(&x.u, 0x8, 4, &a);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[0] + a.accost[0], 0);
	rm(&x);
}

/* ---- deeper levels --------------------------------------------------------- */

/* L1 = 1 set x 2 ways, L2 = 1 set x 4 ways.  A (block 0) is read at 0x0
 * and 0x8 (8 bytes each; the second hits L1), then B and C evict it from
 * L1 only.  L1: 48 lost, 500.  L2 gets L1's use when L1 evicts A and is
 * charged at finish: 2 accesses, 16 bytes: 48, 500 as well. */
DC_TEST(cacheuse, level2_gets_level1_use)
{
	struct uc x;
	struct dc_cost a = { 0 }, o = { 0 };

	mk(&x, "L1=128:2:64,L2=256:4:64", NULL, DC_USE_EXACT);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x0, 8, &a), 3);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x8, 8, &o), 1);
	dc_cacheuse_access(&x.u, 0x40, 64, &o);
	dc_cacheuse_access(&x.u, 0x80, 64, &o);
	CHECK_EQ(a.sploss[0], 48);
	CHECK_EQ(a.accost[0], 500);
	CHECK_EQ(a.sploss[1], 0);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[1], 48);
	CHECK_EQ(a.accost[1], 500);
	rm(&x);
}

/* L2 evicts a line L1 still holds (non-inclusive).  L1 = 1 set x 2 ways,
 * L2 = "256:2:64" = 2 sets x 2 ways (set = block mod 2); A, X, Y are
 * blocks 0, 2, 4 (all L2 set 0).
 *   A     miss, miss     L1 [A]     L2 s0 [A]       A: 1 access
 *   X     miss, miss     L1 [X A]   L2 s0 [X A]
 *   A+8   L1 hit         L1 [A X]                   A: 2 accesses
 *   Y     miss, miss     L1 [Y A]   L2 s0 [Y X]     L2 evicts A while L1
 *         holds it: L2's residency of A had both accesses: 48 lost, 500
 *   A+16  L1 hit                                    A: 3 accesses in L1
 * At finish L1's A: 3 accesses, 24 bytes: 40 lost, 333; those after the
 * L2 eviction go to no L2 residency.  (Callgrind would charge L2's A
 * nothing here, its count being 0 until L1 evicts A.) */
DC_TEST(cacheuse, level2_eviction_gathers_level1_use)
{
	struct uc x;
	struct dc_cost a = { 0 }, o = { 0 };

	mk(&x, "L1=128:2:64,L2=256:2:64", NULL, DC_USE_EXACT);
	dc_cacheuse_access(&x.u, 0x0, 8, &a);
	dc_cacheuse_access(&x.u, 0x80, 8, &o);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x8, 8, &o), 1);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x100, 8, &o), 3);
	CHECK_EQ(x.c.lv[1].victim[0], 0);
	CHECK_EQ(a.sploss[1], 48);
	CHECK_EQ(a.accost[1], 500);
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x10, 8, &o), 1);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.sploss[0], 40);
	CHECK_EQ(a.accost[0], 333);
	CHECK_EQ(a.sploss[1], 48);
	CHECK_EQ(a.accost[1], 500);
	rm(&x);
}

/* ---- against the plain model and an independent reference ---------------- */

static uint64_t rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The reference keeps, per level, the residencies of the lines the plain
 * model holds: a line's residency starts when the model loads it and ends
 * when the model evicts it (victim[]) or at the end; every access counts,
 * at every level holding a line it touches, once per line, with the bytes
 * it touches there (the definition, with no passing between levels). */
#define NLOADERS 5

struct rres {
	bool live;
	uint64_t block, bytes[4];   /* touched bytes, up to 256-byte lines */
	uint32_t count;
	int loader;
};

struct rlevel {
	struct rres *r;
	size_t n;
	uint32_t line, unit;
	uint64_t sploss[NLOADERS], accost[NLOADERS];
};

static struct rres *rfind(struct rlevel *l, uint64_t block)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->r[i].live && l->r[i].block == block)
			return &l->r[i];
	return NULL;
}

static void rend(struct rlevel *l, struct rres *r)
{
	uint32_t lost = 0;

	for (uint32_t u = 0; u < l->line / l->unit; u++) {
		bool any = false;
		for (uint32_t b = u * l->unit; b < (u + 1) * l->unit; b++)
			any |= (r->bytes[b / 64] >> (b % 64)) & 1;
		if (!any)
			lost += l->unit;
	}
	if (r->loader >= 0) {
		l->sploss[r->loader] += lost;
		l->accost[r->loader] += 1000 / r->count;
	}
	r->live = false;
}

static bool resident(const struct dc_cache_level *l, uint64_t block)
{
	const uint64_t *set = l->tags + (block & l->set_mask) * l->assoc;
	for (uint32_t i = 0; i < l->assoc; i++)
		if (set[i] == block)
			return true;
	return false;
}

static void compare_with_reference(const char *spec, uint32_t maxbits, uint64_t seed, int n)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8, 16, 3, 12, 32 };
	struct uc x;
	struct dc_cache plain;
	struct dc_hier h;
	struct rlevel rl[DC_MAX_LEVELS] = { 0 };
	struct dc_cost costs[NLOADERS] = { 0 };
	char err[160];
	long evictions = 0;

	mk(&x, spec, NULL, maxbits);
	CHECK_EQ(dc_hier_parse_cache(&h, spec, err, sizeof err), 0);
	CHECK_EQ(dc_cache_init(&plain, &h, NULL, dc_env_libc()), 0);
	for (int k = 0; k < h.nlevels; k++) {
		rl[k].n = h.lv[k].size / h.lv[k].line;
		rl[k].r = calloc(rl[k].n, sizeof *rl[k].r);
		rl[k].line = h.lv[k].line;
		rl[k].unit = h.lv[k].line > maxbits ? h.lv[k].line / maxbits : 1;
	}
	uint64_t hot = 2 * h.lv[0].size, wide = 4 * h.lv[h.nlevels - 1].size;
	for (int i = 0; i < n; i++) {
		uint64_t v = rng(&seed);
		uint64_t addr = (v & 1) ? (v >> 8) % hot : (v >> 8) % wide;
		uint32_t size = sizes[(v >> 1) % 8];
		int who = (int)((v >> 4) % (NLOADERS + 1)) - 1;   /* -1: no loader */
		int got = dc_cacheuse_access(&x.u, addr, size, who < 0 ? NULL : &costs[who]);
		int want = dc_cache_access(&plain, addr, size);

		CHECK_EQ(got, want);
		for (int k = 0; k < h.nlevels; k++) {
			struct dc_cache_level *l = &plain.lv[k];
			for (uint64_t w = 0; w < (l->set_mask + 1) * l->assoc; w++)
				CHECK_EQ(x.c.lv[k].tags[w] & DC_USE_BLOCK,
					 l->tags[w] == DC_EMPTY_TAG ? DC_USE_EMPTY : l->tags[w]);
			if (k < want - 1)
				for (uint32_t j = 0; j < l->nfill; j++) {
					CHECK_EQ(x.c.lv[k].victim[j], l->victim[j]);
					struct rres *r = rfind(&rl[k], l->victim[j]);
					if (l->victim[j] != DC_EMPTY_TAG) {
						CHECK(r);
						rend(&rl[k], r);
						evictions++;
					}
				}
			for (uint64_t b = addr >> l->line_bits;
			     b <= (addr + size - 1) >> l->line_bits; b++) {
				struct rres *r;
				if (!resident(l, b))
					continue;
				r = rfind(&rl[k], b);
				if (!r) {
					for (r = rl[k].r; r->live; r++)
						;
					*r = (struct rres){ .live = true, .block = b, .loader = who };
				}
				r->count++;
				for (uint64_t a = addr; a < addr + size; a++)
					if (a >> l->line_bits == b) {
						uint32_t off = (uint32_t)(a & ((1u << l->line_bits) - 1));
						r->bytes[off / 64] |= (uint64_t)1 << (off % 64);
					}
			}
		}
	}
	dc_cacheuse_finish(&x.u);
	for (int k = 0; k < h.nlevels; k++) {
		for (size_t i = 0; i < rl[k].n; i++)
			if (rl[k].r[i].live)
				rend(&rl[k], &rl[k].r[i]);
		for (int w = 0; w < NLOADERS; w++) {
			if (costs[w].sploss[k] != rl[k].sploss[w] ||
			    costs[w].accost[k] != rl[k].accost[w])
				dc_unit_fail(__FILE__, __LINE__,
					     "%s level %d loader %d: SpLoss %llu AcCost %llu, "
					     "reference %llu %llu", spec, k + 1, w,
					     (unsigned long long)costs[w].sploss[k],
					     (unsigned long long)costs[w].accost[k],
					     (unsigned long long)rl[k].sploss[w],
					     (unsigned long long)rl[k].accost[w]);
			CHECK(rl[k].accost[w] > 0);
		}
		free(rl[k].r);
	}
	CHECK(evictions > n / 10);
	dc_cache_release(&plain, dc_env_libc());
	rm(&x);
}

DC_TEST(cacheuse, matches_reference_one_level)
{
	compare_with_reference("L1=1K:2:64", DC_USE_EXACT, 0x1234567, 4000);
	compare_with_reference("L1=1K:2:64", DC_USE_CALLGRIND, 0x7654321, 4000);
	compare_with_reference("L1=256:1:16", DC_USE_EXACT, 0xabcdef, 4000);
}

DC_TEST(cacheuse, matches_reference_deeper_levels)
{
	compare_with_reference("L1=1K:2:64,L2=4K:4:64", DC_USE_EXACT, 7, 6000);
	compare_with_reference("L1=1K:2:64,L2=2K:2:64", DC_USE_CALLGRIND, 8, 6000);
	compare_with_reference("L1=1K:2:128,L2=4K:4:128", DC_USE_CALLGRIND, 9, 6000);
	compare_with_reference("L1=512:2:16,L2=2K:4:16,L3=8K:8:16", DC_USE_EXACT, 11, 6000);
	compare_with_reference("L1=256:2:32,L2=1K:2:32,L3=4K:4:32,L4=16K:8:32",
			       DC_USE_CALLGRIND, 13, 8000);
}

/* 8 and 16 ways, the typical associativities, slot numbers moving with
 * their tags through the whole set. */
DC_TEST(cacheuse, matches_reference_wide_sets)
{
	compare_with_reference("L1=1K:8:32,L2=4K:16:32", DC_USE_EXACT, 31, 6000);
	compare_with_reference("L1=1K:16:16,L2=4K:8:16,L3=16K:16:16", DC_USE_CALLGRIND, 32, 8000);
}

/* A level-2 record names the line's level-3 slot only while level 3's
 * sets nest level 2's (cacheuse.h Notes): here level 2 has 64 sets and
 * level 3 16, so two lines of one level-3 set can sit in different
 * level-2 sets, and a named slot could not be proved still the line's;
 * the first hierarchy nests (32 sets, then 64). */
DC_TEST(cacheuse, matches_reference_with_and_without_nested_sets)
{
	for (uint64_t seed = 41; seed < 49; seed++) {
		compare_with_reference("L1=512:2:16,L2=2K:4:16,L3=8K:8:16", DC_USE_EXACT, seed, 6000);
		compare_with_reference("L1=256:2:16,L2=2K:2:16,L3=4K:16:16", DC_USE_EXACT, seed,
				       6000);
	}
}

/* Levels exchange masks, so their lines must have one size; slots take 8
 * bits of the tag word, so at most 256 ways. */
DC_TEST(cacheuse, rejects_mixed_line_sizes_and_wide_sets)
{
	struct dc_hier h;
	struct dc_cache c;
	struct dc_cacheuse u;
	char err[160];

	CHECK_EQ(dc_hier_parse_cache(&h, "L1=1K:2:32,L2=4K:4:64", err, sizeof err), 0);
	CHECK_EQ(dc_cache_init(&c, &h, NULL, dc_env_libc()), 0);
	CHECK_EQ(dc_cacheuse_init(&u, &c, DC_USE_EXACT, dc_env_libc()), DC_EINVAL);
	dc_cache_release(&c, dc_env_libc());
	CHECK_EQ(dc_hier_parse_cache(&h, "L1=32K:512:64", err, sizeof err), 0);
	CHECK_EQ(dc_cache_init(&c, &h, NULL, dc_env_libc()), 0);
	CHECK_EQ(dc_cacheuse_init(&u, &c, DC_USE_EXACT, dc_env_libc()), DC_EINVAL);
	dc_cache_release(&c, dc_env_libc());
	CHECK_EQ(dc_hier_parse_cache(&h, "L1=16K:256:64", err, sizeof err), 0);
	CHECK_EQ(dc_cache_init(&c, &h, NULL, dc_env_libc()), 0);
	CHECK_EQ(dc_cacheuse_init(&u, &c, DC_USE_EXACT, dc_env_libc()), 0);
	dc_cacheuse_release(&u, dc_env_libc());
	dc_cache_release(&c, dc_env_libc());
}

/* Instruction fetches go through I1 into the last level like the plain
 * model's, load lines with no loader, and evict data lines there. */
DC_TEST(cacheuse, ifetch_matches_plain_model)
{
	struct uc x;
	struct dc_cache plain;
	struct dc_hier h, hi;
	struct dc_cost a = { 0 };
	char err[160];

	mk(&x, "L1=128:2:64,L2=256:2:64", "L1=128:2:64", DC_USE_EXACT);
	dc_hier_parse_cache(&h, "L1=128:2:64,L2=256:2:64", err, sizeof err);
	dc_hier_parse_cache(&hi, "L1=128:2:64", err, sizeof err);
	CHECK_EQ(dc_cache_init(&plain, &h, &hi.lv[0], dc_env_libc()), 0);
	/* Data A (block 0), then fetches of blocks 2 and 4 (L2 set 0) evict A
	 * from L2: its one access, 4 bytes: 60 lost, 1000. */
	CHECK_EQ(dc_cacheuse_access(&x.u, 0x0, 4, &a), dc_cache_access(&plain, 0x0, 4));
	CHECK_EQ(dc_cacheuse_ifetch(&x.u, 0x80, 4), dc_cache_ifetch(&plain, 0x80, 4));
	CHECK_EQ(dc_cacheuse_ifetch(&x.u, 0x100, 4), dc_cache_ifetch(&plain, 0x100, 4));
	CHECK_EQ(x.c.lv[1].victim[0], 0);
	CHECK_EQ(a.sploss[1], 60);
	CHECK_EQ(a.accost[1], 1000);
	dc_cacheuse_finish(&x.u);
	CHECK_EQ(a.accost[1], 1000);
	dc_cache_release(&plain, dc_env_libc());
	rm(&x);
}

/* ---- allocation ------------------------------------------------------------ */

static int use_scenario(const struct dc_env *env, void *ud)
{
	struct dc_hier h;
	struct dc_cache c;
	struct dc_cacheuse u;
	struct dc_cost a = { 0 };
	char err[160];
	int rc;

	dc_hier_parse_cache(&h, ud, err, sizeof err);
	rc = dc_cache_init(&c, &h, NULL, env);
	if (rc)
		return rc;
	rc = dc_cacheuse_init(&u, &c, DC_USE_EXACT, env);
	if (rc) {
		dc_cache_release(&c, env);
		return rc;
	}
	CHECK_EQ(dc_cacheuse_access(&u, 0x100, 8, &a), h.nlevels + 1);
	dc_cacheuse_finish(&u);
	CHECK_EQ(a.sploss[0], 56);
	dc_cacheuse_release(&u, env);
	dc_cache_release(&c, env);
	return 0;
}

DC_TEST(cacheuse, alloc_walk_init)
{
	DC_ALLOC_WALK(use_scenario, "L1=1K:2:64,L2=4K:4:64,L3=16K:8:64,L4=64K:8:64");
	DC_ALLOC_WALK(use_scenario, "L1=1K:2:64");
}
