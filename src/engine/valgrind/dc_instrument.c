/* dc_instrument.c — instrumentation and the per-access path.
 *
 * Notes:
 *  - Events are collected per superblock like Cachegrind's: an instruction
 *    fetch, then the data reads and writes of each instruction in IR order.
 *    Instruction fetches go through the I1 into the last level, as in
 *    Cachegrind, whose LL they share.
 *  - A fetch that lies in one line, the line the previous instruction of
 *    the superblock ended in, is not simulated: that line is the most
 *    recent of its I1 set (data accesses do not touch the I1), so the fetch
 *    hits and changes nothing.  Instructions are counted (Ir) by an inline
 *    addition per stretch up to a side exit, without a helper.  A write to the same address, of the
 *    same size, by the same instruction as the immediately preceding read
 *    is merged into it: a modify counts as one read, as in Cachegrind.
 *  - Dirty helpers and compare-and-swap are sized at most the smallest line
 *    size of the hierarchy (Cachegrind's rule), so an event never spans
 *    more than two lines of any level.
 *  - Each event gets a struct dc_ins, built here and passed to the helper as
 *    a constant.  The helper simulates the cache first (the cache is
 *    simulated even while collection is off), then charges the cost record
 *    cached in the dc_ins if the address is still inside the cached object
 *    on the same thread; otherwise resolve() looks the object up.
 *  - Objects are resolved in this order: the running thread's stack, the
 *    object map (globals, heap, user, mmap), then <unknown>.  While the
 *    thread runs an allocation function every access is <malloc>'s
 *    (dc_heap.c): cached cost records are valid for dc.akey, which then
 *    differs from the thread id, so nothing on the per-access path checks
 *    for it.
 *  - The first instruction of an allocation function (at a superblock's
 *    start or where the superblock continues elsewhere, having followed a
 *    call) calls dc_heap_enter; a superblock ending in a return calls
 *    dc_heap_return when its target is dc_alloc_ret (an inline compare).
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_amd64.h"

#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

/* ---- object resolution (slow path) ------------------------------------ */

static UInt stack_bucket = ~0u, unknown_bucket = ~0u;

#define MAX_FRAMES 64

/* --stack-frames=yes: the frame that owns a, from an unwind of the stack.
 * Frame i spans [sps[i], sps[i+1]); addresses below SP (the red zone)
 * belong to the innermost frame. */
static UInt frame_bucket(ThreadId tid, Addr a, Addr *lo, Addr *hi)
{
	Addr ips[MAX_FRAMES], sps[MAX_FRAMES];
	struct dc_thread *th = &dc.threads[tid];
	UInt n = VG_(get_StackTrace)(tid, ips, MAX_FRAMES, sps, NULL, 0);
	UInt i;
	HChar name[256];

	for (i = 0; i + 1 < n; i++)
		if (a < sps[i + 1])
			break;
	if (n == 0) {
		*lo = th->stack_lo;
		*hi = th->stack_hi;
		return dc_bucket_get("<stack>", DC_K_STACK);
	}
	*lo = i == 0 ? th->stack_lo : sps[i];
	*hi = i + 1 < n ? sps[i + 1] : th->stack_hi;
	VG_(snprintf)(name, sizeof name, "<stack:%s>",
		      *dc_fn_name(i ? ips[i] - 1 : ips[i]) ? dc_fn_name(i ? ips[i] - 1 : ips[i])
							   : "?");
	return dc_bucket_get(name, DC_K_STACK);
}

/* An address in no object: the mapping it lies in, or <unknown>, and the
 * range around a that shares the answer: the rest of its 4 KiB page when
 * no object or mapping boundary is on that page, else a alone.  Valid
 * while dc.fallback.gen stays, which changes whenever an object or
 * mapping appears or a mapping goes. */
static void fallback_range(Addr a, UInt *bucket, Addr *lo, Addr *hi)
{
	struct dc_obj *r = dc_objmap_find(&dc.regions, a);
	Addr plo = a & ~(Addr)4095, phi = plo + 4096;

	if (r) {
		*bucket = r->bucket;
		*lo = plo > r->lo ? plo : r->lo;
		*hi = phi < r->hi ? phi : r->hi;
	} else {
		if (unknown_bucket == ~0u)
			unknown_bucket = dc_bucket_get("<unknown>", DC_K_UNKNOWN);
		*bucket = unknown_bucket;
		*lo = plo;
		*hi = phi;
		if (!dc_objmap_page_free(&dc.regions, a)) {
			*lo = a;
			*hi = a + 1;
		}
	}
	if (!dc_objmap_page_free(&dc.objs, a)) {
		*lo = a;
		*hi = a + 1;
	}
}

static void fallback(struct dc_ins *in, Addr a, UInt *bucket, Addr *lo, Addr *hi)
{
	fallback_range(a, bucket, lo, hi);
	in->gen = dc.fallback.gen;
}

/* Any address, while the thread runs an allocation function. */
static struct dc_obj alloc_obj;

static struct dc_cost *resolve_alloc(struct dc_ins *in)
{
	UInt bucket = dc_heap_alloc_bucket();
	struct dc_cost *c = in->cost;

	in->lo = 0;
	in->span = ~(Addr)0;
	in->obj = &alloc_obj;
	in->gen = alloc_obj.gen;
	in->tid = dc.akey;
	if (c->bucket == bucket && c->tid == dc.tid && c != &dc.lost)
		return c;
	if (in->loc == DC_NO_LOC)
		in->loc = dc_loc_get(in->ip);
	c = dc_costtab_get(&dc.costs, in->loc, bucket, dc.tid);
	if (!c)
		c = &dc.lost;
	in->cost = c;
	return c;
}

