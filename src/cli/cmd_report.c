/* cmd_report.c — dcprof report: show a profile by bucket, function or line. */
#include <stdlib.h>
#include <string.h>

#include "analysis/fields.h"
#include "analysis/ftouch.h"
#include "analysis/ipsamp.h"
#include "analysis/spread.h"
#include "analysis/view.h"
#include "base/fmt.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"
#include "report/render.h"
#include "store/sample.h"

enum { OPT_BY = OPT_OWN, OPT_OBJECT, OPT_FUNCTION, OPT_THREAD, OPT_SORT, OPT_TOP,
       OPT_STATS, OPT_SAMPLED, OPT_INCLUSIVE, OPT_SPREAD, OPT_FORMAT, OPT_SHOW, OPT_HIDE,
       OPT_FIRST_TOUCH, OPT_IP_SAMPLES, OPT_OUTER };

static const struct opt_def report_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_BY, 0, "by", OPT_REQUIRED },
	{ OPT_OBJECT, 0, "object", OPT_REQUIRED },
	{ OPT_FUNCTION, 0, "function", OPT_REQUIRED },
	{ OPT_THREAD, 0, "thread", OPT_NOARG },
	{ OPT_OUTER, 0, "outer", OPT_NOARG },
	{ OPT_SORT, 0, "sort", OPT_REQUIRED },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_STATS, 0, "stats", OPT_NOARG },
	{ OPT_SAMPLED, 0, "sampled", OPT_NOARG },
	{ OPT_FIRST_TOUCH, 0, "first-touch", OPT_NOARG },
	{ OPT_IP_SAMPLES, 0, "ip-samples", OPT_NOARG },
	{ OPT_INCLUSIVE, 0, "inclusive", OPT_NOARG },
	{ OPT_SPREAD, 0, "spread", OPT_OPTIONAL },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ OPT_SHOW, 0, "show", OPT_REQUIRED },
	{ OPT_HIDE, 0, "hide", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_report_usage(FILE *f)
{
	fputs("usage: dcprof report PROFILE [options]\n"
	      "\n"
	      "Show which data (buckets), functions or source lines cause a profile's\n"
	      "cache misses and memory latency.  Columns are described in docs/cli.md.\n"
	      "\n"
	      "  --by object|function|line  one row per bucket, function or source line\n"
	      "                             (default: object; line with --object)\n"
	      "  --by offset|field          with --object: the bucket's accesses by offset\n"
	      "                             within its objects, or by the fields of its\n"
	      "                             element type from the program's DWARF\n"
	      "                             (offsets folded by the element's size, but for\n"
	      "                             an array of scalars by offset); needs a\n"
	      "                             profile recorded with --offsets\n"
	      "  --object NAME              only accesses to the bucket(s) named NAME\n"
	      "  --function NAME            only accesses made by function NAME\n"
	      "  --thread                   one row per thread (default: threads summed)\n"
	      "  --outer                    with --by line: inlined code's costs on the line\n"
	      "                             of its outermost inlined call, in the function\n"
	      "                             it was compiled into (a loop's line rather than\n"
	      "                             stl_vector.h's operator[]); code not inlined,\n"
	      "                             and profiles before schema 9, keep their lines\n"
	      "  --sort METRIC              sort by this column, descending; any numeric\n"
	      "                             column, case-insensitive (default: MissLat;\n"
	      "                             total_bytes with --stats, InclMissLat with\n"
	      "                             --inclusive)\n"
	      "  --top N                    show the first N rows, 0 = all (default: 20 for\n"
	      "                             text, all for csv and json)\n"
	      "  --stats                    object statistics per bucket instead of costs\n"
	      "                             (with the average lines resident per cache\n"
	      "                             level when recorded with --evictions=yes)\n"
	      "  --sampled                  the sampled estimates (record --sample) instead\n"
	      "                             of the exact counts (default: exact)\n"
	      "  --first-touch              pages of each object first touched, the thread\n"
	      "                             and the code that touched most of them (a\n"
	      "                             profile of record --engine=native\n"
	      "                             --event=pagefault); with --thread per thread\n"
	      "  --ip-samples               the IP-only samples (record --sample-ip-only)\n"
	      "                             per function or, with --by line, per line:\n"
	      "                             where the (skidded) samples landed, as perf\n"
	      "                             report shows cpu-clock samples; not with\n"
	      "                             --object, --by object, --stats, --sampled,\n"
	      "                             --inclusive or --spread\n"
	      "  --inclusive                per function (implies --by function), also the\n"
	      "                             calls into it and its inclusive costs (its\n"
	      "                             callees' included), and a <root> row for the\n"
	      "                             whole program; needs a profile recorded with\n"
	      "                             --calls\n"
	      "  --spread[=METRIC]          per bucket, how the processes of a merged\n"
	      "                             profile (dcprof merge) differ: min, mean and\n"
	      "                             max of METRIC over them, max / mean, and the\n"
	      "                             process with the max (Dr, Dw, Da, D1m.., DLm\n"
	      "                             or Lat; default Lat)\n"
	      "  --show COLUMNS             only these metric columns, comma-separated,\n"
	      "                             as named in csv (case-insensitive), in that\n"
	      "                             order; the key columns are always shown\n"
	      "  --hide COLUMNS             every metric column but these\n"
	      "  --format text|csv|json     output format (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

struct report {
	const char *path;
	struct view_opts view;
	bool by_given, stats;
	bool first_touch;         /* --first-touch */
	bool ip_samples;          /* --ip-samples */
	bool fields;              /* --by offset|field */
	enum fields_by fby;
	const char *spread;       /* --spread's metric, or NULL */
	const char *sort;
	const char *show, *hide;   /* --show, --hide: metric column lists */
	bool top_given;
	size_t top;
	enum out_format format;
};

static int parse(struct report *r, int argc, char **argv)
{
	struct opt_iter it;
	uint64_t v;
	int id;

	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, report_opts, "report", cmd_report_usage, &r->path)) > 0) {
		switch (id) {
		case OPT_BY:
			r->by_given = true;
			r->fields = !strcmp(it.arg, "offset") || !strcmp(it.arg, "field");
			if (r->fields)
				r->fby = !strcmp(it.arg, "field") ? FIELDS_FIELD : FIELDS_OFFSET;
			else if (view_parse_by(it.arg, &r->view.kind))
				return -1;
			break;
		case OPT_OBJECT:
			r->view.object = it.arg;
			break;
		case OPT_FUNCTION:
			r->view.function = it.arg;
			break;
		case OPT_THREAD:
			r->view.thread = true;
			break;
		case OPT_OUTER:
			r->view.outer = true;
			break;
		case OPT_SORT:
			r->sort = it.arg;
			break;
		case OPT_TOP:
			if (num_parse_u64(it.arg, SIZE_MAX, &v)) {
				err_msg("invalid --top value '%s' (a number of rows, 0 = all)", it.arg);
				return -1;
			}
			r->top = (size_t)v;
			r->top_given = true;
			break;
		case OPT_STATS:
			r->stats = true;
			break;
		case OPT_FIRST_TOUCH:
			r->first_touch = true;
			break;
		case OPT_SAMPLED:
			r->view.sampled = true;
			break;
		case OPT_IP_SAMPLES:
			r->ip_samples = true;
			break;
		case OPT_INCLUSIVE:
			r->view.inclusive = true;
			break;
		case OPT_SPREAD:
			r->spread = it.arg ? it.arg : "Lat";
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &r->format))
				return -1;
			break;
		case OPT_SHOW:
			r->show = it.arg;
			break;
		case OPT_HIDE:
			r->hide = it.arg;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	if (r->stats && (r->by_given || r->view.function || r->view.thread || r->view.sampled)) {
		err_msg("--stats cannot be combined with --by, --function, --thread or --sampled");
		return -1;
	}
	if (r->view.inclusive && (r->stats || r->view.sampled || r->view.object ||
				  (r->by_given && r->view.kind != VIEW_FUNCTION))) {
		err_msg("--inclusive is per function: it cannot be combined with --by object,"
			  " --by line, --object, --stats or --sampled");
		return -1;
	}
	if (r->spread && (r->stats || r->by_given || r->view.function || r->view.thread ||
			  r->view.sampled || r->view.inclusive)) {
		err_msg("--spread is per bucket: it cannot be combined with --by, --function,"
			" --thread, --stats, --sampled or --inclusive");
		return -1;
	}
	if (r->fields && (!r->view.object || r->stats || r->view.function || r->view.thread ||
			  r->view.sampled || r->view.inclusive || r->spread)) {
		err_msg("--by offset and --by field need --object and cannot be combined with"
			" --function, --thread, --stats, --sampled, --inclusive or --spread");
		return -1;
	}
	if (r->first_touch && (r->by_given || r->stats || r->view.sampled || r->view.inclusive ||
				r->spread || r->view.object || r->view.function || r->ip_samples)) {
		err_msg("--first-touch cannot be combined with --by, --stats, --sampled,"
			" --inclusive, --spread, --object, --function or --ip-samples");
		return -1;
	}
	/* IP-only samples have no data address: no bucket to show them by. */
	if (r->ip_samples && (r->view.object || r->stats || r->view.sampled ||
			      r->view.inclusive || r->spread || r->fields ||
			      (r->by_given && r->view.kind == VIEW_OBJECT))) {
		err_msg("--ip-samples is per function or line: it cannot be combined with"
			" --object, --by object, --stats, --sampled, --inclusive or --spread");
		return -1;
	}
	if (r->ip_samples && !r->by_given)
		r->view.kind = VIEW_FUNCTION;
	if (r->show && r->hide) {
		err_msg("--show and --hide cannot be combined");
		return -1;
	}
	if (r->view.inclusive)
		r->view.kind = VIEW_FUNCTION;
	if (r->stats)
		r->view.kind = VIEW_STATS;
	else if (r->view.object && !r->by_given)
		r->view.kind = VIEW_LINE;
	if (r->view.outer && (r->view.kind != VIEW_LINE || r->fields || r->first_touch ||
			      r->spread)) {
		err_msg("--outer is per source line: it needs --by line");
		return -1;
	}
	if (!r->top_given)
		r->top = r->format == FMT_TEXT ? 20 : 0;
	return 0;
}

