/* dc_main.c — the dcprof simulator engine: options, setup, client requests.
 *
 * Run through `dcprof record`, which sets VALGRIND_LIB and --dcprof-out.
 * Options are validated again here with the same core parser the front end
 * uses, so running the tool by hand gives the same errors.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "pub_tool_xarray.h"

#define DCPROF_REQUESTS_ONLY
#include "dcprof.h"
#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

struct dc_tool dc;

/* ---- options ------------------------------------------------------------ */

static Bool dc_process_cmd_line_option(const HChar *arg)
{
	const HChar *tmp;
	Long nwp;

	if VG_STR_CLO(arg, "--dcprof-out", dc.opt.out) {
	} else if VG_STR_CLO(arg, "--cache", dc.opt.cache) {
	} else if VG_STR_CLO(arg, "--latency", dc.opt.latency) {
	} else if VG_BOOL_CLO(arg, "--cachegrind-compat", dc.opt.compat) {
	} else if VG_BOOL_CLO(arg, "--stack-frames", dc.opt.stack_frames) {
	} else if VG_BOOL_CLO(arg, "--collect-atstart", dc.opt.collect_atstart) {
	} else if VG_BINT_CLO(arg, "--max-block-records", dc.opt.max_block_records, 0,
			      1000000000000LL) {
	} else if VG_BOOL_CLO(arg, "--evictions", dc.opt.evictions) {
	} else if VG_BOOL_CLO(arg, "--calls", dc.opt.calls) {
	} else if VG_BOOL_CLO(arg, "--cache-use", dc.opt.cache_use) {
	} else if VG_STR_CLO(arg, "--cache-use-granularity", tmp) {
		if (VG_(strcmp)(tmp, "exact") == 0)
			dc.opt.cache_use_bits = DC_USE_EXACT;
		else if (VG_(strcmp)(tmp, "callgrind") == 0)
			dc.opt.cache_use_bits = DC_USE_CALLGRIND;
		else
			VG_(fmsg_bad_option)(arg, "expected exact or callgrind\n");
	} else if VG_STR_CLO(arg, "--sample", dc.opt.sample) {
		if (!dc_track_parse_sample(dc.opt.sample))
			VG_(fmsg_bad_option)(arg, "expected EVENT:N with EVENT one of D1m..D4m, DLm, "
					     "Dr, Dw, Da and N >= 1\n");
	} else if VG_STR_CLO(arg, "--sample-log", dc.opt.sample_log) {
	} else if VG_BINT_CLO(arg, "--sample-seed", dc.opt.sample_seed, 0, 0x7fffffffffffffffLL) {
	} else if VG_BOOL_CLO(arg, "--sample-ip-only", dc.opt.sample_ip_only) {
	} else if VG_STR_CLO(arg, "--skid", dc.opt.skid) {
		if (!dc_ipsamp_parse_skid(dc.opt.skid))
			VG_(fmsg_bad_option)(arg, "expected MEAN:SD in instructions (0 to 1000000,"
					     " up to three decimals)\n");
	} else if VG_BOOL_CLO(arg, "--reuse", dc.opt.reuse) {
	} else if VG_BINT_CLO(arg, "--reuse-block", dc.opt.reuse_block, 1, 1 << 20) {
		if (!dc_is_pow2((ULong)dc.opt.reuse_block))
			VG_(fmsg_bad_option)(arg, "the block size must be a power of two\n");
	} else if VG_STR_CLO(arg, "--reuse-bins", tmp) {
		HChar *end;
		dc.opt.reuse_first = VG_(strtoll10)(tmp, &end);
		if (*end == ':')
			dc.opt.reuse_growth = VG_(strtoll10)(end + 1, &end);
		if (*end || dc.opt.reuse_first < 1 || dc.opt.reuse_growth < 2)
			VG_(fmsg_bad_option)(arg, "expected FIRST:GROWTH with FIRST >= 1, GROWTH >= 2\n");
	} else if VG_BINT_CLO(arg, "--reuse-sample", dc.opt.reuse_sample, 0, 1000000000000LL) {
	} else if VG_BINT_CLO(arg, "--reuse-watchpoints", nwp, 1, DC_RDX_MAX_WP) {
		dc.opt.rdx.nwp = (unsigned)nwp;
	} else if VG_STR_CLO(arg, "--reuse-watch", tmp) {
		if (VG_(strcmp)(tmp, "dr") && VG_(strcmp)(tmp, "block"))
			VG_(fmsg_bad_option)(arg, "expected dr or block\n");
		dc.opt.rdx.watch = VG_(strcmp)(tmp, "dr") ? DC_RDX_WATCH_BLOCK : DC_RDX_WATCH_DR;
	} else if VG_STR_CLO(arg, "--reuse-replace", tmp) {
		if (VG_(strcmp)(tmp, "reservoir") && VG_(strcmp)(tmp, "oldest"))
			VG_(fmsg_bad_option)(arg, "expected reservoir or oldest\n");
		dc.opt.rdx.replace = VG_(strcmp)(tmp, "oldest") ? DC_RDX_RESERVOIR : DC_RDX_OLDEST;
	} else if VG_STR_CLO(arg, "--reuse-attrib", tmp) {
		if (VG_(strcmp)(tmp, "proportional") && VG_(strcmp)(tmp, "none"))
			VG_(fmsg_bad_option)(arg, "expected proportional or none\n");
		dc.opt.rdx.proportional = VG_(strcmp)(tmp, "none") != 0;
	} else if VG_BINT_CLO(arg, "--trace-window", dc.opt.trace_window, 0, 1 << 24) {
	} else if VG_BINT_CLO(arg, "--trace-period", dc.opt.trace_period, 1, 1LL << 40) {
	} else if VG_BINT_CLO(arg, "--trace-seed", dc.opt.trace_seed, 0, 0x7fffffffffffffffLL) {
	} else if VG_BINT_CLO(arg, "--trace-block", dc.opt.trace_block, 8, 1 << 20) {
		if (!dc_is_pow2((ULong)dc.opt.trace_block))
			VG_(fmsg_bad_option)(arg, "the block size must be a power of two\n");
	} else if VG_BOOL_CLO(arg, "--trace-full", dc.opt.trace_full) {
	} else if VG_STR_CLO(arg, "--trace-out", dc.opt.trace_out) {
	} else if VG_BINT_CLO(arg, "--checkpoint-ms", dc.opt.checkpoint_ms, 0, 1000000000) {
	} else if VG_XACT_CLO(arg, "--checkpoint-budget=none", dc.opt.checkpoint_budget, 0) {
	} else if VG_BINT_CLO(arg, "--checkpoint-budget", dc.opt.checkpoint_budget, 1, 100) {
	} else if VG_BOOL_CLO(arg, "--offsets", dc.opt.offsets) {
	} else if VG_BINT_CLO(arg, "--offset-window", dc.opt.offset_window, 1,
			      (Long)DC_OFF_WINDOW_MAX) {
	} else if VG_BINT_CLO(arg, "--offset-cells", dc.opt.offset_cells, 1, 1LL << 32) {
	} else if VG_BINT_CLO(arg, "--offset-bucket-cells", dc.opt.offset_share, 1, 1LL << 32) {
	} else if VG_STR_CLO(arg, "--heap-names", tmp) {
		if (VG_(strcmp)(tmp, "site") == 0) {
			dc.opt.heap_site = True;
		} else {
			HChar *end;
			Long n = VG_(strncmp)(tmp, "fn:", 3) == 0 ? VG_(strtoll10)(tmp + 3, &end) : 0;
			if (n < 1 || n > 16 || *end)
				VG_(fmsg_bad_option)(arg, "expected fn:N (N from 1 to 16) or site\n");
			dc.opt.heap_site = False;
			dc.opt.heap_depth = (Int)n;
		}
	} else if VG_STR_CLO(arg, "--alloc-fn", tmp) {
		if (dc.opt.n_alloc_fns == (Int)(sizeof dc.opt.alloc_fns / sizeof *dc.opt.alloc_fns))
			VG_(fmsg_bad_option)(arg, "too many --alloc-fn options\n");
		dc.opt.alloc_fns[dc.opt.n_alloc_fns++] = tmp;
	} else {
		return False;
	}
	return True;
}

