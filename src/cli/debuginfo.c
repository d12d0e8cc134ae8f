/* debuginfo.c — the program's debug information, checked before a run
 * (see debuginfo.h).  The file is untrusted: every offset is checked. */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/debuginfo.h"

/* DW_FORM_strx, addrx (DWARF 5 §7.5.6) and their sized variants. */
static bool unreadable_form(uint64_t form)
{
	return form == 0x1a || form == 0x1b || (form >= 0x25 && form <= 0x2c);
}

static bool uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;
		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* Walks the abbreviation tables: code, tag, children flag, then (attribute,
 * form) pairs up to (0, 0); DW_FORM_implicit_const (0x21) carries a value. */
static bool abbrev_has_unreadable(const uint8_t *p, const uint8_t *end)
{
	uint64_t code, tag, attr, form, skip;

	while (p < end) {
		if (!uleb(&p, end, &code))
			return false;
		if (code == 0)
			continue;       /* the end of one unit's table */
		if (!uleb(&p, end, &tag) || p >= end)
			return false;
		p++;                    /* DW_CHILDREN_yes/no */
		for (;;) {
			if (!uleb(&p, end, &attr) || !uleb(&p, end, &form))
				return false;
			if (!attr && !form)
				break;
			if (unreadable_form(form))
				return true;
			if (form == 0x21 && !uleb(&p, end, &skip))
				return false;
		}
	}
	return false;
}

static bool scan(const uint8_t *img, size_t len)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *strs;

	if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_shentsize != sizeof *sh || eh->e_shoff > len ||
	    eh->e_shnum > (len - eh->e_shoff) / sizeof *sh || eh->e_shstrndx >= eh->e_shnum)
		return false;
	sh = (const void *)(img + eh->e_shoff);
	strs = &sh[eh->e_shstrndx];
	if (strs->sh_offset > len || strs->sh_size > len - strs->sh_offset)
		return false;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const char *name = (const char *)img + strs->sh_offset + sh[i].sh_name;

		if (sh[i].sh_name >= strs->sh_size ||
		    strs->sh_size - sh[i].sh_name < sizeof ".debug_abbrev" ||
		    memcmp(name, ".debug_abbrev", sizeof ".debug_abbrev"))
			continue;
		if ((sh[i].sh_flags & SHF_COMPRESSED) || sh[i].sh_type == SHT_NOBITS ||
		    sh[i].sh_offset > len || sh[i].sh_size > len - sh[i].sh_offset)
			return false;
		return abbrev_has_unreadable(img + sh[i].sh_offset,
					     img + sh[i].sh_offset + sh[i].sh_size);
	}
	return false;
}

bool debuginfo_unreadable_forms(const char *path)
{
	struct stat st;
	void *img;
	bool found;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		close(fd);
		return false;
	}
	img = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (img == MAP_FAILED)
		return false;
	found = scan(img, (size_t)st.st_size);
	munmap(img, (size_t)st.st_size);
	return found;
}
