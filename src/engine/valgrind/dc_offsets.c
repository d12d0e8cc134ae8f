/* dc_offsets.c — accesses by offset within their object (--offsets), and
 * the element types programs give user buckets (DCPROF_NAME_BLOCK_TYPED).
 *
 * Notes (docs/engine.md, "Offsets within objects"):
 *  - With --offsets=yes every access to a global (its symbol, or a thread's
 *    copy of a thread-local variable), a heap block or a user block counts
 *    at the offset of its first byte from the object's start, in its
 *    bucket's cell for that offset (core/offtab.h).  Stack, mappings and
 *    <unknown> have no object start and are not counted by offset.
 *  - Bounded: offsets from --offset-window bytes on, new offsets of a
 *    bucket with --offset-bucket-cells cells, and new offsets once
 *    --offset-cells cells exist, count in the bucket's beyond cell.
 *  - The per-access work is on the tracking helper only (dc_instrument.c
 *    chooses it when --offsets is on); the default helper is unchanged.
 *  - With --cache-use too, each residency the cache-use model charges
 *    with bytes left unused (core/cacheuse.h) has those bytes found in
 *    the objects holding them: run by run of the line's clear mask bits,
 *    object by object (dc_objmap_lookup_from), each piece counted as a run
 *    of offsets in the object's bucket (dc_offtab_unused).  Bytes of no
 *    global, heap or user object (stack, allocator headers, freed blocks)
 *    are not counted.  The dump turns runs into ranges (`offu` records):
 *    a sweep of each bucket's cells in offset order.
 *  - Types are names (`struct node`), resolved by the front end from the
 *    program's DWARF; the engine only carries them into the dump.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "engine/valgrind/dc_tool.h"

struct btype {
	UInt bucket;
	HChar *type;
};

static struct btype *types;
static UInt ntypes, types_cap;

/* The bytes [lo, hi) of one line left level k unused: each piece in a
 * global, heap or user object counts in its bucket. */
static void unused_range(Int k, Addr lo, Addr hi)
{
	dc_objs_settle();
	while (lo < hi) {
		struct dc_objmap_ent e;
		Addr a, b;

		if (!dc_objmap_lookup_from(&dc.objs, lo, hi, &e))
			return;
		a = lo > e.lo ? lo : e.lo;
		b = hi < e.hi ? hi : e.hi;
		if (e.o->kind <= DC_K_USER)
			dc_offtab_unused(&dc.offs, e.bucket, a - e.lo, b - e.lo, k, e.hi - e.lo);
		lo = b;
	}
}

/* The cache-use model's hook: the line `block` left level k with only
 * the bytes of `mask` used. */
static void unused_line(void *ud, int k, uint64_t block, uint64_t mask)
{
	const struct dc_use_level *ul = &dc.use.lv[k];
	Addr base = (Addr)(block << dc.cache.lv[k].line_bits);
	ULong clear = ~mask;

	(void)ud;
	if (ul->nbits < 64)
		clear &= (1ULL << ul->nbits) - 1;
	while (clear) {
		UInt b0 = (UInt)__builtin_ctzll(clear);
		ULong rest = ~(clear >> b0);
		UInt b1 = rest ? b0 + (UInt)__builtin_ctzll(rest) : 64;
		unused_range(k, base + ((Addr)b0 << ul->unit_bits), base + ((Addr)b1 << ul->unit_bits));
		clear &= b1 < 64 ? ~0ULL << b1 : 0;
	}
}

void dc_offsets_init(void)
{
	if (!dc.opt.offsets)
		return;
	if (dc_offtab_init(&dc.offs, &dc.env, (ULong)dc.opt.offset_window,
			   (ULong)dc.opt.offset_cells, (ULong)dc.opt.offset_share, dc.opt.cache_use))
		VG_(tool_panic)("cannot allocate the offset table");
	if (dc.opt.cache_use)
		dc.use.unused = unused_line;
}

void dc_offsets_reset_child(void)
{
	if (dc.opt.offsets)
		dc_offtab_zero(&dc.offs);
}

void dc_offsets_set_type(UInt bucket, const HChar *type)
{
	for (UInt i = 0; i < ntypes; i++) {
		if (types[i].bucket == bucket) {
			VG_(free)(types[i].type);
			types[i].type = VG_(strdup)("dc.offsets.type", type);
			return;
		}
	}
	if (ntypes == types_cap) {
		types_cap = types_cap ? 2 * types_cap : 16;
		types = VG_(realloc)("dc.offsets.types", types, types_cap * sizeof *types);
	}
	types[ntypes].bucket = bucket;
	types[ntypes].type = VG_(strdup)("dc.offsets.type", type);
	ntypes++;
}