static void dc_print_usage(void)
{
	VG_(printf)(
"    --dcprof-out=<file>          raw dump to write [dcprof.raw.%%p]\n"
"    --cache=L1=S:A:L,L2=...      data-cache hierarchy [host's if plausible]\n"
"    --latency=L1=C,...,MEM=C     hit latencies in cycles [4,14,40,80; MEM=200]\n"
"    --cachegrind-compat=no|yes   simulate Cachegrind's D1/LL of this host [no]\n"
"    --heap-names=fn:N|site       name heap buckets by N callers or by site [fn:3]\n"
"    --alloc-fn=<name>            treat <name> as an allocator when naming\n"
"    --stack-frames=no|yes        one stack bucket per function [no]\n"
"    --collect-atstart=yes|no     collect from the start [yes]\n"
"    --max-block-records=<n>      heap blocks recorded individually [100000]\n"
"    --evictions=no|yes           count who evicts whom at every level [no]\n"
"    --calls=no|yes               call arcs with inclusive costs [no]\n"
"    --cache-use=no|yes           spatial loss and accesses per residency of every\n"
"                                 line (SpLoss, AcCost; with --evictions, the\n"
"                                 lines evicted: Evicted) [no]\n"
"    --cache-use-granularity=exact|callgrind  bytes of the touched-byte mask:\n"
"                                 exact, or Callgrind's 32 bits a line [exact]\n"
"    --offsets=no|yes             accesses and misses by offset within globals,\n"
"                                 heap and user blocks [no]\n"
"    --offset-window=<bytes>      offsets counted one by one from an object's\n"
"                                 start; further ones count as beyond [65536]\n"
"    --offset-cells=<n>           (bucket, offset) cells at most [131072]\n"
"    --offset-bucket-cells=<n>    cells of one bucket at most [1024]\n"
"    --sample=<event>:<n>         emulate a counter sampling every n-th event\n"
"                                 (D1m..D4m, DLm, Dr, Dw, Da) [off]\n"
"    --sample-log=<file>          also write each sample to <file>, for --replay\n"
"    --sample-seed=<n>            seed of the sampling period's randomization [1]\n"
"    --sample-ip-only=no|yes      samples carry only a (skidded) instruction\n"
"                                 pointer, counted per code location [no]\n"
"    --skid=<mean>:<sd>           skid of IP-only samples in executed\n"
"                                 instructions, Gaussian [0:0]\n"
"    --reuse=no|yes               exact reuse-distance histograms [no]\n"
"    --reuse-block=<bytes>        block size of reuse distances [64]\n"
"    --reuse-bins=<first>:<growth>  histogram bins [1:2]\n"
"    --reuse-sample=<n>           sampled reuse (RDX): a use point every n-th\n"
"                                 data access on average, 0 = off [0]\n"
"    --reuse-watchpoints=<k>      emulated debug registers, 1 to 16 [4]\n"
"    --reuse-watch=dr|block       watch the access's aligned 1/2/4/8 bytes, or\n"
"                                 its --reuse-block (simulator only) [dr]\n"
"    --reuse-replace=reservoir|oldest  watchpoint replacement [reservoir]\n"
"    --reuse-attrib=proportional|none  weigh traps by the samples of their\n"
"                                 calling context [proportional]\n"
"    --trace-window=<w>           sampled load traces: windows of w records [0: off]\n"
"    --trace-period=<p>           one window every p records on average [100w]\n"
"    --trace-seed=<n>             seed of the trace period's randomization [1]\n"
"    --trace-block=<bytes>        block size of footprints [64]\n"
"    --trace-full=no|yes          also the full-trace reference counts [no]\n"
"    --trace-out=<file>           also write the sampled trace to <file> [none]\n"
"    --checkpoint-ms=<ms>         write <dcprof-out>.ckpt, the dump as it would\n"
"                                 be then, every <ms> of wall time, 0 = off [5000]\n"
"    --checkpoint-budget=<pct>    ... or later, so that they cost at most <pct>\n"
"                                 percent of the run, 1 to 100, or none [2]\n");
}

