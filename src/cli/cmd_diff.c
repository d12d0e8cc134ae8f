/* cmd_diff.c — dcprof diff: what changed from one profile to another, by
 * bucket, function or source line.
 *
 * Both profiles go through the report's view (view.h); rows are matched
 * by their key columns (bucket and kind; function and file; file, line and
 * function), a row missing on one side counting zero there.  For every
 * metric both profiles have, the output has its base value, its new value
 * and the change (new - base); rows are sorted by the size of the change
 * of the sort metric (default MissLat).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/view.h"
#include "base/fmt.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"
#include "report/render.h"
#include "store/sample.h"

enum { OPT_BY = OPT_OWN, OPT_OBJECT, OPT_FUNCTION, OPT_SORT, OPT_TOP, OPT_SAMPLED,
       OPT_INCLUSIVE, OPT_FORMAT };

static const struct opt_def diff_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_BY, 0, "by", OPT_REQUIRED },
	{ OPT_OBJECT, 0, "object", OPT_REQUIRED },
	{ OPT_FUNCTION, 0, "function", OPT_REQUIRED },
	{ OPT_SORT, 0, "sort", OPT_REQUIRED },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_SAMPLED, 0, "sampled", OPT_NOARG },
	{ OPT_INCLUSIVE, 0, "inclusive", OPT_NOARG },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_diff_usage(FILE *f)
{
	fputs("usage: dcprof diff BASE NEW [options]\n"
	      "\n"
	      "Show what changed from profile BASE to profile NEW (say, before and after\n"
	      "a change of layout or loop), by bucket, function or source line: each\n"
	      "metric's value in both and the change NEW - BASE, the largest changes\n"
	      "first.  Rows are matched by name; a row missing on one side counts zero\n"
	      "there.  Columns are described in docs/cli.md.\n"
	      "\n"
	      "  --by object|function|line  one row per bucket, function or source line\n"
	      "                             (default: object; line with --object)\n"
	      "  --object NAME              only accesses to the bucket(s) named NAME\n"
	      "  --function NAME            only accesses made by function NAME\n"
	      "  --sort METRIC              sort by the size of this metric's change; any\n"
	      "                             numeric column of dcprof report, case-\n"
	      "                             insensitive (default: MissLat; InclMissLat\n"
	      "                             with --inclusive)\n"
	      "  --top N                    show the first N rows, 0 = all (default: 20 for\n"
	      "                             text, all for csv and json)\n"
	      "  --sampled                  the sampled estimates of both (record --sample)\n"
	      "  --inclusive                per function with inclusive costs, as report\n"
	      "                             --inclusive (both recorded with --calls)\n"
	      "  --format text|csv|json     output format (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

struct diff {
	const char *path[2];      /* BASE, NEW */
	struct view_opts view;
	bool by_given;
	const char *sort;
	bool top_given;
	size_t top;
	enum out_format format;
};

static const char *const side_name[2] = { "base", "new" };

static int parse(struct diff *d, int argc, char **argv)
{
	struct opt_iter it;
	uint64_t v;
	int id;

	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next(&it, diff_opts)) != OPT_DONE) {
		switch (id) {
		case OPT_ERROR:
			opt_report_error(&it, "diff");
			return -1;
		case OPT_HELP:
			cmd_diff_usage(stdout);
			return 1;
		case OPT_POSITIONAL:
			if (d->path[1]) {
				err_msg("unexpected argument '%s'; see 'dcprof help diff'", it.arg);
				return -1;
			}
			d->path[d->path[0] ? 1 : 0] = it.arg;
			break;
		case OPT_BY:
			d->by_given = true;
			if (view_parse_by(it.arg, &d->view.kind))
				return -1;
			break;
		case OPT_OBJECT:
			d->view.object = it.arg;
			break;
		case OPT_FUNCTION:
			d->view.function = it.arg;
			break;
		case OPT_SORT:
			d->sort = it.arg;
			break;
		case OPT_TOP:
			if (num_parse_u64(it.arg, SIZE_MAX, &v)) {
				err_msg("invalid --top value '%s' (a number of rows, 0 = all)", it.arg);
				return -1;
			}
			d->top = (size_t)v;
			d->top_given = true;
			break;
		case OPT_SAMPLED:
			d->view.sampled = true;
			break;
		case OPT_INCLUSIVE:
			d->view.inclusive = true;
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &d->format))
				return -1;
			break;
		}
	}
	if (!d->path[1]) {
		err_msg("%s; see 'dcprof help diff'", d->path[0] ? "no second profile given"
			  : "no profiles given");
		return -1;
	}
	if (d->view.inclusive && (d->view.sampled || d->view.object ||
				  (d->by_given && d->view.kind != VIEW_FUNCTION))) {
		err_msg("--inclusive is per function: it cannot be combined with --by object,"
			  " --by line, --object or --sampled");
		return -1;
	}
	if (d->view.inclusive)
		d->view.kind = VIEW_FUNCTION;
	else if (d->view.object && !d->by_given)
		d->view.kind = VIEW_LINE;
	if (!d->top_given)
		d->top = d->format == FMT_TEXT ? 20 : 0;
	return 0;
}

