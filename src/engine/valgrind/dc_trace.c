/* dc_trace.c — sampled windowed memory traces and their full-trace
 * reference (seeds/004 §4–§7).
 *
 * Notes:
 *  - Load classes (§4.2), decided per execution of a load:
 *    Constant: the IR address expression is a constant (an absolute or
 *    RIP-relative global) or the stack or frame pointer plus a constant
 *    (a scalar on the frame), followed through the superblock's
 *    temporaries and Add/Sub of constants.  Constant loads are not traced.
 *    Every other load is a stride candidate: an execution is Strided when
 *    its address step from the load's previous execution equals the load's
 *    confirmed stride, or equals the previous step (which then becomes the
 *    confirmed stride); otherwise Irregular.  So a loop over an array has
 *    two Irregular executions at its first run and one at each restart;
 *    a step of 0 repeated is a stride too.
 *  - Limits: the frame pointer is taken to be RBP, so code that uses RBP
 *    as a general register has its RBP-relative loads counted Constant;
 *    the stack pointer read in an earlier superblock and kept in another
 *    register is not recognised (Irregular or Strided instead).
 *  - Compression (§4.2): in each straight-line stretch of a superblock (up
 *    to a side exit), the first non-Constant load is the proxy of the
 *    stretch's Constant loads: its record carries their count ("implied").
 *    A stretch with only Constant loads has its first one as the proxy,
 *    traced with class Constant.  Guarded (conditional) loads are never
 *    implied: a Constant one is its own proxy.  Stores are not traced.
 *  - Each load's records go straight into the raw dump (trace.h); the
 *    --trace-out file gets the same records in its own format.
 *  - --trace-full (§7.1): every record also updates exact counts: per
 *    window period, the distinct blocks of non-Constant records (F), split
 *    by the class of each block's first access in the period (F_str,
 *    F_irr); per function, the same over consecutive tiles of w records
 *    (the code-window reference), plus its accesses and Constant loads;
 *    and the footprint histograms of the whole run over power-of-2 tile
 *    sizes up to w (fphist.h), written as meta trace_hist at the end.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_vki.h"

#include "core/fphist.h"
#include "core/rectab.h"
#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

/* Reference counts of one function (key first, as rectab wants). */
struct dc_tfn {
	UInt key[2];              /* 64-bit hash of the name */
	HChar *name;
	UInt id;
	ULong a, aconst, f, fstr, firr;
};

static struct {
	struct dc_blockset period, tile;
	struct dc_rectab fns;
	struct dc_fphist hist;
	UInt nfns;
	ULong nwins;              /* windows whose period began */
	ULong f, fstr, firr;      /* of the current period */
	ULong tile_no;
} full;

/* --trace-out: the sampled-trace file, written as records come. */
static struct dc_rawout *trace_file;
static Int trace_fd = -1;
static HChar *trace_path;         /* its name, %p expanded */

static void open_trace_file(void)
{
	VG_(free)(trace_path);
	trace_path = VG_(expand_file_name)("--trace-out", dc.opt.trace_out);
	trace_fd = dc_port_create(trace_path, 0644);
	if (trace_fd < 0) {
		VG_(fmsg)("dcprof: cannot create trace file '%s'\n", trace_path);
		VG_(exit)(2);
	}
	if (!trace_file)
		trace_file = VG_(malloc)("dc.trace.out", sizeof *trace_file);
	dc_rawout_init(trace_file, dc_fd_sink(&trace_fd));
	dc_trace_file_header(trace_file, (ULong)dc.opt.trace_window, (ULong)dc.opt.trace_period,
			     (ULong)dc.opt.trace_block);
}

static void start_unit(void)
{
	if (dc.opt.trace_out)
		open_trace_file();
	dc_trace_init(&dc.trace, (ULong)dc.opt.trace_window, (ULong)dc.opt.trace_period,
		      (ULong)dc.opt.trace_seed, dc.raw, trace_file);
}

void dc_trace_setup(void)
{
	if (!dc.opt.trace_window)
		return;
	dc.tracing = True;
	dc.trace_bits = (UInt)dc_log2((ULong)dc.opt.trace_block);
	start_unit();
	if (dc.opt.trace_full &&
	    (dc_blockset_init(&full.period, &dc.env) || dc_blockset_init(&full.tile, &dc.env) ||
	     dc_rectab_init(&full.fns, &dc.env, sizeof(struct dc_tfn), 2 * sizeof(UInt),
			    "dc.trace.fns") ||
	     dc_fphist_init(&full.hist, &dc.env, (ULong)dc.opt.trace_window)))
		VG_(tool_panic)("out of memory");
}

