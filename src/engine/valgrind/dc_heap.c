/* dc_heap.c — heap blocks: malloc replacement, bucket naming, statistics.
 *
 * Notes:
 *  - Every block from malloc, calloc, realloc, memalign, posix_memalign,
 *    aligned_alloc, valloc and C++ new/new[] becomes an object in the map.
 *    A zero-byte block occupies one byte of address space for lookup.
 *  - Placement: blocks up to 1 KiB are spaced as glibc spaces them (a
 *    24-byte block takes 32 bytes) and reused last-in first-out per size;
 *    larger or more aligned blocks come from Valgrind's client allocator.
 *    Freeing something that is not a live block does nothing.
 *  - A block's bucket is named at allocation (docs/engine.md, "Heap bucket
 *    names"; Cache Scope's rule, seeds/002 §4.3.1): the call path with
 *    inlined functions as frames, less the allocator's frames, --alloc-fn
 *    wrappers (inlined ones too) and the library frames above them; then
 *    N frames (--heap-names=fn:N, default 3) joined by " < ", never below
 *    main, the first with the file and line of its call,
 *    "mem_init (equake.c:41) < main".  With --heap-names=site every frame
 *    of the path carries its file and line (the eviction tool's rule,
 *    §5.2 and Table 11).
 *  - realloc frees the old block and allocates a new one in the same
 *    bucket; both count in the statistics.
 *  - DCPROF_NAME_NEXT_ALLOC puts the thread's next block into a user bucket.
 *    DCPROF_NAME_BLOCK moves a live block (or a global with exactly that
 *    range) to a user bucket; the block leaves its old bucket's counts
 *    (blocks, bytes), though not its min/max size.  Otherwise it adds a user
 *    object when the range overlaps nothing.
 *  - Names are cached per call stack (the return addresses), since
 *    resolving function names is far slower than unwinding.
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_tooliface.h"

#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

#define MAX_CHAIN 32

/* ---- naming ---------------------------------------------------------- */

static const HChar *const allocators[] = {
	"malloc", "calloc", "realloc", "memalign", "posix_memalign", "aligned_alloc",
	"valloc", "pvalloc", "reallocarray", "dcprof_malloc_named", "dcprof_calloc_named",
	"__builtin_new", "__builtin_vec_new", "_Znwm", "_Znam", "_ZnwmSt11align_val_t",
	"_ZnamSt11align_val_t", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
};

static Bool is_allocator(const HChar *fn)
{
	if (VG_(strncmp)(fn, "operator new", 12) == 0 || VG_(strncmp)(fn, "_vgr", 4) == 0)
		return True;
	for (UInt i = 0; i < sizeof allocators / sizeof *allocators; i++)
		if (VG_(strcmp)(fn, allocators[i]) == 0)
			return True;
	for (Int i = 0; i < dc.opt.n_alloc_fns; i++)
		if (VG_(strcmp)(fn, dc.opt.alloc_fns[i]) == 0)
			return True;
	return False;
}

static const HChar *bare_name(const HChar *fn, HChar *buf, SizeT len);

static void append(HChar *buf, SizeT len, SizeT *pos, const HChar *s)
{
	while (*s && *pos + 1 < len)
		buf[(*pos)++] = *s++;
	buf[*pos] = 0;
}

/* A function name as buckets use it: without a C++ parameter list and
 * qualifiers ("make_nodes(int)" -> "make_nodes", "Grid::fill() const" ->
 * "Grid::fill", "operator()(int)" -> "operator()")
 * or a symbol version ("f@@GLIBC_2.34" -> "f"), so that '(' in a bucket
 * name only ever introduces a line number. */
