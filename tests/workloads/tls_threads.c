/* tls_threads.c — thread-local variables (__thread) of the program, of a
 * shared library of the test's own (libtls_threads.so,
 * parts/tls_threads_lib.c) and of libc (errno), used by two threads.
 * Built -O2 -g (see the Makefile).
 *
 * Each thread-local variable is one bucket; every thread's copy of it
 * counts for that bucket, and the profile's per-thread rows split it.
 * Thread k (k = 0, 1; Valgrind tids 2 and 3: main is 1, threads get ids in
 * creation order, and both are alive at once — they meet at a barrier
 * before exiting — so neither reuses the other's id) runs work(REPS_k),
 * REPS_0 = 2, REPS_1 = 3.  All accesses go through volatile pointers, one
 * 8-byte access per element (4 bytes for errno).
 *
 *   tls_arr (.tbss, long[512], 4096 bytes):
 *     work stores its 512 elements, then loads them REPS times
 *     thread tid 2: Dw = 512, Dr = 2 * 512 = 1024
 *     thread tid 3: Dw = 512, Dr = 3 * 512 = 1536
 *     bucket, from work: Dw = 1024, Dr = 2560
 *   tls_seed (.tdata, long[8] = {1..8}, 64 bytes): work loads it once
 *     per thread: Dr = 8, Dw = 0 (from work, each of tids 2 and 3)
 *   lib_tls@libtls_threads.so (.tbss of the library, long[64]):
 *     lib_touch stores 64 elements, then loads them: per thread Dw = 64,
 *     Dr = 64 (from lib_touch, each of tids 2 and 3)
 *   errno@libc.so.6: work sets errno = REPS once: Dw = 1 per thread from
 *     work (libc itself also uses errno; only work's store is counted).
 * Object statistics: the main thread and the two threads each have a copy,
 * all alive at once (the threads are still at the barrier when both have
 * run):  tls_arr: blocks = max_live_blocks = 3, total_bytes =
 * max_live_bytes = 3 * 4096 = 12288, min_size = max_size = 4096.
 *
 * The main thread's copies are filled by ld.so and a new thread's block
 * by pthread_create before the thread exists (docs/engine.md): only
 * threads 2 and 3 are counted above, and they touch nothing else of these
 * variables.
 * Checksum printed: sum over k of REPS_k * 130816 + 36 + 2016
 *   = 2 * 130816 + 3 * 130816 + 2 * (36 + 2016) = 658184.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define N 512

__thread long tls_seed[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
__thread long tls_arr[N];
long result[2];
static pthread_barrier_t leave;

long lib_touch(void);

__attribute__((noinline)) static long work(int reps)
{
	volatile long *p = tls_arr;
	volatile long *q = tls_seed;
	long s = 0;

	errno = reps;
	for (int i = 0; i < N; i++)
		p[i] = i;
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < N; i++)
			s += p[i];
	for (int i = 0; i < 8; i++)
		s += q[i];
	return s + lib_touch();
}

static void *thread_main(void *arg)
{
	long k = (long)arg;

	result[k] = work((int)k + 2);
	pthread_barrier_wait(&leave);
	return NULL;
}

int main(void)
{
	pthread_t t[2];

	pthread_barrier_init(&leave, NULL, 2);
	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, thread_main, (void *)k);
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	printf("%ld\n", result[0] + result[1]);
	return 0;
}
