/* sampler.c — an emulated event counter with randomized overflow (see
 * sampler.h Notes). */
#include "core/sampler.h"

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t dc_sampler_next(struct dc_sampler *s)
{
	uint64_t h = s->period / 4;
	uint64_t span = 2 * h + 1;
	/* span is small next to 2^64, so the modulo bias is negligible */
	return s->period - h + splitmix64(&s->rng) % span;
}

void dc_sampler_init(struct dc_sampler *s, uint64_t period, uint64_t seed)
{
	s->period = period ? period : 1;
	s->rng = seed;
	s->samples = 0;
	s->countdown = dc_sampler_next(s);
}
