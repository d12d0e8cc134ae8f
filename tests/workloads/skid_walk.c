/* skid_walk.c — a straight-line block behind one missing load, for the
 * emulated skid of IP-only samples (dcprof record --sample-ip-only --skid).
 *
 * walk(buf, N) runs N iterations of one asm loop, so the instruction
 * sequence is fixed whatever the compiler does:
 *
 *   skid_load:  movq (p), %rax          the only memory access of the loop
 *               addq $1, %rcx   x 64    register-only
 *               addq $64, p
 *               subq $1, n
 *               jnz skid_load
 *
 * p walks a 64-byte-aligned zeroed buffer one line per iteration, so every
 * load touches a line never touched before: with any cache, each of the N
 * loads is an L1 read miss (D1mr = N at skid_load), and no other access of
 * the loop misses.  Instruction k after skid_load (k = 1..64) is the k-th
 * addq $1; k = 65, 66, 67 are addq $64, subq, jnz; k = 68 is skid_load of
 * the next iteration (the skid follows the jump), k = 69 + j the (j+1)-th
 * addq $1 after it.  The test reads the addresses with objdump (symbol
 * skid_load).
 *
 * Usage: skid_walk [N]  (default 20000; N <= 65536)
 */
#include <stdlib.h>

#define MAXN 65536

static char buf[MAXN * 64] __attribute__((aligned(64)));

__attribute__((noinline)) static void walk(char *p, long n)
{
	__asm__ volatile("1:\n\t"
			 ".globl skid_load\n"
			 "skid_load:\n\t"
			 "movq (%0), %%rax\n\t"
			 ".rept 64\n\t"
			 "addq $1, %%rcx\n\t"
			 ".endr\n\t"
			 "addq $64, %0\n\t"
			 "subq $1, %1\n\t"
			 "jnz 1b\n\t"
			 : "+r"(p), "+r"(n)
			 :
			 : "rax", "rcx", "memory", "cc");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000;

	if (n < 1 || n > MAXN)
		return 2;
	walk(buf, n);
	return 0;
}
