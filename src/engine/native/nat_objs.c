/* nat_objs.c — buckets, code locations, globals and regions of the native
 * runtime.
 *
 * Notes:
 *  - Globals: every ELF object the program has loaded when the runtime
 *    starts (dl_iterate_phdr: the program, its libraries, ld.so) is read
 *    with the core's ELF symbol reader; each data symbol with a size is an
 *    object and a bucket of its own at st_value plus the load bias, named
 *    as the simulator engine names them (src/engine/valgrind/dc_globals.c):
 *    the symbol; " (file.c)" for a file-static whose name occurs more than
 *    once in its object; "@soname" (DT_SONAME, else the file name) for
 *    anything but the program.  Aliases keep the first name.  Libraries
 *    opened later with dlopen are scanned when it returns (modules are
 *    known by load bias and span), and dlclose ends the globals of those
 *    gone.  Thread-local variables of the modules loaded at start are
 *    handed to nat_tls.c.
 *  - A module's data segments (PT_LOAD without PF_X) are regions named
 *    "<file:NAME>", as the simulator names a library's file mappings:
 *    data no symbol covers.  Regions (those and the program's mappings,
 *    nat_maps.c) are looked up only where no object is, and are not
 *    blocks: no statistics.
 *  - Objects in lookup order: the object map (globals, thread-local
 *    copies, heap blocks above 1 KiB), the compact block map (smaller heap
 *    blocks), regions, thread stacks, the brk heap.
 *  - Heap buckets are keyed by their call path (nat_bucket_path) and
 *    written with the name "-" and an hpath record: dcprof finalize names
 *    them with the simulator engine's rules.
 *  - Thread stacks (pthread_getattr_np at the thread's start) are one
 *    bucket, <stack>.  The brk heap, from the kernel's start_brk to the
 *    current break, is <malloc> where no block covers it (chunk headers,
 *    free chunks, the top chunk: the allocator's memory, as the simulator
 *    names it; kind heap, no blocks).  Any other address is <unknown>.
 *  - Code locations are instruction addresses only; finalize symbolises
 *    them from the map records (docs/raw-dump.md).
 */
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/elfsym.h"
#include "core/util.h"
#include "engine/native/nat.h"

static void *xalloc(size_t n)
{
	void *p = nat_zalloc(n);

	if (!p)
		abort();
	return p;
}

/* Where the kernel started the brk heap: start_brk, field 47 of
 * /proc/self/stat (proc(5)); fields are counted after the command's
 * closing parenthesis, as the command may hold blanks.  Without it, the
 * break at start: the heap grown later is still covered. */
static uint64_t brk_start(void)
{
	char buf[1024];
	char *p, *end;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 3;
	uint64_t v;

	if (fd < 0)
		return (uint64_t)(uintptr_t)sbrk(0);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	if (!p)
		return (uint64_t)(uintptr_t)sbrk(0);
	for (p++; *p && field < 47; field += *p++ == ' ')
		;
	v = strtoull(p, &end, 10);
	return end != p && v ? v : (uint64_t)(uintptr_t)sbrk(0);
}

void nat_objs_init(void)
{
	if (dc_objmap_init(&nat.objs, &nat_env) || dc_objmap_init(&nat.regions, &nat_env) ||
	    dc_blockmap_init(&nat.blocks, &nat_env) ||
	    dc_blockset_init(&nat.touched, &nat_env) ||
	    dc_rectab_init(&nat.ftouch, &nat_env, sizeof(struct nat_ftouch), 12, "nat.ftouch") ||
	    dc_rectab_init(&nat.ipsamp, &nat_env, sizeof(struct nat_ipsamp), 8, "nat.ipsamp") ||
	    dc_costtab_init(&nat.scosts, &nat_env))
		abort();
	nat.stack_bucket = nat_bucket_get("<stack>", NAT_K_STACK);
	nat.unknown_bucket = nat_bucket_get("<unknown>", NAT_K_UNKNOWN);
	nat.malloc_bucket = nat_bucket_get("<malloc>", NAT_K_HEAP);
	nat.brk_lo = brk_start();
}

/* ---- buckets ----------------------------------------------------------- */

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return dc_hash64(h);
}

