/* annot_fill.c — the second source file of annot_hot.c: one store per
 * 64-byte line of the array (a miss each, on the line marked FILL). */
__attribute__((noinline)) void fill(char *a, long n, int seed)
{
	for (long i = 0; i < n; i += 64)
		a[i] = (char)(i + seed);   /* FILL */
}