/* The object holding a, or, where the map can tell from the page alone,
 * the 16-byte granule (standing for it: dc.grain) with its object's
 * bucket.  --offsets needs the object's start: always the object then. */
static Int objs_resolve(Addr a, struct dc_objmap_ent *f)
{
	Int found;

	if (dc.opt.offsets)
		return dc_objmap_lookup(&dc.objs, a, f);
	found = dc_objmap_resolve(&dc.objs, a, f);
	if (found == DC_OBJMAP_GRAIN) {
		f->o = &dc.grain;
		f->gen = dc.grain.gen;
	}
	return found;
}

static struct dc_cost *resolve(struct dc_ins *in, Addr a)
{
	ThreadId tid = dc.tid;
	struct dc_thread *th = &dc.threads[tid];
	struct dc_obj *o;
	struct dc_cost *c;
	Addr lo, hi;
	UInt bucket;

	in->off_ok = False;
	if (UNLIKELY(dc.akey != tid))
		return resolve_alloc(in);
	if (a >= th->stack_lo && a < th->stack_hi) {
		o = &th->stack;
		if (dc.opt.stack_frames) {
			bucket = frame_bucket(tid, a, &lo, &hi);
			in->sp = VG_(get_SP)(tid);
		} else {
			if (stack_bucket == ~0u)
				stack_bucket = dc_bucket_get("<stack>", DC_K_STACK);
			bucket = stack_bucket;
			lo = th->stack_lo;
			hi = th->stack_hi;
		}
		in->gen = o->gen;
	} else {
		/* Different instructions often touch one object in turn (p->val,
		 * then p->next): try the object resolved last before the map. */
		const struct dc_objmap_ent *e = &dc.last;
		if (!(a - e->lo < e->hi - e->lo && dc.last_removals == dc.objs_removals)) {
			struct dc_objmap_ent f;
			Int found = objs_resolve(a, &f);
			if (!found && dc.debuginfo_dirty) {
				dc_globals_scan();
				found = objs_resolve(a, &f);
			}
			if (found) {
				dc.last = f;
				dc.last_removals = dc.objs_removals;
			} else {
				e = NULL;
			}
		}
		if (e) {
			o = e->o;
			bucket = e->bucket;
			lo = e->lo;
			hi = e->hi;
			in->gen = e->gen;
			/* TLS copies are globals too: offsets from the thread's copy */
			in->off_ok = dc.opt.offsets && o->kind <= DC_K_USER;
		} else {
			fallback(in, a, &bucket, &lo, &hi);
			o = &dc.fallback;
		}
	}
	in->lo = lo;
	in->span = hi - lo;
	in->obj = o;
	in->tid = dc.akey;
	/* Chasing pointers through many blocks of one bucket changes the object
	 * on every access but not the cost record. */
	c = in->cost;
	if (c->bucket == bucket && c->tid == tid && c != &dc.lost)
		return c;
	if (in->loc == DC_NO_LOC)
		in->loc = dc_loc_get(in->ip);
	c = dc_costtab_get(&dc.costs, in->loc, bucket, tid);
	if (!c)
		c = &dc.lost;
	in->cost = c;
	return c;
}

static struct dc_objmap_ent recent_victim[2];
static ULong victim_removals;
/* Victims no object holds, by page: the answer of fallback_range for a
 * page it answered whole, direct-mapped.  malloc_consolidate walking the
 * free chunks of a million blocks in their (random) order of freeing is a
 * third of bench_chase's evictions with all features, each five hash
 * look-ups in the two maps without it. */
#define VICTIM_PAGES 16384
static struct victim_page {
	Addr page;          /* page number + 1; 0: empty */
	UInt bucket, gen;
} victim_pages[VICTIM_PAGES];

/* The bucket of a cache line [a, a + size) evicted from the cache, whose
 * address is all that is known (no per-instruction cache applies): that
 * of the object holding its first byte, else of the first object that
 * starts in it, else of what holds its first byte (a mapping, the
 * allocator's memory).  Small heap blocks start 16 bytes into their
 * chunks: a line of them begins with a chunk header, and its first byte
 * alone named the allocator for the blocks' data (docs/engine.md). */
