/* dc_tool.h — state shared by the Valgrind glue of the simulator engine.
 *
 * The glue turns Valgrind events into core calls: instrumentation
 * (dc_instrument.c), the program's allocator observed (dc_heap.c), globals and mappings
 * (dc_globals.c), buckets and locations (dc_names.c), the raw dump
 * (dc_dump.c), its checkpoints (dc_ckpt.c), exec (dc_exec.c), offsets
 * within objects (dc_offsets.c), IP-only samples with skid (dc_skid.c) and
 * options/lifecycle (dc_main.c).
 */
#ifndef DC_TOOL_H
#define DC_TOOL_H

#include "pub_tool_basics.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"

#include "core/cache.h"
#include "core/cacheuse.h"
#include "core/callstack.h"
#include "core/costtab.h"
#include "core/evtab.h"
#include "core/sampler.h"
#include "core/skid.h"
#include "core/reuse.h"
#include "core/rdx.h"
#include "core/objmap.h"
#include "core/rawout.h"
#include "core/trace.h"
#include "core/blockset.h"
#include "core/offtab.h"
#include "core/heapname.h"

/* Object kinds (struct dc_obj.kind) and the bucket kind names they map to;
 * DC_K_TOOL: Valgrind's and dcprof's preloaded objects (bucket <valgrind>). */
enum { DC_K_GLOBAL, DC_K_HEAP, DC_K_USER, DC_K_STACK, DC_K_MMAP, DC_K_UNKNOWN, DC_K_TOOL,
       DC_K_NKINDS };
extern const char *const dc_kind_name[DC_K_NKINDS];

/* One static memory-access event, built at instrumentation time.  The
 * helper caches the last object it resolved to (range, record, generation)
 * and the cost record for it, so repeated accesses to one object cost two
 * compares. */
struct dc_ins {
	Addr lo, span;            /* cached object range: addr - lo < span */
	struct dc_obj *obj;       /* cached object record ... */
	UInt gen;                 /* ... valid while obj->gen == gen */
	ThreadId tid;             /* thread the cost record belongs to */
	struct dc_cost *cost;
	Addr ip;
	Addr sp;                  /* --stack-frames: SP when a frame was cached */
	UInt loc;                 /* location id, DC_NO_LOC until first used */
	Int spos;                 /* --sample-ip-only: the instruction's place in
				   * its stretch of the superblock (dc_skid.c) */
	struct dc_rpair *rpair;   /* --reuse: the pair record of the last reuse ... */
	UInt rpair_use;           /* ... whose previous access was at this loc */
	UShort size;
	UChar is_write;
	UChar off_ok;             /* --offsets: lo is the start of a global,
				   * heap or user object */
};
#define DC_NO_LOC 0xffffffffu

/* A load that is a trace record (--trace-window): the event plus its load
 * class state (dc_trace.c).  Only traced loads carry it, so the default
 * path's dc_ins stays as small as it was. */
struct dc_tfn;
struct dc_tins {
	struct dc_ins in;         /* first: helpers receive a struct dc_ins * */
	Addr last;                /* address of the previous execution */
	Long delta, stride;       /* last address step, confirmed stride */
	struct dc_tfn *fn;        /* --trace-full: the function's reference counts */
	UShort implied;           /* Constant loads of the block it stands for */
	UChar cls;                /* DC_TC_CONST, or DC_TC_IRREG for a stride candidate */
};

struct dc_bucket {
	HChar *name;
	UChar kind;
	ULong blocks, live, max_live, live_bytes, max_live_bytes, total_bytes;
	ULong min_size, max_size;
};

/* Sampled events. */
enum { DC_EV_MISS, DC_EV_READ, DC_EV_WRITE, DC_EV_ACCESS };

/* Reuse-distance histograms of one bucket. */
#define DC_REUSE_BINS 64
enum { DC_RH_STACK, DC_RH_TIME, DC_RH_SAMPLED, DC_RH_KINDS };
struct dc_rhist {
	ULong first;                    /* exact first touches */
	ULong unseen;                   /* sampled uses never reused (weights) */
	ULong bins[DC_RH_KINDS][DC_REUSE_BINS];   /* exact stack, exact time,
						   * sampled time (weights) */
	ULong sum[DC_RH_KINDS][DC_REUSE_BINS];    /* their distances' sums (sampled:
						   * weighted), DC_SUM_UNKNOWN
						   * once they overflow */
};
#define DC_SUM_UNKNOWN 0x7fffffffffffffffULL

