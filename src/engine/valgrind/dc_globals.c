/* dc_globals.c — globals and thread-local variables from ELF symbol
 * tables, and memory the program maps.
 *
 * Notes:
 *  - ELF objects ("modules": the program, ld.so, shared libraries) are
 *    found from the mappings themselves, not from Valgrind's debug
 *    information: Valgrind 3.19 gives up on a whole object when a PT_LOAD
 *    segment lies outside its file mappings, as a .bss the linker put in a
 *    segment of its own (no file bytes) does, and would leave every global
 *    of it <unknown>.  A file mapping at file offset 0 of an ELF executable
 *    or shared object is a candidate; its load bias is the mapping's
 *    address less the page of its first PT_LOAD (0 for ET_EXEC).  It
 *    becomes a module when another segment of the same file (device,
 *    inode) is mapped where that bias puts it — ld.so maps a library
 *    whole, then each segment over it —, at once when it has a single
 *    segment with file bytes, and at once when Valgrind mapped it at start
 *    (the program, ld.so).  A program that maps an ELF file to read it
 *    makes no module.
 *  - Every module's symbol table is read by the core's elfsym reader; each
 *    data symbol with a size becomes a global object and its own bucket
 *    (seeds/002 §4.3.1) at st_value plus the bias, whichever segment holds
 *    it: .data, .bss (also alone in a segment), .rodata, .data.rel.ro.
 *  - Names: the symbol name; a file-static whose name occurs more than once
 *    in the object gets " (file.c)"; objects of anything but the main
 *    program get "@soname" (DT_SONAME, else the file's name).  Aliases
 *    (two names, one address) keep the first name met.  The main program
 *    is the module Valgrind mapped at start that asks for an interpreter
 *    (PT_INTERP) or has the program's file name.
 *  - Thread-local variables (STT_TLS) are buckets too, named the same way;
 *    each thread's copy is an object of the bucket (and a block in its
 *    statistics).  A thread's copies are added when it runs with its
 *    thread pointer (the guest's FS base) set or moved, and removed when
 *    it exits.  A copy lies at tp - offset + st_value, offset being where
 *    glibc puts the module's block in the static TLS area
 *    (dc_elfsym_tls_place).  The static modules are those known when the
 *    first thread pointer is seen (ld.so sets it after loading the
 *    program's libraries); a library loaded later (dlopen) gets a block
 *    glibc allocates on first use, which dcprof does not find: its
 *    thread-local variables stay in the mapping or <unknown>.  The block
 *    of a new thread is filled (initial image, zeros) by the thread that
 *    creates it, before the new thread exists: those accesses count for
 *    the mapping holding it.
 *  - glibc puts a thread's static TLS area just above its initial stack
 *    pointer, and Valgrind's stack bounds for the thread reach up to the
 *    next page, into that area: dc_tls_thread_run ends the stack below it.
 *  - Memory the program maps (mmap) becomes a region, looked up only when
 *    no object contains an address: anonymous memory is bucket
 *    "<mmap:f-g-h>", named after the code that mapped it; a file mapping is
 *    "<file:NAME>" — for shared libraries that is their data not covered by
 *    a symbol (string constants, tables of the library's own) —, except
 *    Valgrind's and dcprof's preloads, which are "<valgrind>" (kind tool).
 *  - munmap removes every object that starts inside the unmapped range,
 *    and every module whose span starts there.
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "libvex_guest_amd64.h"

#include "core/elfsym.h"
#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

#define PAGE_DOWN(x) ((x) & ~(ULong)4095)

/* dc_obj.flags of a DC_K_GLOBAL object: one thread's copy of a
 * thread-local variable. */
#define TLS_COPY 1

struct tlsvar {
	HChar *name;
	ULong off, size;          /* st_value (offset in the block), st_size */
	UInt bucket;              /* ~0u until the first copy */
};

enum { M_PENDING, M_READY, M_SCANNED };

struct module {
	ULong dev, ino;
	HChar *path;
	Addr bias, lo, hi;        /* the loaded span */
	struct dc_elfimage im;
	UChar state;              /* candidate, module, symbols read */
	Bool startup, main;
	Bool tls_static;          /* its TLS block is in the static area ... */
	ULong tls_off;            /* ... this far below the thread pointer */
	struct tlsvar *tv;
	UInt ntv, tv_cap;
};
static struct module *mods;
static UInt nmods, mods_cap;

