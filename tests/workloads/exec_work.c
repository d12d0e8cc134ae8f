/* exec_work.c — the program at the end of an exec chain (`env FOO=1
 * exec_work ...`, `sh -c 'exec_work a 0 && exec_work b 0'`).
 *
 * Usage: exec_work a|b STATUS [VAR].  Reads one word of each 64-byte line
 * of work_a (1024 lines) for "a", of work_b (512 lines) for "b", once,
 * then exits with STATUS; with VAR, exits 99 instead unless the
 * environment has VAR=1 (the exec'ing program passed it on).
 *
 * Expected, whatever the cache hierarchy: "a": work_a Dr = 1024, Dw = 0,
 * no access to work_b; "b": work_b Dr = 512, Dw = 0, none to work_a (the
 * empty asm keeps -O2 from vectorizing or merging the loads: one 8-byte
 * load a line).  The profile is complete, with the exit status STATUS.
 */
#include <stdlib.h>
#include <string.h>

long work_a[1024 * 8] __attribute__((aligned(64)));
long work_b[512 * 8] __attribute__((aligned(64)));
volatile long sink;

__attribute__((noinline)) static long sum_lines(const long *a, int lines)
{
	long s = 0;

	for (int i = 0; i < lines * 8; i += 8) {
		s += a[i];
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

int main(int argc, char **argv)
{
	const char *v;

	if (argc < 3 || (strcmp(argv[1], "a") && strcmp(argv[1], "b")))
		return 2;
	if (argv[1][0] == 'a')
		sink = sum_lines(work_a, 1024);
	else
		sink = sum_lines(work_b, 512);
	if (argc > 3 && (!(v = getenv(argv[3])) || strcmp(v, "1")))
		return 99;
	return atoi(argv[2]);
}