static int sort_rows(const struct report *r, struct table *t)
{
	if (r->fields && !r->sort)
		return 0;     /* offset order */
	int col = r->sort ? table_find_metric(t, r->sort) :
		  r->spread ? table_find_metric(t, "max") :
		  r->ip_samples ? table_find_metric(t, "samples") : view_default_sort(t, &r->view);
	struct sbuf valid;

	if (col >= 0) {
		table_sort(t, col);
		return 0;
	}
	sbuf_init(&valid);
	for (int j = 0; j < t->ncols; j++) {
		if (t->cols[j].key || t->cols[j].type == COL_STR)
			continue;
		sbuf_adds(&valid, valid.len ? ", " : "");
		sbuf_adds(&valid, t->cols[j].name);
	}
	err_msg("unknown sort metric '%s' (valid: %s)", r->sort, valid.buf);
	sbuf_release(&valid);
	return -1;
}

/* --inclusive as text, without --show or --hide: the key columns, then
 * what it ranks by and the calls, the self miss latency beside them, and
 * the other inclusive columns; the self counts only in CSV and JSON (or
 * with --show), where they stood first and pushed these off the screen. */
static void inclusive_text_columns(struct table *t)
{
	static const char *const first[] = { "InclMissLat", "InclMissLatPct", "calls",
					     "MissLat", "MissLatPct" };
	int keep[TABLE_MAXCOLS], nkeep = 0;
	bool kept[TABLE_MAXCOLS] = { false };

	for (int j = 0; j < t->ncols; j++)
		if (t->cols[j].key || t->cols[j].type == COL_STR)
			kept[keep[nkeep++] = j] = true;
	for (size_t i = 0; i < sizeof first / sizeof *first; i++) {
		int j = table_find_metric(t, first[i]);
		if (j >= 0 && !kept[j])
			kept[keep[nkeep++] = j] = true;
	}
	for (int j = 0; j < t->ncols; j++)
		if (!kept[j] && !strncmp(t->cols[j].name, "Incl", 4))
			kept[keep[nkeep++] = j] = true;
	table_keep_cols(t, keep, nkeep);
}

