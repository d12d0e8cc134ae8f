/* cmd_footprint.c — dcprof footprint: MemGaze's analyses of a sampled
 * trace (seeds/004 §5–§7): footprint, growth and load classes per function
 * (code windows, Table 4), over the execution interval tree (Table 8), per
 * hot memory region (location zoom, Tables 5, 7, 9), and their accuracy
 * against the full trace of the same run (§7.1).
 *
 * Notes (docs/cli.md defines every figure; fptrace.h how they are
 * computed):
 *  - Estimates are for the whole run: each window scaled by its rho.
 *  - --accuracy: trace windows, as MemGaze validates them (§7.1,
 *    Figure 8): the histograms of mean F, F_str and F_irr over tiles of
 *    power-of-2 sizes inside the samples against the full trace's
 *    (fptrace.h); MAPE over the sizes.  Period estimates, dcprof's own
 *    check of equation 1's scaling: each window's estimate for its
 *    period (rho_i F_i) against the period's exact footprint; MAPE is the mean
 *    of |estimate - exact| / exact over windows whose exact value is at
 *    least 1 % of the exact F (so 0), so that a handful of blocks of the
 *    other class, where there is almost none, does not count as 100 %.
 *    Code windows compare a function's estimate with its exact value over
 *    the run tiled into windows of w records, with the same 1 % rule; rows
 *    are the hot functions, those with at least 1 % of the exact accesses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fptrace.h"
#include "base/fmt.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"
#include "report/render.h"

enum { OPT_BY = OPT_OWN, OPT_ZOOM, OPT_ACCURACY, OPT_LEVELS, OPT_TAU, OPT_MIN_PAGE, OPT_TOP,
       OPT_FORMAT };

static const struct opt_def footprint_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_BY, 0, "by", OPT_REQUIRED },
	{ OPT_ZOOM, 0, "zoom", OPT_NOARG },
	{ OPT_ACCURACY, 0, "accuracy", OPT_NOARG },
	{ OPT_LEVELS, 0, "levels", OPT_REQUIRED },
	{ OPT_TAU, 0, "tau", OPT_REQUIRED },
	{ OPT_MIN_PAGE, 0, "min-page", OPT_REQUIRED },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_footprint_usage(FILE *f)
{
	fputs("usage: dcprof footprint PROFILE [--by function|interval] [options]\n"
	      "       dcprof footprint PROFILE --zoom [--tau PCT] [--min-page BYTES] [options]\n"
	      "       dcprof footprint PROFILE --accuracy [options]\n"
	      "\n"
	      "Footprint (distinct blocks), footprint growth, strided and irregular\n"
	      "footprint, Constant loads and spatio-temporal reuse distance from the\n"
	      "sampled trace of a profile recorded with --trace-window: per function\n"
	      "(code windows), over the execution interval tree, or per hot memory\n"
	      "region; with --accuracy, the sampled estimates against the full trace\n"
	      "(needs --trace-full).  The analyses are MemGaze's: A. Marquez et al.,\n"
	      "\"Fixing Amdahl's Law within the Limits of Accelerated Systems\",\n"
	      "PNNL-33259, 2022, sections 5 to 7.  More in docs/cli.md.\n"
	      "\n"
	      "The figures (a record is a traced load; a window holds the records the\n"
	      "trace unit kept in a row, and stands for its period of the run):\n"
	      "  records      records sampled\n"
	      "  rho          records of the run per record sampled: how much each\n"
	      "               sampled record counts for (section 4.3, equation 1)\n"
	      "  A            accesses: the loads that are not Constant, each counted\n"
	      "               rho times\n"
	      "  A_const %    Constant loads, whose address is fixed in the code (a\n"
	      "               global scalar, a variable on the stack frame), as a\n"
	      "               percentage of all loads; kappa = 1 + A_const / A\n"
	      "               (section 4.2; csv and json: A_const_pct)\n"
	      "  F            footprint: distinct blocks (--trace-block bytes) the\n"
	      "               accesses touched, summed over windows (section 6.3)\n"
	      "  dF           footprint growth: new blocks per load, F / (A + A_const);\n"
	      "               near 0 for data reused from the cache, near 1 block per\n"
	      "               load for a stream that never comes back (section 6.4)\n"
	      "  F_str %,     the share of F first touched by a Strided load (the same\n"
	      "  F_irr %      address step as its previous executions: a loop over an\n"
	      "               array) or by an Irregular one (no steady step: pointer\n"
	      "               chasing, indirection); they add up to 100 (section 6.5;\n"
	      "               csv and json: F_str_pct, F_irr_pct)\n"
	      "  D            reuse distance within a window: for a load whose block\n"
	      "               was touched earlier in the same window, the distinct\n"
	      "               other blocks touched in between, on average (section 6.2)\n"
	      "  D inter      the same for blocks last touched in an earlier window,\n"
	      "               estimated from dF and the loads in between\n"
	      "  A/block      with --zoom: sampled accesses per distinct block\n"
	      "  MAPE         with --accuracy: mean absolute percentage error against\n"
	      "               the full trace.  Trace windows (section 7.1, Figure 8):\n"
	      "               the mean F, F_str, F_irr of tiles of 2, 4, 8, ... records\n"
	      "               inside the sampled windows against the same means over\n"
	      "               the full trace, averaged over the sizes.  Period\n"
	      "               estimates: each window's rho_i F_i against the exact F\n"
	      "               of its period, averaged over the windows.  Rows are code\n"
	      "               windows: a column X_est is the estimate of X, X_err_pct\n"
	      "               its error\n"
	      "\n"
	      "  --by function|interval     rows per function (default) or per node of\n"
	      "                             the execution interval tree\n"
	      "  --levels N                 with --by interval: the top N levels, 0 = all\n"
	      "                             (default: 4)\n"
	      "  --zoom                     the hot memory regions instead\n"
	      "  --tau PCT                  with --zoom: share of a region's accesses a hot\n"
	      "                             subregion needs (default: 5)\n"
	      "  --min-page BYTES           with --zoom: the smallest page size, a power\n"
	      "                             of two >= 64 (default: 4096)\n"
	      "  --accuracy                 sampled against full trace instead\n"
	      "  --top N                    the first N rows, 0 = all (default: 20)\n"
	      "  --format text|csv|json     output format (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

enum view { V_FUNCTION, V_INTERVAL, V_ZOOM, V_ACCURACY };

struct footprint {
	const char *path;
	enum view view;
	const char *view_opt;          /* the option that chose the view */
	uint64_t levels, min_page, top;
	double tau;
	const char *levels_opt, *zoom_opt;   /* given sub-options */
	enum out_format format;
};

