/* cmd_record.c — dcprof record: run a program under the engine, then turn
 * every raw dump the process tree wrote into a profile.
 *
 * Everything that can be checked is checked before Valgrind starts (the
 * options, with the core's own cache-spec parser; the engine; valgrind; the
 * program; the output directory), so a typo costs no run.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/spin.h"
#include "base/fmt.h"
#include "base/num.h"
#include "base/outfile.h"
#include "cli/cli.h"
#include "cli/debuginfo.h"
#include "cli/opts.h"
#include "cli/record_native.h"
#include "cli/spawn.h"
#include "core/cacheuse.h"
#include "core/hier.h"
#include "core/offtab.h"
#include "core/rdx.h"
#include "core/skid.h"
#include "core/util.h"
#include "store/finalize.h"
#include "store/rawdir.h"
#include "store/rhist.h"
#include "store/sample.h"

#define TOOL_NAME "dcprof-amd64-linux"
/* Valgrind's launcher and helpers, as --trace-children-skip patterns of
 * the path a program execs (its tools live in .../libexec/valgrind). */
#define VALGRIND_PROGRAMS "valgrind,*/valgrind,*/vgdb,*/valgrind-di-server," \
			  "*/valgrind-listener,*/libexec/valgrind/*"
#define MAX_ENGINE_ARGS 64

enum { OPT_OUTPUT = OPT_OWN, OPT_QUIET, OPT_KEEP_RAW, OPT_FOLLOW_EXEC, OPT_CACHE, OPT_LATENCY,
       OPT_COMPAT, OPT_HEAP_NAMES, OPT_ALLOC_FN, OPT_STACK_FRAMES, OPT_COLLECT_ATSTART,
       OPT_MAX_BLOCK_RECORDS, OPT_EVICTIONS, OPT_SAMPLE, OPT_SAMPLE_SEED, OPT_SAMPLE_LOG, OPT_REUSE,
       OPT_REUSE_BLOCK, OPT_REUSE_BINS, OPT_REUSE_SAMPLE, OPT_REUSE_WATCHPOINTS,
       OPT_REUSE_WATCH, OPT_REUSE_REPLACE, OPT_REUSE_ATTRIB, OPT_CACHE_USE,
       OPT_CACHE_USE_GRAN, OPT_CALLS, OPT_TRACE_WINDOW, OPT_TRACE_PERIOD, OPT_TRACE_SEED,
       OPT_TRACE_BLOCK, OPT_TRACE_FULL, OPT_TRACE_OUT, OPT_CHECKPOINT,
       OPT_CHECKPOINT_BUDGET, OPT_OFFSETS, OPT_OFFSET_WINDOW, OPT_OFFSET_CELLS,
       OPT_OFFSET_SHARE,
       OPT_ENGINE, OPT_EVENT, OPT_PERIOD, OPT_LDLAT, OPT_REPLAY, OPT_SAMPLE_IP_ONLY, OPT_SKID,
       OPT_TEST_NO_WATCHPOINTS };

#define REUSE_BLOCK_MAX 1048576
#define REUSE_FIRST_MAX (1LL << 32)
#define REUSE_GROWTH_MAX 65536

