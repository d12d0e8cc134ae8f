/* two_utils.c — two source files named util.c in different folders
 * (parts/a/util.c and parts/b/util.c), built -O2 -g.  Each sums its own
 * global array of 1024 longs 10 times: Dr = 10,240 per file (the loop
 * reads each element once per pass; the sum stays in a register).  With
 * full source paths the two files stay apart in the profile, reports and
 * exports.
 */
#include <stdio.h>

long util_a_sum(void);
long util_b_sum(void);

int main(void)
{
	long s = 0;
	for (int i = 0; i < 10; i++)
		s += util_a_sum() + util_b_sum();
	printf("%ld\n", s);
	return 0;
}
