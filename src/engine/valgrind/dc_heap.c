/* dc_heap.c — heap blocks: the program's allocator observed, bucket
 * naming, statistics.
 *
 * Notes:
 *  - The program's own allocator runs (glibc's, jemalloc, a malloc of its
 *    own): nothing is replaced or preloaded, so the program runs as under
 *    Cachegrind, with its heap's layout and its allocator's memory traffic.
 *  - Allocation functions are recognised by name at their first
 *    instruction, in any object (dc_heap_fn_at: malloc, calloc, realloc,
 *    reallocarray, memalign, aligned_alloc, posix_memalign, valloc,
 *    pvalloc, free, C++'s operator new/new[]/delete/delete[] in every
 *    form).  The instrumentation calls dc_heap_enter there with the
 *    arguments, and checks every return inline against the return address
 *    saved at the entry (dc_alloc_ret); dc_heap_return then records the
 *    block.  Only the outermost call of a thread is observed.
 *  - Every access the program makes while the thread is inside the
 *    observed call — the allocator's bookkeeping, calloc's zeroing,
 *    realloc's copy, its stack — counts for the bucket <malloc>
 *    (dc_instrument.c: the cost records are keyed by dc.akey).  The brk
 *    heap and memory the allocator maps are <malloc> regions: chunk
 *    headers and free memory that no block covers.
 *  - Every block from those functions becomes an object in the map, at
 *    its address with the size asked for (calloc: n x size); a zero-byte
 *    block occupies one byte of address space for lookup.  A block is
 *    removed when free (or delete) is entered with it, or when its memory
 *    is unmapped.  Freeing something that is not a live block does nothing.
 *  - A block's bucket is named at the allocator's entry, from the stack as
 *    it is then, by the rule core/heapname.h holds for both engines
 *    (docs/engine.md, "Heap bucket names"; Cache Scope's rule,
 *    seeds/002 §4.3.1): the call path with
 *    inlined functions as frames, less the allocator's frames, --alloc-fn
 *    wrappers (inlined ones too) and the library frames above them; then
 *    N frames (--heap-names=fn:N, default 3) joined by " < ", never below
 *    main, the first with the file and line of its call,
 *    "mem_init (equake.c:41) < main".  With --heap-names=site every frame
 *    of the path carries its file and line (the eviction tool's rule,
 *    §5.2 and Table 11).
 *  - realloc frees the old block and records the new one in the same
 *    bucket when it returns; both count in the statistics.  A failed
 *    realloc keeps the old block; realloc(p, 0) returning NULL frees it.
 *  - DCPROF_NAME_NEXT_ALLOC puts the thread's next block into a user bucket.
 *    DCPROF_NAME_BLOCK moves a live block (or a global with exactly that
 *    range) to a user bucket; the block leaves its old bucket's counts
 *    (blocks, bytes), though not its min/max size.  Otherwise it adds a user
 *    object when the range overlaps nothing.
 *  - Names are cached per call stack (the return addresses), since
 *    resolving function names is far slower than unwinding.
 *  - A call path ends at the first return address that is not in the
 *    program's executable memory (unwind_end).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_tooliface.h"

#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

#define MAX_CHAIN 32

/* ---- naming ---------------------------------------------------------- */

/* The call chain of an allocation with inlined calls as frames of their
 * own, innermost first.  Filled only when a new call stack is named. */
#define MAX_LFRAMES 64
static struct dc_iframe iframes[MAX_LFRAMES];
static struct dc_hframe lframes[MAX_LFRAMES];

/* The frames of ips[0..n), inlined functions expanded; returns how many.
 * Valgrind's unwinder gives ips[1..n) as return address - 1 already: the
 * call instruction, whose line is the call's. */
