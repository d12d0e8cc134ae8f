/* allocsite.h — what a heap allocation's source line assigns the block to,
 * for its element type (report --by field).
 *
 * Notes:
 *  - The text is the statement at the allocation's file and line (the
 *    line, and the lines before it while the statement continues from
 *    them: those not ending in ';', '{' or '}').  Recognised, in this
 *    order:
 *      new T, new T[n], new T(...), new (args) T   -> type T
 *      (T *) malloc(...), static_cast<T *>(...)    -> type T
 *      posix_memalign(&X, ...)                     -> lvalue X
 *      X = [cast] alloc(...)                       -> lvalue X
 *    where alloc is any call (the line is the allocation's, so the call
 *    on it made the block) and X is an identifier followed by `->m`,
 *    `.m` and `[...]` steps (`s->items`, `g_nodes`, `p`, `t.v[i]`).
 *  - A declaration (`struct node *n = malloc(...)`) is not parsed here:
 *    dwtype_heap_site finds it in DWARF by its line.
 *  - Not recognised (the type stays unknown): a block returned or passed
 *    on at once (`return malloc(n)`, `f(malloc(n))`), an lvalue through a
 *    call or a dereference (`*pp = malloc(...)`, `get()->p = ...`), and
 *    macros hiding the allocation.
 */
#ifndef DC_ANALYSIS_ALLOCSITE_H
#define DC_ANALYSIS_ALLOCSITE_H

#include <stddef.h>

enum allocsite_kind { ALLOCSITE_NONE, ALLOCSITE_TYPE, ALLOCSITE_LVALUE };

/* Parses the statement text; out (len bytes) receives the type name
 * (`struct node`, `Particle`) or the lvalue with spaces removed
 * (`s->items`, `t.v[]`: subscripts keep their brackets only). */
enum allocsite_kind allocsite_parse(const char *text, char *out, size_t len);

#endif