struct tls_copy {
	struct dc_obj *o;
	UInt gen;                 /* o is still this copy while o->gen == gen */
};
struct tls_thread {
	Addr tp;                  /* the thread pointer its copies are for */
	struct tls_copy *c;
	UInt n, cap;
};
static struct tls_thread *tth;    /* VG_N_THREADS of them */
static Bool tls_laid_out;
static ULong tls_span;            /* the static blocks' extent below tp */

/* Valgrind's preloaded objects (vgpreload_core; dcprof has none of its
 * own): the dynamic linker reads and relocates them at start-up, real accesses (Cachegrind counts them too), but to the tool's
 * data, not the program's: they all go to one bucket, <valgrind>. */
static Bool is_tool_file(const HChar *path)
{
	return VG_(strncmp)(dc_path_base(path), "vgpreload_", 10) == 0;
}

static Int open_file(const HChar *path, SizeT *size)
{
	SysRes sr = VG_(open)(path, VKI_O_RDONLY, 0);
	struct vg_stat st;
	Int fd;

	if (sr_isError(sr))
		return -1;
	fd = (Int)sr_Res(sr);
	if (VG_(fstat)(fd, &st) != 0 || st.size <= 0 || st.size > (1LL << 31)) {
		VG_(close)(fd);
		return -1;
	}
	*size = (SizeT)st.size;
	return fd;
}

static Bool read_all(Int fd, UChar *buf, SizeT size)
{
	SizeT got = 0;

	while (got < size) {
		Int n = VG_(read)(fd, buf + got, (Int)(size - got > (1 << 24) ? (1 << 24)
								   : size - got));
		if (n <= 0)
			return False;
		got += (SizeT)n;
	}
	return True;
}

static UChar *read_file(const HChar *path, SizeT *len)
{
	SizeT size;
	Int fd = open_file(path, &size);
	UChar *buf;

	if (fd < 0)
		return NULL;
	buf = VG_(malloc)("dc.globals.elf", size);
	if (!read_all(fd, buf, size)) {
		VG_(close)(fd);
		VG_(free)(buf);
		return NULL;
	}
	VG_(close)(fd);
	*len = size;
	return buf;
}

/* The program headers of an ELF file, read from its first bytes only: most
 * file mappings (locale archives, caches, data) are not ELF at all. */
static Bool read_phdrs(const HChar *path, struct dc_elfimage *im)
{
	UChar head[1024], *buf = head;
	SizeT size, want = sizeof head, need = 0;
	Int fd = open_file(path, &size);
	int rc;

	if (fd < 0)
		return False;
	if (want > size)
		want = size;
	if (!read_all(fd, head, want)) {
		VG_(close)(fd);
		return False;
	}
	rc = dc_elfsym_phdrs(head, want, im, &need);
	if (rc == DC_ERANGE && need <= size && need <= (1 << 20)) {
		buf = VG_(malloc)("dc.globals.phdrs", need);
		if (VG_(lseek)(fd, 0, VKI_SEEK_SET) == 0 && read_all(fd, buf, need))
			rc = dc_elfsym_phdrs(buf, need, im, &need);
		VG_(free)(buf);
	}
	VG_(close)(fd);
	return rc == 0;
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
	struct module *m;
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
	UWord i = nc_slot(&sc->nc, s->name);

	sc->nc.names[i] = s->name;
	sc->nc.counts[i]++;
	return 0;
}

static void add_tlsvar(struct module *m, const HChar *name, const struct dc_elfsym *s)
{
	if (m->ntv == m->tv_cap) {
		m->tv_cap = m->tv_cap ? 2 * m->tv_cap : 8;
		m->tv = VG_(realloc)("dc.globals.tls", m->tv, m->tv_cap * sizeof *m->tv);
	}
	m->tv[m->ntv].name = VG_(strdup)("dc.globals.tls", name);
	m->tv[m->ntv].off = s->value;
	m->tv[m->ntv].size = s->size;
	m->tv[m->ntv].bucket = ~0u;
	m->ntv++;
}

