/* mmap_region.c — memory the program maps itself.
 *
 * map_region() (called from main) mmaps an anonymous 1 MiB region (page
 * aligned, so 64-byte aligned: 16384 lines, 131072 words).  main then has
 * fill() store every word once and sum() load every word once.
 *
 * Expected: one bucket of kind mmap named after the code that mapped it,
 * <mmap:map_region-main> (the functions above mmap, as for heap blocks),
 *   Dw = 131072 (from fill), Dr = 131072 (from sum)
 *   D1mw = D2mw = 16384: the region is fresh, every line's first store is
 *   a cold miss (write-allocate), the other 7 stores to it hit;
 *   with L1=32K:8:64,L2=256K:8:64 the sum pass misses once per line at both
 *   levels too (1 MiB > L2): D1mr = D2mr = 16384.
 * drop_region() first maps 64 KiB, stores one word (bucket
 * <mmap:drop_region-main>, Dw = 1) and unmaps it; the kernel may place the
 * 1 MiB region over those addresses, which must then match only the new
 * region.  main reads the 1 MiB global flush_arr (with sum()) in between so the
 * line drop_region() stored to is no longer cached (1 MiB of distinct lines
 * through an LRU L1 or L2 of at most 256 KiB evicts everything older): the
 * first-touch counts above stay exact even when the addresses are reused.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define N (1u << 20)

uint64_t flush_arr[N / 8] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) uint64_t *map_region(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	return p;
}

__attribute__((noinline)) void drop_region(void)
{
	uint64_t *p = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	p[0] = 1;
	munmap(p, 65536);
}

__attribute__((noinline)) void fill(uint64_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = i;
}

__attribute__((noinline)) uint64_t sum(const uint64_t *p, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += p[i];
	return s;
}

int main(void)
{
	drop_region();
	sink = sum(flush_arr, N / 8);
	uint64_t *r = map_region(N);
	fill(r, N / 8);
	sink = sum(r, N / 8);
	return 0;
}
