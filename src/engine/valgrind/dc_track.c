/* dc_track.c — eviction tracking and emulated miss sampling.
 *
 * Notes (seeds/002 chapters 3 and 5):
 *  - --evictions=yes: every line a miss fills at a level is counted; when
 *    it replaced a valid line, the eviction is charged to (level, evictor =
 *    the bucket of the access, victim = the bucket of the evicted line
 *    now: of the object holding its first byte, else of the first object
 *    starting in it, else of what holds its first byte (dc_bucket_of_line),
 *    code location of the access).  fills = empty fills +
 *    evictions at every level by construction; an access that straddles
 *    two lines is one miss but two fills.
 *  - Residency: a line counts for the bucket of the access that filled it
 *    until it is evicted (then it leaves the victim's bucket); lines per bucket and level are integrated over time (data
 *    accesses while collecting) and reported as an average.  A count never
 *    goes below zero (lines filled while collection was off).  A line
 *    evicted by an access of its own bucket leaves the count as it was
 *    and updates nothing (the transposition's column stores evict their
 *    own matrix's lines).
 *  - --sample=EVENT:N emulates a counter of EVENT that overflows every N
 *    events on average (sampler.h).  The "interrupt handler" gets what a
 *    PEBS/IBS/EAR sample carries — data address, instruction, latency of
 *    the serving level — and, for miss events, what the miss evicted at
 *    that level (the hardware feature proposed in §5.1).  It charges the
 *    sampled bucket x location with N events (costtab's dc_cost_count_n)
 *    and the sampled evictions with N each.  With --sample-ip-only the
 *    handler is dc_skid.c's instead: an instruction pointer, skidded.
 *  - Events: D<k>m (the access missed level k), DLm (missed the last level),
 *    Dr, Dw (reads, writes), Da (all data accesses).
 *  - --reuse=yes (seeds/003 §II, exact ground truth): every access while
 *    collecting goes through the core's reuse structure at --reuse-block
 *    granularity (the block of its first byte); its stack and time distance
 *    land in its bucket's histograms, or it counts as a first touch; each
 *    reuse also counts for the pair (code location of the previous access to
 *    the block, code location of this one).  The access helper prefetches
 *    the block's record before the cache simulation, and the eviction
 *    bookkeeping runs before the reuse to give it time (reuse.h Notes).
 *    A second prefetch, of the bitmap word and tree node the record's
 *    index names, is not made: GCC had dropped its call as free of side
 *    effects since it was added, and kept in by always_inline it made the
 *    run slower (docs/performance.md, seventh pass, "the access helper
 *    and the eviction tracker").
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_stacktrace.h"

#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

Bool dc_track_parse_sample(const HChar *spec)
{
	const HChar *colon = VG_(strchr)(spec, ':');
	HChar *end;
	Long n;

	if (!colon)
		return False;
	n = VG_(strtoll10)(colon + 1, &end);
	if (n < 1 || *end)
		return False;
	if (colon - spec == 3 && spec[0] == 'D' && spec[2] == 'm' &&
	    (spec[1] == 'L' || (spec[1] >= '1' && spec[1] <= '0' + DC_MAX_LEVELS))) {
		dc.sample_event = DC_EV_MISS;
		dc.sample_level = spec[1] == 'L' ? -1 : spec[1] - '0';
	} else if (colon - spec == 2 && spec[0] == 'D' &&
		   (spec[1] == 'r' || spec[1] == 'w' || spec[1] == 'a')) {
		dc.sample_event = spec[1] == 'r' ? DC_EV_READ
				  : spec[1] == 'w' ? DC_EV_WRITE : DC_EV_ACCESS;
	} else {
		return False;
	}
	dc.sampler.period = (ULong)n;
	VG_(memcpy)(dc.sample_name, spec, (SizeT)(colon - spec));
	dc.sample_name[colon - spec] = 0;
	return True;
}

static UInt bin_of(ULong d)
{
	UInt b = dc_reuse_bin(d, (ULong)dc.opt.reuse_first, (ULong)dc.opt.reuse_growth);
	return b < DC_REUSE_BINS ? b : DC_REUSE_BINS - 1;
}

void dc_track_init(void)
{
	if (dc.opt.sample) {
		if (dc.sample_level < 0)
			dc.sample_level = dc.hier.nlevels;
		if (dc.sample_level > dc.hier.nlevels)
			VG_(fmsg_bad_option)("--sample", "the hierarchy has no level %d\n",
					     dc.sample_level);
		dc_sampler_init(&dc.sampler, dc.sampler.period, (ULong)dc.opt.sample_seed);
		if (dc_costtab_init(&dc.scosts, &dc.env) || dc_evtab_init(&dc.sevicts, &dc.env))
			VG_(tool_panic)("out of memory");
		dc.sampling = True;
	}
	if (dc.opt.evictions && dc_evtab_init(&dc.evicts, &dc.env))
		VG_(tool_panic)("out of memory");
	if (dc.opt.reuse_sample) {
		struct dc_rdx_cfg cfg = dc.opt.rdx;
		cfg.block_bits = (unsigned)dc_log2((ULong)dc.opt.reuse_block);
		cfg.max_size = dc_max_access_size();
		/* the watchpoints draw from a stream apart from the use points' */
		cfg.seed = dc_hash64((ULong)dc.opt.sample_seed + 1);
		if (dc_rdx_init(&dc.rdx, &dc.env, &cfg) ||
		    dc_rectab_init(&dc.rdx_pairs, &dc.env, sizeof(struct dc_rpair),
				   2 * sizeof(UInt), "dc.rdx.pairs"))
			VG_(tool_panic)("out of memory");
		dc_sampler_init(&dc.rdx_sampler, (ULong)dc.opt.reuse_sample,
				(ULong)dc.opt.sample_seed);
		dc.rdx_next = dc.rdx_sampler.countdown;
		dc.rdx_on = True;
	}
	if (dc.opt.reuse &&
	    (dc_reuse_init(&dc.reuse, &dc.env, (unsigned)dc_log2((ULong)dc.opt.reuse_block)) ||
	     dc_rectab_init(&dc.rpairs, &dc.env, sizeof(struct dc_rpair), 2 * sizeof(UInt),
			    "dc.rpairs")))
		VG_(tool_panic)("out of memory");
	dc_offsets_init();
	dc.rbin_again[0] = bin_of(0);
	dc.rbin_again[1] = bin_of(1);
}