static void dc_print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

/* ---- cache configuration -------------------------------------------- */

static Int host_caches(struct dc_host_cache *out, Int max)
{
	VexArchInfo vai;
	Int n = 0;

	VG_(machine_get_VexArchInfo)(NULL, &vai);
	for (UInt i = 0; i < vai.hwcache_info.num_caches && n < max; i++) {
		const VexCache *c = &vai.hwcache_info.caches[i];
		out[n].level = (Int)c->level;
		out[n].kind = c->kind == DATA_CACHE ? DC_HOST_DATA
			      : c->kind == INSN_CACHE ? DC_HOST_INSN : DC_HOST_UNIFIED;
		out[n].size = c->sizeB;
		out[n].assoc = c->assoc;
		out[n].line = c->line_sizeB;
		n++;
	}
	return n;
}

/* The I1 every mode simulates: the host's level-1 instruction cache, as
 * Cachegrind takes it (with --cache too: Cachegrind's --D1/--LL keep it),
 * or Cachegrind's default when the host describes none it could use. */
static void host_i1(const struct dc_host_cache *hc, Int n)
{
	HChar err[128];

	for (Int i = 0; i < n; i++) {
		if (hc[i].level != 1 || hc[i].kind != DC_HOST_INSN)
			continue;
		dc.i1.size = hc[i].size;
		dc.i1.assoc = hc[i].assoc;
		dc.i1.line = hc[i].line;
		dc.i1.latency = dc_hier_default_latency(1);
		if (dc_level_check(&dc.i1, err, sizeof err) == 0)
			return;
	}
	dc.i1.size = 65536;
	dc.i1.assoc = 2;
	dc.i1.line = 64;
	dc.i1.latency = dc_hier_default_latency(1);
}

