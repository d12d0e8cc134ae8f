/* render.c — a table as text, CSV or JSON (see render.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fmt.h"
#include "report/render.h"
#include "report/shorten.h"

/* csv/json numbers: integers exactly, reals with 10 significant digits. */
static void add_machine_num(struct sbuf *out, const struct cell *c, enum col_type type,
			    const char *null)
{
	if (c->null || (type != COL_INT && type != COL_BOOL && !isfinite(c->d)))
		sbuf_adds(out, null);
	else if (type == COL_BOOL)
		sbuf_adds(out, c->i ? "true" : "false");
	else if (type == COL_INT)
		sbuf_addf(out, "%lld", (long long)c->i);
	else
		sbuf_addf(out, "%.10g", c->d);
}

static size_t text_cell(struct sbuf *out, const struct cell *c, enum col_type type)
{
	size_t start = out->len;

	if (c->null) {
		sbuf_addc(out, '-');
		return 1;
	}
	switch (type) {
	case COL_STR: {
		struct sbuf name;
		size_t w;

		if (c->len <= SHORTEN_MAX)
			return fmt_text(out, c->s, c->len);
		sbuf_init(&name);
		shorten_name(&name, c->s, c->len);
		w = fmt_text(out, name.buf, name.len);
		sbuf_release(&name);
		return w;
	}
	case COL_INT:
		fmt_thousands(out, c->i);
		break;
	case COL_BOOL:
		sbuf_adds(out, c->i ? "yes" : "no");
		break;
	default:
		if (isfinite(c->d))
			sbuf_addf(out, type == COL_REAL3 ? "%.3f" : "%.2f", c->d);
		else
			sbuf_addc(out, '-');
	}
	return out->len - start;
}

struct rendered {
	struct sbuf text;
	size_t width;
};

static size_t shown_rows(const struct table *t, size_t limit)
{
	return limit && limit < t->nrows ? limit : t->nrows;
}

static void pad(struct sbuf *out, size_t n)
{
	while (n--)
		sbuf_addc(out, ' ');
}

struct shown {
	const struct rendered *x;
	const struct cell *c;
	size_t row;
};

static int cmp_shown(const void *a, const void *b)
{
	const struct shown *p = a, *q = b;
	size_t n = p->x->text.len < q->x->text.len ? p->x->text.len : q->x->text.len;
	int d = memcmp(p->x->text.buf, q->x->text.buf, n);

	if (d)
		return d;
	return p->x->text.len < q->x->text.len ? -1 : p->x->text.len > q->x->text.len;
}

/* Names that differ but were shortened alike (shorten.h) are shown in
 * full, so two rows never read the same. */
static void unshorten_collisions(const struct table *t, struct rendered *r, size_t nrows,
				 size_t ncols, const int *vis, size_t *width)
{
	size_t body = nrows - 1 - t->has_total;
	struct shown *sh;

	if (body < 2)
		return;
	sh = xcalloc(body, sizeof *sh);
	for (size_t k = 0; k < ncols; k++) {
		if (t->cols[vis[k]].type != COL_STR)
			continue;
		for (size_t i = 0; i < body; i++) {
			sh[i].x = &r[(i + 1) * ncols + k];
			sh[i].c = &table_row(t, i)[vis[k]];
			sh[i].row = i + 1;
		}
		qsort(sh, body, sizeof *sh, cmp_shown);
		/* each run of rows that show alike: in full if their names differ */
		for (size_t a = 0, b; a < body; a = b) {
			bool differ = false;

			for (b = a + 1; b < body && !cmp_shown(&sh[a], &sh[b]); b++)
				differ |= sh[a].c->null || sh[b].c->null || sh[a].c->len != sh[b].c->len ||
					  memcmp(sh[a].c->s, sh[b].c->s, sh[a].c->len);
			for (size_t j = a; differ && j < b; j++) {
				struct rendered *x = &r[sh[j].row * ncols + k];

				if (sh[j].c->null || sh[j].c->len <= SHORTEN_MAX)
					continue;
				sbuf_reset(&x->text);
				x->width = fmt_text(&x->text, sh[j].c->s, sh[j].c->len);
				if (x->width > width[k])
					width[k] = x->width;
			}
		}
	}
	free(sh);
}

