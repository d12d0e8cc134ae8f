// cg_cxx.cc — Cachegrind agreement with an optimized C++ program: standard
// containers (std::vector growth, std::map nodes, std::string), operator
// new/delete through libstdc++, iostreams.  Built with -O2 -g.
#include <cstdint>
#include <iostream>
#include <map>
#include <string>
#include <vector>

int main()
{
	std::vector<std::uint64_t> v;
	std::map<std::uint32_t, std::string> m;
	std::uint64_t x = 88172645463325252ull, sum = 0;

	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v.push_back(x);
	}
	for (int i = 0; i < 50000; i++)
		m[(std::uint32_t)(v[i] % 100000)] = std::to_string(v[i]);
	for (int r = 0; r < 4; r++)
		for (std::uint64_t e : v)
			sum += e >> 3;
	for (auto &kv : m)
		sum += kv.second.size();
	std::cout << sum << " " << m.size() << "\n";
	return 0;
}