static const struct opt_def record_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_OUTPUT, 'o', "output", OPT_REQUIRED },
	{ OPT_QUIET, 'q', "quiet", OPT_NOARG },
	{ OPT_KEEP_RAW, 0, "keep-raw", OPT_NOARG },
	{ OPT_FOLLOW_EXEC, 0, "follow-exec", OPT_OPTIONAL },
	{ OPT_ENGINE, 0, "engine", OPT_REQUIRED },
	{ OPT_EVENT, 0, "event", OPT_REQUIRED },
	{ OPT_PERIOD, 0, "period", OPT_REQUIRED },
	{ OPT_LDLAT, 0, "ldlat", OPT_REQUIRED },
	{ OPT_REPLAY, 0, "replay", OPT_REQUIRED },
	/* hidden, for tests (docs/engine-native.md): the watchpoint probe fails */
	{ OPT_TEST_NO_WATCHPOINTS, 0, "test-no-watchpoints", OPT_NOARG },
	{ OPT_CACHE, 0, "cache", OPT_REQUIRED },
	{ OPT_LATENCY, 0, "latency", OPT_REQUIRED },
	{ OPT_COMPAT, 0, "cachegrind-compat", OPT_OPTIONAL },
	{ OPT_HEAP_NAMES, 0, "heap-names", OPT_REQUIRED },
	{ OPT_ALLOC_FN, 0, "alloc-fn", OPT_REQUIRED },
	{ OPT_STACK_FRAMES, 0, "stack-frames", OPT_REQUIRED },
	{ OPT_COLLECT_ATSTART, 0, "collect-atstart", OPT_REQUIRED },
	{ OPT_MAX_BLOCK_RECORDS, 0, "max-block-records", OPT_REQUIRED },
	{ OPT_EVICTIONS, 0, "evictions", OPT_OPTIONAL },
	{ OPT_CACHE_USE, 0, "cache-use", OPT_OPTIONAL },
	{ OPT_CALLS, 0, "calls", OPT_OPTIONAL },
	{ OPT_CACHE_USE_GRAN, 0, "cache-use-granularity", OPT_REQUIRED },
	{ OPT_SAMPLE, 0, "sample", OPT_REQUIRED },
	{ OPT_SAMPLE_SEED, 0, "sample-seed", OPT_REQUIRED },
	{ OPT_SAMPLE_IP_ONLY, 0, "sample-ip-only", OPT_OPTIONAL },
	{ OPT_SKID, 0, "skid", OPT_REQUIRED },
	{ OPT_SAMPLE_LOG, 0, "sample-log", OPT_REQUIRED },
	{ OPT_REUSE, 0, "reuse", OPT_OPTIONAL },
	{ OPT_REUSE_BLOCK, 0, "reuse-block", OPT_REQUIRED },
	{ OPT_REUSE_BINS, 0, "reuse-bins", OPT_REQUIRED },
	{ OPT_REUSE_SAMPLE, 0, "reuse-sample", OPT_REQUIRED },
	{ OPT_REUSE_WATCHPOINTS, 0, "reuse-watchpoints", OPT_REQUIRED },
	{ OPT_REUSE_WATCH, 0, "reuse-watch", OPT_REQUIRED },
	{ OPT_REUSE_REPLACE, 0, "reuse-replace", OPT_REQUIRED },
	{ OPT_REUSE_ATTRIB, 0, "reuse-attrib", OPT_REQUIRED },
	{ OPT_TRACE_WINDOW, 0, "trace-window", OPT_REQUIRED },
	{ OPT_TRACE_PERIOD, 0, "trace-period", OPT_REQUIRED },
	{ OPT_TRACE_SEED, 0, "trace-seed", OPT_REQUIRED },
	{ OPT_TRACE_BLOCK, 0, "trace-block", OPT_REQUIRED },
	{ OPT_TRACE_FULL, 0, "trace-full", OPT_OPTIONAL },
	{ OPT_TRACE_OUT, 0, "trace-out", OPT_REQUIRED },
	{ OPT_CHECKPOINT, 0, "checkpoint", OPT_REQUIRED },
	{ OPT_CHECKPOINT_BUDGET, 0, "checkpoint-budget", OPT_REQUIRED },
	{ OPT_OFFSETS, 0, "offsets", OPT_OPTIONAL },
	{ OPT_OFFSET_WINDOW, 0, "offset-window", OPT_REQUIRED },
	{ OPT_OFFSET_CELLS, 0, "offset-cells", OPT_REQUIRED },
	{ OPT_OFFSET_SHARE, 0, "offset-bucket-cells", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_record_usage(FILE *f)
{
	fprintf(f,
		"usage: dcprof record [options] [--] PROGRAM [ARGS]\n"
		"\n"
		"Run PROGRAM under the dcprof simulator engine (Valgrind), or natively\n"
		"with the native engine (perf_event sampling), and write a profile per\n"
		"process.  Exits with PROGRAM's exit status (128 + signal if it was\n"
		"killed), or 2 if dcprof itself fails.\n"
		"\n"
		"  --engine=simulator|native  simulator: every access through a simulated\n"
		"                             cache (exact, 20-100x slower); native: the\n"
		"                             program at native speed, sampled with\n"
		"                             perf_event_open by a preloaded runtime\n"
		"                             (default: simulator; docs/engine-native.md)\n"
		"  --event=EVENT              native: what to sample: mem-loads, mem-stores\n"
		"                             (Intel PEBS), ibs-op (AMD), spe (Arm): data\n"
		"                             addresses; pagefault: pages first touched per\n"
		"                             object, code location and thread (any Linux);\n"
		"                             cpu-clock: IP-only samples (default: the best\n"
		"                             data-address event of this machine)\n"
		"  --period=N                 native: one sample every N events (default:\n"
		"                             1 for pagefault, 1000000 ns for cpu-clock,\n"
		"                             10007 loads or stores for mem-loads and\n"
		"                             mem-stores, 65536 ops for ibs-op, 4096 ops\n"
		"                             for spe)\n"
		"  --ldlat=N                  native, mem-loads: sample loads that take N\n"
		"                             cycles or more (default: 3, every load; perf\n"
		"                             mem's 30 samples only L1 misses)\n"
		"  --replay=FILE              native: attribute the samples in FILE (format:\n"
		"                             docs/engine-native.md) instead of sampling\n"
		"  native takes --cache, --latency, --heap-names=fn:N, --alloc-fn,\n"
		"  --checkpoint and --max-block-records of the options below, and with\n"
		"  --event=pagefault --reuse-sample=N (a use point every N page faults,\n"
		"  hardware watchpoints, distances in ns of CPU time; with --event=mem-loads\n"
		"  or mem-stores every N-th PEBS sample, with ibs-op or spe every N-th\n"
		"  sample with a data address; distances in memory instructions or\n"
		"  instructions where a counter opens), --reuse-bins,\n"
		"  --reuse-watchpoints (1 to 4), --reuse-replace, --reuse-attrib and\n"
		"  --sample-seed.\n"
		"\n"
		"  -o, --output FILE          profile of PROGRAM's process (of the last\n"
		"                             program it exec'd); processes it forks get\n"
		"                             FILE-without-.db.PID.db, and the programs a\n"
		"                             process exec'd from FILE-without-.db.PID.N-NAME.db\n"
		"                             (default: dcprof.PID.db); %%r is the MPI\n"
		"                             rank, %%h the host, %%p the process id\n"
		"                             (mpirun -np 4 dcprof record -o app.%%r.db ...)\n"
		"  -q, --quiet                print nothing but errors (and no progress\n"
		"                             line: without -q, when stderr is a terminal,\n"
		"                             the time the program has run and its number\n"
		"                             of processes, rewritten once a second)\n"
		"  --keep-raw                 keep the raw dumps and say where (default: no)\n"
		"  --follow-exec[=yes|no]     run the programs the process tree execs under\n"
		"                             the engine too; a setuid program cannot run so\n"
		"                             (default: yes)\n"
		"\n"
		"engine options (passed to the engine, checked here first):\n"
		"  --cache=L1=S:A:L,L2=...    data-cache levels: size (K/M/G), associativity,\n"
		"                             line size; 1 to %d levels (default: the host's\n"
		"                             caches if plausible, else L1=32K:8:64,\n"
		"                             L2=1M:16:64,L3=32M:16:64)\n"
		"  --latency=L1=C,...,MEM=C   hit latency of each level and of memory in\n"
		"                             cycles (default: L1=%u,L2=%u,L3=%u,L4=%u,MEM=%u)\n"
		"  --cachegrind-compat        simulate the D1/LL Cachegrind picks on this\n"
		"                             host; with --cache, two levels replace D1\n"
		"                             and LL, as Cachegrind's --D1/--LL (default: no)\n"
		"  --heap-names=fn:N|site     name heap buckets by N calling functions\n"
		"                             (1..16) or by the whole allocation site\n"
		"                             (default: fn:3)\n"
		"  --alloc-fn=NAME            treat NAME as an allocation wrapper when naming\n"
		"                             heap buckets (a C++ NAME without parameters or\n"
		"                             template arguments: Allocate for Allocate<T>);\n"
		"                             repeatable (default: none)\n"
		"  --stack-frames=yes|no      one stack bucket per function (default: no)\n"
		"  --collect-atstart=yes|no   collect from the start, else only between\n"
		"                             DCPROF_START and DCPROF_STOP (default: yes)\n"
		"  --max-block-records=N      heap blocks recorded one by one, the first N to\n"
		"                             end (native engine: the first N allocated)\n"
		"                             (default: 100000)\n"
		"  --evictions[=yes|no]       record who evicts whom at every level, fills and\n"
		"                             residency (default: no)\n"
		"  --calls[=yes|no]           track calls per thread and record call arcs with\n"
		"                             inclusive costs (default: no)\n"
		"  --cache-use[=yes|no]       spatial loss (SpLoss) and accesses per residency\n"
		"                             (AcCost) of every line at every level, charged\n"
		"                             to the access that loaded it, and with\n"
		"                             --evictions the lines evicted (Evicted)\n"
		"                             (default: no)\n"
		"  --cache-use-granularity=exact|callgrind\n"
		"                             bytes of the touched-byte mask: exact, or\n"
		"                             Callgrind's 32 bits per line (default: exact)\n"
		"  --offsets[=yes|no]         accesses and misses by offset within globals,\n"
		"                             heap and user blocks, for report --by offset\n"
		"                             and --by field (default: no)\n"
		"  --offset-window=BYTES      offsets from an object's start counted one by\n"
		"                             one; further ones count as beyond (default:\n"
		"                             65536)\n"
		"  --offset-cells=N           (bucket, offset) cells at most; new offsets\n"
		"                             beyond that count as beyond (default: 131072)\n"
		"  --offset-bucket-cells=N    cells of one bucket at most, so that every\n"
		"                             bucket gets some: a cell is 1, 2, 4 or 8\n"
		"                             bytes wide, the least with which N cells\n"
		"                             cover the bucket's first object (or the\n"
		"                             window); new cells past N count as beyond\n"
		"                             (default: 1024)\n"
		"  --sample=EVENT:N           also sample one in N events (on average) and\n"
		"                             record the sampled estimates; EVENT is D1m..D4m\n"
		"                             or DLm (misses at a level), Dr, Dw or Da (reads,\n"
		"                             writes, all accesses) (default: no sampling)\n"
		"  --sample-seed=N            random seed of the sampling period (default: 1)\n"
		"  --sample-ip-only[=yes|no]  samples of --sample carry only an instruction\n"
		"                             pointer, no data address, as a counter without\n"
		"                             precise sampling delivers; counted per code\n"
		"                             location for report --ip-samples instead of\n"
		"                             the sampled estimates (default: no)\n"
		"  --skid=MEAN:SD             with --sample-ip-only: each sample lands on the\n"
		"                             instruction executed k instructions after the\n"
		"                             sampled one, k Gaussian with MEAN and SD in\n"
		"                             executed instructions, rounded, at least 0\n"
		"                             (Rutar and Hollingsworth, Software Analysis\n"
		"                             Techniques to Approximate Data Centric Direct\n"
		"                             Measurements, 3.3.3); 0 to %d each, up to\n"
		"                             three decimals (default: 0:0, precise)\n"
		"  --sample-log=FILE          also write every sample to FILE, a sample file\n"
		"                             for --engine=native --replay (format:\n"
		"                             docs/engine-native.md, \"Replay\")\n"
		"  --reuse[=yes|no]           measure exact reuse distances (stack and time)\n"
		"                             with histograms per bucket and per pair of code\n"
		"                             locations (default: no)\n"
		"  --reuse-block=BYTES        block size reuse distances are measured in: a\n"
		"                             power of two, 1 to %d (default: 64, a\n"
		"                             cache line)\n"
		"  --reuse-bins=FIRST:GROWTH  histogram bins: [0, FIRST), then each bin GROWTH\n"
		"                             times as wide; FIRST 1 to 2^32, GROWTH 2 to %d\n"
		"                             (default: 1:2, powers of two)\n"
		"  --reuse-sample=N           sampled reuse distances (RDX): a use point every\n"
		"                             N-th data access on average, watched by emulated\n"
		"                             debug registers until reused (default: off)\n"
		"  --reuse-watchpoints=K      debug registers, 1 to %d (default: 4)\n"
		"  --reuse-watch=dr|block     watch the aligned 1, 2, 4 or 8 bytes holding the\n"
		"                             access (dr, as hardware does) or its whole\n"
		"                             --reuse-block (block, simulator only)\n"
		"                             (default: dr)\n"
		"  --reuse-replace=reservoir|oldest\n"
		"                             when all are armed, replace by reservoir sampling\n"
		"                             or replace the oldest (default: reservoir)\n"
		"  --reuse-attrib=proportional|none\n"
		"                             weigh each reuse by the samples of its use's\n"
		"                             calling context (default: proportional)\n"
		"  --trace-window=W           emulate a processor-trace unit: record windows\n"
		"                             of W loads (1 to 2^24; default: no tracing)\n"
		"  --trace-period=P           one window every P loads on average, P >= 2W\n"
		"                             (default: 100W, a 1 %% sample ratio)\n"
		"  --trace-seed=N             random seed of the trace period (default: 1)\n"
		"  --trace-block=BYTES        block size of footprints and reuse distances:\n"
		"                             a power of two, 8 to %d (default: 64)\n"
		"  --trace-full[=yes|no]      also count the full-trace reference footprints\n"
		"                             for dcprof footprint --accuracy (default: no)\n"
		"  --trace-out=FILE           also write the sampled trace to FILE\n"
		"                             (format: docs/raw-dump.md)\n"
		"  --checkpoint=SECONDS       save the profile so far every SECONDS of wall\n"
		"                             time (0.001 resolution; 0: never), so a program\n"
		"                             killed by SIGKILL leaves the profile of the run\n"
		"                             up to its last checkpoint (default: 5)\n"
		"  --checkpoint-budget=PCT    ... or less often, so that checkpoints cost at\n"
		"                             most PCT percent of the run, 1 to 100\n"
		"                             (default: 2), or `none': every SECONDS\n"
		"                             whatever they cost\n"
		"\n"
		"  -h, --help                 show this help\n"
		"\n"
		"environment: DCPROF_LIB (engine directory, default BINDIR/../lib/dcprof),\n"
		"DCPROF_VALGRIND (valgrind to run, default: valgrind from PATH), TMPDIR.\n",
		DC_MAX_LEVELS, dc_hier_default_latency(1), dc_hier_default_latency(2),
		dc_hier_default_latency(3), dc_hier_default_latency(4), DC_DEFAULT_MEM_LATENCY,
		DC_SKID_MAX, REUSE_BLOCK_MAX, REUSE_GROWTH_MAX, DC_RDX_MAX_WP, REUSE_BLOCK_MAX);
}

struct record {
	const char *output;
	const char *meta[7];    /* keys and values added to every profile, NULL-ended */
	char omp_policy[96];    /* meta omp_wait_policy */
	char rank[24];          /* meta rank: from the launcher's environment, or "" */
	char host[256];         /* meta host */
	struct sbuf out_name;   /* -o with %r, %h and %% expanded (%p after the run) */
	const char *trace_out;  /* --trace-out's value */
	const char *sample_log; /* --sample-log's value */
	bool quiet, keep_raw;
	bool no_follow;         /* --follow-exec=no */
	const char *cache, *latency;
	bool compat;
	const char *sample;     /* --sample's value */
	char sample_event[4];
	bool seed_given;
	bool ip_only;           /* --sample-ip-only=yes */
	bool skid;              /* --skid given */
	bool reuse;             /* --reuse=yes */
	const char *reuse_sub;  /* --reuse-block or --reuse-bins, given */
	bool reuse_sample;      /* --reuse-sample=N, N > 0 */
	const char *reuse_sample_arg;   /* its N */
	bool no_watchpoints;    /* --test-no-watchpoints */
	const char *rdx_sub;    /* an option of sampled reuse, given */
	bool cache_use;         /* --cache-use=yes */
	bool use_gran;          /* --cache-use-granularity given */
	uint64_t trace_window, trace_period;
	const char *trace_sub;  /* another --trace-* option, given */
	char *engine_args[MAX_ENGINE_ARGS];
	int nengine;
	char **prog;            /* the program and its arguments, NULL-terminated */
	bool native;            /* --engine=native */
	struct native_opts nat; /* its --event, --period, --replay */
};

static int add_engine_arg(struct record *r, const char *name, const char *value)
{
	struct sbuf sb;

	if (r->nengine == MAX_ENGINE_ARGS) {
		err_msg("too many engine options");
		return -1;
	}
	sbuf_init(&sb);
	sbuf_addf(&sb, "--%s=%s", name, value);
	r->engine_args[r->nengine++] = sb.buf;
	return 0;
}

static int check_heap_names(const char *v)
{
	uint64_t n;

	if (!strcmp(v, "site") || (!strncmp(v, "fn:", 3) && !num_parse_u64(v + 3, 16, &n) && n))
		return 0;
	err_msg("invalid --heap-names value '%s' (fn:N with N from 1 to 16, or site)", v);
	return -1;
}

/* EVENT:N; the event's level is checked against the hierarchy later. */
static int check_sample(struct record *r, const char *v)
{
	const char *colon = strchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : 0;
	uint64_t period;

	if (!colon || n >= sizeof r->sample_event ||
	    num_parse_u64(colon + 1, INT64_MAX, &period) || period == 0)
		goto bad;
	memcpy(r->sample_event, v, n);
	r->sample_event[n] = '\0';
	if (sample_event_level(r->sample_event, DC_MAX_LEVELS) < 0)
		goto bad;
	r->sample = v;
	return 0;
bad:
	err_msg("invalid --sample value '%s' (EVENT:N with EVENT one of D1m D2m D3m D4m DLm"
		  " Dr Dw Da and N >= 1)", v);
	return -1;
}

/* SECONDS with up to three decimals, at most 10^6 s, as milliseconds. */
static int parse_seconds(const char *v, uint64_t *ms)
{
	uint64_t s = 0, frac = 0;
	int digits = 0, decimals = 0;

	for (; *v >= '0' && *v <= '9'; v++, digits++)
		if ((s = s * 10 + (uint64_t)(*v - '0')) > 1000000)
			return -1;
	if (*v == '.')
		for (v++; *v >= '0' && *v <= '9' && decimals < 3; v++, decimals++)
			frac = frac * 10 + (uint64_t)(*v - '0');
	if (*v || digits + decimals == 0)
		return -1;
	while (decimals++ < 3)
		frac *= 10;
	*ms = s * 1000 + frac;
	return *ms > 1000000000 ? -1 : 0;
}

/* Checks one engine option's value and queues it for the engine. */
static int engine_option(struct record *r, int id, const char *name, const char *v)
{
	uint64_t n;

	switch (id) {
	case OPT_CACHE:
		r->cache = v;
		break;
	case OPT_LATENCY:
		r->latency = v;
		break;
	case OPT_TRACE_WINDOW:
	case OPT_TRACE_PERIOD:
	case OPT_TRACE_SEED:
		if (num_parse_u64(v, id == OPT_TRACE_WINDOW ? 1 << 24 : id == OPT_TRACE_PERIOD
				  ? 1ULL << 40 : INT64_MAX, &n) || (n == 0 && id != OPT_TRACE_SEED)) {
			err_msg("invalid --%s value '%s' (%s)", name, v,
				  id == OPT_TRACE_WINDOW ? "1 to 2^24" : id == OPT_TRACE_PERIOD
				  ? "1 to 2^40" : "0 to 2^63-1");
			return -1;
		}
		if (id == OPT_TRACE_WINDOW)
			r->trace_window = n;
		else if (id == OPT_TRACE_PERIOD)
			r->trace_period = n;
		if (id != OPT_TRACE_WINDOW)
			r->trace_sub = id == OPT_TRACE_PERIOD ? "--trace-period" : "--trace-seed";
		break;
	case OPT_TRACE_BLOCK:
		if (num_parse_u64(v, REUSE_BLOCK_MAX, &n) || n < 8 || (n & (n - 1))) {
			err_msg("invalid --trace-block value '%s' (a power of two from 8 to %d)",
				  v, REUSE_BLOCK_MAX);
			return -1;
		}
		r->trace_sub = "--trace-block";
		break;
	case OPT_TRACE_OUT:
		if (!*v) {
			err_msg("--trace-out needs a file name");
			return -1;
		}
		r->trace_sub = "--trace-out";
		r->trace_out = v;
		break;
	case OPT_TRACE_FULL:
		if (v && opt_parse_yesno(v) < 0)
			goto yesno;
		v = !v || opt_parse_yesno(v) == 1 ? "yes" : "no";
		r->trace_sub = "--trace-full";
		break;
	case OPT_OFFSET_WINDOW:
	case OPT_OFFSET_CELLS:
	case OPT_OFFSET_SHARE:
		if (num_parse_u64(v, id == OPT_OFFSET_WINDOW ? DC_OFF_WINDOW_MAX : 1ULL << 32, &n) ||
		    n == 0) {
			err_msg("invalid --%s value '%s' (1 to %llu)", name, v,
				id == OPT_OFFSET_WINDOW ? (unsigned long long)DC_OFF_WINDOW_MAX
							: 1ULL << 32);
			return -1;
		}
		break;
	case OPT_SKID: {
		uint32_t mean, sd;
		if (dc_skid_parse(v, &mean, &sd)) {
			err_msg("invalid --skid value '%s' (MEAN:SD in instructions, 0 to %d each,"
				" up to three decimals)", v, DC_SKID_MAX);
			return -1;
		}
		r->skid = true;
		break;
	}
	case OPT_SAMPLE_IP_ONLY:
	case OPT_OFFSETS:
	case OPT_COMPAT:
	case OPT_EVICTIONS:
	case OPT_REUSE:
	case OPT_CACHE_USE:
	case OPT_CALLS:
		if (v && opt_parse_yesno(v) < 0)
			goto yesno;
		v = !v || opt_parse_yesno(v) == 1 ? "yes" : "no";
		if (id == OPT_COMPAT)
			r->compat = v[0] == 'y';
		if (id == OPT_REUSE)
			r->reuse = v[0] == 'y';
		if (id == OPT_CACHE_USE)
			r->cache_use = v[0] == 'y';
		if (id == OPT_SAMPLE_IP_ONLY)
			r->ip_only = v[0] == 'y';
		break;
	case OPT_CACHE_USE_GRAN:
		if (strcmp(v, "exact") && strcmp(v, "callgrind")) {
			err_msg("invalid --cache-use-granularity value '%s' (exact or callgrind)", v);
			return -1;
		}
		r->use_gran = true;
		break;
	case OPT_REUSE_BLOCK:
		if (num_parse_u64(v, REUSE_BLOCK_MAX, &n) || n == 0 || (n & (n - 1))) {
			err_msg("invalid --reuse-block value '%s' (a power of two from 1 to %d)",
				  v, REUSE_BLOCK_MAX);
			return -1;
		}
		r->reuse_sub = "--reuse-block";
		break;
	case OPT_REUSE_BINS: {
		int64_t first, growth;
		if (reuse_parse_bins(v, REUSE_FIRST_MAX, REUSE_GROWTH_MAX, &first, &growth)) {
			err_msg("invalid --reuse-bins value '%s' (FIRST:GROWTH with FIRST from 1"
				  " to 2^32 and GROWTH from 2 to %d)", v, REUSE_GROWTH_MAX);
			return -1;
		}
		r->reuse_sub = "--reuse-bins";
		break;
	}
	case OPT_HEAP_NAMES:
		if (check_heap_names(v))
			return -1;
		break;
	case OPT_ALLOC_FN:
		if (!*v) {
			err_msg("--alloc-fn needs a function name");
			return -1;
		}
		break;
	case OPT_STACK_FRAMES:
	case OPT_COLLECT_ATSTART:
		if (opt_parse_yesno(v) < 0)
			goto yesno;
		break;
	case OPT_MAX_BLOCK_RECORDS:
		if (num_parse_u64(v, 1000000000000ULL, &n)) {
			err_msg("invalid --max-block-records value '%s' (0 to 10^12)", v);
			return -1;
		}
		break;
	case OPT_SAMPLE:
		if (check_sample(r, v))
			return -1;
		break;
	case OPT_SAMPLE_LOG:
		if (!*v) {
			err_msg("--sample-log needs a file name");
			return -1;
		}
		r->sample_log = v;
		break;
	case OPT_REUSE_SAMPLE:
		if (num_parse_u64(v, 1000000000000ULL, &n)) {
			err_msg("invalid --reuse-sample value '%s' (0 to 10^12)", v);
			return -1;
		}
		r->reuse_sample = n > 0;
		r->reuse_sample_arg = v;
		break;
	case OPT_REUSE_WATCHPOINTS:
		if (num_parse_u64(v, DC_RDX_MAX_WP, &n) || n == 0) {
			err_msg("invalid --reuse-watchpoints value '%s' (1 to %d)", v,
				  DC_RDX_MAX_WP);
			return -1;
		}
		r->rdx_sub = "--reuse-watchpoints";
		break;
	case OPT_REUSE_WATCH:
	case OPT_REUSE_REPLACE:
	case OPT_REUSE_ATTRIB: {
		const char *a = id == OPT_REUSE_WATCH ? "dr" : id == OPT_REUSE_REPLACE ? "reservoir"
										: "proportional";
		const char *b = id == OPT_REUSE_WATCH ? "block" : id == OPT_REUSE_REPLACE ? "oldest"
										 : "none";
		if (strcmp(v, a) && strcmp(v, b)) {
			err_msg("invalid --%s value '%s' (%s or %s)", name, v, a, b);
			return -1;
		}
		r->rdx_sub = id == OPT_REUSE_WATCH ? "--reuse-watch"
			     : id == OPT_REUSE_REPLACE ? "--reuse-replace" : "--reuse-attrib";
		break;
	}
	case OPT_CHECKPOINT: {
		char ms[24];
		if (parse_seconds(v, &n)) {
			err_msg("invalid --checkpoint value '%s' (seconds, 0 to 10^6, at most"
				  " three decimals)", v);
			return -1;
		}
		snprintf(ms, sizeof ms, "%llu", (unsigned long long)n);
		return add_engine_arg(r, "checkpoint-ms", ms);
	}
	case OPT_CHECKPOINT_BUDGET:
		if (strcmp(v, "none") != 0 && (num_parse_u64(v, 100, &n) || n == 0)) {
			err_msg("invalid --checkpoint-budget value '%s' (1 to 100, or none)", v);
			return -1;
		}
		break;
	case OPT_SAMPLE_SEED:
		if (num_parse_u64(v, INT64_MAX, &n)) {
			err_msg("invalid --sample-seed value '%s' (0 to 2^63-1)", v);
			return -1;
		}
		r->seed_given = true;
		break;
	}
	return add_engine_arg(r, name, v);
yesno:
	err_msg("invalid --%s value '%s' (yes or no)", name, v);
	return -1;
}

/* --cache, --latency and --sample's level with the parser the engine uses. */
static int check_hierarchy(const struct record *r)
{
	struct dc_hier h;
	char err[256];
	int level;

	if (r->cache) {
		if (dc_hier_parse_cache(&h, r->cache, err, sizeof err)) {
			err_msg("invalid --cache '%s': %s", r->cache, err);
			return -1;
		}
		if (r->compat && h.nlevels != 2) {
			err_msg("invalid --cache '%s': with --cachegrind-compat, give two levels"
				  " (Cachegrind's D1 and LL)", r->cache);
			return -1;
		}
		for (int k = 0; r->cache_use && k < h.nlevels; k++)
			if (h.lv[k].line != h.lv[0].line || h.lv[k].assoc > DC_USE_MAX_ASSOC ||
			    !dc_is_pow2(h.lv[k].size / ((uint64_t)h.lv[k].assoc * h.lv[k].line))) {
				err_msg("invalid --cache '%s': --cache-use needs one line size at"
					  " every level, at most %d ways and set counts that are"
					  " powers of two", r->cache, DC_USE_MAX_ASSOC);
				return -1;
			}
	} else {
		/* The engine picks the hierarchy; check against the most
		 * levels it may pick (two for Cachegrind's D1/LL). */
		dc_hier_typical(&h);
		h.nlevels = r->compat ? 2 : DC_MAX_LEVELS;
	}
	if (r->latency && dc_hier_parse_latency(&h, r->latency, err, sizeof err)) {
		err_msg("invalid --latency '%s': %s", r->latency, err);
		return -1;
	}
	level = r->sample ? sample_event_level(r->sample_event, h.nlevels) : 0;
	if (level > h.nlevels) {
		err_msg("invalid --sample '%s': %s is a miss at L%d but the hierarchy has %d"
			  " levels", r->sample, r->sample_event, level, h.nlevels);
		return -1;
	}
	return 0;
}

static int parse(struct record *r, int argc, char **argv)
{
	struct opt_iter it;
	int id;

	opt_iter_init(&it, argc, argv, true);
	while ((id = opt_next(&it, record_opts)) != OPT_DONE) {
		switch (id) {
		case OPT_ERROR:
			opt_report_error(&it, "record");
			return -1;
		case OPT_HELP:
			cmd_record_usage(stdout);
			return 1;
		case OPT_OUTPUT:
			r->output = it.arg;
			break;
		case OPT_QUIET:
			r->quiet = true;
			break;
		case OPT_KEEP_RAW:
			r->keep_raw = true;
			break;
		case OPT_FOLLOW_EXEC:
			if (it.arg && opt_parse_yesno(it.arg) < 0) {
				err_msg("invalid --follow-exec value '%s' (yes or no)", it.arg);
				return -1;
			}
			r->no_follow = it.arg && opt_parse_yesno(it.arg) == 0;
			break;
		case OPT_ENGINE:
			if (strcmp(it.arg, "simulator") && strcmp(it.arg, "native")) {
				err_msg("invalid --engine value '%s' (simulator or native)", it.arg);
				return -1;
			}
			r->native = !strcmp(it.arg, "native");
			break;
		case OPT_EVENT:
			r->nat.event = it.arg;
			break;
		case OPT_PERIOD: {
			uint64_t n;
			if (num_parse_u64(it.arg, 1ULL << 40, &n) || n == 0) {
				err_msg("invalid --period value '%s' (1 to 2^40)", it.arg);
				return -1;
			}
			r->nat.period = it.arg;
			break;
		}
		case OPT_LDLAT: {
			uint64_t n;
			if (num_parse_u64(it.arg, 65535, &n) || n == 0) {
				err_msg("invalid --ldlat value '%s' (1 to 65535 cycles)", it.arg);
				return -1;
			}
			r->nat.ldlat = (unsigned)n;
			break;
		}
		case OPT_REPLAY:
			r->nat.replay = it.arg;
			break;
		case OPT_TEST_NO_WATCHPOINTS:
			r->no_watchpoints = true;
			break;
		default:
			for (const struct opt_def *d = record_opts; d->id; d++)
				if (d->id == id && engine_option(r, id, d->long_name, it.arg))
					return -1;
		}
	}
	if (it.i >= argc) {
		err_msg("no program given; see 'dcprof help record'");
		return -1;
	}
	r->prog = argv + it.i;
	if (!r->native && (r->nat.event || r->nat.period || r->nat.replay || r->nat.ldlat)) {
		err_msg("%s needs --engine=native", r->nat.event ? "--event"
			: r->nat.period ? "--period" : r->nat.ldlat ? "--ldlat" : "--replay");
		return -1;
	}
	if (r->sample_log && !r->sample) {
		err_msg("--sample-log needs --sample");
		return -1;
	}
	if (r->seed_given && !r->sample && !r->reuse_sample) {
		err_msg("--sample-seed needs --sample or --reuse-sample");
		return -1;
	}
	if (r->ip_only && !r->sample) {
		err_msg("--sample-ip-only needs --sample=EVENT:N");
		return -1;
	}
	if (r->skid && !r->ip_only) {
		err_msg("--skid needs --sample-ip-only");
		return -1;
	}
	if (r->sample_log && r->ip_only) {
		err_msg("--sample-log cannot be combined with --sample-ip-only (IP-only samples"
			" have no data address to replay)");
		return -1;
	}
	if (r->reuse_sub && !r->reuse && !r->reuse_sample) {
		err_msg("%s needs --reuse or --reuse-sample", r->reuse_sub);
		return -1;
	}
	if (r->rdx_sub && !r->reuse_sample) {
		err_msg("%s needs --reuse-sample", r->rdx_sub);
		return -1;
	}
	if (r->use_gran && !r->cache_use) {
		err_msg("--cache-use-granularity needs --cache-use");
		return -1;
	}
	if (r->trace_sub && !r->trace_window) {
		err_msg("%s needs --trace-window", r->trace_sub);
		return -1;
	}
	if (r->trace_period && r->trace_period < 2 * r->trace_window) {
		err_msg("--trace-period %llu is less than twice --trace-window %llu",
			  (unsigned long long)r->trace_period, (unsigned long long)r->trace_window);
		return -1;
	}
	return check_hierarchy(r);
}

/* $DCPROF_LIB, else ../lib/dcprof next to this executable.  It holds no
 * preload object: the program runs, its own malloc included, exactly as
 * under Cachegrind (docs/engine.md). */
/* The directory of dcprof's engine files — $DCPROF_LIB, else
 * BINDIR/../lib/dcprof — into dir, made canonical so the program's
 * environment (VALGRIND_LIB, LD_PRELOAD) is free of "bin/..", as when
 * valgrind is run by hand; -1 with a message when FILE is not there with
 * access MODE. */
static int find_engine(struct sbuf *dir, const char *file, int mode)
{
	const char *env = getenv("DCPROF_LIB");
	char self[PATH_MAX];
	ssize_t n;

	sbuf_reset(dir);
	if (env && *env) {
		sbuf_adds(dir, env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n < 0) {
			err_msg("cannot find the dcprof engine: /proc/self/exe: %s; set DCPROF_LIB",
				  strerror(errno));
			return -1;
		}
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		sbuf_addf(dir, "%s/../lib/dcprof", self);
	}
	sbuf_addf(dir, "/%s", file);
	if (access(dir->buf, mode) < 0) {
		err_msg("cannot find the dcprof engine '%s': %s; set DCPROF_LIB to its directory",
			  dir->buf, strerror(errno));
		return -1;
	}
	dir->len -= strlen(file) + 1;
	dir->buf[dir->len] = '\0';
	if (realpath(dir->buf, self)) {
		sbuf_reset(dir);
		sbuf_adds(dir, self);
	}
	return 0;
}

static int find_programs(const struct record *r, struct sbuf *valgrind)
{
	const char *vg = getenv("DCPROF_VALGRIND");
	struct sbuf prog;
	int err;

	if (!vg || !*vg)
		vg = "valgrind";
	err = spawn_lookup(vg, valgrind);
	if (err) {
		err_msg("cannot find valgrind '%s': %s (install valgrind or set DCPROF_VALGRIND)",
			  vg, strerror(err));
		return -1;
	}
	sbuf_init(&prog);
	err = spawn_lookup(r->prog[0], &prog);
	if (!err && !r->quiet && debuginfo_unreadable_forms(prog.buf))
		err_note("hint: '%s' has DWARF 5 debug information in forms Valgrind 3.19"
			 " reads only in part (function, line and variable names may be"
			 " missing); build it with -gdwarf-4", r->prog[0]);
	if (err == ENOENT && !strchr(r->prog[0], '/'))
		err_msg("cannot find program '%s' in PATH", r->prog[0]);
	else if (err)
		err_msg("cannot run program '%s': %s", r->prog[0], strerror(err));
	else if (access(prog.buf, R_OK) < 0 && (err = errno))
		err_msg("cannot run program '%s' under Valgrind: %s (Valgrind must read"
			" the program)", r->prog[0], strerror(err));
	sbuf_release(&prog);
	return err ? -1 : 0;
}

/* What the run will write is checked before the program runs, so a run is
 * not thrown away for an output that could never be written. */
static int check_outputs(const struct record *r)
{
	char err[DC_ERRLEN];

	if (outfile_check(r->output ? r->output : "dcprof.PID.db", false, err, sizeof err)) {
		err_msg("cannot write profile%s", err + strlen("cannot write"));
		return -1;
	}
	if (r->sample_log && outfile_check(r->sample_log, true, err, sizeof err)) {
		err_msg("%s", err);
		return -1;
	}
	if (r->trace_out && outfile_check(r->trace_out, true, err, sizeof err)) {
		err_msg("%s", err);
		return -1;
	}
	return 0;
}

static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	struct sbuf f;

	if (!d)
		return;
	sbuf_init(&f);
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sbuf_reset(&f);
		sbuf_addf(&f, "%s/%s", path, e->d_name);
		unlink(f.buf);
	}
	closedir(d);
	sbuf_release(&f);
	rmdir(path);
}

