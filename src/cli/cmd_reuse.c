/* cmd_reuse.c — dcprof reuse: reuse-distance histograms (seeds/003 §II) of
 * the whole program or one bucket — exact, converted from time to stack
 * distances, or sampled (RDX) — their accuracy, and the code-location pairs
 * the reuses span (§VI.B).
 *
 * Notes (docs/cli.md):
 *  - One row per non-empty bin, ascending, then the first touches (no
 *    distance: "infinitely far"; sampled: the uses never reused), so cum %
 *    of a stack bin is the hit ratio of a fully-associative LRU cache of
 *    the bin's upper bound.
 *  - Percentages are of all accesses: reuses + first touches.
 *  - Sources: exact (--reuse=yes); converted (--converted: the stack
 *    histogram the model of rmodel.h makes of the exact time histogram);
 *    sampled (--sampled: the RDX time histogram, or its conversion for
 *    --kind stack).  Sampled counts are estimates (weights x period).
 *  - Pairs are per code location, not per bucket: --pairs with --object is
 *    an error.  Several instructions on one source line are one row; their
 *    means are weighted by count, so they are the exact sums / counts.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/rmodel.h"
#include "analysis/view.h"
#include "base/fmt.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"
#include "report/render.h"
#include "report/reuse_text.h"
#include "report/reuse_acc.h"
#include "store/rhist.h"

#define BAR_WIDTH 40

enum { OPT_OBJECT = OPT_OWN, OPT_KIND, OPT_PAIRS, OPT_TOP, OPT_FORMAT, OPT_SAMPLED,
       OPT_CONVERTED, OPT_ACCURACY };

static const struct opt_def reuse_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_OBJECT, 0, "object", OPT_REQUIRED },
	{ OPT_KIND, 0, "kind", OPT_REQUIRED },
	{ OPT_PAIRS, 0, "pairs", OPT_NOARG },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ OPT_SAMPLED, 0, "sampled", OPT_NOARG },
	{ OPT_CONVERTED, 0, "converted", OPT_NOARG },
	{ OPT_ACCURACY, 0, "accuracy", OPT_NOARG },
	{ 0, 0, NULL, 0 },
};

void cmd_reuse_usage(FILE *f)
{
	fputs("usage: dcprof reuse PROFILE [--object NAME] [--kind stack|time]\n"
	      "                    [--sampled | --converted] [options]\n"
	      "       dcprof reuse PROFILE --accuracy [--object NAME] [options]\n"
	      "       dcprof reuse PROFILE --pairs [--top N] [options]\n"
	      "\n"
	      "Reuse distances of a profile recorded with --reuse=yes (exact) and/or\n"
	      "--reuse-sample=N (sampled with emulated watchpoints, RDX): a histogram of\n"
	      "the whole program or of one bucket (bins in blocks and bytes, count,\n"
	      "share of all accesses, cumulative share, first touches last); with\n"
	      "--pairs, the code-location pairs (use -> reuse) with the most reuses.\n"
	      "RDX: Q. Wang, X. Liu, M. Chabbi, \"Featherlight Reuse-distance\n"
	      "Measurement\", HPCA 2019; the time-to-stack model is its Appendix A,\n"
	      "after Shen et al.\n"
	      "\n"
	      "  --object NAME              the histogram of the bucket(s) named NAME\n"
	      "                             (default: the whole program)\n"
	      "  --kind stack|time          stack distance (distinct blocks in between) or\n"
	      "                             time distance (accesses in between)\n"
	      "                             (default: stack)\n"
	      "  --sampled                  the sampled histogram: time distances as\n"
	      "                             measured, stack distances converted from them\n"
	      "  --converted                the stack histogram converted from the exact\n"
	      "                             time histogram (Shen et al.'s model)\n"
	      "  --accuracy                 S and S-hat (RDX, equations 1 and 2) of the\n"
	      "                             sampled and converted histograms against the exact ones\n"
	      "  --pairs                    the top location pairs by reuses instead\n"
	      "                             (with --sampled: the pairs the watchpoints caught)\n"
	      "  --top N                    with --pairs: the first N pairs, 0 = all\n"
	      "                             (default: 20)\n"
	      "  --format text|csv|json     output format (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

struct reuse {
	const char *path;
	const char *object;
	const char *kind;
	bool kind_given, pairs, top_given, sampled, converted, accuracy;
	size_t top;
	enum out_format format;
	struct reuse_info ri;
	enum rsource src;
};

static const char *const src_name[] = { "exact", "converted", "sampled" };

/* The row after the bins: what has no distance. */
static const char *first_label(const struct reuse *r)
{
	return r->src == RSRC_SAMPLED ? "no reuse seen" : "first touch";
}

