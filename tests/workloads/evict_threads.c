/* evict_threads.c — one thread evicts the lines of another thread's stack.
 *
 * Run with --cache=L1=32K:8:64,L2=256K:8:64 --evictions=yes
 * --collect-atstart=no.  L1: 64 sets x 8 ways (512 lines); L2: 512 sets x
 * 8 ways (4096 lines).
 *
 * Between DCPROF_START() and DCPROF_STOP(), main() writes one byte of every
 * line of a 64 KiB, 64-byte aligned buffer on its stack (1024 lines, 2 per L2
 * set, 16 per L1 set), then starts a thread that reads one word of every line
 * of the 1 MiB global evt_big (16384 lines, 32 per L2 set, 256 per L1 set),
 * and joins it.
 *
 * Right after the buffer loop, all 1024 buffer lines are in L2 (2 of the 8
 * ways of each set) and 512 of them in L1 (the last 8 of each set).  Until
 * the stream starts, other code (pthread_create, the thread's start) fills
 * R_k more lines at level k, evicting at most R_k buffer lines.  The stream
 * then fills 32 (L2) or 256 (L1) new lines into every set, more than its 8
 * ways, so every buffer line still there is evicted, by an access of
 * the thread to evt_big (or, at most R_k times in all, by other code).  The
 * buffer is the main thread's stack, bucket <stack>, whichever thread is
 * running when it is evicted, so at level k:
 *     evictions (evictor evt_big, victim <stack>) >= B_k - R_k
 * with B_2 = 1024, B_1 = 512, and R_k = (fills at level k) - (misses of the
 * stream, 16384) - (misses of the buffer loop, line LINE:buf_fill), all read
 * from the profile.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "dcprof.h"

#define BIG (1u << 20)
#define BUF 65536

uint64_t evt_big[BIG / 8] __attribute__((aligned(64)));
volatile uint64_t sink;

static void *stream(void *arg)
{
	uint64_t s = 0;

	for (size_t i = 0; i < BIG / 8; i += 8)
		s += ((volatile uint64_t *)evt_big)[i]; /* LINE:stream */
	sink = s;
	return arg;
}

int main(void)
{
	volatile char buf[BUF] __attribute__((aligned(64)));
	pthread_t t;

	DCPROF_START();
	for (size_t i = 0; i < BUF; i += 64)
		buf[i] = 1; /* LINE:buf_fill */
	if (pthread_create(&t, NULL, stream, NULL))
		return 1;
	pthread_join(t, NULL);
	DCPROF_STOP();
	sink = buf[0];
	return 0;
}
