/* startstop.c — DCPROF_START/DCPROF_STOP bound the measured region.
 *
 * Globals (64-byte aligned, only read): before_arr and inside_arr of 1 MiB
 * (16384 lines, 131072 words), warm_arr of 16 KiB (256 lines, 2048 words).
 *
 * Order:  stream before_arr; read warm_arr;  START;  read warm_arr;
 *         stream inside_arr;  STOP;  stream before_arr again; read warm_arr.
 *
 * With --collect-atstart=no and --cache=L1=32K:8:64,L2=1M:16:64:
 *   before_arr   no accesses counted (Dr = 0, or no cost rows at all)
 *   warm_arr     Dr = 2048, D1mr = 0: the cache is simulated all the time,
 *                so the region starts with warm_arr in L1 (16 KiB of a 32 KiB
 *                8-way L1: 4 ways of every set, loaded just before START;
 *                only the client-request code runs in between).
 *   inside_arr   Dr = 131072, D1mr = D2mr = 16384 (never touched before:
 *                every line is a cold miss at every level, 8 loads per line)
 *   Nothing after STOP is counted.
 * With the default --collect-atstart=yes, collection runs from the start
 * until STOP (START is then a no-op):
 *   before_arr   Dr = 131072 (the first stream only)
 *   warm_arr     Dr = 4096
 *   inside_arr   Dr = 131072
 */
#include <stdint.h>
#include <stdlib.h>

#include "dcprof.h"

#define BIG (1u << 20)
#define WARM (16u << 10)

uint64_t before_arr[BIG / 8] __attribute__((aligned(64)));
uint64_t inside_arr[BIG / 8] __attribute__((aligned(64)));
uint64_t warm_arr[WARM / 8] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) static uint64_t sum_words(const uint64_t *a, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

int main(void)
{
	uint64_t s = sum_words(before_arr, BIG / 8);
	s += sum_words(warm_arr, WARM / 8);
	DCPROF_START();
	s += sum_words(warm_arr, WARM / 8);
	s += sum_words(inside_arr, BIG / 8);
	DCPROF_STOP();
	s += sum_words(before_arr, BIG / 8);
	s += sum_words(warm_arr, WARM / 8);
	sink = s;
	return 0;
}
