/* calls_plt_lib.c — the shared library of calls_plt: lib_sum reads n ints
 * and calls nothing, so its inclusive cost is its own. */
__attribute__((noinline)) int lib_sum(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}
