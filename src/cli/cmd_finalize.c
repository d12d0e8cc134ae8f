/* cmd_finalize.c — dcprof finalize: turn a raw dump into a profile. */
#include <string.h>

#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "store/finalize.h"

enum { OPT_OUTPUT = OPT_OWN, OPT_EXIT_STATUS, OPT_QUIET };

static const struct opt_def finalize_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_OUTPUT, 'o', "output", OPT_REQUIRED },
	{ OPT_EXIT_STATUS, 0, "exit-status", OPT_REQUIRED },
	{ OPT_QUIET, 'q', "quiet", OPT_NOARG },
	{ 0, 0, NULL, 0 },
};

void cmd_finalize_usage(FILE *f)
{
	fputs("usage: dcprof finalize RAW -o PROFILE [options]\n"
	      "\n"
	      "Turn a raw dump written by the engine into a SQLite profile (dcprof record\n"
	      "does this itself; use finalize for dumps kept with --keep-raw).\n"
	      "\n"
	      "  -o, --output FILE          the profile to write (required)\n"
	      "  --exit-status exit:N|signal:N\n"
	      "                             how the process ended; signal:N marks the\n"
	      "                             profile incomplete (default: unknown, or\n"
	      "                             'exit N' from the dump's exit_code)\n"
	      "  -q, --quiet                do not print the summary line\n"
	      "  -h, --help                 show this help\n", f);
}

static int parse_exit_status(const char *s, struct exit_info *ex)
{
	uint64_t v;

	if (!strncmp(s, "exit:", 5) && !num_parse_u64(s + 5, 255, &v)) {
		ex->how = EXIT_CODE;
	} else if (!strncmp(s, "signal:", 7) && !num_parse_u64(s + 7, 64, &v) && v > 0) {
		ex->how = EXIT_SIGNAL;
	} else {
		err_msg("invalid --exit-status '%s' (exit:N with N 0..255, or signal:N"
			  " with N 1..64)", s);
		return -1;
	}
	ex->value = (int)v;
	return 0;
}

int cmd_finalize(int argc, char **argv)
{
	struct exit_info ex = { EXIT_UNKNOWN, 0 };
	const char *raw = NULL, *out = NULL;
	struct raw_summary s;
	struct opt_iter it;
	char err[DC_ERRLEN];
	bool quiet = false;
	int id;

	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next(&it, finalize_opts)) != OPT_DONE) {
		switch (id) {
		case OPT_ERROR:
			opt_report_error(&it, "finalize");
			return DC_EXIT_ERROR;
		case OPT_HELP:
			cmd_finalize_usage(stdout);
			return 0;
		case OPT_POSITIONAL:
			if (raw) {
				err_msg("unexpected argument '%s'; see 'dcprof help finalize'",
					  it.arg);
				return DC_EXIT_ERROR;
			}
			raw = it.arg;
			break;
		case OPT_OUTPUT:
			out = it.arg;
			break;
		case OPT_EXIT_STATUS:
			if (parse_exit_status(it.arg, &ex))
				return DC_EXIT_ERROR;
			break;
		case OPT_QUIET:
			quiet = true;
			break;
		}
	}
	if (!raw || !out) {
		err_msg("%s; see 'dcprof help finalize'",
			  raw ? "no output profile given (-o PROFILE)" : "no raw dump given");
		return DC_EXIT_ERROR;
	}
	if (finalize_raw(raw, out, &ex, NULL, &s, err, sizeof err)) {
		err_msg("%s", err);
		return DC_EXIT_ERROR;
	}
	if (!quiet)
		finalize_print_summary(out, &s);
	return 0;
}
