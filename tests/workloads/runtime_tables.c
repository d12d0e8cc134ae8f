/* runtime_tables.c — few heap blocks of the program, large tables of the
 * native runtime: the runtime's own pages must not be the program's.
 *
 * The program allocates an array of N pointers (argv[1], default 10^6;
 * one block, 8,000,000 bytes: above glibc's mmap threshold, its own
 * mapping, or with N 0 a 0-byte block in the brk heap), then N blocks of
 * 16 bytes from one call site (one bucket), which it never writes, and
 * frees them all.  So its first touches are:
 *  - the array: written whole by the loop below (its pages but the first,
 *    where malloc writes the chunk header: tests/e2e/test_native_engine.py
 *    FirstTouch.test_heap's reasoning);
 *  - the 16-byte blocks: chunks of 32 bytes in the brk heap, N x 32 =
 *    32,000,000 bytes, 7812 pages, each first touched by the allocator
 *    writing the header of the next chunk (the top chunk's, outside any
 *    block) or by the runtime whose own chunks share the page.
 * The native runtime meanwhile keeps N live blocks in its compact block
 * map (core/blockmap.h: segments of 4096 8-byte slots, at most 3/4 full)
 * and unwinds N call paths with libunwind's trace cache.
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	void **v = malloc(n * sizeof *v);

	if (!v)
		return 1;
	for (long i = 0; i < n; i++) {
		v[i] = malloc(16);
		if (!v[i])
			return 1;
	}
	for (long i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return 0;
}
