/* free_order.c — 3000 heap blocks allocated in a row and freed in a
 * scattered order, for the simulator engine's batched frees (dc_heap.c,
 * "frees, in batches": settled in address order, recorded in the frees'
 * order).
 *
 * Block i (0 <= i < N) has size 16 + i, so its size names it.  The blocks
 * are allocated i = 0, 1, ..., N-1 with no other allocation between, then
 * freed in the order perm(k) = k * 7919 mod N (7919 is prime and does not
 * divide N, so perm is a permutation), with no other allocation event
 * between the last malloc and the first free.  So, numbering allocation
 * events as the engine does (one per malloc and per free):
 *
 *    alloc_seq(i)       = a0 + i
 *    free_seq(perm(k))  = a0 + N + k
 *
 * for the event number a0 of the first malloc.  The pointers live in a
 * static array (no allocation of their own).
 */
#include <stdio.h>
#include <stdlib.h>

#define N 3000

static void *volatile blocks[N];

int main(void)
{
	unsigned long sum = 0;

	for (int i = 0; i < N; i++) {
		blocks[i] = malloc(16 + (size_t)i);
		if (!blocks[i])
			return 1;
		((volatile char *)blocks[i])[0] = (char)i;
	}
	for (int i = 0; i < N; i++)
		sum += ((volatile unsigned char *)blocks[i])[0];
	for (long k = 0; k < N; k++)
		free(blocks[(k * 7919) % N]);
	printf("%lu\n", sum);
	return 0;
}
