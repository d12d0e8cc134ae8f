/* opts.h — command-line option parsing shared by every subcommand.
 *
 * Accepted forms: "-o FILE", "-oFILE", "--output FILE", "--output=FILE";
 * options without a value may not be given one, except OPT_OPTIONAL ones
 * which take one only as "--name=VALUE".  "--" ends the options.  Options
 * and positional arguments may be mixed unless the iterator stops at the
 * first positional (dcprof record: the program's own options follow it).
 */
#ifndef DC_CLI_OPTS_H
#define DC_CLI_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"

enum { OPT_NOARG, OPT_REQUIRED, OPT_OPTIONAL };

struct opt_def {
	int id;                 /* > 0; a zero id ends a definition list */
	char short_name;        /* 0 if none */
	const char *long_name;  /* without the dashes */
	int arg;                /* OPT_NOARG, OPT_REQUIRED or OPT_OPTIONAL */
};

/* Results of opt_next besides an option id. */
enum { OPT_DONE = 0, OPT_POSITIONAL = -1, OPT_ERROR = -2, OPT_HELP_SHOWN = -3 };

/* Every subcommand's -h/--help has id OPT_HELP; its own options start at
 * OPT_OWN. */
enum { OPT_HELP = 1, OPT_OWN = 2 };

struct opt_iter {
	int argc;
	char **argv;
	int i;                    /* next argument to look at */
	bool stop_at_positional;
	bool only_positional;     /* "--" seen */
	const char *arg;          /* the option's value (NULL if none) or the positional */
	const char *name;         /* the option as the user spelled it, for messages */
	char namebuf[64];
	char err[DC_ERRLEN];      /* why OPT_ERROR */
};

/* argv[0] is the subcommand's name and is skipped. */
void opt_iter_init(struct opt_iter *it, int argc, char **argv, bool stop_at_positional);
/* Returns an option id, OPT_POSITIONAL, OPT_DONE or OPT_ERROR.  With
 * stop_at_positional, OPT_DONE leaves it->i at the first positional. */
int opt_next(struct opt_iter *it, const struct opt_def *defs);
/* Prints it->err with a pointer to the command's help. */
void opt_report_error(const struct opt_iter *it, const char *cmd);

/* opt_next for the commands that take one profile: handles errors, --help
 * (printed with usage) and the one positional argument (stored in *path)
 * itself, and returns the next option of the command's own (> 0), OPT_DONE
 * when the arguments are used up and a profile was given, or OPT_ERROR
 * (reported) or OPT_HELP_SHOWN. */
int opt_next_cmd(struct opt_iter *it, const struct opt_def *defs, const char *cmd,
		 void (*usage)(FILE *f), const char **path);

/* "yes" -> 1, "no" -> 0, anything else -> -1. */
int opt_parse_yesno(const char *s);

#endif