static const HChar *bare_name(const HChar *fn, HChar *buf, SizeT len)
{
	SizeT n = 0;
	const HChar *at = VG_(strstr)(fn, "@@");

	while (fn[n] && n + 1 < len && (!at || fn + n < at)) {
		buf[n] = fn[n];
		n++;
	}
	buf[n] = 0;
	/* Member-function qualifiers after the parameter list. */
	for (;;) {
		if (n >= 6 && VG_(strcmp)(buf + n - 6, " const") == 0)
			n -= 6;
		else if (n >= 9 && VG_(strcmp)(buf + n - 9, " volatile") == 0)
			n -= 9;
		else if (n >= 2 && VG_(strcmp)(buf + n - 2, " &") == 0)
			n -= 2;
		else if (n >= 3 && VG_(strcmp)(buf + n - 3, " &&") == 0)
			n -= 3;
		else
			break;
		buf[n] = 0;
	}
	if (n && buf[n - 1] == ')') {
		Int depth = 0;
		for (SizeT i = n; i-- > 0;) {
			if (buf[i] == ')')
				depth++;
			else if (buf[i] == '(' && --depth == 0) {
				if (i > 0)
					buf[i] = 0;
				break;
			}
		}
	}
	return buf;
}

/* --alloc-fn names may leave out a C++ parameter list: "Pool::get"
 * matches "Pool::get(int)". */
static Bool is_allocator_bare(const HChar *fn)
{
	HChar bare[256];

	bare_name(fn, bare, sizeof bare);
	for (Int i = 0; i < dc.opt.n_alloc_fns; i++)
		if (VG_(strcmp)(bare, dc.opt.alloc_fns[i]) == 0)
			return True;
	return False;
}

/* ---- frames --------------------------------------------------------- */

/* The call chain of an allocation with inlined calls as frames of their
 * own, innermost first.  Filled only when a new call stack is named. */
#define MAX_LFRAMES 64
struct lframe {
	struct dc_iframe f;
	Addr ip;                  /* the code address the frame is at */
	Bool sys;                 /* library code (is_sys_frame) */
};
static struct lframe lframes[MAX_LFRAMES];

static Bool has_prefix(const HChar *s, const HChar *p)
{
	return VG_(strncmp)(s, p, VG_(strlen)(p)) == 0;
}

/* Library code between the allocator and the program: the system's
 * headers (C++ containers inlined into the program) and the system's
 * libraries (libstdc++'s string code, strdup, stdio's buffers). */
static Bool is_sys_frame(const struct lframe *l)
{
	const HChar *obj;

	if (l->f.line && l->f.file[0] &&
	    (has_prefix(l->f.file, "/usr/include/") || has_prefix(l->f.file, "/usr/lib/") ||
	     has_prefix(l->f.file, "/usr/local/include/")))
		return True;
	if (!VG_(get_objname)(VG_(current_DiEpoch)(), l->ip, &obj))
		return False;
	return has_prefix(obj, "/lib/") || has_prefix(obj, "/lib64/") ||
	       has_prefix(obj, "/usr/lib/") || has_prefix(obj, "/usr/lib64/") ||
	       has_prefix(obj, "/usr/libexec/valgrind/");
}

/* The frames of ips[0..n) (return addresses from ips[1] on), inlined
 * functions expanded; returns how many. */
static UInt chain_frames(const Addr *ips, UInt n)
{
	UInt m = 0;
	struct dc_iframe fr[16];

	for (UInt i = 0; i < n && m < MAX_LFRAMES; i++) {
		Addr ip = i ? ips[i] - 1 : ips[i];
		UInt k = dc_inline_frames(ip, fr, 16);
		for (UInt j = 0; j < k && m < MAX_LFRAMES; j++, m++) {
			lframes[m].f = fr[j];
			lframes[m].ip = ip;
			lframes[m].sys = is_sys_frame(&lframes[m]);
		}
	}
	return m;
}

/* A frame's function as names show it: bare, or ?(object) / the address. */
static void frame_fn(const struct lframe *l, HChar *buf, SizeT len, SizeT *pos)
{
	HChar tmp[256];
	const HChar *obj;

	if (l->f.fn[0]) {
		append(buf, len, pos, bare_name(l->f.fn, tmp, sizeof tmp));
		return;
	}
	if (VG_(get_objname)(VG_(current_DiEpoch)(), l->ip, &obj))
		VG_(snprintf)(tmp, sizeof tmp, "?(%s)", dc_basename(obj));
	else
		VG_(snprintf)(tmp, sizeof tmp, "0x%lx", l->ip);
	append(buf, len, pos, tmp);
}