/* The profile of one image: -o (or dcprof.PID.db) for the last image of
 * the program's own process; BASE.PID.db for the other processes' when
 * they ran one image; BASE.PID.N-PROGRAM.db for each image of a process
 * that exec'd (N its place in exec order, PROGRAM its file name); BASE
 * is OUTPUT without .db, or dcprof (docs/cli.md, "Profiles"). */
static void profile_name(const struct record *r, pid_t pid, bool is_main, unsigned image,
			 const char *program, struct sbuf *out)
{
	size_t n;

	sbuf_reset(out);
	if (is_main && r->output) {
		sbuf_adds(out, r->output);
		return;
	}
	if (!r->output) {
		sbuf_adds(out, "dcprof");
	} else {
		n = strlen(r->output);
		if (n > 3 && !strcmp(r->output + n - 3, ".db"))
			n -= 3;
		sbuf_add(out, r->output, n);
	}
	sbuf_addf(out, ".%d", (int)pid);
	if (image && !is_main) {
		const char *base = strrchr(program, '/') ? strrchr(program, '/') + 1 : program;

		sbuf_addf(out, ".%u-", image);
		if (!*base)
			base = "unknown";
		/* a name from the program is data: only harmless bytes in a
		 * file name, and not too many */
		for (size_t i = 0; base[i] && i < 64; i++) {
			char c = base[i];
			bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				     (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '+' ||
				     (c == '.' && i);
			sbuf_addc(out, plain ? c : '_');
		}
	}
	sbuf_adds(out, ".db");
}

/* OpenMP runtimes spin-wait for work unless told otherwise, and under the
 * engine threads run one at a time: a spinning thread holds the only CPU
 * (LULESH with 2 threads: 159 s instead of 2 s, 98 % of its reads in the
 * spin loop).  Unless the user chose a policy, the program runs with
 * OMP_WAIT_POLICY=passive; every profile says which (meta
 * omp_wait_policy). */
static void set_wait_policy(struct record *r)
{
	const char *v = getenv("OMP_WAIT_POLICY");

	if (v) {
		snprintf(r->omp_policy, sizeof r->omp_policy, "%.64s (set by the user)", v);
	} else {
		setenv("OMP_WAIT_POLICY", "passive", 1);
		snprintf(r->omp_policy, sizeof r->omp_policy, "passive (set by dcprof record)");
	}
	r->meta[0] = "omp_wait_policy";
	r->meta[1] = r->omp_policy;
	r->meta[2] = "host";
	r->meta[3] = r->host;
	r->meta[4] = r->rank[0] ? "rank" : NULL;
	r->meta[5] = r->rank;
	r->meta[6] = NULL;
}

/* The rank a launcher gave this process: Open MPI, PMIx, PMI (MPICH, Intel
 * MPI) or Slurm; "" when none did. */
static void find_rank(struct record *r)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					     "SLURM_PROCID" };
	uint64_t v;

	r->rank[0] = '\0';
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *s = getenv(vars[i]);
		if (s && !num_parse_u64(s, INT32_MAX, &v)) {
			snprintf(r->rank, sizeof r->rank, "%llu", (unsigned long long)v);
			return;
		}
	}
}

