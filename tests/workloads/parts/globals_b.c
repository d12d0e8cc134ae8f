/* globals_b.c — second translation unit of the globals workload (see
 * tests/workloads/globals.c for the expected numbers).  Its file-static
 * `counts` has the same name as the one in globals.c but a different size
 * (300 longs = 2400 bytes), so the two buckets can be told apart. */
static long counts[300];
long b_table[64];               /* a global with a unique name, 512 bytes */

__attribute__((noinline)) void fill_b(void)
{
	for (int i = 0; i < 300; i++)
		counts[i] = 2 * i;
}

__attribute__((noinline)) long sum_b(int reps)
{
	long s = 0;
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < 300; i++)
			s += counts[i];
	return s;
}

__attribute__((noinline)) void touch_b_table(void)
{
	for (int i = 0; i < 64; i++)
		b_table[i] = i;
}
