/* trace.c — the emulated trace unit (see trace.h Notes). */
#include "core/trace.h"

void dc_trace_init(struct dc_trace_unit *t, const struct dc_env *env, uint64_t w,
		   uint64_t period, uint64_t seed)
{
	memset(t, 0, sizeof *t);
	t->env = env;
	t->w = w ? w : 1;
	dc_sampler_init(&t->period, period, seed);
	/* As if a window had just ended: the run starts with a gap. */
	t->on = true;
	t->gap = dc_sampler_next(&t->period) - t->w;
}

void dc_trace_release(struct dc_trace_unit *t)
{
	dc_free(t->env, t->recs);
	dc_free(t->env, t->wins);
	t->recs = NULL;
	t->wins = NULL;
}

/* Doubles *arr (n elements of size) to hold one more; false when out of
 * memory. */
static bool reserve(const struct dc_env *env, void **arr, uint64_t n, uint64_t *cap,
		    size_t size, const char *label)
{
	uint64_t c = *cap ? 2 * *cap : 4096;
	void *p;

	if (n < *cap)
		return true;
	p = dc_alloc(env, c * size, label);
	if (!p)
		return false;
	if (n)
		memcpy(p, *arr, n * size);
	dc_free(env, *arr);
	*arr = p;
	*cap = c;
	return true;
}

void dc_trace_phase(struct dc_trace_unit *t)
{
	uint64_t p;

	if (t->on) {
		t->on = false;
		t->countdown = t->gap;
		if (t->countdown)
			return;
	}
	p = dc_sampler_next(&t->period);
	t->period.samples++;
	t->on = !t->failed;
	t->countdown = t->w;
	t->gap = p - t->w;
	if (!t->on)
		return;
	if (!reserve(t->env, (void **)&t->wins, t->nwins, &t->wins_cap, sizeof *t->wins,
		     "trace.wins")) {
		t->failed = true;
		t->on = false;
		return;
	}
	t->wins[t->nwins].start = t->now;
	t->wins[t->nwins].period = p;
	t->nwins++;
}

void dc_trace_put(struct dc_trace_unit *t, uint64_t addr, uint64_t ip, uint32_t loc,
		  uint32_t bucket, unsigned implied, unsigned cls)
{
	struct dc_trace_rec *r;

	if (t->failed)
		return;
	if (!reserve(t->env, (void **)&t->recs, t->nrecs, &t->recs_cap, sizeof *t->recs,
		     "trace.recs")) {
		t->failed = true;
		t->on = false;
		return;
	}
	r = &t->recs[t->nrecs++];
	r->time = t->now - 1;
	r->addr = addr;
	r->ip = ip;
	r->win = (uint32_t)(t->nwins - 1);
	r->loc = loc;
	r->bucket = bucket;
	r->implied = (uint16_t)(implied > 0xffff ? 0xffff : implied);
	r->cls = (uint8_t)cls;
}

void dc_trace_end(struct dc_trace_unit *t)
{
	if (t->nwins) {
		struct dc_trace_win *last = &t->wins[t->nwins - 1];
		if (last->start + last->period > t->now)
			last->period = t->now - last->start;
	}
}