/* Grows dc.resid to hold `bucket` (out of line: resid_at's rare case). */
static __attribute__((noinline)) void resid_grow(UInt bucket)
{
	UInt n = dc.resid_buckets ? dc.resid_buckets : 256;

	while (n <= bucket)
		n *= 2;
	dc.resid = VG_(realloc)("dc.track.resid", dc.resid,
				(SizeT)n * DC_MAX_LEVELS * sizeof *dc.resid);
	VG_(memset)(dc.resid + (SizeT)dc.resid_buckets * DC_MAX_LEVELS, 0,
		    (SizeT)(n - dc.resid_buckets) * DC_MAX_LEVELS * sizeof *dc.resid);
	dc.resid_buckets = n;
}

static inline struct dc_resid *resid_at(UInt bucket, Int k)
{
	if (UNLIKELY(bucket >= dc.resid_buckets))
		resid_grow(bucket);
	return &dc.resid[(SizeT)bucket * DC_MAX_LEVELS + k];
}

/* Inline: up to two per fill with --evictions, whose call and grow check
 * cost 8 % of bench_transpose's run with every feature on.  A record keeps
 * base = integral - lines x now (mod 2^64), so the integral at any time t
 * is base + lines x t and an update writes two words, not three. */
static inline void resid_add(UInt bucket, Int k, Long delta, ULong now)
{
	struct dc_resid *r = resid_at(bucket, k);
	Long lines = r->lines + delta;

	if (lines < 0)
		lines = 0;
	r->base -= (ULong)(lines - r->lines) * now;
	r->lines = lines;
}