/* -o's %r (rank), %h (host name) and %% now; %p (the program's process
 * id) is left for expand_pid.  0, or -1 after saying why. */
static int expand_output(struct record *r)
{
	const char *o = r->output;

	find_rank(r);
	if (gethostname(r->host, sizeof r->host) < 0)
		snprintf(r->host, sizeof r->host, "unknown");
	r->host[sizeof r->host - 1] = '\0';
	if (!o || !strchr(o, '%'))
		return 0;
	for (; *o; o++) {
		if (*o != '%') {
			sbuf_addc(&r->out_name, *o);
			continue;
		}
		switch (*++o) {
		case 'r':
			if (!r->rank[0]) {
				err_msg("-o '%s' names the rank (%%r), but no launcher set one"
					" (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK or SLURM_PROCID)",
					r->output);
				return -1;
			}
			sbuf_adds(&r->out_name, r->rank);
			break;
		case 'h':
			sbuf_adds(&r->out_name, r->host);
			break;
		case 'p':
			sbuf_adds(&r->out_name, "%p");
			break;
		case '%':
			sbuf_adds(&r->out_name, "%%");
			break;
		default:
			err_msg("invalid -o '%s': %% is followed by r (rank), p (process id), h"
				" (host) or %%", r->output);
			return -1;
		}
	}
	r->output = r->out_name.buf;
	return 0;
}