void render_table_text(FILE *f, const struct table *t, size_t limit)
{
	size_t nrows = shown_rows(t, limit) + 1 + t->has_total;
	size_t width[TABLE_MAXCOLS] = { 0 };
	int vis[TABLE_MAXCOLS];
	size_t ncols = 0;
	struct rendered *r;
	struct sbuf line;

	for (int j = 0; j < t->ncols; j++)
		if (t->cols[j].show != SHOW_MACHINE)
			vis[ncols++] = j;
	r = xcalloc(nrows * ncols, sizeof *r);
	/* Render every cell once to learn the column widths. */
	for (size_t i = 0; i < nrows; i++) {
		for (size_t k = 0; k < ncols; k++) {
			const struct column *col = &t->cols[vis[k]];
			struct rendered *x = &r[i * ncols + k];
			const struct cell *c;

			sbuf_init(&x->text);
			if (i == 0) {
				x->width = fmt_text(&x->text, col->label, strlen(col->label));
			} else {
				bool total = t->has_total && i == nrows - 1;

				c = total ? &t->total[vis[k]] : &table_row(t, i - 1)[vis[k]];
				if (total && c->null)
					x->width = 0;   /* blank in the totals line */
				else
					x->width = text_cell(&x->text, c, col->type);
			}
			if (x->width > width[k])
				width[k] = x->width;
		}
	}
	unshorten_collisions(t, r, nrows, ncols, vis, width);
	sbuf_init(&line);
	for (size_t i = 0; i < nrows; i++) {
		sbuf_reset(&line);
		for (size_t k = 0; k < ncols; k++) {
			struct rendered *x = &r[i * ncols + k];
			bool left = t->cols[vis[k]].type == COL_STR;

			if (k)
				sbuf_add(&line, "  ", 2);
			if (!left)
				pad(&line, width[k] - x->width);
			sbuf_add(&line, x->text.buf, x->text.len);
			if (left && k + 1 < ncols)
				pad(&line, width[k] - x->width);
		}
		while (line.len && line.buf[line.len - 1] == ' ')
			line.len--;
		sbuf_addc(&line, '\n');
		fwrite(line.buf, 1, line.len, f);
	}
	sbuf_release(&line);
	for (size_t i = 0; i < nrows * ncols; i++)
		sbuf_release(&r[i].text);
	free(r);
}

void render_table_csv(FILE *f, const struct table *t, size_t limit)
{
	size_t n = shown_rows(t, limit);
	struct sbuf line;

	sbuf_init(&line);
	for (int j = 0; j < t->ncols; j++) {
		if (t->cols[j].show == SHOW_TEXT)
			continue;
		if (line.len)
			sbuf_addc(&line, ',');
		fmt_csv_field(&line, t->cols[j].name, strlen(t->cols[j].name));
	}
	sbuf_addc(&line, '\n');
	fwrite(line.buf, 1, line.len, f);
	for (size_t i = 0; i < n; i++) {
		const struct cell *row = table_row(t, i);
		bool first = true;

		sbuf_reset(&line);
		for (int j = 0; j < t->ncols; j++) {
			if (t->cols[j].show == SHOW_TEXT)
				continue;
			if (!first)
				sbuf_addc(&line, ',');
			first = false;
			if (t->cols[j].type == COL_STR && !row[j].null)
				fmt_csv_field(&line, row[j].s, row[j].len);
			else
				add_machine_num(&line, &row[j], t->cols[j].type, "");
		}
		sbuf_addc(&line, '\n');
		fwrite(line.buf, 1, line.len, f);
	}
	sbuf_release(&line);
}

static void json_object(struct sbuf *out, const struct table *t, const struct cell *row,
			bool metrics_only)
{
	bool first = true;

	sbuf_addc(out, '{');
	for (int j = 0; j < t->ncols; j++) {
		const struct column *col = &t->cols[j];

		if (col->show == SHOW_TEXT || (metrics_only && (col->key || col->type == COL_STR)))
			continue;
		if (!first)
			sbuf_addc(out, ',');
		first = false;
		fmt_json_str(out, col->name, strlen(col->name));
		sbuf_addc(out, ':');
		if (col->type == COL_STR && !row[j].null)
			fmt_json_str(out, row[j].s, row[j].len);
		else
			add_machine_num(out, &row[j], col->type, "null");
	}
	sbuf_addc(out, '}');
}

void render_table_json_rows(struct sbuf *out, const struct table *t, size_t limit)
{
	size_t n = shown_rows(t, limit);

	sbuf_addc(out, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_addc(out, ',');
		json_object(out, t, table_row(t, i), false);
	}
	sbuf_addc(out, ']');
}

void render_table_json_totals(struct sbuf *out, const struct table *t)
{
	json_object(out, t, t->total, true);
}

int render_parse_format(const char *s, enum out_format *f)
{
	static const char *const names[] = { "text", "csv", "json" };

	for (int i = 0; i < 3; i++) {
		if (!strcmp(s, names[i])) {
			*f = (enum out_format)i;
			return 0;
		}
	}
	err_msg("invalid --format value '%s' (text, csv or json)", s);
	return -1;
}
