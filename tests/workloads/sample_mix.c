/* sample_mix.c — L1 misses spread over six arrays in pseudo-random order,
 * for checking sampled miss shares against the exact ones.
 *
 * Run with --cache=L1=32K:8:64,L2=1M:16:64 (CACHE_2).
 *
 * Layout: six globals mix_a .. mix_f of 64 KiB (8192 uint64_t, 1024 lines)
 * each.  `sample_mix [K [SEED]]`: mix_walk() makes K accesses (default
 * 500000); before each it steps a 64-bit LCG (Knuth's MMIX constants) and
 * uses the top 10 bits x (0..1023) to pick the array:
 *     x <  410  mix_a   share 410/1024 = 40.0 %
 *     x <  666  mix_b         256/1024 = 25.0 %
 *     x <  820  mix_c         154/1024 = 15.0 %
 *     x <  922  mix_d         102/1024 = 10.0 %
 *     x <  973  mix_e          51/1024 =  5.0 %
 *     else      mix_f          51/1024 =  5.0 %
 * and reads the next line of that array (each array has its own cursor,
 * advancing 64 bytes per access and wrapping after 1024 lines).  All state
 * is in registers; the loads are volatile, so each is made once and in
 * program order.
 *
 * Every access misses L1: a line of array X is read again only after the
 * other 1023 lines of X, which cover each of the 64 sets of L1 16 times —
 * more than its 8 ways — so LRU has evicted it.  L2 (1 MiB) holds all six
 * arrays (384 KiB): after the 6144 cold misses everything hits L2.  Each
 * array's miss count is therefore its access count, a pseudo-random draw
 * with the shares above (the exact counts are whatever the LCG gives; the
 * tests compare with the profile's exact table, not with these shares).
 *
 * Evictions at L1: the victim of a miss is the least recently used line of
 * its set, which was brought in by an earlier pseudo-random access — so the
 * eviction matrix is dense, every array evicting every other.
 *
 * The walk is between DCPROF_START() and DCPROF_STOP(): recorded with
 * --collect-atstart=no, the measured misses are (apart from a few stack
 * words of mix_walk's prologue and the stop request) exactly this
 * pseudo-random stream, whose bucket labels are independent of where the
 * sampler's randomized period falls — the premise of the binomial error
 * bound in test_engine_sampling.py.  Recorded from the start, the program's
 * start-up and exit add misses in other buckets.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dcprof.h"

#define WORDS 8192      /* 64 KiB */
#define MASK (WORDS - 1)

volatile uint64_t mix_a[WORDS] __attribute__((aligned(64)));
volatile uint64_t mix_b[WORDS] __attribute__((aligned(64)));
volatile uint64_t mix_c[WORDS] __attribute__((aligned(64)));
volatile uint64_t mix_d[WORDS] __attribute__((aligned(64)));
volatile uint64_t mix_e[WORDS] __attribute__((aligned(64)));
volatile uint64_t mix_f[WORDS] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) static uint64_t mix_walk(long k, uint64_t r)
{
	unsigned long ia = 0, ib = 0, ic = 0, id = 0, ie = 0, jf = 0;
	uint64_t s = 0;

	for (long n = 0; n < k; n++) {
		unsigned x;

		r = r * 6364136223846793005ULL + 1442695040888963407ULL;
		x = (unsigned)(r >> 54);
		if (x < 410) {
			s += mix_a[ia];
			ia = (ia + 8) & MASK;
		} else if (x < 666) {
			s += mix_b[ib];
			ib = (ib + 8) & MASK;
		} else if (x < 820) {
			s += mix_c[ic];
			ic = (ic + 8) & MASK;
		} else if (x < 922) {
			s += mix_d[id];
			id = (id + 8) & MASK;
		} else if (x < 973) {
			s += mix_e[ie];
			ie = (ie + 8) & MASK;
		} else {
			s += mix_f[jf];
			jf = (jf + 8) & MASK;
		}
	}
	return s;
}

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 500000;
	uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 12345;
	uint64_t s;

	DCPROF_START();
	s = mix_walk(k, seed);
	DCPROF_STOP();
	sink = s;
	return 0;
}
