/* rdx.h — emulated debug-register watchpoints for sampled reuse (RDX).
 *
 * Notes (seeds/003 §II, §IV):
 *  - A use point is a sampled access (the emulated PMU sample, sampler.h):
 *    dc_rdx_sample arms a watchpoint on its address.  The next access that
 *    touches the watched bytes is the reuse point: dc_rdx_access disarms
 *    the watchpoint and reports the use (its access number, bucket, code
 *    location) with a weight; the caller takes time distance = now - use.
 *  - What is watched: debug-register rules (DC_RDX_WATCH_DR): an aligned
 *    length of 1, 2, 4 or 8 bytes, the smallest that holds the access size
 *    (8 for larger accesses), at the aligned address that holds the
 *    access's first byte; any access overlapping those bytes traps, as an
 *    x86 RW watchpoint does.  Simulator-only (DC_RDX_WATCH_BLOCK): the whole
 *    block of 2^block_bits bytes holding the first byte (a cache line by
 *    default), and an access traps when its first byte is in it: the block
 *    rule of the exact measurement (reuse.h), so both count the same
 *    reuses.
 *  - Replacement (§IV.A) with K of at most DC_RDX_MAX_WP watchpoints.
 *    Reservoir: each watchpoint counts the samples offered to it since it
 *    was last empty (k_i).  A sample with a free watchpoint arms the free
 *    one (k = 1) and bumps k_j of every armed one.  With none free, the
 *    watchpoints are visited in an order shuffled anew for each sample;
 *    each has its k_i bumped and, while the sample is still unplaced, is
 *    replaced with probability 1/k_i.  A trap empties a watchpoint (its
 *    probability goes back to 1).  With one watchpoint this is classical
 *    reservoir sampling (every sample kept with equal probability); with
 *    more, the samples taken while watchpoints fill up are not: with 4,
 *    the first is kept 1.49 times as often as a later one, the fourth 0.57
 *    times; from the ninth on all are within 1.3 % (unit test).  Oldest (the naive scheme of Fig. 3): a new sample always
 *    replaces the longest-armed watchpoint.
 *  - Proportional attribution (§IV.A, after Wen et al.): each use carries
 *    a calling-context hash.  A sample is lost when it arms nothing or its
 *    watchpoint is replaced; lost samples are counted per context.  A trap
 *    (and a watchpoint still armed at exit) weighs 1 + the samples its
 *    context lost that no earlier trap of the context claimed, and claims
 *    them: every lost sample is weighed once, by the next trap of its
 *    context, so the trapped uses stand for the lost ones of the same code,
 *    weights sum to the samples (but for losses no later trap claims) and,
 *    while nothing is lost, every weight is 1.  The paper counts the
 *    context's samples since the watchpoint was armed; with two
 *    watchpoints of one context armed at once that counts samples twice.
 *    Without attribution every weight is 1.
 *  - Checking an access costs one table probe (dc_rdx_maybe): a
 *    1024-entry count of armed watchpoints per hashed 64-byte granule (or
 *    block, when blocks are larger), probed at the granule of the access's
 *    first byte only.  So that one probe suffices, a watchpoint counts in
 *    every granule where an access that touches it can start: with
 *    debug-register rules, those of [lo - (max_size - 1), hi), max_size
 *    being the largest access the caller makes (the engine's: 32 bytes,
 *    or its smallest line size if larger); with the block rule, the
 *    block's own granule.  A watchpoint whose granules are as many as the
 *    slots (lines of 64 KiB or more) counts once in every slot.  Probing
 *    the first granule alone saves the access's end, a compare and a
 *    branch per access; the wider marks raise the chance that an access
 *    is sent to dc_rdx_access for nothing from 4/256 to at most 8/1024
 *    with four watchpoints.
 */
#ifndef DC_RDX_H
#define DC_RDX_H

#include "core/port.h"
#include "core/rectab.h"

#define DC_RDX_MAX_WP 16
#define DC_RDX_FILTER 1024

enum { DC_RDX_WATCH_DR, DC_RDX_WATCH_BLOCK };
enum { DC_RDX_RESERVOIR, DC_RDX_OLDEST };

struct dc_rdx_ctx;             /* private: samples per calling context */

struct dc_rdx_wp {
	uint64_t lo, hi;       /* watched bytes [lo, hi) */
	uint64_t t_use;        /* access number of the use */
	uint64_t k;            /* samples offered since the watchpoint was empty */
	struct dc_rdx_ctx *ctx;
	uint32_t bucket, loc;  /* of the use */
	bool armed;
};

/* A use whose watchpoint trapped (or stayed armed to the end). */
struct dc_rdx_hit {
	uint64_t t_use;
	uint32_t bucket, loc;
	uint64_t weight;       /* samples it stands for (1 without attribution) */
};

struct dc_rdx_cfg {
	unsigned nwp;          /* 1..DC_RDX_MAX_WP */
	int watch;             /* DC_RDX_WATCH_* */
	unsigned block_bits;   /* DC_RDX_WATCH_BLOCK: block size */
	unsigned max_size;     /* the largest access that will be checked, >= 1 byte */
	int replace;           /* DC_RDX_RESERVOIR or DC_RDX_OLDEST */
	bool proportional;
	uint64_t seed;
};

struct dc_rdx {
	struct dc_rdx_cfg cfg;
	unsigned shift;        /* granule of the filter: addr >> shift */
	unsigned narmed;
	uint64_t rng;
	struct dc_rdx_wp wp[DC_RDX_MAX_WP];
	uint16_t filter[DC_RDX_FILTER]; /* watchpoints per hashed granule (Notes) */
	struct dc_rectab ctxs;
	/* statistics */
	uint64_t samples;      /* use points offered */
	uint64_t arms;         /* ... that armed a watchpoint (free or replaced) */
	uint64_t replaced;     /* armed watchpoints overwritten */
	uint64_t dropped;      /* samples not armed */
	uint64_t traps;
};

/* 0, DC_EINVAL (bad configuration) or DC_ENOMEM. */
int dc_rdx_init(struct dc_rdx *r, const struct dc_env *env, const struct dc_rdx_cfg *cfg);
void dc_rdx_release(struct dc_rdx *r);

static inline unsigned dc_rdx_slot(uint64_t granule)
{
	return (unsigned)((granule * 0x9e3779b97f4a7c15ULL) >> 54);
}

/* Might an access at a, of at most cfg.max_size bytes, touch a watched
 * byte?  False means surely not. */
static inline bool dc_rdx_maybe(const struct dc_rdx *r, uint64_t a)
{
	return r->filter[dc_rdx_slot(a >> r->shift)] != 0;
}

/* The access [a, a + size): disarms every watchpoint it touches and
 * describes them in out (room for DC_RDX_MAX_WP); returns how many. */
unsigned dc_rdx_access(struct dc_rdx *r, uint64_t a, unsigned size, struct dc_rdx_hit *out);

/* A use point: access number t at [a, a + size) in calling context ctx.
 * 0 or DC_ENOMEM (the context table is full: the sample is dropped). */
int dc_rdx_sample(struct dc_rdx *r, uint64_t a, unsigned size, uint64_t t, uint64_t ctx,
		  uint32_t bucket, uint32_t loc);

/* At exit: disarms every watchpoint still armed ("no reuse seen") and
 * describes them in out; returns how many. */
unsigned dc_rdx_drain(struct dc_rdx *r, struct dc_rdx_hit *out);

#endif