/* Reuses between two code locations (key first, as rectab wants). */
struct dc_rpair {
	UInt use_loc, reuse_loc;
	ULong count, sum_stack, sum_time;
	/* --reuse: the pair's run of reuses counted alike (one bucket, stack
	 * bin and time bin), not yet in the counts above nor in the
	 * histogram (dc_track.c) */
	UInt run_bucket, run_sb, run_tb;
	ULong run_n, run_stack, run_time;
};

/* Lines of one bucket resident at one level, integrated over time. */
struct dc_resid {
	Long lines;
	ULong base;       /* the integral of lines over time, less lines x now */
};

struct dc_thread {
	struct dc_obj stack;      /* pseudo object for this thread's stack */
	Addr stack_lo, stack_hi;
	HChar *pending_name;      /* DCPROF_NAME_NEXT_ALLOC */
	/* --calls: the shadow call stack and the counters its frames take
	 * differences of (this thread's accesses while collecting) */
	Bool calls_ready;
	struct dc_callstack cs;
	struct dc_cost now;
	/* --calls: a call (or tail call) into a PLT stub, waiting for the
	 * stub's jump to its target (dc_calls.c) */
	Bool plt_pending, plt_tail;
	UInt plt_site;
	Addr plt_sp;
	UInt resolver_n;          /* frames with the resolver's on top, or 0 */
	/* An allocation function running (dc_heap.c): the outermost call,
	 * its kind and arguments, the stack pointer at its entry (pointing
	 * at its return address) and the bucket of the block it makes */
	Bool in_alloc;
	UChar alloc_kind;
	Addr alloc_sp, alloc_ret;
	UWord alloc_arg[3];
	UInt alloc_bucket;
};

struct dc_opts {
	const HChar *out;         /* raw dump path, %p expanded by Valgrind */
	const HChar *cache;       /* --cache spec or NULL */
	const HChar *latency;     /* --latency spec or NULL */
	Bool compat;              /* --cachegrind-compat */
	Int heap_depth;           /* --heap-names=fn:N, 0 for site */
	Bool heap_site;
	Bool stack_frames;
	Bool collect_atstart;
	Long max_block_records;
	Bool evictions;           /* --evictions */
	Bool cache_use;           /* --cache-use */
	Bool calls;               /* --calls */
	UInt cache_use_bits;      /* --cache-use-granularity: DC_USE_EXACT or _CALLGRIND */
	const HChar *sample;      /* --sample=EVENT:N */
	Long sample_seed;
	Bool sample_ip_only;      /* --sample-ip-only */
	const HChar *skid;        /* --skid=MEAN:SD or NULL */
	Bool reuse;               /* --reuse */
	Long reuse_block;         /* --reuse-block, bytes */
	Long reuse_first, reuse_growth;   /* --reuse-bins=FIRST:GROWTH */
	Long reuse_sample;        /* --reuse-sample: use-point period, 0 = off */
	struct dc_rdx_cfg rdx;    /* --reuse-watchpoints, -watch, -replace, -attrib */
	Long trace_window;        /* --trace-window, records; 0: no tracing */
	Long trace_period;        /* --trace-period, records */
	Long trace_seed;          /* --trace-seed */
	Long trace_block;         /* --trace-block, bytes */
	Bool trace_full;          /* --trace-full */
	const HChar *trace_out;   /* --trace-out or NULL */
	const HChar *sample_log;  /* --sample-log or NULL */
	Long checkpoint_ms;       /* --checkpoint-ms, 0: no checkpoints */
	Long checkpoint_budget;   /* --checkpoint-budget, percent of the run; 0: none */
	Bool offsets;             /* --offsets */
	Long offset_window;       /* --offset-window, bytes */
	Long offset_cells;        /* --offset-cells */
	Long offset_share;        /* --offset-bucket-cells */
	const HChar *alloc_fns[64];
	Int n_alloc_fns;
};