/* --show/--hide, after sorting (a hidden column may still be the sort
 * key): the key and name columns, then the chosen metrics. */
static int pick_columns(const struct report *r, struct table *t)
{
	int listed[TABLE_MAXCOLS], keep[TABLE_MAXCOLS], n, nkeep = 0;
	bool in_list[TABLE_MAXCOLS] = { false };
	char err[DC_ERRLEN];

	if (!r->show && !r->hide) {
		if (r->view.inclusive && r->format == FMT_TEXT)
			inclusive_text_columns(t);
		return 0;
	}
	n = table_parse_metrics(t, r->show ? r->show : r->hide, listed, err, sizeof err);
	if (n < 0) {
		err_msg("%s: %s", r->show ? "--show" : "--hide", err);
		return -1;
	}
	for (int k = 0; k < n; k++)
		in_list[listed[k]] = true;
	for (int j = 0; j < t->ncols; j++) {
		bool metric = !t->cols[j].key && t->cols[j].type != COL_STR;

		if (!metric || (r->hide && !in_list[j]))
			keep[nkeep++] = j;
	}
	for (int k = 0; r->show && k < n; k++)
		keep[nkeep++] = listed[k];
	table_keep_cols(t, keep, nkeep);
	return 0;
}

static double ratio(int64_t part, int64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* What the text and JSON outputs show besides the rows. */
struct summary {
	struct header h;
	struct level_totals lt;
	struct sample_info si;     /* with --sampled */
};

static int summary_read(const struct report *r, struct profile *p, struct summary *sm,
			char *err, size_t errlen)
{
	if (r->view.sampled && sample_info_read(p, &sm->si, err, errlen))
		return -1;
	if (r->ip_samples)
		return sample_info_read_ip(p, &sm->si, err, errlen) ||
		       (r->format != FMT_CSV && header_read(p, &sm->h, err, errlen)) ? -1 : 0;
	/* CSV has no header: spare it the scan of the whole cost table. */
	if (r->format == FMT_CSV)
		return 0;
	if (header_read(p, &sm->h, err, errlen))
		return -1;
	return view_level_totals(p, r->view.sampled, &sm->lt, err, errlen);
}

static void print_text_header(const struct report *r, struct profile *p,
			      const struct summary *sm)
{
	const struct level_totals *lt = &sm->lt;
	struct sbuf out;
	struct table lv;

	sbuf_init(&out);
	header_text(&out, p, &sm->h);
	if (r->first_touch) {
		sbuf_addf(&out, "%-10spages first touched, by object%s\n\n", "view:",
			  r->view.thread ? ", per thread" : "");
		fwrite(out.buf, 1, out.len, stdout);
		sbuf_release(&out);
		return;
	}
	if (r->ip_samples) {
		sbuf_addf(&out, "%-10s", "samples:");
		sample_describe_ip(&out, &sm->si);
		sbuf_addf(&out, "\n%-10s", "view:");
		view_describe(&out, &r->view);
		sbuf_adds(&out, r->view.thread ? ", per thread\n\n" : "\n\n");
		fwrite(out.buf, 1, out.len, stdout);
		sbuf_release(&out);
		return;
	}
	if (r->view.sampled) {
		sbuf_addf(&out, "%-10sestimates from ", "sampled:");
		sample_describe(&out, &sm->si);
		sbuf_adds(&out, "; every number below is an estimate\n");
	}
	sbuf_addf(&out, "%-10s", "latency:");
	fmt_thousands(&out, lt->lat);
	sbuf_adds(&out, " cycles, ");
	fmt_thousands(&out, lt->misslat);
	sbuf_adds(&out, " in L1 misses");
	if (lt->misses[0])
		sbuf_addf(&out, ", %.2f per L1 miss", (double)lt->misslat / (double)lt->misses[0]);
	sbuf_addf(&out, "\n%-10s", "view:");
	if (r->fields) {
		sbuf_addf(&out, "by %s, bucket '", r->fby == FIELDS_FIELD ? "field" : "offset");
		fmt_text(&out, r->view.object, strlen(r->view.object));
		sbuf_adds(&out, "'");
	} else if (r->spread)
		sbuf_addf(&out, "spread of %s over the merged processes, by object", r->spread);
	else
		view_describe(&out, &r->view);
	sbuf_adds(&out, r->view.thread ? ", per thread\n\n" : "\n\n");
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);

	/* Accesses, misses and hit ratio per level, as a small table. */
	table_init(&lv);
	table_add_col(&lv, "level", NULL, COL_STR, true);
	table_add_col(&lv, "accesses", NULL, COL_INT, false);
	table_add_col(&lv, "misses", NULL, COL_INT, false);
	table_add_col(&lv, "hit%", NULL, COL_PCT, false);
	for (int k = 0; k <= p->nlevels; k++) {
		struct cell *row = table_add_row(&lv);
		const char *name = k < p->nlevels ? p->lv[k].name : "memory";

		cell_set_str(&row[0], name, strlen(name));
		cell_set_int(&row[1], lt->accesses[k]);
		if (k < p->nlevels) {
			cell_set_int(&row[2], lt->misses[k]);
			cell_set_real(&row[3], 100.0 - ratio(lt->misses[k], lt->accesses[k]));
		}
	}
	render_table_text(stdout, &lv, 0);
	table_release(&lv);
	fputc('\n', stdout);
}