UInt dc_bucket_of_line(Addr a, UInt size)
{
	struct dc_objmap_ent e;
	struct victim_page *vp;
	Addr lo, hi;
	UInt bucket;

	dc_objs_settle();
	/* Any thread's stack: one thread evicts lines of another's. */
	for (ThreadId t = 1; t <= dc.max_tid; t++) {
		struct dc_thread *th = &dc.threads[t];
		Addr lo, hi;
		if (a < th->stack_lo || a >= th->stack_hi)
			continue;
		if (dc.opt.stack_frames && t == dc.tid)
			return frame_bucket(t, a, &lo, &hi);
		if (stack_bucket == ~0u)
			stack_bucket = dc_bucket_get("<stack>", DC_K_STACK);
		return stack_bucket;
	}
	/* Evictions hit the same few objects over and over (the other arrays
	 * of a loop): keep the last two found, valid until an object goes. */
	if (victim_removals == dc.objs_removals) {
		for (UInt i = 0; i < 2; i++)
			if (a - recent_victim[i].lo < recent_victim[i].hi - recent_victim[i].lo)
				return recent_victim[i].bucket;
	} else {
		VG_(memset)(recent_victim, 0, sizeof recent_victim);
		victim_removals = dc.objs_removals;
	}
	vp = &victim_pages[(a >> 12) & (VICTIM_PAGES - 1)];
	if (vp->page == (a >> 12) + 1 && vp->gen == dc.fallback.gen)
		return vp->bucket;
	if (dc_objmap_resolve(&dc.objs, a, &e)) {
		recent_victim[1] = recent_victim[0];
		recent_victim[0] = e;
		return e.bucket;
	}
	if (dc_objmap_lookup_from(&dc.objs, a, a + size, &e))
		return e.bucket;
	fallback_range(a, &bucket, &lo, &hi);
	if (lo == (a & ~(Addr)4095) && hi == lo + 4096) {
		vp->page = (a >> 12) + 1;
		vp->bucket = bucket;
		vp->gen = dc.fallback.gen;
	}
	return bucket;
}

/* ---- helpers (the per-access path) ------------------------------------ */

enum { REF_FRAMES = 1, REF_TRACK = 2, REF_SAMPLE = 4, REF_RDX = 8, REF_REUSE = 16, REF_USE = 32,
       REF_CALLS = 64, REF_TRACE = 128, REF_FULL = 256, REF_OFFS = 512 };

/* The load class of this execution (dc_trace.c Notes): Constant loads are
 * decided statically, candidates by their address step. */
static inline UInt trace_class(struct dc_tins *ti, Addr a)
{
	Long d;
	UInt cls;

	if (ti->cls == DC_TC_CONST)
		return DC_TC_CONST;
	d = (Long)(a - ti->last);
	if (d == ti->stride) {
		cls = DC_TC_STRIDED;
	} else if (d == ti->delta) {
		ti->stride = d;
		cls = DC_TC_STRIDED;
	} else {
		cls = DC_TC_IRREG;
	}
	ti->delta = d;
	ti->last = a;
	return cls;
}

/* The cost record of this access: the one cached in the dc_ins while the
 * address is inside the cached object on the same thread, in or out of
 * an allocation function alike (dc.akey; and, with
 * REF_FRAMES, the same SP), else a fresh resolution. */
static inline __attribute__((always_inline)) struct dc_cost *cost_of(struct dc_ins *in, Addr a,
								     int mode)
{
	if (UNLIKELY(a - in->lo >= in->span || in->obj->gen != in->gen || in->tid != dc.akey ||
		     ((mode & REF_FRAMES) && in->obj == &dc.threads[dc.tid].stack &&
		      VG_(get_SP)(dc.tid) != in->sp)))
		return resolve(in, a);
	return in->cost;
}

/* The per-access path, specialised at compile time by `mode` (each helper
 * below passes a constant), so the default helper carries none of the
 * optional work: a run-time flag test per access is measurable here.
 *  - REF_FRAMES (--stack-frames): a cached frame is valid only while SP is
 *    unchanged.
 *  - REF_TRACK (--evictions, --reuse, --offsets): eviction, reuse, offset and sampling
 *    bookkeeping, out of line.
 *  - REF_SAMPLE (--sample alone): a counter per matching event; the sample
 *    itself is taken out of line.  Sampling every 10,000th event must cost
 *    next to nothing (issue 3).
 *  - REF_REUSE (--reuse alone): the exact reuse bookkeeping, called
 *    directly.
 *  - REF_RDX (--reuse-sample alone): the access count, one probe of the
 *    watchpoint filter and the use-point counter; traps and uses out of
 *    line (issue 5: at most 10 % added).
 *  - REF_USE (--cache-use): the cache-use model replaces the plain one; the
 *    cost record is resolved first, as the loader of the lines it loads.
 *  - REF_CALLS (--calls): the thread's counters for inclusive costs also
 *    count the access (dc_calls.c).
 *  - REF_TRACE (--trace-window, traced loads only): the load class and a
 *    countdown; recording is out of line.  Tracing at a 1 % sample ratio
 *    must add at most 15 % (issue 6).  REF_FULL (--trace-full): the
 *    full-trace reference counts, out of line.
 *  - REF_OFFS (--offsets alone): the access's offset cell, inline
 *    (dc_offsets_access); through dc_track_access it cost twice as much. */
