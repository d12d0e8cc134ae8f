/* shorten.h — long names made readable in a text table.
 *
 * Notes (docs/cli.md, "Text"):
 *  - Text output only: CSV and JSON always carry the full name.
 *  - A name of at most SHORTEN_MAX bytes is kept as it is.
 *  - A longer one first loses its template arguments: every outermost
 *    "<...>" becomes "<…>" (std::vector<double, std::allocator<double> >
 *    reads std::vector<…>).  "operator<", "operator<<", "operator<=" and
 *    "operator->" are not brackets; unbalanced brackets are kept.
 *  - Then parameter lists: "f(Domain&, double*)" reads "f(…)" (a "(" right
 *    after a name; "(file.c:12)" after a space stays).
 *  - Then compiler clone suffixes go: ".constprop.N", ".isra.N", ".part.N",
 *    ".cold", and the demangler's " [clone .part.0]" whole (the function is
 *    the one the user wrote); an OpenMP region's "[clone ._omp_fn.0]"
 *    stays: it names the outlined region.
 *  - Then an allocation path "f (a.c:3) < g < h < main" keeps as many of
 *    its first frames as fit, followed by " < …": the allocating code tells
 *    buckets apart better than the outer callers.
 *  - What is still longer keeps its first and last characters around a
 *    "…", cut at UTF-8 character boundaries, so the end of a path stays
 *    visible.
 *  - Two different names that shorten alike in one column are both shown
 *    in full (render.c): rows never look the same when they are not.
 */
#ifndef DC_REPORT_SHORTEN_H
#define DC_REPORT_SHORTEN_H

#include <stddef.h>

#include "base/sbuf.h"

#define SHORTEN_MAX 72

/* Appends name, shortened when longer than SHORTEN_MAX bytes. */
void shorten_name(struct sbuf *out, const char *name, size_t len);

#endif
