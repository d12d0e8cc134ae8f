/* dc_globals.c — globals from ELF symbol tables, and memory the program maps.
 *
 * Notes:
 *  - Every ELF object Valgrind reads debug information for (the program,
 *    ld.so, shared libraries) has its symbol table read by the core's
 *    elfsym reader; each data symbol with a size becomes a global object and
 *    its own bucket (seeds/002 §4.3.1).  Addresses are the symbol value plus
 *    the object's load bias.  TLS symbols are skipped (their storage is
 *    per thread and not at a fixed address).
 *  - Names: the symbol name; a file-static whose name occurs more than once
 *    in the object gets " (file.c)"; objects of anything but the main
 *    program get "@soname".  Aliases (two names, one address) keep the
 *    first name met.
 *  - Memory the program maps (mmap) becomes a region, looked up only when
 *    no object contains an address: anonymous memory is bucket
 *    "<mmap:f-g-h>", named after the code that mapped it; a file mapping is
 *    "<file:NAME>" — for shared libraries that is their data not covered by
 *    a symbol (string constants, tables of the library's own).
 *  - munmap removes every object that starts inside the unmapped range.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"

#include "core/elfsym.h"
#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

struct seen {
	const DebugInfo *di;
	Addr text;
};
static struct seen *seen;
static UInt nseen, seen_cap;

static Bool was_seen(const DebugInfo *di)
{
	Addr text = VG_(DebugInfo_get_text_avma)(di);

	for (UInt i = 0; i < nseen; i++)
		if (seen[i].di == di && seen[i].text == text)
			return True;
	if (nseen == seen_cap) {
		seen_cap = seen_cap ? 2 * seen_cap : 32;
		seen = VG_(realloc)("dc.globals.seen", seen, seen_cap * sizeof *seen);
	}
	seen[nseen].di = di;
	seen[nseen].text = text;
	nseen++;
	return False;
}

static UChar *read_file(const HChar *path, SizeT *len)
{
	SysRes sr = VG_(open)(path, VKI_O_RDONLY, 0);
	struct vg_stat st;
	UChar *buf;
	SizeT got = 0, size;
	Int fd;

	if (sr_isError(sr))
		return NULL;
	fd = (Int)sr_Res(sr);
	if (VG_(fstat)(fd, &st) != 0 || st.size <= 0 || st.size > (1LL << 31)) {
		VG_(close)(fd);
		return NULL;
	}
	size = (SizeT)st.size;
	buf = VG_(malloc)("dc.globals.elf", size);
	while (got < size) {
		Int n = VG_(read)(fd, buf + got, (Int)(size - got > (1 << 24) ? (1 << 24)
								   : size - got));
		if (n <= 0)
			break;
		got += (SizeT)n;
	}
	VG_(close)(fd);
	if (got != size) {
		VG_(free)(buf);
		return NULL;
	}
	*len = got;
	return buf;
}

/* Name counts, to find file-statics whose name is not unique. */
struct namecount {
	const HChar **names;
	UInt *counts;
	UWord cap;
};

static UWord nc_slot(struct namecount *nc, const HChar *name)
{
	ULong h = 1469598103934665603ULL;
	for (const HChar *p = name; *p; p++)
		h = (h ^ (UChar)*p) * 1099511628211ULL;
	UWord i = h & (nc->cap - 1);
	while (nc->names[i] && VG_(strcmp)(nc->names[i], name) != 0)
		i = (i + 1) & (nc->cap - 1);
	return i;
}

struct scan {
	struct namecount nc;
	UWord nsyms;
	Addr bias;
	const HChar *suffix;     /* "@soname" or "" */
};

static int count_cb(void *ud, const struct dc_elfsym *s)
{
	struct scan *sc = ud;
	sc->nsyms++;
	return 0;
}

static int name_cb(void *ud, const struct dc_elfsym *s)
{
	struct scan *sc = ud;
	UWord i;

	if (s->tls)
		return 0;
	i = nc_slot(&sc->nc, s->name);
	sc->nc.names[i] = s->name;
	sc->nc.counts[i]++;
	return 0;
}

static int register_cb(void *ud, const struct dc_elfsym *s)
{
	struct scan *sc = ud;
	HChar name[512];
	struct dc_obj *o;
	Addr lo = (Addr)s->value + sc->bias;

	if (s->tls)
		return 0;
	if (!s->global && s->file && sc->nc.counts[nc_slot(&sc->nc, s->name)] > 1)
		VG_(snprintf)(name, sizeof name, "%s (%s)%s", s->name, s->file, sc->suffix);
	else
		VG_(snprintf)(name, sizeof name, "%s%s", s->name, sc->suffix);
	/* An alias of a registered global (environ, __environ) keeps the
	 * first name and gets no bucket of its own. */
	if (dc_objmap_find(&dc.objs, lo))
		return 0;
	o = dc_objmap_new(&dc.objs);
	o->lo = lo;
	o->hi = lo + s->size;
	o->alloc_size = s->size;
	o->kind = DC_K_GLOBAL;
	o->bucket = dc_bucket_get(name, DC_K_GLOBAL);
	if (dc_objs_insert(o) != 0) {
		dc_objmap_discard(&dc.objs, o);
		return 0;
	}
	{
		struct dc_bucket *b = dc_bucket_at(o->bucket);
		if (!b->blocks || s->size < b->min_size)
			b->min_size = s->size;
		if (s->size > b->max_size)
			b->max_size = s->size;
		b->blocks++;
		b->live++;
		b->max_live = b->live > b->max_live ? b->live : b->max_live;
		b->total_bytes += s->size;
		b->live_bytes += s->size;
		b->max_live_bytes = b->live_bytes > b->max_live_bytes ? b->live_bytes
								      : b->max_live_bytes;
	}
	return 0;
}

