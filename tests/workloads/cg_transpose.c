/* cg_transpose.c — Cachegrind agreement: naive transposition of a 1024 x
 * 1024 matrix of doubles (8 MiB) into another, twice.  The column-wise
 * stores stride 8 KiB, so (nearly) every store misses D1; the row-wise loads
 * miss once per line.  No malloc, no stdio.
 */
#include <stdint.h>

#define DIM 1024

double cg_src[DIM][DIM] __attribute__((aligned(64)));
double cg_dst[DIM][DIM] __attribute__((aligned(64)));
volatile double sink;

__attribute__((noinline)) static void init(double (*m)[DIM])
{
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++)
			m[i][j] = i + 0.5 * j;
}

__attribute__((noinline)) static void transpose(double (*dst)[DIM], double (*src)[DIM])
{
	for (int i = 0; i < DIM; i++)
		for (int j = 0; j < DIM; j++)
			dst[j][i] = src[i][j];
}

int main(void)
{
	init(cg_src);
	transpose(cg_dst, cg_src);
	transpose(cg_src, cg_dst);
	sink = cg_src[3][5] + cg_dst[7][11];
	return 0;
}
