/* block_order.c — heap blocks allocated, reallocated and freed in a known
 * order, for the block records of the native engine (--max-block-records;
 * docs/raw-dump.md, `block` and `bfree`).  Built -O2 -g; every pointer
 * goes through a volatile array so that no malloc/free pair is elided.
 *
 * Allocation events, numbered as both engines number them (each malloc
 * and free one event, a realloc two: the old block's free, then the new
 * block's allocation), with sizes that tell the blocks apart (small ones
 * in the native engine's compact block map, those above 1 KiB in its
 * object map):
 *
 *    1  a = malloc(24)
 *    2  b = malloc(2000)
 *    3  c = malloc(40)
 *    4  free(a)
 *    5  d = malloc(100)
 *    6  c = realloc(c, 48): frees c (40 bytes) ...
 *    7  ... and allocates c' (48 bytes), in place or not
 *    8  free(b)
 *    9  e = malloc(3000)
 *   10  free(d)
 *   11  f = malloc(16)
 *   12  free(c')
 *   13  g = malloc(200)
 *
 * e, f and g are live at exit.  Blocks in allocation order:
 * a (1, freed 4), b (2, 8), c (3, 6), d (5, 10), c' (7, 12), e (9, live),
 * f (11, live), g (13, live).
 */
#include <stdlib.h>

static void *volatile keep[8];

int main(void)
{
	keep[0] = malloc(24);
	keep[1] = malloc(2000);
	keep[2] = malloc(40);
	free(keep[0]);
	keep[3] = malloc(100);
	keep[2] = realloc(keep[2], 48);
	free(keep[1]);
	keep[4] = malloc(3000);
	free(keep[3]);
	keep[5] = malloc(16);
	free(keep[2]);
	keep[6] = malloc(200);
	return !(keep[4] && keep[5] && keep[6]);
}
