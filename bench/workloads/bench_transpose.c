/* bench_transpose.c — benchmark: naive transposition of a 2048 x 2048
 * matrix of doubles (32 MiB) back and forth.  Column-wise stores miss on
 * nearly every access. */
#include <stdio.h>
#include <stdlib.h>

#define DIM 2048

static double src[DIM][DIM];
static double dst[DIM][DIM];

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 10;
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++)
			src[i][j] = i + 0.5 * j;
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < DIM; i++)
			for (int j = 0; j < DIM; j++)
				dst[j][i] = src[i][j];
		for (int i = 0; i < DIM; i++)
			for (int j = 0; j < DIM; j++)
				src[j][i] = dst[i][j];
	}
	printf("%g\n", src[3][5] + dst[7][11]);
	return 0;
}