static int parse(struct reuse *r, int argc, char **argv)
{
	struct opt_iter it;
	uint64_t v;
	int id;

	r->kind = "stack";
	r->top = 20;
	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, reuse_opts, "reuse", cmd_reuse_usage, &r->path)) > 0) {
		switch (id) {
		case OPT_OBJECT:
			r->object = it.arg;
			break;
		case OPT_KIND:
			if (strcmp(it.arg, "stack") && strcmp(it.arg, "time")) {
				err_msg("invalid --kind value '%s' (stack or time)", it.arg);
				return -1;
			}
			r->kind = it.arg;
			r->kind_given = true;
			break;
		case OPT_PAIRS:
			r->pairs = true;
			break;
		case OPT_TOP:
			if (num_parse_u64(it.arg, SIZE_MAX, &v)) {
				err_msg("invalid --top value '%s' (a number)", it.arg);
				return -1;
			}
			r->top = (size_t)v;
			r->top_given = true;
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &r->format))
				return -1;
			break;
		case OPT_SAMPLED:
			r->sampled = true;
			break;
		case OPT_CONVERTED:
			r->converted = true;
			break;
		case OPT_ACCURACY:
			r->accuracy = true;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	if (r->sampled + r->converted + r->accuracy > 1 || (r->pairs && (r->converted ||
							 r->accuracy))) {
		err_msg("--sampled, --converted and --accuracy exclude each other, and --pairs"
			  " goes only with --sampled");
		return -1;
	}
	if (r->converted && !strcmp(r->kind, "time")) {
		err_msg("--converted makes stack distances; it does not apply to --kind time");
		return -1;
	}
	if (r->accuracy && r->kind_given) {
		err_msg("--kind does not apply to --accuracy (it compares both kinds)");
		return -1;
	}
	if (r->pairs && r->object) {
		err_msg("--pairs cannot be combined with --object (pairs are per code location,"
			  " not per bucket)");
		return -1;
	}
	if (r->pairs && r->kind_given) {
		err_msg("--kind does not apply to --pairs (they show both mean distances)");
		return -1;
	}
	if (r->top_given && !r->pairs) {
		err_msg("--top needs --pairs");
		return -1;
	}
	return 0;
}

/* ---- the histogram ------------------------------------------------------ */

struct hist_cols {
	int range, bytes, bin, lo, hi, lo_bytes, hi_bytes, count, pct, cum, bar;
};

static void hist_columns(struct table *t, bool stack, struct hist_cols *c)
{
	c->range = table_add_col(t, "range", stack ? "stack distance" : "time distance",
				 COL_STR, false);
	t->cols[c->range].show = SHOW_TEXT;
	c->bytes = -1;
	if (stack) {
		c->bytes = table_add_col(t, "bytes", NULL, COL_STR, false);
		t->cols[c->bytes].show = SHOW_TEXT;
	}
	c->bin = table_add_col(t, "bin", NULL, COL_INT, true);
	c->lo = table_add_col(t, "lo", NULL, COL_INT, false);
	c->hi = table_add_col(t, "hi", NULL, COL_INT, false);
	c->lo_bytes = table_add_col(t, "lo_bytes", NULL, COL_INT, false);
	c->hi_bytes = table_add_col(t, "hi_bytes", NULL, COL_INT, false);
	for (int j = c->bin; j <= c->hi_bytes; j++)
		t->cols[j].show = SHOW_MACHINE;
	c->count = table_add_col(t, "count", NULL, COL_INT, false);
	c->pct = table_add_col(t, "pct", "%", COL_PCT, false);
	c->cum = table_add_col(t, "cum_pct", "cum %", COL_PCT, false);
	c->bar = table_add_col(t, "bar", "", COL_STR, false);
	t->cols[c->bar].show = SHOW_TEXT;
}