/* -o's %p becomes pid, %% a %: the last step of expand_output. */
static void expand_pid(struct record *r, pid_t pid)
{
	struct sbuf e;

	if (!r->output || r->output != r->out_name.buf)
		return;
	sbuf_init(&e);
	for (const char *o = r->output; *o; o++) {
		if (o[0] == '%' && o[1] == 'p')
			sbuf_addf(&e, "%d", (int)pid), o++;
		else if (o[0] == '%' && o[1] == '%')
			sbuf_addc(&e, '%'), o++;
		else
			sbuf_addc(&e, *o);
	}
	sbuf_reset(&r->out_name);
	sbuf_add(&r->out_name, e.buf, e.len);
	sbuf_release(&e);
	r->output = r->out_name.buf;
}

/* Share of accesses above which spinning is worth a warning: a program's
 * own work is then hidden behind its runtime's waiting. */
#define SPIN_WARN 0.10

/* Passive OpenMP threads sleep: what libgomp still reads then is the
 * bookkeeping of its parallel regions and barriers, not spinning. */
static bool passive(void)
{
	const char *v = getenv("OMP_WAIT_POLICY");
	return v && !strcasecmp(v, "passive");
}

static bool is_openmp(const char *object)
{
	const char *base = strrchr(object, '/');

	base = base ? base + 1 : object;
	return !strncmp(base, "libgomp", 7) || !strncmp(base, "libomp", 6) ||
	       !strncmp(base, "libiomp", 7);
}

