/* cmd_html.c — dcprof html: write a profile as one self-contained HTML page
 * (the page itself: report/html.h; docs/cli.md, "dcprof html"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/outfile.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/html.h"

#define MAX_SOURCE_DIRS 64

enum { OPT_OUTPUT = OPT_OWN, OPT_SOURCE_DIR, OPT_TOP, OPT_HOT_LINES, OPT_CONTEXT };

static const struct opt_def html_opts_def[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_OUTPUT, 'o', "output", OPT_REQUIRED },
	{ OPT_SOURCE_DIR, 0, "source-dir", OPT_REQUIRED },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_HOT_LINES, 0, "hot-lines", OPT_REQUIRED },
	{ OPT_CONTEXT, 0, "context", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_html_usage(FILE *f)
{
	fprintf(f,
		"usage: dcprof html PROFILE -o FILE [options]\n"
		"\n"
		"Write a profile as one self-contained HTML page to open in a browser: the\n"
		"summary, the buckets (sortable; click one for its functions and lines),\n"
		"the hot source lines, and plots of latency per bucket, hit ratios, reuse\n"
		"distances and the miss-ratio curve, the eviction matrix and the footprint\n"
		"over time, each when the profile has the data.  The page loads nothing.\n"
		"\n"
		"  -o, --output FILE          the page to write (required)\n"
		"  --source-dir DIR           look for source files below DIR too; may be\n"
		"                             repeated, searched in order before the current\n"
		"                             directory (at most %d)\n"
		"  --top N                    per bucket, the first N functions and lines by\n"
		"                             MissLat, 0 = all (default: 25)\n"
		"  --hot-lines N              the annotated source: the N lines with the most\n"
		"                             MissLat, 0 = none (default: 30)\n"
		"  --context N                source lines shown around a hot line, 0 to 20\n"
		"                             (default: 3)\n"
		"  -h, --help                 show this help\n", MAX_SOURCE_DIRS);
}

struct html_cmd {
	const char *path, *out;
	const char *dirs[MAX_SOURCE_DIRS];
	struct html_opts o;
};

static int parse_count(const char *opt, const char *arg, uint64_t max, size_t *v)
{
	uint64_t n;

	if (num_parse_u64(arg, max, &n)) {
		err_msg("invalid %s value '%s' (0 to %llu)", opt, arg, (unsigned long long)max);
		return -1;
	}
	*v = (size_t)n;
	return 0;
}

static int parse(struct html_cmd *c, int argc, char **argv)
{
	struct opt_iter it;
	size_t ctx;
	int id;

	c->o.top = 25;
	c->o.hot_lines = 30;
	c->o.context = 3;
	c->o.source_dirs = c->dirs;
	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, html_opts_def, "html", cmd_html_usage, &c->path)) > 0) {
		switch (id) {
		case OPT_OUTPUT:
			c->out = it.arg;
			break;
		case OPT_SOURCE_DIR:
			if (c->o.nsource_dirs == MAX_SOURCE_DIRS) {
				err_msg("too many --source-dir options (at most %d)", MAX_SOURCE_DIRS);
				return -1;
			}
			if (!*it.arg) {
				err_msg("invalid --source-dir value '' (a directory)");
				return -1;
			}
			c->dirs[c->o.nsource_dirs++] = it.arg;
			break;
		case OPT_TOP:
			if (parse_count("--top", it.arg, 1000000, &c->o.top))
				return -1;
			break;
		case OPT_HOT_LINES:
			if (parse_count("--hot-lines", it.arg, 100000, &c->o.hot_lines))
				return -1;
			break;
		case OPT_CONTEXT:
			if (parse_count("--context", it.arg, 20, &ctx))
				return -1;
			c->o.context = (int)ctx;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	if (!c->out) {
		err_msg("-o FILE is required (the page to write)");
		return -1;
	}
	return 0;
}

int cmd_html(int argc, char **argv)
{
	struct html_cmd c = { 0 };
	struct outfile of;
	struct profile p;
	struct sbuf page;
	char err[DC_ERRLEN];
	int rc;

	rc = parse(&c, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (outfile_open(&of, c.out, c.path, true, err, sizeof err)) {
		err_msg("%s", err);
		return DC_EXIT_ERROR;
	}
	if (profile_open_cmd(&p, c.path)) {
		outfile_abort(&of);
		return DC_EXIT_ERROR;
	}
	sbuf_init(&page);
	rc = DC_EXIT_ERROR;
	if (html_write_page(&p, &c.o, &page, err, sizeof err)) {
		err_msg("%s", err);
		outfile_abort(&of);
		goto out;
	}
	if (outfile_write(&of, page.buf, page.len)) {
		err_msg("cannot write '%s': %s", of.target, strerror(errno));
		outfile_abort(&of);
		goto out;
	}
	if (outfile_commit(&of, err, sizeof err)) {
		err_msg("%s", err);
		goto out;
	}
	rc = 0;
out:
	sbuf_release(&page);
	profile_close(&p);
	return rc;
}
