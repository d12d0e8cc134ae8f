/* opts.c — command-line option parsing shared by every subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli/opts.h"

void opt_iter_init(struct opt_iter *it, int argc, char **argv, bool stop_at_positional)
{
	memset(it, 0, sizeof *it);
	it->argc = argc;
	it->argv = argv;
	it->i = 1;
	it->stop_at_positional = stop_at_positional;
}

static int fail(struct opt_iter *it, const char *fmt)
{
	snprintf(it->err, sizeof it->err, fmt, it->name);
	return OPT_ERROR;
}

static int take_value(struct opt_iter *it, const struct opt_def *d, const char *inline_val)
{
	it->arg = inline_val;
	if (d->arg == OPT_NOARG && inline_val)
		return fail(it, "option '%s' takes no value");
	if (d->arg == OPT_REQUIRED && !inline_val) {
		if (it->i >= it->argc)
			return fail(it, "option '%s' needs a value");
		it->arg = it->argv[it->i++];
	}
	return d->id;
}

static int long_option(struct opt_iter *it, const struct opt_def *defs, const char *s)
{
	const char *eq = strchr(s, '=');
	size_t n = eq ? (size_t)(eq - s) : strlen(s);

	snprintf(it->namebuf, sizeof it->namebuf, "--%.*s", (int)n, s);
	it->name = it->namebuf;
	for (const struct opt_def *d = defs; d->id; d++)
		if (d->long_name && strlen(d->long_name) == n && !memcmp(d->long_name, s, n))
			return take_value(it, d, eq ? eq + 1 : NULL);
	return fail(it, "unknown option '%s'");
}

static int short_option(struct opt_iter *it, const struct opt_def *defs, const char *s)
{
	snprintf(it->namebuf, sizeof it->namebuf, "-%c", s[0]);
	it->name = it->namebuf;
	for (const struct opt_def *d = defs; d->id; d++) {
		if (d->short_name != s[0])
			continue;
		if (s[1] && d->arg != OPT_REQUIRED) {
			snprintf(it->namebuf, sizeof it->namebuf, "-%s", s);
			return fail(it, "unknown option '%s'");
		}
		return take_value(it, d, s[1] ? s + 1 : NULL);
	}
	return fail(it, "unknown option '%s'");
}

int opt_next(struct opt_iter *it, const struct opt_def *defs)
{
	const char *a;

	it->arg = NULL;
	if (it->i >= it->argc)
		return OPT_DONE;
	a = it->argv[it->i];
	if (it->only_positional || a[0] != '-' || a[1] == '\0') {
		if (it->stop_at_positional)
			return OPT_DONE;
		it->i++;
		it->arg = a;
		return OPT_POSITIONAL;
	}
	it->i++;
	if (!strcmp(a, "--")) {
		it->only_positional = true;
		return opt_next(it, defs);
	}
	if (a[1] == '-')
		return long_option(it, defs, a + 2);
	return short_option(it, defs, a + 1);
}

void opt_report_error(const struct opt_iter *it, const char *cmd)
{
	err_msg("%s; see 'dcprof help %s'", it->err, cmd);
}

int opt_parse_yesno(const char *s)
{
	if (!strcmp(s, "yes"))
		return 1;
	if (!strcmp(s, "no"))
		return 0;
	return -1;
}

int opt_next_cmd(struct opt_iter *it, const struct opt_def *defs, const char *cmd,
		 void (*usage)(FILE *f), const char **path)
{
	int id;

	while ((id = opt_next(it, defs)) != OPT_DONE) {
		switch (id) {
		case OPT_ERROR:
			opt_report_error(it, cmd);
			return OPT_ERROR;
		case OPT_HELP:
			usage(stdout);
			return OPT_HELP_SHOWN;
		case OPT_POSITIONAL:
			if (*path) {
				err_msg("unexpected argument '%s'; see 'dcprof help %s'", it->arg, cmd);
				return OPT_ERROR;
			}
			*path = it->arg;
			break;
		default:
			return id;
		}
	}
	if (!*path) {
		err_msg("no profile given; see 'dcprof help %s'", cmd);
		return OPT_ERROR;
	}
	return OPT_DONE;
}
