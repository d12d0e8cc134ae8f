/* annotate.c — source files with per-line costs (see annotate.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/fmt.h"
#include "report/annotate.h"

static bool is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

int source_find(const char *name, size_t len, const char *const *dirs, size_t ndirs,
		struct sbuf *out)
{
	sbuf_reset(out);
	if (!len || memchr(name, '\0', len))
		return -1;
	for (size_t d = 0; d < ndirs; d++) {
		/* NAME whole, then each tail after a '/', longest first. */
		for (size_t i = 0; i < len; i++) {
			if (i && name[i - 1] != '/')
				continue;
			if (name[i] == '/')
				continue;
			sbuf_reset(out);
			sbuf_adds(out, dirs[d]);
			if (out->len && out->buf[out->len - 1] != '/')
				sbuf_addc(out, '/');
			sbuf_add(out, name + i, len - i);
			if (is_file(out->buf))
				return 0;
		}
	}
	sbuf_reset(out);
	sbuf_add(out, name, len);
	if (is_file(out->buf))
		return 0;
	sbuf_reset(out);
	return -1;
}

int source_read(const char *path, struct source *s, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	struct sbuf b;
	char chunk[65536];
	size_t n, cap = 0;

	memset(s, 0, sizeof *s);
	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -1;
	}
	sbuf_init(&b);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		sbuf_add(&b, chunk, n);
	if (ferror(f)) {
		snprintf(err, errlen, "%s", strerror(errno));
		fclose(f);
		sbuf_release(&b);
		return -1;
	}
	fclose(f);
	s->buf = b.buf;
	s->len = b.len;
	for (size_t i = 0; i < s->len; i++) {
		if (i == 0 || s->buf[i - 1] == '\n') {
			if (s->nlines == cap) {
				cap = cap ? 2 * cap : 256;
				s->start = xrealloc(s->start, cap * sizeof *s->start);
			}
			s->start[s->nlines++] = i;
		}
	}
	return 0;
}

void source_release(struct source *s)
{
	free(s->buf);
	free(s->start);
	memset(s, 0, sizeof *s);
}

/* Line n (1-based) without its line end. */
static void source_line(const struct source *s, size_t n, const char **p, size_t *len)
{
	size_t a = s->start[n - 1], b = n < s->nlines ? s->start[n] : s->len;

	if (b > a && s->buf[b - 1] == '\n')
		b--;
	if (b > a && s->buf[b - 1] == '\r')
		b--;
	*p = s->buf + a;
	*len = b - a;
}

bool annotate_is_hot(const struct annot *a, const struct annot_line *l,
		     const struct annotate_opts *o)
{
	if (o->any_cost)
		return true;
	return l->metric > 0 && l->metric >= o->min_metric;
}

/* A margin cell: '.' for zero or nothing. */
static void margin_cell(struct sbuf *out, const struct table *t, const struct cell *row, int col)
{
	const struct cell *c = row ? &row[col] : NULL;

	if (!c || c->null || (t->cols[col].type == COL_INT ? c->i == 0 : c->d == 0 || !isfinite(c->d)))
		sbuf_addc(out, '.');
	else if (t->cols[col].type == COL_INT)
		fmt_thousands(out, c->i);
	else
		sbuf_addf(out, "%.2f", c->d);
}

struct margin {
	size_t width[TABLE_MAXCOLS];
	size_t total;            /* the whole margin, separators included */
};

static void margin_init(struct margin *m, const struct annot *a, const struct annot_file *f,
			const struct annotate_opts *o)
{
	struct sbuf cell;

	sbuf_init(&cell);
	m->total = 0;
	for (int k = 0; k < o->ncols; k++) {
		const char *label = a->t.cols[o->cols[k]].label;

		m->width[k] = strlen(label);
		for (size_t l = 0; l < f->nlines; l++) {
			sbuf_reset(&cell);
			margin_cell(&cell, &a->t, table_row(&a->t, f->lines[l].row), o->cols[k]);
			if (cell.len > m->width[k])
				m->width[k] = cell.len;
		}
		m->total += m->width[k] + (k ? 2 : 0);
	}
	sbuf_release(&cell);
}

