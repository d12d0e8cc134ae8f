/* lockstep.c — two global arrays summed element by element: a[i] + b[i].
 *
 * Layout: uint64_t arr_a[N/8], arr_b[N/8], N = 2 MiB each, 64-byte aligned,
 * in .bss: N/64 = 32768 lines each.  Only read.
 *
 * sum2() loads a[i] and b[i] once per iteration, everything else lives in
 * registers: per pass N/8 = 262144 loads from each array.
 *
 * Expected, P = 2 passes (argv[1] overrides), with L1 and L2 both smaller
 * than one array (e.g. L1=32K:8:64, L2=1M:16:64):
 *   arr_a, arr_b   Dr = P * N/8 = 524288 each, Dw = 0
 *                  D1mr = D2mr = P * N/64 = 65536 each
 *   The two arrays advance together, so at any time each set holds at most
 *   one "current" line of each array, both most recently used; the lines
 *   behind them are evicted before reuse (same argument as stream.c).  The
 *   misses of the two buckets are therefore exactly equal: 50 % each of the
 *   misses on the two arrays.
 *   sink  Dw = P.
 */
#include <stdint.h>
#include <stdlib.h>

#define N (2u << 20)

uint64_t arr_a[N / 8] __attribute__((aligned(64)));
uint64_t arr_b[N / 8] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) static uint64_t sum2(const uint64_t *a, const uint64_t *b, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += a[i] + b[i];
	return s;
}

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 2;
	for (int p = 0; p < passes; p++)
		sink = sum2(arr_a, arr_b, N / 8);
	return 0;
}
