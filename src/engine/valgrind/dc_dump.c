/* dc_dump.c — writing the raw dump (format: docs/raw-dump.md).
 *
 * The header, configuration and meta go out when the run starts; block
 * records are streamed as blocks are freed; buckets, locations, costs and
 * the blocks still live go out at exit.  Keeping only live blocks in memory
 * bounds the engine's memory whatever the program allocates.
 */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_xarray.h"

#include "engine/valgrind/dc_tool.h"

static void write_command(struct dc_rawout *o)
{
	HChar *cmd;
	SizeT len = VG_(strlen)(VG_(args_the_exename)) + 1, pos;
	Word n = VG_(sizeXA)(VG_(args_for_client));

	for (Word i = 0; i < n; i++)
		len += VG_(strlen)(*(HChar **)VG_(indexXA)(VG_(args_for_client), i)) + 1;
	cmd = VG_(malloc)("dc.dump.cmd", len);
	VG_(strcpy)(cmd, VG_(args_the_exename));
	pos = VG_(strlen)(cmd);
	for (Word i = 0; i < n; i++) {
		const HChar *a = *(HChar **)VG_(indexXA)(VG_(args_for_client), i);
		cmd[pos++] = ' ';
		VG_(strcpy)(cmd + pos, a);
		pos += VG_(strlen)(a);
	}
	dc_raw_meta(o, "program", VG_(args_the_exename));
	dc_raw_meta(o, "command", cmd);
	VG_(free)(cmd);
}

/* "static" or "dynamic" for an ELF program (static: no PT_INTERP, so no
 * dynamic linker loads the malloc-replacement preload), NULL for another
 * file (a script runs its interpreter) or one that cannot be read. */
static const HChar *exe_linkage(void)
{
	SysRes sr = VG_(open)(VG_(args_the_exename), VKI_O_RDONLY, 0);
	UChar eh[64], ph[56];
	const HChar *kind = NULL;
	ULong phoff;
	UInt phentsize, phnum;
	Int fd;

	if (sr_isError(sr))
		return NULL;
	fd = (Int)sr_Res(sr);
	/* ELF64 header: e_phoff at 32, e_phentsize at 54, e_phnum at 56 */
	if (VG_(read)(fd, eh, sizeof eh) != (Int)sizeof eh || VG_(memcmp)(eh, "\177ELF", 4) ||
	    eh[4] != 2)
		goto out;
	VG_(memcpy)(&phoff, eh + 32, 8);
	phentsize = eh[54] | (UInt)eh[55] << 8;
	phnum = eh[56] | (UInt)eh[57] << 8;
	if (phentsize < sizeof ph)
		goto out;
	kind = "static";
	for (UInt i = 0; i < phnum; i++) {
		UInt type;

		if (VG_(lseek)(fd, (Off64T)(phoff + (ULong)i * phentsize), VKI_SEEK_SET) < 0 ||
		    VG_(read)(fd, ph, sizeof ph) != (Int)sizeof ph) {
			kind = NULL;
			break;
		}
		VG_(memcpy)(&type, ph, 4);
		if (type == 3) {  /* PT_INTERP */
			kind = "dynamic";
			break;
		}
	}
out:
	VG_(close)(fd);
	return kind;
}

static void write_header(void)
{
	struct dc_rawout *o = dc.raw;
	const HChar *linkage = exe_linkage();
	HChar buf[64];

	dc_raw_header(o);
	write_command(o);
	dc_raw_meta_u64(o, "pid", (ULong)VG_(getpid)());
	if (linkage)
		dc_raw_meta(o, "linkage", linkage);
	dc_raw_meta(o, "cache_source", dc.cache_source);
	dc_raw_meta(o, "cache_reason", dc.cache_reason);
	if (dc.opt.heap_site)
		dc_raw_meta(o, "heap_names", "site");
	else {
		VG_(snprintf)(buf, sizeof buf, "fn:%d", dc.opt.heap_depth);
		dc_raw_meta(o, "heap_names", buf);
	}
	/* The --alloc-fn names, comma-separated, as the native engine writes
	 * them: dcprof approx treats them as allocation functions. */
	if (dc.opt.n_alloc_fns > 0) {
		HChar fns[512];
		SizeT len = 0;

		fns[0] = 0;
		for (Int i = 0; i < dc.opt.n_alloc_fns; i++) {
			SizeT n = VG_(strlen)(dc.opt.alloc_fns[i]);

			if (len + n + 2 > sizeof fns)
				break;
			if (len)
				fns[len++] = ',';
			VG_(memcpy)(fns + len, dc.opt.alloc_fns[i], n);
			len += n;
			fns[len] = 0;
		}
		dc_raw_meta(o, "alloc_fns", fns);
	}
	dc_raw_meta(o, "stack_frames", dc.opt.stack_frames ? "yes" : "no");
	dc_raw_meta(o, "collect_atstart", dc.opt.collect_atstart ? "yes" : "no");
	dc_raw_meta(o, "cache_use", dc.opt.cache_use ? "yes" : "no");
	dc_raw_meta(o, "calls", dc.opt.calls ? "yes" : "no");
	if (dc.opt.cache_use)
		dc_raw_meta(o, "cache_use_granularity",
			    dc.opt.cache_use_bits == DC_USE_EXACT ? "exact" : "callgrind");
	dc_level_format(&dc.i1, buf, sizeof buf);
	dc_raw_meta(o, "I1", buf);
	dc_raw_hier(o, &dc.hier);
}

