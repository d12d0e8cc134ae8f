/* dc_offsets.c — accesses by offset within their object (--offsets), and
 * the element types programs give user buckets (DCPROF_NAME_BLOCK_TYPED).
 *
 * Notes (docs/engine.md, "Offsets within objects"):
 *  - With --offsets=yes every access to a global (its symbol, or a thread's
 *    copy of a thread-local variable), a heap block or a user block counts
 *    at the offset of its first byte from the object's start, in its
 *    bucket's cell for that offset (core/offtab.h).  Stack, mappings and
 *    <unknown> have no object start and are not counted by offset.
 *  - Bounded: offsets from --offset-window bytes on, and new offsets once
 *    --offset-cells cells exist, count in the bucket's beyond cell.
 *  - The per-access work is on the tracking helper only (dc_instrument.c
 *    chooses it when --offsets is on); the default helper is unchanged.
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

void dc_offsets_init(void)
{
	if (!dc.opt.offsets)
		return;
	if (dc_offtab_init(&dc.offs, &dc.env, (ULong)dc.opt.offset_window,
			   (ULong)dc.opt.offset_cells))
		VG_(tool_panic)("cannot allocate the offset table");
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

static int cell_cb(void *ud, const struct dc_offcell *c)
{
	if (c->acc[0] || c->acc[1])
		dc_raw_off(ud, c, dc.hier.nlevels);
	return 0;
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
	dc_raw_meta_u64(o, "offset_cells_used", dc.offs.cells);
	dc_offtab_each(&dc.offs, cell_cb, o);
}
