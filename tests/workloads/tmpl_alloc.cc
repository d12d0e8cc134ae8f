// tmpl_alloc.cc — LULESH's allocation wrapper in miniature, built with
// g++ -O2 -g: template <typename T> T *Allocate(size_t) around malloc,
// inlined into its callers, and AllocateOut<T>, the same kept out of line
// (the symbol "double* AllocateOut<double>(unsigned long)").
//
// Default naming: the arrays of setup() are in one bucket per wrapper
// instance, "Allocate<double> (tmpl_alloc.cc:SITE:wrap) < setup < main"
// (a and b: 2 blocks, 16000 bytes) and so on.
// --alloc-fn=Allocate --alloc-fn=AllocateOut (no template arguments, as
// docs/engine.md allows): each array its own bucket, named by setup's
// line: setup (tmpl_alloc.cc:SITE:a) < main, ... SITE:b, SITE:idx (the
// int instance), SITE:out (the out-of-line one).
// The stdout buffer printf allocates is main's, as for every program.
// Sizes (N = 1000): a, b, out 8 N = 8000 bytes, idx 4 N = 4000 bytes; one
// block each.  main reads a[i] + b[i] + out[i] + idx[i] for i < N.
#include <cstdio>
#include <cstdlib>

#define N 1000

template <typename T> T *Allocate(size_t n)
{
	return static_cast<T *>(malloc(sizeof(T) * n)); /* SITE:wrap */
}

template <typename T> __attribute__((noinline)) T *AllocateOut(size_t n)
{
	T *p = static_cast<T *>(malloc(sizeof(T) * n)); /* SITE:wrapout */
	if (!p) /* a check after the call: no tail call, a frame of its own */
		abort();
	return p;
}

static double *a, *b, *out;
static int *idx;

__attribute__((noinline)) static void setup(void)
{
	a = Allocate<double>(N); /* SITE:a */
	b = Allocate<double>(N); /* SITE:b */
	idx = Allocate<int>(N); /* SITE:idx */
	out = AllocateOut<double>(N); /* SITE:out */
	for (int i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 2 * i;
		out[i] = 3 * i;
		idx[i] = i;
	}
}

int main()
{
	setup();
	double s = 0;
	for (int i = 0; i < N; i++)
		s += a[i] + b[i] + out[i] + idx[i];
	printf("%g\n", s);
	return 0;
}
