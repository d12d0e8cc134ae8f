/* calls_tree.c — call arcs and inclusive costs (--calls, seeds/001 §2).
 *
 * main -> level1 -> level2 -> level3, each reading its own global array of
 * 4096 ints once (level1 reads t1, level2 t2, level3 t3: 4096 reads of
 * each bucket by its function alone); then recurse(5) calling itself four
 * times, each level reading t_rec[depth]; tail1 ending in a jump to tail2
 * (a tail call), which reads t_tail (4096 ints); a longjmp from deep2 (called by
 * deep1) back into main; a SIGUSR1 handler that reads t_sig (4096 ints)
 * while main is inside raise(); and a second thread whose worker reads
 * t_thr (4096 ints).  Built -O1 (no sibling calls), -fno-inline.  The
 * arrays are 64-byte aligned: 256 lines each, every byte of which is read.
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>

#define N 4096

int t1[N] __attribute__((aligned(64))), t2[N] __attribute__((aligned(64)));
int t3[N] __attribute__((aligned(64))), t_sig[N] __attribute__((aligned(64)));
int t_thr[N] __attribute__((aligned(64))), t_tail[N] __attribute__((aligned(64))), t_rec[8];
volatile int sink;
static jmp_buf env;

__attribute__((noinline)) static int sum(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

__attribute__((noinline)) static void level3(void)
{
	int s = 0;
	for (int i = 0; i < N; i++)
		s += t3[i];
	sink = s;
}

__attribute__((noinline)) static void level2(void)
{
	int s = 0;
	for (int i = 0; i < N; i++)
		s += t2[i];
	sink = s;
	level3();
}

__attribute__((noinline)) static void level1(void)
{
	int s = 0;
	for (int i = 0; i < N; i++)
		s += t1[i];
	sink = s;
	level2();
}

__attribute__((noinline)) static int recurse(int depth)
{
	int v = t_rec[depth];
	return depth ? v + recurse(depth - 1) : v;
}

__attribute__((noinline)) static void tail2(void)
{
	int s = 0;
	for (int i = 0; i < N; i++)
		s += t_tail[i];
	sink = s;
}

/* Ends in a jump to tail2 (a sibling call), not a call. */
__attribute__((noinline, optimize("optimize-sibling-calls"))) static void tail1(void)
{
	sink = t_rec[7];
	tail2();
}

__attribute__((noinline)) static void deep2(void)
{
	longjmp(env, 1);
}

__attribute__((noinline)) static void deep1(void)
{
	deep2();
	sink = 1;
}

static void handler(int sig)
{
	sink = sum(t_sig, N);
}

static void *worker(void *arg)
{
	sink = sum(t_thr, N);
	return arg;
}

int main(void)
{
	pthread_t th;

	level1();
	sink = recurse(4);
	tail1();
	if (!setjmp(env))
		deep1();
	signal(SIGUSR1, handler);
	raise(SIGUSR1); /* LINE:raise */
	pthread_create(&th, 0, worker, 0);
	pthread_join(th, 0);
	return 0;
}
