// inl_domain.cc — a class whose constructor allocates several std::vector
// members, built with g++ -O2 -g (LULESH's Domain in miniature): resize()
// and the vector internals are inlined from the system headers, and the
// member function alloc_nodes() into the constructor.  Every field must
// land in its own heap bucket, named by the first frame of the program
// with the line of its resize() (docs/engine.md), not one bucket
// "std::vector<...>::_M_default_append-Domain::Domain-main".
//
// Fields (one block each; N = 1000):  x, y, z (alloc_nodes, SITE:x/y/z)
//   8 N = 8000 bytes; e (the constructor, SITE:e) 8000 bytes; nodelist
//   (SITE:nodelist) 8 N ints = 32000 bytes.
// main reads x[i], y[i], z[i], e[i] and nodelist[8 i] for i < N: Dr = N =
//   1000 in each field's bucket (an FP sum in order: not vectorized).
#include <cstdio>
#include <vector>

struct Domain {
	std::vector<double> x, y, z, e;
	std::vector<int> nodelist;
	explicit Domain(int n);
	void alloc_nodes(int n)
	{
		x.resize(n); /* SITE:x */
		y.resize(n); /* SITE:y */
		z.resize(n); /* SITE:z */
	}
};

Domain::Domain(int n)
{
	alloc_nodes(n);
	e.resize(n); /* SITE:e */
	nodelist.resize(8 * n); /* SITE:nodelist */
}

int main()
{
	Domain d(1000);
	double s = 0;
	for (int i = 0; i < 1000; i++)
		s += d.x[i] + d.y[i] + d.z[i] + d.e[i] + d.nodelist[8 * i];
	std::printf("%f\n", s);
	return 0;
}
