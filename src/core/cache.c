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
	l->assoc = cfg->assoc;
	l->line_bits = (uint32_t)dc_log2(cfg->line);
	return 0;
}

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