struct dc_tool {
	struct dc_env env;
	struct dc_opts opt;
	struct dc_hier hier;
	struct dc_level_cfg i1;
	const HChar *cache_source, *cache_reason;
	struct dc_cache cache;
	struct dc_cacheuse use;       /* --cache-use: use records of cache's lines */
	struct dc_calls calls;        /* --calls: call arcs, inclusive costs */
	UInt lat[DC_MAX_LEVELS + 2];  /* lat[s] for serving level s */

	struct dc_objmap objs;        /* globals, heap and user blocks */
	ULong objs_removals;          /* bumped whenever an object leaves objs */
	struct dc_objmap_ent last;    /* the last object resolved, any instruction */
	ULong last_removals;          /* ... valid while objs_removals equals this */
	struct dc_objmap regions;     /* mappings: looked up after objs */
	struct dc_costtab costs;
	struct dc_cost lost;          /* counts when the cost table is out of memory */

	Bool collecting;
	ThreadId tid;                 /* thread running now */
	UInt akey;                    /* what cached cost records are valid for:
				       * tid, or tid | DC_AKEY_ALLOC while the
				       * thread runs an allocation function */
	ThreadId max_tid;             /* highest thread id scheduled so far */
	struct dc_thread *threads;    /* VG_N_THREADS of them */
	struct dc_obj fallback;       /* stands for region/unknown hits in caches;
				       * gen changes whenever objects appear */
	struct dc_obj grain;          /* stands for granules resolved from their
				       * page (dc_objmap_resolve); gen changes
				       * with objs_removals */

	ULong alloc_seq;
	ULong block_records;
	ULong block_records_dropped;
	ULong ir;                     /* instructions while collecting ... */
	ULong ir_all, ir_mark;        /* ... counted as all of them, less
				       * ir_all when collection last started */

	/* --sample: the event, its level for miss events (0 otherwise) */
	Bool sampling;
	Int sample_event;             /* DC_EV_* */
	Int sample_level;
	HChar sample_name[4];         /* "D1m", "Dr", ... */
	struct dc_sampler sampler;
	struct dc_costtab scosts;     /* sampled estimates */
	struct dc_evtab sevicts;      /* sampled eviction estimates */
	/* --sample-ip-only: samples carry an instruction pointer skidded by
	 * the emulated skid (dc_skid.c) */
	Bool ip_only;
	struct dc_skid skid;
	struct dc_rectab ipsamps;     /* (loc, thread) -> samples x period */

	/* --evictions */
	struct dc_evtab evicts;
	ULong fills[DC_MAX_LEVELS], empty_fills[DC_MAX_LEVELS], nevictions[DC_MAX_LEVELS];
	struct dc_resid *resid;       /* per bucket x level */
	UInt resid_buckets;
	ULong now;                    /* data accesses counted so far (see dc_now) */

	/* --reuse: distances per bucket, first touches, use -> reuse pairs */
	struct dc_reuse reuse;
	UInt rbin_again[2];           /* the bins of stack distance 0, time distance 1 */
	struct dc_rhist *rhist;       /* per bucket */
	UInt rhist_buckets;
	struct dc_rectab rpairs;

	/* --reuse-sample: RDX use points and watchpoints */
	Bool rdx_on;
	struct dc_sampler rdx_sampler; /* draws the periods ... */
	ULong rdx_next;               /* ... and the next use is access number this */
	struct dc_rdx rdx;
	struct dc_rectab rdx_pairs;   /* use -> reuse locations of traps (weights) */
	/* --trace-window: the trace unit, and the full-trace reference */
	Bool tracing;
	struct dc_trace_unit trace;
	UInt trace_bits;              /* log2 of --trace-block */

	/* --offsets: accesses by offset within their object */
	struct dc_offtab offs;

	Bool exited;                  /* exit_group was called ... */
	Long exit_code;               /* ... with this status */

	struct dc_rawout *raw;
	Int raw_fd;
	HChar *raw_path;              /* the dump's path, %p expanded */
	Bool debuginfo_dirty;
};

extern struct dc_tool dc;

