/* fields_grain.c — a global struct bigger than 4 KiB whose narrow fields
 * share the engine's 8-byte offset cells, like zlib's deflate_state
 * (report --by field, test_engine_fields.py).  Built -O2 -g.
 *
 * struct big is 8184 bytes: a at 0 and b at 4 (int), c at 8 (long),
 * d at 16 and e at 18 (short), f at 20 (int), g[1020] at 24 (double).
 * With --offset-bucket-cells at its default 1024, the engine's grain is
 * the least power of two g <= 8 with ceil(8184 / g) <= 1024: g = 8
 * (engine.md, "Offsets within objects").  So the cells are [0, 8) holding
 * a and b, [8, 16) c alone, [16, 24) d, e and f, then g's.  g_big is
 * volatile, so every access in the loop is made, each 4 bytes (b, f),
 * 8 bytes (c, g[0]):
 *     b: Dr = N = 3000 (a is never accessed, but its cell is b's);
 *     c: Dr = N / 3 = 1000;  f: Dw = 2 N / 3 = 2000 (d, e never);
 *     g[0]: Dr = N / 6 = 500.
 * So the rows are a|b (Dr 3000), c (Dr 1000), d|e|f (Dw 2000, never
 * read) and g[1020] (Dr 500); a and b have no row of their own counts.
 * With --offset-bucket-cells=8192 the grain is 1 byte: b, c, f and g[0]
 * have their own rows, a, d and e are never accessed.
 */
#include <stdio.h>

#define N 3000

struct big {
	int a;
	int b;
	long c;
	short d;
	short e;
	int f;
	double g[1020];
};

volatile struct big g_big = { 1, 2, 3, 4, 5, 6, { 7 } };

int main(void)
{
	long s = 0;

	for (int i = 0; i < N; i++) {
		s += g_big.b;
		if (i % 3 == 0)
			s += g_big.c;
		if (i % 3 != 0)
			g_big.f = i;
		if (i % 6 == 0)
			s += (long)g_big.g[0];
	}
	printf("%ld\n", s);
	return 0;
}
