/* render.h — a table (analysis/table.h) printed as text, CSV or JSON: the
 * output formats of every command that prints a profile (--format). */
#ifndef DC_REPORT_RENDER_H
#define DC_REPORT_RENDER_H

#include <stdio.h>

#include "analysis/table.h"
#include "base/sbuf.h"

enum out_format { FMT_TEXT, FMT_CSV, FMT_JSON };

/* "text", "csv" or "json"; anything else is an error, printed here. */
int render_parse_format(const char *s, enum out_format *f);

/* The first `limit` rows (0 = all), then the totals line if any. */
void render_table_text(FILE *f, const struct table *t, size_t limit);
void render_table_csv(FILE *f, const struct table *t, size_t limit);
/* A JSON array of row objects keyed by column name. */
void render_table_json_rows(struct sbuf *out, const struct table *t, size_t limit);
/* A JSON object of the table's metric totals. */
void render_table_json_totals(struct sbuf *out, const struct table *t);

#endif
