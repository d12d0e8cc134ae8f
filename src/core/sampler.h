/* sampler.h — an emulated event counter with randomized overflow.
 *
 * Notes (seeds/002 §3.1, §4.1.2):
 *  - Like a hardware performance counter armed to overflow after N events,
 *    the sampler counts events down and "interrupts" (dc_sampler_tick
 *    returns true) when the count reaches zero; the caller then records what
 *    a PEBS/IBS/EAR sample carries: data address, instruction, latency.
 *  - After every sample the next period is drawn uniformly from
 *    [N - N/4, N + N/4] (mean exactly N), so sampling cannot lock onto a
 *    loop whose length divides N — perfmon randomizes the reload value with
 *    a random mask for the same reason.  The first period is drawn too.
 *  - Each sample stands for N events: estimates are samples x N.
 *  - The generator is splitmix64 seeded by the caller: the same seed gives
 *    the same samples for the same event stream.
 */
#ifndef DC_SAMPLER_H
#define DC_SAMPLER_H

#include "core/port.h"

struct dc_sampler {
	uint64_t period;     /* N, >= 1 */
	uint64_t countdown;  /* events until the next sample */
	uint64_t rng;        /* generator state */
	uint64_t samples;    /* samples taken */
};

void dc_sampler_init(struct dc_sampler *s, uint64_t period, uint64_t seed);

/* The next period: uniform on [N - N/4, N + N/4]. */
uint64_t dc_sampler_next(struct dc_sampler *s);

/* Counts one event; true when it is sampled. */
static inline bool dc_sampler_tick(struct dc_sampler *s)
{
	if (--s->countdown)
		return false;
	s->countdown = dc_sampler_next(s);
	s->samples++;
	return true;
}

#endif