static void warn_spin(const char *path)
{
	struct profile p;
	struct sbuf obj;
	char err[DC_ERRLEN];
	double share;

	if (profile_open(&p, path, err, sizeof err))
		return;
	sbuf_init(&obj);
	if (spin_share(&p, &share, &obj, err, sizeof err) == 0 && share > SPIN_WARN &&
	    !(is_openmp(obj.buf) && passive())) {
		const char *base = strrchr(obj.buf, '/');
		err_note("warning: %.1f %% of the data accesses in %s were made by %s: threads"
			 " spin-waiting in the runtime, which under the engine run one at a time"
			 " (docs/engine.md, \"Threads\"); with OpenMP, leave OMP_WAIT_POLICY unset"
			 " or set it to passive", 100 * share, path, base ? base + 1 : obj.buf);
	}
	sbuf_release(&obj);
	profile_close(&p);
}

/* The --exit-status value that tells finalize how a process ended. */
static void exit_status_arg(const struct exit_info *ex, char *buf, size_t len)
{
	if (ex->how == EXIT_SIGNAL)
		snprintf(buf, len, " --exit-status=signal:%d", ex->value);
	else if (ex->how == EXIT_CODE)
		snprintf(buf, len, " --exit-status=exit:%d", ex->value);
	else
		buf[0] = '\0';
}