static inline ULong resid_integral(const struct dc_resid *r, ULong now)
{
	return r->base + (ULong)r->lines * now;
}

static UInt victim_bucket(const struct dc_cache_level *l, UInt j)
{
	return dc_bucket_of_line((Addr)(l->victim[j] << l->line_bits), 1u << l->line_bits);
}

/* A line of the evictor's own bucket evicted: the bucket gains a line and
 * loses one at the same time, which leaves its count and integral as
 * they were, so neither update is made. */
static void track_fills(Int k, UInt evictor, UInt loc, ULong now)
{
	const struct dc_cache_level *l = &dc.cache.lv[k];

	for (UInt j = 0; j < l->nfill; j++) {
		dc.fills[k]++;
		if (l->victim[j] == DC_EMPTY_TAG) {
			dc.empty_fills[k]++;
			resid_add(evictor, k, 1, now);
		} else {
			UInt v = victim_bucket(l, j);
			dc.nevictions[k]++;
			if (v != evictor) {
				resid_add(evictor, k, 1, now);
				resid_add(v, k, -1, now);
			}
			dc_evtab_add(&dc.evicts, (UInt)k + 1, evictor, v, loc, 1);
		}
	}
}

void dc_track_sample(const struct dc_ins *in, const struct dc_cost *c, Addr a, int served)
{
	ULong w = dc.sampler.period;
	struct dc_cost *s;

	if (dc.ip_only) {
		dc_ipsamp_take(in, c);
		return;
	}
	dc_smplog_write(in, c, a, served, w);
	s = dc_costtab_get(&dc.scosts, c->loc, c->bucket, c->tid);
	if (s)
		dc_cost_count_n(s, in->is_write, served, dc.lat, w);
	if (dc.sample_event == DC_EV_MISS) {
		const struct dc_cache_level *l = &dc.cache.lv[dc.sample_level - 1];
		for (UInt j = 0; j < l->nfill; j++)
			if (l->victim[j] != DC_EMPTY_TAG)
				dc_evtab_add(&dc.sevicts, (UInt)dc.sample_level, c->bucket,
					     victim_bucket(l, j), c->loc, w);
	}
}

static struct dc_rhist *rhist_grow(UInt bucket)
{
	UInt n = dc.rhist_buckets ? dc.rhist_buckets : 256;

	while (n <= bucket)
		n *= 2;
	dc.rhist = VG_(realloc)("dc.track.rhist", dc.rhist, (SizeT)n * sizeof *dc.rhist);
	VG_(memset)(dc.rhist + dc.rhist_buckets, 0,
		    (SizeT)(n - dc.rhist_buckets) * sizeof *dc.rhist);
	dc.rhist_buckets = n;
	return &dc.rhist[bucket];
}

static inline struct dc_rhist *rhist_at(UInt bucket)
{
	return LIKELY(bucket < dc.rhist_buckets) ? &dc.rhist[bucket] : rhist_grow(bucket);
}

/* s += v, sticking at DC_SUM_UNKNOWN (a signed 64-bit maximum, for SQLite). */
static void sum_add(ULong *s, ULong v)
{
	*s = v < DC_SUM_UNKNOWN - *s ? *s + v : DC_SUM_UNKNOWN;
}

/* A pair's run of reuses counted alike (one bucket, stack bin and time
 * bin): its count and sums go into the histogram and the pair's counts
 * when it ends, not at every access (a loop reusing its lines adds up in
 * its pair record, inline: dc_track_reuse_at).  Time distances in a run
 * stay below 2^32 (a longer one is counted at once) and runs at most
 * DC_RUN_MAX reuses, so the run's sums cannot overflow. */
