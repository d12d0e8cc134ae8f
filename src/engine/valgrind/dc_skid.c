/* dc_skid.c — IP-only samples with emulated skid (--sample-ip-only,
 * --skid=MEAN:SD).
 *
 * Notes (Rutar and Hollingsworth, §3.3.3; the model in core/skid.h):
 *  - With --sample-ip-only the sampler of --sample (same event, period and
 *    seed) delivers only an instruction pointer: the "interrupt" draws a
 *    skid k and the sample lands on the instruction the thread executes k
 *    instructions after the sampled one (k = 0: the sampled instruction,
 *    charged to the location its exact costs go to).  The sample adds the
 *    period to ip_sample(location, thread); the data address is dropped, so
 *    no sampled costs or evictions are written.  The exact tables are, as
 *    always: what the approximation is validated against.
 *  - Instructions are the ones Ir counts (each iteration of a rep-prefixed
 *    instruction is one).  Where the skid goes is where the program went:
 *    jumps, calls and returns are followed, since the count is of executed
 *    instructions.
 *  - Counting costs nothing while no skid is pending: the instrumenter
 *    already adds each stretch's instruction count to dc.ir_all (a stretch
 *    ends at a side exit or at the superblock's end); with
 *    --sample-ip-only it also compares dc.ir_all with the position of the
 *    earliest pending skid, dc.skid.next, inline, and only when the skid
 *    lands in the stretch just run does it call dc_ipsamp_stretch, which
 *    finds the instruction from the stretch's list of addresses made at
 *    instrumentation time.  A sample at the instruction at place j of its
 *    stretch (dc_ins.spos) lands on instruction dc.ir_all + j + k, dc.ir_all
 *    being the count at the stretch's start while its helpers run.
 *  - Samples still pending when the process ends (or that found the
 *    pending queue of DC_SKID_QUEUE full) are not written; meta
 *    sample_skid_lost counts them.
 *  - A stretch cut short by a synchronous signal (a fault in its middle)
 *    is not counted by Ir either; a skid pending across it lands later by
 *    the instructions that ran.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

#define DC_SKID_QUEUE 65536

struct dc_ipsamp {
	UInt loc, tid;            /* key */
	ULong count;
};

static UInt skid_mean, skid_sd;   /* thousandths of an instruction */

Bool dc_ipsamp_parse_skid(const HChar *spec)
{
	return dc_skid_parse(spec, &skid_mean, &skid_sd) == 0;
}

void dc_ipsamp_init(void)
{
	/* the skid draws from a stream apart from the periods' (and RDX's +1) */
	if (dc_skid_init(&dc.skid, &dc.env, skid_mean, skid_sd,
			 dc_hash64((ULong)dc.opt.sample_seed + 2), DC_SKID_QUEUE) ||
	    dc_rectab_init(&dc.ipsamps, &dc.env, sizeof(struct dc_ipsamp), 2 * sizeof(UInt),
			   "dc.ipsamps"))
		VG_(tool_panic)("out of memory");
	dc.ip_only = True;
}

static void count(UInt loc, UInt tid)
{
	UInt key[2] = { loc, tid };
	struct dc_ipsamp *r = dc_rectab_get(&dc.ipsamps, key);

	if (!r)
		VG_(tool_panic)("out of memory for IP-only samples");
	r->count += dc.sampler.period;
}

void dc_ipsamp_take(const struct dc_ins *in, const struct dc_cost *c)
{
	ULong k = dc_skid_draw(&dc.skid);

	if (k == 0)
		count(c->loc, c->tid);
	else
		dc_skid_push(&dc.skid, dc.ir_all + (ULong)((Long)in->spos + (Long)k));
}

static void land(void *ud, uint64_t index, uint32_t tid)
{
	const struct dc_stretch *st = ud;

	count(dc_loc_get(st->ip[index < st->n ? index : st->n - 1]), tid);
}

VG_REGPARM(1) void dc_ipsamp_stretch(const struct dc_stretch *st)
{
	dc_skid_due(&dc.skid, dc.ir_all - st->n, dc.ir_all, land, (void *)st);
}

void dc_ipsamp_switch(ThreadId tid)
{
	dc_skid_switch(&dc.skid, tid, dc.ir_all);
}

static int zero_cb(void *ud, void *rec)
{
	((struct dc_ipsamp *)rec)->count = 0;
	return 0;
}

void dc_ipsamp_reset_child(void)
{
	if (!dc.ip_only)
		return;
	dc_rectab_each(&dc.ipsamps, zero_cb, NULL);
	dc_skid_clear(&dc.skid);
}

static int ipsamp_cb(void *ud, void *rec)
{
	const struct dc_ipsamp *r = rec;

	if (r->count)
		dc_raw_ipsamp(ud, r->loc, r->tid, r->count);
	return 0;
}

void dc_ipsamp_dump(struct dc_rawout *o)
{
	HChar skid[48], sd[24];

	if (!dc.ip_only)
		return;
	dc_skid_fmt_milli(skid, sizeof skid, skid_mean);
	dc_skid_fmt_milli(sd, sizeof sd, skid_sd);
	VG_(strcat)(skid, ":");
	VG_(strcat)(skid, sd);
	dc_raw_meta(o, "sample_ip_only", "1");
	dc_raw_meta(o, "sample_skid", skid);
	dc_raw_meta_u64(o, "sample_skid_lost", dc.skid.n + dc.skid.dropped);
	dc_rectab_each(&dc.ipsamps, ipsamp_cb, o);
}
