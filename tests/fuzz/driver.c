/* driver.c — main for the fuzz targets without libFuzzer: runs
 * LLVMFuzzerTestOneInput once on every file named on the command line
 * (directories: every file in them, in name order).  Built with gcc and
 * ASan/UBSan it is the regression run of the corpora in make check; a
 * crash or sanitizer report ends it with the input's name printed just
 * before.
 *
 * usage: DRIVER [-q] FILE|DIR...
 *   -q  the commands' error messages (stdio's stderr) go to /dev/null;
 *       sanitizer reports (which write to descriptor 2 themselves) and
 *       the driver's own lines still go to standard error
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static FILE *out;      /* the driver's messages */
static int ninputs;

static void run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data = NULL;
	size_t n = 0, cap = 0, got;

	if (!f) {
		fprintf(out, "driver: cannot open '%s': %s\n", path, strerror(errno));
		exit(1);
	}
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 65536;
			data = realloc(data, cap);
			if (!data)
				abort();
		}
		got = fread(data + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	fprintf(out, "driver: %s (%zu bytes)\n", path, n);
	fflush(out);
	LLVMFuzzerTestOneInput(data, n);
	free(data);
	ninputs++;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_path(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;

	if (stat(path, &st) < 0) {
		fprintf(out, "driver: cannot open '%s': %s\n", path, strerror(errno));
		exit(1);
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	d = opendir(path);
	if (!d) {
		fprintf(out, "driver: cannot read '%s': %s\n", path, strerror(errno));
		exit(1);
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof *names);
		names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		sprintf(names[n++], "%s/%s", path, e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp);
	for (size_t i = 0; i < n; i++) {
		run_path(names[i]);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	int first = 1;

	out = stderr;
	if (argc > 1 && !strcmp(argv[1], "-q")) {
		FILE *null = fopen("/dev/null", "w");

		if (!null)
			return 1;
		/* glibc's stderr is a variable: the commands' messages go to
		 * /dev/null, descriptor 2 stays. */
		fuzz_log = stderr;
		stderr = null;
		first = 2;
	}
	if (first >= argc) {
		fprintf(out, "usage: %s [-q] FILE|DIR...\n", argv[0]);
		return 1;
	}
	fuzz_setup();
	for (int i = first; i < argc; i++)
		run_path(argv[i]);
	fuzz_teardown();
	fprintf(out, "driver: %d inputs, no crash\n", ninputs);
	return 0;
}