static void run_end(struct dc_rpair *p)
{
	struct dc_rhist *h;

	if (!p->run_n)
		return;
	h = &dc.rhist[p->run_bucket];
	h->bins[DC_RH_STACK][p->run_sb] += p->run_n;
	h->bins[DC_RH_TIME][p->run_tb] += p->run_n;
	sum_add(&h->sum[DC_RH_STACK][p->run_sb], p->run_stack);
	sum_add(&h->sum[DC_RH_TIME][p->run_tb], p->run_time);
	p->count += p->run_n;
	p->sum_stack += p->run_stack;
	p->sum_time += p->run_time;
	p->run_n = 0;
}

static int run_end_cb(void *ud, void *rec)
{
	(void)ud;
	run_end(rec);
	return 0;
}

void dc_track_reuse_nomem(void)
{
	VG_(tool_panic)("out of memory for reuse tracking");
}

/* Pair records found lately, direct-mapped by a hash of their two
 * locations (records are never freed, so an entry stays valid).  An
 * instruction's dc_ins remembers one pair; a row-wise load of lines that a
 * column-wise store wrote alternates between two (its first access to a
 * line pairs with the store, the next seven with itself), and each switch
 * hashed the pair table: 5 % of bench_transpose's run with --reuse. */
#define PAIR_CACHE_BITS 10
static struct dc_rpair *pair_cache[1u << PAIR_CACHE_BITS];

static struct dc_rpair *pair_get(UInt use_loc, UInt reuse_loc)
{
	ULong h = ((ULong)use_loc << 32 | reuse_loc) * 0x9e3779b97f4a7c15ULL;
	struct dc_rpair **e = &pair_cache[h >> (64 - PAIR_CACHE_BITS)];
	UInt key[2] = { use_loc, reuse_loc };

	if (*e && (*e)->use_loc == use_loc && (*e)->reuse_loc == reuse_loc)
		return *e;
	*e = dc_rectab_get(&dc.rpairs, key);
	if (!*e)
		dc_track_reuse_nomem();
	return *e;
}

/* The access past dc_track_reuse's inline path: a first touch, or a reuse
 * that does not continue its instruction's pair's run. */
void dc_track_reuse_slow(struct dc_ins *in, const struct dc_cost *c,
			 const struct dc_reuse_result *res)
{
	struct dc_rpair *p;
	UInt sb, tb;

	if (res->first) {
		rhist_at(c->bucket)->first++;
		return;
	}
	sb = bin_of(res->stack_dist);
	tb = bin_of(res->time_dist);
	/* an instruction mostly reuses what one other instruction used */
	p = in->rpair;
	if (!p || in->rpair_use != res->prev_loc || p->reuse_loc != c->loc) {
		p = pair_get(res->prev_loc, c->loc);
		in->rpair = p;
		in->rpair_use = res->prev_loc;
	}
	if (dc_run_continues(p, c->bucket, sb, tb, res->time_dist)) {
		p->run_n++;
		p->run_stack += res->stack_dist;
		p->run_time += res->time_dist;
		return;
	}
	run_end(p);
	rhist_at(c->bucket);    /* the run's bucket has its histogram */
	p->run_bucket = c->bucket;
	p->run_sb = sb;
	p->run_tb = tb;
	p->run_n = 1;
	p->run_stack = res->stack_dist;
	p->run_time = res->time_dist;
	if (res->time_dist >> 32)
		run_end(p);     /* a distance this long is counted at once */
}

/* ---- sampled reuse (RDX) ---------------------------------------------- */

#define CTX_FRAMES 16

/* Traps (reuse_loc: the trapping access's location) or, at exit
 * (reuse_loc DC_NO_LOC), uses never reused. */
