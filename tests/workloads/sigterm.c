/* sigterm.c — does measurable work, then is terminated.
 *
 * Streams term_arr (1 MiB global, 64-byte aligned, 131072 words) once with
 * 8-byte loads, then, depending on argv[1]:
 *   (none) / "raise"  raise(SIGTERM): `dcprof record` exits 128 + 15 = 143
 *   "wait"            prints "ready PID\n" on stdout and sleeps until killed;
 *                     the test sends SIGTERM (143) or SIGINT (130) to PID
 *   "handler"         installs a SIGTERM handler that calls exit(5), then
 *                     raise(SIGTERM): the program ends normally, status 5
 *   "spin"            prints "ready PID\n" and spins in a loop that makes no
 *                     data access (it keeps the engine's checkpoints going)
 *                     until killed; the test sends SIGKILL to PID
 * In every case the profile holds the work done before:
 *   term_arr   Dr = 131072, Dw = 0
 * marked complete = 0 when killed by the signal, complete = 1 for "handler";
 * for "spin", a checkpoint taken after "ready" holds exactly that work.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N (1u << 20)

uint64_t term_arr[N / 8] __attribute__((aligned(64)));
volatile uint64_t sink;

__attribute__((noinline)) static uint64_t sum_words(const uint64_t *a, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

static void on_term(int sig)
{
	(void)sig;
	exit(5);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "raise";
	sink = sum_words(term_arr, N / 8);
	if (strcmp(mode, "wait") == 0) {
		printf("ready %ld\n", (long)getpid());
		fflush(stdout);
		for (;;)
			pause();
	}
	if (strcmp(mode, "spin") == 0) {
		printf("ready %ld\n", (long)getpid());
		fflush(stdout);
		for (;;)
			__asm__ volatile("");
	}
	if (strcmp(mode, "handler") == 0)
		signal(SIGTERM, on_term);
	raise(SIGTERM);
	return 0;
}
