/* omp_outlined.cc — OpenMP parallel loops, whose code GCC outlines into
 * functions of their own ("scale(double) [clone ._omp_fn.0]") with the
 * DWARF of each nested in its parent function's: the parent of scale's
 * is an abstract instance without code (scale is inlined into main), the
 * parent of dot's a function with code elsewhere (dot is never inlined).
 * Each loop body inlines weight() (an inline chain inside the outlined
 * code).  Built -O2 -g -fopenmp as users build, and without PIE (at the
 * same addresses under both engines); tests/e2e/test_natsym.py names
 * their instructions against addr2line and the simulator engine.
 *
 * main touches a and b (N = 4096 doubles each) first; c's pages (32 KiB)
 * are first touched by scale's outlined loop, so the native engine's page
 * faults on c fall in outlined code.  The printed value is not checked
 * (the tests are about names, not arithmetic).
 */
#include <cstdio>

#define N 4096

static double a[N], b[N], c[N];

static inline double weight(int i)
{
	return b[i] * (i & 7) + b[(i * 5) & (N - 1)];
}

static void scale(double f)
{
#pragma omp parallel for
	for (int i = 0; i < N; i++)
		c[i] = f * a[i] + weight(i);
}

__attribute__((noinline)) static double dot()
{
	double s = 0;
#pragma omp parallel for reduction(+ : s)
	for (int i = 0; i < N; i++)
		s += c[i] * b[i] * weight(i);
	return s;
}

int main()
{
	for (int i = 0; i < N; i++) {
		a[i] = i;
		b[i] = N - i;
	}
	scale(2.0);
	std::printf("%.1f\n", dot());
	return 0;
}
