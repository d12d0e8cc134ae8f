/* dc_smplog.c — --sample-log: every emulated sample written as a line of
 * the sample file `record --engine=native --replay` reads.
 *
 * Notes:
 *  - The format is core/smpfile.h's (docs/engine-native.md, "Replay");
 *    the kind line says pebs, the kind a file is replayed as can be
 *    changed by editing that line (tests do, for ibs and spe).
 *  - Addresses are written relative to the object of the sample's cost
 *    record, so that a native run of the same program, whose heap and
 *    stack lie elsewhere, finds the same objects: a heap block by its
 *    allocation sequence number (heap:SEQ+0xOFF), a global by its name
 *    (global:NAME+0xOFF), the thread's stack by the distance below its
 *    top (stack:+0xOFF).  A sample charged to any other bucket — the
 *    allocator's own accesses (<malloc>), mappings, thread-local copies,
 *    <unknown> — has no such object in a native run: "-".
 *  - IPs are written as FILE+0xOFF, OFF the address in the ELF file
 *    (the IP less the object's load bias), so the native run's own load
 *    addresses apply; absolute where Valgrind knows no object.
 *  - TIME is the allocation clock (dc.alloc_seq): the native replay feeds
 *    a sample between the same two allocation events.  WEIGHT is the
 *    sampling period, SOURCE the level that served the access.
 *  - The file belongs to the process that opened it: a forked child's and
 *    a checkpoint copy's samples are not logged.  An exec flushes it.
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"

#include "engine/valgrind/dc_tool.h"

static Int log_fd = -1;
static HChar buf[1 << 16];
static SizeT used;

void dc_smplog_open(void)
{
	HChar *path;

	if (!dc.opt.sample_log)
		return;
	path = VG_(expand_file_name)("--sample-log", dc.opt.sample_log);
	log_fd = dc_port_create(path, 0644);
	if (log_fd < 0) {
		VG_(fmsg)("dcprof: cannot create sample log '%s'\n", path);
		VG_(exit)(2);
	}
	VG_(free)(path);
	used = (SizeT)VG_(sprintf)(buf, "dcprof-samples pebs %s\n", dc.sample_name);
}

void dc_smplog_flush(void)
{
	if (log_fd >= 0 && used)
		VG_(write)(log_fd, buf, (Int)used);
	used = 0;
}

void dc_smplog_close(void)
{
	dc_smplog_flush();
	if (log_fd >= 0)
		VG_(close)(log_fd);
	log_fd = -1;
}

void dc_smplog_detach(void)
{
	log_fd = -1;
	used = 0;
}

/* A name with blanks, '%', '+' and bytes outside printable ASCII escaped. */
static void put_name(const HChar *s)
{
	for (; *s && used < sizeof buf - 4; s++) {
		UChar c = (UChar)*s;
		if (c <= ' ' || c >= 0x7f || c == '%' || c == '+')
			used += (SizeT)VG_(sprintf)(buf + used, "%%%02X", c);
		else
			buf[used++] = (HChar)c;
	}
}

static void put_ip(Addr ip)
{
	DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), ip);
	const HChar *f = di ? VG_(DebugInfo_get_filename)(di) : NULL;
	const HChar *base = f ? VG_(strrchr)(f, '/') : NULL;

	if (!f) {
		used += (SizeT)VG_(sprintf)(buf + used, "0x%lx", ip);
		return;
	}
	put_name(base ? base + 1 : f);
	used += (SizeT)VG_(sprintf)(buf + used, "+0x%lx",
				    ip - (Addr)VG_(DebugInfo_get_text_bias)(di));
}

static void put_addr(const struct dc_cost *c, Addr a)
{
	const struct dc_thread *th = &dc.threads[dc.tid];
	const struct dc_bucket *b = dc_bucket_at(c->bucket);
	struct dc_obj *o;

	if (b->kind == DC_K_STACK && a >= th->stack_lo && a < th->stack_hi &&
	    !VG_(strcmp)(b->name, "<stack>")) {
		used += (SizeT)VG_(sprintf)(buf + used, "stack:+0x%lx", th->stack_hi - a);
		return;
	}
	o = dc_objmap_find(&dc.objs, a);
	if (o && o->bucket == c->bucket && o->kind == DC_K_HEAP) {
		used += (SizeT)VG_(sprintf)(buf + used, "heap:%llu+0x%llx",
					    (ULong)o->alloc_seq, (ULong)(a - o->lo));
		return;
	}
	if (o && o->bucket == c->bucket && o->kind == DC_K_GLOBAL) {
		VG_(strcpy)(buf + used, "global:");
		used += 7;
		put_name(b->name);
		used += (SizeT)VG_(sprintf)(buf + used, "+0x%llx", (ULong)(a - o->lo));
		return;
	}
	buf[used++] = '-';
}

void dc_smplog_write(const struct dc_ins *in, const struct dc_cost *c, Addr a, int served,
		     ULong weight)
{
	if (log_fd < 0)
		return;
	dc_objs_settle();   /* the map and the clock (dc.alloc_seq) as without batches */
	if (used > sizeof buf - 1024)
		dc_smplog_flush();
	put_addr(c, a);
	buf[used++] = ' ';
	put_ip(in->ip);
	if (served <= dc.hier.nlevels)
		used += (SizeT)VG_(sprintf)(buf + used, " %llu %c L%d %u %llu\n", weight,
					    in->is_write ? 'w' : 'r', served, (UInt)dc.tid,
					    dc.alloc_seq);
	else
		used += (SizeT)VG_(sprintf)(buf + used, " %llu %c MEM %u %llu\n", weight,
					    in->is_write ? 'w' : 'r', (UInt)dc.tid, dc.alloc_seq);
}