static void configure_hierarchy(void)
{
	static HChar reason[256];
	struct dc_host_cache hc[16];
	HChar err[256];
	Int n = host_caches(hc, 16);

	host_i1(hc, n);
	if (dc.opt.compat) {
		if (dc_hier_cachegrind(&dc.hier, &dc.i1, hc, n, reason, sizeof reason))
			VG_(fmsg_bad_option)("--cachegrind-compat", "%s\n", reason);
		dc.cache_source = "cachegrind-compat";
		/* Cachegrind's --D1/--LL: the given two levels replace the host's. */
		if (dc.opt.cache) {
			if (dc_hier_parse_cache(&dc.hier, dc.opt.cache, err, sizeof err))
				VG_(fmsg_bad_option)("--cache", "%s\n", err);
			if (dc.hier.nlevels != 2)
				VG_(fmsg_bad_option)("--cache", "with --cachegrind-compat, give two "
						     "levels (Cachegrind's D1 and LL)\n");
			VG_(snprintf)(reason, sizeof reason, "Cachegrind's I1 on this host, D1 and "
				      "LL given with --cache=%s", dc.opt.cache);
		}
	} else if (dc.opt.cache) {
		if (dc_hier_parse_cache(&dc.hier, dc.opt.cache, err, sizeof err))
			VG_(fmsg_bad_option)("--cache", "%s\n", err);
		dc.cache_source = "option";
		VG_(snprintf)(reason, sizeof reason, "given with --cache=%s", dc.opt.cache);
	} else {
		dc.cache_source = dc_hier_from_host(&dc.hier, hc, n, reason, sizeof reason)
				  ? "host" : "default";
	}
	dc.cache_reason = reason;
	if (dc.opt.latency && dc_hier_parse_latency(&dc.hier, dc.opt.latency, err, sizeof err))
		VG_(fmsg_bad_option)("--latency", "%s\n", err);
	for (Int k = 0; k < dc.hier.nlevels; k++)
		dc.lat[k + 1] = dc.hier.lv[k].latency;
	dc.lat[dc.hier.nlevels + 1] = dc.hier.mem_latency;
	if (dc_cache_init(&dc.cache, &dc.hier, &dc.i1, &dc.env))
		VG_(tool_panic)("cannot allocate the cache model");
	if (dc.opt.cache_use) {
		Int rc = dc_cacheuse_init(&dc.use, &dc.cache, dc.opt.cache_use_bits, &dc.env);
		if (rc == DC_EINVAL)
			VG_(fmsg_bad_option)("--cache-use", "needs one line size at every level, "
					     "at most %d ways and set counts that are powers "
					     "of two\n", DC_USE_MAX_ASSOC);
		if (rc)
			VG_(tool_panic)("cannot allocate the cache-use records");
		dc.use.evictions = dc.opt.evictions;
	}
}

/* ---- client requests ------------------------------------------------ */

/* Copies a client string, refusing unreadable memory. */
static Bool client_string(Addr p, HChar *buf, SizeT len)
{
	SizeT i;

	for (i = 0; i + 1 < len; i++) {
		if ((i == 0 || ((p + i) & 4095) == 0) &&
		    !VG_(am_is_valid_for_client)(p + i, 1, VKI_PROT_READ))
			return False;
		buf[i] = ((const HChar *)p)[i];
		if (!buf[i])
			return True;
	}
	buf[i] = 0;
	return True;
}