static UInt chain_frames(const Addr *ips, UInt n)
{
	UInt m = 0;
	static struct dc_iframe fr[16];   /* 80 KB: off the tool's stack */
	DiEpoch ep = VG_(current_DiEpoch)();

	for (UInt i = 0; i < n && m < MAX_LFRAMES; i++) {
		UInt k = dc_inline_frames(ips[i], fr, 16, NULL);
		const HChar *obj;

		if (!VG_(get_objname)(ep, ips[i], &obj))
			obj = "";
		for (UInt j = 0; j < k && m < MAX_LFRAMES; j++, m++) {
			iframes[m] = fr[j];
			lframes[m].fn = iframes[m].fn;
			lframes[m].file = iframes[m].file;
			lframes[m].line = iframes[m].line;
			lframes[m].obj = obj;
			lframes[m].ip = ips[i];
		}
	}
	return m;
}

/* How many of ips[0..n) are real frames.  Valgrind's unwinder does not
 * stop at ld.so's entry point, which has no unwind information saying
 * it is the outermost frame: below it, it takes the argument count and
 * argv's pointers on the stack for return addresses.  Blocks that
 * libraries' constructors allocate (run by ld.so before main) were named
 * "0x4 < 0x1fff00021a < 0x1fff000226" (LULESH, Open MPI) — a name that
 * changes with the program's arguments, so the ranks of one job got
 * different buckets.  A return address is in executable memory of the
 * program; the path ends at the first one that is not. */
static UInt unwind_end(const Addr *ips, UInt n)
{
	for (UInt i = 1; i < n; i++) {
		NSegment const *s = VG_(am_find_nsegment)(ips[i]);

		if (!s || !s->hasX ||
		    (s->kind != SkFileC && s->kind != SkAnonC && s->kind != SkShmC))
			return i;
	}
	return n;
}

void dc_chain_at(ThreadId tid, Int depth, Bool site, HChar *buf, SizeT len)
{
	Addr ips[MAX_CHAIN];
	UInt n = VG_(get_StackTrace)(tid, ips, MAX_CHAIN, NULL, NULL, 0);

	n = unwind_end(ips, n);

	dc_chain_name(lframes, chain_frames(ips, n), depth, site, dc_is_mmap_fn, buf, len);
}

/* A heap bucket's name (docs/engine.md, "Data objects and buckets"): the
 * rule both engines share, core/heapname.h. */
static void heap_name(const Addr *ips, UInt n, Int depth, Bool site, HChar *buf, SizeT len)
{
	struct dc_heapname_opts o = {
		.depth = depth, .site = site, .alloc_fns = dc.opt.alloc_fns,
		.n_alloc_fns = (size_t)dc.opt.n_alloc_fns,
	};

	dc_heap_name(lframes, chain_frames(ips, n), &o, buf, len);
}

/* Cache: call stack → bucket. */
struct site {
	UInt nips;
	UInt bucket;
	Addr ips[MAX_CHAIN];
};
static struct site **sites;
static UWord site_cap, nsites;

static ULong ips_hash(const Addr *ips, UInt n)
{
	ULong h = n;
	for (UInt i = 0; i < n; i++)
		h = dc_hash64(h ^ ips[i]);
	return h;
}

static struct site **site_slot(struct site **tab, UWord cap, const Addr *ips, UInt n)
{
	UWord i = ips_hash(ips, n) & (cap - 1);

