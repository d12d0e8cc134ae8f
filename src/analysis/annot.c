/* annot.c — per-source-line costs for dcprof annotate (see annot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/annot.h"
#include "analysis/view.h"
#include "base/err.h"

double annot_value(const struct table *t, const struct cell *row, int col)
{
	const struct cell *c = &row[col];

	if (c->null)
		return 0;
	return t->cols[col].type == COL_INT ? (double)c->i : c->d;
}

static bool same_str(const struct cell *a, const struct cell *b)
{
	return a->len == b->len && !memcmp(a->s, b->s, a->len);
}

/* Names in byte order, a prefix first. */
static int cmp_name(const char *a, size_t alen, const char *b, size_t blen)
{
	int r = memcmp(a, b, alen < blen ? alen : blen);

	return r ? r : (alen > blen) - (alen < blen);
}

static int cmp_share(const void *pa, const void *pb)
{
	const struct annot_share *a = pa, *b = pb;

	if (a->value != b->value)
		return a->value < b->value ? 1 : -1;
	return cmp_name(a->bucket, a->len, b->bucket, b->len);
}

static int cmp_file(const void *pa, const void *pb)
{
	const struct annot_file *a = pa, *b = pb;

	if (a->metric != b->metric)
		return a->metric < b->metric ? 1 : -1;
	return cmp_name(a->name, a->len, b->name, b->len);
}

/* Adds value to the line's share of bucket (a line touches few buckets). */
static void add_share(struct annot_line *l, size_t *cap, const struct cell *bucket, double value)
{
	for (size_t i = 0; i < l->nshares; i++) {
		if (l->shares[i].len == bucket->len &&
		    !memcmp(l->shares[i].bucket, bucket->s, bucket->len)) {
			l->shares[i].value += value;
			return;
		}
	}
	if (l->nshares == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		l->shares = xrealloc(l->shares, *cap * sizeof *l->shares);
	}
	l->shares[l->nshares++] = (struct annot_share){ xmemdup(bucket->s, bucket->len),
							bucket->len, value };
}

/* Drops the zero shares and orders the rest. */
static void finish_shares(struct annot_line *l)
{
	size_t n = 0;

	for (size_t i = 0; i < l->nshares; i++) {
		if (l->shares[i].value != 0)
			l->shares[n++] = l->shares[i];
		else
			free(l->shares[i].bucket);
	}
	l->nshares = n;
	qsort(l->shares, n, sizeof *l->shares, cmp_share);
}

/* LatPerMiss of a summed row, from its sums. */
static void derive_ratio(struct table *t, struct cell *row, int col)
{
	int misslat = table_find_metric(t, "MissLat");
	int d1r = table_find_metric(t, "D1mr"), d1w = table_find_metric(t, "D1mw");
	int64_t d1;

	row[col].null = true;
	if (misslat < 0 || d1r < 0 || d1w < 0)
		return;
	d1 = row[d1r].i + row[d1w].i;
	if (d1)
		cell_set_real(&row[col], (double)row[misslat].i / (double)d1);
}

/* Builds a's files from its rows (sorted by file, then line). */
static void group_files(struct annot *a)
{
	size_t cap = 0, lcap = 0;
	struct annot_file *f = NULL;

	for (size_t i = 0; i < a->t.nrows; i++) {
		struct cell *row = table_row(&a->t, i);

		if (row[0].len == 0)
			continue;       /* the unknown file */
		if (!f || f->len != row[0].len || memcmp(f->name, row[0].s, row[0].len)) {
			if (a->nfiles == cap) {
				cap = cap ? 2 * cap : 8;
				a->files = xrealloc(a->files, cap * sizeof *a->files);
			}
			f = &a->files[a->nfiles++];
			memset(f, 0, sizeof *f);
			f->name = xmemdup(row[0].s, row[0].len);
			f->len = row[0].len;
			lcap = 0;
		}
		f->metric += annot_value(&a->t, row, a->metric);
		if (row[1].i <= 0)
			continue;
		if (f->nlines == lcap) {
			lcap = lcap ? 2 * lcap : 16;
			f->lines = xrealloc(f->lines, lcap * sizeof *f->lines);
		}
		f->lines[f->nlines++] = (struct annot_line){ row[1].i, i,
			annot_value(&a->t, row, a->metric), NULL, 0 };
	}
}

