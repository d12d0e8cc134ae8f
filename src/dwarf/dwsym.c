/* dwsym.c — code addresses named from ELF symbols and DWARF (see
 * dwsym.h). */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "dwarf/demangle.h"
#include "dwarf/dwscope.h"
#include "dwarf/dwsym.h"

/* Inline chains deeper than this are cut (Valgrind's describe_IP has no
 * limit, but no real chain comes close). */
#define MAX_FRAMES 64

struct sym {
	uint64_t lo, hi;        /* [lo, hi) at run time; hi = lo + max(size, 1) */
	const char *name;       /* demangled (owned) or libdw's */
	bool owned;
	int rank;               /* lower wins at one address: global, weak, local */
};

/* A compilation unit an address fell into: its scopes and its source
 * files as Valgrind names them, made when first needed. */
struct unit {
	Dwarf_Off off;          /* of its DIE in .debug_info */
	Dwarf_Die die;
	struct dwscope *scopes;
	Dwarf_Files *files;
	size_t nfiles;
	const char **names;     /* by file index, NULL until named */
};

struct obj {
	char *path;
	bool loaded;            /* tried to open it */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct sym *syms;
	size_t nsyms;
	struct unit **units;    /* open addressing by offset, cap a power of 2 */
	size_t nunits, unit_cap;
};

struct map {
	uint64_t start, end, off;
	size_t obj;
};

struct dwsym {
	struct map *maps;
	size_t nmaps, map_cap;
	bool sorted;
	struct obj *objs;
	size_t nobjs, obj_cap;
	struct dwsym_frame frames[MAX_FRAMES];
	/* the source file names made here (libdw's are its own) */
	char **made;
	size_t nmade, made_cap;
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

struct dwsym *dwsym_new(void)
{
	elf_version(EV_CURRENT);   /* libelf's handshake, before any elf_begin */
	return xcalloc(1, sizeof(struct dwsym));
}

void dwsym_free(struct dwsym *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nobjs; i++) {
		struct obj *o = &d->objs[i];
		for (size_t k = 0; k < o->nsyms; k++)
			if (o->syms[k].owned)
				free((char *)o->syms[k].name);
		free(o->syms);
		for (size_t k = 0; k < o->unit_cap; k++)
			if (o->units[k]) {
				dwscope_free(o->units[k]->scopes);
				free(o->units[k]->names);
				free(o->units[k]);
			}
		free(o->units);
		if (o->dwfl)
			dwfl_end(o->dwfl);
		free(o->path);
	}
	for (size_t i = 0; i < d->nmade; i++)
		free(d->made[i]);
	free(d->made);
	free(d->objs);
	free(d->maps);
	free(d);
}

void dwsym_add_map(struct dwsym *d, uint64_t start, uint64_t end, uint64_t off,
		   const char *path)
{
	size_t k;

	for (k = 0; k < d->nobjs && strcmp(d->objs[k].path, path); k++)
		;
	if (k == d->nobjs) {
		if (d->nobjs == d->obj_cap) {
			d->obj_cap = d->obj_cap ? 2 * d->obj_cap : 16;
			d->objs = xrealloc(d->objs, d->obj_cap * sizeof *d->objs);
		}
		memset(&d->objs[k], 0, sizeof d->objs[k]);
		d->objs[k].path = xmemdup(path, strlen(path));
		d->nobjs++;
	}
	if (d->nmaps == d->map_cap) {
		d->map_cap = d->map_cap ? 2 * d->map_cap : 16;
		d->maps = xrealloc(d->maps, d->map_cap * sizeof *d->maps);
	}
	d->maps[d->nmaps++] = (struct map){ start, end, off, k };
	d->sorted = false;
}