/* An object left dc.objs or changed bucket: resolutions cached from the map
 * (dc.last, the granules') go stale. */
static inline void dc_objs_changed(void)
{
	dc.objs_removals++;
	dc.grain.gen++;
}

/* Frees not yet taken from the map (dc_heap.c, "frees, in batches"):
 * whatever reads or changes dc.objs, but a miss's lookup, settles them
 * first. */
extern UInt dc_frees_pending;
void dc_heap_settle(void);
static inline void dc_objs_settle(void)
{
	if (UNLIKELY(dc_frees_pending))
		dc_heap_settle();
}

#define DC_AKEY_ALLOC 0x80000000u
/* The return address of the running thread's observed allocation call, or
 * 0: superblocks ending in a return compare their target with it inline
 * (dc_instrument.c). */
extern Addr dc_alloc_ret;

/* Is this access, served by level `served`, an event of the sampled kind? */
static inline Bool dc_sample_event_matches(const struct dc_ins *in, int served)
{
	switch (dc.sample_event) {
	case DC_EV_MISS: return served > dc.sample_level;
	case DC_EV_READ: return !in->is_write;
	case DC_EV_WRITE: return in->is_write;
	default: return True;
	}
}

/* --reuse-sample: counts one access down to the next use point (the
 * access count is dc_now()); true when it is a use point. */
static inline Bool dc_rdx_tick(void)
{
	if (LIKELY(--dc.rdx_sampler.countdown))
		return False;
	dc.rdx_sampler.countdown = dc_sampler_next(&dc.rdx_sampler);
	dc.rdx_next += dc.rdx_sampler.countdown;
	dc.rdx_sampler.samples++;
	return True;
}

/* Data accesses counted so far: dc.now, or with --reuse-sample the next use
 * point's access number less the accesses still to come before it (a
 * countdown per access instead of a count and a compare). */
static inline ULong dc_now(void)
{
	return dc.rdx_on ? dc.rdx_next - dc.rdx_sampler.countdown : dc.now;
}

/* dc_names.c */
void dc_names_init(void);
UInt dc_bucket_get(const HChar *name, UChar kind);
struct dc_bucket *dc_bucket_at(UInt id);
UInt dc_bucket_count(void);
/* A block of size bytes enters (leaves) the bucket: its statistics
 * (blocks, sizes, live and peak live counts and bytes). */
void dc_bucket_add_block(UInt bucket, ULong size);
void dc_bucket_drop_block(UInt bucket, ULong size);
UInt dc_loc_get(Addr ip);
void dc_names_dump(struct dc_rawout *o);
/* Function name of ip (empty when unknown); valid until the next call. */
const HChar *dc_fn_name(Addr ip);
/* One function of the inline chain at a code address: its name (empty
 * when unknown), and the source file and line of the address in it (file
 * empty, line 0 when unknown). */
struct dc_iframe {
	HChar fn[DC_FN_NAME_MAX];
	HChar file[512];
	UInt line;
};
/* The inline chain at ip into f[0..max): the innermost inlined function
 * first, the function the code was compiled in last (one frame without
 * inlining).  f[0].file has its directory; the others' files have one
 * when Valgrind prints directories (dc_main.c turns that on).  Returns
 * the frames stored, at least 1.  outer (unless NULL) gets the last frame
 * of the whole chain, however long: the line of the outermost inlined
 * call in the function compiled.  Slow: instrumentation and allocation
 * sites only. */
UInt dc_inline_frames(Addr ip, struct dc_iframe *f, UInt max, struct dc_iframe *outer);

/* dc_instrument.c */
IRSB *dc_instrument(VgCallbackClosure *closure, IRSB *sb, const VexGuestLayout *layout,
		    const VexGuestExtents *vge, const VexArchInfo *archinfo_host,
		    IRType gWordTy, IRType hWordTy);
void dc_thread_switch(ThreadId tid, ULong blocks_done);
/* Collection starts or stops (the instruction count follows it). */
void dc_set_collecting(Bool on);
/* Instructions executed while collecting. */
ULong dc_ir_collected(void);
UInt dc_max_access_size(void);

