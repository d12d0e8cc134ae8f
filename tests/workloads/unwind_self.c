/* unwind_self.c — a program that links libunwind itself and unwinds its
 * own stack: libunwind's code is the program's, not the native runtime's
 * (src/engine/native/nat_deps.c).
 *
 * unw_backtrace's first call in a thread makes the thread's trace cache:
 * 2^14 frames of 16 bytes (256 KiB, 64 pages), mmapped by libunwind and
 * every frame written by libunwind's code (Gtrace.c trace_cache_buckets),
 * so at least 64 pages are first touched with an IP in libunwind.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdio.h>

int main(void)
{
	void *ips[16];
	int n = unw_backtrace(ips, 16);

	printf("%d frames\n", n);
	return n > 0 ? 0 : 1;
}
