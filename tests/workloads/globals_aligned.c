/* globals_aligned.c — globals wherever the linker puts them: a .bss in a
 * PT_LOAD segment of its own, .data.rel.ro, .rodata, and a .bss-only
 * segment of a shared library of the test's own (libglobals_aligned.so,
 * parts/globals_aligned_lib.c).  Built -O2 -g twice: as a PIE
 * (globals_aligned) and not (globals_aligned_nopie, -no-pie), see the
 * Makefile.
 *
 * Layout: nine 4 KiB arrays big0..big8 aligned to 32 KiB make the .bss
 * (0x48000+ bytes) need 32 KiB alignment, so the linker gives it a PT_LOAD
 * of its own with no file bytes (`readelf -l build/w/globals_aligned`:
 * FileSiz 0, MemSiz 0x49000, Align 0x8000).  Valgrind 3.19 rejects such an
 * object's debug information ("ELF section outside all mapped regions"),
 * which left all nine arrays <unknown>.  `ptrs`, nine pointers to them,
 * needs relocations in a PIE, so it is in .data.rel.ro there (.rodata
 * without -no-pie's PIE); `table` is a const array with an initializer, in
 * .rodata.  The library's lib_big (4 KiB, aligned to 32 KiB) is likewise
 * in a .bss-only segment of the library.
 *
 * Every access goes through a volatile pointer, so -O2 keeps each one as
 * one 8-byte load or store (no vectorising, no folding of the constant
 * tables, no dropped stores).  N = 512 longs = 4096 bytes, REPS = 3.
 *
 *   fill(k), k = 0..8, once each:     reads ptrs[k] once, stores big_k[0..N)
 *   sum(k), k = 0..8, REPS times:     reads ptrs[k] once, loads big_k[0..N)
 *   => each big_k:  Dw = N = 512, Dr = REPS * N = 1536
 *   => ptrs:        Dr = 9 (fill) + REPS * 9 (sum) = 36, Dw = 0
 *   table_sum(), REPS times:          loads table[0..TN), TN = 64
 *   => table:       Dr = REPS * TN = 192, Dw = 0
 *   lib_fill() once, lib_sum() REPS times (the library):
 *   => lib_big@libglobals_aligned.so: Dw = 512, Dr = 1536
 *   fflush(stdout) once at the end: main reads the program's own copy of
 *   stdout (a copy relocation; the symbol table names it
 *   stdout@GLIBC_2.2.5, the source stdout)
 *   => stdout: Dr = 1, Dw = 0 (by the program's code)
 * Object statistics: each is one block of its size (big_k, lib_big 4096;
 * ptrs 72; table 512; stdout 8).
 * None of these loops touches anything else but the stack (i, s in
 * registers), so the program's own code makes no access to <unknown>.
 * The checksum printed is sum(k) over passes plus table and library sums:
 *   REPS * sum_k sum_i (i + k) + REPS * TN * 7 + REPS * sum_i i
 *   = 3 * (9 * 130816 + 512 * 36) + 3 * 448 + 3 * 130816 = 3981120.
 */
#include <stdio.h>

#define N 512
#define TN 64
#define REPS 3
#define BIG __attribute__((aligned(32768)))

long big0[N] BIG, big1[N] BIG, big2[N] BIG, big3[N] BIG, big4[N] BIG;
long big5[N] BIG, big6[N] BIG, big7[N] BIG, big8[N] BIG;
long *const ptrs[9] = { big0, big1, big2, big3, big4, big5, big6, big7, big8 };
const long table[TN] = { [0 ... TN - 1] = 7 };

void lib_fill(void);
long lib_sum(void);

__attribute__((noinline)) static void fill(int k)
{
	long *const volatile *pp = ptrs;
	volatile long *p = pp[k];

	for (int i = 0; i < N; i++)
		p[i] = i + k;
}

__attribute__((noinline)) static long sum(int k)
{
	long *const volatile *pp = ptrs;
	volatile long *p = pp[k];
	long s = 0;

	for (int i = 0; i < N; i++)
		s += p[i];
	return s;
}

__attribute__((noinline)) static long table_sum(void)
{
	const volatile long *t = table;
	long s = 0;

	for (int i = 0; i < TN; i++)
		s += t[i];
	return s;
}

int main(void)
{
	long s = 0;

	for (int k = 0; k < 9; k++)
		fill(k);
	lib_fill();
	for (int r = 0; r < REPS; r++) {
		for (int k = 0; k < 9; k++)
			s += sum(k);
		s += table_sum();
		s += lib_sum();
	}
	printf("%ld\n", s);
	fflush(stdout);
	return 0;
}
