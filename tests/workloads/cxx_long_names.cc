// cxx_long_names.cc — C++ names as a kd-tree library has them, built with
// g++ -O2 -g: a class template instantiated with nested templates, so that
// its member functions' demangled names are longer than 255 bytes (about
// 370), a function inlined into one of them, a heap block it allocates,
// and globals in a namespace and in a class.
//
// Expected (tests/e2e/test_cxx_long_names.py, names from nm and c++filt):
//  - sum_row, always inlined into Tree::sum(int), reads table[i] for
//    i < 512 once: its location's inlined_into is the whole demangled
//    name of Tree::sum(int), Dr = 512 in bucket geo::table (an in-order
//    FP sum, not vectorized).
//  - Tree::grow(int) (noinline) allocates one block with new[], called
//    from main: heap bucket "<Tree::grow, bare> (cxx_long_names.cc:SITE:grow) < main".
//  - Tree::calls, a static data member, written once by grow: a global
//    bucket named by its demangled name.
#include <cstdio>

namespace geo {
double table[512];
}

template <class T> struct Level_one_wrapper_with_a_rather_long_name {
	T v;
};
template <class A, class B, class C> struct Kd_tree_like_container_with_a_long_name {
	double *buf = nullptr;
	static int calls;
	__attribute__((noinline)) static double sum(int n);
	__attribute__((noinline)) void grow(int n);
};
template <class A, class B, class C> int Kd_tree_like_container_with_a_long_name<A, B, C>::calls;

using W1 = Level_one_wrapper_with_a_rather_long_name<Level_one_wrapper_with_a_rather_long_name<double>>;
using W2 = Level_one_wrapper_with_a_rather_long_name<Level_one_wrapper_with_a_rather_long_name<float>>;
using W3 = Level_one_wrapper_with_a_rather_long_name<Level_one_wrapper_with_a_rather_long_name<int>>;
using Tree = Kd_tree_like_container_with_a_long_name<W1, W2, W3>;

static inline __attribute__((always_inline)) double sum_row(const double *p, int n)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += p[i];
	return s;
}

template <class A, class B, class C> double Kd_tree_like_container_with_a_long_name<A, B, C>::sum(int n)
{
	return sum_row(geo::table, n);
}

template <class A, class B, class C> void Kd_tree_like_container_with_a_long_name<A, B, C>::grow(int n)
{
	buf = new double[n]; /* SITE:grow */
	calls = n;
}

int main()
{
	Tree t;
	for (int i = 0; i < 512; i++)
		geo::table[i] = i;
	t.grow(64);
	t.buf[0] = t.sum(512);
	std::printf("%f %d\n", t.buf[0], Tree::calls);
	delete[] t.buf;
	return 0;
}
