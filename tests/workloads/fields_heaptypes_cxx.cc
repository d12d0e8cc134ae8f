// fields_heaptypes_cxx.cc — C++ heap blocks typed from the allocation
// (report --by field, test_engine_fields.py), built -O2 -g.  The type
// report --by field must name at each SITE line is the source's:
//   SITE:newarr   bodies = new Body[n], bodies declared earlier   Body
//   SITE:member   posix_memalign((void **)&cells, ...) in a method: the
//                 member of `this`                                 Item
//   SITE:newobj   grid = new Grid, grid declared earlier           Grid
//   SITE:template static_cast<T *>(malloc(...)) in Allocate<T>, as LULESH
//                 allocates (a template allocator, inlined: its inlined
//                 frame names the block; not inlined, `return malloc` is a
//                 tail call named at the caller): Allocate<Item>'s T  Item
// Body and Item are trivially destructible, so new[] adds no cookie and the
// blocks hold the elements from offset 0.
#include <cstdio>
#include <cstdlib>

struct Body {
	double pos[3];
	double mass;
};

struct Item {
	double w;
	long id;
};

class Grid {
public:
	Item *cells = nullptr;
	long n = 0;

	__attribute__((noipa)) void init(long k)
	{
		if (posix_memalign((void **)&cells, 64, k * sizeof(Item)))   /* SITE:member */
			std::exit(1);
		for (long i = 0; i < k; i++)
			cells[i].id = i;
		n = k;
	}
};

template <typename T>
static inline __attribute__((always_inline)) T *Allocate(size_t n)
{
	return static_cast<T *>(std::malloc(sizeof(T) * n));   /* SITE:template */
}

static __attribute__((noipa)) Body *make_bodies(long n)
{
	Body *bodies = nullptr;

	if (n > 0)
		bodies = new Body[n];                        /* SITE:newarr */
	for (long i = 0; i < n; i++)
		bodies[i].mass = 1.0;
	return bodies;
}

int main()
{
	Grid *grid;
	Body *b = make_bodies(64);
	Item *it = Allocate<Item>(64);

	grid = new Grid;                                 /* SITE:newobj */
	grid->init(64);
	for (long i = 0; it && i < 64; i++)
		it[i].w = 1.0;
	std::printf("%g %ld %ld\n", b[3].mass, grid->cells[5].id, grid->n);
	return 0;
}
