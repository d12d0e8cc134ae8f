/* nosym_lib.c — the library of nosym: the exported nosym_sum calls the
 * static sum_ints, which no symbol names once the library is stripped. */
__attribute__((noinline)) static int sum_ints(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

int nosym_sum(const int *a, int n)
{
	return sum_ints(a, n) + 1;
}
