/* bench_chase.c — benchmark: 1M small heap blocks (24-byte nodes, each its
 * own malloc) linked in a random order and chased.  Many small blocks stress
 * the allocation tracking and the address -> block lookup; the random order
 * defeats the caches. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 0) : (1u << 20);
	int rounds = argc > 2 ? atoi(argv[2]) : 4;
	struct node **nodes = malloc(n * sizeof *nodes);
	if (!nodes)
		return 1;
	for (size_t i = 0; i < n; i++) {
		nodes[i] = malloc(sizeof(struct node));
		if (!nodes[i])
			return 1;
		nodes[i]->val = i;
	}
	for (size_t i = n - 1; i > 0; i--) {        /* Fisher-Yates */
		size_t j = xorshift() % (i + 1);
		struct node *t = nodes[i];
		nodes[i] = nodes[j];
		nodes[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		nodes[i]->next = nodes[(i + 1) % n];
	uint64_t s = 0;
	struct node *p = nodes[0];
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < n; i++) {
			s += p->val;
			p = p->next;
		}
	for (size_t i = 0; i < n; i++)
		free(nodes[i]);
	free(nodes);
	printf("%llu\n", (unsigned long long)s);
	return 0;
}
