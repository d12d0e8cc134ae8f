/* cmd_report.c — dcprof report: show a profile by bucket, function or line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fmt.h"
#include "cli/opts.h"
#include "cli/view.h"

enum { OPT_HELP = 1, OPT_BY, OPT_OBJECT, OPT_FUNCTION, OPT_THREAD, OPT_SORT, OPT_TOP,
       OPT_STATS, OPT_FORMAT };

static const struct opt_def report_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_BY, 0, "by", OPT_REQUIRED },
	{ OPT_OBJECT, 0, "object", OPT_REQUIRED },
	{ OPT_FUNCTION, 0, "function", OPT_REQUIRED },
	{ OPT_THREAD, 0, "thread", OPT_NOARG },
	{ OPT_SORT, 0, "sort", OPT_REQUIRED },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_STATS, 0, "stats", OPT_NOARG },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
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
	      "  --object NAME              only accesses to the bucket(s) named NAME\n"
	      "  --function NAME            only accesses made by function NAME\n"
	      "  --thread                   one row per thread (default: threads summed)\n"
	      "  --sort METRIC              sort by this column, descending; any numeric\n"
	      "                             column, case-insensitive (default: MissLat;\n"
	      "                             total_bytes with --stats)\n"
	      "  --top N                    show the first N rows, 0 = all (default: 20 for\n"
	      "                             text, all for csv and json)\n"
	      "  --stats                    object statistics per bucket instead of costs\n"
	      "  --format text|csv|json     output format (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

enum format { FMT_TEXT, FMT_CSV, FMT_JSON };

struct report {
	const char *path;
	struct view_opts view;
	bool by_given, stats;
	const char *sort;
	bool top_given;
	size_t top;
	enum format format;
};

/* Meta values the header shows; a missing key is an empty, absent sbuf. */
struct header {
	struct sbuf program, command, complete, reason, exit_status, source, cache_reason;
	bool has_reason, has_exit, has_source, has_cache_reason;
	struct level_totals lt;
};

static int parse(struct report *r, int argc, char **argv)
{
	struct opt_iter it;
	uint64_t v;
	int id;

	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next(&it, report_opts)) != OPT_DONE) {
		switch (id) {
		case OPT_ERROR:
			opt_report_error(&it, "report");
			return -1;
		case OPT_HELP:
			cmd_report_usage(stdout);
			return 1;
		case OPT_POSITIONAL:
			if (r->path) {
				cli_error("unexpected argument '%s'; see 'dcprof help report'", it.arg);
				return -1;
			}
			r->path = it.arg;
			break;
		case OPT_BY:
			r->by_given = true;
			if (!strcmp(it.arg, "object"))
				r->view.kind = VIEW_OBJECT;
			else if (!strcmp(it.arg, "function"))
				r->view.kind = VIEW_FUNCTION;
			else if (!strcmp(it.arg, "line"))
				r->view.kind = VIEW_LINE;
			else {
				cli_error("invalid --by value '%s' (object, function or line)", it.arg);
				return -1;
			}
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
		case OPT_SORT:
			r->sort = it.arg;
			break;
		case OPT_TOP:
			if (opt_parse_u64(it.arg, SIZE_MAX, &v)) {
				cli_error("invalid --top value '%s' (a number of rows, 0 = all)", it.arg);
				return -1;
			}
			r->top = (size_t)v;
			r->top_given = true;
			break;
		case OPT_STATS:
			r->stats = true;
			break;
		case OPT_FORMAT:
			if (!strcmp(it.arg, "text"))
				r->format = FMT_TEXT;
			else if (!strcmp(it.arg, "csv"))
				r->format = FMT_CSV;
			else if (!strcmp(it.arg, "json"))
				r->format = FMT_JSON;
			else {
				cli_error("invalid --format value '%s' (text, csv or json)", it.arg);
				return -1;
			}
			break;
		}
	}
	if (!r->path) {
		cli_error("no profile given; see 'dcprof help report'");
		return -1;
	}
	if (r->stats && (r->by_given || r->view.function || r->view.thread)) {
		cli_error("--stats cannot be combined with --by, --function or --thread");
		return -1;
	}
	if (r->stats)
		r->view.kind = VIEW_STATS;
	else if (r->view.object && !r->by_given)
		r->view.kind = VIEW_LINE;
	if (!r->top_given)
		r->top = r->format == FMT_TEXT ? 20 : 0;
	return 0;
}

static int sort_rows(const struct report *r, struct table *t)
{
	int col = r->sort ? table_find_metric(t, r->sort) : view_default_sort(t, r->view.kind);
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
	cli_error("unknown sort metric '%s' (valid: %s)", r->sort, valid.buf);
	sbuf_release(&valid);
	return -1;
}

