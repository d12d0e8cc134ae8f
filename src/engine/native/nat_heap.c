/* nat_heap.c — the native runtime's allocation wrappers and call paths.
 *
 * Notes:
 *  - malloc, calloc, realloc, reallocarray, free, memalign, posix_memalign,
 *    aligned_alloc, valloc, pvalloc and every operator new and delete are
 *    defined here; the preload's definitions come before libc's, so the
 *    program's calls (and its libraries', libc's own included) land here
 *    and go on to glibc's allocator (__libc_malloc, ...).  A program that
 *    defines malloc in its executable keeps its own: its blocks are not
 *    objects.
 *  - Each block is an object of the heap bucket of its call path: the
 *    return addresses from the allocation call outwards (the wrapper
 *    excluded), unwound with libunwind, which reads .eh_frame and so works
 *    on -O2 code without frame pointers; its cache of unwind information
 *    per instruction (UNW_CACHE_PER_THREAD) keeps the cost per allocation
 *    to a walk of the frames (docs/performance.md, "Native engine").  The
 *    path keeps alloc_depth + 4 frames, or 4 more with --alloc-fn, so the
 *    naming at finalize (depth, inlined frames, skipped allocation
 *    wrappers) has the frames it needs.
 *  - Sequence numbers count allocation events (each malloc, free,
 *    realloc, ...) from 1, as the simulator engine counts them.  The
 *    first --max-block-records blocks allocated are written as they are
 *    allocated and marked recorded; their ends are bfree records
 *    (nat_dump.c).  A realloc ends the old block and allocates the new
 *    one, in place or not.
 *  - --replay's samples are fed before each allocation event
 *    (nat_replay_until; nat_replay.c explains the clock).
 *  - Every free and realloc drains the rings first (nat_main.c): samples
 *    in the block are attributed while it exists.
 *  - Recursion: while the runtime runs (unwinding, its own tables) the
 *    wrappers only forward (nat_busy).
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <libunwind.h>
#include <string.h>
#include <unistd.h>

#include "engine/native/nat.h"

static unsigned path_frames;

void nat_heap_init(void)
{
	path_frames = nat.depth + (nat.alloc_fns ? 8 : 4);
	if (path_frames > NAT_MAX_FRAMES)
		path_frames = NAT_MAX_FRAMES;
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

/* The return addresses from the caller's frame outwards, at most size of
 * them, with libunwind's step-by-step walk: what unw_backtrace gives
 * (its own fallback is this loop), without its trace cache. */
static int walk_slowly(void **ips, int size)
{
	unw_cursor_t c;
	unw_context_t uc;
	unw_word_t ip;
	int n = 0;

	unw_getcontext(&uc);
	if (unw_init_local(&c, &uc) < 0)
		return 0;
	while (n < size && unw_step(&c) > 0 && unw_get_reg(&c, UNW_REG_IP, &ip) >= 0)
		ips[n++] = (void *)(uintptr_t)ip;
	return n;
}

/* The call path of the allocation being made: return addresses outside
 * the runtime, innermost first.  The walk stops at the frames kept: the
 * runtime's own (operator new, malloc, the wrappers) are at most
 * RUNTIME_FRAMES, so a deep stack costs no more than a shallow one.  A
 * thread's first SLOW_PATHS paths are walked step by step, the later ones
 * by unw_backtrace, whose per-thread trace cache (2^14 frames of 16
 * bytes, 256 KiB, made and cleared at its first call) makes a walk of 15
 * frames cost ~0.1 us instead of ~15 us: 32 slow walks cost about what
 * making the cache does (~0.2-0.5 ms), and a thread that allocates less
 * never pays the cache's memory (docs/performance.md, "Native engine"). */
#define RUNTIME_FRAMES 8
#define SLOW_PATHS 32
static __thread unsigned paths_walked __attribute__((tls_model("initial-exec")));

uint32_t nat_call_path(uint64_t *out)
{
	void *ips[NAT_MAX_FRAMES + RUNTIME_FRAMES];
	int size = (int)path_frames + RUNTIME_FRAMES;
	int n = paths_walked < SLOW_PATHS ? (paths_walked++, walk_slowly(ips, size))
					  : unw_backtrace(ips, size);
	uint32_t k = 0;
	int i = 0;

	while (i < n && (uint64_t)(uintptr_t)ips[i] >= nat.self_lo &&
	       (uint64_t)(uintptr_t)ips[i] < nat.self_hi)
		i++;
	for (; i < n && k < path_frames; i++)
		out[k++] = (uint64_t)(uintptr_t)ips[i];
	return k;
}

