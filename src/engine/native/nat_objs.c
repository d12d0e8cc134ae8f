/* nat_objs.c — buckets, code locations and globals of the native runtime.
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
 *    opened later with dlopen are not scanned; their globals are
 *    <unknown>.  Thread-local variables are not objects yet (their
 *    addresses count as <unknown>).
 *  - Heap buckets are keyed by their call path (nat_bucket_path) and
 *    written with the name "-" and an hpath record: dcprof finalize names
 *    them with the simulator engine's rules.
 *  - Thread stacks (pthread_getattr_np at the thread's start) are one
 *    bucket, <stack>; any other address is <unknown>.
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
	void *p = __libc_calloc(1, n);

	if (!p)
		abort();
	return p;
}

void nat_objs_init(void)
{
	if (dc_objmap_init(&nat.objs, &nat_env) || dc_blockmap_init(&nat.blocks, &nat_env) ||
	    dc_blockset_init(&nat.touched, &nat_env) ||
	    dc_rectab_init(&nat.ftouch, &nat_env, sizeof(struct nat_ftouch), 12, "nat.ftouch") ||
	    dc_rectab_init(&nat.ipsamp, &nat_env, sizeof(struct nat_ipsamp), 8, "nat.ipsamp") ||
	    dc_costtab_init(&nat.scosts, &nat_env))
		abort();
	nat.stack_bucket = nat_bucket_get("<stack>", NAT_K_STACK);
	nat.unknown_bucket = nat_bucket_get("<unknown>", NAT_K_UNKNOWN);
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
		void *p = __libc_realloc(nat.buckets, cap * sizeof *nat.buckets);
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
		if (n ? b->npath == n && !memcmp(b->path, path, n * 8)
		      : !b->npath && !strcmp(b->name, name))
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

uint32_t nat_bucket_path(const uint64_t *path, uint32_t n)
{
	static const uint64_t none = 0;

	/* an empty path (nothing unwound) still needs a key */
	return n ? bucket_find("-", NAT_K_HEAP, path, n) : bucket_find("-", NAT_K_HEAP, &none, 1);
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
	const struct dc_objmap_ent *e = dc_objmap_lookup(&nat.objs, addr);
	struct dc_blockmap_ent b;

	*seq = 0;
	if (e) {
		*seq = e->o->alloc_seq + 1;
		return e->bucket;
	}
	if (dc_blockmap_lookup(&nat.blocks, addr, &b)) {
		*seq = b.seq + 1;
		return b.bucket;
	}
	for (uint32_t i = 0; i < nat.nthreads; i++) {
		const struct nat_thread *t = nat.threads[i];
		if (addr >= t->stack_lo && addr < t->stack_hi)
			return nat.stack_bucket;
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
		void *p = __libc_realloc(nat.loc_ip, cap * sizeof *nat.loc_ip);
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

	if (s->tls)
		return 0;
	if (!s->global && s->file && *names_slot(&sc->nm, s->name) > 1)
		n = (size_t)snprintf(name, sizeof name, "%s (%s)%s", s->name, s->file, sc->suffix);
	else
		n = (size_t)snprintf(name, sizeof name, "%s%s", s->name, sc->suffix);
	if (n >= sizeof name)
		return 0;
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

static void scan_file(const char *path, uint64_t bias, bool main_prog)
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
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return;
	memset(&sc, 0, sizeof sc);
	sc.bias = bias;
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
	munmap((void *)img, (size_t)st.st_size);
}

static int phdr_cb(struct dl_phdr_info *info, size_t size, void *ud)
{
	int *first = ud;
	bool main_prog = *first;
	char exe[4096];
	const char *path = info->dlpi_name;
	uint64_t lo = UINT64_MAX, hi = 0;

	*first = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			if (a < lo)
				lo = a;
			if (a + info->dlpi_phdr[i].p_memsz > hi)
				hi = a + info->dlpi_phdr[i].p_memsz;
		}
	if (nat.self_lo >= lo && nat.self_lo < hi) {
		/* the runtime itself: its text is where samples are not the program's */
		nat.self_lo = lo;
		nat.self_hi = hi;
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
	scan_file(path, info->dlpi_addr, main_prog);
	return 0;
}

void nat_globals_scan(void)
{
	int first = 1;

	dl_iterate_phdr(phdr_cb, &first);
}