/* --by offset|field: the element type and what the shares cover. */
static void print_fields_text(const struct report *r, const struct fields_info *fi)
{
	struct sbuf out;

	sbuf_init(&out);
	sbuf_addf(&out, "%-10s", "type:");
	if (fi->type.len && !fi->folded) {
		fmt_text(&out, fi->type.buf, fi->type.len);
		sbuf_addf(&out, ", %lld bytes, an array of scalars: offsets from each object's"
			  " start, [k] its element k\n", (long long)fi->elem_size);
	} else if (fi->type.len) {
		fmt_text(&out, fi->type.buf, fi->type.len);
		sbuf_addf(&out, ", %lld bytes: offsets are within one element (folded by its"
			  " size)\n", (long long)fi->elem_size);
	} else {
		sbuf_adds(&out, "unknown (");
		fmt_text(&out, fi->why.buf, fi->why.len);
		sbuf_adds(&out, "): offsets from each object's start\n");
	}
	sbuf_addf(&out, "%-10s", "offsets:");
	fmt_thousands(&out, fi->counted);
	sbuf_addf(&out, " accesses counted by offset (the first %lld bytes of each object),"
		  " ", (long long)fi->window);
	fmt_thousands(&out, fi->beyond);
	sbuf_adds(&out, " beyond; shares are of those counted\n");
	if (fi->beyond > fi->counted)
		sbuf_addf(&out, "%-10s%.1f %% of the accesses are beyond the offsets recorded: the"
			  " rows are of the objects' first bytes or elements only (record with a"
			  " larger --offset-bucket-cells, --offset-window or --offset-cells to count"
			  " more)\n", "note:",
			  100.0 * (double)fi->beyond / (double)(fi->beyond + fi->counted));
	if (fi->cell_bytes > 1) {
		sbuf_addf(&out, "%-10s%lld bytes wide", "cells:", (long long)fi->cell_bytes);
		if (fi->cell_share)
			sbuf_addf(&out, " (%lld cells a bucket cover its %lld bytes)",
				  (long long)fi->cell_share, (long long)fi->cell_ext);
		sbuf_adds(&out, ": an access counts at its cell's first byte");
		if (fi->shared)
			sbuf_addf(&out, "; a|b rows are fields sharing a cell (%zu)", fi->shared);
		if (fi->cell_ext)
			sbuf_addf(&out, "; record with --offset-bucket-cells=%lld for a cell a byte",
				  (long long)fi->cell_ext);
		sbuf_adds(&out, "\n");
	}
	if (fi->summary.len) {
		sbuf_addf(&out, "%-10s", "fields:");
		fmt_text(&out, fi->summary.buf, fi->summary.len);
		sbuf_adds(&out, "\n");
	}
	sbuf_adds(&out, "\n");
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);
	(void)r;
}

