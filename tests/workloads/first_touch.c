/* first_touch.c — two 8 MiB arrays and a hot table, for first-touch pages
 * (the native engine's --event=pagefault, docs/engine-native.md).
 *
 * Layout: a and b are 8 MiB globals in .bss, page-aligned, so each spans
 * exactly 8 MiB / 4 KiB = 2048 pages; the table is one page-aligned 4 KiB
 * global, one page.  The arrays are written by init_a and init_b (one
 * first touch per page each: 2048), then the table is read and written a
 * million times (one first touch: the first access).  MADV_NOHUGEPAGE
 * keeps transparent huge pages (one fault per 2 MiB) out of the arrays.
 * With an argument "heap" the arrays are malloc'ed instead (8 MiB + the
 * allocator's header: 2048 or 2049 pages hold each).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define N (8u << 20)

static char a[N] __attribute__((aligned(4096)));
static char b[N] __attribute__((aligned(4096)));
static unsigned table[1024] __attribute__((aligned(4096)));

__attribute__((noinline)) static void init_a(char *p)
{
	for (size_t i = 0; i < N; i += 64)
		p[i] = (char)i;
}

__attribute__((noinline)) static void init_b(char *p)
{
	for (size_t i = 0; i < N; i += 64)
		p[i] = (char)(i >> 6);
}

__attribute__((noinline)) static unsigned hot(const char *x, const char *y)
{
	unsigned s = 0;

	for (unsigned i = 0; i < 1000000; i++) {
		table[i & 1023] += (unsigned char)x[(i * 4096u) % N];
		s += table[(i * 7) & 1023] + (unsigned char)y[(i * 64u) % N];
	}
	return s;
}

int main(int argc, char **argv)
{
	char *x = a, *y = b;

	if (argc > 1 && !strcmp(argv[1], "heap")) {
		x = malloc(N);
		y = malloc(N);
		if (!x || !y)
			return 1;
	}
	madvise((void *)((unsigned long)x & ~4095ul), N + 4096, MADV_NOHUGEPAGE);
	madvise((void *)((unsigned long)y & ~4095ul), N + 4096, MADV_NOHUGEPAGE);
	init_a(x);
	init_b(y);
	return hot(x, y) == 42;
}