/* " (file.c:41)", or " (object)" without line information. */
static void frame_src(const struct lframe *l, HChar *buf, SizeT len, SizeT *pos)
{
	HChar tmp[300];
	const HChar *obj;

	if (l->f.line && l->f.file[0])
		VG_(snprintf)(tmp, sizeof tmp, " (%s:%u)", dc_basename(l->f.file), l->f.line);
	else if (l->f.fn[0] && VG_(get_objname)(VG_(current_DiEpoch)(), l->ip, &obj))
		VG_(snprintf)(tmp, sizeof tmp, " (%s)", dc_basename(obj));
	else
		return;
	append(buf, len, pos, tmp);
}

static Bool frame_is_main(const struct lframe *l)
{
	return VG_(strcmp)(l->f.fn, "main") == 0;
}

void dc_chain_name(ThreadId tid, Int depth, Bool site, Bool (*skip)(const HChar *fn),
		   HChar *buf, SizeT len)
{
	Addr ips[MAX_CHAIN];
	UInt n = VG_(get_StackTrace)(tid, ips, MAX_CHAIN, NULL, NULL, 0);
	UInt m = chain_frames(ips, n), i = 0;
	Int k = 0;
	SizeT pos = 0;

	buf[0] = 0;
	while (i < m && skip(lframes[i].f.fn))
		i++;
	for (; i < m && k < depth; i++, k++) {
		HChar tmp[32];
		if (k)
			append(buf, len, &pos, "-");
		frame_fn(&lframes[i], buf, len, &pos);
		if (site && lframes[i].f.line) {
			VG_(snprintf)(tmp, sizeof tmp, "(%u)", lframes[i].f.line);
			append(buf, len, &pos, tmp);
		}
		if (frame_is_main(&lframes[i]))
			break;
	}
	if (!pos)
		append(buf, len, &pos, "<heap>");
}

/* A heap bucket's name (docs/engine.md, "Data objects and buckets"):
 * from the first frame of the program above the allocator, its --alloc-fn
 * wrappers and the library code they run in, up to depth frames (inlined
 * ones count) joined by " < " ("called from"), never past main.  The
 * first frame always carries its source file and line (or its object),
 * so arrays allocated on different lines of one function stay apart and
 * no name reads like a plain function; with site every frame does. */
static void heap_name(const Addr *ips, UInt n, Int depth, Bool site, HChar *buf, SizeT len)
{
	UInt m = chain_frames(ips, n), i = 0, j;
	Int k = 0;
	SizeT pos = 0;

	buf[0] = 0;
	while (i < m && (is_allocator(lframes[i].f.fn) || is_allocator_bare(lframes[i].f.fn)))
		i++;
	for (j = i; j < m && lframes[j].sys; j++)
		;
	if (j < m)
		i = j;
	for (; i < m && k < depth; i++, k++) {
		if (k)
			append(buf, len, &pos, " < ");
		frame_fn(&lframes[i], buf, len, &pos);
		if (site || k == 0)
			frame_src(&lframes[i], buf, len, &pos);
		if (frame_is_main(&lframes[i]))
			break;
	}
	if (!pos)
		append(buf, len, &pos, "<heap>");
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
	HChar name[1024];

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
	n = VG_(get_StackTrace)(tid, ips, want, NULL, NULL, 0);
	if ((nsites + 1) * 2 > site_cap)
		site_grow();
	slot = site_slot(sites, site_cap, ips, n);
	if (*slot)
		return (*slot)->bucket;
	heap_name(ips, n, dc.opt.heap_site ? MAX_LFRAMES : dc.opt.heap_depth, dc.opt.heap_site,
		  name, sizeof name);
	s = VG_(malloc)("dc.heap.site", sizeof *s);
	s->nips = n;
	VG_(memcpy)(s->ips, ips, n * sizeof *ips);
	s->bucket = dc_bucket_get(name, DC_K_HEAP);
	*slot = s;
	nsites++;
	return s->bucket;
}

/* ---- statistics ------------------------------------------------------ */

