/* hot_table.c — a small global table written once, then read many times.
 *
 * Layout: uint64_t hot_table[128] = 1 KiB, 64-byte aligned: 16 lines, one
 * line in each of 16 consecutive sets of any cache with >= 16 sets.
 *
 * init_table() stores 128 words; read_all() loads each word R times, all
 * other values in registers, so nothing else is accessed between the loads.
 *
 * Expected, R = 10000 (argv[1] overrides), any cache level >= 16 lines with
 * >= 2 ways (e.g. L1=32K:8:64):
 *   hot_table  Dw = 128, D1mw = D2mw = 16   (write-allocate: the first store
 *                                            to each line misses and loads it)
 *              Dr = 128 * R = 1280000, D1mr = 0, D2mr = 0
 *   The reads all hit: the 16 lines are loaded by the stores, and between
 *   init_table() and the end of read_all() only a handful of stack accesses
 *   (call/ret) compete for their sets, fewer than the ways of any set.
 *   Lat with --latency=L1=a,L2=b,MEM=m:
 *       reads 128 R a;  writes (128-16) a + 16 m
 *   sink  Dw = 1.
 */
#include <stdint.h>
#include <stdlib.h>

uint64_t hot_table[128] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) static void init_table(uint64_t *t)
{
	for (int i = 0; i < 128; i++)
		t[i] = (uint64_t)i * 2654435761u;
}

__attribute__((noinline)) static uint64_t read_all(const uint64_t *t, int rounds)
{
	uint64_t s = 0;
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < 128; i++)
			s += t[i] ^ (uint64_t)r;
	return s;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10000;
	init_table(hot_table);
	sink = read_all(hot_table, rounds);
	return 0;
}
