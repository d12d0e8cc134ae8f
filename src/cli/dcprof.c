/* dcprof.c — the dcprof command: dispatch to a subcommand. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/man.h"
#include "base/err.h"

static const struct cmd commands[] = {
	{ "record", "run a program under the engine and write its profile",
	  cmd_record, cmd_record_usage },
	{ "report", "show a profile by bucket, function or source line",
	  cmd_report, cmd_report_usage },
	{ "annotate", "show source files with each line's costs and the data it misses on",
	  cmd_annotate, cmd_annotate_usage },
	{ "diff", "show what changed from one profile to another",
	  cmd_diff, cmd_diff_usage },
	{ "accuracy", "compare sampled estimates with the exact counts",
	  cmd_accuracy, cmd_accuracy_usage },
	{ "approx", "approximate each variable's misses from IP-only samples and the sources",
	  cmd_approx, cmd_approx_usage },
	{ "evictions", "show who evicts whom from the caches",
	  cmd_evictions, cmd_evictions_usage },
	{ "reuse", "show reuse distances: exact or sampled histograms, accuracy, pairs",
	  cmd_reuse, cmd_reuse_usage },
	{ "footprint", "show footprint, growth and load classes from sampled traces",
	  cmd_footprint, cmd_footprint_usage },
	{ "mrc", "show the miss-ratio curve of LRU caches from reuse distances",
	  cmd_mrc, cmd_mrc_usage },
	{ "html", "write a profile as one HTML page with tables and plots",
	  cmd_html, cmd_html_usage },
	{ "export", "write a profile in Callgrind's format (callgrind_annotate, KCachegrind)",
	  cmd_export, cmd_export_usage },
	{ "merge", "combine profiles of one program (ranks, children, runs) into one",
	  cmd_merge, cmd_merge_usage },
	{ "finalize", "turn a raw dump into a profile", cmd_finalize, cmd_finalize_usage },
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

static void usage(FILE *f)
{
	fputs("usage: dcprof [--version] [--help] COMMAND [ARGS]\n"
	      "\n"
	      "dcprof, a data-centric cache profiler: which data causes the cache misses\n"
	      "and the memory latency, and where in the code.\n"
	      "\n"
	      "commands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\n"
	      "  --version  print the version\n"
	      "  --help     show this help\n"
	      "\n"
	      "'dcprof help COMMAND' or 'dcprof COMMAND --help' shows a command's options.\n", f);
}

static const struct cmd *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Hidden: "help --man [COMMAND]" prints the man page of dcprof or of a
 * command, "help --commands" their names (make install). */
static int help_man(int argc, char **argv)
{
	const char *see[NCOMMANDS + 1];
	char page[64];
	const struct cmd *c;

	if (!strcmp(argv[1], "--commands")) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			puts(commands[i].name);
		return 0;
	}
	if (argc < 3) {
		static char names[NCOMMANDS][64];

		for (size_t i = 0; i < NCOMMANDS; i++) {
			snprintf(names[i], sizeof names[i], "dcprof-%s", commands[i].name);
			see[i] = names[i];
		}
		see[NCOMMANDS] = "valgrind";
		man_page(stdout, "dcprof", "a data-centric cache profiler", usage, see,
			 NCOMMANDS + 1);
		return err_flush_output();
	}
	c = find(argv[2]);
	if (!c) {
		err_msg("unknown command '%s'; see 'dcprof --help'", argv[2]);
		return DC_EXIT_ERROR;
	}
	snprintf(page, sizeof page, "dcprof-%s", c->name);
	see[0] = "dcprof";
	man_page(stdout, page, c->summary, c->usage, see, 1);
	return err_flush_output();
}

static int help(int argc, char **argv)
{
	const struct cmd *c;

	if (argc >= 2 && argc <= 3 && (!strcmp(argv[1], "--man") || !strcmp(argv[1], "--commands")))
		return help_man(argc, argv);
	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		err_msg("'help' takes one command name; see 'dcprof --help'");
		return DC_EXIT_ERROR;
	}
	c = find(argv[1]);
	if (!c) {
		err_msg("unknown command '%s'; see 'dcprof --help'", argv[1]);
		return DC_EXIT_ERROR;
	}
	c->usage(stdout);
	return 0;
}

/* Help and version text, like a report, must reach stdout: a full disk
 * or a closed pipe is an error (exit 2), not a silent success.  Commands
 * that print reports check their own output (err_flush_output); this
 * catches the rest, and stays quiet when the command already failed. */
static int finish(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	if (rc == 0) {
		err_msg("cannot write to standard output: %s", strerror(errno ? errno : EIO));
		rc = DC_EXIT_ERROR;
	}
	return rc;
}

static int run(int argc, char **argv)
{
	static char prefix[64];
	const char *name = argc > 1 ? argv[1] : NULL;
	const struct cmd *c;

	if (!name) {
		err_msg("no command given; see 'dcprof --help'");
		return DC_EXIT_ERROR;
	}
	if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(name, "--version")) {
		printf("dcprof %s\n", DCPROF_VERSION);
		return 0;
	}
	if (!strcmp(name, "help"))
		return help(argc - 1, argv + 1);
	if (name[0] == '-') {
		err_msg("unknown option '%s'; see 'dcprof --help'", name);
		return DC_EXIT_ERROR;
	}
	c = find(name);
	if (!c) {
		err_msg("unknown command '%s'; see 'dcprof --help'", name);
		return DC_EXIT_ERROR;
	}
	snprintf(prefix, sizeof prefix, "dcprof %s", c->name);
	err_set_prefix(prefix);
	return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	return finish(run(argc, argv));
}