/* dc_calls.c */
void dc_calls_start(void);
/* Makes thread tid's stack if it has none yet (at every scheduling). */
void dc_calls_thread_ready(ThreadId tid);
/* Adds the call/return helper a superblock ending in a call or return
 * needs (ip = its last instruction). */
void dc_calls_instrument(IRSB *out, IRSB *in, const VexGuestLayout *layout, Addr ip,
			 IRType gWordTy);
/* Instrumentation time: is ip in a PLT section? */
Bool dc_calls_in_plt(Addr ip);
/* A data access of a PLT stub's instruction: it is charged to the
 * location of the pending call into the stub, as Callgrind charges a
 * skipped function's costs to its caller. */
void dc_calls_plt_access(struct dc_ins *in);
void dc_calls_pre_signal(ThreadId tid, Int sigNo, Bool alt_stack);
void dc_calls_post_signal(ThreadId tid, Int sigNo);
void dc_calls_reset_child(void);
void dc_calls_dump(struct dc_rawout *o);

/* dc_heap.c */
void dc_heap_init(void);
/* Instrumentation time: the kind of allocation function whose first
 * instruction is at ip (DC_AF_*, core/heapname.h), or -1. */
Int dc_heap_fn_at(Addr ip);
/* Helpers: an allocation function's entry, with its first three
 * arguments and SP; the return to the address dc_alloc_ret, with RAX and
 * SP after it. */
void dc_heap_enter(UWord kind, UWord a0, UWord a1, UWord a2, UWord sp);
void dc_heap_return(UWord rax, UWord sp);
/* Is thread tid inside an allocation function? */
Bool dc_heap_in_alloc(ThreadId tid);
/* The bucket of the allocator's own accesses, <malloc>. */
UInt dc_heap_alloc_bucket(void);
/* Thread tid runs now: dc.akey and dc_alloc_ret for it. */
void dc_heap_thread_run(ThreadId tid);
void dc_heap_block_done(struct dc_obj *o, ULong free_seq);
void dc_heap_name_block(ThreadId tid, Addr p, SizeT size, const HChar *name);
/* Caller chain of the current point of thread tid, mapping functions
 * skipped: "a-b-c" (or with lines when site; core/heapname.h
 * dc_chain_name). */
void dc_chain_at(ThreadId tid, Int depth, Bool site, HChar *buf, SizeT len);

/* dc_globals.c */
/* At pre_clo_init: registers for thread exits. */
void dc_globals_init(void);
int dc_objs_insert(struct dc_obj *o);
/* Reads the symbols of modules mapped since the last scan. */
void dc_globals_scan(void);
/* Thread tid is about to run: registers its copies of the thread-local
 * variables when its thread pointer is new, and ends its stack bounds
 * [*stack_lo, *stack_hi) below its static TLS area. */
void dc_tls_thread_run(ThreadId tid, Addr *stack_lo, Addr *stack_hi);
void dc_track_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle);
void dc_track_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle);
void dc_track_munmap(Addr a, SizeT len);

/* dc_track.c */
void dc_track_access(struct dc_ins *in, struct dc_cost *c, Addr a, int served);
/* --reuse alone: counts the access and its reuse distances. */
#define DC_RUN_MAX (1ull << 31)       /* reuses in a run at most */
void dc_track_reuse_slow(struct dc_ins *in, const struct dc_cost *c,
			 const struct dc_reuse_result *res);
/* Ends the run: the reuse tracker or its pair table could not grow. */
__attribute__((noreturn)) void dc_track_reuse_nomem(void);

/* Does a reuse in bucket with these bins continue pair p's run?  (Runs:
 * dc_track.c; time distances of 2^32 or more are counted at once.) */
static inline Bool dc_run_continues(const struct dc_rpair *p, UInt bucket, UInt sb, UInt tb,
				    ULong time_dist)
{
	return p->run_n && p->run_n < DC_RUN_MAX && p->run_bucket == bucket &&
	       p->run_sb == sb && p->run_tb == tb && !(time_dist >> 32);
}

/* --reuse: one access (counted in dc.now by the caller).  Inline: a reuse
 * that continues its pair's run, found in the reuse front or by the tree;
 * the rest out of line.  (A matmul's column walk reuses every line through
 * the tree, in one long run per pair.) */