static void json_fields(struct sbuf *out, const struct report *r, const struct fields_info *fi)
{
	sbuf_addf(out, ",\"object\":");
	fmt_json_str(out, r->view.object, strlen(r->view.object));
	sbuf_adds(out, ",\"type\":");
	if (fi->type.len)
		fmt_json_str(out, fi->type.buf, fi->type.len);
	else
		sbuf_adds(out, "null");
	if (fi->elem_size)
		sbuf_addf(out, ",\"element_size\":%lld,\"folded\":%s", (long long)fi->elem_size,
			  fi->folded ? "true" : "false");
	else
		sbuf_adds(out, ",\"element_size\":null");
	sbuf_adds(out, ",\"type_unknown_why\":");
	if (fi->type.len)
		sbuf_adds(out, "null");
	else
		fmt_json_str(out, fi->why.buf, fi->why.len);
	sbuf_addf(out, ",\"offset_window\":%lld,\"cell_bytes\":%lld,\"counted\":%lld,"
		  "\"beyond\":%lld,\"summary\":", (long long)fi->window,
		  (long long)fi->cell_bytes, (long long)fi->counted, (long long)fi->beyond);
	if (fi->summary.len)
		fmt_json_str(out, fi->summary.buf, fi->summary.len);
	else
		sbuf_adds(out, "null");
}