/* A call path's key: a word at a time, as paths are interned at every
 * allocation (the bucket table is the cache of call paths). */
static uint64_t hash_path(const uint64_t *path, uint32_t n)
{
	uint64_t h = n;

	for (uint32_t i = 0; i < n; i++)
		h = dc_hash64(h ^ path[i]);
	return h;
}

static void slots_grow(void)
{
	uint32_t cap = nat.bucket_slot_cap ? 2 * nat.bucket_slot_cap : 1024;
	uint32_t *s = xalloc(cap * sizeof *s);

	for (uint32_t i = 0; i < nat.nbuckets; i++) {
		const struct nat_bucket *b = &nat.buckets[i];
		uint64_t h = b->npath ? hash_path(b->path, b->npath)
				      : hash_bytes(b->name, strlen(b->name));
		uint32_t j = (uint32_t)h & (cap - 1);
		while (s[j])
			j = (j + 1) & (cap - 1);
		s[j] = i + 1;
	}
	__libc_free(nat.bucket_slots);
	nat.bucket_slots = s;
	nat.bucket_slot_cap = cap;
}

static uint32_t bucket_new(const char *name, enum nat_kind kind, const uint64_t *path,
			   uint32_t n)
{
	struct nat_bucket *b;

	if (nat.nbuckets == nat.bucket_cap) {
		uint32_t cap = nat.bucket_cap ? 2 * nat.bucket_cap : 256;
		void *p = nat_realloc(nat.buckets, cap * sizeof *nat.buckets);
		if (!p)
			abort();
		nat.buckets = p;
		nat.bucket_cap = cap;
	}
	b = &nat.buckets[nat.nbuckets];
	memset(b, 0, sizeof *b);
	b->name = xalloc(strlen(name) + 1);
	strcpy(b->name, name);
	b->kind = (uint8_t)kind;
	if (n) {
		b->path = xalloc(n * sizeof *path);
		memcpy(b->path, path, n * sizeof *path);
		b->npath = n;
	}
	b->min_size = UINT64_MAX;
	return nat.nbuckets++;
}

static uint32_t bucket_find(const char *name, enum nat_kind kind, const uint64_t *path,
			    uint32_t n)
{
	uint64_t h = n ? hash_path(path, n) : hash_bytes(name, strlen(name));
	uint32_t j, id;

	if (2 * (nat.nbuckets + 1) > nat.bucket_slot_cap)
		slots_grow();
	for (j = (uint32_t)h & (nat.bucket_slot_cap - 1); nat.bucket_slots[j];
	     j = (j + 1) & (nat.bucket_slot_cap - 1)) {
		const struct nat_bucket *b = &nat.buckets[nat.bucket_slots[j] - 1];
		if (b->kind == kind && (n ? b->npath == n && !memcmp(b->path, path, n * 8)
					  : !b->npath && !strcmp(b->name, name)))
			return nat.bucket_slots[j] - 1;
	}
	id = bucket_new(name, kind, path, n);
	nat.bucket_slots[j] = id + 1;
	return id;
}

uint32_t nat_bucket_get(const char *name, enum nat_kind kind)
{
	return bucket_find(name, kind, NULL, 0);
}

uint32_t nat_bucket_path(enum nat_kind kind, const uint64_t *path, uint32_t n)
{
	static const uint64_t none = 0;

	/* an empty path (nothing unwound) still needs a key */
	return n ? bucket_find("-", kind, path, n) : bucket_find("-", kind, &none, 1);
}

void nat_bucket_add_block(uint32_t id, uint64_t size)
{
	struct nat_bucket *b = &nat.buckets[id];

	b->blocks++;
	b->live++;
	b->live_bytes += size;
	b->total_bytes += size;
	if (b->live > b->max_live)
		b->max_live = b->live;
	if (b->live_bytes > b->max_live_bytes)
		b->max_live_bytes = b->live_bytes;
	if (size < b->min_size)
		b->min_size = size;
	if (size > b->max_size)
		b->max_size = size;
}

void nat_bucket_drop_block(uint32_t id, uint64_t size)
{
	struct nat_bucket *b = &nat.buckets[id];

	if (b->live)
		b->live--;
	b->live_bytes = b->live_bytes >= size ? b->live_bytes - size : 0;
}

