// inl_outer.cc — hot loops whose loads are inlined code, built with
// g++ -O2 -g as users build: std::vector's size() and operator[]
// (stl_vector.h) in add_one's loop, and an always_inline helper, load2,
// in sum_pairs.  A line report charges inlined code to the header's or
// the helper's line; `report --by line --outer` must put it on the marked
// lines of add_one and sum_pairs (docs/cli.md, "Inlined code").
//
// Counts (N = 1000, REPS = 10):
//   src, dst (std::vector<unsigned char> of N bytes, one heap block each,
//     allocated at SITE:src and SITE:dst): add_one's loop, all on the
//     line LINE:vec, reads each src byte once and writes each dst byte
//     once per repetition: src's bucket Dr = N * REPS = 10000, dst's
//     Dw = 10000, whether GCC puts a load on operator[]'s line or on the
//     caller's.  A byte store may alias the vectors' own pointers, so the
//     loop reloads them through the inlined size() and operator[] on
//     every iteration (accesses to the globals src and dst, as many as
//     GCC emits: not counted here) and is not vectorized.
//   pairs (a global long[N]): read by sum_pairs through load2, two loads
//     (p[i], p[i + 1]) per even i and repetition: Dr = 2 * (N / 2) * REPS
//     = 10000, load2's line LINE:helper inlined at LINE:pairs.  The hash
//     s = 31 s + ... is no reduction GCC vectorizes.
#include <cstdio>
#include <vector>

enum { N = 1000, REPS = 10 };

std::vector<unsigned char> src, dst;
long pairs[N];

static inline __attribute__((always_inline)) long load2(const long *p, int i)
{
	return p[i] * 7 + p[i + 1]; /* LINE:helper */
}

__attribute__((noinline)) void add_one(std::vector<unsigned char> &d,
				       const std::vector<unsigned char> &s)
{
	for (int r = 0; r < REPS; r++)
		for (size_t i = 0; i < s.size(); i++) d[i] = s[i] + 1; /* LINE:vec */
}

__attribute__((noinline)) long sum_pairs(const long *a, int n)
{
	long s = 0;

	for (int r = 0; r < REPS; r++)
		for (int i = 0; i + 1 < n; i += 2)
			s = s * 31 + load2(a, i); /* LINE:pairs */
	return s;
}

int main()
{
	src.resize(N); /* SITE:src */
	dst.resize(N); /* SITE:dst */
	for (int i = 0; i < N; i++)
		pairs[i] = 2 * i;
	add_one(dst, src);
	std::printf("%d %ld\n", dst[N - 1], sum_pairs(pairs, N));
	return 0;
}
