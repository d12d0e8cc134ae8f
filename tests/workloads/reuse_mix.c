/* reuse_mix.c — a sweep interleaved with a small hot set (issue 5: "a mix").
 *
 * Usage: reuse_mix L      (L a multiple of 4; run with --collect-atstart=no)
 *
 * Two passes of: for i in 0..L-1: load mix_sweep line i, then mix_hot line
 * i % 4 (8-byte loads, one per 64-byte line; counters and sum in registers,
 * so while collecting these loads are the only data accesses until STOP).
 *
 * Expected with 64-byte blocks:
 *  - mix_hot: 4 first touches; every later access reuses its line after
 *    4 sweep lines and the 3 other hot lines: stack distance 7, time
 *    distance 8 (two accesses per iteration, four iterations), also across
 *    the wrap from pass 1 to pass 2 when L is a multiple of 4; 2L - 4
 *    reuses.
 *  - mix_sweep: L first touches; in pass 2 each line is reused after the
 *    other L-1 sweep lines and all 4 hot lines: stack distance L+3, time
 *    distance 2L; L reuses.
 */
#include <stdlib.h>
#include "dcprof.h"

#define MAX_LINES 65536
long mix_sweep[MAX_LINES * 8];
long mix_hot[4 * 8];

int main(int argc, char **argv)
{
	long lines = argc > 1 ? atol(argv[1]) : 1024;
	long sum = 0;

	if (lines < 4 || lines > MAX_LINES || lines % 4)
		return 2;
	DCPROF_START();
	for (int p = 0; p < 2; p++)
		for (long i = 0; i < lines; i++)
			sum += mix_sweep[i * 8] + mix_hot[(i & 3) * 8];
	DCPROF_STOP();
	return (int)(sum & 1);
}
