/* cu_hydro.c — cache use of a HYDRO-like transposition (seeds/001 §4):
 * a row-major 512 x 512 matrix of doubles (2 MiB) read by columns, and a
 * contiguous copy of 64 Ki doubles (512 KiB each way).  No malloc, no stdio;
 * the arrays stay zero (reading .bss is enough), so every line of them is
 * first loaded by the loops below.
 *
 * Expected, with L1=32K:8:64 (64 sets), L2=1M:16:64, 64-byte aligned arrays
 * (derivations in tests/e2e/test_engine_cacheuse.py).
 */
#define DIM 512
#define COPY (64 * 1024)

double hydro_m[DIM][DIM] __attribute__((aligned(64)));
double copy_src[COPY] __attribute__((aligned(64)));
double copy_dst[COPY] __attribute__((aligned(64)));
volatile double sink;

__attribute__((noinline)) static double column_sum(double (*m)[DIM])
{
	double s = 0;

	for (int j = 0; j < DIM; j++)
		for (int i = 0; i < DIM; i++)
			s += m[i][j]; /* LINE:column_read */
	return s;
}

__attribute__((noinline)) static void copy(double *dst, const double *src, int n)
{
	for (int i = 0; i < n; i++)
		dst[i] = src[i]; /* LINE:copy */
}

int main(void)
{
	sink = column_sum(hydro_m);
	copy(copy_dst, copy_src, COPY);
	return 0;
}
