/* elfsym.c — data symbols of an ELF64 image held in memory.
 *
 * Semantics and limits are in elfsym.h.  The fields read, from the System V
 * gABI (<elf.h> belongs to libc, so the core spells them out):
 *
 *   ELF header                 section header            symbol (24 bytes)
 *   OFFSET SIZE FIELD          OFFSET SIZE FIELD         OFFSET SIZE FIELD
 *        0    4 \x7f E L F          4    4 sh_type            0    4 st_name
 *        4    1 class (2 = 64)     24    8 sh_offset          4    1 st_info
 *        5    1 data (1 = LE)      32    8 sh_size            6    2 st_shndx
 *       16    2 e_type             40    4 sh_link            8    8 st_value
 *       32    8 e_phoff            56    8 sh_entsize        16    8 st_size
 *       40    8 e_shoff
 *       54    2 e_phentsize        program header (56)       dynamic entry (16)
 *       56    2 e_phnum            OFFSET SIZE FIELD         OFFSET SIZE FIELD
 *       58    2 e_shentsize             0    4 p_type             0    8 d_tag
 *       60    2 e_shnum (0: the         4    4 p_flags            8    8 d_val
 *                count is sh_size       8    8 p_offset
 *                of section 0)         16    8 p_vaddr
 *                                      32    8 p_filesz
 *                                      40    8 p_memsz
 *                                      48    8 p_align
 *
 * Fields are read byte by byte: the image need not be aligned, and the host
 * byte order does not matter.
 */
#include "core/elfsym.h"
#include "core/util.h"

enum {
	EHDR_SIZE = 64, SHDR_SIZE = 64, SYM_SIZE = 24, PHDR_SIZE = 56, DYN_SIZE = 16,
	ET_EXEC = 2, ET_DYN = 3,
	SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_DYNAMIC = 6, SHT_DYNSYM = 11,
	PT_LOAD = 1, PT_INTERP = 3, PT_TLS = 7,
	DT_NULL = 0, DT_SONAME = 14,
	STT_OBJECT = 1, STT_FILE = 4, STT_TLS = 6,
	STB_LOCAL = 0,
	SHN_UNDEF = 0, SHN_ABS = 0xfff1, SHN_COMMON = 0xfff2,
};

struct symtab {
	const uint8_t *syms;
	uint64_t nsyms;
	const char *str;
	uint64_t strsz;
};

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* [off, off + n) lies within [0, len); written so that nothing overflows. */
static bool inside(uint64_t off, uint64_t n, size_t len)
{
	return off <= len && n <= len - off;
}

/* The name at off, if its terminating NUL lies inside the string table. */
static bool name_at(const struct symtab *t, uint32_t off, const char **name, size_t *len)
{
	if (off >= t->strsz)
		return false;
	const char *s = t->str + off;
	uint64_t max = t->strsz - off, n = 0;
	while (n < max && s[n])
		n++;
	if (n == max)
		return false;
	*name = s;
	*len = (size_t)n;
	return true;
}

/* With cb NULL, only validates, so that a bad table is reported before any
 * callback has run. */
static int walk(const struct symtab *t, int (*cb)(void *, const struct dc_elfsym *), void *ud)
{
	const char *file = NULL;

	for (uint64_t i = 0; i < t->nsyms; i++) {
		const uint8_t *e = t->syms + i * SYM_SIZE;
		unsigned type = e[4] & 0xf, bind = e[4] >> 4, shndx = rd16(e + 6);
		struct dc_elfsym s;

		if (type == STT_FILE) {
			if (!name_at(t, rd32(e), &s.name, &s.name_len))
				return DC_EINVAL;
			file = s.name_len ? s.name : NULL;
			continue;
		}
		s.size = rd64(e + 16);
		if ((type != STT_OBJECT && type != STT_TLS) || s.size == 0 ||
		    shndx == SHN_UNDEF || shndx == SHN_ABS || shndx == SHN_COMMON)
			continue;
		if (!name_at(t, rd32(e), &s.name, &s.name_len))
			return DC_EINVAL;
		if (s.name_len == 0 || !cb)
			continue;
		s.name_len = dc_sym_name_len(s.name, s.name_len);
		s.global = bind != STB_LOCAL;
		s.file = s.global ? NULL : file;
		s.value = rd64(e + 8);
		s.tls = type == STT_TLS;
		int rc = cb(ud, &s);
		if (rc)
			return rc;
	}
	return 0;
}

