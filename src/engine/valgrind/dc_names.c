/* dc_names.c — buckets (by name) and code locations (by instruction).
 *
 * Notes:
 *  - A location is charged to the innermost function whose code the
 *    instruction is: with inlining, the inlined function (read from the
 *    DWARF inline information, which the tool turns on), and the location
 *    records the function it was inlined into.  A function's entry
 *    instruction always counts for the function itself, so call arcs
 *    name their callee.
 *  - Source files are recorded with their directory (DWARF's directory +
 *    file name), so two util.c in different folders stay apart and exports
 *    can be annotated from anywhere.
 *  - Inline chains are resolved when a location or an allocation site is
 *    first seen, never per access.
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

const char *const dc_kind_name[DC_K_NKINDS] = {
	"global", "heap", "user", "stack", "mmap", "unknown", "tool"
};

struct loc {
	Addr ip;
	HChar *object, *fn, *file, *inl;   /* inl: the function fn was inlined into */
	UInt line;
	/* Inlined code (inl not empty): the function compiled and the file
	 * and line of the outermost inlined call in it. */
	HChar *outer_fn, *outer_file;
	UInt outer_line;
};

static struct dc_bucket *buckets;
static UInt nbuckets, bucket_cap;
static UInt *bucket_slots;          /* id + 1, 0 = empty */
static UInt bucket_slot_cap;

static struct loc *locs;
static UInt nlocs, loc_cap;
static UInt *loc_slots;
static UInt loc_slot_cap;

static ULong str_hash(const HChar *s)
{
	ULong h = 1469598103934665603ULL;
	while (*s)
		h = (h ^ (UChar)*s++) * 1099511628211ULL;
	return h;
}

void dc_names_init(void)
{
	bucket_slot_cap = 1024;
	bucket_slots = VG_(calloc)("dc.names.bslots", bucket_slot_cap, sizeof(UInt));
	loc_slot_cap = 4096;
	loc_slots = VG_(calloc)("dc.names.lslots", loc_slot_cap, sizeof(UInt));
}

static void bucket_rehash(void)
{
	UInt cap = bucket_slot_cap * 2;
	UInt *s = VG_(calloc)("dc.names.bslots", cap, sizeof(UInt));

	for (UInt id = 0; id < nbuckets; id++) {
		ULong i = str_hash(buckets[id].name) & (cap - 1);
		while (s[i])
			i = (i + 1) & (cap - 1);
		s[i] = id + 1;
	}
	VG_(free)(bucket_slots);
	bucket_slots = s;
	bucket_slot_cap = cap;
}

/* Buckets are keyed by name alone: two globals that end up with the same
 * name, or heap paths that name alike, share a bucket, as in Cache Scope. */
UInt dc_bucket_get(const HChar *name, UChar kind)
{
	ULong i;
	struct dc_bucket *b;

	if ((nbuckets + 1) * 2 > bucket_slot_cap)
		bucket_rehash();
	i = str_hash(name) & (bucket_slot_cap - 1);
	while (bucket_slots[i]) {
		UInt id = bucket_slots[i] - 1;
		if (VG_(strcmp)(buckets[id].name, name) == 0)
			return id;
		i = (i + 1) & (bucket_slot_cap - 1);
	}
	if (nbuckets == bucket_cap) {
		bucket_cap = bucket_cap ? 2 * bucket_cap : 256;
		buckets = VG_(realloc)("dc.names.buckets", buckets, bucket_cap * sizeof *buckets);
	}
	b = &buckets[nbuckets];
	VG_(memset)(b, 0, sizeof *b);
	b->name = VG_(strdup)("dc.names.bname", name);
	b->kind = kind;
	bucket_slots[i] = nbuckets + 1;
	return nbuckets++;
}

struct dc_bucket *dc_bucket_at(UInt id)
{
	return &buckets[id];
}

UInt dc_bucket_count(void)
{
	return nbuckets;
}

void dc_bucket_add_block(UInt bucket, ULong size)
{
	struct dc_bucket *b = &buckets[bucket];

	if (!b->blocks || size < b->min_size)
		b->min_size = size;
	if (size > b->max_size)
		b->max_size = size;
	b->blocks++;
	b->total_bytes += size;
	b->live++;
	b->live_bytes += size;
	if (b->live > b->max_live)
		b->max_live = b->live;
	if (b->live_bytes > b->max_live_bytes)
		b->max_live_bytes = b->live_bytes;
}

