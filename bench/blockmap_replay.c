/* blockmap_replay.c — the compact block map (src/core/blockmap.c) alone
 * on bench_chase's pattern: N blocks of 24 bytes, 32 bytes apart, put in
 * address order, then looked up (an address inside each) and taken in a
 * random order, as chase's frees come.
 *
 *   build/bench/blockmap-replay [N]      N defaults to 2^20, chase's count
 *
 * Prints the table's slots and the most memory the map held at once
 * (through its dc_env: the peak a doubling table reaches while its old and
 * new copies live together), and the best CPU milliseconds of each phase
 * over 5 rounds.  Under the native runtime the map's cost is mixed with
 * unwinding and the program's own misses; alone, two variants of
 * blockmap.c compare in seconds.  Nothing here is a test. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/blockmap.h"
#include "core/util.h"

static size_t held, peak;

/* A size word in front of each allocation, to count what is held. */
static void *count_alloc(void *ud, size_t n, const char *label)
{
	size_t *p = malloc(n + sizeof *p);

	(void)ud;
	(void)label;
	if (!p)
		return NULL;
	*p = n;
	held += n;
	if (held > peak)
		peak = held;
	return p + 1;
}

static void count_free(void *ud, void *q)
{
	size_t *p = q;

	(void)ud;
	if (!p)
		return;
	held -= p[-1];
	free(p - 1);
}

static double cpu_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

int main(int argc, char **argv)
{
	const struct dc_env env = { count_alloc, count_free, NULL };
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1u << 20;
	uint64_t *addr = malloc(n * sizeof *addr), rng = 1;
	double best[3] = { 1e300, 1e300, 1e300 };
	struct dc_blockmap m;
	struct dc_blockmap_ent e, old;

	if (!addr || !n)
		return 2;
	for (int round = 0; round < 5; round++) {
		double t0, t1, t2, t3;
		for (size_t i = 0; i < n; i++)
			addr[i] = 0x555500000000ULL + 32 * i;
		dc_blockmap_init(&m, &env);
		t0 = cpu_ms();
		for (size_t i = 0; i < n; i++) {
			e.lo = addr[i];
			e.size = 24;
			e.bucket = 3;
			e.recorded = false;
			if (dc_blockmap_put(&m, &e, &old) < 0)
				return 1;
		}
		t1 = cpu_ms();
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)(dc_rand64(&rng) % (i + 1));
			uint64_t t = addr[i];
			addr[i] = addr[j];
			addr[j] = t;
		}
		t2 = cpu_ms();
		for (size_t i = 0; i < n; i++)
			if (!dc_blockmap_lookup(&m, addr[i] + 8, &e))
				return 1;
		t3 = cpu_ms();
		if (round == 0)
			printf("%zu blocks: %llu slots, %.1f MiB held at the end, %.1f MiB at the peak\n",
			       n, (unsigned long long)m.cap, held / 1048576.0, peak / 1048576.0);
		for (size_t i = 0; i < n; i++)
			if (!dc_blockmap_take(&m, addr[i], &e))
				return 1;
		if (t1 - t0 < best[0])
			best[0] = t1 - t0;
		if (t3 - t2 < best[1])
			best[1] = t3 - t2;
		if (cpu_ms() - t3 < best[2])
			best[2] = cpu_ms() - t3;
		dc_blockmap_release(&m);
	}
	printf("CPU ms, best of 5: put %.0f  lookup %.0f  take %.0f\n", best[0], best[1], best[2]);
	free(addr);
	return 0;
}
