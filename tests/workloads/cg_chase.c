/* cg_chase.c — Cachegrind agreement: pointer chasing over a static pool of
 * 256K nodes of 32 bytes (8 MiB) linked in one random cycle (Sattolo's
 * shuffle with a fixed xorshift seed), followed for 1M steps; each step loads
 * the next index and increments a counter in the node (a read-modify-write
 * instruction, which both tools count as one read).  Nearly every step
 * misses D1.  No malloc, no stdio.
 */
#include <stdint.h>

#define NODES (1u << 18)
#define STEPS (1u << 20)

struct node {
	uint64_t next;
	uint64_t hits;
	uint64_t pad[2];
};

struct node cg_pool[NODES] __attribute__((aligned(64)));
uint32_t cg_perm[NODES];
volatile uint64_t sink;

static uint64_t rng = 88172645463325252ull;

__attribute__((noinline)) static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((noinline)) static void link_cycle(void)
{
	for (uint32_t i = 0; i < NODES; i++)
		cg_perm[i] = i;
	/* Sattolo: a uniformly random single cycle */
	for (uint32_t i = NODES - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(xorshift() % i);
		uint32_t t = cg_perm[i];
		cg_perm[i] = cg_perm[j];
		cg_perm[j] = t;
	}
	for (uint32_t i = 0; i < NODES; i++)
		cg_pool[cg_perm[i]].next = cg_perm[(i + 1) % NODES];
}

__attribute__((noinline)) static uint64_t chase(uint64_t start, uint32_t steps)
{
	uint64_t i = start;
	for (uint32_t s = 0; s < steps; s++) {
		cg_pool[i].hits++;
		i = cg_pool[i].next;
	}
	return i;
}

int main(void)
{
	link_cycle();
	sink = chase(0, STEPS);
	return 0;
}