/* An ELF64 LE executable or shared object header. */
static bool elf_header_ok(const uint8_t *img, size_t len)
{
	if (!img || len < EHDR_SIZE || img[0] != 0x7f || img[1] != 'E' || img[2] != 'L' ||
	    img[3] != 'F' || img[4] != 2 || img[5] != 1)
		return false;
	unsigned type = rd16(img + 16);
	return type == ET_EXEC || type == ET_DYN;
}

/* The section headers: 0 with *shnum 0 when there are none, DC_EINVAL
 * when they do not fit the image. */
static int sections(const uint8_t *img, size_t len, uint64_t *shoff, uint64_t *shnum)
{
	*shoff = rd64(img + 40);
	*shnum = rd16(img + 60);
	if (*shoff == 0) {
		*shnum = 0;
		return 0;
	}
	if (rd16(img + 58) != SHDR_SIZE || !inside(*shoff, SHDR_SIZE, len))
		return DC_EINVAL;
	if (*shnum == 0)
		*shnum = rd64(img + *shoff + 32);
	if (*shnum > (len - *shoff) / SHDR_SIZE)
		return DC_EINVAL;
	return 0;
}

int dc_elfsym_scan(const uint8_t *img, size_t len,
		   int (*cb)(void *ud, const struct dc_elfsym *s), void *ud)
{
	uint64_t shoff, shnum;

	if (!elf_header_ok(img, len))
		return DC_EINVAL;
	int rc = sections(img, len, &shoff, &shnum);
	if (rc)
		return rc;
	if (shnum == 0)
		return 0;       /* no section headers, so no symbol table */

	/* Prefer .symtab: .dynsym lacks locals and unexported globals. */
	const uint8_t *sh = NULL;
	for (uint64_t i = 0; i < shnum; i++) {
		const uint8_t *h = img + shoff + i * SHDR_SIZE;
		uint32_t t = rd32(h + 4);
		if (t == SHT_SYMTAB) {
			sh = h;
			break;
		}
		if (t == SHT_DYNSYM && !sh)
			sh = h;
	}
	if (!sh)
		return 0;

	uint32_t link = rd32(sh + 40);
	if (link >= shnum)
		return DC_EINVAL;
	const uint8_t *strh = img + shoff + (uint64_t)link * SHDR_SIZE;
	uint64_t symoff = rd64(sh + 24), symsz = rd64(sh + 32);
	uint64_t stroff = rd64(strh + 24), strsz = rd64(strh + 32);
	if (rd32(strh + 4) != SHT_STRTAB || rd64(sh + 56) != SYM_SIZE || symsz % SYM_SIZE ||
	    !inside(symoff, symsz, len) || !inside(stroff, strsz, len))
		return DC_EINVAL;

	struct symtab t = {
		.syms = img + symoff, .nsyms = symsz / SYM_SIZE,
		.str = (const char *)img + stroff, .strsz = strsz,
	};
	rc = walk(&t, NULL, NULL);
	return rc ? rc : walk(&t, cb, ud);
}

static void read_seg(const uint8_t *p, struct dc_elfseg *g)
{
	g->flags = rd32(p + 4);
	g->offset = rd64(p + 8);
	g->vaddr = rd64(p + 16);
	g->filesz = rd64(p + 32);
	g->memsz = rd64(p + 40);
	g->align = rd64(p + 48);
}