/* A heap block of the object map ends: its bfree record when it is
 * recorded. */
static void end_obj(void *ud, struct dc_obj *o)
{
	uint64_t seq;

	(void)ud;
	if (o->kind != NAT_K_HEAP)
		return;
	seq = ++nat.alloc_seq;
	if (o->flags & NAT_F_RECORDED)
		nat_dump_free(o->lo, seq);
	nat_bucket_drop_block(o->bucket, o->alloc_size);
}

/* A block of the compact map ends at free_seq. */
static void end_small(const struct dc_blockmap_ent *e, uint64_t free_seq)
{
	if (e->recorded)
		nat_dump_free(e->lo, free_seq);
	nat_bucket_drop_block(e->bucket, e->size);
	nat_perf_block_gone(e->lo, e->size);
}

/* Records the block at p; bucket UINT32_MAX: the bucket of its call path.
 * Small blocks go to the compact block map, the others to the object map.
 * A block put where another starts ends that one (the program freed it
 * behind the wrappers' back). */
static void track_in(void *p, size_t size, uint32_t bucket)
{
	uint64_t path[NAT_MAX_FRAMES], seq;
	uint32_t n = bucket == UINT32_MAX ? nat_call_path(path) : 0;
	struct dc_blockmap_ent e, old;
	struct dc_obj *o;
	int rc;

	nat_lock();
	if (nat.off)
		goto out;
	nat_self();
	nat_replay_until(nat.alloc_seq);
	e.lo = (uint64_t)(uintptr_t)p;
	e.size = size;
	seq = ++nat.alloc_seq;
	e.bucket = bucket == UINT32_MAX ? nat_bucket_path(NAT_K_HEAP, path, n) : bucket;
	e.recorded = nat.block_records < nat.max_block_records;   /* nat_dump_alloc's test */
	o = dc_objmap_find(&nat.objs, e.lo);
	if (o && o->kind == NAT_K_HEAP) {
		end_obj(NULL, o);
		dc_objmap_remove(&nat.objs, o);
	}
	if (dc_blockmap_fits(&e)) {
		rc = dc_blockmap_put(&nat.blocks, &e, &old);
		if (rc == 1)
			end_small(&old, seq);
		if (rc >= 0) {
			nat_dump_alloc(e.bucket, e.lo, size, seq);
			nat_bucket_add_block(e.bucket, size);
			nat_replay_block(seq, e.lo);
			goto out;
		}
	} else if (dc_blockmap_take(&nat.blocks, e.lo, &old)) {
		end_small(&old, seq);
	}
	o = dc_objmap_new(&nat.objs);
	if (!o)
		goto out;
	o->lo = e.lo;
	o->hi = o->lo + (size ? size : 1);
	o->alloc_size = size;
	o->alloc_seq = seq;
	o->kind = NAT_K_HEAP;
	o->live = 1;
	o->bucket = e.bucket;
	if (dc_objmap_insert(&nat.objs, o) == DC_EINVAL) {
		dc_objmap_remove_in(&nat.objs, o->lo - (o->lo >= 4096 ? 4096 : 0), o->hi, end_obj,
				    NULL);
		if (dc_objmap_find(&nat.objs, o->lo) || dc_objmap_insert(&nat.objs, o)) {
			dc_objmap_discard(&nat.objs, o);
			goto out;
		}
	}
	if (nat_dump_alloc(o->bucket, o->lo, size, seq))
		o->flags |= NAT_F_RECORDED;
	nat_bucket_add_block(o->bucket, size);
	nat_replay_block(seq, e.lo);
out:
	nat_unlock();
}

static void track(void *p, size_t size)
{
	track_in(p, size, UINT32_MAX);
}

/* Ends the block at p and returns its bucket (UINT32_MAX: not a block);
 * lock held. */
static uint32_t untrack(void *p)
{
	uint64_t lo = (uint64_t)(uintptr_t)p;
	struct dc_blockmap_ent e;
	struct dc_obj *o;
	uint32_t bucket;

	nat_replay_until(nat.alloc_seq);
	if (dc_blockmap_take(&nat.blocks, lo, &e)) {
		end_small(&e, ++nat.alloc_seq);
		return e.bucket;
	}
	o = dc_objmap_find(&nat.objs, lo);
	if (!o || o->lo != lo || o->kind != NAT_K_HEAP)
		return UINT32_MAX;
	bucket = o->bucket;
	end_obj(NULL, o);
	dc_objmap_remove(&nat.objs, o);
	return bucket;
}

