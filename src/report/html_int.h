/* html_int.h — the parts of the HTML report (html.h), private to it. */
#ifndef DC_REPORT_HTML_INT_H
#define DC_REPORT_HTML_INT_H

#include "analysis/view.h"
#include "report/html.h"

/* The JSON document the page's script draws (html_data.c).  On error err
 * holds the whole message. */
int html_data(struct profile *p, const struct html_opts *o, const struct level_totals *lt,
	      struct sbuf *out, char *err, size_t errlen);

/* A source line the page wants: file (borrowed, file_len bytes) and line. */
struct html_lineref {
	const char *file;
	size_t file_len;
	int64_t line;
};

/* Appends a JSON array with one object per file of refs (sorted here;
 * repeats allowed): {"file":F,"path":P|null,"error":E|null,"nlines":N|null,
 * "lines":{"L":TEXT,...}} (html_source.c). */
void html_sources(struct sbuf *out, struct html_lineref *refs, size_t n,
		  const struct html_opts *o);

/* The page's style sheet and script (html_page.css, html_page.js), made
 * into C strings by the Makefile (build/gen/html_assets.c). */
extern const char html_page_css[];
extern const char html_page_js[];

#endif