void dc_bucket_drop_block(UInt bucket, ULong size)
{
	struct dc_bucket *b = &buckets[bucket];

	b->live--;
	b->live_bytes -= size;
}

static void loc_rehash(void)
{
	UInt cap = loc_slot_cap * 2;
	UInt *s = VG_(calloc)("dc.names.lslots", cap, sizeof(UInt));

	for (UInt id = 0; id < nlocs; id++) {
		ULong i = dc_hash64(locs[id].ip) & (cap - 1);
		while (s[i])
			i = (i + 1) & (cap - 1);
		s[i] = id + 1;
	}
	VG_(free)(loc_slots);
	loc_slots = s;
	loc_slot_cap = cap;
}

static HChar *dup_or_empty(Bool ok, const HChar *s)
{
	return VG_(strdup)("dc.names.str", ok && s ? s : "");
}

const HChar *dc_fn_name(Addr ip)
{
	const HChar *fn;
	DiEpoch ep = VG_(current_DiEpoch)();

	if (!VG_(get_fnname)(ep, ip, &fn))
		return "";
	return fn;
}

/* Copies [s, e) into buf (NUL-terminated, cut to len). */
static void copy_span(HChar *buf, SizeT len, const HChar *s, const HChar *e)
{
	SizeT n = 0;

	while (s < e && n + 1 < len)
		buf[n++] = *s++;
	buf[n] = 0;
}

/* One line of VG_(describe_IP): "0x...: FN (FILE:LINE)", "0x...: FN (in
 * OBJ)" or "0x...: FN"; FN is "???" when unknown. */
static void parse_described(const HChar *d, struct dc_iframe *f)
{
	const HChar *s = VG_(strstr)(d, ": "), *end, *open = NULL, *colon = NULL;

	s = s ? s + 2 : d;
	end = s + VG_(strlen)(s);
	if (end > s && end[-1] == ')')
		for (const HChar *p = s; p + 1 < end; p++)
			if (p[0] == ' ' && p[1] == '(')
				open = p;
	copy_span(f->fn, sizeof f->fn, s, open ? open : end);
	if (VG_(strcmp)(f->fn, "???") == 0)
		f->fn[0] = 0;
	f->file[0] = 0;
	f->line = 0;
	if (!open || VG_(strncmp)(open + 2, "in ", 3) == 0)
		return;
	for (const HChar *p = open + 2; p < end - 1; p++)
		if (*p == ':')
			colon = p;
	if (!colon)
		return;
	copy_span(f->file, sizeof f->file, open + 2, colon);
	for (const HChar *p = colon + 1; p < end - 1 && *p >= '0' && *p <= '9'; p++)
		f->line = f->line * 10 + (UInt)(*p - '0');
}

/* The directory and file of ip's line as one path. */
static Bool src_path(Addr ip, HChar *buf, SizeT len, UInt *line)
{
	const HChar *file, *dir;

	*line = 0;
	buf[0] = 0;
	if (!VG_(get_filename_linenum)(VG_(current_DiEpoch)(), ip, &file, &dir, line))
		return False;
	/* A relative directory (a library's build tree, not joined with
	 * its compilation directory) adds nothing a reader could open. */
	if (dir && dir[0] == '/' && file[0] != '/')
		VG_(snprintf)(buf, len, "%s/%s", dir, file);
	else
		VG_(snprintf)(buf, len, "%s", file);
	return True;
}

/* Names without their symbol versions, as finalize writes them. */
static Bool same_fn(const HChar *a, const HChar *b)
{
	SizeT n = dc_sym_name_len(a, VG_(strlen)(a));

	return n == dc_sym_name_len(b, VG_(strlen)(b)) && VG_(strncmp)(a, b, n) == 0;
}

/* A frame of a function directly inside a frame of the same function
 * is one frame: GCC's partial inlining (ipa-split) inlines a function's
 * split-off body back into the function, and DWARF then has the function
 * inlined into itself, called from its own declaration line.  The inner
 * frame, the one with the instruction's line, stays (docs/engine.md,
 * "Code locations"; natsym's dwsym.c does the same).  Names compare
 * without their symbol versions, which finalize drops.  Frames are
 * taken as they come, so the last one kept is the outermost however long
 * the chain. */
