/* trace.c — the emulated trace unit (see trace.h Notes). */
#include "core/trace.h"
#include "core/rawout.h"

void dc_trace_init(struct dc_trace_unit *t, uint64_t w, uint64_t period, uint64_t seed,
		   struct dc_rawout *out, struct dc_rawout *file)
{
	memset(t, 0, sizeof *t);
	t->w = w ? w : 1;
	t->out = out;
	t->file = file;
	dc_sampler_init(&t->period, period, seed);
	/* As if a window had just ended: the run starts with a gap. */
	t->on = true;
	t->gap = dc_sampler_next(&t->period) - t->w;
}

void dc_trace_phase(struct dc_trace_unit *t)
{
	uint64_t p, now = t->phase_end;

	if (t->on) {
		t->on = false;
		t->countdown = t->gap;
		t->phase_end += t->gap;
		if (t->countdown)
			return;
	}
	p = dc_sampler_next(&t->period);
	if (t->nwins) {
		t->cur.period = now - t->cur.start;
		dc_raw_tper(t->out, t->nwins - 1, t->cur.period);
	}
	t->on = true;
	t->countdown = t->w;
	t->phase_end = now + t->w;
	t->gap = p - t->w;
	t->cur.start = now;
	dc_raw_twin(t->out, t->nwins, now);
	t->nwins++;
}

void dc_trace_put(struct dc_trace_unit *t, uint64_t addr, uint64_t ip, uint32_t loc,
		  uint32_t bucket, unsigned implied, unsigned cls)
{
	struct dc_trace_rec r;

	r.time = dc_trace_now(t) - 1;
	r.addr = addr;
	r.ip = ip;
	r.win = (uint32_t)(t->nwins - 1);
	r.loc = loc;
	r.bucket = bucket;
	r.implied = (uint16_t)(implied > 0xffff ? 0xffff : implied);
	r.cls = (uint8_t)cls;
	dc_raw_trec(t->out, &r);
	if (t->file)
		dc_trace_file_rec(t->file, &r);
}

void dc_trace_end(struct dc_trace_unit *t)
{
	if (!t->nwins)
		return;
	t->cur.period = dc_trace_now(t) - t->cur.start;
	dc_raw_tper(t->out, t->nwins - 1, t->cur.period);
}
