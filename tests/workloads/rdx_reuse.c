/* rdx_reuse.c — reuses at known CPU-time distances, for the native
 * engine's --reuse-sample with hardware watchpoints
 * (tests/e2e/test_native_rdx.py, docs/engine-native.md).
 *
 * Phase a: the first word of the page-aligned global a is written (its
 * page's first touch: a page fault, a use point), the thread spins for
 * 24 ms of its own CPU time touching no new page, and the word is read
 * again (the reuse).  Phase b: the first word of each of the 8 pages of b
 * is written by one instruction of a loop (8 page faults, one calling
 * context), the thread spins 3 ms and reads the first words of pages 7,
 * 6, 5, 4 in that order.
 * MADV_NOHUGEPAGE keeps each page one fault.
 *
 * With the argument "threads": two threads instead, each doing phase a on
 * its own page-aligned array (ta, tb) — debug registers are per thread.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define PAGE 4096

static volatile uint64_t a[PAGE / 8] __attribute__((aligned(PAGE)));
static volatile uint64_t b[8 * PAGE / 8] __attribute__((aligned(PAGE)));
static volatile int npages = 8;     /* a loop the compiler cannot unroll */
static volatile uint64_t ta[PAGE / 8] __attribute__((aligned(PAGE)));
static volatile uint64_t tb[PAGE / 8] __attribute__((aligned(PAGE)));

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Busy for ns of this thread's CPU time, on registers and the stack. */
__attribute__((noinline)) static void spin(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		;
}

__attribute__((noinline)) static void touch_a(void)
{
	a[0] = 1;
}

__attribute__((noinline)) static uint64_t reuse_a(void)
{
	return a[0];
}

__attribute__((noinline)) static void touch_b(void)
{
	for (int p = 0; p < npages; p++)
		b[p * (PAGE / 8)] = (uint64_t)p;
}

__attribute__((noinline)) static uint64_t reuse_b(void)
{
	uint64_t s = 0;

	for (int p = 7; p >= 4; p--)
		s += b[p * (PAGE / 8)];
	return s;
}

/* Phase a on the array x, in a thread of its own. */
__attribute__((noinline)) static void *thread_a(void *x)
{
	volatile uint64_t *w = x;

	w[0] = 1;
	spin(24000000);
	return (void *)(uintptr_t)w[0];
}

static int threads(void)
{
	pthread_t t1, t2;
	void *r1, *r2;

	madvise((void *)ta, sizeof ta, MADV_NOHUGEPAGE);
	madvise((void *)tb, sizeof tb, MADV_NOHUGEPAGE);
	if (pthread_create(&t1, NULL, thread_a, (void *)ta) ||
	    pthread_create(&t2, NULL, thread_a, (void *)tb))
		return 1;
	pthread_join(t1, &r1);
	pthread_join(t2, &r2);
	return r1 == (void *)1 && r2 == (void *)1 ? 0 : 1;
}

int main(int argc, char **argv)
{
	uint64_t s;

	if (argc > 1 && !strcmp(argv[1], "threads"))
		return threads();
	madvise((void *)a, sizeof a, MADV_NOHUGEPAGE);
	madvise((void *)b, sizeof b, MADV_NOHUGEPAGE);
	touch_a();
	spin(24000000);
	s = reuse_a();
	touch_b();
	spin(3000000);
	s += reuse_b();
	return s == 1 + 7 + 6 + 5 + 4 ? 0 : 1;
}