uint32_t nat_bucket_at(uint64_t addr, uint64_t *seq)
{
	struct dc_objmap_ent e;
	struct dc_blockmap_ent b;

	*seq = 0;
	if (dc_objmap_lookup(&nat.objs, addr, &e)) {
		*seq = e.o->alloc_seq + 1;
		return e.bucket;
	}
	if (dc_blockmap_lookup(&nat.blocks, addr, &b)) {
		*seq = nat_small_ident(b.lo);
		return b.bucket;
	}
	if (dc_objmap_lookup(&nat.regions, addr, &e)) {
		/* mappings count apart from allocation events: their own range */
		*seq = (e.o->alloc_seq + 1) | 1ULL << 63;
		return e.bucket;
	}
	for (uint32_t i = 0; i < nat.nthreads; i++) {
		const struct nat_thread *t = nat.threads[i];
		if (addr >= t->stack_lo && addr < t->stack_hi)
			return nat.stack_bucket;
	}
	/* the allocator's memory no block covers: chunk headers, free chunks
	 * (sbrk(0) only reads glibc's copy of the break) */
	if (addr >= nat.brk_lo && addr < (uint64_t)(uintptr_t)sbrk(0)) {
		*seq = NAT_MALLOC_IDENT;
		return nat.malloc_bucket;
	}
	return nat.unknown_bucket;
}

/* ---- code locations --------------------------------------------------------- */

uint32_t nat_loc_get(uint64_t ip)
{
	uint32_t j, id;

	if (2 * (nat.nlocs + 1) > nat.loc_slot_cap) {
		uint32_t cap = nat.loc_slot_cap ? 2 * nat.loc_slot_cap : 4096;
		uint32_t *s = xalloc(cap * sizeof *s);
		for (uint32_t i = 0; i < nat.nlocs; i++) {
			uint32_t k = (uint32_t)dc_hash64(nat.loc_ip[i]) & (cap - 1);
			while (s[k])
				k = (k + 1) & (cap - 1);
			s[k] = i + 1;
		}
		__libc_free(nat.loc_slots);
		nat.loc_slots = s;
		nat.loc_slot_cap = cap;
	}
	for (j = (uint32_t)dc_hash64(ip) & (nat.loc_slot_cap - 1); nat.loc_slots[j];
	     j = (j + 1) & (nat.loc_slot_cap - 1))
		if (nat.loc_ip[nat.loc_slots[j] - 1] == ip)
			return nat.loc_slots[j] - 1;
	if (nat.nlocs == nat.loc_cap) {
		uint32_t cap = nat.loc_cap ? 2 * nat.loc_cap : 1024;
		void *p = nat_realloc(nat.loc_ip, cap * sizeof *nat.loc_ip);
		if (!p)
			abort();
		nat.loc_ip = p;
		nat.loc_cap = cap;
	}
	id = nat.nlocs++;
	nat.loc_ip[id] = ip;
	nat.loc_slots[j] = id + 1;
	return id;
}

/* ---- globals ------------------------------------------------------------------ */

/* Names of the local symbols of one object, to find those met twice. */
struct names {
	const char **name;
	uint32_t *count;
	size_t cap;
};

static uint32_t *names_slot(struct names *nm, const char *s)
{
	size_t j = (size_t)hash_bytes(s, strlen(s)) & (nm->cap - 1);

	while (nm->name[j] && strcmp(nm->name[j], s))
		j = (j + 1) & (nm->cap - 1);
	nm->name[j] = s;
	return &nm->count[j];
}

struct scan {
	uint64_t bias;
	const char *suffix;
	struct names nm;
	size_t nsyms;
	uint32_t tls_mod;         /* UINT32_MAX: its thread-local variables are not followed */
};

static int count_cb(void *ud, const struct dc_elfsym *s)
{
	struct scan *sc = ud;

	if (!sc->nm.cap) {
		sc->nsyms++;
		return 0;
	}
	if (!s->global && !s->tls)
		++*names_slot(&sc->nm, s->name);
	return 0;
}

