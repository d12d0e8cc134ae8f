/* table.c — the rows a report prints, independent of the output format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "analysis/table.h"

void table_init(struct table *t)
{
	memset(t, 0, sizeof *t);
}

static void cell_release(struct cell *c)
{
	free(c->s);
}

void table_release(struct table *t)
{
	for (size_t i = 0; i < t->nrows * (size_t)t->ncols; i++)
		cell_release(&t->cells[i]);
	for (int i = 0; i < t->ncols; i++)
		cell_release(&t->total[i]);
	free(t->cells);
	table_init(t);
}

int table_add_col(struct table *t, const char *name, const char *label,
		  enum col_type type, bool key)
{
	struct column *c = &t->cols[t->ncols];

	/* Columns are fixed before the first row. */
	if (t->nrows || t->ncols == TABLE_MAXCOLS)
		abort();
	c->name = name;
	c->label = label ? label : name;
	c->type = type;
	c->key = key;
	c->show = SHOW_ALL;
	t->total[t->ncols].null = true;
	return t->ncols++;
}

int table_find_metric(const struct table *t, const char *name)
{
	for (int i = 0; i < t->ncols; i++)
		if (!t->cols[i].key && t->cols[i].type != COL_STR &&
		    !strcasecmp(t->cols[i].name, name))
			return i;
	return -1;
}

struct cell *table_add_row(struct table *t)
{
	struct cell *row;

	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->cells = xrealloc(t->cells, t->cap * (size_t)t->ncols * sizeof *t->cells);
	}
	row = &t->cells[t->nrows++ * (size_t)t->ncols];
	memset(row, 0, (size_t)t->ncols * sizeof *row);
	for (int i = 0; i < t->ncols; i++)
		row[i].null = true;
	return row;
}

struct cell *table_row(const struct table *t, size_t i)
{
	return &t->cells[i * (size_t)t->ncols];
}

void cell_set_str(struct cell *c, const char *s, size_t len)
{
	free(c->s);
	c->s = xmemdup(s, len);
	c->len = len;
	c->null = false;
}

void cell_set_int(struct cell *c, int64_t v)
{
	c->i = v;
	c->null = false;
}

void cell_set_real(struct cell *c, double v)
{
	c->d = v;
	c->null = false;
}

/* Nulls sort after values. */
static int cmp_cell(const struct cell *a, const struct cell *b, enum col_type type)
{
	if (a->null || b->null)
		return (int)a->null - (int)b->null;
	switch (type) {
	case COL_STR: {
		size_t n = a->len < b->len ? a->len : b->len;
		int r = memcmp(a->s, b->s, n);
		return r ? r : (a->len > b->len) - (a->len < b->len);
	}
	case COL_INT:
	case COL_BOOL:
		return (a->i > b->i) - (a->i < b->i);
	default:
		return (a->d > b->d) - (a->d < b->d);
	}
}

struct sort_ctx {
	const struct table *t;
	int col;               /* sort column, or -1: the keys alone */
	bool abs;              /* by the column's absolute value */
};

int table_cmp_keys(const struct table *t, const struct cell *a, const struct cell *b)
{
	int r = 0;

	for (int i = 0; !r && i < t->ncols; i++)
		if (t->cols[i].key)
			r = cmp_cell(&a[i], &b[i], t->cols[i].type);
	return r;
}

static struct cell abs_cell(const struct cell *c)
{
	struct cell v = *c;

	v.i = v.i < 0 ? -v.i : v.i;
	v.d = v.d < 0 ? -v.d : v.d;
	return v;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct sort_ctx *ctx = arg;
	const struct table *t = ctx->t;
	const struct cell *a = pa, *b = pb;
	struct cell ac, bc;
	int r;

	if (ctx->col < 0)
		return table_cmp_keys(t, a, b);
	ac = ctx->abs ? abs_cell(&a[ctx->col]) : a[ctx->col];
	bc = ctx->abs ? abs_cell(&b[ctx->col]) : b[ctx->col];
	if (ac.null != bc.null)
		return ac.null ? 1 : -1;
	r = cmp_cell(&bc, &ac, t->cols[ctx->col].type);
	return r ? r : table_cmp_keys(t, a, b);
}

static void sort(struct table *t, int col, bool abs)
{
	struct sort_ctx ctx = { t, col, abs };

	if (t->nrows > 1)
		qsort_r(t->cells, t->nrows, (size_t)t->ncols * sizeof *t->cells, cmp_rows, &ctx);
}

void table_sort(struct table *t, int col)
{
	sort(t, col, false);
}

void table_sort_abs(struct table *t, int col)
{
	sort(t, col, true);
}

void table_sort_keys(struct table *t)
{
	sort(t, -1, false);
}

int table_parse_metrics(const struct table *t, const char *list, int *cols,
			char *err, size_t errlen)
{
	int n = 0;

	for (const char *p = list;; p++) {
		const char *end = strchrnul(p, ',');
		char name[64];
		int col = -1;

		if (end > p && (size_t)(end - p) < sizeof name) {
			memcpy(name, p, (size_t)(end - p));
			name[end - p] = '\0';
			col = table_find_metric(t, name);
		}
		if (col < 0) {
			size_t len;

			if (end == p) {
				snprintf(err, errlen, "empty column name in '%s'", list);
				return -1;
			}
			len = (size_t)snprintf(err, errlen, "unknown column '%.*s' (valid: ",
					       (int)(end - p), p);
			for (int j = 0, first = 1; j < t->ncols && len < errlen; j++) {
				if (t->cols[j].key || t->cols[j].type == COL_STR)
					continue;
				len += (size_t)snprintf(err + len, errlen - len, "%s%s",
							first ? "" : ", ", t->cols[j].name);
				first = 0;
			}
			if (len < errlen)
				snprintf(err + len, errlen - len, ")");
			return -1;
		}
		bool seen = false;
		for (int k = 0; k < n; k++)
			seen |= cols[k] == col;
		if (!seen)
			cols[n++] = col;
		if (!*end)
			return n;
		p = end;
	}
}

void table_keep_cols(struct table *t, const int *cols, int n)
{
	struct cell *cells = xcalloc(t->nrows ? t->nrows * (size_t)n : 1, sizeof *cells);
	struct column newcols[TABLE_MAXCOLS];
	struct cell total[TABLE_MAXCOLS];
	bool kept[TABLE_MAXCOLS] = { false };

	for (int k = 0; k < n; k++) {
		kept[cols[k]] = true;
		newcols[k] = t->cols[cols[k]];
		total[k] = t->total[cols[k]];
		for (size_t i = 0; i < t->nrows; i++)
			cells[i * (size_t)n + k] = table_row(t, i)[cols[k]];
	}
	for (int j = 0; j < t->ncols; j++) {
		if (kept[j])
			continue;
		cell_release(&t->total[j]);
		for (size_t i = 0; i < t->nrows; i++)
			cell_release(&table_row(t, i)[j]);
	}
	free(t->cells);
	t->cells = cells;
	t->cap = t->nrows;
	memcpy(t->cols, newcols, (size_t)n * sizeof *newcols);
	memcpy(t->total, total, (size_t)n * sizeof *total);
	t->ncols = n;
}
