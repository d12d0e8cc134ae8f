/* parts/a/util.c — see two_utils.c. */
long util_a_data[1024] = { 1 };

long util_a_sum(void)
{
	long s = 0;
	for (int i = 0; i < 1024; i++)
		s += util_a_data[i]; /* LINE:a_sum */
	return s;
}