static inline __attribute__((always_inline)) void ref(struct dc_ins *in, Addr a, int mode)
{
	struct dc_cost *c;
	int served;

	/* the block's reuse record: its host miss overlaps the simulation
	 * (with --reuse alone, REF_REUSE, the simulation is too short: the
	 * transposition ran 1.10x slower with it) */
	if ((mode & REF_TRACK) && dc.opt.reuse)
		dc_reuse_prefetch(&dc.reuse, a);
	if (mode & REF_USE) {
		c = dc.collecting ? cost_of(in, a, mode) : NULL;
		served = dc_cacheuse_access(&dc.use, a, in->size, c);
		if (!c)
			return;
	} else {
		served = dc_cache_access(&dc.cache, a, in->size);
		if (UNLIKELY(!dc.collecting))
			return;
		c = cost_of(in, a, mode);
	}
	dc_cost_count(c, in->is_write, served, dc.lat);
	if (mode & REF_CALLS)
		dc_cost_count(&dc.threads[dc.tid].now, in->is_write, served, dc.lat);
	if (mode & REF_TRACK)
		dc_track_access(in, c, a, served);
	if (mode & REF_OFFS)
		dc_offsets_access(in, a, c->bucket, served);
	if (mode & REF_REUSE)
		dc_track_reuse(in, c, a);
	if ((mode & REF_SAMPLE) && dc_sample_event_matches(in, served) &&
	    UNLIKELY(dc_sampler_tick(&dc.sampler)))
		dc_track_sample(in, c, a, served);
	if (mode & REF_RDX) {
		Bool use = dc_rdx_tick();
		if (UNLIKELY(use | dc_rdx_maybe(&dc.rdx, a)))
			dc_track_rdx(in, c, a, use);
	}
	if (mode & REF_TRACE) {
		struct dc_tins *ti = (struct dc_tins *)in;
		UInt cls = trace_class(ti, a);
		if (UNLIKELY(dc_trace_tick(&dc.trace)))
			dc_trace_put(&dc.trace, a, in->ip, c->loc, c->bucket, ti->implied, cls);
		if (mode & REF_FULL)
			dc_trace_ref(ti, a, cls);
	}
}

/* The per-access helpers start on a 64-byte boundary, and the build aligns
 * loops to 32 bytes (TOOLFLAGS): otherwise where they fall depends on the
 * size of unrelated code, and adding the checkpoint code (dc_ckpt.c) made
 * bench_transpose 16 % slower with the default helper unchanged
 * (docs/performance.md, "Code placement"). */
#define DC_HOT __attribute__((aligned(64)))

static VG_REGPARM(2) DC_HOT void dc_ref(struct dc_ins *in, Addr a)
{
	ref(in, a, 0);
}

static VG_REGPARM(2) DC_HOT void dc_ref_frames(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_FRAMES);
}

static VG_REGPARM(2) DC_HOT void dc_ref_sample(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_SAMPLE);
}

static VG_REGPARM(2) DC_HOT void dc_ref_rdx(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_RDX);
}

static VG_REGPARM(2) DC_HOT void dc_ref_offs(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_OFFS);
}

static VG_REGPARM(2) DC_HOT void dc_ref_reuse(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_REUSE);
}

/* --evictions, --reuse, or --sample or --reuse-sample with each other or
 * with --stack-frames: dc_track_access does every kind of bookkeeping. */
static VG_REGPARM(2) DC_HOT void dc_ref_track(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_TRACK | (dc.opt.stack_frames ? REF_FRAMES : 0));
}

/* --cache-use alone. */
static VG_REGPARM(2) DC_HOT void dc_ref_use(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_USE);
}

/* --calls alone, and with --cache-use alone. */
static VG_REGPARM(2) DC_HOT void dc_ref_calls(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_CALLS);
}

static VG_REGPARM(2) DC_HOT void dc_ref_use_calls(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_USE | REF_CALLS);
}

/* --cache-use with any other option. */
static VG_REGPARM(2) DC_HOT void dc_ref_use_track(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_USE | REF_TRACK | (dc.opt.stack_frames ? REF_FRAMES : 0));
}

static VG_REGPARM(2) DC_HOT void dc_ref_trace(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_TRACE);
}

static VG_REGPARM(2) DC_HOT void dc_ref_trace_full(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_TRACE | REF_FULL);
}

/* A traced load with any other bookkeeping on (with --cache-use, its model). */
static VG_REGPARM(2) DC_HOT void dc_ref_trace_track(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_TRACE | REF_TRACK | (dc.opt.stack_frames ? REF_FRAMES : 0) |
		   (dc.opt.trace_full ? REF_FULL : 0));
}

static VG_REGPARM(2) DC_HOT void dc_ref_trace_use_track(struct dc_ins *in, Addr a)
{
	ref(in, a, REF_TRACE | REF_USE | REF_TRACK | (dc.opt.stack_frames ? REF_FRAMES : 0) |
		   (dc.opt.trace_full ? REF_FULL : 0));
}

static VG_REGPARM(2) DC_HOT void dc_iref(Addr ip, UWord size)
{
	dc_cache_ifetch(&dc.cache, ip, (UInt)size);
}

static VG_REGPARM(2) DC_HOT void dc_iref_use(Addr ip, UWord size)
{
	dc_cacheuse_ifetch(&dc.use, ip, (UInt)size);
}

void dc_set_collecting(Bool on)
{
	if (on && !dc.collecting)
		dc.ir_mark = dc.ir_all;
	else if (!on && dc.collecting)
		dc.ir += dc.ir_all - dc.ir_mark;
	dc.collecting = on;
}

ULong dc_ir_collected(void)
{
	return dc.ir + (dc.collecting ? dc.ir_all - dc.ir_mark : 0);
}

/* ---- threads -------------------------------------------------------- */

/* Valgrind learns a thread's stack when the thread is created; re-read the
 * bounds whenever a thread is scheduled, and invalidate cached stack
 * resolutions when they moved. */
void dc_thread_switch(ThreadId tid, ULong blocks_done)
{
	struct dc_thread *th = &dc.threads[tid];
	Addr max = VG_(thread_get_stack_max)(tid);
	SizeT size = VG_(thread_get_stack_size)(tid);
	Addr hi = max ? max + 1 : 0;
	Addr lo = hi - size;

	dc_tls_thread_run(tid, &lo, &hi);
	dc.tid = tid;
	dc_heap_thread_run(tid);
	if (dc.ip_only)
		dc_ipsamp_switch(tid);
	if (tid > dc.max_tid)
		dc.max_tid = tid;
	if (dc.opt.calls)
		dc_calls_thread_ready(tid);
	if (hi != th->stack_hi || lo != th->stack_lo) {
		th->stack_hi = hi;
		th->stack_lo = lo;
		th->stack.gen++;
	}
	dc_ckpt_maybe(blocks_done);
}

