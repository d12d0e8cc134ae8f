/* fd_close.c — a program that closes the descriptors it inherited, then
 * opens a log file of its own (as daemons and careful servers do).
 *
 * Usage: fd_close FIRST LOG.  Sums one word of each of the 512 lines of
 * fd_arr, closes every descriptor from FIRST (0 or 3) to 1023, creates LOG
 * — which gets the lowest free descriptor, FIRST — writes exactly
 * "fd_close log line\n" into it, sums fd_arr once more and exits with
 * status 7 (3 when LOG cannot be created or written).
 *
 * Expected profile, whatever the cache hierarchy: fd_arr Dr = 2 * 512 =
 * 1024, Dw = 0 (the empty asm keeps -O2 from vectorizing or merging the
 * loads: one 8-byte load a line); complete = 1, exit 7.  The engine's dump
 * must live outside the descriptors the program closes and reuses: the log
 * holds the program's line and nothing else.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LINES 512

long fd_arr[LINES * 8] __attribute__((aligned(64)));
volatile long sink;

__attribute__((noinline)) static long sum_lines(void)
{
	long s = 0;

	for (int i = 0; i < LINES * 8; i += 8) {
		s += fd_arr[i];
		__asm__ volatile("" : "+r"(s));
	}
	return s;
}

int main(int argc, char **argv)
{
	static const char line[] = "fd_close log line\n";
	int fd;

	if (argc != 3)
		return 2;
	sink = sum_lines();
	for (int i = atoi(argv[1]); i < 1024; i++)
		close(i);
	fd = open(argv[2], O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0 || write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		return 3;
	sink = sum_lines();
	return 7;                 /* LOG left open, as exit() leaves it */
}
