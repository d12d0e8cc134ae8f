/* bench_stream.c — benchmark: stream a 64 MiB array (write once, read 24
 * times; -O2 may vectorize the loops).  Sized so Cachegrind takes a few
 * seconds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (64u << 20)

uint64_t bench_big[N / 8] __attribute__((aligned(64)));

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 24;
	for (size_t i = 0; i < N / 8; i++)
		bench_big[i] = i;
	uint64_t s = 0;
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < N / 8; i++)
			s += bench_big[i] ^ (uint64_t)p;
	printf("%llu\n", (unsigned long long)s);
	return 0;
}
