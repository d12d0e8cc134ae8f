/* globals_aligned_lib.c — the shared library of globals_aligned: a 4 KiB
 * global aligned to 32 KiB, so the library's .bss is a PT_LOAD segment of
 * its own with no file bytes.  lib_fill stores its 512 longs, lib_sum loads
 * them, each through a volatile pointer (one 8-byte access per element). */
#define N 512

long lib_big[N] __attribute__((aligned(32768)));

void lib_fill(void)
{
	volatile long *p = lib_big;

	for (int i = 0; i < N; i++)
		p[i] = i;
}

long lib_sum(void)
{
	volatile long *p = lib_big;
	long s = 0;

	for (int i = 0; i < N; i++)
		s += p[i];
	return s;
}
