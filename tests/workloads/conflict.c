/* conflict.c — set conflicts in a small set-associative cache.
 *
 * Run with --cache=L1=4K:2:64,L2=64K:8:64.  L1 has 4096/64/2 = 32 sets, so
 * addresses 2 KiB apart map to the same set.
 *
 * Layout: three globals conf_x, conf_y, conf_z of 2 KiB (256 uint64_t, 32
 * lines) each, every one aligned to 4 KiB: each array's line k falls into L1
 * set k, for k = 0..31, whatever order the linker puts them in.
 *
 * `conflict 3 [P]`: P passes (default 100) of s += x[i] + y[i] + z[i].  In
 * every set three lines are used round-robin by a 2-way LRU set: each access
 * finds its line evicted by the other two (x evicts the LRU line, ...), so
 * EVERY access misses L1:
 *     conf_x, conf_y, conf_z   Dr = D1mr = 256 P = 25600 each
 *   L2 (128 sets, 8 ways, 64 KiB) holds all three: only the cold misses,
 *     D2mr = 32 each.
 * `conflict 2 [P]`: the same with x and y only.  Two lines per set fit the
 *   two ways, and nothing else is accessed inside sum_n() (all in
 *   registers, one call for all passes), so only cold misses:
 *     conf_x, conf_y   Dr = 256 P = 25600 each, D1mr = D2mr = 32 each
 *     conf_z           not accessed
 * All arrays are only read: Dw = 0.  sink gets one store.
 */
#include <stdint.h>
#include <stdlib.h>

#define WORDS 256

uint64_t conf_x[WORDS] __attribute__((aligned(4096)));
uint64_t conf_y[WORDS] __attribute__((aligned(4096)));
uint64_t conf_z[WORDS] __attribute__((aligned(4096)));
volatile uint64_t sink;

__attribute__((noinline)) static uint64_t sum_3(const uint64_t *x, const uint64_t *y,
						const uint64_t *z, int passes)
{
	uint64_t s = 0;
	for (int p = 0; p < passes; p++)
		for (int i = 0; i < WORDS; i++)
			s += x[i] + y[i] + z[i];
	return s;
}

__attribute__((noinline)) static uint64_t sum_2(const uint64_t *x, const uint64_t *y, int passes)
{
	uint64_t s = 0;
	for (int p = 0; p < passes; p++)
		for (int i = 0; i < WORDS; i++)
			s += x[i] + y[i];
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int passes = argc > 2 ? atoi(argv[2]) : 100;
	if (n == 3)
		sink = sum_3(conf_x, conf_y, conf_z, passes);
	else
		sink = sum_2(conf_x, conf_y, passes);
	return 0;
}