static int set_view(struct footprint *fp, enum view v, const char *opt)
{
	if (fp->view_opt && strcmp(fp->view_opt, opt)) {
		err_msg("%s cannot be combined with %s", opt, fp->view_opt);
		return -1;
	}
	fp->view = v;
	fp->view_opt = opt;
	return 0;
}

static int parse(struct footprint *fp, int argc, char **argv)
{
	struct opt_iter it;
	char *end;
	int id;

	fp->levels = 4;
	fp->top = 20;
	fp->tau = 5;
	fp->min_page = 4096;
	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, footprint_opts, "footprint", cmd_footprint_usage,
				  &fp->path)) > 0) {
		switch (id) {
		case OPT_BY:
			if (strcmp(it.arg, "function") && strcmp(it.arg, "interval")) {
				err_msg("invalid --by value '%s' (function or interval)", it.arg);
				return -1;
			}
			if (set_view(fp, it.arg[0] == 'f' ? V_FUNCTION : V_INTERVAL, "--by"))
				return -1;
			break;
		case OPT_ZOOM:
		case OPT_ACCURACY:
			if (set_view(fp, id == OPT_ZOOM ? V_ZOOM : V_ACCURACY,
				     id == OPT_ZOOM ? "--zoom" : "--accuracy"))
				return -1;
			break;
		case OPT_LEVELS:
			if (num_parse_u64(it.arg, 64, &fp->levels)) {
				err_msg("invalid --levels value '%s' (0 to 64)", it.arg);
				return -1;
			}
			fp->levels_opt = "--levels";
			break;
		case OPT_TAU:
			fp->tau = strtod(it.arg, &end);
			if (!*it.arg || *end || !(fp->tau > 0 && fp->tau <= 100)) {
				err_msg("invalid --tau value '%s' (a percentage above 0, at most 100)",
					  it.arg);
				return -1;
			}
			fp->zoom_opt = "--tau";
			break;
		case OPT_MIN_PAGE:
			if (num_parse_u64(it.arg, 1ULL << 30, &fp->min_page) || fp->min_page < 64 ||
			    (fp->min_page & (fp->min_page - 1))) {
				err_msg("invalid --min-page value '%s' (a power of two from 64 to 2^30)",
					  it.arg);
				return -1;
			}
			fp->zoom_opt = "--min-page";
			break;
		case OPT_TOP:
			if (num_parse_u64(it.arg, SIZE_MAX, &fp->top)) {
				err_msg("invalid --top value '%s' (a number)", it.arg);
				return -1;
			}
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &fp->format))
				return -1;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	if (fp->levels_opt && fp->view != V_INTERVAL) {
		err_msg("--levels needs --by interval");
		return -1;
	}
	if (fp->zoom_opt && fp->view != V_ZOOM) {
		err_msg("%s needs --zoom", fp->zoom_opt);
		return -1;
	}
	return 0;
}

