/* cmd_mrc.c — dcprof mrc: the miss-ratio curve of fully-associative LRU
 * caches from the exact stack-distance histogram (seeds/003 §II).
 *
 * Notes (docs/cli.md; the curve's rules in analysis/mrc.h):
 *  - miss ratio = misses / (reuses + first touches).
 *  - Distances are global (the whole program's LRU stack), so a bucket's
 *    curve uses the same sizes as the program's.
 *  - With the default bins 1:2 every power of two is a bin boundary, so
 *    every point is exact.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/mrc.h"
#include "analysis/view.h"
#include "base/fmt.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"
#include "report/render.h"
#include "report/reuse_text.h"
#include "store/rhist.h"

enum { OPT_OBJECT = OPT_OWN, OPT_FORMAT };

static const struct opt_def mrc_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_OBJECT, 0, "object", OPT_REQUIRED },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_mrc_usage(FILE *f)
{
	fputs("usage: dcprof mrc PROFILE [--object NAME] [--format text|csv|json]\n"
	      "\n"
	      "Miss-ratio curve of a profile recorded with --reuse=yes: the misses a\n"
	      "fully-associative LRU cache of every power-of-two size (in blocks) would\n"
	      "take, from the exact stack-distance histogram.  Sizes where a histogram\n"
	      "bin straddles the size are lower bounds (exact: no).\n"
	      "\n"
	      "  --object NAME              only the accesses to the bucket(s) named NAME\n"
	      "                             (default: the whole program)\n"
	      "  --format text|csv|json     output format (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

struct mrc {
	const char *path;
	const char *object;
	enum out_format format;
	struct reuse_info ri;
	int64_t distinct;          /* the program's first touches */
	bool exact;
};

static int parse(struct mrc *m, int argc, char **argv)
{
	struct opt_iter it;
	int id;

	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, mrc_opts, "mrc", cmd_mrc_usage, &m->path)) > 0) {
		switch (id) {
		case OPT_OBJECT:
			m->object = it.arg;
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &m->format))
				return -1;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	return 0;
}

static void mrc_table(struct mrc *m, const struct rhist *h, struct table *t)
{
	int64_t total = num_add(h->reuses, h->first, NULL);
	int blocks, text_bytes, bytes, misses, ratio, pct, exact;
	struct mrc_point *pts;
	struct sbuf sb;
	size_t n;

	blocks = table_add_col(t, "size_blocks", "size (blocks)", COL_INT, true);
	text_bytes = table_add_col(t, "size", "size (bytes)", COL_STR, false);
	t->cols[text_bytes].show = SHOW_TEXT;
	bytes = table_add_col(t, "size_bytes", NULL, COL_INT, false);
	t->cols[bytes].show = SHOW_MACHINE;
	misses = table_add_col(t, "misses", NULL, COL_INT, false);
	ratio = table_add_col(t, "miss_ratio", NULL, COL_REAL, false);
	t->cols[ratio].show = SHOW_MACHINE;
	pct = table_add_col(t, "miss_pct", "miss %", COL_PCT, false);
	t->cols[pct].show = SHOW_TEXT;
	exact = table_add_col(t, "exact", NULL, COL_BOOL, false);
	n = mrc_curve(h, m->distinct, &pts);
	m->exact = true;
	sbuf_init(&sb);
	for (size_t i = 0; i < n; i++) {
		struct cell *row = table_add_row(t);
		int64_t c = pts[i].blocks, miss = pts[i].misses, b;

		m->exact &= pts[i].exact;
		cell_set_int(&row[blocks], c);
		reuse_fmt_bytes(&sb, c, m->ri.block);
		cell_set_str(&row[text_bytes], sb.buf, sb.len);
		sbuf_reset(&sb);
		b = reuse_bytes(c, m->ri.block);
		if (b >= 0)
			cell_set_int(&row[bytes], b);
		cell_set_int(&row[misses], miss);
		if (total) {
			cell_set_real(&row[ratio], (double)miss / (double)total);
			cell_set_real(&row[pct], 100.0 * (double)miss / (double)total);
		}
		cell_set_int(&row[exact], pts[i].exact);
	}
	free(pts);
	sbuf_release(&sb);
}

static void print_mrc(struct profile *p, const struct header *h, const struct mrc *m,
		      const struct rhist *hist, const struct table *t)
{
	struct sbuf out;

	sbuf_init(&out);
	switch (m->format) {
	case FMT_TEXT:
		header_text(&out, p, h);
		reuse_text_intro(&out, &m->ri, "exact", m->object);
		sbuf_addf(&out, "%-10s", "accesses:");
		fmt_thousands(&out, num_add(hist->reuses, hist->first, NULL));
		sbuf_adds(&out, " (");
		fmt_thousands(&out, hist->first);
		sbuf_adds(&out, " first touches); the program touched ");
		fmt_thousands(&out, m->distinct);
		sbuf_adds(&out, " distinct blocks\n\n");
		fwrite(out.buf, 1, out.len, stdout);
		render_table_text(stdout, t, 0);
		if (!m->exact)
			printf("(exact = no: a histogram bin straddles the cache size; its accesses"
			       " count as hits, so the misses are a lower bound)\n");
		break;
	case FMT_CSV:
		render_table_csv(stdout, t, 0);
		break;
	case FMT_JSON:
		header_json(&out, p, h);
		reuse_json_intro(&out, &m->ri, "exact", m->object);
		sbuf_addf(&out, ",\"accesses\":%lld,\"first_touches\":%lld,"
			  "\"distinct_blocks\":%lld,\"exact\":%s,\"rows\":",
			  (long long)num_add(hist->reuses, hist->first, NULL), (long long)hist->first,
			  (long long)m->distinct, m->exact ? "true" : "false");
		render_table_json_rows(&out, t, 0);
		sbuf_adds(&out, "}\n");
		fwrite(out.buf, 1, out.len, stdout);
		break;
	}
	sbuf_release(&out);
}

int cmd_mrc(int argc, char **argv)
{
	struct mrc m = { 0 };
	struct view_opts filter = { 0 };
	struct rhist hist = { 0 }, all = { 0 };
	struct profile p;
	struct header h;
	struct table t;
	char err[DC_ERRLEN];
	int rc;

	rc = parse(&m, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open_cmd(&p, m.path))
		return DC_EXIT_ERROR;
	header_init(&h);
	table_init(&t);
	rc = DC_EXIT_ERROR;
	filter.object = m.object;
	if (reuse_info_read(&p, &m.ri, err, sizeof err) ||
	    view_check_filters(&p, &filter, err, sizeof err) ||
	    header_read(&p, &h, err, sizeof err) ||
	    rhist_read(&p, "stack", m.object, &hist, err, sizeof err) ||
	    (m.object && rhist_read(&p, "stack", NULL, &all, err, sizeof err))) {
		err_msg("%s", err);
		goto out;
	}
	if (!m.ri.exact) {
		err_msg("profile '%s' has sampled reuse data only; the miss-ratio curve needs"
			  " exact histograms (record with --reuse=yes)", m.path);
		goto out;
	}
	m.distinct = m.object ? all.first : hist.first;
	mrc_table(&m, &hist, &t);
	print_mrc(&p, &h, &m, &hist, &t);
	rc = err_flush_output();
out:
	rhist_release(&hist);
	rhist_release(&all);
	table_release(&t);
	header_release(&h);
	profile_close(&p);
	return rc;
}