static int register_cb(void *ud, const struct dc_elfsym *s)
{
	struct scan *sc = ud;
	HChar name[DC_FN_NAME_MAX], sym[DC_FN_NAME_MAX];
	struct dc_obj *o;
	Addr lo = (Addr)s->value + sc->m->bias;

	/* name_len leaves a symbol version out (Valgrind's printf has no %.*s) */
	VG_(strncpy)(sym, s->name, sizeof sym);
	sym[s->name_len < sizeof sym ? s->name_len : sizeof sym - 1] = 0;
	if (!s->global && s->file && sc->nc.counts[nc_slot(&sc->nc, s->name)] > 1)
		VG_(snprintf)(name, sizeof name, "%s (%s)%s", sym, s->file, sc->suffix);
	else
		VG_(snprintf)(name, sizeof name, "%s%s", sym, sc->suffix);
	if (s->tls) {
		add_tlsvar(sc->m, name, s);
		return 0;
	}
	/* An alias of a registered global (environ, __environ) keeps the
	 * first name and gets no bucket of its own. */
	dc_objs_settle();
	if (dc_objmap_find(&dc.objs, lo))
		return 0;
	o = dc_objmap_new(&dc.objs);
	if (!o)
		return 0;
	o->lo = lo;
	o->hi = lo + s->size;
	o->alloc_size = s->size;
	o->kind = DC_K_GLOBAL;
	o->bucket = dc_bucket_get(name, DC_K_GLOBAL);
	if (dc_objs_insert(o) != 0) {
		dc_objmap_discard(&dc.objs, o);
		return 0;
	}
	dc_bucket_add_block(o->bucket, s->size);
	return 0;
}