static void pad(struct sbuf *out, size_t n)
{
	while (n--)
		sbuf_addc(out, ' ');
}

static void margin_row(struct sbuf *out, const struct annot *a, const struct margin *m,
		       const struct cell *row, const struct annotate_opts *o)
{
	struct sbuf cell;

	sbuf_init(&cell);
	for (int k = 0; k < o->ncols; k++) {
		sbuf_reset(&cell);
		margin_cell(&cell, &a->t, row, o->cols[k]);
		pad(out, (k ? 2 : 0) + m->width[k] - cell.len);
		sbuf_add(out, cell.buf, cell.len);
	}
	sbuf_release(&cell);
}

static void share_list(struct sbuf *out, const struct annot_line *l, size_t max)
{
	double rest = 0;
	size_t shown = l->nshares <= max ? l->nshares : max - 1;

	for (size_t s = 0; s < l->nshares; s++) {
		double pct = 100.0 * l->shares[s].value / l->metric;

		if (s >= shown) {
			rest += pct;
			continue;
		}
		if (s)
			sbuf_adds(out, ", ");
		fmt_text(out, l->shares[s].bucket, l->shares[s].len);
		/* A share that rounds to 0.0 is still there. */
		sbuf_addf(out, pct < 0.05 ? " <0.1 %%" : " %.1f %%", pct);
	}
	if (shown < l->nshares)
		sbuf_addf(out, ", %zu others %.1f %%", l->nshares - shown, rest);
}

static const char rule[] =
	"--------------------------------------------------------------------------------\n";

/* A value of the metric: a count with thousands separators, else 2 decimals. */
static void metric_text(struct sbuf *out, const struct annot *a, double v)
{
	if (a->t.cols[a->metric].type == COL_INT)
		fmt_thousands(out, (int64_t)llround(v));
	else
		sbuf_addf(out, "%.2f", v);
}

static double pct_of_total(const struct annot *a, double v)
{
	return a->total ? 100.0 * v / a->total : 0.0;
}

static void banner(struct sbuf *out, const struct annot *a, const struct annot_file *f,
		   const char *path)
{
	sbuf_adds(out, rule);
	sbuf_adds(out, "-- ");
	fmt_text(out, f->name, f->len);
	sbuf_addf(out, "  (%s ", a->t.cols[a->metric].name);
	metric_text(out, a, f->metric);
	sbuf_addf(out, ", %.2f %% of the total)\n", pct_of_total(a, f->metric));
	if (path && (strlen(path) != f->len || memcmp(path, f->name, f->len))) {
		sbuf_adds(out, "-- read from ");
		fmt_text(out, path, strlen(path));
		sbuf_addc(out, '\n');
	}
	sbuf_adds(out, rule);
}