/* Each file's function with the largest part of its metric (ties by
 * name), and the metric of the unknown file, from the view's rows: sorted
 * by file like a's files before they are ranked, so the files come in the
 * same order. */
static void file_functions(struct annot *a, const struct table *v, int vfile, int vfn,
			   int vmetric)
{
	struct fn_part { const struct cell *fn; double m; } *parts = NULL;
	size_t nparts = 0, cap = 0, fi = 0;
	struct annot_file *f = NULL;

	for (size_t i = 0; i <= v->nrows; i++) {
		const struct cell *vr = i < v->nrows ? table_row(v, i) : NULL;
		size_t k;

		if (vr && !vr[vfile].len) {
			a->no_file += annot_value(v, vr, vmetric);
			continue;
		}
		if (f && (!vr || f->len != vr[vfile].len || memcmp(f->name, vr[vfile].s, f->len))) {
			const struct fn_part *best = NULL;

			for (k = 0; k < nparts; k++)
				if (!best || parts[k].m > best->m ||
				    (parts[k].m == best->m && cmp_name(parts[k].fn->s, parts[k].fn->len, best->fn->s, best->fn->len) < 0))
					best = &parts[k];
			if (best) {
				f->fn = xmemdup(best->fn->s, best->fn->len);
				f->fnlen = best->fn->len;
			}
			nparts = 0;
			f = NULL;
		}
		if (!vr)
			break;
		if (!f) {
			if (fi == a->nfiles)
				break;
			f = &a->files[fi++];
		}
		for (k = 0; k < nparts && !same_str(parts[k].fn, &vr[vfn]); k++)
			;
		if (k == nparts) {
			if (nparts == cap) {
				cap = cap ? 2 * cap : 16;
				parts = xrealloc(parts, cap * sizeof *parts);
			}
			parts[nparts++] = (struct fn_part){ &vr[vfn], 0 };
		}
		parts[k].m += annot_value(v, vr, vmetric);
	}
	free(parts);
}

int annot_build(struct profile *p, const char *object, bool outer, const char *metric,
		struct annot *a, char *err, size_t errlen)
{
	struct view_opts o = { .kind = VIEW_LINE, .object = object, .per_bucket = true,
			       .outer = outer };
	struct table v;
	int map[TABLE_MAXCOLS], nmap = 0, vfile = -1, vline = -1, vbucket = -1, vfn = -1, vmetric;
	size_t share_cap = 0;
	struct annot_line *cur = NULL;
	struct annot_line *lines = NULL;    /* per row of a->t, while grouping */
	size_t lines_cap = 0;
	int rc = -1;

	memset(a, 0, sizeof *a);
	table_init(&a->t);
	table_init(&v);
	if (view_build(p, &o, &v, err, errlen))
		goto out;
	vmetric = table_find_metric(&v, metric);
	if (vmetric < 0) {
		char why[DC_ERRLEN];
		const char *valid;

		/* As report says it: the list of valid names comes with it. */
		table_parse_metrics(&v, "?", map, why, sizeof why);
		valid = strstr(why, "(valid: ");
		snprintf(err, errlen, "unknown sort metric '%s' %s", metric, valid ? valid : "");
		goto out;
	}
	if (v.cols[vmetric].type != COL_INT && v.cols[vmetric].type != COL_PCT) {
		snprintf(err, errlen, "'%s' is a ratio: annotate ranks lines by a metric"
			 " that adds up (a count or a share, e.g. MissLat)", v.cols[vmetric].name);
		goto out;
	}
	table_add_col(&a->t, "file", NULL, COL_STR, true);
	table_add_col(&a->t, "line", NULL, COL_INT, true);
	for (int j = 0; j < v.ncols; j++) {
		const char *name = v.cols[j].name;

		if (!strcmp(name, "file"))
			vfile = j;
		else if (!strcmp(name, "line"))
			vline = j;
		else if (!strcmp(name, "bucket"))
			vbucket = j;
		else if (!strcmp(name, "function"))
			vfn = j;
		if (v.cols[j].key || v.cols[j].type == COL_STR)
			continue;
		map[nmap] = j;
		table_add_col(&a->t, name, v.cols[j].label, v.cols[j].type, false);
		if (j == vmetric)
			a->metric = 2 + nmap;
		nmap++;
	}
	for (int k = 0; k < nmap; k++)
		a->t.total[2 + k] = v.total[map[k]];   /* numbers: no string to own */
	a->total = annot_value(&a->t, a->t.total, a->metric);

