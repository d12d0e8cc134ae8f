/* cmd_annotate.c — dcprof annotate: source files with per-line costs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/annot.h"
#include "analysis/view.h"
#include "base/fmt.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/annotate.h"
#include "report/header.h"
#include "report/render.h"

enum { OPT_OBJECT = OPT_OWN, OPT_SHOW, OPT_SORT, OPT_THRESHOLD, OPT_CONTEXT,
       OPT_SOURCE_DIR, OPT_FORMAT, OPT_OUTER };

static const struct opt_def annotate_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_OBJECT, 0, "object", OPT_REQUIRED },
	{ OPT_OUTER, 0, "outer", OPT_NOARG },
	{ OPT_SHOW, 0, "show", OPT_REQUIRED },
	{ OPT_SORT, 0, "sort", OPT_REQUIRED },
	{ OPT_THRESHOLD, 0, "threshold", OPT_REQUIRED },
	{ OPT_CONTEXT, 0, "context", OPT_REQUIRED },
	{ OPT_SOURCE_DIR, 0, "source-dir", OPT_REQUIRED },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_annotate_usage(FILE *f)
{
	fputs("usage: dcprof annotate PROFILE [FILE...] [options]\n"
	      "\n"
	      "Show source files with each line's costs in the left margin, like\n"
	      "cg_annotate: the regions around the hot lines, each hot line followed by\n"
	      "the buckets (data) its cost falls on.  Without FILE, the files holding at\n"
	      "least --threshold percent of the metric; a FILE names a source file as\n"
	      "the profile records it, or by its last path components (demo.c).\n"
	      "Sources are read from the path the profile records (absolute, or\n"
	      "relative to the current directory) unless a --source-dir has them.\n"
	      "After the files, what they leave out: each file whose source was not\n"
	      "found, with its main function, the files below the threshold and the\n"
	      "code with no source file, each with its share of the total.\n"
	      "\n"
	      "  --object NAME              only accesses to the bucket(s) named NAME\n"
	      "  --outer                    inlined code's costs on the line of its\n"
	      "                             outermost inlined call, in the function it was\n"
	      "                             compiled into (the loop's line, not the\n"
	      "                             library header's), as report --by line --outer\n"
	      "  --show EVENTS              margin columns, comma-separated, as named in\n"
	      "                             'report --format csv' (default: MissLat, Dr,\n"
	      "                             Dw and the miss columns)\n"
	      "  --sort METRIC              the metric files and lines are ranked and\n"
	      "                             split over buckets by: a count or a share\n"
	      "                             (default: MissLat)\n"
	      "  --threshold PCT            hot files and lines have at least PCT percent\n"
	      "                             of the metric's total; 0: every file and line\n"
	      "                             with accesses (default: 1)\n"
	      "  --context N                lines shown before and after a hot line\n"
	      "                             (default: 8)\n"
	      "  --source-dir DIR           look for sources in DIR first: DIR/NAME, then\n"
	      "                             DIR/ with the shorter tails of NAME (so a\n"
	      "                             moved tree or a base name is found);\n"
	      "                             repeatable, tried in order\n"
	      "  --format text|json         output format (default: text)\n"
	      "  -h, --help                 show this help\n", f);
}

struct annotate {
	const char *path;
	const char **files;        /* FILE arguments */
	size_t nfiles;
	const char *object, *show, *sort;
	bool outer;                /* --outer */
	double threshold;
	uint64_t context;
	const char **dirs;
	size_t ndirs;
	const char *root;          /* the profile's source root, or NULL */
	enum out_format format;
};

static int parse(struct annotate *r, int argc, char **argv)
{
	struct opt_iter it;
	uint64_t v;
	char *end;
	int id;

	r->sort = "MissLat";
	r->threshold = 1;
	r->context = 8;
	r->files = xcalloc((size_t)argc, sizeof *r->files);
	r->dirs = xcalloc((size_t)argc, sizeof *r->dirs);
	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next(&it, annotate_opts)) != OPT_DONE) {
		switch (id) {
		case OPT_ERROR:
			opt_report_error(&it, "annotate");
			return -1;
		case OPT_HELP:
			cmd_annotate_usage(stdout);
			return 1;
		case OPT_POSITIONAL:
			if (!r->path)
				r->path = it.arg;
			else
				r->files[r->nfiles++] = it.arg;
			break;
		case OPT_OBJECT:
			r->object = it.arg;
			break;
		case OPT_OUTER:
			r->outer = true;
			break;
		case OPT_SHOW:
			r->show = it.arg;
			break;
		case OPT_SORT:
			r->sort = it.arg;
			break;
		case OPT_THRESHOLD:
			r->threshold = strtod(it.arg, &end);
			if (!*it.arg || *end || !(r->threshold >= 0 && r->threshold <= 100)) {
				err_msg("invalid --threshold value '%s' (a percentage from 0 to 100)",
					it.arg);
				return -1;
			}
			break;
		case OPT_CONTEXT:
			if (num_parse_u64(it.arg, 1000000, &v)) {
				err_msg("invalid --context value '%s' (a number of lines, 0 to 1000000)",
					it.arg);
				return -1;
			}
			r->context = v;
			break;
		case OPT_SOURCE_DIR:
			if (!*it.arg) {
				err_msg("invalid --source-dir value '' (a directory)");
				return -1;
			}
			r->dirs[r->ndirs++] = it.arg;
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &r->format))
				return -1;
			if (r->format == FMT_CSV) {
				err_msg("invalid --format value 'csv' for annotate (text or json)");
				return -1;
			}
			break;
		}
	}
	if (!r->path) {
		err_msg("no profile given; see 'dcprof help annotate'");
		return -1;
	}
	return 0;
}

