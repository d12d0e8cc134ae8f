/* threads.c — two threads, each streaming its own global array.
 *
 * thr_a and thr_b: 1 MiB globals (64-byte aligned, 16384 lines, 131072
 * words), only read.  Thread 1 (Valgrind tid 2) sums thr_a P times, thread 2
 * (tid 3) sums thr_b P times; main only creates and joins them.
 *
 * Expected, P = 2, --cache=L1=32K:8:64,L2=256K:8:64 (both levels smaller
 * than either array):
 *   thr_a   all cost rows on one thread T_a != 1 (main), Dr = P*131072
 *   thr_b   all cost rows on one thread T_b, T_b != 1, T_b != T_a,
 *           Dr = P*131072
 *   D1mr = D2mr = P*16384 for each: one simulated hierarchy is shared by
 *   the threads (Valgrind runs them one at a time, interleaved), but each
 *   array alone exceeds both levels, so every line misses on every pass
 *   regardless of how the other thread's accesses interleave (stream.c).
 * The two threads meet at a barrier before they start, so both are alive
 * at once: Valgrind reuses the id of a thread that has exited, and a first
 * thread done before the second was created would share its id.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#define N (1u << 20)
#define PASSES 2

uint64_t thr_a[N / 8] __attribute__((aligned(64)));
uint64_t thr_b[N / 8] __attribute__((aligned(64)));
volatile uint64_t sink_a, sink_b;
static pthread_barrier_t both_started;

__attribute__((noinline)) static uint64_t sum_words(const uint64_t *a, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += a[i];
	return s;
}

static void *run_a(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&both_started);
	for (int p = 0; p < PASSES; p++)
		sink_a = sum_words(thr_a, N / 8);
	return NULL;
}

static void *run_b(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&both_started);
	for (int p = 0; p < PASSES; p++)
		sink_b = sum_words(thr_b, N / 8);
	return NULL;
}

int main(void)
{
	pthread_t ta, tb;
	if (pthread_barrier_init(&both_started, NULL, 2))
		abort();
	if (pthread_create(&ta, NULL, run_a, NULL) || pthread_create(&tb, NULL, run_b, NULL))
		abort();
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}