/* ---- static classification -------------------------------------------- */

static Bool frame_or_const(IRExpr *e, IRExpr **defs, const VexGuestLayout *layout, Int depth)
{
	if (depth > 8)
		return False;
	switch (e->tag) {
	case Iex_Const:
		return True;
	case Iex_RdTmp:
		return defs[e->Iex.RdTmp.tmp] &&
		       frame_or_const(defs[e->Iex.RdTmp.tmp], defs, layout, depth + 1);
	case Iex_Get:
		return e->Iex.Get.offset == layout->offset_SP ||
		       e->Iex.Get.offset == layout->offset_FP;
	case Iex_Binop: {
		IROp op = e->Iex.Binop.op;
		IRExpr *l = e->Iex.Binop.arg1, *r = e->Iex.Binop.arg2;
		if (op == Iop_Add64 || op == Iop_Add32)
			return (r->tag == Iex_Const && frame_or_const(l, defs, layout, depth + 1)) ||
			       (l->tag == Iex_Const && frame_or_const(r, defs, layout, depth + 1));
		if (op == Iop_Sub64 || op == Iop_Sub32)
			return r->tag == Iex_Const && frame_or_const(l, defs, layout, depth + 1);
		return False;
	}
	default:
		return False;
	}
}

UChar dc_trace_static_class(IRExpr *addr, IRExpr **defs, const VexGuestLayout *layout)
{
	return frame_or_const(addr, defs, layout, 0) ? DC_TC_CONST : DC_TC_IRREG;
}

/* ---- traced loads ---------------------------------------------------- */

static struct dc_tfn *fn_of(Addr ip)
{
	const HChar *name = dc_fn_name(ip);
	ULong h = 1469598103934665603ULL;
	struct dc_tfn *f;
	UInt key[2];

	for (const HChar *p = name; *p; p++)
		h = (h ^ (UChar)*p) * 1099511628211ULL;
	key[0] = (UInt)h;
	key[1] = (UInt)(h >> 32);
	f = dc_rectab_get(&full.fns, key);
	if (!f)
		VG_(tool_panic)("out of memory");
	if (!f->name) {
		f->name = VG_(strdup)("dc.trace.fn", name);
		f->id = full.nfns++;
	}
	return f;
}

struct dc_tins *dc_trace_new_ins(Addr ip, Int size, UChar cls, UInt implied)
{
	struct dc_tins *ti = VG_(malloc)("dc.tins", sizeof *ti);

	VG_(memset)(ti, 0, sizeof *ti);
	ti->cls = cls;
	ti->implied = (UShort)(implied > 0xffff ? 0xffff : implied);
	ti->delta = ti->stride = (Long)0x8000000000000000ULL;
	if (dc.opt.trace_full)
		ti->fn = fn_of(ip);
	return ti;
}

/* ---- the full-trace reference ---------------------------------------- */

/* The exact footprint of the period that just ended (after its twin). */
static void end_period(void)
{
	if (full.nwins)
		dc_raw_tref(dc.raw, full.nwins - 1, full.f, full.fstr, full.firr);
}

void dc_trace_ref(struct dc_tins *ti, Addr a, UInt cls)
{
	struct dc_tfn *f = ti->fn;
	ULong block = (ULong)a >> dc.trace_bits;
	ULong tile = (dc_trace_now(&dc.trace) - 1) / dc.trace.w;
	int r;

	if (dc.trace.nwins != full.nwins) {
		end_period();
		full.nwins = dc.trace.nwins;
		full.f = full.fstr = full.firr = 0;
		dc_blockset_clear(&full.period);
	}
	if (tile != full.tile_no) {
		full.tile_no = tile;
		dc_blockset_clear(&full.tile);
	}
	if (dc_fphist_add(&full.hist, block, cls))
		VG_(tool_panic)("out of memory for the full trace");
	f->aconst += ti->implied;
	if (cls == DC_TC_CONST) {
		f->aconst++;
		return;
	}
	f->a++;
	if (full.nwins) {
		r = dc_blockset_add(&full.period, block);
		if (r < 0)
			VG_(tool_panic)("out of memory for the full trace");
		if (r) {
			full.f++;
			if (cls == DC_TC_STRIDED)
				full.fstr++;
			else
				full.firr++;
		}
	}
	/* Blocks are below 2^44 (47-bit addresses, blocks of 8 bytes or more). */
	r = dc_blockset_add(&full.tile, block | (ULong)(f->id & 0xfffff) << 44);
	if (r < 0)
		VG_(tool_panic)("out of memory for the full trace");
	if (r) {
		f->f++;
		if (cls == DC_TC_STRIDED)
			f->fstr++;
		else
			f->firr++;
	}
}