static int sym_cb(void *ud, const struct dc_elfsym *s)
{
	struct scan *sc = ud;
	struct dc_obj *o;
	char name[512];
	size_t n;

	if (!s->global && s->file && *names_slot(&sc->nm, s->name) > 1)
		n = (size_t)snprintf(name, sizeof name, "%.*s (%s)%s", (int)s->name_len, s->name,
				     s->file, sc->suffix);
	else
		n = (size_t)snprintf(name, sizeof name, "%.*s%s", (int)s->name_len, s->name,
				     sc->suffix);
	if (n >= sizeof name)
		return 0;
	if (s->tls) {
		if (sc->tls_mod != UINT32_MAX)
			nat_tls_var(sc->tls_mod, name, s->value, s->size);
		return 0;
	}
	o = dc_objmap_new(&nat.objs);
	if (!o)
		return 0;
	o->lo = sc->bias + s->value;
	o->hi = o->lo + s->size;
	o->alloc_size = s->size;
	o->kind = NAT_K_GLOBAL;
	o->live = 1;
	/* an alias of an object already there keeps the first name */
	if (dc_objmap_find(&nat.objs, o->lo) || dc_objmap_find(&nat.objs, o->hi - 1)) {
		dc_objmap_discard(&nat.objs, o);
		return 0;
	}
	o->bucket = nat_bucket_get(name, NAT_K_GLOBAL);
	if (dc_objmap_insert(&nat.objs, o)) {
		dc_objmap_discard(&nat.objs, o);
		return 0;
	}
	nat_bucket_add_block(o->bucket, s->size);
	return 0;
}

static void scan_file(const char *path, uint64_t bias, bool main_prog, uint32_t tls_mod)
{
	struct scan sc;
	struct stat st;
	const uint8_t *img;
	const char *soname, *base;
	char suffix[4200];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) || st.st_size < 64) {
		close(fd);
		return;
	}
	img = nat_sys_mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return;
	memset(&sc, 0, sizeof sc);
	sc.bias = bias;
	sc.tls_mod = tls_mod;
	suffix[0] = '\0';
	if (!main_prog) {
		soname = dc_elfsym_soname(img, (size_t)st.st_size);
		base = strrchr(path, '/');
		snprintf(suffix, sizeof suffix, "@%s", soname ? soname : base ? base + 1 : path);
	}
	sc.suffix = suffix;
	if (dc_elfsym_scan(img, (size_t)st.st_size, count_cb, &sc) == 0 && sc.nsyms) {
		sc.nm.cap = 16;
		while (sc.nm.cap < 2 * sc.nsyms)
			sc.nm.cap *= 2;
		sc.nm.name = xalloc(sc.nm.cap * sizeof *sc.nm.name);
		sc.nm.count = xalloc(sc.nm.cap * sizeof *sc.nm.count);
		dc_elfsym_scan(img, (size_t)st.st_size, count_cb, &sc);
		dc_elfsym_scan(img, (size_t)st.st_size, sym_cb, &sc);
		__libc_free(sc.nm.name);
		__libc_free(sc.nm.count);
	}
	nat_sys_munmap((void *)img, (size_t)st.st_size);
}

/* The modules scanned, by load bias and span, so a rescan (dlopen) reads
 * only new ones and a dlclose finds what went. */
struct module {
	uint64_t bias, lo, hi;
	bool seen;
};
static struct module *mods;
static uint32_t nmods, mods_cap;

