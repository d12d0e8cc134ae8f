/* fields_global.c — a global struct whose fields two threads read in known
 * proportions (report --by field, test_engine_fields.py).  Built -O2 -g.
 *
 * struct stats is 64 bytes: hits at 0, misses at 8, ratio[4] at 16,
 * name[16] at 48; g_stats is volatile, so every read in the loop is made.
 * Each of T = 2 threads runs N = 4000 iterations reading hits every time,
 * misses every 4th time and ratio[i % 4] every time:
 *     hits: Dr = T N = 8000; misses: Dr = T N / 4 = 2000;
 *     ratio[4]: Dr = T N = 8000 (2000 at each of offsets 16, 24, 32, 40);
 *     name[16]: never accessed.  No writes (g_stats is initialised data).
 * Shares of the 18000 reads: hits and ratio 44.44 % each, misses 11.11 %.
 */
#include <pthread.h>
#include <stdio.h>

#define T 2
#define N 4000

struct stats {
	long hits;
	long misses;
	double ratio[4];
	char name[16];
};

volatile struct stats g_stats __attribute__((aligned(64))) = { 1, 2, { 1, 2, 3, 4 }, "stats" };
static double results[T];

static void *work(void *arg)
{
	double s = 0;
	long n = 0;

	for (long i = 0; i < N; i++) {
		n += g_stats.hits;
		if ((i & 3) == 0)
			n += g_stats.misses;
		s += g_stats.ratio[i & 3];
	}
	results[(long)arg] = s + (double)n;
	return NULL;
}

int main(void)
{
	pthread_t th[T];

	for (long t = 0; t < T; t++)
		if (pthread_create(&th[t], NULL, work, (void *)t))
			return 1;
	for (int t = 0; t < T; t++)
		pthread_join(th[t], NULL);
	printf("%g %g\n", results[0], results[1]);
	return 0;
}
