/* dwsym.h — a process's code addresses named from its ELF objects'
 * symbols and DWARF (elfutils' libdw), as Valgrind's debug-information
 * reader names them for the simulator engine (docs/raw-dump.md, "Native
 * engine records").
 *
 * Notes:
 *  - The objects are placed where the process had them: each `map`
 *    record (an executable mapping: addresses, file offset, path) gives
 *    its object's load bias, from the ELF program header of the segment
 *    the offset is in.  Separate debug information is found as Valgrind
 *    finds it (build ID under /usr/lib/debug, .gnu_debuglink).
 *  - Functions come from the symbol table (.symtab, or the debug file's,
 *    else .dynsym), C++ names demangled with their parameter lists, as
 *    Valgrind shows them ("make_nodes()"), C names without a symbol
 *    version (fopen@@GLIBC_2.2.5 is fopen, as finalize names the
 *    simulator's); of several symbols at one address a global one is
 *    preferred, then a weak one, then the shortest name, then the first
 *    in byte order.  An inlined function is named by its DWARF
 *    DW_AT_name (as Valgrind's reader names it: unqualified, "fill").
 *  - The inline chain at an address is innermost first: the inlined
 *    functions (DW_TAG_inlined_subroutine scopes), then the function of
 *    the symbol.  The first frame has the line table's file and line, each
 *    outer frame the call site (DW_AT_call_file, DW_AT_call_line; file 0,
 *    which Valgrind does not read, is unknown).
 *  - Source files are the line table's directory joined with the name,
 *    as Valgrind records them: a file under a relative directory keeps
 *    only its own name.
 *  - Each compilation unit an address falls into is read once: its
 *    scopes indexed by address (dwscope.h), its source files named once;
 *    the line table is libdw's, sorted by address and searched.
 *  - An object that is gone or is no ELF file gives its path and nothing
 *    else; an address in no mapping gives nothing.  Nothing here fails
 *    on bad debug information: what cannot be read is unknown.
 */
#ifndef DC_DWARF_DWSYM_H
#define DC_DWARF_DWSYM_H

#include <stddef.h>
#include <stdint.h>

struct dwsym;

/* One frame of an inline chain; strings are never NULL ("" unknown) and
 * live as long as the dwsym (the frames array itself until the next
 * dwsym_frames). */
struct dwsym_frame {
	const char *fn;
	const char *file;
	uint32_t line;
};

struct dwsym *dwsym_new(void);
void dwsym_free(struct dwsym *d);
/* Adds the mapping [start, end) of path at file offset off; before the
 * first lookup. */
void dwsym_add_map(struct dwsym *d, uint64_t start, uint64_t end, uint64_t off,
		   const char *path);
/* The inline chain at ip into *frames (innermost first, owned by d and
 * valid until the next call), the object's path into *obj ("" when ip is
 * in no mapping) and whether ip is the first instruction of its symbol
 * into *entry; returns the number of frames (1 or more when ip is in a
 * mapping, else 0). */
size_t dwsym_frames(struct dwsym *d, uint64_t ip, const struct dwsym_frame **frames,
		    const char **obj, int *entry);

#endif