	while (tab[i] && !(tab[i]->nips == n &&
			   VG_(memcmp)(tab[i]->ips, ips, n * sizeof *ips) == 0))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static void site_grow(void)
{
	UWord cap = site_cap ? 2 * site_cap : 1024;
	struct site **tab = VG_(calloc)("dc.heap.sites", cap, sizeof *tab);

	for (UWord i = 0; i < site_cap; i++)
		if (sites[i])
			*site_slot(tab, cap, sites[i]->ips, sites[i]->nips) = sites[i];
	VG_(free)(sites);
	sites = tab;
	site_cap = cap;
}

static UInt heap_bucket(ThreadId tid)
{
	struct dc_thread *th = &dc.threads[tid];
	Addr ips[MAX_CHAIN];
	UInt n, want;
	struct site **slot, *s;
	static HChar name[DC_HEAP_NAME_MAX];

	if (th->pending_name) {
		UInt b = dc_bucket_get(th->pending_name, DC_K_USER);
		VG_(free)(th->pending_name);
		th->pending_name = NULL;
		return b;
	}
	/* Enough frames to get past allocator wrappers and name N functions. */
	want = dc.opt.heap_site ? MAX_CHAIN : (UInt)dc.opt.heap_depth + 8;
	if (want > MAX_CHAIN)
		want = MAX_CHAIN;
	/* The cache is keyed by the stack as unwound: the frames past
	 * unwind_end's cut are the same for the same stack in one run, and
	 * the cut (a segment look-up per frame) is made once per site. */
	n = VG_(get_StackTrace)(tid, ips, want, NULL, NULL, 0);
	if ((nsites + 1) * 2 > site_cap)
		site_grow();
	slot = site_slot(sites, site_cap, ips, n);
	if (*slot)
		return (*slot)->bucket;
	heap_name(ips, unwind_end(ips, n), dc.opt.heap_site ? MAX_LFRAMES : dc.opt.heap_depth,
		  dc.opt.heap_site, name, sizeof name);
	s = VG_(malloc)("dc.heap.site", sizeof *s);
	s->nips = n;
	VG_(memcpy)(s->ips, ips, n * sizeof *ips);
	s->bucket = dc_bucket_get(name, DC_K_HEAP);
	*slot = s;
	nsites++;
	return s->bucket;
}

static ULong obj_size(const struct dc_obj *o)
{
	return o->kind == DC_K_HEAP || o->kind == DC_K_USER ? o->alloc_size : o->hi - o->lo;
}

/* Block [lo, lo + size) of bucket, allocated as event alloc_seq, ends
 * with event free_seq: its record, while blocks are recorded one by one. */
static void block_record(UInt bucket, Addr lo, ULong size, ULong alloc_seq, ULong free_seq)
{
	if (!dc.raw)
		return;
	if (dc.block_records < (ULong)dc.opt.max_block_records) {
		dc_raw_block(dc.raw, bucket, lo, size, alloc_seq, free_seq);
		dc.block_records++;
	} else {
		dc.block_records_dropped++;
	}
}

void dc_heap_block_done(struct dc_obj *o, ULong free_seq)
{
	block_record(o->bucket, o->lo, obj_size(o), o->alloc_seq, free_seq);
}

/* ---- blocks ---------------------------------------------------------- */

/* An object in the way of a new block: a block whose free was not seen,
 * or a global the program's own allocator carves blocks from. */
static void forget_stale(void *ud, struct dc_obj *o)
{
	if (o->kind == DC_K_HEAP || o->kind == DC_K_USER) {
		dc_heap_block_done(o, ++dc.alloc_seq);
		dc_bucket_drop_block(o->bucket, o->alloc_size);
	}
}

static void add_block(Addr p, ULong size, UInt bucket)
{
	struct dc_obj *o;

	dc_objs_settle();   /* the frees before it take their sequence numbers first */
	o = dc_objmap_new(&dc.objs);

	tl_assert(o);
	o->lo = p;
	o->hi = p + (size ? size : 1);
	o->alloc_size = size;
	o->bucket = bucket;
	o->kind = dc_bucket_at(bucket)->kind == DC_K_USER ? DC_K_USER : DC_K_HEAP;
	o->alloc_seq = ++dc.alloc_seq;
	o->flags = 0;
	if (dc_objs_insert(o)) {
		dc_objmap_remove_in(&dc.objs, o->lo, o->hi, forget_stale, NULL);
		dc_objs_changed();
		if (dc_objs_insert(o)) {
			dc_objmap_discard(&dc.objs, o);
			return;
		}
	}
	dc_bucket_add_block(bucket, size);
}

/* The heap or user block starting at p: its entry in the map (not its
 * record: see free_block). */
static Bool block_at(Addr p, struct dc_objmap_ent *e)
{
	unsigned kind;

	return p && dc_objmap_lookup_start(&dc.objs, p, e, &kind) &&
	       (kind == DC_K_HEAP || kind == DC_K_USER);
}

/* ---- frees, in batches ------------------------------------------------ */

/* A free leaves the map when the batch it joined settles (dc_heap_settle):
 * when the batch is full, or before anything else reads or changes the
 * map but a miss's lookup (dc_objs_settle at each of those places).  The
 * batch is settled in address order (a radix sort), so frees in a random
 * order over many blocks (tearing down a list or a tree) find their
 * pages and entries in the host's cache instead of missing them three
 * times each; while blocks are still recorded one by one, the records and
 * statistics are then written in the order of the frees, with the
 * sequence numbers they would have had one by one, and a batch holds
 * RECORD_BATCH frees at most.  Until it settles a freed block is still
 * found by a miss on its memory: only a use after free sees the
 * difference. */
#define FREE_BATCH (1u << 18)
#define RECORD_BATCH (1u << 16)
#define SORT_MIN 64u    /* fewer frees are settled in their order */

struct freed {
	UInt bucket;    /* ~0u: not a live block */
	Addr lo;
	ULong size, alloc_seq;
};

UInt dc_frees_pending;
static UInt free_cap = RECORD_BATCH;
static Addr pend[FREE_BATCH];
static Addr sortbuf[2][FREE_BATCH];
static struct freed done[RECORD_BATCH];

/* a[0..n) sorted, stably, by bits [shift, shift + 48) of each value, eight
 * bits a pass; tmp has room for n. */
static void sort_bits(Addr *a, Addr *tmp, UInt n, UInt shift)
{
	UInt count[256];

	for (UInt pass = 0; pass < 6; pass++, shift += 8) {
		Addr *t = a;
		VG_(memset)(count, 0, sizeof count);
		for (UInt k = 0; k < n; k++)
			count[(a[k] >> shift) & 255]++;
		for (UInt d = 0, sum = 0; d < 256; d++) {
			UInt c = count[d];
			count[d] = sum;
			sum += c;
		}
		for (UInt k = 0; k < n; k++)
			tmp[count[(a[k] >> shift) & 255]++] = a[k];
		a = tmp;
		tmp = t;
	}
}

/* The block starting at p leaves the map; *f says what it was.  Its
 * record is read (alloc_seq) only when asked: otherwise the map's entry
 * has its bounds, bucket and kind, and a block's size is hi - lo but for
 * size 0 (hi - lo = 1: the record says which).  False: no live block. */
static Bool take_block(Addr p, struct freed *f, Bool seq)
{
	struct dc_objmap_ent e;

	if (!block_at(p, &e))
		return False;
	f->bucket = e.bucket;
	f->lo = e.lo;
	f->size = e.hi - e.lo == 1 ? e.o->alloc_size : e.hi - e.lo;
	f->alloc_seq = seq ? e.o->alloc_seq : 0;
	dc_objmap_remove_ent(&dc.objs, &e);
	return True;
}

/* Blocks recorded one by one: by the free's place in the batch, i (below
 * RECORD_BATCH, 16 bits), under the address (bits 4 to 47: malloc's
 * blocks are 16-byte aligned, user addresses below 2^47; others are
 * settled out of address order, never wrongly). */
static void settle_recorded(UInt n)
{
	Addr *key = sortbuf[0];

	for (UInt i = 0; i < n; i++)
		key[i] = (pend[i] >> 4) << 16 | i;
	if (n >= SORT_MIN)
		sort_bits(key, sortbuf[1], n, 16);
	for (UInt k = 0; k < n; k++) {
		UInt i = (UInt)(key[k] & 0xffff);
		if (!take_block(pend[i], &done[i], True))
			done[i].bucket = ~0u;
	}
	for (UInt i = 0; i < n; i++) {
		if (done[i].bucket == ~0u)
			continue;
		block_record(done[i].bucket, done[i].lo, done[i].size, done[i].alloc_seq,
			     ++dc.alloc_seq);
		dc_bucket_drop_block(done[i].bucket, done[i].size);
	}
}

/* No records: the statistics and the count of sequence numbers, in any
 * order. */
static void settle_counted(UInt n)
{
	ULong found = 0;
	struct freed f;

	if (n >= SORT_MIN)
		sort_bits(pend, sortbuf[0], n, 4);
	for (UInt k = 0; k < n; k++) {
		if (!take_block(pend[k], &f, False))
			continue;
		dc_bucket_drop_block(f.bucket, f.size);
		found++;
	}
	dc.alloc_seq += found;
	if (dc.raw)
		dc.block_records_dropped += found;
}

void dc_heap_settle(void)
{
	UInt n = dc_frees_pending;

	dc_frees_pending = 0;
	if (dc.raw && dc.block_records < (ULong)dc.opt.max_block_records)
		settle_recorded(n);
	else
		settle_counted(n);
	free_cap = dc.raw && dc.block_records < (ULong)dc.opt.max_block_records ? RECORD_BATCH
										 : FREE_BATCH;
	dc_objs_changed();
}

/* Freeing something that is not a live block (NULL, a double free, a
 * block from before the engine saw the allocator) does nothing. */
static void free_block(Addr p)
{
	if (!p)
		return;
	pend[dc_frees_pending++] = p;
	if (dc_frees_pending == free_cap)
		dc_heap_settle();
}

/* ---- observing the allocator ---------------------------------------- */

Int dc_heap_fn_at(Addr ip)
{
	const HChar *fn;

	if (!VG_(get_fnname_if_entry)(VG_(current_DiEpoch)(), ip, &fn))
		return -1;
	return dc_alloc_fn_kind(fn);
}

Addr dc_alloc_ret;
static UInt alloc_bucket = ~0u;

UInt dc_heap_alloc_bucket(void)
{
	if (alloc_bucket == ~0u)
		alloc_bucket = dc_bucket_get("<malloc>", DC_K_HEAP);
	return alloc_bucket;
}

Bool dc_heap_in_alloc(ThreadId tid)
{
	return dc.threads && tid != VG_INVALID_THREADID && tid < VG_N_THREADS &&
	       dc.threads[tid].in_alloc;
}

void dc_heap_thread_run(ThreadId tid)
{
	struct dc_thread *th = &dc.threads[tid];

	dc.akey = th->in_alloc ? tid | DC_AKEY_ALLOC : tid;
	dc_alloc_ret = th->in_alloc ? th->alloc_ret : 0;
}

static void alloc_leave(ThreadId tid)
{
	dc.threads[tid].in_alloc = False;
	dc_heap_thread_run(tid);
}

/* The first instruction of an allocation function.  Only the outermost
 * call is observed: one made while it runs, deeper on the stack (realloc
 * calling malloc, operator new calling malloc, operator new[] jumping to
 * operator new with the same return address), is the allocator's own.
 * An entry above the observed call's frame means that call never
 * returned (a longjmp, an exception out of operator new): it is dropped. */
void dc_heap_enter(UWord kind, UWord a0, UWord a1, UWord a2, UWord sp)
{
	ThreadId tid = dc.tid;
	struct dc_thread *th = &dc.threads[tid];
	struct dc_objmap_ent e;

	if (th->in_alloc && sp <= th->alloc_sp)
		return;
	th->in_alloc = True;
	th->alloc_kind = (UChar)kind;
	th->alloc_sp = sp;
	th->alloc_ret = *(const Addr *)sp;
	th->alloc_arg[0] = a0;
	th->alloc_arg[1] = a1;
	th->alloc_arg[2] = a2;
	switch (kind) {
	case DC_AF_FREE:
		free_block(a0);
		break;
	case DC_AF_REALLOC:
	case DC_AF_REALLOCARRAY:
		/* realloc keeps the block's bucket */
		dc_objs_settle();
		th->alloc_bucket = block_at(a0, &e) ? e.bucket : heap_bucket(tid);
		break;
	default:
		/* named from the stack as it is at the allocator's entry */
		th->alloc_bucket = heap_bucket(tid);
		break;
	}
	dc_heap_thread_run(tid);
}

static ULong mul_size(UWord a, UWord b)
{
	return b && a > ~(UWord)0 / b ? 0 : (ULong)a * b;
}

/* The observed call returns (SP is back above its return address). */
void dc_heap_return(UWord rax, UWord sp)
{
	ThreadId tid = dc.tid;
	struct dc_thread *th = &dc.threads[tid];
	const UWord *a = th->alloc_arg;
	ULong size;

	if (!th->in_alloc || sp != th->alloc_sp + sizeof(Addr))
		return;
	switch (th->alloc_kind) {
	case DC_AF_MALLOC:
		if (rax)
			add_block(rax, a[0], th->alloc_bucket);
		break;
	case DC_AF_CALLOC:
		if (rax)
			add_block(rax, mul_size(a[0], a[1]), th->alloc_bucket);
		break;
	case DC_AF_MEMALIGN:
		if (rax)
			add_block(rax, a[1], th->alloc_bucket);
		break;
	case DC_AF_POSIX_MEMALIGN:
		if ((UInt)rax == 0 && a[0])
			add_block(*(const Addr *)a[0], a[2], th->alloc_bucket);
		break;
	case DC_AF_REALLOC:
	case DC_AF_REALLOCARRAY:
		size = th->alloc_kind == DC_AF_REALLOC ? a[1] : mul_size(a[1], a[2]);
		/* NULL: failed, the old block stays, unless the size was 0
		 * (glibc's realloc(p, 0) frees p) */
		if (rax || size == 0)
			free_block(a[0]);
		if (rax)
			add_block(rax, size, th->alloc_bucket);
		break;
	default:
		break;
	}
	alloc_leave(tid);
}

/* The brk heap is the allocator's memory: what no block covers (chunk
 * headers, free chunks, the top) is its metadata. */
static void brk_new(Addr a, SizeT len, ThreadId tid)
{
	struct dc_obj *o;

	if (!len)
		return;
	o = dc_objmap_new(&dc.regions);
	o->lo = a;
	o->hi = a + len;
	o->alloc_size = len;
	o->kind = DC_K_MMAP;
	o->bucket = dc_heap_alloc_bucket();
	if (dc_objmap_insert(&dc.regions, o) != 0) {
		dc_objmap_discard(&dc.regions, o);
		return;
	}
	dc.fallback.gen++;
}

static void brk_die(Addr a, SizeT len)
{
	dc_objmap_remove_in(&dc.regions, a, a + len, NULL, NULL);
	dc.fallback.gen++;
}

void dc_heap_name_block(ThreadId tid, Addr p, SizeT size, const HChar *name)
{
	struct dc_obj *o;
	UInt bucket = dc_bucket_get(name, DC_K_USER);
	static Bool warned;

	dc_objs_settle();
	o = dc_objmap_find(&dc.objs, p);
	if (o && o->lo == p && (o->kind == DC_K_HEAP || o->kind == DC_K_USER)) {
		struct dc_bucket *old = dc_bucket_at(o->bucket);
		dc_bucket_drop_block(o->bucket, o->alloc_size);
		old->blocks--;
		old->total_bytes -= o->alloc_size;
		o->kind = DC_K_USER;
		/* accesses cached under the old bucket resolve again */
		dc_objmap_rebucket(&dc.objs, o, bucket);
		dc_objs_changed();
		dc_bucket_add_block(bucket, o->alloc_size);
		return;
	}
	if (o && o->lo == p && o->hi == p + size) {
		o->kind = DC_K_USER;
		o->alloc_size = size;
		dc_objmap_rebucket(&dc.objs, o, bucket);
		dc_objs_changed();
		dc_bucket_add_block(bucket, size);
		return;
	}
	if (!o && size) {
		o = dc_objmap_new(&dc.objs);
		o->lo = p;
		o->hi = p + size;
		o->alloc_size = size;
		o->bucket = bucket;
		o->kind = DC_K_USER;
		o->alloc_seq = ++dc.alloc_seq;
		if (dc_objs_insert(o) == 0) {
			dc_bucket_add_block(bucket, size);
			return;
		}
		dc_objmap_discard(&dc.objs, o);
	}
	if (!warned) {
		VG_(umsg)("dcprof: DCPROF_NAME_BLOCK(%p, %lu, \"%s\") overlaps another object; "
			  "ignored (reported once)\n", (void *)p, size, name);
		warned = True;
	}
}

void dc_heap_init(void)
{
	VG_(track_new_mem_brk)(brk_new);
	VG_(track_die_mem_brk)(brk_die);
}
