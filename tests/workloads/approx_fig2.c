/* approx_fig2.c — the code of Figure 2 of N. Rutar, J. K. Hollingsworth,
 * "Software Analysis Techniques to Approximate Data Centric Direct
 * Measurements" (§3.3.1), for dcprof approx's oracle tests
 * (tests/e2e/test_cli_approx.py): the loop below is the figure's lines
 * 1-5, verbatim but for the semicolons the figure leaves out.  The tests
 * give it one miss per body line (the paper's assumption) and compare the
 * raw, loop-adjusted and skid-adjusted tables with the paper's.
 */
#include <stdio.h>

int x[1024], y[1024];
int i, j, k;

static void figure2(int b)
{
	int a;

	for (a = 0; a < b; a++) {
		i = x[a] + y[b];
		j = y[a] + y[b];
		k = x[b] + x[b];
	}
}

int main(void)
{
	figure2(1000);
	printf("%d %d %d\n", i, j, k);
	return 0;
}
