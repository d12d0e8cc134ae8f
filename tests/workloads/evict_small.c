/* evict_small.c — lines of small heap blocks evicted: each line begins
 * with a chunk header, not with a block, and its victim must still be the
 * blocks' bucket (docs/engine.md, "Who evicts whom").
 *
 * Run with --cache=L1=8K:8:64,L2=1M:16:64 --evictions=yes.  L1 has
 * 8192 / (8 * 64) = 16 sets; L2 holds everything touched here.
 *
 * glibc on x86-64 gives malloc(9) a 32-byte chunk, the block 16 bytes
 * into it, and a fresh heap hands out consecutive chunks: NBLOCKS blocks
 * from alloc_small() lie 32 bytes apart.  Blocks from alloc_pad() (another
 * bucket) first bring the next chunk to a 64-byte boundary, so line j of
 * the region (j = 0 .. NBLOCKS / 2 - 1) holds, in order, the header of
 * chunk 2j (16 bytes: no block holds them), block 2j (9 bytes, then 7 of
 * slack), the header of chunk 2j + 1 and block 2j + 1.  main exits with 3
 * when the layout differs.
 *
 * touch_then_stream(), one leaf function whose loops keep everything in
 * registers (the two loops are its only accesses; block 2j's address is
 * computed, not read from `blocks`):
 *   - writes one byte of block 2j for j = 0 .. 255: 256 lines, 16 per L1
 *     set in order; each set keeps the last 8 (LRU), so L1 then holds
 *     exactly 128 lines, all of the blocks;
 *   - reads one byte of each of the 256 lines of the 64-byte aligned
 *     global ev_stream (never touched before, so all miss): each set
 *     receives 16; the first 8 evict the blocks' 8 lines, the next 8 the
 *     first 8 of ev_stream.
 * So the eviction matrix's row of evictor ev_stream at level 1 is exactly
 *     { alloc_small's bucket: 16 x 8 = 128, ev_stream: 128 }
 * where naming a line by its first byte alone gives <malloc> the 128.
 */
#include <stdint.h>
#include <stdlib.h>

#define NBLOCKS 512
#define LINE 64
#define STREAM (NBLOCKS / 2 * LINE)

char ev_stream[STREAM] __attribute__((aligned(LINE)));
volatile char sink;

__attribute__((noinline)) static char *alloc_small(void)
{
	return malloc(9);
}

__attribute__((noinline)) static char *alloc_pad(size_t n)
{
	return malloc(n);
}

/* first: block 0; block 2j is first + 64j (main checked the layout). */
__attribute__((noinline)) static char touch_then_stream(volatile char *first,
							const volatile char *ev)
{
	char s = 0;

	for (size_t j = 0; j < NBLOCKS / 2; j++)
		first[j * LINE] = 1;
	for (size_t i = 0; i < STREAM; i += LINE)
		s += ev[i];
	return s;
}

int main(void)
{
	static char *blocks[NBLOCKS];
	char *pad;
	int tries;

	/* The chunk after a pad block starts at pad - 16 + chunk size: make
	 * it a multiple of 64 (a 48-byte chunk, malloc(40), moves it by 16
	 * mod 32; a 32-byte one, malloc(9), by 32). */
	for (tries = 0; tries < 4; tries++) {
		pad = alloc_pad(9);
		if (!pad)
			return 1;
		if (((uintptr_t)pad + 16) % LINE == 0)
			break;
		if (((uintptr_t)pad + 16) % 32 != 0 && !alloc_pad(40))
			return 1;
	}
	for (size_t i = 0; i < NBLOCKS; i++) {
		blocks[i] = alloc_small();
		if (!blocks[i])
			return 1;
	}
	if (tries == 4 || (uintptr_t)blocks[0] % LINE != 16)
		return 3;
	for (size_t i = 1; i < NBLOCKS; i++)
		if (blocks[i] != blocks[0] + 32 * i)
			return 3;
	sink = touch_then_stream(blocks[0], ev_stream);
	return 0;
}
