/* fmt.h — one value escaped for text, CSV or JSON; counts with thousands
 * separators.  Every front-end layer may use it.
 *
 * Names that come from the profiled program are data.  One rule escapes
 * them in every format (docs/cli.md, "Names are data"): control
 * characters (C0, DEL, C1) and bytes that are not valid UTF-8 become \xNN
 * per byte, backslash becomes \\, valid UTF-8 is kept.  Two different
 * names therefore stay different, and the text a CSV or JSON reader gets
 * back is the text output's.  Then each format adds its syntax:
 *  - text: nothing more;
 *  - CSV (RFC 4180): a field containing ',' or '"' is quoted and its quotes
 *    doubled; a field starting with = + - or @ that is not a plain number
 *    gets a leading ' so a spreadsheet cannot run it as a formula;
 *  - JSON: a quoted string with \" and \\ (so the value \x0a is written
 *    "\\x0a"); the output is always valid JSON and valid UTF-8.
 */
#ifndef DC_BASE_FMT_H
#define DC_BASE_FMT_H

#include <stdint.h>

#include "base/sbuf.h"

/* Appends s escaped for a terminal; returns its width in columns. */
size_t fmt_text(struct sbuf *out, const char *s, size_t len);
/* Appends a line of the user's own source text for a terminal: as it is
 * (backslashes and tabs too), but other control characters and bytes that
 * are not valid UTF-8 as \xNN, so a line cannot drive the terminal. */
void fmt_source(struct sbuf *out, const char *s, size_t len);
/* Appends a source line as a JSON string whose value is fmt_source's text
 * (tabs as \t). */
void fmt_json_source(struct sbuf *out, const char *s, size_t len);
void fmt_csv_field(struct sbuf *out, const char *s, size_t len);
/* Appends s as a quoted JSON string. */
void fmt_json_str(struct sbuf *out, const char *s, size_t len);
/* 1234567 -> "1,234,567" */
void fmt_thousands(struct sbuf *out, int64_t v);

#endif