static void header_init(struct header *h)
{
	struct sbuf *s[] = { &h->program, &h->command, &h->complete, &h->reason,
			     &h->exit_status, &h->source, &h->cache_reason };

	memset(h, 0, sizeof *h);
	for (size_t i = 0; i < sizeof s / sizeof *s; i++)
		sbuf_init(s[i]);
}

static void header_release(struct header *h)
{
	struct sbuf *s[] = { &h->program, &h->command, &h->complete, &h->reason,
			     &h->exit_status, &h->source, &h->cache_reason };

	for (size_t i = 0; i < sizeof s / sizeof *s; i++)
		sbuf_release(s[i]);
}

static int header_read(struct profile *p, struct header *h, char *err, size_t errlen)
{
	struct { const char *key; struct sbuf *val; bool *present; } keys[] = {
		{ "program", &h->program, NULL },
		{ "command", &h->command, NULL },
		{ "complete", &h->complete, NULL },
		{ "incomplete_reason", &h->reason, &h->has_reason },
		{ "exit_status", &h->exit_status, &h->has_exit },
		{ "cache_source", &h->source, &h->has_source },
		{ "cache_reason", &h->cache_reason, &h->has_cache_reason },
	};

	for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
		int rc = profile_meta(p, keys[i].key, keys[i].val);
		if (rc < 0) {
			profile_read_error(p, err, errlen);
			return -1;
		}
		if (keys[i].present)
			*keys[i].present = rc == 1;
	}
	return view_level_totals(p, &h->lt, err, errlen);
}

static bool is_complete(const struct header *h)
{
	return h->complete.len == 1 && h->complete.buf[0] == '1';
}