static void rdx_record(const struct dc_rdx_hit *h, unsigned n, UInt reuse_loc)
{
	for (unsigned i = 0; i < n; i++) {
		struct dc_rhist *rh = rhist_at(h[i].bucket);
		ULong d = dc_now() - h[i].t_use;
		ULong wd = d <= DC_SUM_UNKNOWN / h[i].weight ? d * h[i].weight : DC_SUM_UNKNOWN;
		UInt b = bin_of(d), key[2] = { h[i].loc, reuse_loc };
		struct dc_rpair *p;
		if (reuse_loc == DC_NO_LOC) {
			rh->unseen += h[i].weight;
			continue;
		}
		rh->bins[DC_RH_SAMPLED][b] += h[i].weight;
		sum_add(&rh->sum[DC_RH_SAMPLED][b], wd);
		p = dc_rectab_get(&dc.rdx_pairs, key);
		if (!p)
			VG_(tool_panic)("out of memory for sampled reuse pairs");
		p->count += h[i].weight;
		sum_add(&p->sum_time, wd);
	}
}

static void rdx_trap(const struct dc_ins *in, const struct dc_cost *c, Addr a)
{
	struct dc_rdx_hit hits[DC_RDX_MAX_WP];

	rdx_record(hits, dc_rdx_access(&dc.rdx, a, in->size, hits), c->loc);
}

/* The emulated PMU sample: address, instruction and calling context (a
 * hash of the instruction and the return addresses of its frames). */
static void rdx_use(const struct dc_ins *in, const struct dc_cost *c, Addr a)
{
	Addr ips[CTX_FRAMES];
	UInt n = VG_(get_StackTrace)(dc.tid, ips, CTX_FRAMES, NULL, NULL, 0);
	ULong ctx = dc_hash64(in->ip);

	for (UInt i = 1; i < n; i++)
		ctx = dc_hash64(ctx ^ ips[i]);
	dc_rdx_sample(&dc.rdx, a, in->size, dc_now(), ctx, c->bucket, c->loc);
}

/* A use point (use) and/or an access that may touch a watched byte: the
 * trap first, then the new use (one call from the access helper). */
void dc_track_rdx(const struct dc_ins *in, const struct dc_cost *c, Addr a, Bool use)
{
	if (dc_rdx_maybe(&dc.rdx, a))
		rdx_trap(in, c, a);
	if (use)
		rdx_use(in, c, a);
}

void dc_track_access(struct dc_ins *in, struct dc_cost *c, Addr a, int served)
{
	if (dc.rdx_on) {
		dc_track_rdx(in, c, a, dc_rdx_tick());
	} else {
		dc.now++;
	}
	if (dc.opt.calls)
		dc_cost_count(&dc.threads[dc.tid].now, in->is_write, served, dc.lat);
	/* the evictions before the reuse: they give the record's prefetch time */
	if (dc.opt.evictions && served > 1) {
		ULong now = dc_now();
		for (Int k = 0; k < served - 1; k++)
			track_fills(k, c->bucket, c->loc, now);
	}
	if (dc.opt.reuse)
		dc_track_reuse_at(in, c, a);
	if (dc.sampling && dc_sample_event_matches(in, served) && dc_sampler_tick(&dc.sampler))
		dc_track_sample(in, c, a, served);
	if (dc.opt.offsets)
		dc_offsets_access(in, a, c->bucket, served);
}

static int scost_cb(void *ud, const struct dc_cost *c)
{
	if (c->acc[0] || c->acc[1])
		dc_raw_scost(ud, c, dc.hier.nlevels);
	return 0;
}

/* Records zeroed in a forked child may have no count left. */
static int evict_cb(void *ud, const struct dc_evict *e)
{
	if (e->count)
		dc_raw_evict(ud, e, False);
	return 0;
}

static int sevict_cb(void *ud, const struct dc_evict *e)
{
	if (e->count)
		dc_raw_evict(ud, e, True);
	return 0;
}

static int rpair_cb(void *ud, void *rec)
{
	const struct dc_rpair *p = rec;
	if (p->count)
		dc_raw_rpair(ud, p->use_loc, p->reuse_loc, p->count, p->sum_stack, p->sum_time);
	return 0;
}