static void set_sbuf(struct cell *c, struct sbuf *sb)
{
	cell_set_str(c, sb->buf, sb->len);
	sbuf_reset(sb);
}

static void set_bytes(struct cell *c, int64_t v, int64_t block)
{
	int64_t b = reuse_bytes(v, block);

	if (b >= 0)
		cell_set_int(c, b);
}

/* Count, shares and bar of one row. */
static void set_counts(struct cell *row, const struct hist_cols *c, int64_t count,
		       int64_t *cum, int64_t total, int64_t max)
{
	char bar[BAR_WIDTH + 1];
	/* in double: count * BAR_WIDTH may not fit; clamped, so a count the
	 * caller did not check can never write outside bar */
	double w = max > 0 && count > 0 ? (double)count * BAR_WIDTH / (double)max : 0;
	int n = w >= BAR_WIDTH ? BAR_WIDTH : (int)(w + 0.5);

	*cum = num_add(*cum, count, NULL);
	cell_set_int(&row[c->count], count);
	if (total) {
		cell_set_real(&row[c->pct], 100.0 * (double)count / (double)total);
		cell_set_real(&row[c->cum], 100.0 * (double)*cum / (double)total);
	}
	if (count && !n)
		n = 1;
	memset(bar, '#', (size_t)n);
	cell_set_str(&row[c->bar], bar, (size_t)n);
}

static void hist_table(const struct reuse *r, const struct rhist *h, struct table *t)
{
	bool stack = !strcmp(r->kind, "stack");
	int64_t total = num_add(h->reuses, h->first, NULL), max = h->first, cum = 0, block = r->ri.block;
	struct hist_cols c;
	struct sbuf sb;
	struct cell *row;

	hist_columns(t, stack, &c);
	for (size_t i = 0; i < h->n; i++)
		if (h->bins[i].count > max)
			max = h->bins[i].count;
	sbuf_init(&sb);
	for (size_t i = 0; i < h->n; i++) {
		const struct rbin *b = &h->bins[i];

		row = table_add_row(t);
		sbuf_addf(&sb, "[%lld, ", (long long)b->lo);
		if (b->hi_inf)
			sbuf_adds(&sb, "inf");
		else
			sbuf_addf(&sb, "%lld", (long long)b->hi);
		sbuf_addf(&sb, ") %s", stack ? "blocks" : r->src == RSRC_SAMPLED
			  ? reuse_unit_text(&r->ri) : "accesses");
		set_sbuf(&row[c.range], &sb);
		if (stack) {
			sbuf_addc(&sb, '[');
			reuse_fmt_bytes(&sb, b->lo, block);
			sbuf_adds(&sb, ", ");
			if (b->hi_inf)
				sbuf_adds(&sb, "inf");
			else
				reuse_fmt_bytes(&sb, b->hi, block);
			sbuf_addc(&sb, ')');
			set_sbuf(&row[c.bytes], &sb);
			set_bytes(&row[c.lo_bytes], b->lo, block);
			if (!b->hi_inf)
				set_bytes(&row[c.hi_bytes], b->hi, block);
		}
		cell_set_int(&row[c.bin], b->bin);
		cell_set_int(&row[c.lo], b->lo);
		if (!b->hi_inf)
			cell_set_int(&row[c.hi], b->hi);
		set_counts(row, &c, b->count, &cum, total, max);
	}
	row = table_add_row(t);
	cell_set_str(&row[c.range], first_label(r), strlen(first_label(r)));
	if (stack)
		cell_set_str(&row[c.bytes], "", 0);
	set_counts(row, &c, h->first, &cum, total, max);
	sbuf_release(&sb);
}

static void add_json_num(struct sbuf *out, const struct cell *c)
{
	if (c->null)
		sbuf_adds(out, "null");
	else
		sbuf_addf(out, "%.10g", c->d);
}

