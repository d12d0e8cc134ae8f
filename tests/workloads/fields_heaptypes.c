/* fields_heaptypes.c — heap blocks typed from what the allocation is
 * assigned to (report --by field, test_engine_fields.py), built -O2 -g.
 * Each SITE line allocates blocks of one type; the type report --by field
 * must name is the one the source gives there:
 *   SITE:assign   nd = malloc(sizeof *nd), nd declared earlier   struct node
 *   SITE:member   v->items = calloc(...)                        struct item
 *   SITE:global   g_parts = malloc(...), a global pointer        struct particle
 *   SITE:cast     void *raw = (struct cell *)malloc(...)         struct cell
 *   SITE:memalign posix_memalign(&buf, ...), buf declared earlier struct item
 *   SITE:inlined  p = malloc(...) in a function inlined into main struct particle
 *   SITE:none     return malloc(n) is a tail call at -O2 (a jump to
 *                 malloc): the block's first frame is main's line
 *                 `u = untyped(64)` (SITE:caller), typed by u          char
 *   SITE:macro    a macro defines pool_new: every variable it declares
 *                 is declared at the line of its use (klib's kbtree.h
 *                 does this), a struct pool and a struct cell pointer,
 *                 both allocated there: no type (the field view says
 *                 why), where the first variable found named one
 * Every block is written once per element at a known field, so the field
 * view has a row with accesses: node.key, item.id, particle.m, cell.b.
 */
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *next;
	long key;
	char payload[40];
};

struct item {
	double w;
	int id;
	int flags;
};

struct vec {
	struct item *items;
	long n;
};

struct particle {
	double x, y, z, m;
};

struct cell {
	int a, b;
};

struct particle *g_parts;

static __attribute__((noipa)) struct node *build(long n)
{
	struct node *head = NULL, *nd;

	for (long i = 0; i < n; i++) {
		nd = malloc(sizeof *nd);                      /* SITE:assign */
		if (!nd)
			exit(1);
		nd->key = i;
		nd->next = head;
		head = nd;
	}
	return head;
}

static __attribute__((noipa)) void vec_init(struct vec *v, long n)
{
	v->items = calloc(n, sizeof *v->items);          /* SITE:member */
	if (!v->items)
		exit(1);
	for (long i = 0; i < n; i++)
		v->items[i].id = (int)i;
	v->n = n;
}

static __attribute__((noipa)) void parts_init(long n)
{
	g_parts = malloc(n * sizeof *g_parts);            /* SITE:global */
	if (!g_parts)
		exit(1);
	for (long i = 0; i < n; i++)
		g_parts[i].m = 1.0;
}

static __attribute__((noipa)) void *cells_init(long n)
{
	void *raw = (struct cell *)malloc(n * sizeof(struct cell));   /* SITE:cast */

	for (long i = 0; raw && i < n; i++)
		((struct cell *)raw)[i].b = (int)i;
	return raw;
}

static __attribute__((noipa)) struct item *aligned_items(long n)
{
	struct item *buf;

	if (posix_memalign((void **)&buf, 64, n * sizeof *buf))   /* SITE:memalign */
		exit(1);
	for (long i = 0; i < n; i++)
		buf[i].id = (int)i;
	return buf;
}

static inline struct particle *more_parts(long n)
{
	struct particle *p;

	p = malloc(n * sizeof *p);                        /* SITE:inlined */
	if (!p)
		exit(1);
	for (long i = 0; i < n; i++)
		p[i].m = 2.0;
	return p;
}

#define DEFINE_POOL(name, T) \
	struct name { long n; T *slots; }; \
	static __attribute__((noipa)) struct name *name##_new(long n) \
	{ struct name *pl = malloc(sizeof *pl); T *s = calloc(n, sizeof *s); \
	  if (pl) { pl->n = n; pl->slots = s; } return pl; }

DEFINE_POOL(pool, struct cell)                                  /* SITE:macro */

static __attribute__((noipa)) void *untyped(long n)
{
	return malloc(n);                                 /* SITE:none */
}

int main(void)
{
	struct vec v;
	struct node *l = build(64);
	struct item *a;
	struct particle *q;
	char *u;
	void *c;

	vec_init(&v, 64);
	parts_init(64);
	c = cells_init(64);
	a = aligned_items(64);
	q = more_parts(64);
	struct pool *pl = pool_new(64);
	u = untyped(64);                                  /* SITE:caller */
	u[0] = 1;
	pl->slots[2].b = 5;
	printf("%ld %d %g %p %d %g %d %d\n", l->key, v.items[3].id, g_parts[5].m, c, a[7].id,
	       q[9].m, u[0], pl->slots[2].b);
	return 0;
}
