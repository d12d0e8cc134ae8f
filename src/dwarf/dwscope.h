/* dwscope.h — one DWARF compilation unit's scopes indexed by address, so
 * that the scopes at a code address are found by binary search instead of
 * a walk over the unit (docs/performance.md, "Finalize naming native
 * records").
 *
 * Notes:
 *  - The index answers what libdw's dwarf_getscopes finds, built by the
 *    same walk once for the whole unit: every DIE with address ranges
 *    (dwarf_ranges) under the unit is a scope, its children are searched
 *    only where it covers the address and only if its tag may own scopes
 *    (functions, inlined subroutines, blocks, namespaces and classes);
 *    the children of an imported (partial) unit count as siblings in its
 *    place.  Of siblings covering an address the first in DIE order
 *    wins, and so on down to the innermost.
 *  - Two differences from libdw's walk, where it finds no scope for code
 *    that has one: a DIE without ranges (an abstract instance, a
 *    namespace) is no scope but its children are searched in its place,
 *    and a function's DIE is searched from the unit wherever it is
 *    nested, as its code is never inside its DIE parents'.  GCC nests the
 *    DIE of a function it outlines (an OpenMP parallel region,
 *    NAME._omp_fn.N) in the DIE of the function it came from, which has
 *    no ranges when that function is inlined everywhere and other ranges
 *    when it is not; a nested function (GNU C) is nested alike.
 *  - A lookup gives whether any scope covers the address and the
 *    innermost DW_TAG_inlined_subroutine on the way down (the first one
 *    dwarf_getscopes lists).  Its outer inlined subroutines are those of
 *    its DIE parents (dwarf_getscopes_die) up to the nearest function, in
 *    the unit the DIE is in: the parents of a partial unit's DIE end at
 *    that unit.
 *  - Bad debug information: a DIE's ranges end where they cannot be
 *    read, and an imported unit that imports itself is not walked again
 *    (dwarf_getscopes fails for every address that reaches either).
 *  - The index holds copies of the DIEs of inlined subroutines: it lives
 *    no longer than the Dwarf they are in.
 */
#ifndef DC_DWARF_DWSCOPE_H
#define DC_DWARF_DWSCOPE_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stdint.h>

struct dwscope;

/* The index of compilation unit cu (never NULL: a unit that cannot be
 * read has no scopes). */
struct dwscope *dwscope_build(Dwarf_Die *cu);
void dwscope_free(struct dwscope *s);

/* Whether a scope of the unit covers pc (an address as the DWARF has it,
 * without the load bias); *inl gets the innermost inlined subroutine
 * covering pc, 0 when none. */
bool dwscope_find(const struct dwscope *s, uint64_t pc, uint32_t *inl);

/* The inlined subroutine that inlined subroutine inl is inside, 0 when
 * none. */
uint32_t dwscope_outer(const struct dwscope *s, uint32_t inl);

/* The DIE of inlined subroutine inl. */
Dwarf_Die *dwscope_die(struct dwscope *s, uint32_t inl);

#endif
