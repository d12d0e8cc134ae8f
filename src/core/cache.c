/* cache.c — set up and tear down the cache model (access paths are inline
 * in cache.h; see its Notes for the semantics). */
#include "core/cache.h"
#include "core/util.h"

static int level_init(struct dc_cache_level *l, const struct dc_level_cfg *cfg,
		      const struct dc_env *env)
{
	uint64_t lines = cfg->size / cfg->line;
	uint64_t sets = lines / cfg->assoc;

	l->tags = dc_alloc(env, lines * sizeof *l->tags, "cache.tags");
	if (!l->tags)
		return DC_ENOMEM;
	for (uint64_t i = 0; i < lines; i++)
		l->tags[i] = DC_EMPTY_TAG;
	l->set_mask = sets - 1;
	l->set_mod = dc_is_pow2(sets) ? 0 : sets;
	l->assoc = cfg->assoc;
	l->line_bits = (uint32_t)dc_log2(cfg->line);
	l->wide = cfg->assoc % 4 == 0 && cfg->assoc >= 8 && cfg->assoc <= 32 && dc_cpu_avx2()
			  ? cfg->assoc : 0;
	return 0;
}

#if defined(__x86_64__)
/* Four ways in a vector (GCC's vector extensions, compiled for AVX2; may
 * alias the uint64_t tag words). */
typedef long long ways4 __attribute__((vector_size(32), aligned(8), may_alias));
typedef double ways4d __attribute__((vector_size(32)));
#define AVX2 __attribute__((target("avx2")))

/* The ways of a set of 4n ways (n = 2 to 8) past its first: way i is
 * compared in lane i % 4 of vector i / 4; the block's way p (4n on a
 * miss) is the lowest lane that matched; ways 0..p take what ways
 * -1..p-1 held (way -1 being the block), the others keep theirs.  Sets
 * of more than 16 ways look at their first four ways alone first. */
static AVX2 inline __attribute__((always_inline)) bool ref_ways(uint64_t *set, int n,
								uint64_t block,
								uint64_t *evicted)
{
	const ways4 b = { (long long)block, (long long)block, (long long)block, (long long)block };
	ways4 v[8];
	unsigned m = 0;
	long long p;

	if (n > 4) {
		v[0] = *(const ways4 *)set;
		m = (unsigned)__builtin_ia32_movmskpd256((ways4d)(v[0] == b));
		if (m) {
			p = __builtin_ctz(m);
			const ways4 keep = (ways4){ 0, 1, 2, 3 } > (ways4){ p, p, p, p };
			ways4 moved = __builtin_shuffle(v[0], b, (ways4){ 7, 0, 1, 2 });
			*(ways4 *)set = (moved & ~keep) | (v[0] & keep);
			return true;
		}
	}
#pragma GCC unroll 8
	for (int i = 0; i < n; i++) {
		v[i] = *(const ways4 *)(set + 4 * i);
		m |= (unsigned)__builtin_ia32_movmskpd256((ways4d)(v[i] == b)) << (4 * i);
	}
	p = m ? __builtin_ctz(m) : 4 * n;
#pragma GCC unroll 8
	for (int i = 0; i < n; i++) {
		const ways4 idx = { 4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3 };
		const ways4 keep = idx > (ways4){ p, p, p, p };
		ways4 moved = __builtin_shuffle(v[i], i ? v[i - 1] : b, (ways4){ 7, 0, 1, 2 });
		*(ways4 *)(set + 4 * i) = (moved & ~keep) | (v[i] & keep);
	}
	if (m)
		return true;
	*evicted = (uint64_t)v[n - 1][3];
	return false;
}

AVX2 bool dc_cache_ref_wide(uint64_t *set, uint32_t wide, uint64_t block, uint64_t *evicted)
{
	switch (wide) {
	case 8: return ref_ways(set, 2, block, evicted);
	case 12: return ref_ways(set, 3, block, evicted);
	case 16: return ref_ways(set, 4, block, evicted);
	case 20: return ref_ways(set, 5, block, evicted);
	case 24: return ref_ways(set, 6, block, evicted);
	case 28: return ref_ways(set, 7, block, evicted);
	default: return ref_ways(set, 8, block, evicted);
	}
}
#else
bool dc_cache_ref_wide(uint64_t *set, uint32_t wide, uint64_t block, uint64_t *evicted)
{
	(void)set, (void)wide, (void)block, (void)evicted;
	return false;     /* never called: wide is 0 */
}
#endif

int dc_cache_init(struct dc_cache *c, const struct dc_hier *h,
		  const struct dc_level_cfg *i1, const struct dc_env *env)
{
	int rc;

	memset(c, 0, sizeof *c);
	for (int k = 0; k < h->nlevels; k++) {
		rc = level_init(&c->lv[k], &h->lv[k], env);
		if (rc)
			goto fail;
		c->nlevels = k + 1;
	}
	if (i1) {
		rc = level_init(&c->i1, i1, env);
		if (rc)
			goto fail;
	}
	return 0;
fail:
	dc_cache_release(c, env);
	return rc;
}

void dc_cache_release(struct dc_cache *c, const struct dc_env *env)
{
	for (int k = 0; k < c->nlevels; k++)
		dc_free(env, c->lv[k].tags);
	dc_free(env, c->i1.tags);
	memset(c, 0, sizeof *c);
}
