/* evict_ring.c — nine arrays in the same sets of an 8-way L1, round-robin:
 * an eviction matrix that can be derived by hand (seeds/002 chapter 5).
 *
 * Run with --cache=L1=8K:8:64,L2=1M:16:64 --evictions=yes.  L1 has
 * 8192 / (8 * 64) = 16 sets: the set of an address is bits 6..9, so
 * addresses 1 KiB apart map to the same set.
 *
 * Layout: nine globals ring_0 .. ring_8 of 1 KiB (128 uint64_t, 16 lines)
 * each, every one aligned to 1 KiB: line j of every array falls into L1 set
 * j (j = 0..15), whatever order and gaps the linker chooses.  main() checks
 * the alignment and exits with status 2 if it does not hold.
 *
 * `evict_ring [P]`: between DCPROF_START() and DCPROF_STOP() (record with
 * --collect-atstart=no to measure only that), ring_walk() makes P passes
 * (default 1000); a pass visits the lines j = 0..15 and, for each, reads word
 * 8j of ring_0, ring_1, ..., ring_8 in that order (volatile loads: the
 * compiler keeps them, one per array and line, in program order).  The loop
 * keeps everything else in registers (checked by the e2e test: no other
 * bucket is accessed from ring_walk), so set j sees exactly the sequence
 *     r0 r1 r2 r3 r4 r5 r6 r7 r8 r0 r1 ...      (rk = line j of ring_k)
 * nine lines cycling through eight LRU ways.
 *
 * Level 1.  No ring line is in L1 before the walk (the arrays are in .bss
 * and nothing touches them before), so every access of pass 1 misses; in
 * pass 1 the accesses r0..r7 of set j replace the eight lines start-up left
 * there (start-up touches far more than the 128 lines of this L1, so no way
 * is empty), and r8 replaces the least recently used line, r0.  From then on
 * the set holds the eight ring lines accessed last, and the next access in
 * the cycle is always to the ninth: EVERY access misses, and it evicts the
 * least recently used line, the one accessed 8 accesses earlier in this set,
 * i.e. the array that comes right AFTER the accessing one in the cycle:
 *     ring_k evicts ring_{(k+1) mod 9}
 * (equivalently: each array is evicted by the one accessed just before it).
 * Counts, per array, P passes x 16 lines:
 *     ring_k   Dr = D1mr = 16 P,  Dw = 0
 *     evictions at level 1 by ring_k, k = 0..7:
 *         victim ring_{k+1}   16 (P - 1)   (passes 2..P)
 *         victims outside the ring   16    (pass 1: start-up's lines)
 *     evictions at level 1 by ring_8:
 *         victim ring_0       16 P          (pass 1 too)
 *   With P = 1000, ring_k's evictions go to ring_{k+1} in 99.9 % of cases
 *   (100 % for ring_8).  Nothing else is evicted by ring arrays, and while
 *   collecting nothing but ring_walk's own prologue/epilogue and the
 *   DCPROF_STOP() request (a few stack words, never a ring array) can evict a
 *   ring line: each of those misses evicts at most one line (8-byte aligned
 *   stack words do not straddle).
 * Level 2 (1024 sets, 16 ways): the nine arrays (9 KiB) fit; only the 144
 *   cold misses, D2mr = 16 per array.
 * No ring access straddles lines (8-byte aligned words), so every miss fills
 * exactly one line: while collecting, fills at a level equal the misses at
 * that level.  Without --collect-atstart=no the whole program is measured;
 * start-up and exit may straddle lines (memcpy of unaligned data), so there
 * fills >= misses, and the ring rows of the matrix are unchanged (the ring is
 * touched only inside ring_walk); exit code may then evict ring lines.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dcprof.h"

#define WORDS 128   /* 1 KiB */
#define RING __attribute__((aligned(1024)))

volatile uint64_t ring_0[WORDS] RING;
volatile uint64_t ring_1[WORDS] RING;
volatile uint64_t ring_2[WORDS] RING;
volatile uint64_t ring_3[WORDS] RING;
volatile uint64_t ring_4[WORDS] RING;
volatile uint64_t ring_5[WORDS] RING;
volatile uint64_t ring_6[WORDS] RING;
volatile uint64_t ring_7[WORDS] RING;
volatile uint64_t ring_8[WORDS] RING;
volatile uint64_t sink;

__attribute__((noinline)) static uint64_t ring_walk(long passes)
{
	uint64_t s = 0;

	/* one flat loop over passes x lines, so that the counter, the index
	 * and the sum fit in registers next to the array addresses */
	for (unsigned long n = 0; n < (unsigned long)passes * 16; n++) {
		unsigned long i = (n % 16) * 8;
		s += ring_0[i]; /* LINE:ring_0 */
		s += ring_1[i];
		s += ring_2[i];
		s += ring_3[i];
		s += ring_4[i];
		s += ring_5[i];
		s += ring_6[i];
		s += ring_7[i];
		s += ring_8[i];
	}
	return s;
}

int main(int argc, char **argv)
{
	long passes = argc > 1 ? atol(argv[1]) : 1000;
	const volatile uint64_t *r[9] = { ring_0, ring_1, ring_2, ring_3, ring_4,
					  ring_5, ring_6, ring_7, ring_8 };
	uint64_t s;

	for (int k = 0; k < 9; k++)
		if ((uintptr_t)r[k] % 1024)
			return 2;
	DCPROF_START();
	s = ring_walk(passes);
	DCPROF_STOP();
	sink = s;
	return 0;
}
