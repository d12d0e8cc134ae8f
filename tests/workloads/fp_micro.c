/* fp_micro.c — MemGaze-style microbenchmarks (seeds/004 §7: "str" strided,
 * "irr" irregular, conditional "/" and serial "|" compositions) with known
 * footprints, for sampled traces (issue 6).
 *
 * Usage: fp_micro MODE REPS     (run with --collect-atstart=no)
 *   str1    sum of a[i], i = 0 .. N-1               (stride 8 bytes)
 *   str4    sum of a[i], i = 0, 4, 8, ...           (stride 32 bytes)
 *   irr     sum of b[idx[i]], i = 0 .. N-1, idx random in [0, M)
 *   const   sum of a[i] + g, g a volatile global    (a Constant load)
 *   stack   sum of a[i] + x, x a volatile local     (a Constant load: SP-relative)
 *   store   a[i] = i                                (stores only)
 *   cond    str1/irr: chunks of 64 iterations alternate between the two
 *   serial  str1|irr: str1 then irr
 * each repeated REPS times.  N = 2^20, M = 2^22 (b is 32 MiB).
 *
 * Built with -O1: each kernel's loop keeps i, the sum and the pointers in
 * registers, so its only loads are the ones above (a[i]; idx[i] and
 * b[idx[i]]; a[i] and g).  Between collection points the loops are all that
 * runs, apart from a handful of call and return loads per repetition.
 *
 * Expected with 64-byte blocks and windows of w records (w << N):
 *  - str1: one record per iteration, 8 per block: F = w/8 per window,
 *    dF = F/A = 1/8 = 0.125, F_str% = 100 (the two Irregular executions at
 *    the start and one at each restart are < 0.01 %), A_const% = 0.
 *  - str4: 2 records per block: dF = 0.5, F_str% = 100.
 *  - irr: records alternate idx[i] (Strided, 4 bytes: 16 per block) and
 *    b[idx[i]] (Irregular: a new block nearly always, M/8 = 2^19 blocks
 *    >> w).  Per window F_str = w/32, F_irr = w/2 (1 - w/2^21 ≈ 1), so
 *    dF = 17/32 = 0.53 and F_str% = 1/17 = 5.9 %.
 *  - const: g is RIP-relative: Constant, implied by the a[i] record of the
 *    same block: A_const% = 50, kappa = 2 (equation 2), dF = 1/16 per load
 *    (1/8 per record).
 *  - store: no loads but the ret: stores are not traced, so the function's
 *    only record is the ret, a Constant proxy (A = 0, A_const = 1).
 *  - stack: the same with x on the stack frame (read through %rsp + 8):
 *    Constant by the stack-pointer rule.
 *  - cond: half the iterations as str1, half as irr: per window F_str =
 *    w_s/8 + w_i/32, F_irr = w_i/2 with w_s = w/3 records from str1 chunks
 *    and w_i = 2w/3 from irr chunks (irr chunks have 2 records per
 *    iteration): dF = 1/24 + 1/48 + 1/3 = 0.396.  a[i] and idx[i] jump at
 *    every chunk start (65 elements), which is Irregular, and a chunk starts
 *    on a block boundary: 1 of a's 8 blocks per chunk and 1 of idx's 4 take
 *    the Irregular class (a block's class is its first access's), so F_str =
 *    (1/24)(7/8) + (1/48)(3/4) = 0.0521 and F_str% = 13.2.
 *  - serial: str1's records, then irr's.
 * Over a trace period of P records (the truth for a trace window) the same
 * per-record rates hold while P stays well under the array sizes: P/8
 * blocks of a for str1 (P < N); for irr the P/2 random blocks of b
 * collide with probability about P/2 / 2^19 (< 5 % for P <= 50,000).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dcprof.h"

#define N (1L << 20)
#define M (1L << 22)

/* Block-aligned, so the derivations below need no partial blocks. */
long a[N] __attribute__((aligned(64)));
long b[M] __attribute__((aligned(64)));
int idx[N] __attribute__((aligned(64)));
volatile long g = 1;

long str1(void)
{
	long s = 0;
	for (long i = 0; i < N; i++)
		s += a[i];
	return s;
}

long str4(void)
{
	long s = 0;
	for (long i = 0; i < N; i += 4)
		s += a[i];
	return s;
}

long irr(void)
{
	long s = 0;
	for (long i = 0; i < N; i++)
		s += b[idx[i]];
	return s;
}

long with_const(void)
{
	long s = 0;
	for (long i = 0; i < N; i++)
		s += a[i] + g;
	return s;
}

long with_local(void)
{
	volatile long x = 1;
	long s = 0;
	for (long i = 0; i < N; i++)
		s += a[i] + x;
	return s;
}

long store(void)
{
	for (long i = 0; i < N; i++)
		a[i] = i;
	return 0;
}

long cond(void)
{
	long s = 0;
	for (long i = 0; i < N; i++) {
		if (i & 64)
			s += b[idx[i]];
		else
			s += a[i];
	}
	return s;
}

static long serial(void)
{
	return str1() + irr();
}

static const struct {
	const char *name;
	long (*fn)(void);
} modes[] = {
	{ "str1", str1 }, { "str4", str4 }, { "irr", irr }, { "const", with_const },
	{ "stack", with_local }, { "store", store }, { "cond", cond }, { "serial", serial },
};

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "str1";
	long reps = argc > 2 ? atol(argv[2]) : 1, s = 0;
	long (*fn)(void) = NULL;
	uint64_t x = 88172645463325252ULL;

	for (size_t m = 0; m < sizeof modes / sizeof *modes; m++)
		if (!strcmp(mode, modes[m].name))
			fn = modes[m].fn;
	if (!fn)
		return 2;
	for (long i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		idx[i] = (int)(x % (uint64_t)M);
	}
	DCPROF_START();
	for (long r = 0; r < reps; r++)
		s += fn();
	DCPROF_STOP();
	return (int)(s & 1);
}