static void register_globals(const DebugInfo *di)
{
	const HChar *path = VG_(DebugInfo_get_filename)(di);
	const HChar *soname = VG_(DebugInfo_get_soname)(di);
	HChar suffix[256];
	struct scan sc;
	UChar *img;
	SizeT len;

	/* Valgrind's own objects (the tool, its preloads) are not the program's. */
	if (!path || VG_(strstr)(path, "/vgpreload_") ||
	    !VG_(am_is_valid_for_client)(VG_(DebugInfo_get_text_avma)(di), 1, VKI_PROT_NONE))
		return;
	img = read_file(path, &len);
	if (!img)
		return;
	VG_(memset)(&sc, 0, sizeof sc);
	sc.bias = (Addr)VG_(DebugInfo_get_text_bias)(di);
	if (VG_(args_the_exename) &&
	    VG_(strcmp)(dc_basename(path), dc_basename(VG_(args_the_exename))) == 0)
		suffix[0] = 0;
	else
		VG_(snprintf)(suffix, sizeof suffix, "@%s",
			      soname && VG_(strcmp)(soname, "NONE") ? soname : dc_basename(path));
	sc.suffix = suffix;
	if (dc_elfsym_scan(img, len, count_cb, &sc) == 0 && sc.nsyms) {
		sc.nc.cap = 16;
		while (sc.nc.cap < 2 * sc.nsyms)
			sc.nc.cap *= 2;
		sc.nc.names = VG_(calloc)("dc.globals.nc", sc.nc.cap, sizeof *sc.nc.names);
		sc.nc.counts = VG_(calloc)("dc.globals.nc", sc.nc.cap, sizeof *sc.nc.counts);
		dc_elfsym_scan(img, len, name_cb, &sc);
		dc_elfsym_scan(img, len, register_cb, &sc);
		VG_(free)(sc.nc.names);
		VG_(free)(sc.nc.counts);
	}
	VG_(free)(img);
}

int dc_objs_insert(struct dc_obj *o)
{
	int rc = dc_objmap_insert(&dc.objs, o);

	if (rc == 0)
		dc.fallback.gen++;
	return rc;
}

void dc_globals_scan(void)
{
	dc.debuginfo_dirty = False;
	for (const DebugInfo *di = VG_(next_DebugInfo)(NULL); di; di = VG_(next_DebugInfo)(di))
		if (!was_seen(di))
			register_globals(di);
}

static Bool is_mmap_fn(const HChar *fn)
{
	return VG_(strcmp)(fn, "mmap") == 0 || VG_(strcmp)(fn, "mmap64") == 0 ||
	       VG_(strcmp)(fn, "__mmap") == 0 || VG_(strcmp)(fn, "__mmap64") == 0 ||
	       VG_(strncmp)(fn, "_vgr", 4) == 0;
}

/* Registers [a, a+len) as a region; anonymous memory is named after the
 * code mapping it when tid is valid. */
static void add_region(Addr a, SizeT len, ThreadId tid)
{
	HChar chain[512], name[600];
	struct dc_obj *o;
	NSegment const *seg = VG_(am_find_nsegment)(a);
	const HChar *file = seg && seg->kind == SkFileC ? VG_(am_get_filename)(seg) : NULL;

	if (file) {
		VG_(snprintf)(name, sizeof name, "<file:%s>", dc_basename(file));
	} else if (tid != VG_INVALID_THREADID) {
		dc_chain_name(tid, 3, False, is_mmap_fn, chain, sizeof chain);
		VG_(snprintf)(name, sizeof name, "<mmap:%s>", chain);
	} else {
		return;
	}
	o = dc_objmap_new(&dc.regions);
	o->lo = a;
	o->hi = a + len;
	o->alloc_size = len;
	o->kind = DC_K_MMAP;
	o->bucket = dc_bucket_get(name, DC_K_MMAP);
	/* A mapping placed inside an earlier one (ld.so maps a library whole,
	 * then its segments over it) keeps the earlier, whole-object name. */
	if (dc_objmap_insert(&dc.regions, o) != 0) {
		dc_objmap_discard(&dc.regions, o);
		return;
	}
	dc.fallback.gen++;
}

void dc_track_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	if (di_handle) {
		dc.debuginfo_dirty = True;
		dc_globals_scan();
		return;
	}
	if (xx || !(rr || ww) || len == 0)
		return;
	add_region(a, len, VG_(get_running_tid)());
}

/* The program, ld.so and the initial stack are mapped before the program
 * runs; only their file mappings become regions. */
void dc_track_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	dc.debuginfo_dirty = True;
	if (!xx && (rr || ww) && len)
		add_region(a, len, VG_INVALID_THREADID);
}

static void forget_block(void *ud, struct dc_obj *o)
{
	if (o->kind == DC_K_HEAP || o->kind == DC_K_USER)
		dc_heap_block_done(o, ++dc.alloc_seq);
}

void dc_track_munmap(Addr a, SizeT len)
{
	dc_objmap_remove_in(&dc.objs, a, a + len, forget_block, NULL);
	dc.objs_removals++;
	dc_objmap_remove_in(&dc.regions, a, a + len, NULL, NULL);
	dc.fallback.gen++;
	for (UInt i = 0; i < nseen; i++) {
		if (seen[i].text >= a && seen[i].text < a + len) {
			seen[i] = seen[--nseen];
			i--;
		}
	}
}
