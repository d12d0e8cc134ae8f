/* sampler.c — an emulated event counter with randomized overflow (see
 * sampler.h Notes). */
#include "core/sampler.h"
#include "core/util.h"

uint64_t dc_sampler_next(struct dc_sampler *s)
{
	uint64_t h = s->period / 4;
	uint64_t span = 2 * h + 1;
	/* span is small next to 2^64, so the modulo bias is negligible */
	return s->period - h + dc_rand64(&s->rng) % span;
}

void dc_sampler_init(struct dc_sampler *s, uint64_t period, uint64_t seed)
{
	s->period = period ? period : 1;
	s->rng = seed;
	s->samples = 0;
	s->countdown = dc_sampler_next(s);
}
