/* straddle.c — 8-byte loads that straddle two cache lines.
 *
 * Rule under test (the model's Notes, as Cachegrind): an access that
 * straddles two lines is ONE access and, at each level, ONE miss if either
 * of the two lines misses (both lines are then present afterwards).
 *
 * Layout: two globals strad_a, strad_b of K*128 bytes (K = 64 -> 8 KiB,
 * 128 lines each), 64-byte aligned; chunk k is bytes [128k, 128k+128), i.e.
 * lines 2k and 2k+1.  A load at 128k+60 covers bytes 60..67 of the chunk:
 * the last 4 bytes of line 2k and the first 4 of line 2k+1.  Everything fits
 * a 32K:8:64 L1 (256 of its 512 lines, 4 of 8 ways per set), so no evictions.
 *
 * strad_a: pass 1 straddling loads at 128k+60: both lines cold, counted as
 *            ONE miss each                      -> K accesses, K misses
 *          pass 2 loads at 128k+64 (line 2k+1)  -> K hits (line was loaded)
 *          pass 3 loads at 128k    (line 2k)    -> K hits
 *   Dr = 3K = 192, D1mr = K = 64  (D2mr = 64 with a larger L2)
 * strad_b: pass 1 loads at 128k (line 2k)       -> K misses
 *          pass 2 straddling loads at 128k+60: line 2k hits, 2k+1 misses,
 *            so each is still ONE miss          -> K misses
 *   Dr = 2K = 128, D1mr = 2K = 128
 * Dw = 0 for both.
 */
#include <stdint.h>
#include <string.h>

#define K 64

unsigned char strad_a[K * 128] __attribute__((aligned(64)));
unsigned char strad_b[K * 128] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) static uint64_t load_each(const unsigned char *base, size_t off)
{
	uint64_t s = 0;
	for (int k = 0; k < K; k++) {
		uint64_t v;
		memcpy(&v, base + 128 * k + off, sizeof v); /* one 8-byte mov */
		s += v;
	}
	return s;
}

int main(void)
{
	uint64_t s = 0;
	s += load_each(strad_a, 60);
	s += load_each(strad_a, 64);
	s += load_each(strad_a, 0);
	s += load_each(strad_b, 0);
	s += load_each(strad_b, 60);
	sink = s;
	return 0;
}
