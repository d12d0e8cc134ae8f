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
 *      X.resize(...), X->push_back(...)            -> object X
 *      posix_memalign(&X, ...)                     -> lvalue X
 *      X = [cast] alloc(...)                       -> lvalue X
 *    where alloc is any call (the line is the allocation's, so the call
 *    on it made the block) and X is an identifier followed by `->m`,
 *    `.m` and `[...]` steps (`s->items`, `g_nodes`, `p`, `t.v[i]`,
 *    `this->pts`).  The methods are those of the standard containers
 *    that allocate or insert: resize, reserve, push_back, emplace_back,
 *    insert, emplace, assign, append, push_front, emplace_front,
 *    emplace_hint, try_emplace, insert_or_assign, shrink_to_fit (the
 *    library's code that allocates is skipped in the bucket's name, so
 *    the line is the call's).
 *  - Comments are not code: the caller drops them (allocsite_code_len)
 *    before joining lines, so a trailing marker does not continue a
 *    statement.
 *  - A declaration (`struct node *n = malloc(...)`,
 *    `std::vector<Point> pts(n)`) is not parsed here: dwtype_heap_site
 *    finds it in DWARF by its line.
 *  - Not recognised (the type stays unknown): a block returned or passed
 *    on at once (`return malloc(n)`, `f(malloc(n))`), an lvalue through a
 *    call or a dereference (`*pp = malloc(...)`, `get()->p = ...`), and
 *    macros hiding the allocation.
 */
#ifndef DC_ANALYSIS_ALLOCSITE_H
#define DC_ANALYSIS_ALLOCSITE_H

#include <stddef.h>

enum allocsite_kind { ALLOCSITE_NONE, ALLOCSITE_TYPE, ALLOCSITE_LVALUE, ALLOCSITE_OBJECT };

/* Parses the statement text; out (len bytes) receives the type name
 * (`struct node`, `Particle`), the lvalue or the object with spaces
 * removed (`s->items`, `t.v[]`: subscripts keep their brackets only). */
enum allocsite_kind allocsite_parse(const char *text, char *out, size_t len);

/* The length of a source line up to its last character of code: the
 * comments after it (a line comment, block comments closed on the line),
 * blanks and the newline left out; quotes are respected. */
size_t allocsite_code_len(const char *line);

#endif
