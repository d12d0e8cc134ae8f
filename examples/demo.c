/* demo.c — a small program with a data-layout problem, profiled by `make demo`.
 *
 * Three kinds of data:
 *   grid        a 2 MiB global matrix that column_sums() walks column by
 *               column: every access lands on a new cache line (the bad
 *               access pattern; row order would miss once per 8 doubles)
 *   weights     a small global table, read all the time and always cached
 *   particles   20000 separate 32-byte heap blocks allocated by
 *               make_particles() (bucket make_particles-main), linked in
 *               shuffled order and walked by step(): scattered small blocks
 *   histogram   a block named by the program through dcprof.h
 *
 * Try:  dcprof report build/demo.db
 *       dcprof report build/demo.db --object grid
 *       dcprof report build/demo.db --stats
 */
#include <stdio.h>
#include <stdlib.h>

#include "dcprof.h"

#define ROWS 512
#define COLS 512
#define NPART 20000

struct particle {
	struct particle *next;
	double x, v;
	long cell;
};

double grid[ROWS][COLS];
double weights[64];

__attribute__((noinline)) static void fill_grid(void)
{
	for (int i = 0; i < ROWS; i++)
		for (int j = 0; j < COLS; j++)
			grid[i][j] = (i * 31 + j) % 17;
	for (int k = 0; k < 64; k++)
		weights[k] = 1.0 / (k + 1);
}

/* The slow loop: the inner loop strides a whole row (4 KiB) per access. */
__attribute__((noinline)) static double column_sums(void)
{
	double total = 0;
	for (int j = 0; j < COLS; j++)
		for (int i = 0; i < ROWS; i++)
			total += grid[i][j] * weights[i % 64];
	return total;
}

__attribute__((noinline)) static struct particle *make_particles(int n)
{
	struct particle **all = malloc(n * sizeof *all);
	if (!all)
		exit(1);
	for (int i = 0; i < n; i++) {
		all[i] = malloc(sizeof(struct particle));
		if (!all[i])
			exit(1);
		all[i]->x = i;
		all[i]->v = 1.0;
		all[i]->cell = i % 64;
	}
	unsigned r = 12345;
	for (int i = n - 1; i > 0; i--) {       /* shuffle the list order */
		r = r * 1103515245u + 12345u;
		int j = (int)(r % (unsigned)(i + 1));
		struct particle *t = all[i];
		all[i] = all[j];
		all[j] = t;
	}
	for (int i = 0; i < n; i++)
		all[i]->next = i + 1 < n ? all[i + 1] : NULL;
	struct particle *head = all[0];
	free(all);
	return head;
}

__attribute__((noinline)) static void step(struct particle *p, long *hist)
{
	for (; p; p = p->next) {
		p->x += p->v * weights[p->cell];
		hist[(long)p->x & 255]++;
	}
}

int main(void)
{
	fill_grid();
	struct particle *list = make_particles(NPART);
	long *hist = dcprof_calloc_named(256, sizeof *hist, "histogram");
	if (!hist)
		return 1;
	double s = 0;
	for (int it = 0; it < 3; it++) {
		s += column_sums();
		step(list, hist);
	}
	printf("demo: checksum %.3f, hist[7] = %ld\n", s, hist[7]);
	return 0;
}
