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
 *  - Local symbols are attributed to a source file: GCC and the linkers
 *    write each object file's locals right after an STT_FILE symbol naming
 *    that file, so a local's file is the last STT_FILE before it.  An
 *    STT_FILE with an empty name (ld's separator before linker-made locals)
 *    ends the attribution.  Globals have no file.
 *  - The image is untrusted: every offset and size is checked against len,
 *    and only the names of symbols the scan uses are read.  Validation runs
 *    over the whole table before the first callback, so a malformed image
 *    yields DC_EINVAL and no calls at all.
 */
#ifndef DC_ELFSYM_H
#define DC_ELFSYM_H

#include "core/port.h"

struct dc_elfsym {
	const char *name;   /* NUL-terminated, points into the image */
	size_t name_len;
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

#endif
