/* cxx_new.cc — heap buckets of C++ new and new[], delete and delete[].
 * No iostreams, so the program allocates only what is listed here (the C++
 * runtime's own start-up allocations land in buckets named after its own
 * functions).
 *
 * Naming (docs/engine.md): blocks from new/new[] are named like malloc's,
 * by the three functions above the allocator, stopping at main; the
 * allocator frames (operator new, operator new[], malloc) are not part of
 * the name.
 *
 * make_nodes() (called from main)                     bucket make_nodes-main
 *   20 x new Node (16 bytes each; Node has no constructor, so `new Node`
 *   stores nothing), then stores next and val of each: Dw = 40 (from
 *   make_nodes).
 *   new long[100] (800 bytes; a trivially destructible element type has no
 *   array cookie), fill() stores 100 words, sum() reads them (Dr = 100),
 *   then delete[] frees it.
 *   new long[50] (400 bytes), fill() stores 50 words: fill's Dw = 150.
 *   blocks = 22, total_bytes = 20*16 + 800 + 400 = 1520, min 16, max 800.
 *   Live blocks: 20 -> 21 -> 20 -> 21, so max_live_blocks = 21 < blocks;
 *   max_live_bytes = 320 + 800 = 1120 (the second peak is 320 + 400).
 * free_nodes() (called from main) deletes the 20 nodes; the numbers above
 *   do not change (no allocation follows in this bucket).
 * make_table() (called from main): new long[256] (2048 bytes), fill()
 *   stores 256 words                                   bucket make_table-main
 *   blocks = 1, total_bytes = min = max = 2048, Dw = 256 (from fill).
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
		Node *nd = new Node;
		nd->next = head;
		nd->val = i;
		head = nd;
	}
	long *tmp = new long[100];
	fill(tmp, 100);
	sink = sum(tmp, 100);
	delete[] tmp;
	table = new long[50];
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
	big = new long[256];
	fill(big, 256);
}

/* A const member function: its bucket is Maker::make-main, without the
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
