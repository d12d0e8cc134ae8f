/* dc_names.c — buckets (by name) and code locations (by instruction). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

#include "core/util.h"
#include "engine/valgrind/dc_tool.h"

const char *const dc_kind_name[DC_K_NKINDS] = {
	"global", "heap", "user", "stack", "mmap", "unknown"
};

struct loc {
	Addr ip;
	HChar *object, *fn, *file;
	UInt line;
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

const HChar *dc_basename(const HChar *path)
{
	const HChar *b = path;
	for (const HChar *p = path; *p; p++)
		if (*p == '/')
			b = p + 1;
	return b;
}

const HChar *dc_fn_name(Addr ip)
{
	const HChar *fn;
	DiEpoch ep = VG_(current_DiEpoch)();

	if (!VG_(get_fnname)(ep, ip, &fn))
		return "";
	return fn;
}

/* Names are resolved when a location is first used, while the code's
 * debug information is certainly still loaded. */
UInt dc_loc_get(Addr ip)
{
	ULong i;
	struct loc *l;
	const HChar *s, *dir;
	DiEpoch ep = VG_(current_DiEpoch)();
	Bool ok;

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
	ok = VG_(get_fnname)(ep, ip, &s);
	l->fn = dup_or_empty(ok, s);
	l->line = 0;
	ok = VG_(get_filename_linenum)(ep, ip, &s, &dir, &l->line);
	l->file = dup_or_empty(ok, s);
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
		dc_raw_loc(o, id, l->ip, l->object, l->fn, l->file, l->line);
	}
}