static double ratio(int64_t part, int64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static void text_line(struct sbuf *out, const char *label, const struct sbuf *val)
{
	sbuf_addf(out, "%-10s", label);
	fmt_text(out, val->buf, val->len);
	sbuf_addc(out, '\n');
}

static void level_geometry(struct sbuf *out, const struct profile_level *l)
{
	struct dc_level_cfg cfg = { (uint64_t)l->size, (uint32_t)l->assoc,
				    (uint32_t)l->line_size, (uint32_t)l->latency };
	char geo[64];

	dc_level_format(&cfg, geo, sizeof geo);
	sbuf_adds(out, geo);
}

static void print_text_header(const struct report *r, struct profile *p, const struct header *h)
{
	const struct level_totals *lt = &h->lt;
	struct sbuf out;
	struct table lv;

	sbuf_init(&out);
	text_line(&out, "program:", &h->program);
	text_line(&out, "command:", &h->command);
	sbuf_addf(&out, "%-10s%s", "status:", is_complete(h) ? "complete" : "INCOMPLETE");
	if (!is_complete(h) && h->has_reason) {
		sbuf_adds(&out, " (");
		fmt_text(&out, h->reason.buf, h->reason.len);
		sbuf_adds(&out, ")");
	}
	if (h->has_exit) {
		sbuf_adds(&out, ", ");
		fmt_text(&out, h->exit_status.buf, h->exit_status.len);
	}
	sbuf_addf(&out, "\n%-10s", "caches:");
	for (int k = 0; k < p->nlevels; k++) {
		fmt_text(&out, p->lv[k].name, strlen(p->lv[k].name));
		sbuf_addc(&out, ' ');
		level_geometry(&out, &p->lv[k]);
		sbuf_addf(&out, " (%lld cycles), ", (long long)p->lv[k].latency);
	}
	sbuf_addf(&out, "memory %lld cycles\n", (long long)p->mem_latency);
	if (h->has_source || h->has_cache_reason) {
		sbuf_addf(&out, "%-10s", "");
		fmt_text(&out, h->source.buf, h->source.len);
		if (h->has_cache_reason) {
			sbuf_adds(&out, ": ");
			fmt_text(&out, h->cache_reason.buf, h->cache_reason.len);
		}
		sbuf_addc(&out, '\n');
	}
	sbuf_addf(&out, "%-10s", "latency:");
	fmt_thousands(&out, lt->lat);
	sbuf_adds(&out, " cycles, ");
	fmt_thousands(&out, lt->misslat);
	sbuf_adds(&out, " in L1 misses");
	if (lt->misses[0])
		sbuf_addf(&out, ", %.2f per L1 miss", (double)lt->misslat / (double)lt->misses[0]);
	sbuf_addf(&out, "\n%-10sby %s", "view:", view_name(r->view.kind));
	if (r->view.object) {
		sbuf_adds(&out, ", bucket '");
		fmt_text(&out, r->view.object, strlen(r->view.object));
		sbuf_adds(&out, "'");
	}
	if (r->view.function) {
		sbuf_adds(&out, ", function '");
		fmt_text(&out, r->view.function, strlen(r->view.function));
		sbuf_adds(&out, "'");
	}
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
	fmt_table_text(stdout, &lv, 0);
	table_release(&lv);
	fputc('\n', stdout);
}

static void json_meta(struct sbuf *out, const char *key, const struct sbuf *val, bool present)
{
	sbuf_addf(out, ",\"%s\":", key);
	if (present)
		fmt_json_str(out, val->buf, val->len);
	else
		sbuf_adds(out, "null");
}

static void print_json(const struct report *r, struct profile *p, const struct header *h,
		       const struct table *t)
{
	struct sbuf out;

	sbuf_init(&out);
	sbuf_addf(&out, "{\"schema_version\":%d", PROFILE_SCHEMA_VERSION);
	json_meta(&out, "program", &h->program, true);
	json_meta(&out, "command", &h->command, true);
	sbuf_addf(&out, ",\"complete\":%s", is_complete(h) ? "true" : "false");
	json_meta(&out, "incomplete_reason", &h->reason, !is_complete(h) && h->has_reason);
	json_meta(&out, "exit_status", &h->exit_status, h->has_exit);
	json_meta(&out, "cache_source", &h->source, h->has_source);
	json_meta(&out, "cache_reason", &h->cache_reason, h->has_cache_reason);
	sbuf_adds(&out, ",\"levels\":[");
	for (int k = 0; k < p->nlevels; k++) {
		const struct profile_level *l = &p->lv[k];

		sbuf_addf(&out, "%s{\"level\":%d,\"name\":", k ? "," : "", k + 1);
		fmt_json_str(&out, l->name, strlen(l->name));
		sbuf_addf(&out, ",\"size\":%lld,\"assoc\":%lld,\"line_size\":%lld,\"latency\":%lld,"
			  "\"accesses\":%lld,\"misses\":%lld}", (long long)l->size,
			  (long long)l->assoc, (long long)l->line_size, (long long)l->latency,
			  (long long)h->lt.accesses[k], (long long)h->lt.misses[k]);
	}
	sbuf_addf(&out, "],\"memory_latency\":%lld,\"memory_accesses\":%lld,\"view\":\"%s\"",
		  (long long)p->mem_latency, (long long)h->lt.accesses[p->nlevels],
		  view_name(r->view.kind));
	sbuf_adds(&out, ",\"object\":");
	if (r->view.object)
		fmt_json_str(&out, r->view.object, strlen(r->view.object));
	else
		sbuf_adds(&out, "null");
	sbuf_adds(&out, ",\"function\":");
	if (r->view.function)
		fmt_json_str(&out, r->view.function, strlen(r->view.function));
	else
		sbuf_adds(&out, "null");
	sbuf_adds(&out, ",\"totals\":");
	fmt_table_json_totals(&out, t);
	sbuf_addf(&out, ",\"total_rows\":%zu,\"rows\":", t->nrows);
	fmt_table_json_rows(&out, t, r->top);
	sbuf_adds(&out, "}\n");
	fwrite(out.buf, 1, out.len, stdout);
	sbuf_release(&out);
}

int cmd_report(int argc, char **argv)
{
	struct report r = { 0 };
	struct profile p;
	struct header h;
	struct table t;
	char err[DC_ERRLEN];
	int rc;

	rc = parse(&r, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open(&p, r.path, err, sizeof err)) {
		cli_error("%s", err);
		return DC_EXIT_ERROR;
	}
	header_init(&h);
	table_init(&t);
	rc = DC_EXIT_ERROR;
	/* CSV has no header: spare it the scan of the whole cost table. */
	if ((r.format != FMT_CSV && header_read(&p, &h, err, sizeof err)) ||
	    view_build(&p, &r.view, &t, err, sizeof err)) {
		cli_error("%s", err);
		goto out;
	}
	if (sort_rows(&r, &t))
		goto out;
	switch (r.format) {
	case FMT_TEXT:
		print_text_header(&r, &p, &h);
		fmt_table_text(stdout, &t, r.top);
		if (r.top && r.top < t.nrows)
			printf("(%zu of %zu rows shown; --top 0 shows all)\n", r.top, t.nrows);
		break;
	case FMT_CSV:
		fmt_table_csv(stdout, &t, r.top);
		break;
	case FMT_JSON:
		print_json(&r, &p, &h, &t);
		break;
	}
	rc = fflush(stdout) ? DC_EXIT_ERROR : 0;
	if (rc)
		cli_error("cannot write the report: %s", strerror(errno));
out:
	table_release(&t);
	header_release(&h);
	profile_close(&p);
	return rc;
}