/* ---- fork and output ------------------------------------------------- */

static int zero_fn(void *ud, void *rec)
{
	struct dc_tfn *f = rec;
	f->a = f->aconst = f->f = f->fstr = f->firr = 0;
	return 0;
}

/* A forked child traces from the fork with a fresh unit (same seed) into
 * its own dump and trace file; what the parent buffered is the parent's. */
void dc_trace_reset_child(void)
{
	if (!dc.tracing)
		return;
	if (trace_fd >= 0)
		VG_(close)(trace_fd);
	start_unit();
	if (dc.opt.trace_full) {
		full.nwins = 0;
		full.tile_no = 0;
		dc_blockset_clear(&full.period);
		dc_blockset_clear(&full.tile);
		dc_fphist_clear(&full.hist);
		dc_rectab_each(&full.fns, zero_fn, NULL);
	}
}

static int tfn_cb(void *ud, void *rec)
{
	const struct dc_tfn *f = rec;
	if (f->a || f->aconst)
		dc_raw_tfn(ud, f->name, f->a, f->aconst, f->f, f->fstr, f->firr);
	return 0;
}

static int loads_cb(void *ud, const struct dc_cost *c)
{
	*(ULong *)ud += c->acc[0];
	return 0;
}

static int discard(void *ud, const void *buf, size_t n)
{
	return 0;
}

/* meta trace_hist: SIZE:TILES:F:FSTR:FIRR per bin, comma-separated
 * (docs/raw-dump.md). */
static void hist_meta(struct dc_rawout *o)
{
	HChar *buf;
	Int n = 0;

	if (!full.hist.nbins)
		return;
	buf = VG_(malloc)("dc.trace.hist", DC_FPHIST_MAX * 110 + 1);
	buf[0] = 0;
	for (UInt k = 0; k < full.hist.nbins; k++) {
		const struct dc_fphist_bin *b = &full.hist.bin[k];
		n += VG_(sprintf)(buf + n, "%s%llu:%llu:%llu:%llu:%llu", k ? "," : "",
				  2ULL << k, (ULong)b->tiles, (ULong)b->f, (ULong)b->fstr,
				  (ULong)b->firr);
	}
	dc_raw_meta(o, "trace_hist", buf);
	VG_(free)(buf);
}

Int dc_trace_file_flush(const HChar **path)
{
	if (trace_fd < 0)
		return -1;
	*path = trace_path;
	return dc_rawout_finish(trace_file) ? -1 : trace_fd;
}

void dc_trace_detach_file(void)
{
	struct dc_sink none = { discard, NULL };

	if (trace_file)
		dc_rawout_init(trace_file, none);
	trace_fd = -1;
}

void dc_trace_dump(struct dc_rawout *o)
{
	ULong loads = dc.lost.acc[0];

	if (!dc.tracing)
		return;
	dc_trace_end(&dc.trace);
	if (dc.opt.trace_full) {
		end_period();
		dc_rectab_each(&full.fns, tfn_cb, o);
		hist_meta(o);
	}
	/* Every data read is a record or implied by one: the loads are Dr. */
	dc_costtab_each(&dc.costs, loads_cb, &loads);
	dc_raw_meta_u64(o, "trace_window", dc.trace.w);
	dc_raw_meta_u64(o, "trace_period", dc.trace.period.period);
	dc_raw_meta_u64(o, "trace_seed", (ULong)dc.opt.trace_seed);
	dc_raw_meta_u64(o, "trace_block", (ULong)dc.opt.trace_block);
	dc_raw_meta(o, "trace_full", dc.opt.trace_full ? "yes" : "no");
	dc_raw_meta_u64(o, "trace_records", dc_trace_now(&dc.trace));
	dc_raw_meta_u64(o, "trace_loads", loads);
	if (trace_file) {
		if (dc_rawout_finish(trace_file))
			VG_(umsg)("dcprof: writing the trace file failed\n");
		VG_(close)(trace_fd);
		trace_fd = -1;
	}
}
