/* segv.c — does measurable work, then crashes.
 *
 * Streams crash_arr (1 MiB global, 64-byte aligned, 131072 words) once with
 * 8-byte loads, then, depending on argv[1]:
 *   (none) / "segv"  stores through a NULL pointer: SIGSEGV, so
 *                    `dcprof record` exits with 128 + 11 = 139
 *   "abort"          abort(): SIGABRT, exit status 128 + 6 = 134
 *   "exit"           exit(7): a normal end, exit status 7
 * In every case the profile must exist and hold the work done:
 *   crash_arr  Dr = 131072, Dw = 0, D1mr = D2mr = 16384: the array is
 *              touched for the first time, so every line is a cold miss at
 *              every level, whatever the cache sizes.
 * and be marked complete = 0 for the signals, complete = 1 for exit(7).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 20)

uint64_t crash_arr[N / 8] __attribute__((aligned(64)));
volatile uint64_t sink;
int *volatile null_ptr;

__attribute__((noinline)) static uint64_t sum_words(const uint64_t *a, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "segv";
	sink = sum_words(crash_arr, N / 8);
	if (strcmp(mode, "abort") == 0)
		abort();
	if (strcmp(mode, "exit") == 0)
		exit(7);
	*null_ptr = 1;
	return 0;
}
