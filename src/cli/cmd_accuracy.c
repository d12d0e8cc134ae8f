/* cmd_accuracy.c — dcprof accuracy: sampled miss shares against the exact
 * ones from the same run, in the layout of seeds/002 Table 1 and Table 11.
 *
 * Notes (docs/cli.md defines every figure):
 *  - A bucket's count of the sampled event is exact from `cost` and
 *    estimated from `cost_sampled` (sample.h); its share is its count over
 *    all buckets' counts.
 *  - Each order (actual, sampled) ranks the buckets with a nonzero count
 *    by count, descending, ties by name and then id; a bucket without
 *    events has no rank in that order.
 *  - Rows are the union of the top N of both orders, in actual order.
 *  - The binomial standard error of a share p estimated from n samples is
 *    sqrt(p (1 - p) / n), at most 50 / sqrt(n) percentage points.
 *  - Spearman's rho is Pearson's correlation of the ranks of the actual
 *    top N among themselves by actual and by sampled count, tied counts
 *    sharing their average rank; null below two buckets or when either
 *    ranking is all ties.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/approx.h"
#include "base/fmt.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"
#include "report/render.h"
#include "store/sample.h"

enum { OPT_TOP = OPT_OWN, OPT_FORMAT };

static const struct opt_def accuracy_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_accuracy_usage(FILE *f)
{
	fputs("usage: dcprof accuracy PROFILE [options]\n"
	      "\n"
	      "Compare the sampled estimates of a profile recorded with --sample=EVENT:N\n"
	      "with the exact counts of the same run: each top bucket's rank and share\n"
	      "of the events, actual and sampled, the standard error the number of\n"
	      "samples implies, the largest error, Spearman's rank correlation and the\n"
	      "overlap of the top N.  The figures are defined in docs/cli.md.\n"
	      "\n"
	      "  --top N                    the top N buckets of each order (default: 10)\n"
	      "  --format text|csv|json     output format; csv has the rows only\n"
	      "                             (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

enum { ACTUAL, SAMPLED };

struct bucket_count {
	int64_t id;
	char *name, *kind;
	size_t name_len;
	int64_t count[2];
	size_t rank[2];         /* 1-based position in each order; 0 = no events */
	bool row;
};

struct accuracy {
	const char *path;
	size_t top;
	enum out_format format;
	struct sample_info si;
	struct bucket_count *b;
	size_t n;
	size_t *order[2];       /* indexes into b, by each order */
	int64_t total[2];
	size_t ntop;            /* buckets in the actual top N */
	size_t overlap;
	bool has_max_error, has_spearman;
	double max_error, spearman;
};

static int parse(struct accuracy *a, int argc, char **argv)
{
	struct opt_iter it;
	uint64_t v;
	int id;

	a->top = 10;
	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, accuracy_opts, "accuracy", cmd_accuracy_usage, &a->path)) > 0) {
		switch (id) {
		case OPT_TOP:
			if (num_parse_u64(it.arg, SIZE_MAX, &v) || v == 0) {
				err_msg("invalid --top value '%s' (a number of buckets, 1 or more)",
					  it.arg);
				return -1;
			}
			a->top = (size_t)v;
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &a->format))
				return -1;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	return 0;
}

/* Every bucket with a nonzero exact or sampled count of the event. */
static int read_counts(struct profile *p, struct accuracy *a, char *err, size_t errlen)
{
	struct sbuf ev, sql;
	sqlite3_stmt *st;
	size_t cap = 0;
	bool ovf = false;
	int rc;

	sbuf_init(&ev);
	sbuf_init(&sql);
	sample_event_sql(&ev, &a->si);
	sbuf_addf(&sql, "SELECT b.id, b.name, b.kind,"
		  " (SELECT SUM(%s) FROM cost c WHERE c.bucket = b.id),"
		  " (SELECT SUM(%s) FROM cost_sampled c WHERE c.bucket = b.id)"
		  " FROM bucket b", ev.buf, ev.buf);
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	sbuf_release(&ev);
	sbuf_release(&sql);
	if (rc != SQLITE_OK)
		goto read_error;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bucket_count *b;
		int64_t actual = sqlite3_column_int64(st, 3), sampled = sqlite3_column_int64(st, 4);

		if (!actual && !sampled)
			continue;
		if (a->n == cap) {
			cap = cap ? 2 * cap : 64;
			a->b = xrealloc(a->b, cap * sizeof *a->b);
		}
		b = &a->b[a->n++];
		memset(b, 0, sizeof *b);
		b->id = sqlite3_column_int64(st, 0);
		b->name_len = (size_t)sqlite3_column_bytes(st, 1);
		b->name = xmemdup(sqlite3_column_blob(st, 1), b->name_len);
		b->kind = xmemdup(sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2));
		b->count[ACTUAL] = actual;
		b->count[SAMPLED] = sampled;
		a->total[ACTUAL] = num_add(a->total[ACTUAL], actual, &ovf);
		a->total[SAMPLED] = num_add(a->total[SAMPLED], sampled, &ovf);
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE && ovf)
		profile_overflow_error(p, err, errlen);
	if (rc == SQLITE_DONE)
		return ovf ? -1 : 0;
