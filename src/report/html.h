/* html.h — dcprof html: one self-contained HTML page showing a profile.
 *
 * Notes (docs/cli.md, "dcprof html"):
 *  - The page is one file: its style sheet and script are embedded
 *    (html_page.css, html_page.js, built into html_assets.c), its plots
 *    are inline SVG drawn by that script; it loads nothing (a Content
 *    Security Policy of default-src 'none' says so to the browser).
 *  - The summary (program, command, status, caches, totals, the level
 *    table) is written as HTML here; everything else is drawn by the
 *    script from one JSON document (html_data.c) embedded in a
 *    <script type="application/json"> element.
 *  - Names from the program are data: in HTML they are escaped as the
 *    text report escapes them, then '&', '<', '>', '"' and '\'' become
 *    entities; in the JSON document '<', '>', '&', U+2028 and U+2029 are
 *    written as \uXXXX, so no string can close the script element; the
 *    script puts names into the page as text nodes only.
 *  - Source lines are read when the page is made, from the file as named
 *    in the profile or below each --source-dir: the hot lines with some
 *    context and the lines the bucket details list.  A file that cannot be
 *    found or read is marked so in the page.
 */
#ifndef DC_REPORT_HTML_H
#define DC_REPORT_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"
#include "store/profile.h"

struct html_opts {
	const char *const *source_dirs;   /* searched in order, then "." */
	size_t nsource_dirs;
	size_t top;                /* functions and lines per bucket, 0 = all */
	size_t hot_lines;          /* annotated source lines, 0 = none */
	int context;               /* source lines shown around a hot line */
};

/* Writes the whole page for profile p to out.  On error err holds the
 * whole message. */
int html_write_page(struct profile *p, const struct html_opts *o, struct sbuf *out,
		    char *err, size_t errlen);

/* Appends s escaped for HTML text or a quoted attribute value: as the
 * text report escapes it (fmt_text), then & < > " ' as entities. */
void html_text(struct sbuf *out, const char *s, size_t len);
/* Appends a JSON document for a <script> element with '<', '>', '&',
 * U+2028 and U+2029 written as \uXXXX: they occur in JSON only inside
 * strings, where the escape means the same character. */
void html_script_json(struct sbuf *out, const char *json, size_t len);

#endif
