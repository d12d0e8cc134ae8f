/* evict_freed.c — lines of a freed block evicted, then lines of the block
 * that takes its place: the victim is the bucket of the line at the time
 * of the eviction (docs/schema.md), the allocator's <malloc> for the first
 * (no object left in its lines) and the new block's bucket for the second.
 *
 * Run with --cache=L1=8K:8:64,L2=1M:16:64 --evictions=yes.  L1 has
 * 8192 / (8 * 64) = 16 sets; L2 holds everything touched here.
 *
 * The engine answers victims in memory no object holds page by page, from
 * a table kept while no object appears (dc_instrument.c,
 * dc_bucket_at_addr).  Phase 1 fills that table for the freed block's
 * pages; phase 2 puts a new block there, whose lines must not be taken for
 * the allocator's.
 *
 * Phase 1: first = malloc(16 KiB + 64); touch() writes one byte of each of
 * the 256 lines from its first 64-byte boundary on, leaving 128 in L1 as in phase 2 below;
 * free(first) (its PLT entry bound before, by freeing a small block at the
 * start: the dynamic linker's symbol lookup would evict most of them) merges the
 * chunk into the top chunk, touching a few lines of the arena and chunk
 * headers; stream(ev_first) reads one byte of each of the 256 lines of
 * the 64-byte aligned global ev_first.  The lines of `first` still in L1,
 * most of the 128, are evicted as lines of freed memory (<malloc>).
 *
 * Phase 2: second = malloc(16 KiB + 64), the same address (glibc gives
 * back the chunk just freed; main exits with 3 otherwise), and
 * touch_then_stream(second, ev_second): 256 line writes to `second` (from
 * its first 64-byte boundary), then
 * 256 line reads of ev_second, in one leaf function whose loops keep
 * everything in registers, so the two loops are the only accesses between
 * the function's call and its return:
 *   - each L1 set receives 16 lines of `second` in order and keeps the
 *     last 8 (LRU): after the first loop L1 holds exactly 128 lines, all
 *     of `second` (whatever was there before is older than them);
 *   - each set then receives 16 lines of ev_second (never touched before,
 *     so all miss): the first 8 evict the 8 lines of `second`, the next 8
 *     the first 8 of ev_second.
 * So the eviction matrix's row of evictor ev_second at level 1 is exactly
 *     { second's bucket: 16 x 8 = 128, ev_second: 128 }
 * and nothing else; with `second`'s pages still taken for the freed
 * block's, its 128 would go to <malloc>.
 */
#include <stdint.h>
#include <stdlib.h>

#define BLOCK 16384
#define LINE 64

char ev_first[BLOCK] __attribute__((aligned(LINE)));
char ev_second[BLOCK] __attribute__((aligned(LINE)));
volatile char sink;
void *volatile warm;

static char *line_up(char *p)
{
	return (char *)(((uintptr_t)p + LINE - 1) & ~(uintptr_t)(LINE - 1));
}

__attribute__((noinline)) static void touch(volatile char *b)
{
	for (size_t i = 0; i < BLOCK; i += LINE)
		b[i] = 1;
}

__attribute__((noinline)) static void stream(const volatile char *ev)
{
	char s = 0;

	for (size_t i = 0; i < BLOCK; i += LINE)
		s += ev[i];
	sink = s;
}

__attribute__((noinline)) static char touch_then_stream(volatile char *b, const volatile char *ev)
{
	char s = 0;

	for (size_t i = 0; i < BLOCK; i += LINE)
		b[i] = 1;
	for (size_t i = 0; i < BLOCK; i += LINE)
		s += ev[i];
	return s;
}

int main(void)
{
	char *first, *second;

	warm = malloc(24);
	free((void *)warm);
	first = malloc(BLOCK + LINE);
	if (!first)
		return 1;
	touch(line_up(first));
	free(first);
	stream(ev_first);
	second = malloc(BLOCK + LINE);
	if (second != first)
		return 3;
	sink = touch_then_stream(line_up(second), ev_second);
	free(second);
	return 0;
}
