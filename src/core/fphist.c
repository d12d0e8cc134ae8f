/* fphist.c — footprint histograms over power-of-2 window sizes (see
 * fphist.h Notes). */
#include "core/fphist.h"
#include "core/trace.h"

int dc_fphist_init(struct dc_fphist *h, const struct dc_env *env, uint64_t w)
{
	memset(h, 0, sizeof *h);
	while (h->nbins < DC_FPHIST_MAX && ((uint64_t)2 << h->nbins) <= w)
		h->nbins++;
	for (unsigned k = 0; k < h->nbins; k++) {
		if (dc_blockset_init(&h->set[k], env)) {
			h->nbins = k;
			dc_fphist_release(h);
			return DC_ENOMEM;
		}
	}
	return 0;
}

void dc_fphist_release(struct dc_fphist *h)
{
	for (unsigned k = 0; k < h->nbins; k++)
		dc_blockset_release(&h->set[k]);
	h->nbins = 0;
}

int dc_fphist_add(struct dc_fphist *h, uint64_t block, unsigned cls)
{
	for (unsigned k = 0; k < h->nbins; k++) {
		uint64_t mask = ((uint64_t)2 << k) - 1;
		uint64_t *cur = h->cur[k];
		if (!(h->t & mask)) {
			dc_blockset_clear(&h->set[k]);
			cur[0] = cur[1] = 0;
		}
		if (cls != DC_TC_CONST) {
			int r = dc_blockset_add(&h->set[k], block);
			if (r < 0)
				return r;
			if (r)
				cur[cls == DC_TC_STRIDED ? 0 : 1]++;
		}
		if ((h->t & mask) == mask) {
			struct dc_fphist_bin *b = &h->bin[k];
			b->tiles++;
			b->f += cur[0] + cur[1];
			b->fstr += cur[0];
			b->firr += cur[1];
		}
	}
	h->t++;
	return 0;
}

void dc_fphist_restart(struct dc_fphist *h)
{
	h->t = 0;
}

void dc_fphist_clear(struct dc_fphist *h)
{
	h->t = 0;
	memset(h->bin, 0, sizeof h->bin);
}
