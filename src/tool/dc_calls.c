/* dc_calls.c — --calls: shadow call stacks from the IR's jump kinds, and
 * inclusive costs of call arcs (model: core/callstack.h).
 *
 * Notes:
 *  - A superblock that ends in a call (Ijk_Call) gets a helper after its
 *    last statement with the call's address, the target and the stack
 *    pointer then (the return address pushed: the callee's entry SP); one
 *    that ends in a return (Ijk_Ret) a helper with the stack pointer after
 *    the return.  Stack pointers are compared to pop frames left by
 *    longjmp or unwinding (callstack.h).  A superblock that ends in a
 *    direct jump (Ijk_Boring to a constant) to the entry of another
 *    function is a tail call; indirect jumps (PLT stubs) are not followed.
 *  - Signal handlers: Valgrind's pre/post delivery events push and pop a
 *    signal root.
 *  - The counters are the thread's own accesses while collecting (Dr, Dw,
 *    misses, latency), so a call's inclusive cost is the growth of its
 *    thread's counters while it was active.
 *  - With --cache-use the back-dating tree is kept too: the helpers set the
 *    cache-use model's current node to the top frame's before each access,
 *    and the dump charges every resident line (dc_cacheuse_finish) before
 *    popping the frames, so every tree is pruned into its root's arc.
 *    Tree statistics (live nodes, sampled at each call) go to the meta.
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"

#include "tool/dc_tool.h"

struct call_site {
	Addr ip;
	UInt loc;
};

static void oom(int rc)
{
	if (rc)
		VG_(tool_panic)("out of memory for call tracking");
}

/* The thread's stack, made when it is first scheduled: its root covers
 * every access the thread makes, and lines it loads reference a node. */
static struct dc_thread *thread(ThreadId tid)
{
	static const struct dc_cost zero;
	struct dc_thread *th = &dc.threads[tid];

	if (!th->calls_ready) {
		oom(dc_callstack_init(&th->cs, &dc.calls, tid, &zero));
		th->calls_ready = True;
	}
	return th;
}

void dc_calls_thread_ready(ThreadId tid)
{
	thread(tid);
}

void dc_calls_start(void)
{
	oom(dc_calls_init(&dc.calls, &dc.env, dc.opt.cache_use));
	if (dc.opt.cache_use)
		dc.use.calls = &dc.calls;
}

static VG_REGPARM(3) void dc_call(struct call_site *site, Addr target, Addr sp)
{
	struct dc_thread *th = thread(dc.tid);

	if (site->loc == DC_NO_LOC)
		site->loc = dc_loc_get(site->ip);
	oom(dc_callstack_call(&dc.calls, &th->cs, site->loc, dc_loc_get(target), sp, &th->now));
}

static VG_REGPARM(3) void dc_tailcall(struct call_site *site, Addr target, Addr sp)
{
	struct dc_thread *th = thread(dc.tid);

	if (site->loc == DC_NO_LOC)
		site->loc = dc_loc_get(site->ip);
	oom(dc_callstack_tailcall(&dc.calls, &th->cs, site->loc, dc_loc_get(target), sp,
				  &th->now));
}

/* A direct jump from ip to the entry of another function. */
static Bool is_tail_call(const IRSB *in, Addr ip)
{
	DiEpoch ep = VG_(current_DiEpoch)();
	const HChar *name;
	HChar callee[256];
	Addr target;

	if (in->jumpkind != Ijk_Boring || in->next->tag != Iex_Const)
		return False;
	target = (Addr)in->next->Iex.Const.con->Ico.U64;
	if (!VG_(get_fnname_if_entry)(ep, target, &name))
		return False;
	VG_(strncpy)(callee, name, sizeof callee - 1);
	callee[sizeof callee - 1] = 0;
	return !VG_(get_fnname)(ep, ip, &name) || VG_(strcmp)(name, callee) != 0;
}

static VG_REGPARM(1) void dc_ret(Addr sp)
{
	struct dc_thread *th = thread(dc.tid);

	oom(dc_callstack_ret(&dc.calls, &th->cs, sp, &th->now));
}

void dc_calls_instrument(IRSB *out, IRSB *in, const VexGuestLayout *layout, Addr ip,
			 IRType gWordTy)
{
	IRTemp sp;
	IRDirty *di;
	Bool tail = is_tail_call(in, ip);

	if (in->jumpkind != Ijk_Call && in->jumpkind != Ijk_Ret && !tail)
		return;
	sp = newIRTemp(out->tyenv, gWordTy);
	addStmtToIRSB(out, IRStmt_WrTmp(sp, IRExpr_Get(layout->offset_SP, gWordTy)));
	if (in->jumpkind == Ijk_Call || tail) {
		struct call_site *site = VG_(malloc)("dc.calls.site", sizeof *site);
		site->ip = ip;
		site->loc = DC_NO_LOC;
		di = unsafeIRDirty_0_N(3, tail ? "dc_tailcall" : "dc_call",
				       VG_(fnptr_to_fnentry)(tail ? (void *)dc_tailcall
								  : (void *)dc_call),
				       mkIRExprVec_3(mkIRExpr_HWord((HWord)site), in->next,
						     IRExpr_RdTmp(sp)));
	} else {
		di = unsafeIRDirty_0_N(1, "dc_ret", VG_(fnptr_to_fnentry)(dc_ret),
				       mkIRExprVec_1(IRExpr_RdTmp(sp)));
	}
	addStmtToIRSB(out, IRStmt_Dirty(di));
}

void dc_calls_pre_signal(ThreadId tid, Int sigNo, Bool alt_stack)
{
	struct dc_thread *th = thread(tid);

	oom(dc_callstack_signal(&dc.calls, &th->cs, &th->now));
}

void dc_calls_post_signal(ThreadId tid, Int sigNo)
{
	struct dc_thread *th = thread(tid);

	oom(dc_callstack_signal_end(&dc.calls, &th->cs, &th->now));
}

void dc_calls_reset_child(void)
{
	dc_calls_zero(&dc.calls);
	for (ThreadId t = 1; t < VG_N_THREADS; t++) {
		VG_(memset)(&dc.threads[t].now, 0, sizeof dc.threads[t].now);
		if (dc.threads[t].calls_ready)
			dc_callstack_zero(&dc.threads[t].cs);
	}
}

static int arc_cb(void *ud, const struct dc_arc *a)
{
	if (a->count)
		dc_raw_call(ud, a, dc.hier.nlevels);
	return 0;
}

/* Ends every activation (the roots included), then writes the arcs. */
void dc_calls_dump(struct dc_rawout *o)
{
	HChar avg[32];

	for (ThreadId t = 1; t < VG_N_THREADS; t++)
		if (dc.threads[t].calls_ready)
			oom(dc_callstack_finish(&dc.calls, &dc.threads[t].cs, &dc.threads[t].now));
	dc_calls_each(&dc.calls, arc_cb, o);
	if (dc.calls.tree) {
		ULong n = dc.calls.node_samples ? dc.calls.node_samples : 1;
		dc_raw_meta_u64(o, "bdtree_nodes_max", dc.calls.max_nodes);
		VG_(snprintf)(avg, sizeof avg, "%llu.%02llu", dc.calls.node_sum / n,
			      dc.calls.node_sum % n * 100 / n);
		dc_raw_meta(o, "bdtree_nodes_avg", avg);
	}
}