/* Does the recorded file name match what the user named?  The same, or
 * one ends with the other after a '/' (a base name against a path). */
static bool name_matches(const struct annot_file *f, const char *want)
{
	size_t lw = strlen(want);
	const char *longer = f->len >= lw ? f->name : want;
	const char *shorter = f->len >= lw ? want : f->name;
	size_t ll = f->len >= lw ? f->len : lw, ls = f->len >= lw ? lw : f->len;

	if (ll == ls)
		return !memcmp(longer, shorter, ll);
	/* The longer must end with "/" and the shorter. */
	return ls && longer[ll - ls - 1] == '/' && !memcmp(longer + ll - ls, shorter, ls);
}

static bool default_column(const char *name)
{
	return !strcmp(name, "MissLat") || !strcmp(name, "Dr") || !strcmp(name, "Dw") ||
	       (name[0] == 'D' && strlen(name) == 4 && name[2] == 'm');
}

/* The margin columns: --show, else the metric (when not among them),
 * MissLat, Dr, Dw and every miss column. */
static int pick_columns(const struct annotate *r, const struct annot *a, int *cols)
{
	char err[DC_ERRLEN];
	int n = 0;

	if (r->show) {
		n = table_parse_metrics(&a->t, r->show, cols, err, sizeof err);
		if (n < 0)
			err_msg("--show: %s", err);
		return n;
	}
	if (!default_column(a->t.cols[a->metric].name))
		cols[n++] = a->metric;
	for (int j = 2; j < a->t.ncols; j++)
		if (a->t.cols[j].type == COL_INT && default_column(a->t.cols[j].name))
			cols[n++] = j;
	return n;
}

static void print_intro(const struct annotate *r, const struct annot *a, struct sbuf *out)
{
	const char *metric = a->t.cols[a->metric].name;

	sbuf_addf(out, "%-10s%s ", "annotate:", metric);
	if (a->t.cols[a->metric].type == COL_INT)
		fmt_thousands(out, (int64_t)llround(a->total));
	else
		sbuf_addf(out, "%.2f", a->total);
	if (r->threshold > 0)
		sbuf_addf(out, " in total; files and lines with at least %.2f %% of it", r->threshold);
	else
		sbuf_adds(out, " in total; every file and line with accesses");
	sbuf_addf(out, ", %llu lines of context\n", (unsigned long long)r->context);
	if (r->object) {
		sbuf_addf(out, "%-10s'", "object:");
		fmt_text(out, r->object, strlen(r->object));
		sbuf_adds(out, "'\n");
	}
	sbuf_addc(out, '\n');
}

/* Says so when the source changed after the profile was written. */
static void check_newer(const char *profile, const char *src)
{
	struct stat ps, ss;

	if (stat(profile, &ps) == 0 && stat(src, &ss) == 0 &&
	    (ss.st_mtim.tv_sec > ps.st_mtim.tv_sec ||
	     (ss.st_mtim.tv_sec == ps.st_mtim.tv_sec && ss.st_mtim.tv_nsec > ps.st_mtim.tv_nsec)))
		err_note("warning: source file '%s' is newer than the profile; its lines may"
			 " have moved", src);
}

/* Annotates file f; returns 1 when it was printed, 0 when its source was
 * not found or not readable. */
static int annotate_file(const struct annotate *r, const struct annot *a,
			 const struct annot_file *f, const struct annotate_opts *o,
			 struct sbuf *out, bool *first_json)
{
	struct sbuf path;
	struct source src;
	char err[DC_ERRLEN];
	int found = 0;
	size_t beyond;