size_t annotate_text(struct sbuf *out, const struct annot *a, const struct annot_file *f,
		     const char *path, const struct source *src, const struct annotate_opts *o)
{
	struct margin m;
	size_t beyond = 0, next = 0, prev_hi = 0;

	banner(out, a, f, src ? path : NULL);
	if (!src)
		return 0;
	margin_init(&m, a, f, o);
	for (int k = 0; k < o->ncols; k++) {
		const char *label = a->t.cols[o->cols[k]].label;

		pad(out, (k ? 2 : 0) + m.width[k] - strlen(label));
		sbuf_adds(out, label);
	}
	sbuf_addc(out, '\n');
	for (size_t h = 0; h < f->nlines; h++) {
		const struct annot_line *hl = &f->lines[h];
		size_t lo, hi;

		if (!annotate_is_hot(a, hl, o))
			continue;
		if ((uint64_t)hl->line > src->nlines) {
			beyond++;
			continue;
		}
		lo = (size_t)hl->line > o->context ? (size_t)hl->line - o->context : 1;
		hi = (size_t)hl->line + o->context < src->nlines ? (size_t)hl->line + o->context
			: src->nlines;
		if (lo <= prev_hi)
			lo = prev_hi + 1;
		if (lo > hi)
			continue;       /* inside the region already printed */
		if (lo != prev_hi + 1 || !prev_hi)
			sbuf_addf(out, "\n-- line %zu ----------------------------------------\n", lo);
		for (size_t n = lo; n <= hi; n++) {
			const struct annot_line *l = NULL;
			const char *text;
			size_t len;

			while (next < f->nlines && (size_t)f->lines[next].line < n)
				next++;
			if (next < f->nlines && (size_t)f->lines[next].line == n)
				l = &f->lines[next];
			margin_row(out, a, &m, l ? table_row(&a->t, l->row) : NULL, o);
			source_line(src, n, &text, &len);
			if (len) {
				sbuf_adds(out, "  ");
				fmt_source(out, text, len);
			}
			sbuf_addc(out, '\n');
			if (l && annotate_is_hot(a, l, o) && l->metric > 0 && l->nshares) {
				pad(out, m.total + 2);
				sbuf_addf(out, "^ %s by bucket: ", a->t.cols[a->metric].name);
				share_list(out, l, o->max_shares);
				sbuf_addc(out, '\n');
			}
		}
		prev_hi = hi;
	}
	if (!prev_hi)
		sbuf_adds(out, "\n(no line at or above the threshold; --threshold 0 shows every"
			  " line with accesses)\n");
	sbuf_addc(out, '\n');
	return beyond;
}

static void json_num(struct sbuf *out, const struct table *t, const struct cell *row, int col)
{
	const struct cell *c = &row[col];

	if (c->null || (t->cols[col].type != COL_INT && !isfinite(c->d)))
		sbuf_adds(out, "null");
	else if (t->cols[col].type == COL_INT)
		sbuf_addf(out, "%lld", (long long)c->i);
	else
		sbuf_addf(out, "%.10g", c->d);
}

/* The metric's value: an integer for a count, exactly. */
static void json_metric(struct sbuf *out, const struct annot *a, double v)
{
	if (a->t.cols[a->metric].type == COL_INT)
		sbuf_addf(out, "%lld", (long long)llround(v));
	else
		sbuf_addf(out, "%.10g", v);
}

void annotate_json(struct sbuf *out, const struct annot *a, const struct annot_file *f,
		   const char *path, const struct source *src, const struct annotate_opts *o)
{
	sbuf_adds(out, "{\"file\":");
	fmt_json_str(out, f->name, f->len);
	sbuf_adds(out, ",\"function\":");
	if (f->fn)
		fmt_json_str(out, f->fn, f->fnlen);
	else
		sbuf_adds(out, "null");
	sbuf_adds(out, ",\"path\":");
	if (src)
		fmt_json_str(out, path, strlen(path));
	else
		sbuf_adds(out, "null");
	sbuf_adds(out, ",\"metric\":");
	json_metric(out, a, f->metric);
	sbuf_addf(out, ",\"pct\":%.10g,\"lines\":[", a->total ? 100.0 * f->metric / a->total : 0.0);
	for (size_t i = 0; i < f->nlines; i++) {
		const struct annot_line *l = &f->lines[i];
		const struct cell *row = table_row(&a->t, l->row);

		sbuf_addf(out, "%s{\"line\":%lld,\"text\":", i ? "," : "", (long long)l->line);
		if (src && (uint64_t)l->line <= src->nlines) {
			const char *text;
			size_t len;

			source_line(src, (size_t)l->line, &text, &len);
			fmt_json_source(out, text, len);
		} else {
			sbuf_adds(out, "null");
		}
		sbuf_addf(out, ",\"hot\":%s", annotate_is_hot(a, l, o) ? "true" : "false");
		for (int k = 0; k < o->ncols; k++) {
			sbuf_addc(out, ',');
			fmt_json_str(out, a->t.cols[o->cols[k]].name, strlen(a->t.cols[o->cols[k]].name));
			sbuf_addc(out, ':');
			json_num(out, &a->t, row, o->cols[k]);
		}
		sbuf_adds(out, ",\"buckets\":[");
		for (size_t s = 0; s < l->nshares; s++) {
			sbuf_adds(out, s ? ",{\"bucket\":" : "{\"bucket\":");
			fmt_json_str(out, l->shares[s].bucket, l->shares[s].len);
			sbuf_adds(out, ",\"value\":");
			json_metric(out, a, l->shares[s].value);
			sbuf_addf(out, ",\"pct\":%.10g}",
				  l->metric ? 100.0 * l->shares[s].value / l->metric : 0.0);
		}
		sbuf_adds(out, "]}");
	}
	sbuf_adds(out, "]}");
}