/* ---- shared columns ---------------------------------------------------- */

/* Columns of an estimate (fptrace.h): A, A_const %, F, dF, F_str %,
 * F_irr %, D, D inter. */
struct sum_cols {
	int a, aconst, f, growth, fstr, firr, d, dinter;
};

static void sum_columns(struct table *t, struct sum_cols *c)
{
	c->a = table_add_col(t, "A", NULL, COL_INT, false);
	c->aconst = table_add_col(t, "A_const_pct", "A_const %", COL_PCT, false);
	c->f = table_add_col(t, "F", NULL, COL_INT, false);
	c->growth = table_add_col(t, "dF", NULL, COL_REAL3, false);
	c->fstr = table_add_col(t, "F_str_pct", "F_str %", COL_PCT, false);
	c->firr = table_add_col(t, "F_irr_pct", "F_irr %", COL_PCT, false);
	c->d = table_add_col(t, "D", NULL, COL_REAL, false);
	c->dinter = table_add_col(t, "D_inter", "D inter", COL_REAL, false);
}

static void set_num(struct cell *c, double v)
{
	if (!isnan(v))
		cell_set_real(c, v);
}

static void set_sums(struct cell *row, const struct sum_cols *c, const struct fp_sums *s)
{
	cell_set_int(&row[c->a], llround(s->a));
	set_num(&row[c->aconst], fp_share(s->aconst, s->a + s->aconst));
	cell_set_int(&row[c->f], llround(s->f));
	set_num(&row[c->growth], fp_growth(s));
	set_num(&row[c->fstr], fp_share(s->fstr, s->f));
	set_num(&row[c->firr], fp_share(s->firr, s->f));
	set_num(&row[c->d], fp_mean(s->dsum, s->dn));
	set_num(&row[c->dinter], fp_mean(s->dinter_sum, s->dinter_n));
}

/* ---- the views ---------------------------------------------------------- */

static void function_table(const struct fp_trace *tr, struct table *t)
{
	int fn = table_add_col(t, "function", NULL, COL_STR, true), rec;
	struct sum_cols c;

	sum_columns(t, &c);
	rec = table_add_col(t, "records", NULL, COL_INT, false);
	for (size_t i = 0; i < tr->nfns; i++) {
		const struct fp_fn *f = &tr->fns[i];
		struct cell *row;
		if (!f->s.records)
			continue;
		row = table_add_row(t);
		cell_set_str(&row[fn], f->name, f->len);
		set_sums(row, &c, &f->s);
		cell_set_int(&row[rec], f->s.records);
	}
	cell_set_str(&t->total[fn], "total", 5);
	set_sums(t->total, &c, &tr->all);
	cell_set_int(&t->total[rec], tr->all.records);
	t->has_total = true;
	table_sort(t, c.a);
}

/* Rows level by level, root first; `worst` marks the path to the node
 * with the worst growth, level by level (§5.3's zoom). */
