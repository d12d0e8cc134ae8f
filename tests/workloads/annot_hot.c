/* annot_hot.c — a source line with a known share of the misses, for dcprof
 * annotate.  Built -O2 -g, as users build, with parts/annot_fill.c (the
 * Makefile), so a test can move one of the two sources away.
 *
 * rows_a is 4 MiB and rows_b 2 MiB; sweep() reads rows_a[i] and
 * rows_b[i / 2] for every i that is a multiple of 64, both on the line
 * marked HOT.  A cache line is 64 bytes, so every rows_a access loads a
 * new line and every second rows_b access does; 6 MiB do not fit the
 * 1 MiB L2 of the tests' --cache=L1=32K:8:64,L2=1M:16:64, so each of the
 * REPS sweeps misses again:
 *   rows_a: 65,536 reads per sweep, 65,536 L1 and L2 misses
 *   rows_b: 65,536 reads per sweep, 32,768 L1 and L2 misses
 * so the HOT line's MissLat falls on rows_a and rows_b about 2 : 1.  The
 * tests take the exact split from the profile's cost table.
 * fill() (annot_fill.c) writes both arrays first: another hot line, in
 * another file.
 */
#include <stdio.h>

#define N (4L << 20)
#define REPS 3

char rows_a[N];
char rows_b[N / 2];

void fill(char *a, long n, int seed);

__attribute__((noinline)) long sweep(void)
{
	long s = 0;

	for (int r = 0; r < REPS; r++)
		for (long i = 0; i < N; i += 64)
			s += rows_a[i] * rows_b[i / 2];   /* HOT */
	return s;
}

int main(void)
{
	fill(rows_a, N, 1);
	fill(rows_b, N / 2, 2);
	printf("annot_hot: %ld\n", sweep());
	return 0;
}
