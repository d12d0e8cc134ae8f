/* table.h — the rows a report prints, independent of the output format.
 *
 * A table has typed columns and rows of cells.  Key columns identify a row
 * (bucket, function, file, line, thread); the others are metrics.  Strings
 * are owned by the table.  fmt.h renders a table as text, CSV or JSON.
 */
#ifndef DC_ANALYSIS_TABLE_H
#define DC_ANALYSIS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The widest table: a line view per thread (5 keys) with 7 metrics and, per
 * level of 4, 2 misses and 3 cache-use metrics is 32 columns; report
 * --inclusive adds 26 to a function view's 30 (28 metrics + 26); dcprof
 * diff --inclusive has its 2 keys, a presence column, 3 per metric (54)
 * and a percentage: 166. */
#define TABLE_MAXCOLS 192

enum col_type {
	COL_STR,   /* text taken from the profile */
	COL_INT,   /* integer count */
	COL_REAL,  /* ratio, 2 decimals in text */
	COL_REAL3, /* small ratio (footprint growth), 3 decimals in text */
	COL_PCT,   /* percentage, 2 decimals in text */
	COL_BOOL,  /* cell_set_int 0 or 1: text yes/no, csv and json false/true */
};

/* Where a column appears: text output may show a combined column (such
 * as file:line) where csv and json have its parts. */
enum col_show { SHOW_ALL, SHOW_TEXT, SHOW_MACHINE };

struct column {
	const char *name;      /* stable name used by csv, json and --sort */
	const char *label;     /* heading in text output */
	enum col_type type;
	bool key;
	enum col_show show;
};

struct cell {
	bool null;             /* no value (json null, empty csv field, '-') */
	int64_t i;             /* COL_INT */
	double d;              /* COL_REAL, COL_REAL3, COL_PCT */
	char *s;               /* COL_STR, NUL-terminated, may contain NUL */
	size_t len;
};

struct table {
	struct column cols[TABLE_MAXCOLS];
	int ncols;
	struct cell *cells;    /* nrows * ncols */
	size_t nrows, cap;
	struct cell total[TABLE_MAXCOLS];
	bool has_total;
};

void table_init(struct table *t);
void table_release(struct table *t);
/* label NULL means the same as name.  Returns the column index.  The
 * column shows everywhere; set cols[i].show to restrict it. */
int table_add_col(struct table *t, const char *name, const char *label,
		  enum col_type type, bool key);
/* Index of the non-key numeric column called name (case-insensitive), or -1. */
int table_find_metric(const struct table *t, const char *name);
/* Appends a row of null cells and returns it. */
struct cell *table_add_row(struct table *t);
struct cell *table_row(const struct table *t, size_t i);
void cell_set_str(struct cell *c, const char *s, size_t len);
void cell_set_int(struct cell *c, int64_t v);
void cell_set_real(struct cell *c, double v);
/* Sorts rows by column col descending (nulls last), ties by the key columns
 * ascending in column order. */
void table_sort(struct table *t, int col);
/* The same by the absolute value of col. */
void table_sort_abs(struct table *t, int col);
/* Sorts rows by their key columns ascending, in column order. */
void table_sort_keys(struct table *t);
/* Compares two rows of t by their key columns: < 0, 0 or > 0. */
int table_cmp_keys(const struct table *t, const struct cell *a, const struct cell *b);
/* Parses a comma-separated list of metric names (non-key numeric columns,
 * as table_find_metric matches them) into their column indexes, in the
 * list's order, repeats dropped; at most TABLE_MAXCOLS.  Returns how many,
 * or -1 with err saying "unknown column 'X' (valid: ...)" or that the list
 * is empty. */
int table_parse_metrics(const struct table *t, const char *list, int *cols,
			char *err, size_t errlen);
/* Keeps only columns cols[0..n-1], in that order (rows and totals too). */
void table_keep_cols(struct table *t, const int *cols, int n);

#endif