	table_sort_keys(&v);
	for (size_t i = 0; i < v.nrows; i++) {
		const struct cell *vr = table_row(&v, i);
		struct cell *row;

		if (!a->t.nrows || !same_str(&table_row(&a->t, a->t.nrows - 1)[0], &vr[vfile]) ||
		    table_row(&a->t, a->t.nrows - 1)[1].i != vr[vline].i) {
			if (cur)
				finish_shares(cur);
			row = table_add_row(&a->t);
			cell_set_str(&row[0], vr[vfile].s, vr[vfile].len);
			cell_set_int(&row[1], vr[vline].i);
			for (int k = 0; k < nmap; k++) {
				if (a->t.cols[2 + k].type == COL_INT)
					cell_set_int(&row[2 + k], 0);
				else
					cell_set_real(&row[2 + k], 0);
			}
			if (a->t.nrows > lines_cap) {
				lines_cap = lines_cap ? 2 * lines_cap : 64;
				lines = xrealloc(lines, lines_cap * sizeof *lines);
			}
			cur = &lines[a->t.nrows - 1];
			memset(cur, 0, sizeof *cur);
			share_cap = 0;
		}
		row = table_row(&a->t, a->t.nrows - 1);
		for (int k = 0; k < nmap; k++) {
			const struct cell *c = &vr[map[k]];

			if (a->t.cols[2 + k].type == COL_INT)
				row[2 + k].i += c->i;
			else if (a->t.cols[2 + k].type == COL_PCT)
				row[2 + k].d += c->null ? 0 : c->d;
		}
		add_share(cur, &share_cap, &vr[vbucket], annot_value(&v, vr, vmetric));
	}
	if (cur)
		finish_shares(cur);
	for (size_t i = 0; i < a->t.nrows; i++)
		for (int k = 0; k < nmap; k++)
			if (a->t.cols[2 + k].type == COL_REAL || a->t.cols[2 + k].type == COL_REAL3)
				derive_ratio(&a->t, table_row(&a->t, i), 2 + k);
	group_files(a);
	file_functions(a, &v, vfile, vfn, vmetric);
	/* Each file's lines take their shares from the rows they came from. */
	for (size_t f = 0; f < a->nfiles; f++) {
		for (size_t l = 0; l < a->files[f].nlines; l++) {
			struct annot_line *al = &a->files[f].lines[l];

			al->shares = lines[al->row].shares;
			al->nshares = lines[al->row].nshares;
			lines[al->row].shares = NULL;
			lines[al->row].nshares = 0;
		}
	}
	qsort(a->files, a->nfiles, sizeof *a->files, cmp_file);
	rc = 0;
out:
	for (size_t i = 0; i < a->t.nrows && lines; i++) {
		for (size_t s = 0; s < lines[i].nshares; s++)
			free(lines[i].shares[s].bucket);
		free(lines[i].shares);
	}
	free(lines);
	table_release(&v);
	if (rc)
		annot_release(a);
	return rc;
}

void annot_release(struct annot *a)
{
	for (size_t f = 0; f < a->nfiles; f++) {
		for (size_t l = 0; l < a->files[f].nlines; l++) {
			for (size_t s = 0; s < a->files[f].lines[l].nshares; s++)
				free(a->files[f].lines[l].shares[s].bucket);
			free(a->files[f].lines[l].shares);
		}
		free(a->files[f].lines);
		free(a->files[f].name);
		free(a->files[f].fn);
	}
	free(a->files);
	table_release(&a->t);
	memset(a, 0, sizeof *a);
	table_init(&a->t);
}
