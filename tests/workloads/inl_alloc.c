/* inl_alloc.c — inlined allocators and an inlined hot loop, built -O2 -g as
 * users build (equake's shape: a static mem_init() that allocates a
 * pointer matrix, called once, so GCC inlines it into main, and a static
 * smvp() likewise).  The test checks with the symbol table that mem_init,
 * safe_malloc and smvp have no code of their own.
 *
 * mem_init: mat = malloc(N pointers)          line SITE:ptrs
 *   bucket mem_init (inl_alloc.c:SITE:ptrs) < main — 1 block, 8 N bytes.
 *   then N x safe_malloc(3 doubles)           line SITE:rows, inside
 *   safe_malloc's malloc at line SITE:wrap
 *   default: bucket safe_malloc (inl_alloc.c:SITE:wrap) < mem_init < main
 *   --alloc-fn=safe_malloc: bucket mem_init (inl_alloc.c:SITE:rows) < main
 *   N blocks, 24 N bytes.
 * smvp: R rounds over the N rows, s += mat[i][0] * mat[i][1] + mat[i][2]:
 *   per (round, row) one load of mat[i] and three of the row (mat itself
 *   is loaded outside the loops, and the sum stays in a register: the FP
 *   reduction cannot be vectorized without -ffast-math).
 *   Rows bucket: Dr = 3 R N = 3 * 50 * 2000 = 300,000, all by smvp.
 *   Pointer bucket: Dr = R N = 100,000, all by smvp.
 *   smvp's code is inlined into main: report --by function charges it to
 *   "smvp [inlined into main]", never to main.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 2000
#define R 50

static double **mat;

static void *safe_malloc(size_t size)
{
	void *p = malloc(size); /* SITE:wrap */
	if (!p)
		abort();
	return p;
}

static void mem_init(void)
{
	mat = malloc(N * sizeof *mat); /* SITE:ptrs */
	if (!mat)
		abort();
	for (int i = 0; i < N; i++) {
		mat[i] = safe_malloc(3 * sizeof **mat); /* SITE:rows */
		mat[i][0] = i;
		mat[i][1] = 0.5;
		mat[i][2] = 1;
	}
}

static double smvp(void)
{
	double s = 0;
	for (int r = 0; r < R; r++)
		for (int i = 0; i < N; i++)
			s += mat[i][0] * mat[i][1] + mat[i][2]; /* LINE:smvp */
	return s;
}

int main(void)
{
	mem_init(); /* SITE:main */
	printf("%.1f\n", smvp());
	return 0;
}