UInt dc_inline_frames(Addr ip, struct dc_iframe *f, UInt max, struct dc_iframe *outer)
{
	static struct dc_iframe t, last;   /* 5 KB each: off the tool's stack */
	DiEpoch ep = VG_(current_DiEpoch)();
	InlIPCursor *iipc = VG_(new_IIPC)(ep, ip);
	UInt n = 0, kept = 0;

	do {
		parse_described(VG_(describe_IP)(ep, ip, iipc), &t);
		if (kept && t.fn[0] && same_fn(t.fn, last.fn))
			continue;
		last = t;
		kept++;
		if (n < max)
			f[n++] = t;
	} while (VG_(next_IIPC)(iipc));
	if (iipc)
		VG_(delete_IIPC)(iipc);
	if (!n) {
		f[0].fn[0] = f[0].file[0] = 0;
		f[0].line = 0;
		last = f[0];
		n = 1;
	}
	/* The innermost frame's source with its directory, from the line
	 * table itself (describe_IP prints a directory only with
	 * --fullpath-after). */
	src_path(ip, f[0].file, sizeof f[0].file, &f[0].line);
	if (outer)
		*outer = kept > 1 ? last : f[0];
	return n;
}

/* An outer frame's file as src_path records the innermost one's:
 * describe_IP prints it under its directory, and a relative directory
 * (a library's build tree) adds nothing a reader could open, so a
 * relative path keeps its file name alone. */
static const HChar *outer_path(const HChar *file)
{
	const HChar *slash = VG_(strrchr)(file, '/');

	return file[0] == '/' || !slash ? file : slash + 1;
}

/* Names are resolved when a location is first used, while the code's
 * debug information is certainly still loaded. */
UInt dc_loc_get(Addr ip)
{
	ULong i;
	struct loc *l;
	const HChar *s;
	DiEpoch ep = VG_(current_DiEpoch)();
	Bool ok;
	HChar path[1024];
	struct dc_iframe fr[2];
	static struct dc_iframe outer;     /* off the tool's stack */

	if ((nlocs + 1) * 2 > loc_slot_cap)
		loc_rehash();
	i = dc_hash64(ip) & (loc_slot_cap - 1);
	while (loc_slots[i]) {
		UInt id = loc_slots[i] - 1;
		if (locs[id].ip == ip)
			return id;
		i = (i + 1) & (loc_slot_cap - 1);
	}
	if (nlocs == loc_cap) {
		loc_cap = loc_cap ? 2 * loc_cap : 1024;
		locs = VG_(realloc)("dc.names.locs", locs, loc_cap * sizeof *locs);
	}
	l = &locs[nlocs];
	l->ip = ip;
	ok = VG_(get_objname)(ep, ip, &s);
	l->object = dup_or_empty(ok, s);
	/* Code inlined here counts for the inlined function, except at a
	 * function's entry, which always belongs to the function. */
	if (!VG_(get_fnname_if_entry)(ep, ip, &s) && dc_inline_frames(ip, fr, 2, &outer) > 1 &&
	    fr[0].fn[0]) {
		l->fn = VG_(strdup)("dc.names.str", fr[0].fn);
		l->inl = VG_(strdup)("dc.names.str", fr[1].fn);
		/* The function compiled, named as code not inlined is. */
		ok = VG_(get_fnname)(ep, ip, &s);
		l->outer_fn = dup_or_empty(ok, s);
		l->outer_file = VG_(strdup)("dc.names.str", outer_path(outer.file));
		l->outer_line = outer.line;
	} else {
		ok = VG_(get_fnname)(ep, ip, &s);
		l->fn = dup_or_empty(ok, s);
		l->inl = dup_or_empty(False, NULL);
		l->outer_fn = l->outer_file = NULL;
		l->outer_line = 0;
	}
	ok = src_path(ip, path, sizeof path, &l->line);
	l->file = dup_or_empty(ok, path);
	loc_slots[i] = nlocs + 1;
	return nlocs++;
}

void dc_names_dump(struct dc_rawout *o)
{
	for (UInt id = 0; id < nbuckets; id++) {
		struct dc_bucket *b = &buckets[id];
		dc_raw_bucket(o, id, dc_kind_name[b->kind], b->name);
		if (b->blocks)
			dc_raw_bstat(o, id, b->blocks, b->max_live, b->max_live_bytes,
				     b->total_bytes, b->min_size, b->max_size);
	}
	for (UInt id = 0; id < nlocs; id++) {
		struct loc *l = &locs[id];
		struct dc_raw_outer out = { l->outer_fn, l->outer_file, l->outer_line };

		dc_raw_loc(o, id, l->ip, l->object, l->fn, l->inl, l->file, l->line,
			   l->outer_fn ? &out : NULL);
	}
}
