/* cmd_merge.c — dcprof merge: many profiles of one program made into one
 * (MPI ranks, forked children, repeated runs; store/merge.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "store/merge.h"

enum { OPT_OUTPUT = OPT_OWN, OPT_FORCE, OPT_QUIET };

static const struct opt_def merge_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_OUTPUT, 'o', "output", OPT_REQUIRED },
	{ OPT_FORCE, 0, "force", OPT_NOARG },
	{ OPT_QUIET, 'q', "quiet", OPT_NOARG },
	{ 0, 0, NULL, 0 },
};

void cmd_merge_usage(FILE *f)
{
	fputs("usage: dcprof merge PROFILE|DIR... -o MERGED [options]\n"
	      "\n"
	      "Combine profiles of one program -- MPI ranks, forked children, repeated\n"
	      "runs -- into one profile that every command reads.  Buckets, functions\n"
	      "and lines are matched by name, counts summed; each process's totals per\n"
	      "bucket are kept for 'dcprof report --spread'.  A directory stands for\n"
	      "the *.db files in it.  Profiles recorded with other caches or options\n"
	      "are refused; so are profiles of another program, and a process given\n"
	      "twice (one file under two names, a merged profile and one of its\n"
	      "inputs, copies of one profile), unless --force.\n"
	      "\n"
	      "  -o, --output FILE          the merged profile to write (required)\n"
	      "  --force                    merge profiles of different programs, or\n"
	      "                             a process twice (its counts then twice)\n"
	      "  -q, --quiet                print nothing but errors\n"
	      "  -h, --help                 show this help\n", f);
}

struct inputs {
	char **path;
	size_t n, cap;
};

static void add(struct inputs *in, const char *path, size_t len)
{
	if (in->n == in->cap) {
		in->cap = in->cap ? 2 * in->cap : 16;
		in->path = xrealloc(in->path, in->cap * sizeof *in->path);
	}
	in->path[in->n++] = xmemdup(path, len);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.db files of a directory, in name order. */
static int add_dir(struct inputs *in, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t first = in->n;

	if (!d) {
		err_msg("cannot read directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len > 3 && !strcmp(e->d_name + len - 3, ".db") && e->d_name[0] != '.') {
			char *p = xmalloc(strlen(dir) + len + 2);
			struct stat st;

			sprintf(p, "%s/%s", dir, e->d_name);
			if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
				add(in, p, strlen(p));
			free(p);
		}
	}
	closedir(d);
	if (in->n == first) {
		err_msg("no profiles (*.db) in directory '%s'", dir);
		return -1;
	}
	qsort(in->path + first, in->n - first, sizeof *in->path, cmp_str);
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	struct merge_opts mo = { false, false };
	struct inputs in = { NULL, 0, 0 };
	const char *out = NULL;
	struct opt_iter it;
	char err[DC_ERRLEN];
	int id, rc = DC_EXIT_ERROR;

	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next(&it, merge_opts)) != OPT_DONE) {
		struct stat st;

		switch (id) {
		case OPT_ERROR:
			opt_report_error(&it, "merge");
			goto out;
		case OPT_HELP:
			cmd_merge_usage(stdout);
			rc = 0;
			goto out;
		case OPT_POSITIONAL:
			if (stat(it.arg, &st) == 0 && S_ISDIR(st.st_mode)) {
				if (add_dir(&in, it.arg))
					goto out;
			} else {
				add(&in, it.arg, strlen(it.arg));
			}
			break;
		case OPT_OUTPUT:
			out = it.arg;
			break;
		case OPT_FORCE:
			mo.force = true;
			break;
		case OPT_QUIET:
			mo.quiet = true;
			break;
		}
	}
	if (!in.n || !out) {
		err_msg("%s; see 'dcprof help merge'",
			in.n ? "no output profile given (-o MERGED)" : "no profiles given");
		goto out;
	}
	if (merge_profiles((const char *const *)in.path, in.n, out, &mo, err, sizeof err)) {
		err_msg("%s", err);
		goto out;
	}
	if (!mo.quiet)
		err_note("merged %zu profile%s into %s", in.n, in.n == 1 ? "" : "s", out);
	rc = 0;
out:
	for (size_t i = 0; i < in.n; i++)
		free(in.path[i]);
	free(in.path);
	return rc;
}
