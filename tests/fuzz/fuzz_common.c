/* fuzz_common.c — the scratch directory and in-process commands the fuzz
 * targets share (fuzz.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "fuzz.h"

FILE *fuzz_log;

static char dir[PATH_MAX];
static int home_fd = -1;      /* the working directory to return to */

static void die(const char *what)
{
	fprintf(fuzz_log ? fuzz_log : stderr, "fuzz: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void remove_tree(int parent, const char *name);

/* Scratch directories of processes that are gone: libFuzzer ends its
 * processes with _Exit after a crash, a timeout or in fork mode, so the
 * atexit handler does not always run. */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		long pid;
		char *end;

		if (strncmp(e->d_name, "dcprof-fuzz.", 12))
			continue;
		pid = strtol(e->d_name + 12, &end, 10);
		if (*end == '.' && pid > 0 && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			remove_tree(dirfd(d), e->d_name);
	}
	closedir(d);
}

void fuzz_setup(void)
{
	const char *base = getenv("DCPROF_FUZZ_TMP");

	if (dir[0])
		return;
	if (!base || !*base)
		base = access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
	remove_stale(base);
	snprintf(dir, sizeof dir, "%s/dcprof-fuzz.%ld.XXXXXX", base, (long)getpid());
	if (!mkdtemp(dir))
		die("cannot create the scratch directory");
	home_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (home_fd < 0)
		die("cannot open the working directory");
	/* Reports go nowhere: only crashes and sanitizer reports matter. */
	if (!freopen("/dev/null", "w", stdout))
		die("cannot send stdout to /dev/null");
	/* dcprof record makes its own temporary directory (only up to the
	 * engine's start: see the spawn_wait stub in fuzz_opts.c). */
	setenv("TMPDIR", dir, 1);
	/* Else the next fuzz process removes it (remove_stale). */
	atexit(fuzz_teardown);
}

const char *fuzz_dir(void)
{
	return dir;
}

void fuzz_write(const char *name, const void *data, size_t size)
{
	char path[PATH_MAX + 256];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		fprintf(fuzz_log ? fuzz_log : stderr, "fuzz: cannot write '%s': %s\n", path,
			strerror(errno));
		abort();
	}
}

int fuzz_dcprof(int argc, char **argv)
{
	char *v[argc + 2];
	int rc;

	v[0] = "dcprof";
	memcpy(v + 1, argv, (size_t)argc * sizeof *argv);
	v[argc + 1] = NULL;
	if (chdir(dir) < 0)
		die("cannot enter the scratch directory");
	rc = dcprof_main(argc + 1, v);
	fflush(stdout);
	if (fchdir(home_fd) < 0)
		die("cannot return to the working directory");
	if (rc != 0 && rc != 2) {
		FILE *log = fuzz_log ? fuzz_log : stderr;

		fprintf(log, "fuzz: 'dcprof");
		for (int i = 0; i < argc; i++)
			fprintf(log, " %s", argv[i]);
		fprintf(log, "' exited %d (expected 0 or 2)\n", rc);
		fflush(log);
		abort();
	}
	return rc;
}

static void remove_tree(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;
	struct dirent *e;

	if (fd >= 0) {
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			return;
		}
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				remove_tree(dirfd(d), e->d_name);
		closedir(d);
		unlinkat(parent, name, AT_REMOVEDIR);
	} else {
		unlinkat(parent, name, 0);
	}
}

void fuzz_clean(const char *const *keep)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		die("cannot read the scratch directory");
	while ((e = readdir(d))) {
		int kept = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");

		for (const char *const *k = keep; !kept && k && *k; k++)
			kept = !strcmp(e->d_name, *k);
		if (!kept)
			remove_tree(dirfd(d), e->d_name);
	}
	closedir(d);
}

void fuzz_teardown(void)
{
	if (!dir[0])
		return;
	fuzz_clean(NULL);
	rmdir(dir);
	dir[0] = '\0';
}

/* Every fuzz binary is linked with -Wl,--wrap=spawn_wait, so the calls
 * of src/cli/ come here: no input can make dcprof record run a program
 * (it reports "cannot run valgrind" and cleans up). */
int __wrap_spawn_wait(char *const argv[], const char *env_name, const char *env_value,
		      pid_t *pid, int *status);

int __wrap_spawn_wait(char *const argv[], const char *env_name, const char *env_value,
		      pid_t *pid, int *status)
{
	return ENOSYS;
}

/* libFuzzer only: it writes crash, timeout and leak inputs under
 * -artifact_prefix, "" by default, i.e. relative to the working directory
 * at the time of the crash, which is the scratch directory while a command
 * runs.  Unless the user chose a prefix, make it the directory the fuzzer
 * was started in, where "" would have put them.  libFuzzer reads its flags
 * after this returns (the interface allows changing argv here). */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char prefix[PATH_MAX + 32];
	char cwd[PATH_MAX];
	char **v;

	fuzz_setup();
	for (int i = 1; i < *argc; i++)
		if (!strncmp((*argv)[i], "-artifact_prefix=", 17) ||
		    !strncmp((*argv)[i], "-exact_artifact_path=", 21))
			return 0;
	if (!getcwd(cwd, sizeof cwd))
		return 0;
	snprintf(prefix, sizeof prefix, "-artifact_prefix=%s/", cwd);
	v = malloc(((size_t)*argc + 2) * sizeof *v);
	if (!v)
		return 0;
	memcpy(v, *argv, (size_t)*argc * sizeof *v);
	v[(*argc)++] = prefix;
	v[*argc] = NULL;
	*argv = v;
	return 0;
}
