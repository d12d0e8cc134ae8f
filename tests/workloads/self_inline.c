/* self_inline.c — GCC's partial inlining leaves a function "inlined into
 * itself": built -O2 -g as users build (GCC 12), gen() below is split
 * (ipa-split) into a header — the early return — and its body, and the
 * body is inlined back into the out-of-line gen().  The DWARF of that
 * copy then says: a DW_TAG_inlined_subroutine of gen inside gen, called
 * from gen's own declaration line (DW_AT_call_line = the line of
 * "char *gen(", marker DECL:gen), and addr2line -i prints two frames of
 * gen for every instruction of the body.  minimap2's mm_idx_gen, kcalloc
 * and mm_tbuf_destroy are such functions.
 *
 * The program is one frame of gen, not two: the calloc at SITE:gen is
 * called by gen, called by main, so with --heap-names=fn:3 its bucket is
 *     "gen (self_inline.c:SITE:gen) < main"
 * (the frame budget is not spent on a second gen), and gen's code is one
 * row of the function view, "gen", never "gen [inlined into gen]".
 * gen reads N / 8 = 512 longs of the block, each once, in its own loop
 * at SITE:sum (volatile: one load each): Dr of the bucket by gen's own
 * code is 512, and no other code of the program reads it but main's
 * p[0], one read.  build() inlines gen (header and
 * all) and is never called: it only makes GCC split gen.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

__attribute__((noinline)) int is_eof(void *fp)
{
	return *(volatile char *)fp == 0;
}

__attribute__((noinline)) void step(int n, void *d)
{
	__asm__ volatile("" : : "r"(n), "r"(d) : "memory");
}

struct pl { void *fp; int w, k; long bs; long *mi; };

char *gen(void *fp, int w, int k, int b, int flag, int mb, int n, unsigned long bs)  /* DECL:gen */
{
	struct pl pl;
	long s = 0;

	if (fp == 0 || is_eof(fp))
		return 0;
	pl.fp = fp, pl.w = w, pl.k = k, pl.bs = (long)bs;
	pl.mi = calloc(1, (size_t)N << b);  /* SITE:gen */
	memset(pl.mi, 1, N);  /* SITE:fill */
	step(n < 3 ? n : 3, &pl);
	if (flag)
		fprintf(stderr, "[M::%s::%.3f*%.2f] collected\n", __func__, (double)w, (double)k);
	for (int i = 0; i < (N >> 3); i++)
		s += ((volatile long *)pl.mi)[i];  /* SITE:sum */
	step(n, &pl);
	if (flag)
		fprintf(stderr, "[M::%s::%.3f*%.2f] sorted %ld\n", __func__, (double)w, (double)mb, s);
	return (char *)pl.mi;
}

char *build(void *fp, int w, int k)
{
	return gen(fp, w, k, 0, 0, 1 << 18, 3, ~0UL);
}

int main(int argc, char **argv)
{
	char *p = gen(argv[0], argc, 15, 0, 0, 1 << 18, 3, ~0UL);

	if (!p)
		return 1;
	printf("%d\n", p[0]);
	free(p);
	return 0;
}
