/* elfsym.h — data symbols of an ELF64 image held in memory.
 *
 * The Valgrind tool names globals by reading the symbol table of every
 * object the program maps.  The tool reads the whole file into memory and
 * computes the load bias itself; this module only walks the table.
 *
 * Notes:
 *  - ELF64 little-endian executables and shared objects (ET_EXEC, ET_DYN)
 *    only; anything else is DC_EINVAL.
 *  - Reads .symtab, or .dynsym when there is no .symtab (a stripped file).
 *    A file with neither has no symbols: the scan returns 0 without calls.
 *  - Reports STT_OBJECT and STT_TLS symbols with a non-empty name, a size
 *    above zero and a section index other than SHN_UNDEF, SHN_ABS or
 *    SHN_COMMON (the last two have values that are not addresses inside the
 *    loaded image).  Everything else is skipped.
 *  - A .symtab names the program's copy of a versioned dynamic symbol
 *    (a copy relocation: `stdout`) and a library's versioned definitions
 *    NAME@VERSION or NAME@@VERSION; name_len leaves the version out, so
 *    the global is named as the source names it.
 *  - Local symbols are attributed to a source file: GCC and the linkers
 *    write each object file's locals right after an STT_FILE symbol naming
 *    that file, so a local's file is the last STT_FILE before it.  An
 *    STT_FILE with an empty name (ld's separator before linker-made locals)
 *    ends the attribution.  Globals have no file.
 *  - The image is untrusted: every offset and size is checked against len,
 *    and only the names of symbols the scan uses are read.  Validation runs
 *    over the whole table before the first callback, so a malformed image
 *    yields DC_EINVAL and no calls at all.
 *  - Program headers (dc_elfsym_phdrs) give what a loader maps: the PT_LOAD
 *    segments (a segment may have no file bytes at all, e.g. a .bss the
 *    linker gave a segment of its own), PT_INTERP and the TLS template
 *    (PT_TLS).  The image may be just the start of the file: the call says
 *    how many bytes it needs.
 *  - dc_elfsym_tls_place is glibc's placement of the static TLS blocks of
 *    the modules loaded at start below the thread pointer (x86-64, TLS
 *    variant II; glibc elf/dl-tls.c, _dl_determine_tlsoffset): modules in
 *    module-ID order (the program first, then libraries in load order),
 *    each block aligned, a gap left by alignment reused by a later block
 *    that fits.  A thread-local symbol's address is tp - offset + st_value.
 */
#ifndef DC_ELFSYM_H
#define DC_ELFSYM_H

#include "core/port.h"

struct dc_elfsym {
	const char *name;   /* NUL-terminated, points into the image */
	size_t name_len;    /* without a symbol version: name is stdout@GLIBC_2.2.5
			     * (a program's copy of a versioned symbol), the
			     * name is its first name_len bytes, stdout */
	const char *file;   /* STT_FILE name for locals (into the image), or NULL */
	uint64_t value;     /* st_value: the link-time address, before load bias */
	uint64_t size;
	bool global;        /* binding other than STB_LOCAL (global, weak, unique) */
	bool tls;           /* STT_TLS: value is an offset in the TLS block */
};

/* Calls cb for every reported symbol, in table order.  Returns 0, DC_EINVAL
 * for an image that is not a well-formed ELF64 LE executable or shared
 * object, or the first non-zero value cb returned (which stops the scan).
 * The struct passed to cb is valid only during the call; the strings stay
 * valid as long as the image.  cb may be NULL to only validate the image. */
int dc_elfsym_scan(const uint8_t *img, size_t len,
		   int (*cb)(void *ud, const struct dc_elfsym *s), void *ud);

/* One program header entry. */
struct dc_elfseg {
	uint64_t vaddr, memsz;      /* p_vaddr, p_memsz */
	uint64_t offset, filesz;    /* p_offset, p_filesz */
	uint64_t align;             /* p_align */
	uint32_t flags;             /* p_flags: DC_PF_R | DC_PF_W | DC_PF_X */
};
enum { DC_PF_X = 1, DC_PF_W = 2, DC_PF_R = 4 };
enum { DC_ET_EXEC = 2, DC_ET_DYN = 3 };

#define DC_ELF_MAX_LOAD 16

struct dc_elfimage {
	unsigned type;              /* DC_ET_EXEC or DC_ET_DYN */
	bool interp;                /* has PT_INTERP: a program ld.so starts */
	unsigned nload;             /* PT_LOAD entries, in table order ... */
	struct dc_elfseg load[DC_ELF_MAX_LOAD];   /* ... the first this many */
	uint64_t span_lo, span_hi;  /* the first segment's page start, the
				     * highest p_vaddr + p_memsz of any */
	bool tls;                   /* has a PT_TLS with p_memsz above zero ... */
	struct dc_elfseg tls_seg;   /* ... this one */
};

/* Reads the ELF header and the program headers of img, which may be only
 * the first len bytes of the file.  Returns 0; DC_EINVAL for an image that
 * is not a well-formed ELF64 LE executable or shared object, one without
 * PT_LOAD, or one with more than DC_ELF_MAX_LOAD of them; DC_ERANGE when
 * the program headers end past len, with *need set to the bytes needed. */
int dc_elfsym_phdrs(const uint8_t *img, size_t len, struct dc_elfimage *out, size_t *need);

/* The DT_SONAME of the image's dynamic section (SHT_DYNAMIC and the string
 * table it links to), or NULL when it has none or the image is malformed.
 * The string points into the image. */
const char *dc_elfsym_soname(const uint8_t *img, size_t len);

/* Placement state: zero it before the first module. */
struct dc_elftls {
	uint64_t offset, freetop, freebottom;
};

/* Places the next module's TLS block (PT_TLS p_memsz, p_align, p_vaddr)
 * and returns its offset below the thread pointer: the block starts at
 * tp - offset.  p_align 0 counts as 1. */
uint64_t dc_elfsym_tls_place(struct dc_elftls *st, uint64_t memsz, uint64_t align,
			     uint64_t vaddr);

#endif