int dc_elfsym_phdrs(const uint8_t *img, size_t len, struct dc_elfimage *out, size_t *need)
{
	if (!elf_header_ok(img, len))
		return DC_EINVAL;
	uint64_t phoff = rd64(img + 32), phnum = rd16(img + 56);
	if (rd16(img + 54) != PHDR_SIZE || phnum == 0 || phnum == 0xffff ||
	    phoff > UINT64_MAX - phnum * PHDR_SIZE)
		return DC_EINVAL;
	if (!inside(phoff, phnum * PHDR_SIZE, len)) {
		*need = (size_t)(phoff + phnum * PHDR_SIZE);
		if (*need != phoff + phnum * PHDR_SIZE)
			return DC_EINVAL;
		return DC_ERANGE;
	}
	memset(out, 0, sizeof *out);
	out->type = rd16(img + 16);
	for (uint64_t i = 0; i < phnum; i++) {
		const uint8_t *p = img + phoff + i * PHDR_SIZE;
		struct dc_elfseg g;
		read_seg(p, &g);
		if (g.vaddr > UINT64_MAX - g.memsz || g.offset > UINT64_MAX - g.filesz)
			return DC_EINVAL;
		switch (rd32(p)) {
		case PT_LOAD:
			if (out->nload == DC_ELF_MAX_LOAD)
				return DC_EINVAL;
			if (out->nload == 0)
				out->span_lo = g.vaddr & ~(uint64_t)4095;
			if (g.vaddr + g.memsz > out->span_hi)
				out->span_hi = g.vaddr + g.memsz;
			out->load[out->nload++] = g;
			break;
		case PT_INTERP:
			out->interp = true;
			break;
		case PT_TLS:
			if (g.memsz) {
				out->tls = true;
				out->tls_seg = g;
			}
			break;
		}
	}
	return out->nload ? 0 : DC_EINVAL;
}

const char *dc_elfsym_soname(const uint8_t *img, size_t len)
{
	uint64_t shoff, shnum;

	if (!elf_header_ok(img, len) || sections(img, len, &shoff, &shnum))
		return NULL;
	for (uint64_t i = 0; i < shnum; i++) {
		const uint8_t *h = img + shoff + i * SHDR_SIZE;
		if (rd32(h + 4) != SHT_DYNAMIC)
			continue;
		uint32_t link = rd32(h + 40);
		if (link >= shnum)
			return NULL;
		const uint8_t *strh = img + shoff + (uint64_t)link * SHDR_SIZE;
		uint64_t off = rd64(h + 24), size = rd64(h + 32);
		struct symtab t = { .str = (const char *)img + rd64(strh + 24),
				    .strsz = rd64(strh + 32) };
		if (rd32(strh + 4) != SHT_STRTAB || !inside(off, size, len) ||
		    !inside(rd64(strh + 24), t.strsz, len))
			return NULL;
		for (uint64_t e = 0; e + DYN_SIZE <= size; e += DYN_SIZE) {
			uint64_t tag = rd64(img + off + e);
			const char *name;
			size_t n;
			if (tag == DT_NULL)
				return NULL;
			if (tag != DT_SONAME)
				continue;
			uint64_t v = rd64(img + off + e + 8);
			if (v > UINT32_MAX || !name_at(&t, (uint32_t)v, &name, &n) || n == 0)
				return NULL;
			return name;
		}
		return NULL;
	}
	return NULL;
}

static uint64_t round_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* glibc 2.36, elf/dl-tls.c, _dl_determine_tlsoffset, TLS_TCB_AT_TP: the
 * same arithmetic on the same fields, so that the offsets agree. */
uint64_t dc_elfsym_tls_place(struct dc_elftls *st, uint64_t memsz, uint64_t align,
			     uint64_t vaddr)
{
	uint64_t a = align ? align : 1;
	uint64_t firstbyte = (-(vaddr & (a - 1))) & (a - 1);
	uint64_t off;

	if (st->freebottom - st->freetop >= memsz) {
		off = round_up(st->freetop + memsz - firstbyte, a) + firstbyte;
		if (off <= st->freebottom) {
			st->freetop = off;
			return off;
		}
	}
	off = round_up(st->offset + memsz - firstbyte, a) + firstbyte;
	if (off > st->offset + memsz + (st->freebottom - st->freetop)) {
		st->freetop = st->offset;
		st->freebottom = off - memsz;
	}
	st->offset = off;
	return off;
}