read_error:
	profile_read_error(p, err, errlen);
	return -1;
}

struct order_ctx {
	const struct bucket_count *b;
	int which;
};

static int cmp_order(const void *pa, const void *pb, void *arg)
{
	const struct order_ctx *ctx = arg;
	const struct bucket_count *x = &ctx->b[*(const size_t *)pa];
	const struct bucket_count *y = &ctx->b[*(const size_t *)pb];
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int r;

	if (x->count[ctx->which] != y->count[ctx->which])
		return x->count[ctx->which] > y->count[ctx->which] ? -1 : 1;
	r = memcmp(x->name, y->name, n);
	if (r)
		return r;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Sorts both orders, ranks the buckets and marks the rows. */
static void rank(struct accuracy *a)
{
	size_t ntop[2];

	for (int w = ACTUAL; w <= SAMPLED; w++) {
		struct order_ctx ctx = { a->b, w };
		size_t *o = xcalloc(a->n, sizeof *o);

		for (size_t i = 0; i < a->n; i++)
			o[i] = i;
		qsort_r(o, a->n, sizeof *o, cmp_order, &ctx);
		ntop[w] = 0;
		for (size_t i = 0; i < a->n && a->b[o[i]].count[w]; i++) {
			a->b[o[i]].rank[w] = i + 1;
			if (i < a->top) {
				a->b[o[i]].row = true;
				ntop[w]++;
			}
		}
		a->order[w] = o;
	}
	a->ntop = ntop[ACTUAL];
	for (size_t i = 0; i < a->ntop; i++) {
		size_t r = a->b[a->order[ACTUAL][i]].rank[SAMPLED];
		a->overlap += r && r <= ntop[SAMPLED];
	}
}

static double share(const struct accuracy *a, const struct bucket_count *b, int which)
{
	return 100.0 * (double)b->count[which] / (double)a->total[which];
}

static void figures(struct accuracy *a)
{
	size_t n = a->ntop;
	double *v[2], *r[2];

	for (size_t i = 0; a->total[ACTUAL] && a->total[SAMPLED] && i < a->n; i++) {
		const struct bucket_count *b = &a->b[i];
		double err = fabs(share(a, b, SAMPLED) - share(a, b, ACTUAL));

		if (share(a, b, ACTUAL) >= 1.0 && (!a->has_max_error || err > a->max_error)) {
			a->max_error = err;
			a->has_max_error = true;
		}
	}
	if (n < 2)
		return;
	for (int w = ACTUAL; w <= SAMPLED; w++) {
		v[w] = xcalloc(n, sizeof *v[w]);
		r[w] = xcalloc(n, sizeof *r[w]);
		for (size_t i = 0; i < n; i++)
			v[w][i] = (double)a->b[a->order[ACTUAL][i]].count[w];
	}
	a->has_spearman = !approx_spearman(v[ACTUAL], v[SAMPLED], n, r[ACTUAL], r[SAMPLED],
					   &a->spearman);
	for (int w = ACTUAL; w <= SAMPLED; w++) {
		free(v[w]);
		free(r[w]);
	}
}

static void build_table(const struct accuracy *a, struct table *t)
{
	int col[5];

	table_add_col(t, "bucket", NULL, COL_STR, true);
	table_add_col(t, "kind", NULL, COL_STR, true);
	col[0] = table_add_col(t, "actual_rank", "actual rank", COL_INT, false);
	col[1] = table_add_col(t, "actual_pct", "actual %", COL_PCT, false);
	col[2] = table_add_col(t, "sampled_rank", "sampled rank", COL_INT, false);
	col[3] = table_add_col(t, "sampled_pct", "sampled %", COL_PCT, false);
	col[4] = table_add_col(t, "stderr_pp", "stderr", COL_REAL, false);
	for (size_t i = 0; i < a->n; i++) {
		const struct bucket_count *b = &a->b[a->order[ACTUAL][i]];
		struct cell *row;

		if (!b->row)
			continue;
		row = table_add_row(t);
		cell_set_str(&row[0], b->name, b->name_len);
		cell_set_str(&row[1], b->kind, strlen(b->kind));
		for (int w = ACTUAL; w <= SAMPLED; w++) {
			if (b->rank[w])
				cell_set_int(&row[col[2 * w]], (int64_t)b->rank[w]);
			if (a->total[w])
				cell_set_real(&row[col[2 * w + 1]], share(a, b, w));
		}
		if (a->si.samples && a->total[ACTUAL]) {
			double p = share(a, b, ACTUAL) / 100.0;
			cell_set_real(&row[col[4]],
				      100.0 * sqrt(p * (1 - p) / (double)a->si.samples));
		}
	}
}

/* 50 / sqrt(n): the standard error of a share of 1/2, the largest. */
static double stderr_max(const struct accuracy *a)
{
	return a->si.samples ? 50.0 / sqrt((double)a->si.samples) : 0.0;
}

static void add_real(struct sbuf *out, bool has, double v, const char *fmt, const char *null)
{
	if (has)
		sbuf_addf(out, fmt, v);
	else
		sbuf_adds(out, null);
}

static void print_text(const struct accuracy *a, struct profile *p, const struct header *h,
		       const struct table *t)
{
	struct sbuf out;
	char label[40];

	sbuf_init(&out);
	header_text(&out, p, h);
	sbuf_addf(&out, "%-10s", "sampled:");
	sample_describe(&out, &a->si);
	sbuf_addf(&out, "\n%-10s", "events:");
	fmt_thousands(&out, a->total[ACTUAL]);
	sbuf_addf(&out, " %s (exact), ", a->si.event);
	fmt_thousands(&out, a->total[SAMPLED]);
	sbuf_adds(&out, " estimated from the samples\n\n");
	fwrite(out.buf, 1, out.len, stdout);
	render_table_text(stdout, t, 0);

	sbuf_reset(&out);
	sbuf_addf(&out, "\n%-17s", "standard error:");
	add_real(&out, a->si.samples > 0, stderr_max(a), "%.2f", "-");
	sbuf_adds(&out, " percentage points at most (50/sqrt(samples)); column stderr:"
		  " sqrt(p(1-p)/samples)\n");
	sbuf_addf(&out, "%-17s", "max error:");
	add_real(&out, a->has_max_error, a->max_error, "%.2f", "-");
	sbuf_addf(&out, " percentage points (buckets with at least 1%% of the %s events)\n",
		  a->si.event);
	sbuf_addf(&out, "%-17s", "Spearman:");
	add_real(&out, a->has_spearman, a->spearman, "%.4f", "-");
	sbuf_addf(&out, " (rank correlation over the actual top %zu)\n", a->top);
	snprintf(label, sizeof label, "top-%zu overlap:", a->top);
	sbuf_addf(&out, "%-17s%zu of %zu\n", label, a->overlap, a->ntop);
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);
}