static void interval_table(const struct fp_trace *tr, uint64_t levels, struct table *t)
{
	int lv = table_add_col(t, "level", NULL, COL_INT, true);
	int node = table_add_col(t, "node", NULL, COL_INT, true);
	int first = table_add_col(t, "first_window", NULL, COL_INT, false);
	int last = table_add_col(t, "last_window", NULL, COL_INT, false);
	int start = table_add_col(t, "start", NULL, COL_INT, false);
	int end = table_add_col(t, "end", NULL, COL_INT, false);
	int worst = table_add_col(t, "worst", NULL, COL_BOOL, false);
	struct fp_node *nodes;
	struct sum_cols c;
	size_t n, path = 0;

	sum_columns(t, &c);
	n = fp_interval_tree(tr, (int)levels, &nodes);
	for (size_t i = 0; i < n; i++) {
		const struct fp_node *nd = &nodes[i];
		const struct fp_win *lw = &tr->wins[nd->last - 1];
		struct cell *row = table_add_row(t);
		cell_set_int(&row[lv], nd->level);
		cell_set_int(&row[node], (int64_t)nd->index);
		cell_set_int(&row[first], (int64_t)nd->first);
		cell_set_int(&row[last], (int64_t)nd->last - 1);
		cell_set_int(&row[start], tr->wins[nd->first].start);
		cell_set_int(&row[end], num_add(lw->start, lw->period, NULL));
		set_sums(row, &c, &nd->s);
		cell_set_int(&row[worst], 0);
	}
	/* The zoom path: from the root, the child with the largest dF (ties:
	 * the earlier), down to the deepest level shown. */
	table_row(t, 0)[worst].i = n > 0;
	for (size_t i = 1; i < n; i++) {
		const struct fp_node *nd = &nodes[i], *best = NULL;
		if (nd->level != nodes[path].level + 1 || nd->first != nodes[path].first)
			continue;
		for (size_t j = i; j < n && nodes[j].level == nd->level &&
				   nodes[j].first < nodes[path].last; j++) {
			double g = fp_growth(&nodes[j].s);
			if (!best || g > fp_growth(&best->s))
				best = &nodes[j];
		}
		path = (size_t)(best - nodes);
		table_row(t, path)[worst].i = 1;
	}
	free(nodes);
}

static void zoom_table(const struct fp_trace *tr, const struct footprint *fp, struct table *t)
{
	int range = table_add_col(t, "region", NULL, COL_STR, false);
	int lo = table_add_col(t, "lo", NULL, COL_INT, true);
	int hi = table_add_col(t, "hi", NULL, COL_INT, false);
	int size = table_add_col(t, "size", NULL, COL_INT, false);
	int acc = table_add_col(t, "accesses", NULL, COL_INT, false);
	int pct = table_add_col(t, "pct", "%", COL_PCT, false);
	int blocks = table_add_col(t, "blocks", NULL, COL_INT, false);
	int apb = table_add_col(t, "A_per_block", "A/block", COL_REAL, false);
	int d = table_add_col(t, "D", NULL, COL_REAL, false);
	int fns = table_add_col(t, "functions", NULL, COL_STR, false);
	int bucket = table_add_col(t, "bucket", NULL, COL_STR, false);
	struct fp_region *r;
	struct sbuf sb;
	size_t n = fp_zoom(tr, fp->tau, fp->min_page, &r);

	t->cols[range].show = SHOW_TEXT;
	t->cols[lo].show = t->cols[hi].show = SHOW_MACHINE;
	sbuf_init(&sb);
	for (size_t i = 0; i < n; i++) {
		struct cell *row = table_add_row(t);
		sbuf_reset(&sb);
		sbuf_addf(&sb, "0x%llx-0x%llx", (unsigned long long)r[i].lo,
			  (unsigned long long)r[i].hi);
		cell_set_str(&row[range], sb.buf, sb.len);
		cell_set_int(&row[lo], (int64_t)r[i].lo);
		cell_set_int(&row[hi], (int64_t)r[i].hi);
		cell_set_int(&row[size], (int64_t)(r[i].hi - r[i].lo));
		cell_set_int(&row[acc], r[i].accesses);
		set_num(&row[pct], fp_share((double)r[i].accesses, (double)tr->nacc));
		cell_set_int(&row[blocks], r[i].blocks);
		cell_set_real(&row[apb], (double)r[i].accesses / (double)r[i].blocks);
		set_num(&row[d], fp_mean(r[i].dsum, r[i].dn));
		sbuf_reset(&sb);
		for (int k = 0; k < 3 && r[i].fns[k] != UINT32_MAX; k++) {
			if (k)
				sbuf_adds(&sb, ", ");
			sbuf_add(&sb, tr->fns[r[i].fns[k]].name, tr->fns[r[i].fns[k]].len);
		}
		cell_set_str(&row[fns], sb.buf ? sb.buf : "", sb.len);
		if (r[i].bucket != UINT32_MAX)
			cell_set_str(&row[bucket], tr->buckets[r[i].bucket],
				     tr->bucket_len[r[i].bucket]);
	}
	sbuf_release(&sb);
	free(r);
	table_sort(t, acc);
}