static void print_json(const struct report *r, struct profile *p, const struct summary *sm,
		       const struct table *t, const struct fields_info *fi)
{
	const struct level_totals *lt = &sm->lt;
	struct sbuf out;

	sbuf_init(&out);
	header_json(&out, p, &sm->h);
	if (r->ip_samples) {
		sbuf_adds(&out, ",\"ip_samples\":");
		sample_json(&out, &sm->si);
		sbuf_addf(&out, ",\"view\":\"%s\"", view_name(r->view.kind));
		view_json_filters(&out, &r->view);
		goto rows;
	}
	sbuf_addf(&out, ",\"sampled\":%s,\"sample\":", r->view.sampled ? "true" : "false");
	if (r->view.sampled)
		sample_json(&out, &sm->si);
	else
		sbuf_adds(&out, "null");
	sbuf_adds(&out, ",\"levels\":[");
	for (int k = 0; k < p->nlevels; k++) {
		const struct profile_level *l = &p->lv[k];

		sbuf_addf(&out, "%s{\"level\":%d,\"name\":", k ? "," : "", k + 1);
		fmt_json_str(&out, l->name, strlen(l->name));
		sbuf_addf(&out, ",\"size\":%lld,\"assoc\":%lld,\"line_size\":%lld,\"latency\":%lld,"
			  "\"accesses\":%lld,\"misses\":%lld}", (long long)l->size,
			  (long long)l->assoc, (long long)l->line_size, (long long)l->latency,
			  (long long)lt->accesses[k], (long long)lt->misses[k]);
	}
	sbuf_addf(&out, "],\"memory_latency\":%lld,\"memory_accesses\":%lld,\"view\":\"%s\"",
		  (long long)p->mem_latency, (long long)lt->accesses[p->nlevels],
		  r->fields ? (r->fby == FIELDS_FIELD ? "field" : "offset") : view_name(r->view.kind));
	if (r->fields)
		json_fields(&out, r, fi);
	else
		view_json_filters(&out, &r->view);
rows:
	sbuf_adds(&out, ",\"totals\":");
	render_table_json_totals(&out, t);
	sbuf_addf(&out, ",\"total_rows\":%zu,\"rows\":", t->nrows);
	render_table_json_rows(&out, t, r->top);
	sbuf_adds(&out, "}\n");
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);
}

int cmd_report(int argc, char **argv)
{
	struct report r = { 0 };
	struct profile p;
	struct summary sm;
	struct table t;
	struct fields_info fi;
	char err[DC_ERRLEN];
	int rc;

	rc = parse(&r, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open_cmd(&p, r.path))
		return DC_EXIT_ERROR;
	header_init(&sm.h);
	table_init(&t);
	fields_info_init(&fi);
	rc = DC_EXIT_ERROR;
	if (view_check_filters(&p, &r.view, err, sizeof err) ||
	    summary_read(&r, &p, &sm, err, sizeof err) ||
	    (r.first_touch ? ftouch_build(&p, r.view.thread, &t, err, sizeof err) :
	     r.ip_samples ? ipsamp_build(&p, &r.view, &sm.si, &t, err, sizeof err) :
	     r.fields ? fields_build(&p, r.view.object, r.fby, &t, &fi, err, sizeof err) :
	     r.spread ? spread_build(&p, r.spread, r.view.object, &t, err, sizeof err) :
			view_build(&p, &r.view, &t, err, sizeof err))) {
		err_msg("%s", err);
		goto out;
	}
	if ((!r.first_touch || r.sort) && sort_rows(&r, &t))
		goto out;
	if (pick_columns(&r, &t))
		goto out;
	switch (r.format) {
	case FMT_TEXT:
		print_text_header(&r, &p, &sm);
		if (r.fields)
			print_fields_text(&r, &fi);
		render_table_text(stdout, &t, r.top);
		if (r.top && r.top < t.nrows)
			printf("(%zu of %zu rows shown; --top 0 shows all)\n", r.top, t.nrows);
		break;
	case FMT_CSV:
		render_table_csv(stdout, &t, r.top);
		break;
	case FMT_JSON:
		print_json(&r, &p, &sm, &t, &fi);
		break;
	}
	rc = err_flush_output();
out:
	table_release(&t);
	fields_info_release(&fi);
	header_release(&sm.h);
	profile_close(&p);
	return rc;
}
