/* calls_plt.c — calls through PLT stubs (--calls; Callgrind's --skip-plt).
 *
 * use_lib calls lib_sum, in libcalls_plt.so (parts/calls_plt_lib.c), four
 * times through this program's PLT; each call reads the 1024 ints of
 * `data` (1024 reads, 64 lines).  use_libm calls libm's cos 100 times
 * through the PLT.  Lazy binding: the first call of each goes through the
 * dynamic linker's resolver.  Built -O1 -fno-inline (no sibling calls).
 */
#include <math.h>

#define N 1024
#define CALLS 4
#define COS_CALLS 100

int lib_sum(const int *a, int n);

int data[N] __attribute__((aligned(64)));
volatile int sink;
volatile double fsink, angle = 0.5;

__attribute__((noinline)) static void use_lib(void)
{
	for (int i = 0; i < CALLS; i++)
		sink = lib_sum(data, N);
}

__attribute__((noinline)) static void use_libm(void)
{
	for (int i = 0; i < COS_CALLS; i++)
		fsink = cos(angle);
}

int main(void)
{
	use_lib();
	use_libm();
	return 0;
}