/* ---- instrumentation -------------------------------------------------- */

typedef IRExpr IRAtom;   /* a flat IR atom: a temporary or a constant */

enum { EV_IR, EV_DR, EV_DW, EV_DM };

struct event {
	int kind;
	Addr ip;
	UInt isize;        /* instruction length (EV_IR) */
	Int size;          /* data size */
	IRAtom *addr;
	UChar tcls;        /* --trace-window, loads: static class */
	Bool traced;       /* --trace-window: a trace record ... */
	UInt implied;      /* ... standing for this many Constant loads */
	Int spos;          /* --sample-ip-only: place of the instruction in
			    * its stretch (dc_ins.spos) */
};

#define N_EVENTS 16

struct sbstate {
	IRSB *out;
	struct event ev[N_EVENTS];
	Int n;
	IRExpr **defs;     /* --trace-window: definitions of temporaries so far */
	const VexGuestLayout *layout;
	Bool plt;          /* --calls, a PLT stub: accesses go to the caller */
	ULong iline;       /* the I1 line the previous instruction ended in */
	UInt nins;         /* instructions not yet added to dc.ir_all */
	Addr sips[DC_STRETCH_MAX];   /* --sample-ip-only: their addresses */
};

static Int min_line_size(void)
{
	Int m = 1 << 30;
	for (Int k = 0; k < dc.hier.nlevels; k++)
		if ((Int)dc.hier.lv[k].line < m)
			m = (Int)dc.hier.lv[k].line;
	return m;
}

/* The largest data access a helper is called with: an IR load or store is
 * at most 32 bytes (Ity_V256); dirty helpers and compare-and-swap are cut
 * to the smallest line size (Notes). */
UInt dc_max_access_size(void)
{
	Int m = min_line_size();
	return m > 32 ? (UInt)m : 32;
}

static void init_ins(struct dc_ins *in, Addr ip, Int size, Bool is_write)
{
	VG_(memset)(in, 0, sizeof *in);
	in->ip = ip;
	in->size = (UShort)size;
	in->is_write = is_write;
	in->loc = DC_NO_LOC;
	in->obj = &dc.fallback;
	in->gen = dc.fallback.gen - 1;   /* not valid: the first access resolves */
	in->cost = &dc.lost;
}

static struct dc_ins *new_ins(Addr ip, Int size, Bool is_write)
{
	struct dc_ins *in = VG_(malloc)("dc.ins", sizeof *in);

	init_ins(in, ip, size, is_write);
	return in;
}

static Bool is_load(const struct event *e)
{
	return e->kind == EV_DR || e->kind == EV_DM;
}

/* --trace-window: which loads of a straight-line stretch are records, and
 * the proxy of its Constant loads (dc_trace.c Notes). */
static void choose_traced(struct sbstate *s)
{
	Int proxy = -1, first_const = -1;
	UInt nconst = 0;

	for (Int i = 0; i < s->n; i++) {
		struct event *e = &s->ev[i];
		e->traced = False;
		e->implied = 0;
		if (!is_load(e))
			continue;
		if (e->tcls == DC_TC_CONST) {
			nconst++;
			if (first_const < 0)
				first_const = i;
		} else {
			e->traced = True;
			if (proxy < 0)
				proxy = i;
		}
	}
	if (proxy < 0 && first_const >= 0) {
		proxy = first_const;
		s->ev[proxy].traced = True;
		nconst--;
	}
	if (proxy >= 0)
		s->ev[proxy].implied = nconst;
}

