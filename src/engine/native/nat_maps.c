/* nat_maps.c — the native runtime's wrappers of mmap, munmap, mremap,
 * dlopen and dlclose.
 *
 * Notes:
 *  - Memory the program maps becomes a region (nat.regions), looked up
 *    when no object holds an address, as in the simulator engine
 *    (src/engine/valgrind/dc_globals.c): anonymous memory is a bucket of
 *    kind mmap named after the code that mapped it — written as "-" with
 *    its call path (hpath), which finalize names "<mmap:f-g-h>" —; a file
 *    mapping is "<file:NAME>".  Only calls through the dynamic symbols
 *    are seen: glibc's malloc and the dynamic linker map memory with
 *    their own internal calls, so the allocator's arenas are not regions.
 *  - munmap (and the old range of an mremap that moves or shrinks) ends
 *    every object and region that starts inside the range; every free
 *    drains the rings first, and so does munmap.
 *  - dlopen scans the objects loaded since the last scan for globals
 *    (their thread-local variables are not followed, nat_tls.c); dlclose
 *    ends the globals of the objects gone.
 *  - The system calls are made directly: the wrappers may run before the
 *    runtime starts (another library's constructor), when looking up the
 *    next definition could itself map memory.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "engine/native/nat.h"

void *nat_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
}

int nat_sys_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

static void mapped(void *p, size_t len, int flags, int fd)
{
	uint64_t path[NAT_MAX_FRAMES];
	uint32_t n = 0;
	char link[64], file[4096], name[4200];
	ssize_t k = -1;

	if (p == MAP_FAILED || !len || nat_busy())
		return;
	nat_busy_set(true);
	if (!(flags & MAP_ANONYMOUS) && fd >= 0) {
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		k = readlink(link, file, sizeof file - 1);
	}
	if (k > 0) {
		const char *b;
		file[k] = '\0';
		b = strrchr(file, '/');
		snprintf(name, sizeof name, "<file:%s>", b ? b + 1 : file);
	} else {
		n = nat_call_path(path);
	}
	nat_lock();
	if (!nat.off) {
		uint64_t lo = (uint64_t)(uintptr_t)p;
		uint64_t hi = lo + ((len + 4095) & ~(size_t)4095);
		/* MAP_FIXED replaces what was there */
		nat_objs_unmapped(lo, hi);
		nat_region_add(lo, hi, k > 0 ? name : NULL, path, n);
	}
	nat_unlock();
	nat_busy_set(false);
}

static void unmapped(void *p, size_t len)
{
	uint64_t lo = (uint64_t)(uintptr_t)p;

	if (!len || nat_busy())
		return;
	nat_busy_set(true);
	nat_lock();
	if (!nat.off) {
		nat_perf_drain_all();
		nat_objs_unmapped(lo, lo + ((len + 4095) & ~(size_t)4095));
	}
	nat_unlock();
	nat_busy_set(false);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = nat_sys_mmap(addr, len, prot, flags, fd, off);

	mapped(p, len, flags, fd);
	return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	return mmap(addr, len, prot, flags, fd, off);
}

int munmap(void *addr, size_t len)
{
	unmapped(addr, len);
	return nat_sys_munmap(addr, len);
}

/* A moved or resized mapping keeps its bucket: the old range ends, the
 * new one is a region of the same bucket. */
void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	void *want = NULL, *p;
	uint64_t lo = (uint64_t)(uintptr_t)old;
	struct dc_objmap_ent e;
	uint32_t bucket = UINT32_MAX;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	p = (void *)syscall(SYS_mremap, old, old_len, new_len, flags, want);
	if (p == MAP_FAILED || nat_busy())
		return p;
	nat_busy_set(true);
	nat_lock();
	if (!nat.off) {
		if (dc_objmap_lookup(&nat.regions, lo, &e) && e.lo == lo)
			bucket = e.bucket;
		nat_perf_drain_all();
		nat_objs_unmapped(lo, lo + ((old_len + 4095) & ~(size_t)4095));
		if (bucket != UINT32_MAX) {
			struct dc_obj *o = dc_objmap_new(&nat.regions);
			if (o) {
				o->lo = (uint64_t)(uintptr_t)p;
				o->hi = o->lo + ((new_len + 4095) & ~(size_t)4095);
				o->alloc_size = o->hi - o->lo;
				o->alloc_seq = ++nat.region_seq;
				o->kind = NAT_K_MMAP;
				o->bucket = bucket;
				nat_objs_unmapped(o->lo, o->hi);
				if (dc_objmap_insert(&nat.regions, o))
					dc_objmap_discard(&nat.regions, o);
			}
		}
	}
	nat_unlock();
	nat_busy_set(false);
	return p;
}

/* ---- dlopen, dlclose ------------------------------------------------------------- */

typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);

static void *next_sym(const char *name)
{
	void *p;

	nat_busy_set(true);
	p = dlsym(RTLD_NEXT, name);
	nat_busy_set(false);
	return p;
}

void *dlopen(const char *file, int mode)
{
	static dlopen_fn next;
	void *h;

	if (!next)
		next = (dlopen_fn)next_sym("dlopen");
	h = next(file, mode);
	if (h && !nat_busy()) {
		nat_busy_set(true);
		nat_lock();
		if (!nat.off)
			nat_globals_rescan();
		nat_unlock();
		nat_busy_set(false);
	}
	return h;
}

int dlclose(void *h)
{
	static dlclose_fn next;
	int rc;

	if (!next)
		next = (dlclose_fn)next_sym("dlclose");
	rc = next(h);
	if (rc == 0 && !nat_busy()) {
		nat_busy_set(true);
		nat_lock();
		if (!nat.off) {
			nat_perf_drain_all();
			nat_globals_unloaded();
		}
		nat_unlock();
		nat_busy_set(false);
	}
	return rc;
}