static void register_globals(struct module *m)
{
	HChar suffix[256];
	const HChar *soname;
	struct scan sc;
	UChar *img;
	SizeT len;

	/* Valgrind's own preloads are not the program's: their data is all
	 * <valgrind> (add_region). */
	if (is_tool_file(m->path))
		return;
	img = read_file(m->path, &len);
	if (!img)
		return;
	VG_(memset)(&sc, 0, sizeof sc);
	sc.m = m;
	soname = dc_elfsym_soname(img, len);
	if (m->main)
		suffix[0] = 0;
	else
		VG_(snprintf)(suffix, sizeof suffix, "@%s", soname ? soname : dc_path_base(m->path));
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

/* ---- modules ------------------------------------------------------------ */

static void module_ready(struct module *m)
{
	const HChar *exe = VG_(args_the_exename);

	m->state = M_READY;
	m->main = m->startup &&
		  (m->im.interp ||
		   (exe && VG_(strcmp)(dc_path_base(m->path), dc_path_base(exe)) == 0));
	dc.debuginfo_dirty = True;
}

static void module_forget(struct module *m)
{
	for (UInt i = 0; i < m->ntv; i++)
		VG_(free)(m->tv[i].name);
	VG_(free)(m->tv);
	VG_(free)(m->path);
	/* keep the order: it is the order glibc numbers TLS modules in */
	VG_(memmove)(m, m + 1, (SizeT)(mods + nmods - (m + 1)) * sizeof *m);
	nmods--;
}

/* A mapping of a file at offset 0: the start of a module if the file is an
 * ELF object and the mapping sits where its first segment goes. */
static void module_candidate(Addr a, const NSegment *seg, Bool startup)
{
	const HChar *path = VG_(am_get_filename)(seg);
	struct dc_elfimage im;
	struct module *m;
	Addr bias;
	UInt with_bytes = 0;

	if (!path || !read_phdrs(path, &im) || PAGE_DOWN(im.load[0].offset) != 0)
		return;
	bias = a - PAGE_DOWN(im.load[0].vaddr);
	if (im.type == DC_ET_EXEC && bias != 0)
		return;
	for (UInt i = 0; i < nmods; i++)
		if (mods[i].dev == seg->dev && mods[i].ino == seg->ino && mods[i].bias == bias)
			return;
	if (nmods == mods_cap) {
		mods_cap = mods_cap ? 2 * mods_cap : 16;
		mods = VG_(realloc)("dc.globals.mods", mods, mods_cap * sizeof *mods);
	}
	m = &mods[nmods++];
	VG_(memset)(m, 0, sizeof *m);
	m->dev = seg->dev;
	m->ino = seg->ino;
	m->path = VG_(strdup)("dc.globals.path", path);
	m->bias = bias;
	m->im = im;
	m->lo = bias + im.span_lo;
	m->hi = bias + im.span_hi;
	m->startup = startup;
	m->state = M_PENDING;
	for (UInt k = 0; k < im.nload; k++)
		with_bytes += im.load[k].filesz > 0;
	if (startup || with_bytes <= 1)
		module_ready(m);
}

/* A mapping of a file at offset off: a candidate's later segment? */
static void module_confirm(Addr a, const NSegment *seg, ULong off)
{
	for (UInt i = 0; i < nmods; i++) {
		struct module *m = &mods[i];
		if (m->state != M_PENDING || m->dev != seg->dev || m->ino != seg->ino)
			continue;
		for (UInt k = 1; k < m->im.nload; k++) {
			const struct dc_elfseg *g = &m->im.load[k];
			if (g->filesz && PAGE_DOWN(g->offset) == off &&
			    m->bias + PAGE_DOWN(g->vaddr) == a) {
				module_ready(m);
				break;
			}
		}
	}
}

/* Valgrind may have merged the new mapping with a neighbour of the same
 * file, so a's file offset is computed from the segment holding it. */
static void module_mapped(Addr a, Bool startup)
{
	NSegment const *seg = VG_(am_find_nsegment)(a);
	ULong off;

	if (!seg || seg->kind != SkFileC)
		return;
	off = (ULong)seg->offset + (a - seg->start);
	if (off == 0)
		module_candidate(a, seg, startup);
	else
		module_confirm(a, seg, off);
}

void dc_globals_scan(void)
{
	dc.debuginfo_dirty = False;
	for (UInt i = 0; i < nmods; i++) {
		if (mods[i].state == M_READY) {
			mods[i].state = M_SCANNED;
			register_globals(&mods[i]);
		}
	}
}

/* ---- thread-local variables ---------------------------------------------- */

/* glibc numbers TLS modules: the program 1, then the libraries in the order
 * it loaded them (mapped them), and places their blocks in that order. */
static void tls_layout(void)
{
	struct dc_elftls st;

	VG_(memset)(&st, 0, sizeof st);
	tls_laid_out = True;
	for (Int pass = 0; pass < 2; pass++) {
		for (UInt i = 0; i < nmods; i++) {
			struct module *m = &mods[i];
			if (m->main != (pass == 0) || m->state == M_PENDING || !m->im.tls)
				continue;
			m->tls_static = True;
			m->tls_off = dc_elfsym_tls_place(&st, m->im.tls_seg.memsz,
							 m->im.tls_seg.align, m->im.tls_seg.vaddr);
			if (m->tls_off > tls_span)
				tls_span = m->tls_off;
		}
	}
}

static void tls_drop(ThreadId tid)
{
	struct tls_thread *t = &tth[tid];

	dc_objs_settle();
	for (UInt i = 0; i < t->n; i++) {
		struct dc_obj *o = t->c[i].o;
		if (!o->live || o->gen != t->c[i].gen)
			continue;   /* gone with an munmap already */
		dc_bucket_drop_block(o->bucket, o->alloc_size);
		dc_objmap_remove(&dc.objs, o);
	}
	if (t->n)
		dc_objs_changed();
	t->n = 0;
	t->tp = 0;
}

static void tls_add(ThreadId tid, Addr tp)
{
	struct tls_thread *t = &tth[tid];

	t->tp = tp;
	for (UInt i = 0; i < nmods; i++) {
		struct module *m = &mods[i];
		if (!m->tls_static || m->state != M_SCANNED)
			continue;
		for (UInt k = 0; k < m->ntv; k++) {
			struct tlsvar *v = &m->tv[k];
			struct dc_obj *o;
			if (v->off > m->im.tls_seg.memsz || v->size > m->im.tls_seg.memsz - v->off)
				continue;   /* not inside the block */
			if (v->bucket == ~0u)
				v->bucket = dc_bucket_get(v->name, DC_K_GLOBAL);
			o = dc_objmap_new(&dc.objs);
			if (!o)
				return;
			o->lo = tp - m->tls_off + v->off;
			o->hi = o->lo + v->size;
			o->alloc_size = v->size;
			o->kind = DC_K_GLOBAL;
			o->flags = TLS_COPY;
			o->bucket = v->bucket;
			if (dc_objs_insert(o) != 0) {
				dc_objmap_discard(&dc.objs, o);
				continue;
			}
			dc_bucket_add_block(o->bucket, v->size);
			if (t->n == t->cap) {
				t->cap = t->cap ? 2 * t->cap : 16;
				t->c = VG_(realloc)("dc.globals.copies", t->c, t->cap * sizeof *t->c);
			}
			t->c[t->n].o = o;
			t->c[t->n].gen = o->gen;
			t->n++;
		}
	}
}

void dc_tls_thread_run(ThreadId tid, Addr *stack_lo, Addr *stack_hi)
{
	ULong tp = 0;

	VG_(get_shadow_regs_area)(tid, (UChar *)&tp, 0,
				  offsetof(VexGuestAMD64State, guest_FS_CONST), sizeof tp);
	if (!tp)
		return;
	if (!tls_laid_out)
		tls_layout();
	if (!tth)
		tth = VG_(calloc)("dc.globals.tth", VG_N_THREADS, sizeof *tth);
	if (tth[tid].tp != tp) {
		if (dc.debuginfo_dirty)
			dc_globals_scan();
		tls_drop(tid);
		tls_add(tid, tp);
	}
	if (tls_span && *stack_lo < tp - tls_span && tp - tls_span < *stack_hi)
		*stack_hi = tp - tls_span;
}

static void tls_thread_exit(ThreadId tid)
{
	if (tth)
		tls_drop(tid);
}

void dc_globals_init(void)
{
	VG_(track_pre_thread_ll_exit)(tls_thread_exit);
}

/* ---- objects and mappings ------------------------------------------------ */

int dc_objs_insert(struct dc_obj *o)
{
	int rc;

	dc_objs_settle();
	rc = dc_objmap_insert(&dc.objs, o);
	if (rc == 0)
		dc.fallback.gen++;
	return rc;
}

/* Registers [a, a+len) as a region; anonymous memory is named after the
 * code mapping it when tid is valid. */
static void add_region(Addr a, SizeT len, ThreadId tid)
{
	HChar chain[512], name[600];
	UChar kind = DC_K_MMAP;
	struct dc_obj *o;
	NSegment const *seg = VG_(am_find_nsegment)(a);
	const HChar *file = seg && seg->kind == SkFileC ? VG_(am_get_filename)(seg) : NULL;

	if (file && is_tool_file(file)) {
		kind = DC_K_TOOL;
		VG_(snprintf)(name, sizeof name, "<valgrind>");
	} else if (file) {
		VG_(snprintf)(name, sizeof name, "<file:%s>", dc_path_base(file));
	} else if (dc_heap_in_alloc(tid)) {
		VG_(snprintf)(name, sizeof name, "<malloc>");   /* the allocator's memory */
	} else if (tid != VG_INVALID_THREADID) {
		dc_chain_at(tid, 3, False, chain, sizeof chain);
		VG_(snprintf)(name, sizeof name, "<mmap:%s>", chain);
	} else {
		return;
	}
	o = dc_objmap_new(&dc.regions);
	o->lo = a;
	o->hi = a + len;
	o->alloc_size = len;
	o->kind = kind;
	o->bucket = !file && dc_heap_in_alloc(tid) ? dc_heap_alloc_bucket() : dc_bucket_get(name, kind);
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
	module_mapped(a, False);
	if (dc.debuginfo_dirty)
		dc_globals_scan();
	if (di_handle || xx || !(rr || ww) || len == 0)
		return;
	add_region(a, len, VG_(get_running_tid)());
}

/* The program, ld.so and the initial stack are mapped before the program
 * runs; only their file mappings become regions.  Their symbols are read
 * at the first access no object holds (dc_instrument.c). */
void dc_track_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di_handle)
{
	module_mapped(a, True);
	if (!xx && (rr || ww) && len)
		add_region(a, len, VG_INVALID_THREADID);
}

static void forget_block(void *ud, struct dc_obj *o)
{
	if (o->kind == DC_K_HEAP || o->kind == DC_K_USER)
		dc_heap_block_done(o, ++dc.alloc_seq);
	else if (o->kind == DC_K_GLOBAL && (o->flags & TLS_COPY))
		dc_bucket_drop_block(o->bucket, o->alloc_size);
}

void dc_track_munmap(Addr a, SizeT len)
{
	dc_objs_settle();
	dc_objmap_remove_in(&dc.objs, a, a + len, forget_block, NULL);
	dc_objs_changed();
	dc_objmap_remove_in(&dc.regions, a, a + len, NULL, NULL);
	dc.fallback.gen++;
	for (UInt i = 0; i < nmods; i++) {
		if (mods[i].lo >= a && mods[i].lo < a + len) {
			module_forget(&mods[i]);
			i--;
		}
	}
}