static IRDirty *ref_call(const struct event *e)
{
	struct dc_ins *in;
	void *fn = (void *)dc_ref;
	const HChar *name = "dc_ref";
	Bool more = dc.opt.evictions || dc.opt.reuse || dc.sampling || dc.rdx_on ||
		    dc.opt.stack_frames || dc.opt.offsets;

	if (e->traced) {
		struct dc_tins *ti = dc_trace_new_ins(e->ip, e->size, e->tcls, e->implied);
		in = &ti->in;
		init_ins(in, e->ip, e->size, False);
		if (dc.opt.cache_use) {
			fn = (void *)dc_ref_trace_use_track;
			name = "dc_ref_trace_use_track";
		} else if (more || dc.opt.calls) {
			fn = (void *)dc_ref_trace_track;
			name = "dc_ref_trace_track";
		} else if (dc.opt.trace_full) {
			fn = (void *)dc_ref_trace_full;
			name = "dc_ref_trace_full";
		} else {
			fn = (void *)dc_ref_trace;
			name = "dc_ref_trace";
		}
		in->spos = e->spos;
		return unsafeIRDirty_0_N(2, name, VG_(fnptr_to_fnentry)(fn),
					 mkIRExprVec_2(mkIRExpr_HWord((HWord)in), e->addr));
	}
	in = new_ins(e->ip, e->size, e->kind == EV_DW);
	in->spos = e->spos;
	if (dc.opt.calls && !more) {
		fn = dc.opt.cache_use ? (void *)dc_ref_use_calls : (void *)dc_ref_calls;
		name = dc.opt.cache_use ? "dc_ref_use_calls" : "dc_ref_calls";
	} else if (dc.opt.cache_use) {
		fn = more ? (void *)dc_ref_use_track : (void *)dc_ref_use;
		name = more ? "dc_ref_use_track" : "dc_ref_use";
	} else if (dc.opt.calls) {
		fn = (void *)dc_ref_track;
		name = "dc_ref_track";
	} else if (dc.opt.reuse && !dc.opt.evictions && !dc.sampling && !dc.rdx_on &&
		   !dc.opt.stack_frames && !dc.opt.offsets) {
		fn = (void *)dc_ref_reuse;
		name = "dc_ref_reuse";
	} else if (dc.opt.offsets && !dc.opt.evictions && !dc.opt.reuse && !dc.sampling &&
		   !dc.rdx_on && !dc.opt.stack_frames) {
		fn = (void *)dc_ref_offs;
		name = "dc_ref_offs";
	} else if (dc.opt.evictions || dc.opt.reuse || dc.opt.offsets ||
		   (dc.rdx_on && dc.sampling) ||
		   ((dc.sampling || dc.rdx_on) && dc.opt.stack_frames)) {
		fn = (void *)dc_ref_track;
		name = "dc_ref_track";
	} else if (dc.rdx_on) {
		fn = (void *)dc_ref_rdx;
		name = "dc_ref_rdx";
	} else if (dc.sampling) {
		fn = (void *)dc_ref_sample;
		name = "dc_ref_sample";
	} else if (dc.opt.stack_frames) {
		fn = (void *)dc_ref_frames;
		name = "dc_ref_frames";
	}

	return unsafeIRDirty_0_N(2, name, VG_(fnptr_to_fnentry)(fn),
				 mkIRExprVec_2(mkIRExpr_HWord((HWord)in), e->addr));
}

static VG_REGPARM(1) void dc_plt_access(struct dc_ins *in)
{
	dc_calls_plt_access(in);
}

/* Adds an access's helper call; in a PLT stub, after one that charges the
 * access to the caller (dc_calls.c Notes). */
static void add_ref(struct sbstate *s, IRDirty *di)
{
	if (s->plt) {
		IRDirty *p = unsafeIRDirty_0_N(1, "dc_plt_access",
					       VG_(fnptr_to_fnentry)(dc_plt_access),
					       mkIRExprVec_1(deepCopyIRExpr(di->args[0])));
		p->guard = deepCopyIRExpr(di->guard);
		addStmtToIRSB(s->out, IRStmt_Dirty(p));
	}
	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

static void flush(struct sbstate *s)
{
	if (dc.tracing)
		choose_traced(s);
	for (Int i = 0; i < s->n; i++) {
		const struct event *e = &s->ev[i];
		IRDirty *di;

		if (e->kind == EV_IR) {
			void *fn = dc.opt.cache_use ? (void *)dc_iref_use : (void *)dc_iref;
			di = unsafeIRDirty_0_N(2, dc.opt.cache_use ? "dc_iref_use" : "dc_iref",
					       VG_(fnptr_to_fnentry)(fn),
					       mkIRExprVec_2(mkIRExpr_HWord((HWord)e->ip),
							     mkIRExpr_HWord((HWord)e->isize)));
			addStmtToIRSB(s->out, IRStmt_Dirty(di));
		} else {
			add_ref(s, ref_call(e));
		}
	}
	s->n = 0;
}

static struct event *add_event(struct sbstate *s)
{
	if (s->n == N_EVENTS)
		flush(s);
	return &s->ev[s->n++];
}

static void add_data(struct sbstate *s, Addr ip, Int size, IRAtom *addr, Bool is_write)
{
	struct event *e;

	tl_assert(isIRAtom(addr));
	if (is_write && s->n > 0) {
		struct event *last = &s->ev[s->n - 1];
		if (last->kind == EV_DR && last->ip == ip && last->size == size &&
		    eqIRAtom(last->addr, addr)) {
			last->kind = EV_DM;
			return;
		}
	}
	e = add_event(s);
	e->kind = is_write ? EV_DW : EV_DR;
	e->ip = ip;
	e->size = size;
	e->addr = addr;
	e->traced = False;
	e->tcls = dc.tracing && !is_write ? dc_trace_static_class(addr, s->defs, s->layout)
					  : DC_TC_CONST;
	/* -1: an access after a side exit inside its instruction (a rep
	 * prefix), which the stretch before counted */
	e->spos = (Int)s->nins - 1;
}

/* A guarded access is emitted at once with the guard on the call. */
static void add_guarded(struct sbstate *s, Addr ip, Int size, IRAtom *addr, IRAtom *guard,
			Bool is_write)
{
	struct event e = { is_write ? EV_DW : EV_DR, ip, 0, size, addr, DC_TC_CONST, False, 0,
			   (Int)s->nins - 1 };
	IRDirty *di;

	flush(s);
	/* A conditional load is never implied by a proxy: it is its own. */
	if (dc.tracing && !is_write) {
		e.tcls = dc_trace_static_class(addr, s->defs, s->layout);
		e.traced = True;
	}
	di = ref_call(&e);
	di->guard = guard;
	add_ref(s, di);
}

/* --sample-ip-only: after the stretch's count, dc_ipsamp_stretch when the
 * earliest pending skid lands in it, dc.skid.next < dc.ir_all (a load and
 * a compare inline; dc_skid.c Notes). */
static void add_skid_check(struct sbstate *s, IRTemp ir_all)
{
	struct dc_stretch *st = VG_(malloc)("dc.stretch", sizeof *st + s->nins * sizeof(Addr));
	IRTemp next = newIRTemp(s->out->tyenv, Ity_I64);
	IRTemp due = newIRTemp(s->out->tyenv, Ity_I1);
	IRDirty *di;

	st->n = s->nins;
	VG_(memcpy)(st->ip, s->sips, s->nins * sizeof(Addr));
	addStmtToIRSB(s->out, IRStmt_WrTmp(next, IRExpr_Load(Iend_LE, Ity_I64,
							    mkIRExpr_HWord((HWord)&dc.skid.next))));
	addStmtToIRSB(s->out, IRStmt_WrTmp(due, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(next),
							   IRExpr_RdTmp(ir_all))));
	di = unsafeIRDirty_0_N(1, "dc_ipsamp_stretch", VG_(fnptr_to_fnentry)(dc_ipsamp_stretch),
			       mkIRExprVec_1(mkIRExpr_HWord((HWord)st)));
	di->guard = IRExpr_RdTmp(due);
	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

/* dc.ir_all += the instructions counted since the last addition. */
static void count_ins(struct sbstate *s)
{
	IRTemp t1, t2;
	IRExpr *at = mkIRExpr_HWord((HWord)&dc.ir_all);

	if (!s->nins)
		return;
	t1 = newIRTemp(s->out->tyenv, Ity_I64);
	t2 = newIRTemp(s->out->tyenv, Ity_I64);
	addStmtToIRSB(s->out, IRStmt_WrTmp(t1, IRExpr_Load(Iend_LE, Ity_I64, at)));
	addStmtToIRSB(s->out, IRStmt_WrTmp(t2, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(t1),
							  IRExpr_Const(IRConst_U64(s->nins)))));
	addStmtToIRSB(s->out, IRStmt_Store(Iend_LE, deepCopyIRExpr(at), IRExpr_RdTmp(t2)));
	if (dc.ip_only)
		add_skid_check(s, t2);
	s->nins = 0;
}

