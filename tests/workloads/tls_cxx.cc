// tls_cxx.cc — a C++ thread_local array used by two std::threads, built
// -O2 -g -std=c++20 (see the Makefile).
//
// tl_hist (long[1024], 8192 bytes, zero-initialised: .tbss; at namespace
// scope, so its symbol is not mangled) is one bucket; each thread's copy
// counts for it.  Worker{reps}.run() stores the 1024 elements, then loads
// them `reps` times, through a volatile pointer (one 8-byte access each).
// Thread k = 0, 1 (Valgrind tids 2 and 3: both are alive at once, they
// count down a std::latch before returning) runs reps = 2 + k:
//   tid 2: Dw = 1024, Dr = 2 * 1024 = 2048
//   tid 3: Dw = 1024, Dr = 3 * 1024 = 3072
//   bucket, from Worker::run: Dw = 2048, Dr = 5120
// Object statistics: main and the two threads each have a copy, alive at
// once: blocks = max_live_blocks = 3, total_bytes = 3 * 8192 = 24576.
// Checksum printed: (2 + 3) * sum(0..1023) = 5 * 523776 = 2618880.
#include <cstdio>
#include <latch>
#include <thread>

constexpr int N = 1024;
thread_local long tl_hist[N];

class Worker {
public:
	explicit Worker(int reps) : reps_(reps) {}
	__attribute__((noinline)) long run() const;

private:
	int reps_;
};

long Worker::run() const
{
	volatile long *p = tl_hist;
	long s = 0;

	for (int i = 0; i < N; i++)
		p[i] = i;
	for (int r = 0; r < reps_; r++)
		for (int i = 0; i < N; i++)
			s += p[i];
	return s;
}

int main()
{
	long result[2] = { 0, 0 };
	std::latch leave(2);
	std::thread t[2];

	for (int k = 0; k < 2; k++)
		t[k] = std::thread([&, k] {
			result[k] = Worker(2 + k).run();
			leave.arrive_and_wait();
		});
	for (auto &th : t)
		th.join();
	std::printf("%ld\n", result[0] + result[1]);
	return 0;
}