static void open_file(void)
{
	HChar *path = VG_(expand_file_name)("--dcprof-out", dc.opt.out);

	dc.raw_fd = dc_port_create(path, 0600);
	if (dc.raw_fd < 0) {
		VG_(fmsg)("dcprof: cannot create raw dump '%s'\n", path);
		VG_(exit)(2);
	}
	if (dc.raw_path)
		VG_(free)(dc.raw_path);
	dc.raw_path = path;
	dc_rawout_init(dc.raw, dc_fd_sink(&dc.raw_fd));
	write_header();
}

void dc_dump_open(void)
{
	dc.raw = VG_(malloc)("dc.dump.raw", sizeof *dc.raw);
	open_file();
	dc_ckpt_start();
}

/* A forked child writes its own dump and starts counting from zero; what
 * the parent buffered is the parent's to write. */
void dc_dump_reopen_child(void)
{
	VG_(close)(dc.raw_fd);
	open_file();
	dc_ckpt_reset_child();
	dc_costtab_zero(&dc.costs);
	dc_track_reset_child();
	if (dc.opt.calls)
		dc_calls_reset_child();
	dc_trace_reset_child();
	dc_smplog_detach();
	VG_(memset)(&dc.lost, 0, sizeof dc.lost);
	dc.ir = 0;
	dc.ir_mark = dc.ir_all;
	dc.block_records = 0;
	dc.block_records_dropped = 0;
}

static void live_block(void *ud, struct dc_obj *o)
{
	if (o->kind == DC_K_HEAP || o->kind == DC_K_USER)
		dc_heap_block_done(o, 0);
}

/* A record can hold only cache-use charges (a forked child's lines loaded
 * by the parent); the use records need its cost record. */
static int cost_cb(void *ud, const struct dc_cost *c)
{
	Bool used = False;

	for (Int k = 0; k < dc.hier.nlevels; k++)
		used |= c->sploss[k] || c->accost[k] || c->evicted[k];
	if (c->acc[0] || c->acc[1] || used)
		dc_raw_cost(dc.raw, c, dc.hier.nlevels);
	if (used)
		dc_raw_use(dc.raw, c, dc.hier.nlevels, dc.use.evictions);
	return 0;
}

/* Everything after the records streamed during the run; the dump is
 * flushed and closed.  Returns 0 or the first write error. */
int dc_dump_write_tail(Bool complete)
{
	struct dc_rawout *o = dc.raw;
	int err;

	dc_objs_settle();
	dc_objmap_each(&dc.objs, live_block, NULL);
	dc_names_dump(o);
	if (dc.opt.cache_use)
		dc_cacheuse_finish(&dc.use);
	if (dc.opt.calls)
		dc_calls_dump(o);
	dc_costtab_each(&dc.costs, cost_cb, NULL);
	dc_track_dump(o);
	dc_trace_dump(o);
	dc_raw_meta_u64(o, "block_records_dropped", dc.block_records_dropped);
	dc_raw_meta_u64(o, "checkpoints", dc_ckpt_taken());
	dc_raw_meta_u64(o, "Ir", dc_ir_collected());
	if (dc.exited)
		dc_raw_meta_u64(o, "exit_code", (ULong)(UChar)dc.exit_code);
	dc_raw_end(o, complete);
	err = dc_rawout_finish(o);
	VG_(close)(dc.raw_fd);
	return err;
}

void dc_dump_finish(Bool complete, Int exitcode)
{
	if (!dc.raw)
		return;
	dc_ckpt_stop();
	dc_smplog_close();
	if (dc_dump_write_tail(complete))
		VG_(umsg)("dcprof: writing the raw dump failed\n");
	else
		dc_ckpt_discard();
	if (dc.lost.acc[0] || dc.lost.acc[1])
		VG_(umsg)("dcprof: out of memory for cost records; %llu accesses not attributed\n",
			  (ULong)(dc.lost.acc[0] + dc.lost.acc[1]));
	dc.raw = NULL;
}
