/* nosym.c — code without symbols (docs/cli.md, "Code locations"): the test
 * strips a copy of libnosym.so (parts/nosym_lib.c), whose reading loop is
 * a static function, so only its exported entry keeps a name (in
 * .dynsym).  nosym_sum reads the N ints of `data` CALLS times; all those
 * reads are then code without a symbol, "??? (libnosym.so)".
 * Built -O2 -g as users build.
 */
#define N 4096
#define CALLS 4

int nosym_sum(const int *a, int n);

int data[N];
volatile int sink;

int main(void)
{
	for (int i = 0; i < N; i++)
		data[i] = i;
	for (int i = 0; i < CALLS; i++)
		sink = nosym_sum(data, N);
	return 0;
}
