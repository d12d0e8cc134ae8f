/* demangle.h — C++ symbol names as people read them, by the C++ ABI's
 * demangler (libstdc++'s __cxa_demangle, whose rules GNU tools and
 * Valgrind share).
 *
 * Notes:
 *  - Functions: dwsym names every "_Z" symbol by its demangled form with
 *    the parameter list, as Valgrind shows them.
 *  - Globals: the engines name a data symbol by its symbol name with an
 *    optional " (file.c)" and "@soname" (docs/engine.md, "Data objects
 *    and buckets"); finalize replaces the symbol part of a "_Z" name by
 *    its demangled form, "_ZSt4cout@libstdc++.so.6" reading
 *    "std::cout@libstdc++.so.6" and "_ZTVSt5ctypeIwE" "vtable for
 *    std::ctype<wchar_t>".  A name the demangler rejects stays as it is.
 */
#ifndef DC_DWARF_DEMANGLE_H
#define DC_DWARF_DEMANGLE_H

#include <stddef.h>

/* The demangled form of the symbol name (malloc'ed), or NULL when name is
 * no mangled C++ name. */
char *dc_demangle(const char *name);

/* A global bucket's name name[0..len) with its leading symbol demangled
 * (malloc'ed), or NULL when it has nothing to demangle. */
char *dc_demangle_global(const char *name, size_t len);

#endif
