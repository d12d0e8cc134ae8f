/* replay_mix.c — misses in globals, heap blocks that come and go, and the
 * stack, for replaying a simulator run's sampled misses natively
 * (tests/e2e/test_native_replay.py).
 *
 * `replay_mix [ROUNDS]` (default 40): each round allocates two blocks,
 * 64 KiB from rm_new_big and 24 KiB from rm_new_small (two heap buckets),
 * writes and then reads every 64-byte line of both, reads every line of
 * the global rm_table (48 KiB) and of an 8 KiB array on the stack, and
 * frees both blocks.  With a 32 KiB L1 every one of these sweeps misses
 * L1 on most lines (each sweep covers more than L1 between two touches of
 * a line), so D1 misses fall into all four kinds of bucket.  glibc hands
 * the freed blocks' memory out again the next round: the same addresses
 * are different blocks over time, which only the allocation clock of the
 * replay tells apart.  Every allocation happens in main's rounds and
 * printf's buffer: the program's allocation events are the same under
 * both engines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (64 * 1024)
#define SMALL (24 * 1024)
#define TABLE (48 * 1024 / 8)

volatile unsigned long rm_table[TABLE];
volatile unsigned long rm_sink;

__attribute__((noinline)) static char *rm_new_big(void)
{
	return malloc(BIG);
}

__attribute__((noinline)) static char *rm_new_small(void)
{
	return malloc(SMALL);
}

__attribute__((noinline)) static void sweep(volatile char *p, size_t n)
{
	for (size_t i = 0; i < n; i += 64)
		p[i] = (char)i;
	for (size_t i = 0; i < n; i += 64)
		rm_sink += (unsigned char)p[i];
}

__attribute__((noinline)) static void on_stack(int round)
{
	volatile char buf[8192];

	for (size_t i = 0; i < sizeof buf; i += 64)
		buf[i] = (char)(i + (size_t)round);
	for (size_t i = 0; i < sizeof buf; i += 64)
		rm_sink += (unsigned char)buf[i];
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 40;

	for (int r = 0; r < rounds; r++) {
		char *big = rm_new_big(), *small = rm_new_small();
		if (!big || !small)
			return 1;
		sweep(big, BIG);
		sweep(small, SMALL);
		for (size_t i = 0; i < TABLE; i += 8)
			rm_sink += rm_table[i];
		on_stack(r);
		free(small);
		free(big);
	}
	printf("%lu\n", rm_sink);
	return 0;
}
