/* ckpt_work.c — a repeatable run long enough for the engine to take
 * checkpoints (test_engine_checkpoint.py).
 *
 * Usage: ckpt_work [PASSES [fork]]   (run with --collect-atstart=no)
 *
 * Between DCPROF_START and DCPROF_STOP: PASSES (default 24) passes over
 * ckpt_arr (1 MiB, 16384 lines), each pass calling sweep() -> touch() once
 * per line, which reads one word and writes the next; with "fork", the
 * process forks first and parent and child each make their passes (the
 * parent waits for the child before its DCPROF_STOP).  Only the passes
 * are measured, so every run makes the same accesses in the same order:
 * the tests compare the profile of a run with checkpoints against one
 * without, table by table, rather than against numbers derived here.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dcprof.h"

#define WORDS (1u << 17)
long ckpt_arr[WORDS] __attribute__((aligned(64)));

__attribute__((noinline)) static long touch(long i)
{
	ckpt_arr[i + 1] = ckpt_arr[i] + 1;
	return ckpt_arr[i];
}

__attribute__((noinline)) static long sweep(void)
{
	long s = 0;
	for (long i = 0; i < WORDS; i += 8)
		s += touch(i);
	return s;
}

int main(int argc, char **argv)
{
	int passes = argc > 1 ? atoi(argv[1]) : 24;
	int fork_too = argc > 2 && strcmp(argv[2], "fork") == 0;
	pid_t child = 0;
	long s = 0;

	DCPROF_START();
	if (fork_too && (child = fork()) < 0)
		return 1;
	for (int p = 0; p < passes; p++)
		s += sweep();
	if (child > 0)
		waitpid(child, NULL, 0);
	DCPROF_STOP();
	return (int)(s & 1);
}
