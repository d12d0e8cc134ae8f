/* mpi_stencil.c — a 1-D three-point stencil over 4 MPI ranks where rank 0
 * owns twice the data of the others: the load imbalance dcprof report
 * --spread shows.  Built -O2 -g with mpicc (Open MPI).
 *
 * Rank r holds n(r) = 2 N points (r = 0) or N points (r > 0), N = 16,384,
 * in two user-named buckets "grid_a" and "grid_b" (dcprof_malloc_named),
 * accessed through volatile pointers so every access is one 8-byte load
 * or store.  Per rank:
 *   initialisation: n stores to grid_a, n stores to grid_b;
 *   T = 4 sweeps, each over the n - 2 interior points: 3 loads from the
 *   source grid and 1 store to the other, alternating a -> b, b -> a;
 *   the checksum: n loads from grid_a (after an even number of sweeps the
 *   result is in grid_a).
 *   each sweep also loads src[1] and src[n - 2], the values sent as halos
 *   (2 loads from the source grid).
 * So per rank, with sweeps 0 and 2 reading grid_a and 1 and 3 grid_b:
 *   grid_a: Dr = 2 (3 (n - 2) + 2) + n = 7 n - 8    Dw = n + 2 (n - 2) = 3 n - 4
 *   grid_b: Dr = 2 (3 (n - 2) + 2)     = 6 n - 8    Dw = 3 n - 4
 *   rank 0 (n = 32,768): grid_a Dr 229,368, grid_b Dr 196,600, each Dw 98,300
 *   rank r (n = 16,384): grid_a Dr 114,680, grid_b Dr  98,296, each Dw 49,148
 * Over the 4 ranks grid_a has Dr = 573,408; its mean per rank is 143,352
 * and rank 0's 229,368 is 1.6000 of it (the imbalance report --spread
 * shows; grid_b: 196,600 / 122,872 = 1.6000).
 */
#include <mpi.h>
#include <stdio.h>

#include "dcprof.h"

#define N 16384
#define T 4

int main(int argc, char **argv)
{
	int rank, size;
	double sum = 0, total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	long n = rank == 0 ? 2 * N : N;
	volatile double *a = dcprof_malloc_named(n * sizeof(double), "grid_a");
	volatile double *b = dcprof_malloc_named(n * sizeof(double), "grid_b");

	for (long i = 0; i < n; i++) {
		a[i] = (double)(rank * 3 + i % 7);
		b[i] = 0;
	}
	for (int t = 0; t < T; t++) {
		volatile double *src = t % 2 ? b : a, *dst = t % 2 ? a : b;
		double left = 0, right = 0, mine_l = src[1], mine_r = src[n - 2];
		int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
		int down = rank > 0 ? rank - 1 : MPI_PROC_NULL;

		MPI_Sendrecv(&mine_r, 1, MPI_DOUBLE, up, 0, &left, 1, MPI_DOUBLE, down, 0,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(&mine_l, 1, MPI_DOUBLE, down, 1, &right, 1, MPI_DOUBLE, up, 1,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		(void)left;
		(void)right;
		for (long i = 1; i < n - 1; i++)
			dst[i] = (src[i - 1] + src[i] + src[i + 1]) / 3;
	}
	for (long i = 0; i < n; i++)
		sum += a[i];
	MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_stencil: %d ranks, checksum %.3f\n", size, total);
	MPI_Finalize();
	return 0;
}
