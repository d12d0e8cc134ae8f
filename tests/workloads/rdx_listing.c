/* rdx_listing.c — Listing 2 of seeds/003 §IV.A: two sweeps with long
 * reuses, then a loop with one long and one immediate reuse per line.
 *
 * Usage: rdx_listing L      (run with --collect-atstart=no)
 *
 * Loop i loads rdx_data line i (8-byte loads, one per 64-byte line), loop j
 * the same lines again, loop k each line twice in a row (counters and sum
 * in registers, so these loads are the only data accesses until STOP).
 *
 * Expected time distances with 64-byte blocks (L first touches in loop i):
 *  - loop j: each line was last loaded L accesses before: L reuses at L;
 *  - loop k, first load of line k: its previous load was in loop j, with
 *    the L - k - 1 later lines of loop j and the 2k loads of loop k in
 *    between: distance L + k; L reuses spread over [L, 2L);
 *  - loop k, second load: distance 1; L reuses.
 * So 3L reuses: 2L at distances in [L, 2L) and L at distance 1 — the
 * "equal quantity" of long and short reuses (here 2:1) that reservoir
 * sampling without proportional attribution miscounts.
 */
#include <stdlib.h>
#include "dcprof.h"

#define MAX_LINES 65536
long rdx_data[MAX_LINES * 8];

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 4096;
	volatile long *d = rdx_data;
	long sum = 0;

	if (lines < 1 || lines > MAX_LINES)
		return 2;
	DCPROF_START();
	for (long i = 0; i < lines; i++)
		sum += d[i * 8];
	for (long j = 0; j < lines; j++)
		sum += d[j * 8];
	for (long k = 0; k < lines; k++) {
		sum += d[k * 8];
		sum += d[k * 8];
	}
	DCPROF_STOP();
	return (int)(sum & 1);
}
