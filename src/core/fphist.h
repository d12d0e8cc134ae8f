/* fphist.h — footprint histograms over power-of-2 window sizes, MemGaze's
 * trace-window validation (A. Marquez et al., "Fixing Amdahl's Law within
 * the Limits of Accelerated Systems", PNNL-33259, 2022, §7.1, Figure 8).
 *
 * Notes:
 *  - A stream of trace records (trace.h) is cut into tiles of s = 2, 4,
 *    8, ... records, aligned at the stream's first record, for every size
 *    up to the largest power of two <= w (one bin per size).  Size 1 is
 *    left out: a tile of one record has F 1 or 0 whatever the pattern.
 *  - A tile's F is its distinct blocks of non-Constant records; F_str and
 *    F_irr split them by the class of each block's first access in the
 *    tile.  A bin sums F, F_str, F_irr over its complete tiles and counts
 *    them: the histogram's value at s is the mean, sum / tiles.
 *  - A stream ends with dc_fphist_restart: its last, incomplete tile of
 *    each size is dropped, and the next record starts a new stream (the
 *    next sampled window).  The bins keep adding up across streams.  The
 *    engine feeds the whole run as one stream (the full trace); the
 *    analysis feeds each sampled window as one, so its means are those
 *    inside samples, exact and not scaled (equation 3, intra-window).
 *  - One blockset per size, cleared at each tile start: a record costs one
 *    add per size, and memory is bounded by the largest tile.
 */
#ifndef DC_FPHIST_H
#define DC_FPHIST_H

#include "core/blockset.h"
#include "core/port.h"

#define DC_FPHIST_MAX 24          /* sizes 2^1 .. 2^24 (w is at most 2^24) */

struct dc_fphist_bin {
	uint64_t tiles, f, fstr, firr;
};

struct dc_fphist {
	unsigned nbins;                               /* sizes 2^1 .. 2^nbins */
	uint64_t t;                                   /* records of this stream */
	uint64_t cur[DC_FPHIST_MAX][2];               /* open tile: F_str, F_irr */
	struct dc_blockset set[DC_FPHIST_MAX];
	struct dc_fphist_bin bin[DC_FPHIST_MAX];      /* bin k: size 2^(k+1) */
};

/* Bins for every power of two from 2 to w (none if w < 2). */
int dc_fphist_init(struct dc_fphist *h, const struct dc_env *env, uint64_t w);
void dc_fphist_release(struct dc_fphist *h);
/* One record of class cls (DC_TC_*) on block; a Constant record only
 * takes its place in time.  DC_ENOMEM leaves the record half counted. */
int dc_fphist_add(struct dc_fphist *h, uint64_t block, unsigned cls);
/* Ends the stream (see Notes). */
void dc_fphist_restart(struct dc_fphist *h);
/* Forgets everything counted: bins and stream. */
void dc_fphist_clear(struct dc_fphist *h);

#endif