static void *tracked(void *p, size_t size)
{
	if (p) {
		nat_busy_set(true);
		track(p, size);
		nat_busy_set(false);
	}
	return p;
}

void *malloc(size_t n)
{
	if (nat_busy())
		return __libc_malloc(n);
	return tracked(__libc_malloc(n), n);
}

void *calloc(size_t n, size_t size)
{
	if (nat_busy())
		return __libc_calloc(n, size);
	return tracked(__libc_calloc(n, size), n * size);
}

static void release(void *p)
{
	if (!p)
		return;
	if (nat_busy()) {
		__libc_free(p);
		return;
	}
	nat_busy_set(true);
	nat_lock();
	if (!nat.off) {
		nat_perf_drain_all();
		untrack(p);
	}
	__libc_free(p);
	nat_unlock();
	nat_busy_set(false);
}

void free(void *p)
{
	release(p);
}

/* realloc frees the old block and records the new one in its bucket, as
 * the simulator engine does (both count in the statistics). */
void *realloc(void *p, size_t n)
{
	uint32_t bucket = UINT32_MAX;
	void *q;

	if (nat_busy())
		return __libc_realloc(p, n);
	if (!p)
		return malloc(n);
	if (!n) {
		release(p);
		return NULL;
	}
	nat_busy_set(true);
	nat_lock();
	q = __libc_realloc(p, n);
	if (q && !nat.off) {
		nat_perf_drain_all();
		bucket = untrack(p);
	}
	nat_unlock();
	if (q)
		track_in(q, n, bucket);
	nat_busy_set(false);
	return q;
}

void *reallocarray(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, bytes);
}

static void *aligned(size_t align, size_t n)
{
	if (nat_busy())
		return __libc_memalign(align, n);
	return tracked(__libc_memalign(align, n), n);
}

void *memalign(size_t align, size_t n)
{
	return aligned(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	return aligned(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)))
		return EINVAL;
	p = aligned(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *valloc(size_t n)
{
	return aligned((size_t)sysconf(_SC_PAGESIZE), n);
}

void *pvalloc(size_t n)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);

	return aligned(ps, (n + ps - 1) & ~(ps - 1));
}

/* ---- C++ operator new and delete ------------------------------------------- */

/* operator new throws std::bad_alloc when memory runs out; C cannot, so
 * the rare failure is handed to the next definition (libstdc++'s), which
 * runs the new-handler and throws. */
static void *new_failed(const char *sym, size_t n, size_t align)
{
	void *next;

	nat_busy_set(true);
	next = dlsym(RTLD_NEXT, sym);
	nat_busy_set(false);
	if (!next)
		abort();
	if (align)
		return ((void *(*)(size_t, size_t))next)(n, align);
	return ((void *(*)(size_t))next)(n);
}

#define NEW(sym, nothrow)                                                         \
	void *sym(size_t n)                                                           \
	{                                                                             \
		void *p = malloc(n);                                                  \
		return p || (nothrow) ? p : new_failed(#sym, n, 0);                 \
	}
#define NEW_ALIGNED(sym, nothrow)                                                 \
	void *sym(size_t n, size_t al)                                                \
	{                                                                             \
		void *p = aligned(al, n);                                             \
		return p || (nothrow) ? p : new_failed(#sym, n, al);                \
	}
/* The sized, aligned and nothrow forms take more arguments, which the
 * calling convention lets a definition ignore. */
#define DELETE(sym)                                                               \
	void sym(void *p)                                                             \
	{                                                                             \
		release(p);                                                           \
	}

NEW(_Znwm, 0)
NEW(_Znam, 0)
NEW(_ZnwmRKSt9nothrow_t, 1)
NEW(_ZnamRKSt9nothrow_t, 1)
NEW_ALIGNED(_ZnwmSt11align_val_t, 0)
NEW_ALIGNED(_ZnamSt11align_val_t, 0)
NEW_ALIGNED(_ZnwmSt11align_val_tRKSt9nothrow_t, 1)
NEW_ALIGNED(_ZnamSt11align_val_tRKSt9nothrow_t, 1)
DELETE(_ZdlPv)
DELETE(_ZdaPv)
DELETE(_ZdlPvm)
DELETE(_ZdaPvm)
DELETE(_ZdlPvRKSt9nothrow_t)
DELETE(_ZdaPvRKSt9nothrow_t)
DELETE(_ZdlPvSt11align_val_t)
DELETE(_ZdaPvSt11align_val_t)
DELETE(_ZdlPvmSt11align_val_t)
DELETE(_ZdaPvmSt11align_val_t)
DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t)
DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t)