static Bool dc_handle_client_request(ThreadId tid, UWord *args, UWord *ret)
{
	HChar name[256], type[256];
	struct dc_obj *o;

	if (!VG_IS_TOOL_USERREQ('D', 'C', args[0]))
		return False;
	*ret = 0;
	switch (args[0]) {
	case DCPROF_REQ_NAME_BLOCK:
		if (client_string(args[3], name, sizeof name))
			dc_heap_name_block(tid, args[1], args[2], name);
		return True;
	case DCPROF_REQ_NAME_BLOCK_TYPED:
		if (!client_string(args[3], name, sizeof name) ||
		    !client_string(args[4], type, sizeof type))
			return True;
		dc_heap_name_block(tid, args[1], args[2], name);   /* settles the frees */
		/* the type goes to the bucket the block is in now, if the
		 * naming took */
		o = dc_objmap_find(&dc.objs, args[1]);
		if (o && o->lo == args[1] && o->kind == DC_K_USER &&
		    VG_(strcmp)(dc_bucket_at(o->bucket)->name, name) == 0)
			dc_offsets_set_type(o->bucket, type);
		return True;
	case DCPROF_REQ_NAME_NEXT_ALLOC:
		if (client_string(args[1], name, sizeof name)) {
			VG_(free)(dc.threads[tid].pending_name);
			dc.threads[tid].pending_name = VG_(strdup)("dc.main.pending", name);
		}
		return True;
	case DCPROF_REQ_START:
		dc_set_collecting(True);
		return True;
	case DCPROF_REQ_STOP:
		dc_set_collecting(False);
		return True;
	default:
		return False;
	}
}

/* ---- lifecycle ------------------------------------------------------ */

static void at_fork_child(ThreadId tid)
{
	dc_dump_reopen_child();
}

/* Valgrind's core options (pub_core_options.h) a tool cannot see:
 * --read-inline-info (off by default for tools other than Memcheck and a
 * few) and --fullpath-after (directories in describe_IP's lines). */
extern Bool VG_(clo_read_inline_info);
extern XArray *VG_(clo_fullpath_after);

static void dc_post_clo_init(void)
{
	static const HChar *whole_path = "";

	/* Heap names need the directory of inlined call sites to tell
	 * library headers from the program's code (dc_heap.c). */
	if (VG_(clo_fullpath_after) && VG_(sizeXA)(VG_(clo_fullpath_after)) == 0)
		VG_(addToXA)(VG_(clo_fullpath_after), &whole_path);
	if (!dc.opt.out)
		dc.opt.out = "dcprof.raw.%p";
	if (!dc.opt.heap_site && dc.opt.heap_depth == 0)
		dc.opt.heap_depth = 3;
	configure_hierarchy();
	if (dc.opt.trace_window) {
		if (!dc.opt.trace_period)
			dc.opt.trace_period = 100 * dc.opt.trace_window;
		if (dc.opt.trace_period < 2 * dc.opt.trace_window)
			VG_(fmsg_bad_option)("--trace-period",
					     "must be at least twice --trace-window\n");
	} else if (dc.opt.trace_period || dc.opt.trace_full || dc.opt.trace_out) {
		VG_(fmsg_bad_option)("--trace-period, --trace-full or --trace-out",
				     "needs --trace-window\n");
	}
	if (dc_objmap_init(&dc.objs, &dc.env) || dc_objmap_init(&dc.regions, &dc.env) ||
	    dc_costtab_init(&dc.costs, &dc.env))
		VG_(tool_panic)("out of memory");
	dc_names_init();
	dc_track_init();
	if (dc.opt.skid && !dc.opt.sample_ip_only)
		VG_(fmsg_bad_option)("--skid", "needs --sample-ip-only\n");
	if (dc.opt.sample_ip_only) {
		if (!dc.sampling)
			VG_(fmsg_bad_option)("--sample-ip-only", "needs --sample\n");
		dc_ipsamp_init();
	}
	if (dc.opt.calls) {
		/* A superblock must end at each call and return, as in Callgrind:
		 * no translation across them. */
		VG_(clo_vex_control).guest_chase = False;
		dc_calls_start();
	}
	dc.threads = VG_(calloc)("dc.main.threads", VG_N_THREADS, sizeof *dc.threads);
	dc_set_collecting(dc.opt.collect_atstart);
	dc_dump_open();
	dc_trace_setup();
	dc_smplog_open();
	VG_(atfork)(NULL, NULL, at_fork_child);
}