/* A guest register's value, in a temporary (helper arguments are atoms). */
static IRExpr *guest_reg(struct sbstate *s, Int offset)
{
	IRTemp t = newIRTemp(s->out->tyenv, Ity_I64);

	addStmtToIRSB(s->out, IRStmt_WrTmp(t, IRExpr_Get(offset, Ity_I64)));
	return IRExpr_RdTmp(t);
}

/* The first instruction of an allocation function: dc_heap_enter with its
 * arguments (System V: RDI, RSI, RDX) and SP.  It names the block from a
 * stack trace, so IP, SP and FP must be up to date. */
static void add_alloc_enter(struct sbstate *s, Int kind, Addr ip)
{
	IRDirty *di;
	IRExpr *a0, *a1, *a2, *sp;

	addStmtToIRSB(s->out, IRStmt_Put(s->layout->offset_IP, mkIRExpr_HWord((HWord)ip)));
	a0 = guest_reg(s, offsetof(VexGuestAMD64State, guest_RDI));
	a1 = guest_reg(s, offsetof(VexGuestAMD64State, guest_RSI));
	a2 = guest_reg(s, offsetof(VexGuestAMD64State, guest_RDX));
	sp = guest_reg(s, s->layout->offset_SP);
	di = unsafeIRDirty_0_N(0, "dc_heap_enter", VG_(fnptr_to_fnentry)(dc_heap_enter),
			       mkIRExprVec_5(mkIRExpr_HWord((HWord)kind), a0, a1, a2, sp));
	di->nFxState = 3;
	di->fxState[0].fx = Ifx_Read;
	di->fxState[0].offset = s->layout->offset_SP;
	di->fxState[0].size = s->layout->sizeof_SP;
	di->fxState[1].fx = Ifx_Read;
	di->fxState[1].offset = s->layout->offset_FP;
	di->fxState[1].size = s->layout->sizeof_FP;
	di->fxState[2].fx = Ifx_Read;
	di->fxState[2].offset = s->layout->offset_IP;
	di->fxState[2].size = s->layout->sizeof_IP;
	for (Int k = 0; k < 3; k++) {
		di->fxState[k].nRepeats = 0;
		di->fxState[k].repeatLen = 0;
	}
	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

/* A superblock ending in a return: dc_heap_return(RAX, SP) when it returns
 * to dc_alloc_ret (a load and a compare inline, no call otherwise). */
static void add_alloc_return(struct sbstate *s)
{
	IRTemp want = newIRTemp(s->out->tyenv, Ity_I64);
	IRTemp hit = newIRTemp(s->out->tyenv, Ity_I1);
	IRDirty *di;
	IRExpr *rax, *sp;

	addStmtToIRSB(s->out, IRStmt_WrTmp(want, IRExpr_Load(Iend_LE, Ity_I64,
							    mkIRExpr_HWord((HWord)&dc_alloc_ret))));
	addStmtToIRSB(s->out, IRStmt_WrTmp(hit, IRExpr_Binop(Iop_CmpEQ64, IRExpr_RdTmp(want),
							   deepCopyIRExpr(s->out->next))));
	rax = guest_reg(s, offsetof(VexGuestAMD64State, guest_RAX));
	sp = guest_reg(s, s->layout->offset_SP);
	di = unsafeIRDirty_0_N(0, "dc_heap_return", VG_(fnptr_to_fnentry)(dc_heap_return),
			       mkIRExprVec_2(rax, sp));
	di->guard = IRExpr_RdTmp(hit);
	addStmtToIRSB(s->out, IRStmt_Dirty(di));
}

IRSB *dc_instrument(VgCallbackClosure *closure, IRSB *in, const VexGuestLayout *layout,
		    const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
		    IRType gWordTy, IRType hWordTy)
{
	struct sbstate s;
	IRTypeEnv *tyenv = in->tyenv;
	Addr ip = 0;
	UInt ilen = 0, ibits = (UInt)dc_log2(dc.i1.line);
	Bool first = True;
	Int i, maxsz = min_line_size();

	s.out = deepCopyIRSBExceptStmts(in);
	s.n = 0;
	s.layout = layout;
	s.defs = NULL;
	s.plt = False;
	s.iline = ~(ULong)0;
	s.nins = 0;
	for (i = 0; i < in->stmts_used && in->stmts[i]->tag != Ist_IMark; i++)
		addStmtToIRSB(s.out, in->stmts[i]);
	if (dc.opt.calls && i < in->stmts_used)
		s.plt = dc_calls_in_plt(in->stmts[i]->Ist.IMark.addr);
	if (dc.tracing) {
		s.defs = VG_(malloc)("dc.defs", (SizeT)tyenv->types_used * sizeof *s.defs);
		VG_(memset)(s.defs, 0, (SizeT)tyenv->types_used * sizeof *s.defs);
	}

	for (; i < in->stmts_used; i++) {
		IRStmt *st = in->stmts[i];

		switch (st->tag) {
		case Ist_IMark: {
			Addr prev_end = ip + ilen;
			Int kind;
			ULong b1, b2;

			ip = st->Ist.IMark.addr;
			ilen = st->Ist.IMark.len ? st->Ist.IMark.len : 1;
			if (dc.ip_only) {
				tl_assert(s.nins < DC_STRETCH_MAX);
				s.sips[s.nins] = ip;
			}
			s.nins++;
			if ((ip != prev_end || first) && (kind = dc_heap_fn_at(ip)) >= 0) {
				/* the accesses before count outside the allocator */
				flush(&s);
				addStmtToIRSB(s.out, st);
				add_alloc_enter(&s, kind, ip);
				st = NULL;
			}
			first = False;
			b1 = ip >> ibits;
			b2 = (ip + ilen - 1) >> ibits;
			if (b1 != b2 || b1 != s.iline) {
				struct event *e = add_event(&s);
				e->kind = EV_IR;
				e->ip = ip;
				e->isize = ilen;
				e->addr = NULL;
			}
			s.iline = b2;
			break;
		}
		case Ist_WrTmp: {
			IRExpr *data = st->Ist.WrTmp.data;
			if (s.defs)
				s.defs[st->Ist.WrTmp.tmp] = data;
			if (data->tag == Iex_Load)
				add_data(&s, ip, sizeofIRType(data->Iex.Load.ty),
					 data->Iex.Load.addr, False);
			break;
		}
		case Ist_Store:
			add_data(&s, ip, sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)),
				 st->Ist.Store.addr, True);
			break;
		case Ist_StoreG: {
			IRStoreG *sg = st->Ist.StoreG.details;
			add_guarded(&s, ip, sizeofIRType(typeOfIRExpr(tyenv, sg->data)), sg->addr,
				    sg->guard, True);
			break;
		}
		case Ist_LoadG: {
			IRLoadG *lg = st->Ist.LoadG.details;
			IRType ty = Ity_INVALID, wide = Ity_INVALID;
			typeOfIRLoadGOp(lg->cvt, &wide, &ty);
			add_guarded(&s, ip, sizeofIRType(ty), lg->addr, lg->guard, False);
			break;
		}
		case Ist_Dirty: {
			IRDirty *d = st->Ist.Dirty.details;
			if (d->mFx != Ifx_None) {
				Int sz = d->mSize > maxsz ? maxsz : d->mSize;
				if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
					add_data(&s, ip, sz, d->mAddr, False);
				if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
					add_data(&s, ip, sz, d->mAddr, True);
			}
			break;
		}
		case Ist_CAS: {
			IRCAS *cas = st->Ist.CAS.details;
			Int sz = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));
			if (cas->dataHi)
				sz *= 2;
			if (sz > maxsz)
				sz = maxsz;
			add_data(&s, ip, sz, cas->addr, False);
			add_data(&s, ip, sz, cas->addr, True);
			break;
		}
		case Ist_LLSC:
			if (st->Ist.LLSC.storedata == NULL) {
				add_data(&s, ip, sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)),
					 st->Ist.LLSC.addr, False);
				flush(&s);
			} else {
				add_data(&s, ip,
					 sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)),
					 st->Ist.LLSC.addr, True);
			}
			break;
		case Ist_Exit:
			flush(&s);
			count_ins(&s);
			break;
		default:
			break;
		}
		if (st)
			addStmtToIRSB(s.out, st);
	}
	flush(&s);
	count_ins(&s);
	if (in->jumpkind == Ijk_Ret)
		add_alloc_return(&s);
	if (dc.opt.calls)
		dc_calls_instrument(s.out, in, layout, ip, gWordTy);
	if (s.defs)
		VG_(free)(s.defs);
	return s.out;
}
