/* fields_array.c — per-offset and per-field views (report --by offset|field,
 * test_engine_fields.py): an array of 64-byte structs of which one 8-byte
 * field is read, a typed user block, and a block larger than the offset
 * window.  Built -O2 -g as users build.
 *
 * struct rec is 64 bytes: id at 0, val at 8, pad[48] at 16.
 *
 * recs: N = 1024 elements (64 KiB, one heap block, the pointer declared at
 * its allocation: report --by field finds struct rec from DWARF).  The
 * program writes recs[i].val once, then R = 8 passes read recs[i].val:
 *     field val (offset 8 of each element):  Dw = N = 1024, Dr = R N = 8192,
 *     id and pad[48]: never accessed.
 * So val has 100 % of the block's accesses and of its misses.  The raw
 * offsets are 8 + 64 i for i < N, each with Dr = R and Dw = 1.
 * Misses (L1=32K:8:64, L2=1M:16:64): recs is 64-byte aligned
 * (aligned_alloc), so its lines are its own: the program's allocator, which
 * runs under the engine, writes its chunk headers before and after them,
 * never in them.  Each element's val is in a line of its own (elements are
 * 64 bytes, val at 64 i + 8), so a pass touches N = 1024 lines,
 * 16 per L1 set of 8 ways: LRU misses every one, in the write pass and in
 * every read pass: D1m = (R + 1) N = 9216.  L2 (1 MiB) keeps all 1024
 * lines once loaded: D2m = N = 1024 (the write pass, cold).
 *
 * Unused bytes (with --cache-use, exact masks): every residency of a recs
 * line touches val alone (bytes 8..15 of the element the line holds), so
 * each leaves the line's other 56 bytes unused: offsets 0..7 (id) and
 * 16..63 (pad[48]) of that element.  L1 loads each line (R + 1) times (the
 * misses above): id Unused1 = 8 (R + 1) N = 73728, pad[48] Unused1 = 48
 * (R + 1) N = 442368, val 0.  L2 loads each line once and keeps it to the
 * end (charged then): id Unused2 = 8 N = 8192, pad[48] 48 N = 49152.
 *
 * pool: M = 256 elements of 64 bytes allocated as bytes (void *) and named
 * with DCPROF_NAME_BLOCK_TYPED(pool, M * 64, "rec_pool", "struct rec");
 * the program writes each element's id once and reads it R2 = 4 times:
 *     id: Dw = M = 256, Dr = R2 M = 1024; val and pad: never accessed.
 *
 * Each pass is a call of a noipa function, so the compiler makes every one
 * (at -O2 it otherwise folds repeated passes over unchanged data).
 *
 * big: W = 32768 doubles (256 KiB), each written once through a volatile
 * pointer (one 8-byte store each; the vectorizer would otherwise store two
 * at a time): 32768 writes of 8 bytes at offsets 8 i.  With --offset-window=4096
 *     the first 512 (offsets 0 .. 4088) are cells of Dw = 1 and the other
 *     32256 are the bucket's beyond; recs has its elements i < 64 in cells
 *     (offsets 8 + 64 i < 4096) and the other 960 beyond:
 *     beyond Dr = 960 R = 7680, Dw = 960.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dcprof.h"

#define N 1024
#define R 8
#define M 256
#define R2 4
#define W 32768

struct rec {
	long id;
	double val;
	char pad[48];
};

static __attribute__((noipa)) double sum_val(const struct rec *r, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += r[i].val;                 /* LINE:val */
	return s;
}

static __attribute__((noipa)) long sum_id(const struct rec *r, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++)
		s += r[i].id;
	return s;
}

int main(void)
{
	struct rec *recs = aligned_alloc(64, N * sizeof *recs);   /* SITE:recs */
	void *raw = malloc(M * sizeof(struct rec));
	double *big = malloc(W * sizeof *big);          /* SITE:big */
	struct rec *pool = raw;
	double sum = 0;
	long ids = 0;

	if (!recs || !raw || !big)
		return 1;
	DCPROF_NAME_BLOCK_TYPED(raw, M * sizeof(struct rec), "rec_pool", "struct rec");
	for (int i = 0; i < N; i++)
		recs[i].val = i;
	for (int r = 0; r < R; r++)
		sum += sum_val(recs, N);
	for (int i = 0; i < M; i++)
		pool[i].id = i;
	for (int r = 0; r < R2; r++)
		ids += sum_id(pool, M);
	for (int i = 0; i < W; i++)
		((volatile double *)big)[i] = i;
	printf("%g %ld %g\n", sum, ids, big[W / 2]);
	return 0;
}
