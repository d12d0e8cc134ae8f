/* globals.c — global buckets: file-statics with the same name in two files,
 * globals with unique names, a global of libc.  Built with
 * tests/workloads/parts/globals_b.c (see the Makefile).  No stdio.
 *
 * Naming (docs/engine.md, "Data objects and buckets"): every data symbol
 * with a size is its own bucket, kind global; a file-static whose name is
 * not unique in the executable gets " (FILE)", FILE being the name of the
 * ELF STT_FILE symbol before it (GCC writes the source's base name:
 * `readelf -s build/w/globals | grep FILE`); symbols of shared objects get
 * "@soname".  All loops below make one 8-byte access per element.
 *
 * counts (globals.c): static long counts[1000], 8000 bytes
 *   fill_a() stores 1000 words:               Dw = 1000 (from fill_a)
 *   sum_a(REPS) reads it REPS = 3 times:      Dr = 3000 (from sum_a)
 * counts (globals_b.c): static long counts[300], 2400 bytes
 *   fill_b() stores 300 words:                Dw = 300  (from fill_b)
 *   sum_b(REPS) reads it 3 times:             Dr = 900  (from sum_b)
 * only_here: a file-static whose name is unique keeps its plain name
 *   static long only_here[16]; fill_only() stores 16 words: Dw = 16
 * a_table: a global with a unique name, long a_table[128]
 *   touch_a_table() stores 128 words, then reads them: Dw = 128, Dr = 128
 * b_table: a global with a unique name in globals_b.c, long b_table[64]
 *   touch_b_table() stores 64 words:          Dw = 64
 * Object statistics: a global is one block, so each bucket above has
 *   blocks = max_live_blocks = 1, total_bytes = max_live_bytes =
 *   min_size = max_size = sizeof the array (8000, 2400, 128, 1024, 512).
 *
 * optind@libc.so.6: libc's `int optind`.  The program takes its address
 *   with dlsym() rather than naming it: a PIE that names a libc variable
 *   gets its own copy of it (a copy relocation), which is the program's
 *   global `optind`, not libc's.  read_optind(REPS) loads it 3 times through
 *   a volatile pointer: Dr = 3 (from read_optind), Dw = 0.
 * environ@libc.so.6: getenv() reads libc's `environ` (aliases: _environ,
 *   __environ; the first name in libc's symbol table wins): Dr >= 1 from
 *   getenv.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>

#define REPS 3

static long counts[1000];
static long only_here[16];
long a_table[128];
volatile long sink;

void fill_b(void);
long sum_b(int reps);
void touch_b_table(void);

__attribute__((noinline)) void fill_a(void)
{
	for (int i = 0; i < 1000; i++)
		counts[i] = i;
}

__attribute__((noinline)) long sum_a(int reps)
{
	long s = 0;
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < 1000; i++)
			s += counts[i];
	return s;
}

__attribute__((noinline)) long fill_only(void)
{
	for (int i = 0; i < 16; i++)
		only_here[i] = i;
	return (long)only_here;
}

__attribute__((noinline)) long touch_a_table(void)
{
	long s = 0;
	for (int i = 0; i < 128; i++)
		a_table[i] = i;
	for (int i = 0; i < 128; i++)
		s += a_table[i];
	return s;
}

__attribute__((noinline)) long read_optind(volatile int *p, int reps)
{
	long s = 0;
	for (int r = 0; r < reps; r++)
		s += *p;
	return s;
}

int main(void)
{
	fill_a();
	fill_b();
	sink = sum_a(REPS);
	sink = sum_b(REPS);
	sink = fill_only();
	sink = touch_a_table();
	touch_b_table();
	volatile int *oi = dlsym(RTLD_DEFAULT, "optind");
	if (!oi)
		abort();
	sink = read_optind(oi, REPS);
	sink = getenv("DCPROF_NAMES_NO_SUCH_VARIABLE") != 0;
	return 0;
}