static inline void dc_track_reuse_at(struct dc_ins *in, const struct dc_cost *c, Addr a)
{
	struct dc_reuse_result res;
	struct dc_rpair *p = in->rpair;
	ULong block = a >> dc.reuse.block_bits;
	UInt prev;

	if (dc_reuse_again(&dc.reuse, block, c->loc, &prev)) {
		/* stack distance 0, time distance 1: their bins are known */
		if (p && in->rpair_use == prev && p->reuse_loc == c->loc &&
		    dc_run_continues(p, c->bucket, dc.rbin_again[0], dc.rbin_again[1], 1)) {
			p->run_n++;
			p->run_time++;
			return;
		}
		res.first = False;
		res.stack_dist = 0;
		res.time_dist = 1;
		res.prev_loc = prev;
		dc_track_reuse_slow(in, c, &res);
		return;
	}
	if (!dc_reuse_front_older(&dc.reuse, block, c->loc, &res)) {
		if (UNLIKELY(dc_reuse_access_slow(&dc.reuse, block, c->loc, &res)))
			dc_track_reuse_nomem();
		if (res.first) {
			dc_track_reuse_slow(in, c, &res);
			return;
		}
	}
	if (p && in->rpair_use == res.prev_loc && p->reuse_loc == c->loc &&
	    dc_run_continues(p, c->bucket,
			     dc_reuse_bin(res.stack_dist, (ULong)dc.opt.reuse_first,
					  (ULong)dc.opt.reuse_growth),
			     dc_reuse_bin(res.time_dist, (ULong)dc.opt.reuse_first,
					  (ULong)dc.opt.reuse_growth),
			     res.time_dist)) {
		p->run_n++;
		p->run_stack += res.stack_dist;
		p->run_time += res.time_dist;
		return;
	}
	dc_track_reuse_slow(in, c, &res);
}

/* --reuse alone: one access counted and tracked. */
static inline void dc_track_reuse(struct dc_ins *in, const struct dc_cost *c, Addr a)
{
	dc.now++;
	dc_track_reuse_at(in, c, a);
}
/* --reuse-sample: a watched access (reuse points) and a use point. */
void dc_track_rdx(const struct dc_ins *in, const struct dc_cost *c, Addr a, Bool use);
/* The emulated interrupt handler: records one sample of this access. */
void dc_track_sample(const struct dc_ins *in, const struct dc_cost *c, Addr a, int served);
/* Parses --sample's EVENT:N; False when malformed. */
Bool dc_track_parse_sample(const HChar *spec);
void dc_track_init(void);
void dc_track_reset_child(void);
void dc_track_dump(struct dc_rawout *o);
UInt dc_bucket_of_line(Addr a, UInt size);

/* dc_skid.c: --sample-ip-only and --skid */
/* Instructions of one stretch of a superblock (up to a side exit or its
 * end), in order: where pending skids land. */
#define DC_STRETCH_MAX 512
struct dc_stretch {
	UInt n;
	Addr ip[];
};
/* Parses --skid's MEAN:SD into dc.skid's parameters; False when malformed. */
Bool dc_ipsamp_parse_skid(const HChar *spec);
void dc_ipsamp_init(void);
/* The emulated interrupt of an IP-only sample of this access. */
void dc_ipsamp_take(const struct dc_ins *in, const struct dc_cost *c);
/* Helper: the stretch st just ran (dc.ir_all counts it); called when a
 * pending skid lands in it (dc.skid.next < dc.ir_all). */
VG_REGPARM(1) void dc_ipsamp_stretch(const struct dc_stretch *st);
/* Thread tid runs now. */
void dc_ipsamp_switch(ThreadId tid);
void dc_ipsamp_reset_child(void);
void dc_ipsamp_dump(struct dc_rawout *o);

/* dc_offsets.c: --offsets and the types programs give user buckets */
void dc_offsets_init(void);
void dc_offsets_reset_child(void);
void dc_offsets_dump(struct dc_rawout *o);
/* DCPROF_NAME_BLOCK_TYPED: the type of bucket's elements, by name. */
void dc_offsets_set_type(UInt bucket, const HChar *type);

