/* user_named.c — user buckets: dcprof_malloc_named, dcprof_calloc_named,
 * DCPROF_NAME_BLOCK on a static array and on a live heap block.
 *
 * make_particles(): 20 x dcprof_malloc_named(32, "particles"), 4 stores
 *   each; later free_some() frees 10 of them.
 *     bucket "particles", kind user: blocks = 20, total_bytes = 640,
 *     min = max = 32, max_live_blocks = 20, max_live_bytes = 640,
 *     Dw = 80 (from make_particles).
 * dcprof_calloc_named(4, 256, "zeroed table"): a name with a space.
 *     bucket "zeroed table", kind user: blocks = 1, total_bytes = 1024;
 *     fill_words() stores 128 words into it: Dw = 128.
 * DCPROF_NAME_BLOCK(user_grid, 8192, "grid cells 100%"): a static array (a
 *   name with a space and a '%', which the raw dump must escape).  The array
 *   is not touched before it is named; fill_words() then stores 1024 words:
 *     bucket "grid cells 100%", kind user: blocks = 1, total_bytes = 8192,
 *     Dw = 1024; the global bucket user_grid gets no accesses.
 * make_plain(): malloc(512), 64 stores -> bucket make_plain(SITE:plain) < main (Dw = 64
 *   from make_plain).  DCPROF_NAME_BLOCK(p, 0, "moved") moves the live block:
 *   touch() then stores 64 words into it, all in bucket "moved" (Dw = 64
 *   from touch, none from touch in make_plain's bucket).
 */
#include <stdint.h>
#include <stdlib.h>

#include "dcprof.h"

struct particle {
	double x, y, z, m;      /* 32 bytes */
};

static uint64_t user_grid[1024] __attribute__((aligned(64)));
struct particle *parts[20];
volatile uint64_t sink;

__attribute__((noinline)) void make_particles(void)
{
	for (int i = 0; i < 20; i++) {
		struct particle *p = dcprof_malloc_named(sizeof *p, "particles");
		p->x = i;
		p->y = i + 1;
		p->z = i + 2;
		p->m = 1.0;
		parts[i] = p;
	}
}

__attribute__((noinline)) void free_some(void)
{
	for (int i = 0; i < 10; i++)
		free(parts[i]);
}

__attribute__((noinline)) void fill_words(uint64_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = i;
}

__attribute__((noinline)) uint64_t *make_plain(void)
{
	uint64_t *p = malloc(512); /* SITE:plain */
	if (!p)
		abort();
	for (int i = 0; i < 64; i++)
		p[i] = i;
	return p;
}

__attribute__((noinline)) void touch(uint64_t *p)
{
	for (int i = 0; i < 64; i++)
		p[i] = 2 * i;
}

int main(void)
{
	make_particles();
	free_some();

	uint64_t *zt = dcprof_calloc_named(4, 256, "zeroed table");
	if (!zt)
		abort();
	fill_words(zt, 128);

	DCPROF_NAME_BLOCK(user_grid, sizeof user_grid, "grid cells 100%");
	fill_words(user_grid, 1024);

	uint64_t *p = make_plain();
	DCPROF_NAME_BLOCK(p, 0, "moved");
	touch(p);

	sink = parts[15]->m + zt[3] + user_grid[5] + p[7];
	return 0;
}