static int map_cmp(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static const struct map *map_of(struct dwsym *d, uint64_t ip)
{
	size_t lo = 0, hi;

	if (!d->sorted) {
		qsort(d->maps, d->nmaps, sizeof *d->maps, map_cmp);
		d->sorted = true;
	}
	hi = d->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < d->maps[lo - 1].end ? &d->maps[lo - 1] : NULL;
}

/* The load bias of the object m maps: the segment whose file bytes hold
 * m's offset is at p_vaddr + bias = m->start + (p_offset - m->off).
 * Returns false when the file has no such segment (or is no ELF file). */
static bool load_bias(int fd, const struct map *m, uint64_t *bias)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n;
	bool found = false;

	if (e && elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &n) == 0) {
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
				continue;
			/* the mapping starts at the page holding p_offset */
			if (m->off > ph.p_offset || ph.p_offset - m->off >= m->end - m->start)
				continue;
			*bias = m->start + (ph.p_offset - m->off) - ph.p_vaddr;
			found = true;
		}
	}
	if (e)
		elf_end(e);
	return found;
}

/* A regular file, or -1: a FIFO named by a map record would block, a
 * device never end. */
static int open_regular(const char *path)
{
	struct stat sb;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (strlen(x->name) != strlen(y->name))
		return (int)strlen(x->name) - (int)strlen(y->name);
	return strcmp(x->name, y->name);
}

/* The C library's functions that call main, which Valgrind shows as one
 * "(below main)" (its --show-below-main=no; m_debuginfo.c). */
static bool below_main(const char *name)
{
	static const char *const exact[] = { "__libc_start_main", "__libc_start_call_main",
					     "generic_start_main", "_dl_start_user", "_start" };

	for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
		if (!strcmp(name, exact[i]))
			return true;
	return !strncmp(name, "__libc_start_main@", 18) ||
	       !strncmp(name, "generic_start_main.", 19);
}

/* The functions of the symbol table, sorted by address, the preferred
 * name first at each address. */