static void print_hist(struct profile *p, const struct header *h, const struct reuse *r,
		       const struct rhist *hist, const struct table *t)
{
	const struct cell *first = table_row(t, t->nrows - 1);
	int pct = table_find_metric(t, "pct"), cum = table_find_metric(t, "cum_pct");
	struct sbuf out;

	sbuf_init(&out);
	switch (r->format) {
	case FMT_TEXT:
		header_text(&out, p, h);
		reuse_text_intro(&out, &r->ri, src_name[r->src], r->object);
		if (r->src == RSRC_SAMPLED)
			reuse_text_sampling(&out, &r->ri);
		sbuf_addf(&out, "%-10s", r->src == RSRC_SAMPLED &&
			  !strcmp(r->ri.use_event, "pagefault") ? "faults:" : "accesses:");
		fmt_thousands(&out, num_add(hist->reuses, hist->first, NULL));
		sbuf_adds(&out, " (");
		fmt_thousands(&out, hist->reuses);
		sbuf_adds(&out, " reuses, ");
		fmt_thousands(&out, hist->first);
		sbuf_addf(&out, " %s); %s distances%s%s\n\n",
			  r->src == RSRC_SAMPLED ? "never reused" : "first touches", r->kind,
			  r->src == RSRC_SAMPLED ? ", estimates" : "",
			  r->src != RSRC_EXACT && !strcmp(r->kind, "stack")
				  ? " converted from time distances" : "");
		fwrite(out.buf, 1, out.len, stdout);
		render_table_text(stdout, t, 0);
		break;
	case FMT_CSV:
		render_table_csv(stdout, t, 0);
		break;
	case FMT_JSON:
		header_json(&out, p, h);
		reuse_json_intro(&out, &r->ri, src_name[r->src], r->object);
		sbuf_addf(&out, ",\"kind\":\"%s\",\"accesses\":%lld,\"reuses\":%lld,"
			  "\"first_touches\":%lld,\"rows\":", r->kind,
			  (long long)num_add(hist->reuses, hist->first, NULL), (long long)hist->reuses,
			  (long long)hist->first);
		/* The last row is the first touches; a limit of 0 would mean all. */
		if (t->nrows > 1)
			render_table_json_rows(&out, t, t->nrows - 1);
		else
			sbuf_adds(&out, "[]");
		sbuf_addf(&out, ",\"first_touch\":{\"count\":%lld,\"pct\":",
			  (long long)hist->first);
		add_json_num(&out, &first[pct]);
		sbuf_adds(&out, ",\"cum_pct\":");
		add_json_num(&out, &first[cum]);
		sbuf_adds(&out, "}}\n");
		fwrite(out.buf, 1, out.len, stdout);
		break;
	}
	sbuf_release(&out);
}

/* ---- location pairs ----------------------------------------------------- */

/* "function file:line" with ?? for what is unknown. */
static void set_location(struct cell *c, sqlite3_stmt *st, int col, struct sbuf *sb)
{
	const void *fn = sqlite3_column_blob(st, col), *file = sqlite3_column_blob(st, col + 1);
	int fnlen = sqlite3_column_bytes(st, col), filelen = sqlite3_column_bytes(st, col + 1);

	if (fnlen)
		sbuf_add(sb, fn, (size_t)fnlen);
	else
		sbuf_adds(sb, "??");
	sbuf_addc(sb, ' ');
	if (filelen) {
		sbuf_add(sb, file, (size_t)filelen);
		sbuf_addf(sb, ":%lld", (long long)sqlite3_column_int64(st, col + 2));
	} else {
		sbuf_adds(sb, "??");
	}
	set_sbuf(c, sb);
}

static void set_text_col(struct cell *c, sqlite3_stmt *st, int col)
{
	const void *s = sqlite3_column_blob(st, col);

	cell_set_str(c, s ? s : "", (size_t)sqlite3_column_bytes(st, col));
}

/* The exact pairs, or (sampled) the pairs of trapped uses: estimated
 * counts and mean time distances, no stack distance. */