/* The cells with unused-byte runs, gathered for the sweep. */
struct cells {
	struct dc_rawout *o;
	const struct dc_offcell **v;
	UInt n, cap;
};

static int cell_cb(void *ud, const struct dc_offcell *c)
{
	struct cells *cs = ud;

	if (c->acc[0] || c->acc[1])
		dc_raw_off(cs->o, c, dc.hier.nlevels);
	if (!dc.offs.unused)
		return 0;
	for (Int k = 0; k < dc.hier.nlevels; k++) {
		if (!c->ubeg[k] && !c->uend[k])
			continue;
		if (cs->n == cs->cap) {
			cs->cap = cs->cap ? 2 * cs->cap : 1024;
			cs->v = VG_(realloc)("dc.offsets.unused", cs->v, cs->cap * sizeof *cs->v);
		}
		cs->v[cs->n++] = c;
		break;
	}
	return 0;
}

static Int cmp_cell(const void *a, const void *b)
{
	const struct dc_offcell *x = *(const struct dc_offcell *const *)a;
	const struct dc_offcell *y = *(const struct dc_offcell *const *)b;

	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Unused bytes as ranges: per bucket, in offset order, the running sum of
 * runs begun less runs ended is the count of every byte up to the next
 * cell (the window closes the last range); neighbouring ranges with the
 * same counts are one record.  The beyond cell holds bytes. */
static void dump_unused(struct dc_rawout *o, struct cells *cs)
{
	Int n = dc.hier.nlevels;
	uint64_t cov[DC_MAX_LEVELS] = { 0 }, pend[DC_MAX_LEVELS] = { 0 };
	ULong pend_lo = 0, pend_hi = 0;
	UInt pend_bucket = 0;
	Bool pending = False;

	VG_(ssort)(cs->v, cs->n, sizeof *cs->v, cmp_cell);
	for (UInt i = 0; i < cs->n; i++) {
		const struct dc_offcell *c = cs->v[i], *nx = i + 1 < cs->n ? cs->v[i + 1] : NULL;
		ULong end;
		Bool any = False;

		if (c->off == DC_OFF_BEYOND) {
			dc_raw_offu(o, c->bucket, DC_OFF_BEYOND, DC_OFF_BEYOND, c->ubeg, n);
			continue;
		}
		if (i == 0 || cs->v[i - 1]->bucket != c->bucket)
			VG_(memset)(cov, 0, sizeof cov);
		for (Int k = 0; k < n; k++) {
			cov[k] += c->ubeg[k] - c->uend[k];
			any |= cov[k] != 0;
		}
		end = nx && nx->bucket == c->bucket && nx->off != DC_OFF_BEYOND
		      ? nx->off : (ULong)dc.opt.offset_window;
		if (pending && (!any || pend_bucket != c->bucket || pend_hi != c->off ||
				VG_(memcmp)(pend, cov, sizeof cov))) {
			dc_raw_offu(o, pend_bucket, pend_lo, pend_hi, pend, n);
			pending = False;
		}
		if (!any)
			continue;
		if (!pending) {
			pending = True;
			pend_bucket = c->bucket;
			pend_lo = c->off;
			VG_(memcpy)(pend, cov, sizeof cov);
		}
		pend_hi = end;
	}
	if (pending)
		dc_raw_offu(o, pend_bucket, pend_lo, pend_hi, pend, n);
}

void dc_offsets_dump(struct dc_rawout *o)
{
	for (UInt i = 0; i < ntypes; i++)
		if (types[i].bucket < dc_bucket_count())
			dc_raw_btype(o, types[i].bucket, types[i].type);
	dc_raw_meta(o, "offsets", dc.opt.offsets ? "yes" : "no");
	if (!dc.opt.offsets)
		return;
	dc_raw_meta_u64(o, "offset_window", (ULong)dc.opt.offset_window);
	dc_raw_meta_u64(o, "offset_cells", (ULong)dc.opt.offset_cells);
	dc_raw_meta_u64(o, "offset_bucket_cells", (ULong)dc.opt.offset_share);
	dc_raw_meta_u64(o, "offset_cells_used", dc.offs.cells);
	{
		struct cells cs = { .o = o };
		dc_offtab_each(&dc.offs, cell_cb, &cs);
		if (cs.n)
			dump_unused(o, &cs);
		VG_(free)(cs.v);
	}
}