/* Is exact, a part of whole, big enough for a percent error to mean
 * something (at least 1 %, and not 0)? */
static bool comparable(int64_t exact, int64_t whole)
{
	return exact > 0 && num_mul(exact, 100, NULL) >= whole;
}

static double pct_error(double est, int64_t exact)
{
	return 100.0 * fabs(est - (double)exact) / (double)exact;
}

struct mape {
	double sum[3];
	int64_t n[3];
	int64_t windows;
};

static void trace_window_mape(const struct fp_trace *tr, struct mape *m)
{
	memset(m, 0, sizeof *m);
	for (size_t i = 0; i < tr->nwins; i++) {
		const struct fp_win *w = &tr->wins[i];
		double rho, est[3];
		if (!w->has_ref || !w->n)
			continue;
		m->windows++;
		rho = (double)w->period / (double)w->n;
		est[0] = rho * (double)w->f;
		est[1] = rho * (double)w->fstr;
		est[2] = rho * (double)w->firr;
		for (int k = 0; k < 3; k++) {
			if (!comparable(w->ref[k], w->ref[0]))
				continue;
			m->sum[k] += pct_error(est[k], w->ref[k]);
			m->n[k]++;
		}
	}
}

static void accuracy_table(const struct fp_trace *tr, struct table *t)
{
	static const char *const names[4][3] = {
		{ "A", "A_est", "A_err_pct" },
		{ "F", "F_est", "F_err_pct" },
		{ "F_str", "F_str_est", "F_str_err_pct" },
		{ "F_irr", "F_irr_est", "F_irr_err_pct" },
	};
	int fn = table_add_col(t, "function", NULL, COL_STR, true), col[4][3];
	int64_t total = 0;

	for (int k = 0; k < 4; k++) {
		col[k][0] = table_add_col(t, names[k][0], NULL, COL_INT, false);
		col[k][1] = table_add_col(t, names[k][1], NULL, COL_INT, false);
		col[k][2] = table_add_col(t, names[k][2], "err %", COL_PCT, false);
	}
	for (size_t i = 0; i < tr->nfns; i++)
		total = num_add(total, tr->fns[i].has_ref ? tr->fns[i].ref_a : 0, NULL);
	for (size_t i = 0; i < tr->nfns; i++) {
		const struct fp_fn *f = &tr->fns[i];
		const double est[4] = { f->s.a, f->s.f, f->s.fstr, f->s.firr };
		const int64_t exact[4] = { f->ref_a, f->ref[0], f->ref[1], f->ref[2] };
		struct cell *row;
		if (!f->has_ref || num_mul(f->ref_a, 100, NULL) < total)
			continue;
		row = table_add_row(t);
		cell_set_str(&row[fn], f->name, f->len);
		for (int k = 0; k < 4; k++) {
			cell_set_int(&row[col[k][0]], exact[k]);
			cell_set_int(&row[col[k][1]], llround(est[k]));
			if (comparable(exact[k], k ? exact[1] : exact[0]))
				cell_set_real(&row[col[k][2]], pct_error(est[k], exact[k]));
		}
	}
	table_sort(t, col[0][0]);
}

/* ---- output ------------------------------------------------------------- */

static void text_intro(struct sbuf *out, const struct fp_trace *tr)
{
	double rho = tr->all.records ? (double)tr->records / (double)tr->all.records : NAN;
	const struct fp_sums *s = &tr->all;

	sbuf_addf(out, "%-10s", "trace:");
	fmt_thousands(out, (int64_t)tr->nwins);
	sbuf_addf(out, " windows of %lld records, one per %lld on average; ", (long long)tr->w,
		  (long long)tr->period);
	fmt_thousands(out, s->records);
	sbuf_adds(out, " of ");
	fmt_thousands(out, tr->records);
	sbuf_addf(out, " records sampled (rho %.1f), %lld-byte blocks\n", rho,
		  (long long)tr->block);
	sbuf_addf(out, "%-10s", "run:");
	sbuf_adds(out, "A ");
	fmt_thousands(out, llround(s->a));
	sbuf_addf(out, ", A_const %.2f %% (kappa %.2f), F ", fp_share(s->aconst, s->a + s->aconst),
		  s->a > 0 ? 1 + s->aconst / s->a : NAN);
	fmt_thousands(out, llround(s->f));
	sbuf_addf(out, ", dF %.3f, F_str %.2f %%, F_irr %.2f %%, D %.2f, D inter %.2f\n\n",
		  fp_growth(s), fp_share(s->fstr, s->f), fp_share(s->firr, s->f),
		  fp_mean(s->dsum, s->dn), fp_mean(s->dinter_sum, s->dinter_n));
}

