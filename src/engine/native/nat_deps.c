/* nat_deps.c — the libraries loaded only for the runtime: their code's
 * samples are the runtime's.
 *
 * Notes:
 *  - The runtime needs libunwind (call paths), which needs liblzma; a
 *    program that needs neither still has them loaded, and their code
 *    touches memory only for the runtime: libunwind's per-thread trace
 *    cache and memory pool (mmapped by libunwind itself), the unwind
 *    tables it reads.  Page faults and samples with an IP in them were
 *    <unknown> first touches of the program; they count apart with the
 *    runtime's own (meta samples_runtime, nat_runtime_ip).
 *  - The rule, from the dynamic sections (DT_NEEDED, DT_SONAME) of the
 *    modules loaded: R is the closure of what the runtime needs; P the
 *    closure of what every other module outside R needs, those modules
 *    included (the program, ld.so, any other preloaded library, and
 *    libraries the program opened with dlopen).  A module of R and not of
 *    P is the runtime's own.  So a program that links libunwind itself,
 *    or a library of the program that does, keeps its samples in
 *    libunwind (and in liblzma, which libunwind then needs for it); the
 *    C library, which both need, is always the program's.  Load order
 *    alone would not do: the loader loads the needs of the program and of
 *    the preloaded runtime breadth-first, so libunwind needed only by a
 *    library of the program is loaded as if for the runtime.
 *  - A DT_NEEDED name matches a module by its DT_SONAME, else by its
 *    file's base name, as the loader matches them.  The strings are read
 *    in the loaded image: glibc relocates DT_STRTAB in place on x86-64
 *    and leaves it an offset where the dynamic section is read-only (the
 *    vDSO); an address below the load bias is taken as an offset.
 *  - Computed at start and again after each dlopen (a library opened
 *    later may need libunwind: from then on its samples are the
 *    program's); at most NAT_MAX_DEPS ranges.
 */
#include <link.h>
#include <string.h>

#include "engine/native/nat.h"

#define MAX_MODULES 512
#define MAX_NEEDED 4096

struct dmod {
	uint64_t lo, hi;
	uint64_t name;            /* hash of its soname (or base name) */
	uint32_t needed, nneeded; /* its DT_NEEDED hashes in need[] */
	bool self, in_r, in_p;
};

struct dscan {
	struct dmod *mods;
	uint32_t nmods;
	uint64_t *need;
	uint32_t nneed;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int module_cb(struct dl_phdr_info *info, size_t size, void *ud)
{
	struct dscan *sc = ud;
	struct dmod *m;
	const ElfW(Dyn) *dyn = NULL;
	uint64_t strtab = 0, strsz = 0, soname = UINT64_MAX;
	const char *base;

	(void)size;
	if (sc->nmods == MAX_MODULES)
		return 1;
	m = &sc->mods[sc->nmods];
	memset(m, 0, sizeof *m);
	m->lo = UINT64_MAX;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + ph->p_vaddr;
			if (a < m->lo)
				m->lo = a;
			if (a + ph->p_memsz > m->hi)
				m->hi = a + ph->p_memsz;
		} else if (ph->p_type == PT_DYNAMIC) {
			dyn = (const ElfW(Dyn) *)(uintptr_t)(info->dlpi_addr + ph->p_vaddr);
		}
	}
	if (m->lo >= m->hi)
		return 0;
	m->self = nat.self_lo >= m->lo && nat.self_lo < m->hi;
	for (const ElfW(Dyn) *d = dyn; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
		else if (d->d_tag == DT_STRSZ)
			strsz = d->d_un.d_val;
		else if (d->d_tag == DT_SONAME)
			soname = d->d_un.d_val;
	if (strtab && strtab < info->dlpi_addr)
		strtab += info->dlpi_addr;
	m->needed = sc->nneed;
	for (const ElfW(Dyn) *d = dyn; strtab && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED && d->d_un.d_val < strsz && sc->nneed < MAX_NEEDED)
			sc->need[sc->nneed++] = hash_str((const char *)(uintptr_t)(strtab + d->d_un.d_val));
	m->nneeded = sc->nneed - m->needed;
	if (strtab && soname < strsz) {
		m->name = hash_str((const char *)(uintptr_t)(strtab + soname));
	} else {
		base = strrchr(info->dlpi_name ? info->dlpi_name : "", '/');
		m->name = hash_str(base ? base + 1 : info->dlpi_name ? info->dlpi_name : "");
	}
	sc->nmods++;
	return 0;
}

/* Marks (in_r or in_p) every module a marked module needs, to a fixed
 * point: the closure. */
static void close_over(struct dscan *sc, bool r)
{
	bool more = true;

	while (more) {
		more = false;
		for (uint32_t i = 0; i < sc->nmods; i++) {
			const struct dmod *m = &sc->mods[i];
			if (!(r ? m->in_r || m->self : m->in_p))
				continue;
			for (uint32_t k = 0; k < m->nneeded; k++)
				for (uint32_t j = 0; j < sc->nmods; j++) {
					struct dmod *n = &sc->mods[j];
					bool *f = r ? &n->in_r : &n->in_p;
					if (!*f && !n->self && n->name == sc->need[m->needed + k]) {
						*f = true;
						more = true;
					}
				}
		}
	}
}

void nat_deps_scan(void)
{
	struct dscan sc = { 0 };

	sc.mods = __libc_malloc(MAX_MODULES * sizeof *sc.mods);
	sc.need = __libc_malloc(MAX_NEEDED * sizeof *sc.need);
	if (!sc.mods || !sc.need)
		goto out;
	dl_iterate_phdr(module_cb, &sc);
	close_over(&sc, true);
	for (uint32_t i = 0; i < sc.nmods; i++)
		sc.mods[i].in_p = !sc.mods[i].self && !sc.mods[i].in_r;
	close_over(&sc, false);
	nat.ndeps = 0;
	for (uint32_t i = 0; i < sc.nmods && nat.ndeps < NAT_MAX_DEPS; i++)
		if (sc.mods[i].in_r && !sc.mods[i].in_p) {
			nat.deps[nat.ndeps].lo = sc.mods[i].lo;
			nat.deps[nat.ndeps].hi = sc.mods[i].hi;
			nat.ndeps++;
		}
out:
	__libc_free(sc.mods);
	__libc_free(sc.need);
}

bool nat_runtime_ip(uint64_t ip)
{
	if (ip >= nat.self_lo && ip < nat.self_hi)
		return true;
	for (uint32_t i = 0; i < nat.ndeps; i++)
		if (ip >= nat.deps[i].lo && ip < nat.deps[i].hi)
			return true;
	return false;
}
