/* exec_fail.c — a process whose execve fails goes on, and its profile
 * holds all of its run.
 *
 * Usage: exec_fail [NEXT].  Reads one word of each 64-byte line of
 * fail_before (256 lines), fills a 4096-byte heap block (512 8-byte
 * stores) allocated by fail_alloc(), then calls execve() on a path that
 * does not exist; it must fail with ENOENT (else exit 3).  Then reads
 * fail_after (128 lines), sums the block (512 8-byte loads) and frees it.
 * Without NEXT it exits 0; with NEXT it execs NEXT with the arguments
 * "b 0" (exit 4 if that fails).
 *
 * Expected, whatever the cache hierarchy (the empty asm keeps -O2 from
 * vectorizing or merging the accesses: one 8-byte access each), in the
 * profile of exec_fail's image:
 *   fail_before Dr = 256, Dw = 0; fail_after Dr = 128, Dw = 0;
 *   the heap bucket "fail_alloc (exec_fail.c:43)" (--heap-names=fn:1): one block of 4096
 *   bytes, Dr = 512, Dw = 512, and one block record;
 * complete; without NEXT it is the only profile, with exit 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

extern char **environ;

long fail_before[256 * 8] __attribute__((aligned(64)));
long fail_after[128 * 8] __attribute__((aligned(64)));
volatile long sink;

__attribute__((noinline)) static long sum(const long *a, int n, int step)
{
	long s = 0;

	for (int i = 0; i < n; i += step) {
		s += a[i];
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

__attribute__((noinline)) static long *fail_alloc(void)
{
	long *p = malloc(4096);

	for (int i = 0; p && i < 512; i++) {
		p[i] = i;
		__asm__ volatile("" : : "r"(p) : "memory");
	}
	return p;
}

int main(int argc, char **argv)
{
	char *args[] = { "dcprof-no-such-program", NULL };
	char *next[] = { argv[1], "b", "0", NULL };
	long *block;

	sink = sum(fail_before, 256 * 8, 8);
	block = fail_alloc();
	if (!block)
		return 2;
	if (execve("/nonexistent/dcprof-no-such-program", args, environ) == 0 || errno != ENOENT)
		return 3;
	sink = sum(fail_after, 128 * 8, 8);
	sink = sum(block, 512, 1);
	free(block);
	if (argc > 1) {
		execve(argv[1], next, environ);
		return 4;
	}
	return 0;
}
