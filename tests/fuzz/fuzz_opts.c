/* fuzz_opts.c — fuzz target: the bytes are a command line.
 *
 * The input is split at NUL bytes into the arguments after "dcprof" (the
 * first one is normally the command's name) and run through the command
 * table, so the top-level options, help, and every command's option
 * parser run, then whatever the options lead to.  Before each input the
 * scratch directory holds the fixtures below, so an input can name a
 * real profile or raw dump; a '/' in an argument becomes '_', so every
 * file an input names is in the scratch directory (".." as a whole is
 * the one way out, and it is a directory, so no command can open it as a
 * file).
 *
 * dcprof record never starts a program here: every fuzz binary is linked
 * with spawn_wait wrapped (fuzz_common.c), so record runs its parser, its
 * checks and the search for valgrind and the program, makes its temporary
 * directory, fails to "start" valgrind and cleans up.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define MAX_ARGS 64

/* Name in the scratch directory -> seed file in tests/fuzz/corpus/. */
static const char *const fixtures[][2] = {
	{ "p.db", "profile/all.db" },
	{ "q.db", "profile/sample.db" },
	{ "r.raw", "raw/all.raw" },
};
#define NFIXTURES (sizeof fixtures / sizeof *fixtures)

static char *fixture_data[NFIXTURES];
static size_t fixture_size[NFIXTURES];
static const char *keep[NFIXTURES + 1];

static void load_fixtures(void)
{
	const char *corpus = getenv("DCPROF_FUZZ_CORPUS");

	if (!corpus || !*corpus)
		corpus = FUZZ_CORPUS;
	for (size_t i = 0; i < NFIXTURES; i++) {
		char path[PATH_MAX];
		FILE *f;
		long n;

		snprintf(path, sizeof path, "%s/%s", corpus, fixtures[i][1]);
		f = fopen(path, "rb");
		if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
			fprintf(stderr, "fuzz: cannot read fixture '%s' (set DCPROF_FUZZ_CORPUS"
				" to tests/fuzz/corpus)\n", path);
			exit(1);
		}
		fixture_data[i] = malloc((size_t)n + 1);
		fixture_size[i] = fread(fixture_data[i], 1, (size_t)n, f);
		fclose(f);
		keep[i] = fixtures[i][0];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAX_ARGS];
	int argc = 0;

	fuzz_setup();
	if (!keep[0])
		load_fixtures();
	/* A command may have overwritten or removed a fixture (export -o
	 * p.db): every input starts from the same files. */
	for (size_t i = 0; i < NFIXTURES; i++)
		fuzz_write(fixtures[i][0], fixture_data[i], fixture_size[i]);

	buf = malloc(size + 1);
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (size_t i = 0; i < size; i++)
		if (buf[i] == '/')
			buf[i] = '_';
	for (char *p = buf; p <= buf + size && argc < MAX_ARGS; p += strlen(p) + 1) {
		/* A trailing NUL ends the last argument; it does not add an
		 * empty one. */
		if (p == buf + size && size && buf[size - 1] == '\0')
			break;
		argv[argc++] = p;
	}
	if (size == 0)
		argc = 0;
	fuzz_dcprof(argc, argv);
	free(buf);
	fuzz_clean(keep);
	return 0;
}