static void stats_alloc(UInt bucket, ULong size)
{
	struct dc_bucket *b = dc_bucket_at(bucket);

	if (!b->blocks || size < b->min_size)
		b->min_size = size;
	if (size > b->max_size)
		b->max_size = size;
	b->blocks++;
	b->total_bytes += size;
	b->live++;
	b->live_bytes += size;
	if (b->live > b->max_live)
		b->max_live = b->live;
	if (b->live_bytes > b->max_live_bytes)
		b->max_live_bytes = b->live_bytes;
}

static void stats_free(UInt bucket, ULong size)
{
	struct dc_bucket *b = dc_bucket_at(bucket);

	b->live--;
	b->live_bytes -= size;
}

static ULong obj_size(const struct dc_obj *o)
{
	return o->kind == DC_K_HEAP || o->kind == DC_K_USER ? o->alloc_size : o->hi - o->lo;
}

void dc_heap_block_done(struct dc_obj *o, ULong free_seq)
{
	if (!dc.raw)
		return;
	if (dc.block_records < (ULong)dc.opt.max_block_records) {
		dc_raw_block(dc.raw, o->bucket, o->lo, obj_size(o), o->alloc_seq, free_seq);
		dc.block_records++;
	} else {
		dc.block_records_dropped++;
	}
}

/* ---- small-block pools ------------------------------------------------ */

/* Blocks up to POOL_MAX bytes (with 16-byte alignment) are carved from
 * 64 KiB chunks in glibc's spacing — a 24-byte block takes 32 bytes, as a
 * glibc chunk does — and freed blocks are reused last-in first-out per size,
 * like glibc's tcache.  Valgrind's own client allocator coalesces on every
 * free; freeing a million small blocks in random order spent a fifth of the
 * run there.  Larger or more aligned blocks come from VG_(cli_malloc). */
#define POOL_MAX 1024
#define POOL_CHUNK (64 << 10)
#define DC_BLOCK_POOLED 1

struct pool {
	Addr next, end;
	void *free;
};
static struct pool pools[POOL_MAX / 16 + 1];

static SizeT pool_stride(SizeT size)
{
	SizeT s = (size + 8 + 15) & ~(SizeT)15;
	return s < 32 ? 32 : s;
}

static void *pool_alloc(SizeT size)
{
	SizeT stride = pool_stride(size);
	struct pool *p;
	void *b;

	if (stride > POOL_MAX)
		return NULL;
	p = &pools[stride / 16];
	if (p->free) {
		b = p->free;
		p->free = *(void **)b;
		return b;
	}
	if (p->next + stride > p->end) {
		void *chunk = VG_(cli_malloc)(16, POOL_CHUNK);
		if (!chunk)
			return NULL;
		p->next = (Addr)chunk;
		p->end = p->next + POOL_CHUNK;
	}
	b = (void *)p->next;
	p->next += stride;
	return b;
}

static void pool_free(void *b, SizeT size)
{
	struct pool *p = &pools[pool_stride(size) / 16];

	*(void **)b = p->free;
	p->free = b;
}

/* ---- blocks ---------------------------------------------------------- */

static void *new_block(ThreadId tid, SizeT size, SizeT align, Bool zero, Int bucket)
{
	Bool pooled = align <= 16;
	void *p = pooled ? pool_alloc(size) : NULL;
	struct dc_obj *o;

	if (!p) {
		pooled = False;
		p = VG_(cli_malloc)(align, size);
	}
	if (!p)
		return NULL;
	if (zero)
		VG_(memset)(p, 0, size);
	o = dc_objmap_new(&dc.objs);
	tl_assert(o);
	o->lo = (Addr)p;
	o->hi = (Addr)p + (size ? size : 1);
	o->alloc_size = size;
	o->bucket = bucket >= 0 ? (UInt)bucket : heap_bucket(tid);
	o->kind = dc_bucket_at(o->bucket)->kind == DC_K_USER ? DC_K_USER : DC_K_HEAP;
	o->alloc_seq = ++dc.alloc_seq;
	o->flags = pooled ? DC_BLOCK_POOLED : 0;
	if (dc_objs_insert(o)) {
		/* Something stale (a global of an unmapped library) is in the way. */
		dc_objmap_remove_in(&dc.objs, o->lo, o->hi, NULL, NULL);
		dc.objs_removals++;
		if (dc_objmap_find(&dc.objs, o->lo) || dc_objs_insert(o)) {
			dc_objmap_discard(&dc.objs, o);
			return p;
		}
	}
	stats_alloc(o->bucket, size);
	return p;
}

