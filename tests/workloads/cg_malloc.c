/* cg_malloc.c — Cachegrind agreement and heap attribution with the
 * program's own malloc: 1M blocks of 24 bytes, each its own malloc (the
 * glibc allocator puts them 32 bytes apart), linked in a random order
 * (Sattolo's shuffle of an index array, fixed xorshift seed), chased for
 * 1M steps, then freed in that random order.  Built with -O2 -g.
 *
 * What the chase itself does, per step: load p->next, add p->val to a sum
 * (two reads of the block, one instruction each: 2 reads); it visits every
 * block once (a single cycle of 1M), so the bucket of the nodes gets
 * exactly 2 x 1M reads from chase().  make_nodes() writes val and next of
 * every block (2 x 1M writes from make_nodes, after the calls).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1u << 20)

struct node {
	struct node *next;
	uint64_t val;
	uint64_t pad;
};

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((noinline)) static struct node **make_nodes(void)
{
	struct node **v = malloc(N * sizeof *v);
	uint32_t *perm = malloc(N * sizeof *perm);

	for (uint32_t i = 0; i < N; i++)
		v[i] = malloc(sizeof(struct node));
	for (uint32_t i = 0; i < N; i++)
		perm[i] = i;
	for (uint32_t i = N - 1; i > 0; i--) {      /* Sattolo: one cycle */
		uint32_t j = (uint32_t)(xorshift() % i), t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (uint32_t i = 0; i < N; i++) {
		v[perm[i]]->next = v[perm[(i + 1) % N]];
		v[perm[i]]->val = i;
	}
	free(perm);
	return v;
}

__attribute__((noinline)) static uint64_t chase(struct node *p, uint32_t steps)
{
	uint64_t sum = 0;

	while (steps--) {
		sum += p->val;
		p = p->next;
	}
	return sum;
}

int main(void)
{
	struct node **v = make_nodes();
	uint64_t sum = chase(v[0], N);

	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(xorshift() % (i + 1));
		struct node *t = v[i];
		v[i] = v[j];
		v[j] = t;
	}
	for (uint32_t i = 0; i < N; i++)
		free(v[i]);
	free(v);
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