/* Sampled pairs: weights and weighted time sums, x period like the
 * sampled histograms. */
static int srpair_cb(void *ud, void *rec)
{
	const struct dc_rpair *p = rec;
	ULong w = (ULong)dc.opt.reuse_sample, s = p->sum_time;

	if (!p->count)
		return 0;
	if (s != DC_SUM_UNKNOWN)
		s = s <= DC_SUM_UNKNOWN / w ? s * w : DC_SUM_UNKNOWN;
	dc_raw_srpair(ud, p->use_loc, p->reuse_loc, p->count * w, s);
	return 0;
}

static void rdx_meta(struct dc_rawout *o)
{
	const struct dc_rdx *r = &dc.rdx;

	dc_raw_meta_u64(o, "reuse_sample_period", (ULong)dc.opt.reuse_sample);
	dc_raw_meta_u64(o, "reuse_watchpoints", r->cfg.nwp);
	dc_raw_meta(o, "reuse_watch", r->cfg.watch == DC_RDX_WATCH_DR ? "dr" : "block");
	dc_raw_meta(o, "reuse_replace", r->cfg.replace == DC_RDX_RESERVOIR ? "reservoir" : "oldest");
	dc_raw_meta(o, "reuse_attrib", r->cfg.proportional ? "proportional" : "none");
	dc_raw_meta_u64(o, "reuse_samples", r->samples);
	dc_raw_meta_u64(o, "reuse_arms", r->arms);
	dc_raw_meta_u64(o, "reuse_replaced", r->replaced);
	dc_raw_meta_u64(o, "reuse_dropped", r->dropped);
	dc_raw_meta_u64(o, "reuse_traps", r->traps);
	dc_raw_meta_u64(o, "reuse_accesses", dc_now());
}

/* Sampled counts are weights (samples); each sample stands for `period`
 * accesses, so the dump carries weight x period, an estimate of accesses. */
static void reuse_dump(struct dc_rawout *o)
{
	static const HChar *const kind[DC_RH_KINDS] = { "stack", "time", "sampled" };
	struct dc_rdx_hit hits[DC_RDX_MAX_WP];
	ULong w = (ULong)dc.opt.reuse_sample;
	HChar bins[64];

	if (dc.opt.reuse)
		dc_rectab_each(&dc.rpairs, run_end_cb, NULL);
	if (dc.rdx_on) {
		rdx_record(hits, dc_rdx_drain(&dc.rdx, hits), DC_NO_LOC);
		rdx_meta(o);
	}
	dc_raw_meta_u64(o, "reuse_block", (ULong)dc.opt.reuse_block);
	VG_(snprintf)(bins, sizeof bins, "%lld:%lld", dc.opt.reuse_first, dc.opt.reuse_growth);
	dc_raw_meta(o, "reuse_bins", bins);
	for (UInt b = 0; b < dc.rhist_buckets && b < dc_bucket_count(); b++) {
		const struct dc_rhist *h = &dc.rhist[b];
		if (h->first)
			dc_raw_rfirst(o, b, h->first);
		if (h->unseen)
			dc_raw_runseen(o, b, h->unseen * w);
		for (UInt k = 0; k < DC_REUSE_BINS; k++)
			for (UInt j = 0; j < DC_RH_KINDS; j++) {
				ULong f = j == DC_RH_SAMPLED ? w : 1, s = h->sum[j][k];
				if (!h->bins[j][k])
					continue;
				if (s != DC_SUM_UNKNOWN)
					s = s <= DC_SUM_UNKNOWN / f ? s * f : DC_SUM_UNKNOWN;
				dc_raw_rhist(o, kind[j], b, k, h->bins[j][k] * f, s);
			}
	}
	if (dc.opt.reuse)
		dc_rectab_each(&dc.rpairs, rpair_cb, o);
	if (dc.rdx_on)
		dc_rectab_each(&dc.rdx_pairs, srpair_cb, o);
}

