/* omp_spin.c — an OpenMP program (2 threads) whose second thread waits at
 * barriers while the first works: libgomp spin-waits there unless
 * OMP_WAIT_POLICY=passive.  Built -O2 -g -fopenmp (libgomp).
 *
 * omp_a is a global of N = 65,536 doubles (512 KiB), accessed through a
 * volatile pointer so that every access is one 8-byte load or store:
 *   phase 1, R = 8 times, a parallel for over all N elements (static
 *     schedule, both threads): one store each          -> Dw  8 N = 524,288
 *   phase 2, R = 8 times, a parallel region in which only thread 0 walks
 *     all N elements, a load and a store each (the other thread waits at
 *     the region's end)                                 -> Dr  8 N = 524,288
 *                                                          Dw  8 N = 524,288
 *   the checksum loop, on one thread: one load each    -> Dr      N =  65,536
 * omp_a in total: Dr = 9 N = 589,824, Dw = 16 N = 1,048,576.  After phase
 * 1 a[i] = 7 i, after phase 2 7 i + 8: the checksum is 7 N(N-1)/2 + 8 N =
 * 15,032,680,448.
 */
#include <omp.h>
#include <stdio.h>

#define N 65536
#define R 8

double omp_a[N];

int main(void)
{
	volatile double *a = omp_a;
	double sum = 0;

	for (int r = 0; r < R; r++) {
#pragma omp parallel for schedule(static) num_threads(2)
		for (int i = 0; i < N; i++)
			a[i] = (double)i * r;
	}
	for (int r = 0; r < R; r++) {
#pragma omp parallel num_threads(2)
		{
			if (omp_get_thread_num() == 0)
				for (int i = 0; i < N; i++)
					a[i] = a[i] + 1;
		}
	}
	for (int i = 0; i < N; i++)
		sum += omp_a[i];
	printf("omp_spin: checksum %.0f\n", sum);
	return 0;
}
