/* cxx_new.cc — heap buckets of C++ new and new[], delete and delete[].
 * No iostreams, so the program allocates only what is listed here (the C++
 * runtime's own start-up allocations land in buckets named after its own
 * functions).
 *
 * Naming (docs/engine.md): blocks from new/new[] are named like malloc's,
 * from the first frame above the allocator (with the file and line of its
 * call, marked SITE: below), three functions joined by " < ", stopping at
 * main; the allocator frames (operator new, operator new[], malloc) are
 * not part of the name.  Written here as fn(SITE) < caller.
 *
 * make_nodes() (called from main), three allocation lines:
 *   make_nodes(SITE:nodes) < main: 20 x new Node (16 bytes each; Node has
 *   no constructor, so `new Node` stores nothing), then stores next and
 *   val of each: Dw = 40 (from make_nodes).  blocks = 20, total 320,
 *   max_live 20 blocks / 320 bytes, min = max = 16.  free_nodes() (called
 *   from main) reads each node's next before deleting it: Dr = 20; all 20
 *   are freed.
 *   make_nodes(SITE:tmp) < main: new long[100] (800 bytes; a trivially
 *   destructible element type has no array cookie), fill() stores 100
 *   words, sum() reads them (Dr = 100), then delete[] frees it.
 *   make_nodes(SITE:table50) < main: new long[50] (400 bytes), fill()
 *   stores 50 words; live at exit.
 * make_table(SITE:big) < main: new long[256] (2048 bytes), fill()
 *   stores 256 words; blocks = 1, total_bytes = min = max = 2048, Dw = 256
 *   (from fill).
 */
#include <cstddef>

struct Node {
	Node *next;
	long val;               /* 16 bytes */
};

Node *head;
long *table;
long *big;
volatile long sink;

__attribute__((noinline)) void fill(long *p, long n)
{
	for (long i = 0; i < n; i++)
		p[i] = i;
}

__attribute__((noinline)) long sum(const long *p, long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += p[i];
	return s;
}

__attribute__((noinline)) void make_nodes()
{
	for (int i = 0; i < 20; i++) {
		Node *nd = new Node; /* SITE:nodes */
		nd->next = head;
		nd->val = i;
		head = nd;
	}
	long *tmp = new long[100]; /* SITE:tmp */
	fill(tmp, 100);
	sink = sum(tmp, 100);
	delete[] tmp;
	table = new long[50]; /* SITE:table50 */
	fill(table, 50);
}

__attribute__((noinline)) void free_nodes()
{
	while (head) {
		Node *next = head->next;
		delete head;
		head = next;
	}
}

__attribute__((noinline)) void make_table()
{
	big = new long[256]; /* SITE:big */
	fill(big, 256);
}

/* A const member function: its bucket is Maker::make (cxx_new.cc:N) < main, without the
 * parameter list or the const qualifier; 1 block of 4 longs (32 bytes). */
struct Maker {
	long n;
	__attribute__((noinline)) long *make() const { return new long[n]; }
};

int main()
{
	Maker maker = { 4 };

	make_nodes();
	free_nodes();
	make_table();
	long *made = maker.make();
	made[0] = 1;
	sink = table[0] + big[0] + made[0];
	return 0;
}
