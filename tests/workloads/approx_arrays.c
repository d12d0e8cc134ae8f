/* approx_arrays.c — twelve arrays with a known miss distribution, for dcprof
 * approx's rank tests (tests/e2e/test_cli_approx.py).
 *
 * Each array holds 16384 doubles (128 KiB, four times the 32 KiB L1 of the
 * default hierarchy) and is swept sequentially PASSES times by a loop of
 * its own, each element read and written (a[i] += 1.0): every pass misses
 * every one of its 2048 lines of 64 bytes in L1 (the array is larger than
 * L1, so LRU has evicted them since the last pass), all read misses; the
 * write hits the line just read.  So array k's D1 misses are about
 * passes[k] * 2048, passes 12 for g0 down to 1 for h11: twelve distinct
 * counts, no two within 8 %.  Six arrays are globals, six heap blocks
 * assigned to local pointers; the loops' index and pass counters stay in
 * registers at -O2.  Built -O2 -g (STYLE rule 12).
 */
#include <stdio.h>
#include <stdlib.h>

#define N 16384

double g0[N], g1[N], g2[N], g3[N], g4[N], g5[N];

static void sweep(double *a, int passes)
{
	for (int p = 0; p < passes; p++) {
		for (int i = 0; i < N; i++) {
			a[i] += 1.0;
		}
	}
}

int main(void)
{
	double *h6 = malloc(N * sizeof *h6);
	double *h7 = malloc(N * sizeof *h7);
	double *h8 = malloc(N * sizeof *h8);
	double *h9 = malloc(N * sizeof *h9);
	double *h10 = malloc(N * sizeof *h10);
	double *h11 = malloc(N * sizeof *h11);
	double s = 0;
	int p, i;

	if (!h6 || !h7 || !h8 || !h9 || !h10 || !h11)
		return 1;
	for (p = 0; p < 12; p++) {
		for (i = 0; i < N; i++) {
			g0[i] += 1.0;
		}
	}
	for (p = 0; p < 11; p++) {
		for (i = 0; i < N; i++) {
			g1[i] += 1.0;
		}
	}
	for (p = 0; p < 10; p++) {
		for (i = 0; i < N; i++) {
			g2[i] += 1.0;
		}
	}
	for (p = 0; p < 9; p++) {
		for (i = 0; i < N; i++) {
			g3[i] += 1.0;
		}
	}
	for (p = 0; p < 8; p++) {
		for (i = 0; i < N; i++) {
			g4[i] += 1.0;
		}
	}
	for (p = 0; p < 7; p++) {
		for (i = 0; i < N; i++) {
			g5[i] += 1.0;
		}
	}
	for (p = 0; p < 6; p++) {
		for (i = 0; i < N; i++) {
			h6[i] = i + p;
		}
	}
	for (p = 0; p < 5; p++) {
		for (i = 0; i < N; i++) {
			h7[i] = i + p;
		}
	}
	for (p = 0; p < 4; p++) {
		for (i = 0; i < N; i++) {
			h8[i] = i + p;
		}
	}
	for (p = 0; p < 3; p++) {
		for (i = 0; i < N; i++) {
			h9[i] = i + p;
		}
	}
	for (p = 0; p < 2; p++) {
		for (i = 0; i < N; i++) {
			h10[i] = i + p;
		}
	}
	sweep(h11, 1);
	s = g0[1] + g1[2] + g2[3] + g3[4] + g4[5] + g5[6] + h6[7] + h7[8] + h8[9] + h9[10] +
	    h10[11] + h11[12];
	printf("%g\n", s);
	return 0;
}