/* The columns of a view before its first metric: its keys and the text-only
 * file:line. */
static int descriptors(const struct table *t)
{
	int n = 0;

	while (n < t->ncols && (t->cols[n].key || t->cols[n].type == COL_STR))
		n++;
	return n;
}

/* The output's layout: metric m, column src[0][m] of base's view and
 * src[1][m] of new's, has its base, new and delta values in out columns
 * col[m], col[m] + 1 and col[m] + 2. */
struct layout {
	int ndesc;                /* descriptor columns, the same in both views */
	int presence;             /* the "in" column */
	int nmetrics;
	int src[2][TABLE_MAXCOLS], col[TABLE_MAXCOLS];
	int sort_delta, pct;      /* the sort metric's delta; its percent change */
	const char *sort_name;    /* the sort metric's name in the views */
};

/* The names and labels of the output's columns, which the table does not
 * own. */
struct names {
	char *s[4 * TABLE_MAXCOLS];
	int n;
};

static const char *names_add(struct names *nm, const char *a, const char *b)
{
	size_t len = strlen(a) + strlen(b) + 1;
	char *s = xmalloc(len);

	snprintf(s, len, "%s%s", a, b);
	return nm->s[nm->n++] = s;
}

static void names_release(struct names *nm)
{
	while (nm->n)
		free(nm->s[--nm->n]);
}

/* Lays out out from the two views; -1 (reported) when --sort names no
 * metric both have. */
static int layout_init(struct layout *l, const struct diff *d, const struct table *t[2],
		       struct table *out, struct names *nm)
{
	int sort_col = d->sort ? table_find_metric(t[0], d->sort) : -1;

	l->ndesc = descriptors(t[0]);
	for (int j = 0; j < l->ndesc; j++) {
		int c = table_add_col(out, t[0]->cols[j].name, t[0]->cols[j].label,
				      t[0]->cols[j].type, t[0]->cols[j].key);
		out->cols[c].show = t[0]->cols[j].show;
	}
	l->presence = table_add_col(out, "in", NULL, COL_STR, false);
	l->nmetrics = 0;
	l->sort_delta = -1;
	if (!d->sort)
		sort_col = view_default_sort(t[0], &d->view);
	for (int j = l->ndesc; j < t[0]->ncols; j++) {
		const struct column *c = &t[0]->cols[j];
		int other = table_find_metric(t[1], c->name), b, n, x;
		bool headline = j == sort_col;

		if (other < 0 || c->type == COL_STR)
			continue;
		l->src[0][l->nmetrics] = j;
		l->src[1][l->nmetrics] = other;
		l->col[l->nmetrics] = out->ncols;
		l->nmetrics++;
		b = table_add_col(out, names_add(nm, c->name, "_base"), names_add(nm, c->label, " base"),
				  c->type, false);
		n = table_add_col(out, names_add(nm, c->name, "_new"), names_add(nm, c->label, " new"),
				  c->type, false);
		/* U+0394 GREEK CAPITAL LETTER DELTA */
		x = table_add_col(out, names_add(nm, c->name, "_delta"),
				  names_add(nm, "\xce\x94", c->label), c->type, false);
		/* Text shows the sort metric's three and the other counts' change. */
		out->cols[b].show = out->cols[n].show = headline ? SHOW_ALL : SHOW_MACHINE;
		out->cols[x].show = headline || c->type == COL_INT ? SHOW_ALL : SHOW_MACHINE;
		if (headline) {
			l->sort_delta = x;
			l->sort_name = c->name;
			l->pct = table_add_col(out, "delta_pct", "\xce\x94%", COL_PCT, false);
		}
	}
	if (l->sort_delta < 0) {
		struct sbuf valid;

		sbuf_init(&valid);
		for (int m = 0; m < l->nmetrics; m++) {
			sbuf_adds(&valid, m ? ", " : "");
			sbuf_adds(&valid, t[0]->cols[l->src[0][m]].name);
		}
		err_msg("unknown sort metric '%s' (valid: %s)", d->sort, valid.buf);
		sbuf_release(&valid);
		return -1;
	}
	return 0;
}

