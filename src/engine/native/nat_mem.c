/* nat_mem.c — the runtime's own memset, memcpy and memmove, and the
 * zeroing and growing of its tables.
 *
 * Notes:
 *  - The pages the runtime's tables take are first touched by whatever
 *    writes them first: the core's memset of a new table (blockmap
 *    segments, rectab slabs, the object map's pages), a memcpy into a grown
 *    array, calloc's zeroing, realloc's copy.  With glibc's string
 *    functions those faults have an IP in libc, where nat_sample cannot
 *    tell them from the program's: they landed in <unknown> (or <malloc>
 *    in the brk heap).  Here they are the runtime's own code, so their
 *    samples are counted apart (meta samples_runtime) like every other
 *    access the runtime makes.
 *  - The definitions are hidden: every call the runtime's objects make
 *    (the core's explicit ones and those gcc emits for struct copies)
 *    binds to them when the shared object is linked, without a PLT entry,
 *    while the program's memset is still libc's (the runtime exports
 *    none).  `rep stosb` / `rep movsb` cannot be turned back into a call
 *    (gcc's loop-distribution pass would make a byte loop a memset call),
 *    and with ERMS, which every x86-64 since Ivy Bridge has, they run at
 *    the speed of a vector loop for the sizes the runtime copies.
 *  - nat_zalloc and nat_realloc replace __libc_calloc and __libc_realloc
 *    in the runtime for the same reason: glibc zeroes and copies with its
 *    own memset/memcpy.  nat_realloc always moves the block (no mremap of
 *    a large one): the runtime's arrays grow by doubling, so the copies
 *    cost a constant per element.
 */
#include <malloc.h>
#include <string.h>

#include "engine/native/nat.h"

__attribute__((visibility("hidden"))) void *memset(void *dst, int c, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return dst;
}

__attribute__((visibility("hidden"))) void *memcpy(void *restrict dst, const void *restrict src,
						   size_t n)
{
	void *d = dst;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

__attribute__((visibility("hidden"))) void *memmove(void *dst, const void *src, size_t n)
{
	void *d = dst;

	if ((uintptr_t)dst - (uintptr_t)src >= n) {
		/* dst below src, or past the end of src: forwards is safe */
		__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
		return dst;
	}
	/* dst inside [src, src + n): backwards, from the last byte (DF set
	 * for the copy only, as the ABI wants it clear at calls) */
	d = (char *)dst + n - 1;
	src = (const char *)src + n - 1;
	__asm__ volatile("std\n\trep movsb\n\tcld" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

void *nat_zalloc(size_t n)
{
	void *p = __libc_malloc(n ? n : 1);

	if (p)
		memset(p, 0, n);
	return p;
}

void *nat_realloc(void *p, size_t n)
{
	size_t old;
	void *q;

	if (!p)
		return __libc_malloc(n);
	q = __libc_malloc(n ? n : 1);
	if (!q)
		return NULL;
	old = malloc_usable_size(p);
	memcpy(q, p, old < n ? old : n);
	__libc_free(p);
	return q;
}
