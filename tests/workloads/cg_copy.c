/* cg_copy.c — Cachegrind agreement through libc's memset and memcpy, which
 * glibc implements with wide (16/32-byte) vector accesses, unaligned heads
 * and tails, and `rep movsb`/`rep stosb` for large sizes.  This pins how
 * accesses wider than 16 bytes and string instructions are counted (on
 * amd64 Cachegrind counts each access as at most 16 bytes).  Buffers are
 * 4 MiB globals; copies start at odd offsets so accesses straddle lines.
 * No malloc, no stdio.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define N (4u << 20)

unsigned char cg_from[N] __attribute__((aligned(64)));
unsigned char cg_to[N] __attribute__((aligned(64)));
volatile unsigned char sink;

/* Pass through a volatile so the compiler cannot turn the calls into
 * inline code of its own choosing. */
void *(*volatile memset_fn)(void *, int, size_t) = memset;
void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

int main(void)
{
	memset_fn(cg_from, 0x5a, N);
	for (int r = 0; r < 4; r++) {
		memcpy_fn(cg_to + 3, cg_from + 17, N - 64);
		memcpy_fn(cg_from + 5, cg_to + 1, N - 64);
		for (size_t len = 1; len < 4096; len = 2 * len + 7)
			memcpy_fn(cg_to + 100 + len, cg_from + 33, len);
	}
	sink = cg_to[1000] + cg_from[2000];
	return 0;
}
