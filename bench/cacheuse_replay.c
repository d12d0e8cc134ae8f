/* cacheuse_replay.c — the cache model alone, with and without use
 * tracking (or with exact reuse tracking of 64-byte blocks after it), on
 * address streams shaped like the bench workloads.
 *
 *   build/bench/cacheuse-replay stream|transpose|chase|matmul plain|use|reuse [CACHE]
 *
 * Under Valgrind the model's cost is buried in the engine's and timing is
 * noisy; replayed natively (or under `valgrind --tool=cachegrind`, whose
 * instruction and miss counts do not vary between runs) two variants of
 * src/core/cache*.c compare in seconds.  It prints the CPU seconds of the
 * replay and a checksum of the SpLoss and AcCost totals (with reuse: the
 * sum of stack distances, and the compactions), which must not change
 * when only the speed does.  CACHE defaults to dcprof's default
 * hierarchy.  Nothing here is a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/cacheuse.h"
#include "core/reuse.h"
#include "host/port_libc.h"

#define NLOADERS 4

struct replay {
	struct dc_cache c;
	struct dc_cacheuse u;
	struct dc_reuse reuse;
	bool use, with_reuse;
	struct dc_cost cost[NLOADERS];
	uint64_t served, dist;   /* sum of serving levels; of stack distances */
};

static void ref(struct replay *r, uint64_t addr, uint32_t size, int loader)
{
	if (r->use)
		r->served += (uint64_t)dc_cacheuse_access(&r->u, addr, size, &r->cost[loader]);
	else
		r->served += (uint64_t)dc_cache_access(&r->c, addr, size);
	if (r->with_reuse) {
		struct dc_reuse_result res;
		if (dc_reuse_access(&r->reuse, addr, (uint32_t)loader, &res)) {
			fprintf(stderr, "cacheuse-replay: out of memory\n");
			exit(1);
		}
		r->dist += res.stack_dist;
	}
}

/* bench_stream: 64 MiB written once, then read; 16-byte accesses, as its
 * vectorized loops make (6 passes instead of 25). */
static void stream(struct replay *r)
{
	const uint64_t base = 0x10000000, n = 64u << 20;

	for (int p = 0; p < 6; p++)
		for (uint64_t i = 0; i < n; i += 16)
			ref(r, base + i, 16, p > 0);
}

/* bench_transpose: 2048 x 2048 doubles, read by rows, written by columns,
 * back and forth (src to dst, then dst to src: 2 transpositions instead of
 * 20), so that the second reads by rows what the first wrote by columns. */
static void transpose(struct replay *r)
{
	const uint64_t m[2] = { 0x10000000, 0x20000000 }, dim = 2048;

	for (int t = 0; t < 2; t++)
		for (uint64_t i = 0; i < dim; i++)
			for (uint64_t j = 0; j < dim; j++) {
				ref(r, m[t] + (i * dim + j) * 8, 8, 0);
				ref(r, m[1 - t] + (j * dim + i) * 8, 8, 1);
			}
}

/* bench_chase: 1M nodes 32 bytes apart visited in a random order; each
 * visit reads the value and the next pointer. */
static void chase(struct replay *r)
{
	const uint64_t base = 0x10000000, n = 1u << 20;
	uint64_t s = 88172645463325252ull;

	for (uint64_t i = 0; i < 4 * n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		uint64_t node = base + (s % n) * 32;
		ref(r, node + 8, 8, 2);
		ref(r, node, 8, 3);
	}
}

/* bench_matmul: C = A x B for 600 x 600 doubles, i-j-k, the j loop two
 * columns at a time as -O2 vectorizes it: A's row read by 8-byte loads,
 * B's column pair by 16-byte loads (60 rows of C instead of 600). */
static void matmul(struct replay *r)
{
	const uint64_t a = 0x10000000, b = 0x20000000, dim = 600;

	for (uint64_t i = 0; i < 60; i++)
		for (uint64_t j = 0; j < dim; j += 2)
			for (uint64_t k = 0; k < dim; k++) {
				ref(r, a + (i * dim + k) * 8, 8, 0);
				ref(r, b + (k * dim + j) * 8, 16, 1);
			}
}

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	const char *spec = argc > 3 ? argv[3] : "L1=32K:8:64,L2=1M:16:64,L3=32M:16:64";
	static struct replay r;
	void (*run)(struct replay *) = NULL;
	struct dc_hier h;
	char err[160];
	uint64_t sum = 0;
	double t;

	if (argc >= 3 && !strcmp(argv[1], "stream"))
		run = stream;
	else if (argc >= 3 && !strcmp(argv[1], "transpose"))
		run = transpose;
	else if (argc >= 3 && !strcmp(argv[1], "chase"))
		run = chase;
	else if (argc >= 3 && !strcmp(argv[1], "matmul"))
		run = matmul;
	if (!run || (strcmp(argv[2], "plain") && strcmp(argv[2], "use") &&
		     strcmp(argv[2], "reuse"))) {
		fprintf(stderr, "usage: cacheuse-replay stream|transpose|chase|matmul plain|use|reuse [CACHE]\n");
		return 2;
	}
	r.use = !strcmp(argv[2], "use");
	r.with_reuse = !strcmp(argv[2], "reuse");
	if (dc_hier_parse_cache(&h, spec, err, sizeof err)) {
		fprintf(stderr, "cacheuse-replay: bad cache '%s': %s\n", spec, err);
		return 2;
	}
	if (dc_cache_init(&r.c, &h, NULL, dc_env_libc()) ||
	    (r.use && dc_cacheuse_init(&r.u, &r.c, DC_USE_EXACT, dc_env_libc()))) {
		fprintf(stderr, "cacheuse-replay: cannot set up '%s'\n", spec);
		return 1;
	}
	if (r.with_reuse && dc_reuse_init(&r.reuse, dc_env_libc(), 6)) {
		fprintf(stderr, "cacheuse-replay: cannot set up reuse tracking\n");
		return 1;
	}
	t = cpu_seconds();
	run(&r);
	t = cpu_seconds() - t;
	if (r.use) {
		dc_cacheuse_finish(&r.u);
		for (int i = 0; i < NLOADERS; i++)
			for (int k = 0; k < h.nlevels; k++)
				sum = sum * 1000003 + r.cost[i].sploss[k] * 31 + r.cost[i].accost[k];
		dc_cacheuse_release(&r.u, dc_env_libc());
	}
	if (r.with_reuse) {
		sum = r.dist;
		printf("%llu compactions, ", (unsigned long long)r.reuse.compactions);
		dc_reuse_release(&r.reuse);
	}
	dc_cache_release(&r.c, dc_env_libc());
	printf("%s %s: %.3f s, served %llu, checksum %016llx\n", argv[1], argv[2], t,
	       (unsigned long long)r.served, (unsigned long long)sum);
	return 0;
}