/* One row of the section below: the value, its share and what it is. */
static void rest_row(struct sbuf *out, const struct annot *a, double v, int width)
{
	struct sbuf num;

	sbuf_init(&num);
	metric_text(&num, a, v);
	pad(out, (size_t)width > num.len ? (size_t)width - num.len : 0);
	sbuf_add(out, num.buf, num.len);
	sbuf_addf(out, "  %6.2f %%  ", pct_of_total(a, v));
	sbuf_release(&num);
}

void annotate_rest_text(struct sbuf *out, const struct annot *a, const bool *chosen,
			const bool *shown, bool named)
{
	double rest = a->no_file, other = 0;
	size_t nother = 0;
	int width;
	struct sbuf num;

	for (size_t f = 0; f < a->nfiles; f++) {
		if (!chosen[f]) {
			other += a->files[f].metric;
			nother++;
		} else if (!shown[f]) {
			rest += a->files[f].metric;
		}
	}
	rest += other;
	if (!(rest > 0))
		return;
	sbuf_init(&num);
	metric_text(&num, a, rest);
	width = (int)num.len;
	sbuf_release(&num);
	sbuf_adds(out, rule);
	sbuf_addf(out, "-- %s not shown above: ", a->t.cols[a->metric].name);
	metric_text(out, a, rest);
	sbuf_addf(out, " (%.2f %% of the total)\n", pct_of_total(a, rest));
	sbuf_adds(out, rule);
	for (size_t f = 0; f < a->nfiles; f++) {
		const struct annot_file *af = &a->files[f];

		if (!chosen[f] || shown[f])
			continue;
		rest_row(out, a, af->metric, width);
		fmt_text(out, af->name, af->len);
		if (af->fn) {
			sbuf_adds(out, " (");
			fmt_text(out, af->fn, af->fnlen);
			sbuf_addc(out, ')');
		}
		sbuf_adds(out, ": source not found\n");
	}
	if (nother) {
		rest_row(out, a, other, width);
		sbuf_addf(out, "%zu other file%s%s\n", nother, nother == 1 ? "" : "s",
			  named ? ", not named" : ", below the threshold");
	}
	if (a->no_file > 0) {
		rest_row(out, a, a->no_file, width);
		sbuf_adds(out, "code with no source file (no line debug information)\n");
	}
}

void annotate_rest_json(struct sbuf *out, const struct annot *a, const bool *chosen)
{
	double other = 0;
	size_t nother = 0;

	for (size_t f = 0; f < a->nfiles; f++)
		if (!chosen[f]) {
			other += a->files[f].metric;
			nother++;
		}
	sbuf_addf(out, ",\"other_files\":%zu,\"other_metric\":", nother);
	json_metric(out, a, other);
	sbuf_adds(out, ",\"no_file_metric\":");
	json_metric(out, a, a->no_file);
}