static void json_num(struct sbuf *out, const char *key, double v)
{
	sbuf_addf(out, ",\"%s\":", key);
	if (isfinite(v))
		sbuf_addf(out, "%.10g", v);
	else
		sbuf_adds(out, "null");
}

static void json_intro(struct sbuf *out, const struct fp_trace *tr)
{
	const struct fp_sums *s = &tr->all;

	sbuf_addf(out, ",\"trace\":{\"window\":%lld,\"period\":%lld,\"block\":%lld,"
		  "\"windows\":%zu,\"records\":%lld,\"sampled_records\":%lld", (long long)tr->w,
		  (long long)tr->period, (long long)tr->block, tr->nwins, (long long)tr->records,
		  (long long)s->records);
	json_num(out, "rho", s->records ? (double)tr->records / (double)s->records : NAN);
	json_num(out, "kappa", s->a > 0 ? 1 + s->aconst / s->a : NAN);
	json_num(out, "A", s->a);
	json_num(out, "A_const_pct", fp_share(s->aconst, s->a + s->aconst));
	json_num(out, "F", s->f);
	json_num(out, "dF", fp_growth(s));
	json_num(out, "F_str_pct", fp_share(s->fstr, s->f));
	json_num(out, "F_irr_pct", fp_share(s->firr, s->f));
	json_num(out, "D", fp_mean(s->dsum, s->dn));
	json_num(out, "D_inter", fp_mean(s->dinter_sum, s->dinter_n));
	sbuf_addc(out, '}');
}

/* The trace-window histograms' line: MAPE over the sizes compared. */
static void hist_text(struct sbuf *out, const struct fp_trace *tr)
{
	double mape[3];
	int sizes = fp_hist_mape(tr, mape);
	unsigned lo = 0, hi = 0;

	for (unsigned k = 0; k < tr->nhist; k++) {
		if (!fp_hist_compared(tr, k))
			continue;
		if (!lo)
			lo = 2u << k;
		hi = 2u << k;
	}
	if (!sizes) {
		sbuf_adds(out, "trace windows: no histograms to compare (the profile has no"
			  " full-trace histograms, or windows of fewer than 2 records)\n");
		return;
	}
	sbuf_addf(out, "trace windows: MAPE of the histograms over %d window sizes (%u to %u"
		  " records) inside samples against the full trace (MemGaze, Marquez et al.,"
		  " section 7.1):", sizes, lo, hi);
	for (int c = 0; c < 3; c++) {
		sbuf_addf(out, "%s %s ", c ? "," : "", c == 0 ? "F" : c == 1 ? "F_str" : "F_irr");
		if (isnan(mape[c]))
			sbuf_adds(out, "-");
		else
			sbuf_addf(out, "%.2f %%", mape[c]);
	}
	sbuf_addc(out, '\n');
}

static void hist_json(struct sbuf *out, const struct fp_trace *tr)
{
	static const char *const names[3] = { "F", "F_str", "F_irr" };
	double mape[3];
	int sizes = fp_hist_mape(tr, mape);
	bool first = true;

	sbuf_addf(out, ",\"trace_windows\":{\"sizes\":%d", sizes);
	json_num(out, "mape_F", mape[0]);
	json_num(out, "mape_F_str", mape[1]);
	json_num(out, "mape_F_irr", mape[2]);
	sbuf_adds(out, ",\"bins\":[");
	for (unsigned k = 0; k < tr->nhist; k++) {
		const struct dc_fphist_bin *s = &tr->hist[k], *f = &tr->full_hist[k];
		const uint64_t sv[3] = { s->f, s->fstr, s->firr }, fv[3] = { f->f, f->fstr, f->firr };
		sbuf_addf(out, "%s{\"size\":%u,\"tiles\":%llu,\"full_tiles\":", first ? "" : ",",
			  2u << k, (unsigned long long)s->tiles);
		if (tr->has_full_hist)
			sbuf_addf(out, "%llu", (unsigned long long)f->tiles);
		else
			sbuf_adds(out, "null");
		first = false;
		for (int c = 0; c < 3; c++) {
			char key[16];
			snprintf(key, sizeof key, "%s_full", names[c]);
			json_num(out, names[c], s->tiles ? (double)sv[c] / (double)s->tiles : NAN);
			json_num(out, key, tr->has_full_hist && f->tiles ?
				 (double)fv[c] / (double)f->tiles : NAN);
		}
		sbuf_addc(out, '}');
	}
	sbuf_adds(out, "]}");
}

