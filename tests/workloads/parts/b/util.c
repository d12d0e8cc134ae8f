/* parts/b/util.c — see two_utils.c.  A different line than parts/a/util.c's
 * loop, so the two files' lines differ too. */
long util_b_data[1024] = { 2 };

long util_b_sum(void)
{
	long s = 0;

	for (int i = 0; i < 1024; i++)
		s += util_b_data[i]; /* LINE:b_sum */
	return s;
}
