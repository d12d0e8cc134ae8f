/* cpu_hot.c — one hot function, for cpu-clock IP sampling
 * (tests/e2e/test_native_replay.py, CpuClock).
 *
 * `cpu_hot [N]` (default 400000000): hot() runs N steps of a 64-bit LCG
 * (Knuth's MMIX constants), cold() N / 19 steps of the same loop; each step
 * is a multiply and an add that depend on the previous step, so both
 * loops run at the same steps per second and hot() takes 19/20 = 95 % of
 * the program's CPU time (start-up and exit are microseconds).  The program
 * prints the run-time addresses of hot and cold, so a test can find their
 * instructions under address-space randomisation (with the symbols'
 * offsets from nm).
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned long hot(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

__attribute__((noinline)) unsigned long cold(unsigned long n, unsigned long x)
{
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 400000000UL;
	unsigned long x = hot(n, 1);

	x = cold(n / 19, x);
	printf("hot %p cold %p %lu\n", (void *)hot, (void *)cold, x);
	return 0;
}
