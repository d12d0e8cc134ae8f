/* own_malloc.c — a program with its own malloc, free, calloc and realloc
 * (a bump allocator over one mmap'd arena, a 16-byte size header before
 * each block); the C library's calls to malloc reach it too.  The engine
 * observes whichever malloc the program runs (docs/engine.md).
 *
 * main (own_malloc.c:SITE:a) makes one block of 1000 longs: fill() writes
 * each once (Dw = 1000 from fill), sum() reads each once (Dr = 1000 from
 * sum).  The allocator's own accesses (the bump pointer, the size header)
 * are <malloc>'s, and so is its arena: the mmap made inside malloc.
 */
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

static char *arena, *top;

void *malloc(size_t n)
{
	char *p;

	if (!arena) {
		arena = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			     -1, 0);
		top = arena;
	}
	p = top + 16;
	*(size_t *)top = n;
	top += 16 + ((n + 15) & ~(size_t)15);
	return p;
}

void free(void *p)
{
	(void)p;
}

void *calloc(size_t n, size_t size)
{
	return malloc(n * size);     /* fresh mmap'd memory is zero */
}

void *realloc(void *p, size_t n)
{
	void *q = malloc(n);
	size_t old = p ? *(size_t *)((char *)p - 16) : 0;

	if (p)
		memcpy(q, p, old < n ? old : n);
	return q;
}

__attribute__((noinline)) static void fill(long *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] = i;
}

__attribute__((noinline)) static long sum(const long *a, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

int main(void)
{
	long *a = malloc(1000 * sizeof *a);    /* SITE:a */

	fill(a, 1000);
	return sum(a, 1000) == 499500 ? 0 : 1;
}
