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
 *       40    8 e_shoff            56    8 sh_entsize        16    8 st_size
 *       58    2 e_shentsize
 *       60    2 e_shnum (0: the count is sh_size of section 0)
 *
 * Fields are read byte by byte: the image need not be aligned, and the host
 * byte order does not matter.
 */
#include "core/elfsym.h"

enum {
	EHDR_SIZE = 64, SHDR_SIZE = 64, SYM_SIZE = 24,
	ET_EXEC = 2, ET_DYN = 3,
	SHT_SYMTAB = 2, SHT_STRTAB = 3, SHT_DYNSYM = 11,
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

int dc_elfsym_scan(const uint8_t *img, size_t len,
		   int (*cb)(void *ud, const struct dc_elfsym *s), void *ud)
{
	if (!img || len < EHDR_SIZE || img[0] != 0x7f || img[1] != 'E' || img[2] != 'L' ||
	    img[3] != 'F' || img[4] != 2 || img[5] != 1)
		return DC_EINVAL;
	unsigned type = rd16(img + 16);
	if (type != ET_EXEC && type != ET_DYN)
		return DC_EINVAL;

	uint64_t shoff = rd64(img + 40), shnum = rd16(img + 60);
	if (shoff == 0)
		return 0;       /* no section headers, so no symbol table */
	if (rd16(img + 58) != SHDR_SIZE || !inside(shoff, SHDR_SIZE, len))
		return DC_EINVAL;
	if (shnum == 0)
		shnum = rd64(img + shoff + 32);
	if (shnum > (len - shoff) / SHDR_SIZE)
		return DC_EINVAL;

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
	int rc = walk(&t, NULL, NULL);
	return rc ? rc : walk(&t, cb, ud);
}
