/* heap_names.c — heap buckets named by allocation path, --alloc-fn, realloc,
 * block statistics.  No stdio, so libc allocates nothing on its own.
 *
 * Default naming (--heap-names=fn:3, docs/engine.md): from the first
 * frame above the allocator, three functions joined by " < ", stopping at
 * main; the first carries the file and line of its allocation call, so
 * every malloc line (marked SITE: below) is a bucket of its own.  Written
 * here as fn(SITE) < caller.
 *
 * mem_init() (called from main), three allocation lines:
 *   mem_init(SITE:mem_init) < main: 60 x malloc(24), the first 30 freed:
 *     blocks 60, total 1440, max_live 60 blocks / 1440 bytes, min = max 24.
 *     mem_init stores 3 words per block: Dw = 180.
 *   mem_init(SITE:recs2) < main: 40 x malloc(24), none freed: blocks 40,
 *     total 960, max_live 40 / 960, min = max 24; Dw = 120.
 *   mem_init(SITE:bigblock) < main: 1 x malloc(1000); 125 stores: Dw = 125.
 *   Together Dw = 425 by mem_init, Dr = 0.
 *   walk() reads the 70 live small blocks, 3 loads each: recs[30..59] from
 *   the first line (Dr = 90), recs[60..99] from the second (Dr = 120).
 *
 * a() -> b() -> c() -> malloc(64)              bucket c(SITE:c) < b < a
 *   c() stores 8 words (Dw = 8 from c).  main then realloc()s the block to
 *   64 KiB: realloc keeps the bucket, so fill_block()'s 8192 stores over the
 *   new block are in it as well (Dw = 8192 from fill_block), and no
 *   bucket named after realloc's caller (main) appears.
 *
 * build_list() -> safe_malloc() -> malloc(16), 50 times
 *   default:                bucket safe_malloc(SITE:safe_malloc) < build_list < main
 *   --alloc-fn=safe_malloc: bucket build_list(SITE:list) < main
 *   blocks = 50, total_bytes = 800, min = max = 16, max_live_blocks = 50,
 *   max_live_bytes = 800.  build_list() stores 2 words per node: Dw = 100.
 *
 * make_zeroed(): calloc(10, 100)           bucket make_zeroed(SITE:zeroed) < main
 *   blocks = 1, total_bytes = 1000.
 * aligned_blocks(): posix_memalign(64, 256), aligned_alloc(128, 512),
 *   memalign(4096, 100): three buckets aligned_blocks(SITE:align1..3) < main,
 *   one block each (256, 512, 100 bytes), one store to each: Dw = 1 each.
 *
 * reuse_a() mallocs 4096 bytes, stores 512 words, frees it; reuse_b() then
 *   mallocs 4096 bytes (the allocator may hand out the same address) and
 *   stores 512 words: a freed block's addresses stop matching it, so all
 *   of reuse_b()'s stores are in reuse_b(SITE:reuse_b) < main (Dw = 512),
 *   none in reuse_a(SITE:reuse_a) < main (whose Dw = 512, all from reuse_a).
 *
 * --heap-names=fn:1 gives mem_init(SITE:mem_init), c(SITE:c),
 * safe_malloc(SITE:safe_malloc); fn:2 adds one caller (c(SITE:c) < b);
 * fn:5 gives c(SITE:c) < b < a < main (never past main).
 * --heap-names=site gives every frame its file and line.
 */
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct rec {
	uint64_t a, b, c;       /* 24 bytes */
};

struct node {
	struct node *next;
	uint64_t val;           /* 16 bytes */
};

struct rec *recs[100];
uint64_t *bigblock;
volatile uint64_t sink;

__attribute__((noinline)) void mem_init(void)
{
	for (int i = 0; i < 60; i++) {
		recs[i] = malloc(sizeof(struct rec)); /* SITE:mem_init */
		recs[i]->a = i;
		recs[i]->b = 2 * i;
		recs[i]->c = 3 * i;
	}
	for (int i = 0; i < 30; i++) {
		free(recs[i]);
		recs[i] = NULL;
	}
	for (int i = 60; i < 100; i++) {
		recs[i] = malloc(sizeof(struct rec)); /* SITE:recs2 */
		recs[i]->a = i;
		recs[i]->b = 2 * i;
		recs[i]->c = 3 * i;
	}
	bigblock = malloc(1000); /* SITE:bigblock */
	for (int i = 0; i < 125; i++)
		bigblock[i] = i;
}

__attribute__((noinline)) uint64_t walk(void)
{
	uint64_t s = 0;
	for (int i = 30; i < 100; i++)
		s += recs[i]->a + recs[i]->b + recs[i]->c;
	return s;
}

__attribute__((noinline)) uint64_t *c(void)
{
	uint64_t *p = malloc(64); /* SITE:c */
	for (int i = 0; i < 8; i++)
		p[i] = i;
	return p;
}

__attribute__((noinline)) uint64_t *b(void)
{
	uint64_t *p = c();
	sink = 1;
	return p;
}

__attribute__((noinline)) uint64_t *a(void)
{
	uint64_t *p = b();
	sink = 2;
	return p;
}

__attribute__((noinline)) void fill_block(uint64_t *p, size_t words)
{
	for (size_t i = 0; i < words; i++)
		p[i] = i;
}

__attribute__((noinline)) void *safe_malloc(size_t n)
{
	void *p = malloc(n); /* SITE:safe_malloc */
	if (!p)
		abort();
	return p;
}

__attribute__((noinline)) struct node *build_list(int n)
{
	struct node *head = 0;
	for (int i = 0; i < n; i++) {
		struct node *nd = safe_malloc(sizeof *nd); /* SITE:list */
		nd->next = head;
		nd->val = i;
		head = nd;
	}
	return head;
}

__attribute__((noinline)) void *make_zeroed(void)
{
	return calloc(10, 100); /* SITE:zeroed */
}

__attribute__((noinline)) uint64_t aligned_blocks(void)
{
	void *p1 = 0;
	if (posix_memalign(&p1, 64, 256)) /* SITE:align1 */
		abort();
	uint64_t *p2 = aligned_alloc(128, 512); /* SITE:align2 */
	uint64_t *p3 = memalign(4096, 100); /* SITE:align3 */
	if (!p2 || !p3)
		abort();
	*(uint64_t *)p1 = 1;
	*p2 = 2;
	*p3 = 3;
	return (uint64_t)(uintptr_t)p1 ^ (uint64_t)(uintptr_t)p2 ^ (uint64_t)(uintptr_t)p3;
}

__attribute__((noinline)) void reuse_a(void)
{
	/* volatile: stores into a block that is freed right after are dead
	 * code to the compiler, which would drop them with malloc and free */
	volatile uint64_t *p = malloc(4096); /* SITE:reuse_a */
	if (!p)
		abort();
	for (int i = 0; i < 512; i++)
		p[i] = i;
	free((void *)p);
}

__attribute__((noinline)) uint64_t *reuse_b(void)
{
	uint64_t *p = malloc(4096); /* SITE:reuse_b */
	for (int i = 0; i < 512; i++)
		p[i] = i;
	return p;
}

int main(void)
{
	mem_init();
	sink = walk();
	uint64_t *p = a();
	p = realloc(p, 65536);
	if (!p)
		abort();
	fill_block(p, 65536 / 8);
	sink = build_list(50)->val;
	sink = (uintptr_t)make_zeroed();
	sink = aligned_blocks();
	reuse_a();
	sink = (uintptr_t)reuse_b();
	return 0;
}
