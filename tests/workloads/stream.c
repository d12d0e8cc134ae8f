/* stream.c — one global array streamed P times with 8-byte loads.
 *
 * Layout: uint64_t big_array[N/8], N = 4 MiB, 64-byte aligned, in .bss, so it
 * covers exactly N/64 = 65536 cache lines and no 8-byte load straddles a line.
 * The array is only read (its zeros come from the loader, which the client
 * never sees), so bucket big_array has Dw = 0.
 *
 * sum_pass() keeps the sum and the index in registers: per pass it makes
 * exactly N/8 = 524288 loads from big_array and nothing else (check with
 * objdump -d: one `add (%rdi),%rax`-style load per iteration).
 *
 * Expected, with P = 3 passes (argv[1] overrides P):
 *   big_array  Dr   = P * N/8  = 1572864
 *              Dw   = 0
 *   At a level of C bytes, LRU, line 64:
 *     C < N:   misses = P * N/64 = 196608.  The lines are visited in the same
 *              cyclic order every pass; each set sees more distinct lines of
 *              the array between two visits of a line than it has ways, so LRU
 *              evicts every line before its reuse: every first touch of a line
 *              in a pass misses, the other 7 loads of that line hit.  Accesses
 *              to other data in between can only evict more, never less.
 *     C >= 2N (and the rest of the program is small): misses = N/64 = 65536,
 *              the cold misses of pass 1; later passes hit.
 *   A level below a level that hits is not consulted, so a level that holds
 *   the array sees P*N/64 accesses and N/64 misses.
 *   Lat (--latency=L1=a,L2=b,MEM=m with L1, L2 < N):
 *       (Dr - D1mr) * a + D1mr * m       (every L1 miss also misses L2)
 *
 *   sink   Dw = P (one store of each pass's sum, so no pass is dead code).
 */
#include <stdint.h>
#include <stdlib.h>

#define N (4u << 20)

uint64_t big_array[N / 8] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) static uint64_t sum_pass(const uint64_t *a, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += a[i]; /* LINE:stream_load */
	return s;
}

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 3;
	for (int p = 0; p < passes; p++)
		sink = sum_pass(big_array, N / 8);
	return 0;
}
