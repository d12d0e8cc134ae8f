/* reuse_sweep.c — known reuse distances (issue 5, exact reuse measurement).
 *
 * Usage: reuse_sweep LINES PASSES [TWICE]
 *
 * Only the sweeps are measured (run with --collect-atstart=no):
 * DCPROF_START() is issued before the loops and DCPROF_STOP() after them.
 * The loops keep their counters and the sum in registers (checked with
 * objdump: the inner loop is one load, an add, an increment and a branch),
 * so while collecting the only data accesses are the loads of `sweep_data`,
 * one 8-byte load per 64-byte line, and the stack writes of the STOP
 * request after the last pass.
 *
 * Expected, with --reuse-block=64 (one block per line) and L = LINES, P =
 * PASSES:
 *  - first touches of sweep_data: L (the first pass);
 *  - every access of passes 2..P reuses its line after touching the other
 *    L-1 lines once: stack distance L-1, time distance L (accesses since the
 *    previous access to the line: the L-1 others and itself);
 *  - so (P-1)·L reuses, all in the stack bin of L-1 and the time bin of L,
 *    and all between the same two code locations (the load, twice).
 * With --reuse-block=8 the same (one access per line, each to its own word).
 * A fully-associative LRU cache of C lines misses L·P times if C < L and L
 * times (cold) if C >= L: what `dcprof mrc` must show, and what the engine
 * simulates with --cache=L1=<C*64>:<C>:64 (one set, C ways).
 *
 * With TWICE = 1 each line's first two words are loaded one after the
 * other (volatile loads, so the compiler neither merges nor vectorizes
 * them; the array is at least 16-byte aligned, so a line's words 0 and 1
 * share its 64-byte line).  Then, with 64-byte blocks:
 *  - first touches: L (the first load of each line in pass 1);
 *  - every second load reuses the line the load just before it touched:
 *    stack distance 0, time distance 1; P·L of them, all from the first
 *    load to the second;
 *  - every first load of passes 2..P reuses its line after the two loads
 *    of each of the other L-1 lines: stack distance L-1, time distance
 *    2(L-1) + 1 = 2L-1; (P-1)·L of them, from the second load to the first.
 */
#include <stdlib.h>
#include "dcprof.h"

#define MAX_LINES 65536
long sweep_data[MAX_LINES * 8];

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 1024;
	long passes = argc > 2 ? atol(argv[2]) : 2;
	int twice = argc > 3 && atoi(argv[3]) == 1;
	const volatile long *vd = sweep_data;
	long sum = 0;

	if (lines < 1 || lines > MAX_LINES || passes < 1)
		return 2;
	DCPROF_START();
	if (twice) {
		for (long p = 0; p < passes; p++)
			for (long i = 0; i < lines * 8; i += 8) {
				sum += vd[i];
				sum += vd[i + 1];
			}
	} else {
		for (long p = 0; p < passes; p++)
			for (long i = 0; i < lines * 8; i += 8)
				sum += sweep_data[i];
	}
	DCPROF_STOP();
	return (int)(sum & 1);
}