static struct dc_obj *block_at(void *p)
{
	struct dc_obj *o = dc_objmap_find(&dc.objs, (Addr)p);

	if (o && o->lo == (Addr)p && (o->kind == DC_K_HEAP || o->kind == DC_K_USER))
		return o;
	return NULL;
}

static void free_block(ThreadId tid, void *p)
{
	struct dc_obj *o;

	if (!p)
		return;
	o = block_at(p);
	if (!o)
		return;   /* not a live block of ours (a double or invalid free) */
	dc_heap_block_done(o, ++dc.alloc_seq);
	stats_free(o->bucket, o->alloc_size);
	if (o->flags & DC_BLOCK_POOLED)
		pool_free(p, o->alloc_size);
	else
		VG_(cli_free)(p);
	dc_objmap_remove(&dc.objs, o);
	dc.objs_removals++;
}

static void *dc_malloc(ThreadId tid, SizeT n)
{
	return new_block(tid, n, VG_(clo_alignment), False, -1);
}

static void *dc_memalign(ThreadId tid, SizeT align, SizeT n)
{
	return new_block(tid, n, align, False, -1);
}

static void *dc_new_aligned(ThreadId tid, SizeT n, SizeT align)
{
	return new_block(tid, n, align, False, -1);
}

static void *dc_calloc(ThreadId tid, SizeT nmemb, SizeT size)
{
	if (size && nmemb > ~(SizeT)0 / size)
		return NULL;
	return new_block(tid, nmemb * size, VG_(clo_alignment), True, -1);
}

static void dc_free_fn(ThreadId tid, void *p)
{
	free_block(tid, p);
}

static void dc_free_aligned(ThreadId tid, void *p, SizeT align)
{
	free_block(tid, p);
}

static void *dc_realloc(ThreadId tid, void *p, SizeT n)
{
	struct dc_obj *o;
	void *q;
	SizeT old;
	Int bucket = -1;

	if (!p)
		return dc_malloc(tid, n);
	o = block_at(p);
	old = o ? o->alloc_size : VG_(cli_malloc_usable_size)(p);
	if (o)
		bucket = (Int)o->bucket;
	q = new_block(tid, n, VG_(clo_alignment), False, bucket);
	if (!q)
		return NULL;
	VG_(memcpy)(q, p, old < n ? old : n);
	free_block(tid, p);
	return q;
}

static SizeT dc_usable_size(ThreadId tid, void *p)
{
	struct dc_obj *o = block_at(p);
	return o ? o->alloc_size : 0;
}

void dc_heap_name_block(ThreadId tid, Addr p, SizeT size, const HChar *name)
{
	struct dc_obj *o = dc_objmap_find(&dc.objs, p);
	UInt bucket = dc_bucket_get(name, DC_K_USER);
	static Bool warned;

	if (o && o->lo == p && (o->kind == DC_K_HEAP || o->kind == DC_K_USER)) {
		struct dc_bucket *old = dc_bucket_at(o->bucket);
		stats_free(o->bucket, o->alloc_size);
		old->blocks--;
		old->total_bytes -= o->alloc_size;
		o->kind = DC_K_USER;
		/* accesses cached under the old bucket resolve again */
		dc_objmap_rebucket(&dc.objs, o, bucket);
		dc.objs_removals++;
		stats_alloc(bucket, o->alloc_size);
		return;
	}
	if (o && o->lo == p && o->hi == p + size) {
		o->kind = DC_K_USER;
		o->alloc_size = size;
		dc_objmap_rebucket(&dc.objs, o, bucket);
		dc.objs_removals++;
		stats_alloc(bucket, size);
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
			stats_alloc(bucket, size);
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
	VG_(needs_malloc_replacement)(dc_malloc, dc_malloc, dc_new_aligned, dc_malloc,
				      dc_new_aligned, dc_memalign, dc_calloc, dc_free_fn,
				      dc_free_fn, dc_free_aligned, dc_free_fn, dc_free_aligned,
				      dc_realloc, dc_usable_size, 0);
}