/* Finalizes every dump in tmpdir; returns 0 if the program's own profile
 * and every other one was written.  A process's dumps are its images in
 * exec order (store/rawdir.h); the program's profile is the last image of
 * its process that ran under the engine, and the program's exit status is
 * that image's unless it ended by exec.  *keep is set when a dump could not
 * be turned into its profile: the dumps are then kept, and the command that
 * finalizes each is printed. */
static int finalize_dumps(const struct record *r, const char *tmpdir, pid_t main_pid,
			  const struct exit_info *main_exit, bool *keep)
{
	struct exit_info unknown = { EXIT_UNKNOWN, 0 };
	struct sbuf raw, out, program;
	size_t n;
	struct rawdir_dump *dumps = rawdir_list(tmpdir, &n);
	bool main_seen = false;
	unsigned image = 0;
	int rc = 0;

	sbuf_init(&raw);
	sbuf_init(&out);
	sbuf_init(&program);
	for (size_t i = 0; i < n; i++) {
		const struct rawdir_dump *d = &dumps[i];
		bool first = i == 0 || dumps[i - 1].pid != d->pid;
		bool last = i + 1 == n || dumps[i + 1].pid != d->pid;
		bool is_main = d->pid == main_pid && last, checkpoint;
		struct raw_summary s;
		char err[DC_ERRLEN];

		/* images are numbered 1, 2, ... in a process that exec'd */
		image = d->image ? d->image : first && last ? 0 : image + 1;
		rawdir_pick(tmpdir, d, &raw, &checkpoint);
		if (!raw.len) {
			if (!is_main && !r->quiet)
				err_note("no profile for process %d: it was killed before its"
					 " raw dump was written", (int)d->pid);
			continue;
		}
		main_seen |= is_main;
		if (rawdir_head_meta(raw.buf, "program", &program))
			sbuf_reset(&program);
		profile_name(r, d->pid, is_main, image, program.buf, &out);
		const struct exit_info *ex = is_main && !d->image ? main_exit : &unknown;
		int fin = finalize_raw(raw.buf, out.buf, ex, r->meta, &s, err, sizeof err);

		if (fin == FINALIZE_EREAD) {
			err_msg("%s", err);
			rc = -1;
			continue;
		}
		if (fin == FINALIZE_EWRITE) {
			char status[48];

			err_msg("%s", err);
			exit_status_arg(ex, status, sizeof status);
			err_note("raw dump kept: write the profile with 'dcprof finalize %s%s -o %s'",
				 raw.buf, status, out.buf);
			*keep = true;
			rc = -1;
			continue;
		}
		if (r->quiet)
			continue;
		finalize_print_summary(out.buf, &s);
		warn_spin(out.buf);
		if (checkpoint)
			err_note("process %d left no dump of its own: %s holds the run up to its"
				 " checkpoint at %.1f s", (int)d->pid, out.buf,
				 (double)s.checkpoint_ms / 1000);
		if (is_main && d->image)
			err_note("process %d exec'd a program that ran without the engine: %s"
				 " holds the image before", (int)d->pid, out.buf);
	}
	if (!main_seen) {
		char how[64], sig[48];

		if (main_exit->how == EXIT_SIGNAL) {
			signal_describe(main_exit->value, sig, sizeof sig);
			snprintf(how, sizeof how, "killed by %s", sig);
		} else {
			snprintf(how, sizeof how, "exit status %d", main_exit->value);
		}
		err_msg("no profile written: the engine wrote no raw dump (program %s)", how);
		rc = -1;
	}
	free(dumps);
	sbuf_release(&raw);
	sbuf_release(&out);
	sbuf_release(&program);
	return rc;
}

static int make_tmpdir(struct sbuf *dir)
{
	const char *base = getenv("TMPDIR");

	if (!base || !*base)
		base = "/tmp";
	sbuf_reset(dir);
	sbuf_addf(dir, "%s/dcprof-XXXXXX", base);
	if (!mkdtemp(dir->buf)) {
		err_msg("cannot create a temporary directory in '%s': %s", base, strerror(errno));
		return -1;
	}
	return 0;
}

/* The progress line: while the program runs, once a second, on a
 * terminal only.  What the engine reports cheaply is the raw dumps it has
 * opened in tmpdir: one per process. */
struct progress {
	struct sbuf name;        /* the program's base name, escaped */
	const char *tmpdir;
	size_t shown;            /* columns of the line on the terminal, 0: none */
};

/* pg->name must be initialised. */
static void progress_init(struct progress *pg, const char *prog, const char *tmpdir)
{
	const char *slash = strrchr(prog, '/');
	const char *base = slash ? slash + 1 : prog;

	fmt_text(&pg->name, base, strnlen(base, 40));
	pg->tmpdir = tmpdir;
	pg->shown = 0;
}

static bool progress_wanted(void)
{
	pid_t fg = tcgetpgrp(STDERR_FILENO);

	/* Not when in the background of a shell's job control. */
	return isatty(STDERR_FILENO) && (fg < 0 || fg == getpgrp());
}

static void progress_write(struct progress *pg, const char *text, size_t len, size_t width)
{
	struct sbuf line;

	sbuf_init(&line);
	sbuf_addc(&line, '\r');
	sbuf_add(&line, text, len);
	/* Blank out what a longer line before left behind. */
	for (size_t w = width; w < pg->shown; w++)
		sbuf_addc(&line, ' ');
	if (width < pg->shown) {
		sbuf_addc(&line, '\r');
		sbuf_add(&line, text, len);
	}
	if (write(STDERR_FILENO, line.buf, line.len) < 0)
		width = 0;
	pg->shown = width;
	sbuf_release(&line);
}