static int pairs_table(struct profile *p, struct table *t, bool sampled)
{
	static const char *const side[2][3] = {
		{ "use_function", "use_file", "use_line" },
		{ "reuse_function", "reuse_file", "reuse_line" },
	};
	int text[2], mach[2], count, pct, ms, mt, rc;
	sqlite3_stmt *st;
	struct sbuf sb;

	for (int s = 0; s < 2; s++) {
		text[s] = table_add_col(t, s ? "reuse" : "use", NULL, COL_STR, false);
		t->cols[text[s]].show = SHOW_TEXT;
		for (int k = 0; k < 3; k++) {
			int j = table_add_col(t, side[s][k], NULL, k == 2 ? COL_INT : COL_STR, true);
			t->cols[j].show = SHOW_MACHINE;
			if (!k)
				mach[s] = j;
		}
	}
	count = table_add_col(t, "count", NULL, COL_INT, false);
	pct = table_add_col(t, "pct", "%", COL_PCT, false);
	ms = sampled ? -1 : table_add_col(t, "mean_stack", "mean stack", COL_REAL, false);
	mt = table_add_col(t, "mean_time", "mean time", COL_REAL, false);
	sbuf_init(&sb);
	sbuf_addf(&sb, "SELECT lu.function, lu.file, lu.line, lr.function, lr.file, lr.line,"
		  " SUM(p.count), %s, CASE WHEN COUNT(p.mean_time) = COUNT(*) THEN"
		  " SUM(p.count * p.mean_time) END FROM %s p"
		  " JOIN location lu ON lu.id = p.use_location"
		  " JOIN location lr ON lr.id = p.reuse_location"
		  " GROUP BY lu.function, lu.file, lu.line, lr.function, lr.file, lr.line",
		  sampled ? "NULL" : "SUM(p.count * p.mean_stack)",
		  sampled ? "reuse_pair_sampled" : "reuse_pair");
	rc = sqlite3_prepare_v2(p->db, sb.buf, -1, &st, NULL);
	sbuf_reset(&sb);
	if (rc != SQLITE_OK) {
		sbuf_release(&sb);
		return -1;
	}
	cell_set_int(&t->total[count], 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cell *row = table_add_row(t);
		double n;

		for (int s = 0; s < 2; s++) {
			set_location(&row[text[s]], st, 3 * s, &sb);
			set_text_col(&row[mach[s]], st, 3 * s);
			set_text_col(&row[mach[s] + 1], st, 3 * s + 1);
			cell_set_int(&row[mach[s] + 2], sqlite3_column_int64(st, 3 * s + 2));
		}
		cell_set_int(&row[count], sqlite3_column_int64(st, 6));
		n = (double)row[count].i;
		if (ms >= 0)
			cell_set_real(&row[ms], sqlite3_column_double(st, 7) / n);
		if (sqlite3_column_type(st, 8) != SQLITE_NULL)
			cell_set_real(&row[mt], sqlite3_column_double(st, 8) / n);
		/* crafted counts saturate (base/num.h) */
		t->total[count].i = num_add(t->total[count].i, row[count].i, NULL);
	}
	sqlite3_finalize(st);
	sbuf_release(&sb);
	if (rc != SQLITE_DONE)
		return -1;
	for (size_t i = 0; i < t->nrows; i++) {
		struct cell *row = table_row(t, i);
		cell_set_real(&row[pct], 100.0 * (double)row[count].i / (double)t->total[count].i);
	}
	if (t->total[count].i)
		cell_set_real(&t->total[pct], 100.0);
	cell_set_str(&t->total[text[0]], "total", 5);
	t->has_total = true;
	table_sort(t, count);
	return 0;
}

