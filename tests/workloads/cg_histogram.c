/* cg_histogram.c — Cachegrind agreement: a 4 MiB table (uint32_t hist[1M])
 * is cleared with 1M stores (so writes, too, are far more than the few
 * thousand of the dynamic loader), then 2M pseudo-random counters are
 * incremented.  `hist[x]++` compiles to one read-modify-write instruction
 * (addl $1, mem): a modify, which both tools count as one read and no write.
 * No malloc, no stdio.
 */
#include <stdint.h>

#define BINS (1u << 20)
#define ITERS (2u << 20)

uint32_t cg_hist[BINS] __attribute__((aligned(64)));
volatile uint32_t sink;

__attribute__((noinline)) static void clear(void)
{
	for (uint32_t i = 0; i < BINS; i++)
		cg_hist[i] = i & 1;
}

__attribute__((noinline)) static void histogram(uint32_t iters)
{
	uint32_t x = 12345;
	for (uint32_t i = 0; i < iters; i++) {
		x = x * 1664525u + 1013904223u;
		cg_hist[x >> 12]++;
	}
}

int main(void)
{
	clear();
	histogram(ITERS);
	sink = cg_hist[17];
	return 0;
}