	sbuf_init(&path);
	/* reports show files relative to the source root: the recorded path
	 * is the root's, after the --source-dir remappings */
	if (source_find(f->name, f->len, r->dirs, r->ndirs, &path) &&
	    (!r->root || f->name[0] == '/' ||
	     source_find(f->name, f->len, &r->root, 1, &path))) {
		if (r->ndirs)
			err_msg("source file '%s' not found in the --source-dir directories nor"
				" at its recorded path", f->name);
		else
			err_msg("source file '%s' not found; use --source-dir", f->name);
	} else if (source_read(path.buf, &src, err, sizeof err)) {
		err_msg("cannot read source file '%s': %s", path.buf, err);
	} else {
		found = 1;
		check_newer(r->path, path.buf);
	}
	if (r->format == FMT_JSON) {
		if (!*first_json)
			sbuf_addc(out, ',');
		*first_json = false;
		annotate_json(out, a, f, path.buf, found ? &src : NULL, o);
	} else if (found) {
		beyond = annotate_text(out, a, f, path.buf, &src, o);
		if (beyond)
			err_note("warning: source file '%s' has %zu lines but the profile has costs"
				 " on %zu hot lines beyond them: is it the file that was profiled?",
				 path.buf, src.nlines, beyond);
	}
	if (found)
		source_release(&src);
	sbuf_release(&path);
	return found;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate r = { 0 };
	struct view_opts vo = { 0 };
	struct annotate_opts o = { 0 };
	struct profile p;
	struct header h;
	struct annot a;
	struct sbuf out;
	char err[DC_ERRLEN];
	int cols[TABLE_MAXCOLS], rc = DC_EXIT_ERROR, printed = 0;
	bool first_json = true, *chosen = NULL, *shown = NULL;

	rc = parse(&r, argc, argv);
	if (rc) {
		free(r.files);
		free(r.dirs);
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	}
	rc = DC_EXIT_ERROR;
	if (profile_open_cmd(&p, r.path)) {
		free(r.files);
		free(r.dirs);
		return DC_EXIT_ERROR;
	}
	r.root = view_src_root(&p);
	header_init(&h);
	sbuf_init(&out);
	memset(&a, 0, sizeof a);
	vo.object = r.object;
	if (view_check_filters(&p, &vo, err, sizeof err) || header_read(&p, &h, err, sizeof err) ||
	    annot_build(&p, r.object, r.outer, r.sort, &a, err, sizeof err)) {
		err_msg("%s", err);
		goto out;
	}
	o.ncols = pick_columns(&r, &a, cols);
	if (o.ncols < 0)
		goto out;
	o.cols = cols;
	o.any_cost = r.threshold == 0;
	o.min_metric = r.threshold / 100 * a.total;
	o.context = (size_t)r.context;
	o.max_shares = 4;

	/* Which files: those named, else the hot ones. */
	chosen = xcalloc(a.nfiles + 1, sizeof *chosen);
	shown = xcalloc(a.nfiles + 1, sizeof *shown);
	for (size_t i = 0; i < r.nfiles; i++) {
		bool any = false;

		for (size_t f = 0; f < a.nfiles; f++)
			if (name_matches(&a.files[f], r.files[i]))
				chosen[f] = any = true;
		if (!any)
			err_msg("no accesses recorded in source file '%s'%s", r.files[i],
				r.object ? " for this bucket" : "");
	}
	if (!r.nfiles)
		for (size_t f = 0; f < a.nfiles; f++)
			chosen[f] = r.threshold == 0 ? true
				: a.files[f].metric > 0 && a.files[f].metric >= o.min_metric;

	if (r.format == FMT_JSON) {
		header_json(&out, &p, &h);
		sbuf_adds(&out, ",\"metric\":");
		fmt_json_str(&out, a.t.cols[a.metric].name, strlen(a.t.cols[a.metric].name));
		sbuf_addf(&out, ",\"threshold\":%.10g,\"context\":%llu,\"object\":", r.threshold,
			  (unsigned long long)r.context);
		if (r.object)
			fmt_json_str(&out, r.object, strlen(r.object));
		else
			sbuf_adds(&out, "null");
		sbuf_adds(&out, ",\"columns\":[");
		for (int k = 0; k < o.ncols; k++) {
			if (k)
				sbuf_addc(&out, ',');
			fmt_json_str(&out, a.t.cols[cols[k]].name, strlen(a.t.cols[cols[k]].name));
		}
		sbuf_adds(&out, "],\"totals\":");
		render_table_json_totals(&out, &a.t);
		sbuf_adds(&out, ",\"files\":[");
	} else {
		header_text(&out, &p, &h);
		print_intro(&r, &a, &out);
	}
	for (size_t f = 0; f < a.nfiles; f++) {
		if (!chosen[f])
			continue;
		shown[f] = annotate_file(&r, &a, &a.files[f], &o, &out, &first_json);
		printed += shown[f];
		/* Large profiles: print as we go. */
		fwrite(out.buf, 1, out.len, stdout);
		sbuf_reset(&out);
	}
	if (r.format == FMT_JSON) {
		sbuf_addc(&out, ']');
		annotate_rest_json(&out, &a, chosen);
		sbuf_adds(&out, "}\n");
	} else {
		if (!printed)
			sbuf_adds(&out, "(no source file shown)\n\n");
		annotate_rest_text(&out, &a, chosen, shown, r.nfiles > 0);
	}
	fwrite(out.buf, 1, out.len, stdout);
	rc = err_flush_output();
	if (!rc && !printed)
		rc = DC_EXIT_ERROR;
out:
	free(chosen);
	free(shown);
	free(r.files);
	free(r.dirs);
	annot_release(&a);
	sbuf_release(&out);
	header_release(&h);
	profile_close(&p);
	return rc;
}