static double value(const struct cell *c, enum col_type type)
{
	return type == COL_INT ? (double)c->i : c->d;
}

/* Fills the base, new and delta cells of one output row (or the totals)
 * from a row of each view; a NULL view row counts zero (null for the
 * metrics that are ratios, COL_REAL: a ratio of nothing is undefined). */
static void fill(const struct layout *l, const struct table *t[2], const struct cell *in[2],
		 struct table *out, struct cell *row)
{
	for (int m = 0; m < l->nmetrics; m++) {
		enum col_type type = out->cols[l->col[m]].type;
		struct cell *dst = &row[l->col[m]];
		bool ratio = type == COL_REAL;

		for (int s = 0; s < 2; s++) {
			const struct cell *c = in[s] ? &in[s][l->src[s][m]] : NULL;

			/* metric cells hold numbers only, never strings */
			if (c && !c->null)
				dst[s] = *c;
			else if (!c && !ratio && type == COL_INT)
				cell_set_int(&dst[s], 0);
			else if (!c && !ratio)
				cell_set_real(&dst[s], 0);
		}
		if (dst[0].null || dst[1].null)
			continue;
		if (type == COL_INT)
			cell_set_int(&dst[2], num_sub(dst[1].i, dst[0].i, NULL));
		else
			cell_set_real(&dst[2], dst[1].d - dst[0].d);
		if (l->col[m] + 2 == l->sort_delta) {
			double base = value(&dst[0], type);

			if (base != 0)
				cell_set_real(&row[l->pct], 100.0 * value(&dst[2], type) / fabs(base));
		}
	}
}

static void add_row(const struct layout *l, const struct table *t[2], const struct cell *in[2],
		    struct table *out)
{
	struct cell *row = table_add_row(out);
	const struct cell *keys = in[0] ? in[0] : in[1];
	const char *presence = in[0] && in[1] ? "both" : in[0] ? "base" : "new";

	for (int j = 0; j < l->ndesc; j++)
		if (!keys[j].null) {
			if (t[0]->cols[j].type == COL_STR)
				cell_set_str(&row[j], keys[j].s, keys[j].len);
			else
				cell_set_int(&row[j], keys[j].i);
		}
	cell_set_str(&row[l->presence], presence, strlen(presence));
	fill(l, t, in, out, row);
}

/* Joins the two views, sorted by their keys, into out. */
static void join(const struct layout *l, struct table *t[2], struct table *out)
{
	const struct table *ct[2] = { t[0], t[1] };
	size_t i = 0, k = 0;

	table_sort_keys(t[0]);
	table_sort_keys(t[1]);
	while (i < t[0]->nrows || k < t[1]->nrows) {
		const struct cell *in[2] = { NULL, NULL };
		int c;

		if (i == t[0]->nrows)
			c = 1;
		else if (k == t[1]->nrows)
			c = -1;
		else
			c = table_cmp_keys(t[0], table_row(t[0], i), table_row(t[1], k));
		if (c <= 0)
			in[0] = table_row(t[0], i++);
		if (c >= 0)
			in[1] = table_row(t[1], k++);
		add_row(l, ct, in, out);
	}
	if (t[0]->has_total && t[1]->has_total) {
		const struct cell *tot[2] = { t[0]->total, t[1]->total };

		fill(l, ct, tot, out, out->total);
		out->has_total = true;
	}
}

static void print_text_header(const struct diff *d, struct profile p[2], struct header h[2],
			      const struct table *out, const struct layout *l)
{
	const struct cell *tot = out->total;
	const struct column *c = &out->cols[l->sort_delta];
	struct sbuf s;

	sbuf_init(&s);
	for (int k = 0; k < 2; k++) {
		header_text_line(&s, k ? "new:" : "base:", d->path[k], strlen(d->path[k]));
		header_text(&s, &p[k], &h[k]);
	}
	if (p[0].nlevels != p[1].nlevels)
		sbuf_addf(&s, "%-10sthe profiles have %d and %d cache levels: DLmr and DLmw are"
			  " each one's last level\n", "note:", p[0].nlevels, p[1].nlevels);
	sbuf_addf(&s, "%-10s", "view:");
	view_describe(&s, &d->view);
	sbuf_addf(&s, "%s; the largest changes of %s first\n", d->view.sampled ? ", sampled" : "",
		  l->sort_name);
	if (out->has_total && !tot[l->sort_delta].null) {
		const struct cell *b = &tot[l->sort_delta - 2], *n = &tot[l->sort_delta - 1];

		sbuf_addf(&s, "%-10s%s ", "total:", l->sort_name);
		if (c->type == COL_INT) {
			fmt_thousands(&s, b->i);
			sbuf_adds(&s, " -> ");
			fmt_thousands(&s, n->i);
		} else {
			sbuf_addf(&s, "%.2f -> %.2f", b->d, n->d);
		}
		if (!tot[l->pct].null)
			sbuf_addf(&s, " (%+.2f%%)", tot[l->pct].d);
		sbuf_adds(&s, "\n");
	}
	sbuf_adds(&s, "\n");
	fwrite(s.buf, 1, s.len, stdout);
	sbuf_release(&s);
}