static void print_json(const struct accuracy *a, struct profile *p, const struct header *h,
		       const struct table *t)
{
	struct sbuf out;

	sbuf_init(&out);
	header_json(&out, p, h);
	sbuf_adds(&out, ",\"sample\":");
	sample_json(&out, &a->si);
	sbuf_addf(&out, ",\"actual_events\":%lld,\"sampled_events\":%lld,\"stderr_max_pp\":",
		  (long long)a->total[ACTUAL], (long long)a->total[SAMPLED]);
	add_real(&out, a->si.samples > 0, stderr_max(a), "%.10g", "null");
	sbuf_adds(&out, ",\"max_abs_error_pp\":");
	add_real(&out, a->has_max_error, a->max_error, "%.10g", "null");
	sbuf_adds(&out, ",\"spearman\":");
	add_real(&out, a->has_spearman, a->spearman, "%.10g", "null");
	sbuf_addf(&out, ",\"top\":%zu,\"top_actual\":%zu,\"top_overlap\":%zu,\"rows\":",
		  a->top, a->ntop, a->overlap);
	render_table_json_rows(&out, t, 0);
	sbuf_adds(&out, "}\n");
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);
}

static void accuracy_release(struct accuracy *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->b[i].name);
		free(a->b[i].kind);
	}
	free(a->b);
	free(a->order[ACTUAL]);
	free(a->order[SAMPLED]);
}

int cmd_accuracy(int argc, char **argv)
{
	struct accuracy a = { 0 };
	struct profile p;
	struct header h;
	struct table t;
	char err[DC_ERRLEN];
	int rc;

	rc = parse(&a, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open_cmd(&p, a.path))
		return DC_EXIT_ERROR;
	header_init(&h);
	table_init(&t);
	rc = DC_EXIT_ERROR;
	if (sample_info_read(&p, &a.si, err, sizeof err) || header_read(&p, &h, err, sizeof err) ||
	    read_counts(&p, &a, err, sizeof err)) {
		err_msg("%s", err);
		goto out;
	}
	rank(&a);
	figures(&a);
	build_table(&a, &t);
	switch (a.format) {
	case FMT_TEXT:
		print_text(&a, &p, &h, &t);
		break;
	case FMT_CSV:
		render_table_csv(stdout, &t, 0);
		break;
	case FMT_JSON:
		print_json(&a, &p, &h, &t);
		break;
	}
	rc = err_flush_output();
out:
	table_release(&t);
	header_release(&h);
	accuracy_release(&a);
	profile_close(&p);
	return rc;
}
