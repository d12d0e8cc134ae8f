/* mrc.c — the miss-ratio curve of LRU caches (see mrc.h for the rules). */
#include "analysis/mrc.h"
#include "base/num.h"
#include "base/err.h"

size_t mrc_curve(const struct rhist *h, int64_t distinct, struct mrc_point **out)
{
	struct mrc_point *pts = NULL;
	size_t n = 0;

	for (int64_t c = 1; distinct > 0; c *= 2) {
		struct mrc_point *pt;

		pts = xrealloc(pts, (n + 1) * sizeof *pts);
		pt = &pts[n++];
		pt->blocks = c;
		pt->misses = h->first;
		pt->exact = true;
		for (size_t i = 0; i < h->n; i++) {
			const struct rbin *bin = &h->bins[i];

			if (bin->lo >= c)
				pt->misses = num_add(pt->misses, bin->count, NULL);
			else if (bin->hi_inf || bin->hi > c)
				pt->exact = false;     /* straddles c: counted as hits */
		}
		if (c >= distinct || c > INT64_MAX / 2)
			break;
	}
	*out = pts;
	return n;
}
