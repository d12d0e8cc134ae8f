/* heap_paths.c — one allocation line reached by several call paths, for
 * any cache of bucket names by part of a call path (engine/valgrind/
 * dc_heap.c caches them per whole walk): one keyed by the allocator's
 * return address, or by the first three frames (malloc, node_new, its
 * caller), would put left's and right's blocks together.
 * No stdio, so libc allocates nothing on its own.
 *
 * node_new() mallocs 32 bytes at one line (SITE:node_new).  main calls,
 * in one loop of 507 iterations, in this order:
 *   node_new directly at iterations 0, 73, ..., 438 (i % 73 == 0): 7 blocks,
 *     bucket node_new(SITE:node_new) < main;
 *   otherwise, counting those other calls j = 0..499: left() when
 *   j % 5 < 3 (300 blocks), right() else (200 blocks), both calling
 *   mid(), which calls node_new: buckets node_new(SITE:node_new) < mid <
 *   left and node_new(SITE:node_new) < mid < right, the two paths at the
 *   same depth and through the same return addresses up to mid's caller.
 * The direct call comes first, so the first name read needs three frames
 * (malloc, node_new, main) and left's path, which needs four, follows it.
 * No block is freed: every bucket has blocks = max_live_blocks, 32 bytes
 * each.
 *   --heap-names=fn:2: node_new(SITE) < mid, 500 blocks; < main, 7.
 *   --heap-names=site: every frame with its line; the same three buckets
 *   (one call line each in main, left, right, mid).
 */
#include <stdint.h>
#include <stdlib.h>

struct node {
	uint64_t a, b, c, d;    /* 32 bytes */
};

struct node *keep[507];

__attribute__((noinline)) struct node *node_new(uint64_t v)
{
	struct node *p = malloc(sizeof *p); /* SITE:node_new */

	if (!p)
		exit(1);
	p->a = v;
	return p;
}

__attribute__((noinline)) struct node *mid(uint64_t v)
{
	struct node *p = node_new(v); /* SITE:mid */

	p->b = v;
	return p;
}

__attribute__((noinline)) struct node *left(uint64_t v)
{
	struct node *p = mid(v); /* SITE:left */

	p->c = v;
	return p;
}

__attribute__((noinline)) struct node *right(uint64_t v)
{
	struct node *p = mid(v); /* SITE:right */

	p->d = v;
	return p;
}

int main(void)
{
	int j = 0;

	for (int i = 0; i < 507; i++) {
		if (i % 73 == 0)
			keep[i] = node_new(i); /* SITE:main */
		else if (j++ % 5 < 3)
			keep[i] = left(i); /* SITE:main_left */
		else
			keep[i] = right(i); /* SITE:main_right */
	}
	return keep[506]->a == 506 ? 0 : 1;
}