static void print_pairs(struct profile *p, const struct header *h, const struct reuse *r,
			const struct table *t)
{
	int count = table_find_metric(t, "count");
	struct sbuf out;

	sbuf_init(&out);
	switch (r->format) {
	case FMT_TEXT:
		header_text(&out, p, h);
		reuse_text_intro(&out, &r->ri, r->sampled ? "sampled" : "exact", NULL);
		if (r->sampled)
			reuse_text_sampling(&out, &r->ri);
		sbuf_addf(&out, "%-10s", "pairs:");
		fmt_thousands(&out, t->total[count].i);
		if (r->sampled)
			sbuf_addf(&out, " reuses (estimated) by %zu pairs of source lines (use ->"
				  " reuse caught by a watchpoint); mean time distance in %s\n\n",
				  t->nrows, reuse_unit_text(&r->ri));
		else
			sbuf_addf(&out, " reuses by %zu pairs of source lines (previous access ->"
				  " reuse); mean stack distance in blocks, mean time distance in"
				  " accesses\n\n", t->nrows);
		fwrite(out.buf, 1, out.len, stdout);
		render_table_text(stdout, t, r->top);
		if (r->top && r->top < t->nrows)
			printf("(%zu of %zu rows shown; --top 0 shows all)\n", r->top, t->nrows);
		break;
	case FMT_CSV:
		render_table_csv(stdout, t, r->top);
		break;
	case FMT_JSON:
		header_json(&out, p, h);
		reuse_json_intro(&out, &r->ri, r->sampled ? "sampled" : "exact", NULL);
		sbuf_addf(&out, ",\"reuses\":%lld,\"total_rows\":%zu,\"rows\":",
			  (long long)t->total[count].i, t->nrows);
		render_table_json_rows(&out, t, r->top);
		sbuf_adds(&out, "}\n");
		fwrite(out.buf, 1, out.len, stdout);
		break;
	}
	sbuf_release(&out);
}

int cmd_reuse(int argc, char **argv)
{
	struct reuse r = { 0 };
	struct view_opts filter = { 0 };
	struct rhist hist = { 0 };
	struct profile p;
	struct header h;
	struct table t;
	char err[DC_ERRLEN];
	int rc;

	rc = parse(&r, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open_cmd(&p, r.path))
		return DC_EXIT_ERROR;
	header_init(&h);
	table_init(&t);
	rc = DC_EXIT_ERROR;
	filter.object = r.object;
	if (reuse_info_read(&p, &r.ri, err, sizeof err) ||
	    view_check_filters(&p, &filter, err, sizeof err) ||
	    header_read(&p, &h, err, sizeof err)) {
		err_msg("%s", err);
		goto out;
	}
	if (r.sampled && !reuse_unit_accesses(&r.ri)) {
		/* time in ns is no count of accesses: no stack distances */
		if (r.kind_given && !strcmp(r.kind, "stack")) {
			err_msg("profile '%s' has sampled distances in %s, not accesses; they do"
				" not convert to stack distances (use --kind time)", r.path,
				reuse_unit_text(&r.ri));
			goto out;
		}
		r.kind = "time";
	}
	if (r.pairs && !r.sampled && !r.ri.exact) {
		err_msg("profile '%s' has no exact reuse data; --pairs needs --reuse=yes"
			  " (or see --pairs --sampled)", r.path);
		goto out;
	}
	if (r.pairs && r.sampled && !r.ri.sampled) {
		err_msg("profile '%s' has no sampled reuse data; record with --reuse-sample=N",
			  r.path);
		goto out;
	}
	if (r.pairs) {
		if (pairs_table(&p, &t, r.sampled)) {
			profile_read_error(&p, err, sizeof err);
			err_msg("%s", err);
			goto out;
		}
		print_pairs(&p, &h, &r, &t);
	} else if (r.accuracy) {
		if (reuse_accuracy(&p, &h, &r.ri, r.object, r.format, err, sizeof err)) {
			err_msg("%s", err);
			goto out;
		}
	} else {
		r.src = r.sampled ? RSRC_SAMPLED : r.converted ? RSRC_CONVERTED : RSRC_EXACT;
		if (rhist_source_read(&p, &r.ri, r.src, r.kind, r.object, &hist, err,
				      sizeof err)) {
			err_msg("%s", err);
			goto out;
		}
		hist_table(&r, &hist, &t);
		print_hist(&p, &h, &r, &hist, &t);
	}
	rc = err_flush_output();
out:
	rhist_release(&hist);
	table_release(&t);
	header_release(&h);
	profile_close(&p);
	return rc;
}