/* --offsets: one access at a of the object the dc_ins resolved to. */
static inline void dc_offsets_access(const struct dc_ins *in, Addr a, UInt bucket, int served)
{
	struct dc_offcell *oc;

	if (!in->off_ok)
		return;
	oc = dc_offtab_cell(&dc.offs, bucket, a - in->lo, in->span);
	if (LIKELY(oc != NULL))
		dc_offcell_count(oc, in->size, in->is_write, served, dc.lat);
}

/* dc_trace.c */
/* After dc_dump_open: the trace unit writes into the raw dump. */
void dc_trace_setup(void);
/* Instrumentation time: Constant when the address is a constant or SP/FP
 * plus a constant (defs: the superblock's temporaries' definitions so far),
 * else a stride candidate (DC_TC_IRREG until strides confirm it). */
UChar dc_trace_static_class(IRExpr *addr, IRExpr **defs, const VexGuestLayout *layout);
/* A traced load's state; fn looked up for --trace-full. */
struct dc_tins *dc_trace_new_ins(Addr ip, Int size, UChar cls, UInt implied);
/* The full-trace reference counts of one record (out of line). */
void dc_trace_ref(struct dc_tins *ti, Addr a, UInt cls);
/* After the child's dump is reopened. */
void dc_trace_reset_child(void);
void dc_trace_dump(struct dc_rawout *o);
/* In a checkpoint's copy of the process: --trace-out belongs to the
 * process, so the copy's trace writes go nowhere. */
void dc_trace_detach_file(void);
/* --trace-out: writes out what is buffered; the file's descriptor and
 * path, or -1 when there is none (or it cannot be written). */
Int dc_trace_file_flush(const HChar **path);

/* dc_smplog.c: --sample-log */
void dc_smplog_open(void);
void dc_smplog_write(const struct dc_ins *in, const struct dc_cost *c, Addr a, int served,
		     ULong weight);
void dc_smplog_flush(void);
void dc_smplog_close(void);
/* A forked child or a checkpoint copy: the file is the parent's. */
void dc_smplog_detach(void);

/* dc_dump.c */
void dc_dump_open(void);
void dc_dump_finish(Bool complete, Int exitcode);
void dc_dump_reopen_child(void);
/* The end of the dump as the process would write it now (dc_dump_finish
 * less its messages); flushes and closes dc.raw_fd.  0 or a write error. */
int dc_dump_write_tail(Bool complete);

/* dc_ckpt.c: checkpoints of the dump (--checkpoint-ms) */
void dc_ckpt_start(void);
/* When a thread starts running client code: a checkpoint if one is due. */
void dc_ckpt_maybe(ULong blocks_done);
/* Before the process writes its own dump: ends a running checkpoint. */
void dc_ckpt_stop(void);
/* Once the dump is written: removes the last checkpoint. */
void dc_ckpt_discard(void);
void dc_ckpt_reset_child(void);
/* Checkpoints taken so far (meta checkpoints). */
ULong dc_ckpt_taken(void);

/* dc_exec.c: a process that calls execve (docs/engine.md, "Exec") */
/* Before execve or execveat of path: the image's whole dump, set aside. */
void dc_exec_pre(const HChar *path);
/* After it, when it failed and the process goes on: the dump back. */
void dc_exec_failed(void);

/* dc_port.c */
void dc_port_init(struct dc_env *env);
struct dc_sink dc_fd_sink(Int *fd);
/* Opens path for writing (created, truncated) at a descriptor above the
 * client's range, close-on-exec; -1 when it cannot be created. */
Int dc_port_create(const HChar *path, Int mode);

/* Not in the tool headers, but exported by libcoregrind like every VG_
 * function (pub_core_syscall.h, pub_core_libcfile.h). */
extern SysRes VG_(do_syscall)(UWord sysno, RegWord a1, RegWord a2, RegWord a3, RegWord a4,
			      RegWord a5, RegWord a6, RegWord a7, RegWord a8);
/* Moves fd above the client's descriptors (where the program can neither
 * see, close nor reuse it) and sets close-on-exec; returns the new fd. */
extern Int VG_(safe_fd)(Int oldfd);

#endif
