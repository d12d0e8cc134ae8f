/* reuse_random.c — uniformly random accesses over K lines (issue 5: "a random
 * pattern with known expectation").
 *
 * Usage: reuse_random K N      (run with --collect-atstart=no)
 *
 * First every line is touched once in order (K first touches), then N loads
 * pick a line uniformly at random (xorshift64, state and sum in registers,
 * so while collecting the only data accesses are the loads of rand_data,
 * one 8-byte load per chosen 64-byte line; STOP's request words come after).
 *
 * Expected under this independent reference model with K equally likely
 * blocks:
 *  - stack distance of a reuse is uniform on {0, ..., K-1}: after an access
 *    to block x, the order in which blocks are first seen again is a
 *    uniformly random permutation of all K, and x's place in it is uniform;
 *    the distance is the number of blocks before x.  With bins 1:2 the share
 *    of bin 0 ({0}) is 1/K, bin 1 ({1}) 1/K, bin k >= 2 ([2^(k-1), 2^k))
 *    2^(k-1)/K, for K a power of two.
 *  - time distance is geometric with p = 1/K: P(T >= t) = (1-p)^(t-1), so
 *    bin [a, b) has share (1-p)^(a-1) - (1-p)^(b-1).
 * The first N accesses' reuses are of blocks last touched in the ordered
 * first pass, which biases them slightly; with N >> K that is at most K of N
 * reuses, part of the bound the test allows.
 */
#include <stdint.h>
#include <stdlib.h>
#include "dcprof.h"

#define MAX_LINES 65536
long rand_data[MAX_LINES * 8];

int main(int argc, char **argv)
{
	long k = argc > 1 ? atol(argv[1]) : 1024;
	long n = argc > 2 ? atol(argv[2]) : 100000;
	uint64_t x = 88172645463325252ULL;
	long sum = 0;

	if (k < 1 || k > MAX_LINES || (k & (k - 1)) || n < 0)
		return 2;
	DCPROF_START();
	for (long i = 0; i < k * 8; i += 8)
		sum += rand_data[i];
	for (long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		sum += rand_data[(x % (uint64_t)k) * 8];
	}
	DCPROF_STOP();
	return (int)(sum & 1);
}
