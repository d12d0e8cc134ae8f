/* fmt.h — one value escaped for text, CSV or JSON; counts with thousands
 * separators.  Every front-end layer may use it.
 *
 * Names that come from the profiled program are data.  Each format has its
 * own rule (docs/cli.md):
 *  - text: control characters (C0, DEL, C1), backslash and bytes that are
 *    not valid UTF-8 are written as \xNN (backslash as \\); valid UTF-8 is
 *    kept;
 *  - CSV (RFC 4180): a field containing ',', '"', CR or LF is quoted and
 *    its quotes doubled; bytes are otherwise kept;
 *  - JSON: strings get JSON escapes (\" \\ \n \t \uXXXX for other controls);
 *    bytes that are not valid UTF-8 become U+FFFD so the output stays valid.
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
void fmt_csv_field(struct sbuf *out, const char *s, size_t len);
/* Appends s as a quoted JSON string. */
void fmt_json_str(struct sbuf *out, const char *s, size_t len);
/* 1234567 -> "1,234,567" */
void fmt_thousands(struct sbuf *out, int64_t v);

#endif