/* Valgrind passes fini no useful exit code, so take it from exit_group.
 * An exec ends the image without fini: its dump is written before. */
static void dc_pre_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nargs)
{
	HChar path[VKI_PATH_MAX];

	if (syscallno == __NR_exit_group && nargs >= 1) {
		dc.exited = True;
		dc.exit_code = (Long)args[0];
	} else if ((syscallno == __NR_execve && nargs >= 1) ||
		   (syscallno == __NR_execveat && nargs >= 2)) {
		/* An unreadable path fails the exec (EFAULT); the dump is
		 * set aside anyway and put back after. */
		if (!client_string(syscallno == __NR_execve ? args[0] : args[1], path, sizeof path))
			path[0] = '\0';
		dc_exec_pre(path);
	}
}

/* An exec that returns has failed: the process goes on. */
static void dc_post_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nargs,
			    SysRes res)
{
	if (syscallno == __NR_execve || syscallno == __NR_execveat)
		dc_exec_failed();
}

static void dc_pre_signal(ThreadId tid, Int sigNo, Bool alt_stack)
{
	if (dc.opt.calls)
		dc_calls_pre_signal(tid, sigNo, alt_stack);
}

static void dc_post_signal(ThreadId tid, Int sigNo)
{
	if (dc.opt.calls)
		dc_calls_post_signal(tid, sigNo);
}

static void dc_fini(Int exitcode)
{
	dc_dump_finish(True, exitcode);
}

static void dc_pre_clo_init(void)
{
	VG_(details_name)("dcprof");
	VG_(details_version)(DCPROF_VERSION);
	VG_(details_description)("a data-centric cache profiler");
	VG_(details_copyright_author)("Copyright (C) the dcprof authors; GNU GPL'd.");
	VG_(details_bug_reports_to)("the dcprof issue tracker");
	VG_(details_avg_translation_sizeB)(500);

	VG_(basic_tool_funcs)(dc_post_clo_init, dc_instrument, dc_fini);
	VG_(needs_command_line_options)(dc_process_cmd_line_option, dc_print_usage,
					dc_print_debug_usage);
	VG_(needs_client_requests)(dc_handle_client_request);
	VG_(needs_syscall_wrapper)(dc_pre_syscall, dc_post_syscall);
	dc_heap_init();
	dc_globals_init();

	VG_(track_new_mem_startup)(dc_track_startup);
	VG_(track_new_mem_mmap)(dc_track_mmap);
	VG_(track_die_mem_munmap)(dc_track_munmap);
	VG_(track_start_client_code)(dc_thread_switch);
	VG_(track_pre_deliver_signal)(dc_pre_signal);
	VG_(track_post_deliver_signal)(dc_post_signal);

	dc_port_init(&dc.env);
	/* Inlined functions get their own locations and heap-name frames;
	 * --read-inline-info=no on the command line still turns it off. */
	VG_(clo_read_inline_info) = True;
	dc.opt.collect_atstart = True;
	dc.opt.max_block_records = 100000;
	dc.opt.sample_seed = 1;
	dc.opt.reuse_block = 64;
	dc.opt.cache_use_bits = DC_USE_EXACT;
	dc.opt.reuse_first = 1;
	dc.opt.reuse_growth = 2;
	dc.opt.rdx.nwp = 4;
	dc.opt.rdx.watch = DC_RDX_WATCH_DR;
	dc.opt.rdx.replace = DC_RDX_RESERVOIR;
	dc.opt.rdx.proportional = True;
	dc.opt.trace_seed = 1;
	dc.opt.trace_block = 64;
	dc.opt.checkpoint_ms = 5000;
	dc.opt.checkpoint_budget = 2;
	dc.opt.offset_window = 65536;
	dc.opt.offset_cells = 131072;
	dc.opt.offset_share = 1024;
	dc.raw_fd = -1;
}

VG_DETERMINE_INTERFACE_VERSION(dc_pre_clo_init)