static void print_json(const struct diff *d, struct profile p[2], struct header h[2],
		       const struct table *out, const struct layout *l)
{
	struct sbuf s;

	sbuf_init(&s);
	for (int k = 0; k < 2; k++) {
		sbuf_addf(&s, "%s\"%s\":", k ? "," : "{", side_name[k]);
		header_json(&s, &p[k], &h[k]);
		sbuf_adds(&s, ",\"path\":");
		fmt_json_str(&s, d->path[k], strlen(d->path[k]));
		sbuf_adds(&s, "}");
	}
	sbuf_addf(&s, ",\"view\":\"%s\",\"sampled\":%s", view_name(d->view.kind),
		  d->view.sampled ? "true" : "false");
	view_json_filters(&s, &d->view);
	sbuf_addf(&s, ",\"sort\":\"%s\",\"totals\":", l->sort_name);
	render_table_json_totals(&s, out);
	sbuf_addf(&s, ",\"total_rows\":%zu,\"rows\":", out->nrows);
	render_table_json_rows(&s, out, d->top);
	sbuf_adds(&s, "}\n");
	fwrite(s.buf, 1, s.len, stdout);
	sbuf_release(&s);
}

/* --object and --function must name something in at least one profile. */
static int check_filters(const struct diff *d, struct profile p[2], char *err, size_t errlen)
{
	char other[DC_ERRLEN];

	if (!view_check_filters(&p[0], &d->view, err, errlen) ||
	    !view_check_filters(&p[1], &d->view, other, sizeof other))
		return 0;
	return -1;
}

int cmd_diff(int argc, char **argv)
{
	struct diff d = { 0 };
	struct profile p[2];
	struct header h[2];
	struct table t[2], out;
	struct table *tp[2] = { &t[0], &t[1] };
	const struct table *ct[2] = { &t[0], &t[1] };
	struct layout l;
	struct names nm = { .n = 0 };
	int rc;
	char err[DC_ERRLEN];

	rc = parse(&d, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open_cmd(&p[0], d.path[0]))
		return DC_EXIT_ERROR;
	if (profile_open_cmd(&p[1], d.path[1])) {
		profile_close(&p[0]);
		return DC_EXIT_ERROR;
	}
	for (int k = 0; k < 2; k++) {
		header_init(&h[k]);
		table_init(&t[k]);
	}
	table_init(&out);
	rc = DC_EXIT_ERROR;
	if (check_filters(&d, p, err, sizeof err)) {
		err_msg("%s (in neither profile)", err);
		goto out;
	}
	for (int k = 0; k < 2; k++) {
		struct sample_info si;

		if ((d.view.sampled && sample_info_read(&p[k], &si, err, sizeof err)) ||
		    (d.format != FMT_CSV && header_read(&p[k], &h[k], err, sizeof err)) ||
		    view_build(&p[k], &d.view, &t[k], err, sizeof err)) {
			err_msg("%s", err);
			goto out;
		}
	}
	if (layout_init(&l, &d, ct, &out, &nm))
		goto out;
	join(&l, tp, &out);
	table_sort_abs(&out, l.sort_delta);
	switch (d.format) {
	case FMT_TEXT:
		print_text_header(&d, p, h, &out, &l);
		render_table_text(stdout, &out, d.top);
		if (d.top && d.top < out.nrows)
			printf("(%zu of %zu rows shown; --top 0 shows all)\n", d.top, out.nrows);
		break;
	case FMT_CSV:
		render_table_csv(stdout, &out, d.top);
		break;
	case FMT_JSON:
		print_json(&d, p, h, &out, &l);
		break;
	}
	rc = err_flush_output();
out:
	table_release(&out);
	names_release(&nm);
	for (int k = 0; k < 2; k++) {
		table_release(&t[k]);
		header_release(&h[k]);
		profile_close(&p[k]);
	}
	return rc;
}