static struct module *module_find(uint64_t bias, uint64_t lo)
{
	for (uint32_t i = 0; i < nmods; i++)
		if (mods[i].bias == bias && mods[i].lo == lo)
			return &mods[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

struct iter {
	bool first;               /* the next module is the program */
	bool start;               /* the scan at start: thread-local variables too */
};

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *ud)
{
	struct iter *it = ud;
	bool main_prog = it->first;
	char exe[4096], name[4200];
	const char *path = info->dlpi_name;
	uint64_t lo = UINT64_MAX, hi = 0, tls_memsz = 0;
	uint32_t tls_mod = UINT32_MAX;
	struct module *m;

	it->first = false;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + ph->p_vaddr;
			if (a < lo)
				lo = a;
			if (a + ph->p_memsz > hi)
				hi = a + ph->p_memsz;
		} else if (ph->p_type == PT_TLS) {
			tls_memsz = ph->p_memsz;
		}
	}
	if (nat.self_lo >= lo && nat.self_lo < hi) {
		/* the runtime itself: its text is where samples are not the program's */
		nat.self_lo = lo;
		nat.self_hi = hi;
		return 0;
	}
	m = module_find(info->dlpi_addr, lo);
	if (m) {
		m->seen = true;
		return 0;
	}
	if (main_prog) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return 0;
		exe[n] = '\0';
		path = exe;
	}
	if (!path || !*path || !strncmp(path, "linux-vdso", 10))
		return 0;
	if (nmods == mods_cap) {
		uint32_t cap = mods_cap ? 2 * mods_cap : 32;
		void *p = nat_realloc(mods, cap * sizeof *mods);
		if (!p)
			return 0;
		mods = p;
		mods_cap = cap;
	}
	mods[nmods++] = (struct module){ info->dlpi_addr, lo, hi, true };
	if (it->start && tls_memsz && info->dlpi_tls_data)
		tls_mod = nat_tls_module((int64_t)((uint64_t)(uintptr_t)info->dlpi_tls_data -
						   nat_tls_tp()), tls_memsz);
	scan_file(path, info->dlpi_addr, main_prog, tls_mod);
	/* the rest of its data (constants, tables not covered by a symbol)
	 * is the file's, as the simulator names a file mapping */
	snprintf(name, sizeof name, "<file:%s>", base_name(path));
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_X) && ph->p_memsz)
			nat_region_add(info->dlpi_addr + ph->p_vaddr,
				       info->dlpi_addr + ph->p_vaddr + ph->p_memsz, name, NULL, 0);
	}
	return 0;
}

void nat_globals_scan(void)
{
	struct iter it = { true, true };

	dl_iterate_phdr(phdr_cb, &it);
}

void nat_globals_rescan(void)
{
	struct iter it = { true, false };

	dl_iterate_phdr(phdr_cb, &it);
	nat_deps_scan();
}

static void forget(void *ud, struct dc_obj *o)
{
	if (o->kind == NAT_K_HEAP) {
		uint64_t seq = ++nat.alloc_seq;
		if (o->flags & NAT_F_RECORDED)
			nat_dump_free(o->lo, seq);
	}
	if (o->kind == NAT_K_HEAP || o->kind == NAT_K_TLS)
		nat_bucket_drop_block(o->bucket, o->alloc_size);
}

void nat_objs_unmapped(uint64_t lo, uint64_t hi)
{
	dc_objmap_remove_in(&nat.objs, lo, hi, forget, NULL);
	dc_objmap_remove_in(&nat.regions, lo, hi, forget, NULL);
}

void nat_globals_unloaded(void)
{
	struct iter it = { true, false };
	uint32_t k = 0;

	for (uint32_t i = 0; i < nmods; i++)
		mods[i].seen = false;
	dl_iterate_phdr(phdr_cb, &it);
	for (uint32_t i = 0; i < nmods; i++) {
		if (mods[i].seen)
			mods[k++] = mods[i];
		else
			nat_objs_unmapped(mods[i].lo, mods[i].hi);
	}
	nmods = k;
}

void nat_region_add(uint64_t lo, uint64_t hi, const char *name, const uint64_t *path,
		    uint32_t n)
{
	struct dc_obj *o;

	if (hi <= lo)
		return;
	o = dc_objmap_new(&nat.regions);
	if (!o)
		return;
	o->lo = lo;
	o->hi = hi;
	o->alloc_size = hi - lo;
	o->alloc_seq = ++nat.region_seq;
	o->kind = NAT_K_MMAP;
	o->bucket = name ? nat_bucket_get(name, NAT_K_MMAP) : nat_bucket_path(NAT_K_MMAP, path, n);
	/* a mapping placed inside an earlier one keeps the earlier name;
	 * regions are not blocks (no statistics), as in the simulator */
	if (dc_objmap_insert(&nat.regions, o))
		dc_objmap_discard(&nat.regions, o);
}