static void progress_tick(void *arg, double seconds)
{
	struct progress *pg = arg;
	struct winsize ws;
	struct sbuf text;
	unsigned long s = (unsigned long)seconds;
	size_t nproc, cols = 80;
	struct rawdir_dump *dumps;

	if (!progress_wanted())
		return;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		cols = ws.ws_col;
	/* a dump per process image so far */
	dumps = rawdir_list(pg->tmpdir, &nproc);
	free(dumps);
	sbuf_init(&text);
	sbuf_addf(&text, "dcprof: running %s, ", pg->name.buf);
	if (s >= 3600)
		sbuf_addf(&text, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		sbuf_addf(&text, "%lu:%02lu", s / 60, s % 60);
	sbuf_adds(&text, " elapsed");
	if (nproc > 1)
		sbuf_addf(&text, ", %zu processes", nproc);
	/* One line, or \r cannot take it back: cut to the terminal's width
	 * (the text is ASCII but for the name, which counts as it shows). */
	if (text.len > cols - 1)
		text.len = cols - 1;
	progress_write(pg, text.buf, text.len, text.len);
	sbuf_release(&text);
}

/* Takes the line back before anything else is said. */
static void progress_clear(struct progress *pg)
{
	if (pg->shown)
		progress_write(pg, "", 0, 0);
}

/* valgrind -q --vgdb=no --trace-children=yes --trace-children-skip=VALGRIND
 * --tool=dcprof --dcprof-out=TMP/raw.%p ENGINE-OPTIONS -- PROGRAM ARGS */
static char **engine_argv(const struct record *r, const char *valgrind, const char *out_arg)
{
	size_t nprog = 0, k = 0;
	char **v;

	while (r->prog[nprog])
		nprog++;
	v = xcalloc(8 + (size_t)r->nengine + nprog + 1, sizeof *v);
	v[k++] = (char *)valgrind;
	v[k++] = "-q";
	/* No embedded gdbserver: its FIFOs would be left in /tmp whenever the
	 * program is killed. */
	v[k++] = "--vgdb=no";
	/* Every program the process tree execs runs under the engine too,
	 * but Valgrind's own programs cannot run under Valgrind. */
	if (r->no_follow) {
		v[k++] = "--trace-children=no";
	} else {
		v[k++] = "--trace-children=yes";
		v[k++] = "--trace-children-skip=" VALGRIND_PROGRAMS;
	}
	v[k++] = "--tool=dcprof";
	v[k++] = (char *)out_arg;
	for (int i = 0; i < r->nengine; i++)
		v[k++] = r->engine_args[i];
	v[k++] = "--";
	for (size_t i = 0; i < nprog; i++)
		v[k++] = r->prog[i];
	v[k] = NULL;
	return v;
}

/* --engine=native: the program itself, preloaded with the runtime. */
static int run_native(struct record *r, const char *tmpdir, pid_t *pid, int *status)
{
	struct sbuf so, prog, out;
	char **argv;
	size_t n = 0;
	int err, rc = -1;

	sbuf_init(&so);
	sbuf_init(&prog);
	sbuf_init(&out);
	if (find_engine(&so, NATIVE_SO, R_OK))
		goto out;
	sbuf_adds(&so, "/" NATIVE_SO);
	r->nat.so = so.buf;
	err = spawn_lookup(r->prog[0], &prog);
	if (err) {
		if (err == ENOENT && !strchr(r->prog[0], '/'))
			err_msg("cannot find program '%s' in PATH", r->prog[0]);
		else
			err_msg("cannot run program '%s': %s", r->prog[0], strerror(err));
		goto out;
	}
	if (native_setup(&r->nat, r->engine_args, r->nengine))
		goto out;
	while (r->prog[n])
		n++;
	argv = xcalloc(n + 1, sizeof *argv);
	argv[0] = prog.buf;
	for (size_t i = 1; i < n; i++)
		argv[i] = r->prog[i];
	sbuf_addf(&out, "%s/raw.%%p", tmpdir);
	err = spawn_wait(argv, "DCPROF_NATIVE_OUT", out.buf, NULL, pid, status);
	free(argv);
	if (err)
		err_msg("cannot run program '%s': %s", prog.buf, strerror(err));
	else
		rc = 0;
out:
	sbuf_release(&so);
	sbuf_release(&prog);
	sbuf_release(&out);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct record r = { 0 };
	struct sbuf tooldir, valgrind, tmpdir, out_arg;
	struct exit_info ex;
	struct progress pg = { .shown = 0 };
	struct spawn_tick tick = { progress_tick, &pg };
	char **vargv = NULL;
	pid_t pid;
	bool keep = false;
	int status, err, rc = DC_EXIT_ERROR;

	sbuf_init(&tooldir);
	sbuf_init(&valgrind);
	sbuf_init(&tmpdir);
	sbuf_init(&out_arg);
	sbuf_init(&r.out_name);
	sbuf_init(&r.nat.pmu);
	sbuf_init(&pg.name);
	err = parse(&r, argc, argv);
	if (err) {
		rc = err > 0 ? 0 : DC_EXIT_ERROR;
		goto out;
	}
	if (r.native) {
		if (native_check_reuse_event(&r.nat, r.reuse_sample_arg) ||
		    native_check_event(&r.nat) ||
		    native_check_reuse(r.reuse_sample_arg, r.no_watchpoints) ||
		    expand_output(&r) ||
		    check_outputs(&r) || make_tmpdir(&tmpdir))
			goto out;
		if (run_native(&r, tmpdir.buf, &pid, &status))
			goto out_tmp;
		goto ran;
	}
	if (expand_output(&r) || find_engine(&tooldir, TOOL_NAME, X_OK) || find_programs(&r, &valgrind) ||
	    check_outputs(&r) || make_tmpdir(&tmpdir))
		goto out;
	set_wait_policy(&r);
	sbuf_addf(&out_arg, "--dcprof-out=%s/raw.%%p", tmpdir.buf);
	vargv = engine_argv(&r, valgrind.buf, out_arg.buf);
	progress_init(&pg, r.prog[0], tmpdir.buf);
	err = spawn_wait(vargv, "VALGRIND_LIB", tooldir.buf,
			 r.quiet || !progress_wanted() ? NULL : &tick, &pid, &status);
	progress_clear(&pg);
	if (err) {
		err_msg("cannot run valgrind '%s': %s", valgrind.buf, strerror(err));
		goto out_tmp;
	}
ran:
	if (WIFSIGNALED(status)) {
		ex.how = EXIT_SIGNAL;
		ex.value = WTERMSIG(status);
	} else {
		ex.how = EXIT_CODE;
		ex.value = WEXITSTATUS(status);
	}
	expand_pid(&r, pid);
	/* A profile that could not be written leaves its dump to finalize
	 * later: the program ran, so its exit status is still the answer. */
	if (finalize_dumps(&r, tmpdir.buf, pid, &ex, &keep) == 0 || keep)
		rc = ex.how == EXIT_SIGNAL ? 128 + ex.value : ex.value;
out_tmp:
	if (r.keep_raw || keep) {
		err_note("raw dumps kept in %s", tmpdir.buf);
	} else {
		remove_dir(tmpdir.buf);
	}
out:
	for (int i = 0; i < r.nengine; i++)
		free(r.engine_args[i]);
	free(vargv);
	sbuf_release(&tooldir);
	sbuf_release(&valgrind);
	sbuf_release(&tmpdir);
	sbuf_release(&out_arg);
	sbuf_release(&r.out_name);
	sbuf_release(&r.nat.pmu);
	sbuf_release(&pg.name);
	return rc;
}
