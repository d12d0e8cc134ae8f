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
 *    function is a tail call; other indirect jumps are not followed.
 *  - PLT stubs are skipped, as Callgrind does by default (--skip-plt=yes):
 *    a call (or tail call) into a PLT section pushes no frame but leaves
 *    the thread a pending call (site, stack pointer); the jump that ends a
 *    stub's superblock resolves it into a call of the jump's target from
 *    that site, unless the target is in a PLT section too (lazy binding:
 *    the stub goes on to the first PLT entry).  When the target is the
 *    dynamic linker's resolver (_dl_runtime_resolve*), the resolver gets
 *    the frame, and its closing indirect jump to the function it bound
 *    replaces that frame by one for the function (Callgrind's
 *    pop_on_jump), so every call is an arc to the real function and the
 *    binding an arc to the resolver.  The stubs' own data accesses (the
 *    GOT load) are charged to the pending call's site (dc_instrument.c),
 *    as Callgrind charges a skipped function's costs to its caller.
 *    A stub is code in a .plt section (Valgrind marks those) or, for
 *    .plt.got and .plt.sec (CET) stubs, code without a symbol that is one
 *    jump through a GOT slot.
 *  - Signal handlers: Valgrind's pre/post delivery events push and pop a
 *    signal root.
 *  - The counters are the thread's own accesses while collecting (Dr, Dw,
 *    misses, latency), so a call's inclusive cost is the growth of its
 *    thread's counters while it was active.
 *  - With --cache-use the back-dating tree is kept too: the cache-use
 *    model's current node is the running thread's top frame's, set after
 *    every change of that stack and at every thread switch (not read per
 *    access), and the dump charges every resident line (dc_cacheuse_finish) before
 *    popping the frames, so every tree is pruned into its root's arc.
 *    Tree statistics (live nodes, sampled at each call) go to the meta.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"

#include "engine/valgrind/dc_tool.h"

/* What a call or jump reaches. */
enum { T_UNKNOWN, T_FUNC, T_PLT, T_RESOLVER };

/* A call or jump; most have one target, so its kind is cached. */
struct call_site {
	Addr ip;
	UInt loc;
	Addr target;              /* the last target seen ... */
	UInt kind;                /* ... and its T_* kind */
};

#define RESOLVER "_dl_runtime_resolve"   /* and its _xsave, _fxsave, ... */

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

/* A stack changed: the cache-use model's loader node is the running
 * thread's top frame's, set here rather than read at every access (the
 * frame's line, untouched between calls, was a host miss per access). */
static void top_changed(const struct dc_thread *th)
{
	if (th == &dc.threads[dc.tid])
		dc.use.node = dc_callstack_node(&th->cs);
}

void dc_calls_thread_ready(ThreadId tid)
{
	top_changed(thread(tid));
}

void dc_calls_start(void)
{
	oom(dc_calls_init(&dc.calls, &dc.env, dc.opt.cache_use));
	if (dc.opt.cache_use)
		dc.use.calls = &dc.calls;
}

/* [endbr64] [bnd] jmp *disp32(%rip): the whole of a PLT stub's path. */
static Bool is_got_jump(Addr a)
{
	static const UChar endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	const UChar *p = (const UChar *)a;

	if (!VG_(am_is_valid_for_client)(a, 7, VKI_PROT_READ))
		return False;
	if (VG_(memcmp)(p, endbr64, sizeof endbr64) == 0)
		p += sizeof endbr64;
	if (p[0] == 0xf2)
		p++;
	return p[0] == 0xff && p[1] == 0x25;
}

/* Valgrind marks .plt sections; the stubs of .plt.got and .plt.sec (CET)
 * are known by their code: no symbol, one jump through a GOT slot. */
Bool dc_calls_in_plt(Addr ip)
{
	const HChar *name;

	if (VG_(DebugInfo_sect_kind)(NULL, ip) == Vg_SectPLT)
		return True;
	return is_got_jump(ip) && !VG_(get_fnname)(VG_(current_DiEpoch)(), ip, &name);
}

static Bool is_resolver(Addr ip)
{
	const HChar *name = dc_fn_name(ip);

	return VG_(strncmp)(name, RESOLVER, sizeof RESOLVER - 1) == 0;
}

static UInt kind_of(struct call_site *site, Addr target)
{
	if (site->kind == T_UNKNOWN || site->target != target) {
		site->target = target;
		site->kind = dc_calls_in_plt(target) ? T_PLT
			     : is_resolver(target)    ? T_RESOLVER : T_FUNC;
	}
	return site->kind;
}

static struct call_site *new_site(Addr ip)
{
	struct call_site *site = VG_(malloc)("dc.calls.site", sizeof *site);

	site->ip = ip;
	site->loc = DC_NO_LOC;
	site->target = 0;
	site->kind = T_UNKNOWN;
	return site;
}

/* A call or tail call from site to target; into a PLT stub, it waits for
 * the stub's jump (Notes). */
static void call(struct call_site *site, Addr target, Addr sp, Bool tail)
{
	struct dc_thread *th = thread(dc.tid);

	if (site->loc == DC_NO_LOC)
		site->loc = dc_loc_get(site->ip);
	if (kind_of(site, target) == T_PLT) {
		th->plt_pending = True;
		th->plt_tail = tail;
		th->plt_site = site->loc;
		th->plt_sp = sp;
		return;
	}
	oom((tail ? dc_callstack_tailcall : dc_callstack_call)(&dc.calls, &th->cs, site->loc,
								 dc_loc_get(target), sp,
								 &th->now));
	top_changed(th);
}

static VG_REGPARM(3) void dc_call(struct call_site *site, Addr target, Addr sp)
{
	call(site, target, sp, False);
}

