/* bench_matmul.c — benchmark: naive i-j-k multiply of 600 x 600 doubles. */
#include <stdio.h>
#include <stdlib.h>

#define DIM 600

static double a[DIM][DIM], b[DIM][DIM], c[DIM][DIM];

int main(void)
{
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++) {
			a[i][j] = i - j;
			b[i][j] = 0.5 * i + j;
		}
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++) {
			double s = 0;
			for (int k = 0; k < DIM; k++)
				s += a[i][k] * b[k][j];
			c[i][j] = s;
		}
	printf("%g\n", c[7][11]);
	return 0;
}
