/* cg_matmul.c — Cachegrind agreement: naive i-j-k matrix multiply
 * C[16][512] += A[16][1024] * B[1024][512] with doubles (B is 4 MiB).  The
 * inner loop walks a column of B with a 4 KiB stride, which maps every
 * element to a handful of D1 sets: almost every B load misses D1.
 * 8M multiply-adds, 16M loads.  No malloc, no stdio.
 */
#define M 16
#define K 1024
#define NC 512

double cg_a[M][K] __attribute__((aligned(64)));
double cg_b[K][NC] __attribute__((aligned(64)));
double cg_c[M][NC] __attribute__((aligned(64)));
volatile double sink;

__attribute__((noinline)) static void init(void)
{
	for (int i = 0; i < M; i++)
		for (int k = 0; k < K; k++)
			cg_a[i][k] = i - k;
	for (int k = 0; k < K; k++)
		for (int j = 0; j < NC; j++)
			cg_b[k][j] = 0.25 * k + j;
}

__attribute__((noinline)) static void matmul(void)
{
	for (int i = 0; i < M; i++)
		for (int j = 0; j < NC; j++) {
			double s = cg_c[i][j];
			for (int k = 0; k < K; k++)
				s += cg_a[i][k] * cg_b[k][j];
			cg_c[i][j] = s;
		}
}

int main(void)
{
	init();
	matmul();
	sink = cg_c[5][7];
	return 0;
}
