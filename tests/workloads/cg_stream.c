/* cg_stream.c — Cachegrind agreement: a 16 MiB global written once, then
 * read twice with 8-byte accesses.  No malloc, no stdio: under Cachegrind
 * and under dcprof the client runs the same instructions (see
 * tests/e2e/test_cachegrind_agreement.py).
 *
 * Data accesses of the workload itself: 2M stores + 4M loads; misses:
 * 262144 lines per pass at D1, and at LL on pass 1 (cold) and on later
 * passes too when LL < 16 MiB.  Large against the few thousand accesses of
 * the dynamic loader, which both tools also count.
 */
#include <stdint.h>
#include <stdlib.h>

#define N (16u << 20)

uint64_t cg_big[N / 8] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) static void fill(uint64_t *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		a[i] = i;
}

__attribute__((noinline)) static uint64_t sum(const uint64_t *a, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

int main(void)
{
	fill(cg_big, N / 8);
	for (int p = 0; p < 2; p++)
		sink = sum(cg_big, N / 8);
	return 0;
}