static int zero_pair(void *ud, void *rec)
{
	struct dc_rpair *p = rec;
	p->count = p->sum_stack = p->sum_time = 0;
	p->run_n = p->run_stack = p->run_time = 0;
	return 0;
}

/* A forked child counts from the fork: the cache, the objects and the
 * reuse history it inherited stay, the counts start at zero. */
void dc_track_reset_child(void)
{
	if (dc.sampling) {
		dc_costtab_zero(&dc.scosts);
		dc_evtab_zero(&dc.sevicts);
		dc.sampler.samples = 0;
		dc_ipsamp_reset_child();
	}
	if (dc.opt.evictions) {
		dc_evtab_zero(&dc.evicts);
		VG_(memset)(dc.fills, 0, sizeof dc.fills);
		VG_(memset)(dc.empty_fills, 0, sizeof dc.empty_fills);
		VG_(memset)(dc.nevictions, 0, sizeof dc.nevictions);
		if (dc.resid)
			VG_(memset)(dc.resid, 0,
				    (SizeT)dc.resid_buckets * DC_MAX_LEVELS * sizeof *dc.resid);
	}
	if (dc.rhist)
		VG_(memset)(dc.rhist, 0, (SizeT)dc.rhist_buckets * sizeof *dc.rhist);
	if (dc.opt.reuse)
		dc_rectab_each(&dc.rpairs, zero_pair, NULL);
	if (dc.rdx_on) {
		dc_rectab_each(&dc.rdx_pairs, zero_pair, NULL);
		/* the parent's watchpoints and samples are not the child's */
		struct dc_rdx_hit hits[DC_RDX_MAX_WP];
		dc_rdx_drain(&dc.rdx, hits);
		dc.rdx.samples = dc.rdx.arms = dc.rdx.replaced = dc.rdx.dropped = 0;
		dc.rdx.traps = 0;
		dc.rdx_sampler.samples = 0;
		dc.rdx_next = dc.rdx_sampler.countdown = dc_sampler_next(&dc.rdx_sampler);
	}
	dc_offsets_reset_child();
	dc.now = 0;
}

void dc_track_dump(struct dc_rawout *o)
{
	if (dc.opt.reuse || dc.rdx_on)
		reuse_dump(o);
	dc_offsets_dump(o);
	dc_raw_meta(o, "evictions", dc.opt.evictions ? "yes" : "no");
	if (dc.sampling) {
		dc_raw_meta(o, "sample_event", dc.sample_name);
		dc_raw_meta_u64(o, "sample_period", dc.sampler.period);
		dc_raw_meta_u64(o, "sample_seed", (ULong)dc.opt.sample_seed);
		dc_raw_meta_u64(o, "samples", dc.sampler.samples);
		if (dc.ip_only) {
			dc_ipsamp_dump(o);
		} else {
			dc_costtab_each(&dc.scosts, scost_cb, o);
			dc_evtab_each(&dc.sevicts, sevict_cb, o);
		}
	}
	if (!dc.opt.evictions)
		return;
	dc_evtab_each(&dc.evicts, evict_cb, o);
	for (Int k = 0; k < dc.hier.nlevels; k++)
		dc_raw_fill(o, (UInt)k + 1, dc.fills[k], dc.empty_fills[k], dc.nevictions[k]);
	for (UInt b = 0; b < dc.resid_buckets && b < dc_bucket_count(); b++) {
		for (Int k = 0; k < dc.hier.nlevels; k++) {
			struct dc_resid *r = resid_at(b, k);
			ULong now = dc_now(), integral = resid_integral(r, now);
			if (!integral || !now)
				continue;
			dc_raw_resid(o, b, (UInt)k + 1,
				     integral / now * 1000 + integral % now * 1000 / now);
		}
	}
}
