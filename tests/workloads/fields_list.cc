// fields_list.cc — a linked list whose payload is never read (report --by
// field, test_engine_fields.py).  C++, built -O2 -g as users build.
//
// struct node is 56 bytes: next at 0, key at 8, payload[40] at 16.
// make_list allocates N = 2048 nodes with new (the pointer declared at the
// allocation: --by field finds struct node), writes key and next, and fills
// the payload (memset: stores the compiler chooses); then P = 8 walks (calls
// of a noipa function, so each is made) read p->key and p->next of every
// node.
//     next: Dr = P N = 16384, Dw = N;  key: Dr = P N = 16384, Dw = N;
//     payload[40]: Dr = 0 ("never read"), Dw > 0.
// So next and key each have 50 % of the reads.
// Misses (L1=32K:8:64, L2=1M:16:64): nodes take 64 bytes each (56 rounded
// up, as glibc places them), 16-byte aligned, so next and key (16 bytes) are
// in one line and each node's are in a line of their own.  A walk touches
// those N = 2048 lines, 32 per 8-way set, from the last node built to the
// first.  Walks 2..P find none of them in L1 (the walk before ended at the
// other end): each node misses once, on whichever of the two loads the
// compiled loop makes first: (P - 1) N = 14336 misses.  The first walk
// starts on lines the build left in L1, so it misses at most N times.  The
// build touches N + 1 lines (cold).  So next and key hold at least
// (P - 1) N / (P N + N + 1) = 77.7 % of the misses.  L2 (1 MiB) keeps the
// 128 KiB of nodes: the walks add no L2 miss; D2m <= N + 1 in all.
// Unused bytes (--cache-use): a node line holds the 16 bytes of one node's
// next and key and, whatever the line's offset r of that node (0, 16, 32 or
// 48), exactly 40 payload bytes: r = 0: the node's own payload and the next
// chunk's 8-byte header; else the previous node's last r - 8 payload bytes,
// this node's 8-byte header and its first 48 - r payload bytes.  Each
// residency of walks 2..P uses next and key alone, so it leaves those 40
// payload bytes unused and no next or key byte: payload[40] Unused1 >=
// 40 (P - 1) N = 573440.
#include <cstdio>
#include <cstring>

static const long N = 2048;
static const int P = 8;

struct node {
	node *next;
	long key;
	char payload[40];
};

static node *make_list(long n)
{
	node *head = nullptr;

	for (long i = 0; i < n; i++) {
		node *nd = new node;   /* SITE:node */
		nd->key = i;
		nd->next = head;
		std::memset(nd->payload, 'x', sizeof nd->payload);
		head = nd;
	}
	return head;
}

__attribute__((noipa)) static long walk(const node *p)
{
	long s = 0;

	for (; p; p = p->next)
		s += p->key;
	return s;
}

int main()
{
	node *head = make_list(N);
	long s = 0;

	for (int r = 0; r < P; r++)
		s += walk(head);
	std::printf("%ld\n", s);
	return 0;
}