static const char *const view_text[] = {
	"per function (code windows): estimates for the whole run",
	"execution interval tree: level 0 is the whole run, each level halves it",
	"hot memory regions (location zoom) of the sampled non-Constant accesses",
	"code windows: hot functions' estimates against the full trace",
};

static void print(struct profile *p, const struct header *h, const struct footprint *fp,
		  const struct fp_trace *tr, const struct table *t)
{
	struct mape m;
	struct sbuf out;

	trace_window_mape(tr, &m);
	sbuf_init(&out);
	switch (fp->format) {
	case FMT_TEXT:
		header_text(&out, p, h);
		text_intro(&out, tr);
		if (fp->view == V_ACCURACY) {
			hist_text(&out, tr);
			sbuf_addf(&out, "period estimates: MAPE of %lld windows' rho_i F_i against"
				  " their period's exact F: F %.2f %%, F_str %.2f %%, F_irr %.2f %%\n\n",
				  (long long)m.windows, fp_mean(m.sum[0], m.n[0]),
				  fp_mean(m.sum[1], m.n[1]), fp_mean(m.sum[2], m.n[2]));
		}
		sbuf_addf(&out, "%s\n\n", view_text[fp->view]);
		fwrite(out.buf, 1, out.len, stdout);
		render_table_text(stdout, t, fp->top);
		if (fp->top && fp->top < t->nrows)
			printf("(%zu of %zu rows shown; --top 0 shows all)\n", (size_t)fp->top,
			       t->nrows);
		break;
	case FMT_CSV:
		render_table_csv(stdout, t, fp->top);
		break;
	case FMT_JSON:
		header_json(&out, p, h);
		json_intro(&out, tr);
		if (fp->view == V_ACCURACY) {
			hist_json(&out, tr);
			sbuf_addf(&out, ",\"period_estimates\":{\"windows\":%lld", (long long)m.windows);
			json_num(&out, "mape_F", fp_mean(m.sum[0], m.n[0]));
			json_num(&out, "mape_F_str", fp_mean(m.sum[1], m.n[1]));
			json_num(&out, "mape_F_irr", fp_mean(m.sum[2], m.n[2]));
			sbuf_addc(&out, '}');
		}
		sbuf_addf(&out, ",\"total_rows\":%zu,\"rows\":", t->nrows);
		render_table_json_rows(&out, t, fp->top);
		if (t->has_total) {
			sbuf_adds(&out, ",\"totals\":");
			render_table_json_totals(&out, t);
		}
		sbuf_adds(&out, "}\n");
		fwrite(out.buf, 1, out.len, stdout);
		break;
	}
	sbuf_release(&out);
}

int cmd_footprint(int argc, char **argv)
{
	struct footprint fp = { 0 };
	struct fp_trace tr;
	struct profile p;
	struct header h;
	struct table t;
	char err[DC_ERRLEN];
	int rc;

	rc = parse(&fp, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open_cmd(&p, fp.path))
		return DC_EXIT_ERROR;
	header_init(&h);
	table_init(&t);
	rc = DC_EXIT_ERROR;
	if (header_read(&p, &h, err, sizeof err) || fp_load(&p, &tr, err, sizeof err)) {
		err_msg("%s", err);
		goto out;
	}
	if (fp.view == V_ACCURACY && !tr.full) {
		err_msg("profile '%s' has no full-trace reference (record with --trace-full)",
			  fp.path);
		fp_release(&tr);
		goto out;
	}
	switch (fp.view) {
	case V_FUNCTION:
		function_table(&tr, &t);
		break;
	case V_INTERVAL:
		interval_table(&tr, fp.levels, &t);
		break;
	case V_ZOOM:
		zoom_table(&tr, &fp, &t);
		break;
	case V_ACCURACY:
		accuracy_table(&tr, &t);
		break;
	}
	print(&p, &h, &fp, &tr, &t);
	fp_release(&tr);
	rc = err_flush_output();
out:
	table_release(&t);
	header_release(&h);
	profile_close(&p);
	return rc;
}