static VG_REGPARM(3) void dc_tailcall(struct call_site *site, Addr target, Addr sp)
{
	call(site, target, sp, True);
}

/* The jump that ends a PLT stub's superblock. */
static VG_REGPARM(2) void dc_plt_jump(struct call_site *site, Addr target)
{
	struct dc_thread *th = thread(dc.tid);
	UInt kind;

	if (!th->plt_pending)
		return;
	kind = kind_of(site, target);
	if (kind == T_PLT)
		return;
	th->plt_pending = False;
	oom((th->plt_tail ? dc_callstack_tailcall : dc_callstack_call)(
		&dc.calls, &th->cs, th->plt_site, dc_loc_get(target), th->plt_sp, &th->now));
	top_changed(th);
	th->resolver_n = kind == T_RESOLVER ? th->cs.n : 0;
}

/* The resolver's indirect jump to the function it bound. */
static VG_REGPARM(1) void dc_resolver_jump(Addr target)
{
	struct dc_thread *th = thread(dc.tid);

	if (!th->resolver_n || th->resolver_n != th->cs.n)
		return;
	th->resolver_n = 0;
	oom(dc_callstack_jump(&dc.calls, &th->cs, dc_loc_get(target), &th->now));
	top_changed(th);
}

void dc_calls_plt_access(struct dc_ins *in)
{
	const struct dc_thread *th = &dc.threads[dc.tid];
	UInt loc = th->plt_pending ? th->plt_site : dc_loc_get(in->ip);

	/* A new location: the access resolves its cost record again. */
	if (loc != in->loc) {
		in->loc = loc;
		in->span = 0;
		in->cost = &dc.lost;
	}
}

/* A direct jump from ip to the entry of another function or to a PLT
 * stub. */
static Bool is_tail_call(const IRSB *in, Addr ip)
{
	DiEpoch ep = VG_(current_DiEpoch)();
	const HChar *name;
	HChar callee[256];
	Addr target;

	if (in->jumpkind != Ijk_Boring || in->next->tag != Iex_Const)
		return False;
	target = (Addr)in->next->Iex.Const.con->Ico.U64;
	if (dc_calls_in_plt(target))
		return True;
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
	top_changed(th);
}

void dc_calls_instrument(IRSB *out, IRSB *in, const VexGuestLayout *layout, Addr ip,
			 IRType gWordTy)
{
	IRTemp sp;
	IRDirty *di;
	Bool tail;

	if (dc_calls_in_plt(ip)) {
		if (in->jumpkind == Ijk_Boring) {
			di = unsafeIRDirty_0_N(2, "dc_plt_jump", VG_(fnptr_to_fnentry)(dc_plt_jump),
					       mkIRExprVec_2(mkIRExpr_HWord((HWord)new_site(ip)),
							     in->next));
			addStmtToIRSB(out, IRStmt_Dirty(di));
		}
		return;
	}
	if (in->jumpkind == Ijk_Boring && in->next->tag != Iex_Const && is_resolver(ip)) {
		di = unsafeIRDirty_0_N(1, "dc_resolver_jump", VG_(fnptr_to_fnentry)(dc_resolver_jump),
				       mkIRExprVec_1(in->next));
		addStmtToIRSB(out, IRStmt_Dirty(di));
		return;
	}
	tail = is_tail_call(in, ip);
	if (in->jumpkind != Ijk_Call && in->jumpkind != Ijk_Ret && !tail)
		return;
	sp = newIRTemp(out->tyenv, gWordTy);
	addStmtToIRSB(out, IRStmt_WrTmp(sp, IRExpr_Get(layout->offset_SP, gWordTy)));
	if (in->jumpkind == Ijk_Call || tail) {
		struct call_site *site = new_site(ip);
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
	top_changed(th);
}

void dc_calls_post_signal(ThreadId tid, Int sigNo)
{
	struct dc_thread *th = thread(tid);

	oom(dc_callstack_signal_end(&dc.calls, &th->cs, &th->now));
	top_changed(th);
}

void dc_calls_reset_child(void)
{
	dc_calls_zero(&dc.calls);
	for (ThreadId t = 1; t < VG_N_THREADS; t++) {
		VG_(memset)(&dc.threads[t].now, 0, sizeof dc.threads[t].now);
		if (dc.threads[t].calls_ready) {
			dc_callstack_zero(&dc.threads[t].cs);
			top_changed(&dc.threads[t]);
		}
	}
}

static int arc_cb(void *ud, const struct dc_arc *a)
{
	if (a->count)
		dc_raw_call(ud, a, dc.hier.nlevels, dc.use.evictions);
	return 0;
}

/* Ends every activation (the roots included), then writes the arcs. */
void dc_calls_dump(struct dc_rawout *o)
{
	HChar avg[32];

	for (ThreadId t = 1; t < VG_N_THREADS; t++) {
		if (dc.threads[t].calls_ready) {
			oom(dc_callstack_finish(&dc.calls, &dc.threads[t].cs, &dc.threads[t].now));
			top_changed(&dc.threads[t]);
		}
	}
	dc_calls_each(&dc.calls, arc_cb, o);
	if (dc.calls.tree) {
		ULong n = dc.calls.node_samples ? dc.calls.node_samples : 1;
		dc_raw_meta_u64(o, "bdtree_nodes_max", dc.calls.max_nodes);
		VG_(snprintf)(avg, sizeof avg, "%llu.%02llu", dc.calls.node_sum / n,
			      dc.calls.node_sum % n * 100 / n);
		dc_raw_meta(o, "bdtree_nodes_avg", avg);
	}
}