static void read_syms(struct obj *o)
{
	int n = dwfl_module_getsymtab(o->mod);

	if (n <= 0)
		return;
	o->syms = xcalloc((size_t)n, sizeof *o->syms);
	for (int i = 1; i < n; i++) {
		GElf_Sym s;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(o->mod, i, &s, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
		struct sym *y;
		char *dm;

		if (!name || !name[0] || (type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    shndx == SHN_UNDEF)
			continue;
		y = &o->syms[o->nsyms++];
		y->lo = addr;
		y->hi = addr + (s.st_size ? s.st_size : 1);
		y->rank = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		y->name = below_main(name) ? "(below main)" : name;
		dm = dc_demangle(name);
		if (dm) {
			y->name = dm;
			y->owned = true;
		} else if (y->name == name && strchr(name + 1, '@')) {
			/* fopen@@GLIBC_2.2.5: named without its version, as
			 * finalize names the simulator's functions */
			y->name = xmemdup(name, (size_t)(strchr(name + 1, '@') - name));
			y->owned = true;
		}
	}
	qsort(o->syms, o->nsyms, sizeof *o->syms, sym_cmp);
}

static struct obj *load(struct dwsym *d, const struct map *m)
{
	struct obj *o = &d->objs[m->obj];
	uint64_t bias;
	int fd;

	if (o->loaded)
		return o;
	o->loaded = true;
	fd = open_regular(o->path);
	if (fd < 0)
		return o;
	if (!load_bias(fd, m, &bias) || !(o->dwfl = dwfl_begin(&callbacks))) {
		close(fd);
		return o;
	}
	dwfl_report_begin(o->dwfl);
	/* the module takes fd when it is made */
	o->mod = dwfl_report_elf(o->dwfl, o->path, o->path, fd, bias, true);
	if (!o->mod)
		close(fd);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (o->mod)
		read_syms(o);
	return o;
}

/* The symbol ip is in: the last one starting at or below ip (the
 * preferred of those at its address) that covers ip. */
static const struct sym *sym_at(const struct obj *o, uint64_t ip)
{
	size_t lo = 0, hi = o->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->syms[mid].lo <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* back to the preferred symbol at that address */
	hi = lo - 1;
	while (hi && o->syms[hi - 1].lo == o->syms[lo - 1].lo)
		hi--;
	return ip < o->syms[hi].hi ? &o->syms[hi] : NULL;
}

/* An inlined subroutine's function name: DW_AT_name of its abstract
 * origin, through a DW_AT_specification (Valgrind's get_inlFnName). */
static const char *inlined_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	Dwarf_Die origin, spec;

	if (!dwarf_attr(die, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &origin))
		return "";
	if (dwarf_attr(&origin, DW_AT_name, &a))
		return dwarf_formstring(&a) ? dwarf_formstring(&a) : "";
	if (dwarf_attr(&origin, DW_AT_specification, &a) && dwarf_formref_die(&a, &spec) &&
	    dwarf_attr(&spec, DW_AT_name, &a))
		return dwarf_formstring(&a) ? dwarf_formstring(&a) : "";
	return "";
}

/* A source file as Valgrind records it: libdw joins every name with its
 * directory, and a relative result with the CU's compilation directory
 * as Valgrind does; without one (or under a relative one) Valgrind keeps
 * only the name, without the directory (the longest of the CU's that
 * prefixes the joined path). */
static const char *keep(struct dwsym *d, char *made)
{
	if (d->nmade == d->made_cap) {
		d->made_cap = d->made_cap ? 2 * d->made_cap : 16;
		d->made = xrealloc(d->made, d->made_cap * sizeof *d->made);
	}
	return d->made[d->nmade++] = made;
}

static const char *valgrind_path(struct dwsym *d, Dwarf_Die *cu, const char *path)
{
	const char *const *dirs;
	const char *comp;
	size_t ndirs, best = 0;
	Dwarf_Files *files;
	Dwarf_Attribute a;

	if (!path)
		return "";
	if (path[0] == '/')
		return path;
	comp = dwarf_attr(cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : NULL;
	if (comp && comp[0] == '/') {
		size_t n = strlen(comp) + strlen(path) + 2;
		char *full = xmalloc(n);
		snprintf(full, n, "%s/%s", comp, path);
		return keep(d, full);
	}
	if (dwarf_getsrcfiles(cu, &files, NULL) != 0 || dwarf_getsrcdirs(files, &dirs, &ndirs) != 0)
		return path;
	for (size_t k = 0; k < ndirs; k++) {
		size_t n = dirs[k] ? strlen(dirs[k]) : 0;
		if (n > best && !strncmp(path, dirs[k], n) && path[n] == '/')
			best = n;
	}
	if (!best)
		return path;
	return keep(d, xmemdup(path + best + 1, strlen(path + best + 1)));
}

/* The unit whose DIE is cu, indexed when first met. */
static struct unit *unit_of(struct obj *o, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	size_t mask, k;
	struct unit *u;

	if (2 * (o->nunits + 1) > o->unit_cap) {
		size_t cap = o->unit_cap ? 2 * o->unit_cap : 64;
		struct unit **t = xcalloc(cap, sizeof *t);
		for (size_t i = 0; i < o->unit_cap; i++) {
			if (!o->units[i])
				continue;
			for (k = (size_t)(o->units[i]->off * 0x9E3779B97F4A7C15u) & (cap - 1); t[k];
			     k = (k + 1) & (cap - 1))
				;
			t[k] = o->units[i];
		}
		free(o->units);
		o->units = t;
		o->unit_cap = cap;
	}
	mask = o->unit_cap - 1;
	for (k = (size_t)(off * 0x9E3779B97F4A7C15u) & mask; o->units[k]; k = (k + 1) & mask)
		if (o->units[k]->off == off)
			return o->units[k];
	u = o->units[k] = xcalloc(1, sizeof *u);
	o->nunits++;
	u->off = off;
	u->die = *cu;
	u->scopes = dwscope_build(cu);
	if (dwarf_getsrcfiles(cu, &u->files, &u->nfiles) != 0) {
		u->files = NULL;
		u->nfiles = 0;
	}
	u->names = xcalloc(u->nfiles ? u->nfiles : 1, sizeof *u->names);
	return u;
}

/* The unit's source file idx as Valgrind names it ("" unknown). */
static const char *unit_file(struct dwsym *d, struct unit *u, size_t idx)
{
	if (idx >= u->nfiles)
		return "";
	if (!u->names[idx])
		u->names[idx] = valgrind_path(d, &u->die, dwarf_filesrc(u->files, idx, NULL, NULL));
	return u->names[idx];
}

/* The file of line l. */
static const char *line_file(struct dwsym *d, struct unit *u, Dwarf_Line *l)
{
	Dwarf_Files *files;
	size_t idx;

	if (dwarf_line_file(l, &files, &idx) == 0 && files == u->files)
		return unit_file(d, u, idx);
	return valgrind_path(d, &u->die, dwarf_linesrc(l, NULL, NULL));
}

/* The file of the call site of inlined subroutine die. */
static const char *call_file(struct dwsym *d, struct unit *u, Dwarf_Die *die, uint32_t *line)
{
	Dwarf_Attribute a;
	Dwarf_Word idx = 0, ln = 0;

	*line = 0;
	if (dwarf_attr(die, DW_AT_call_line, &a) && dwarf_formudata(&a, &ln) == 0)
		*line = (uint32_t)ln;
	if (!dwarf_attr(die, DW_AT_call_file, &a) || dwarf_formudata(&a, &idx) != 0 || idx == 0)
		return "";
	return unit_file(d, u, idx);
}

/* A frame of a function directly inside a frame of the same function is
 * one frame, the inner (with the instruction's line): GCC's partial
 * inlining (ipa-split) inlines a function's split-off body back into the
 * function, and DWARF then has it inlined into itself, called from its
 * own declaration line.  The simulator engine does the same
 * (dc_names.c).  Returns the frames left. */
static size_t self_inlined_out(struct dwsym_frame *f, size_t n)
{
	size_t m = 1;

	for (size_t j = 1; j < n; j++) {
		if (f[j].fn[0] && strcmp(f[j].fn, f[m - 1].fn) == 0)
			continue;
		f[m++] = f[j];
	}
	return m;
}

size_t dwsym_frames(struct dwsym *d, uint64_t ip, const struct dwsym_frame **frames,
		    const char **obj, int *entry)
{
	const struct map *m = map_of(d, ip);
	struct obj *o;
	const struct sym *s;
	struct unit *u;
	Dwarf_Die *cu;
	Dwarf_Addr bias;
	size_t n = 0;
	uint32_t inl;

	*frames = d->frames;
	*obj = "";
	*entry = 0;
	if (!m)
		return 0;
	o = load(d, m);
	*obj = o->path;
	s = o->mod ? sym_at(o, ip) : NULL;
	*entry = s && s->lo == ip;
	d->frames[0] = (struct dwsym_frame){ "", "", 0 };
	cu = o->mod ? dwfl_module_addrdie(o->mod, ip, &bias) : NULL;
	u = cu ? unit_of(o, cu) : NULL;
	/* no scope: ip is between the CU's ranges (crt code among them) */
	if (u && dwscope_find(u->scopes, ip - bias, &inl)) {
		Dwarf_Line *l = dwarf_getsrc_die(&u->die, ip - bias);
		int ln = 0;
		if (l && dwarf_lineno(l, &ln) == 0 && ln > 0) {
			d->frames[0].file = line_file(d, u, l);
			d->frames[0].line = (uint32_t)ln;
		}
		/* the innermost inlined subroutine, then those it is inside,
		 * each called from the next frame */
		for (; inl && n + 1 < MAX_FRAMES; inl = dwscope_outer(u->scopes, inl)) {
			Dwarf_Die *die = dwscope_die(u->scopes, inl);
			d->frames[n].fn = inlined_name(die);
			n++;
			d->frames[n].fn = "";
			d->frames[n].file = call_file(d, u, die, &d->frames[n].line);
		}
	}
	d->frames[n].fn = s ? s->name : "";
	return self_inlined_out(d->frames, n + 1);
}
