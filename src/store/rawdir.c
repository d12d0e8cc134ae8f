/* rawdir.c — the raw dumps a `dcprof record` run leaves in its temporary
 * directory: raw.PID per process, and the engine's checkpoints
 * raw.PID.ckpt (docs/raw-dump.md). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/num.h"
#include "store/rawdir.h"

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

pid_t *rawdir_list(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	pid_t *pids = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		uint64_t v;

		if (strncmp(e->d_name, "raw.", 4) || num_parse_u64(e->d_name + 4, INT_MAX, &v))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			pids = xrealloc(pids, cap * sizeof *pids);
		}
		pids[(*n)++] = (pid_t)v;
	}
	closedir(d);
	if (*n)
		qsort(pids, *n, sizeof *pids, cmp_pid);
	return pids;
}

/* Does the dump end with its end record?  The engine writes it last, so
 * a dump without one was cut short (a process killed by SIGKILL). */
static bool dump_has_end(const char *path)
{
	char tail[7];
	int fd = open(path, O_RDONLY);
	off_t size;
	bool end = false;

	if (fd < 0)
		return false;
	size = lseek(fd, 0, SEEK_END);
	if (size >= (off_t)sizeof tail && pread(fd, tail, sizeof tail, size - (off_t)sizeof tail)
	    == (ssize_t)sizeof tail)
		end = !memcmp(tail, "\nend 1\n", 7) || !memcmp(tail, "\nend 0\n", 7);
	close(fd);
	return end;
}

/* Is pid alive (not gone, not a zombie)? */
static bool process_running(long pid)
{
	char path[64], buf[256], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* A checkpoint the engine's copy of process pid is still writing
 * (raw.PID.ckpt.COPY.tmp, docs/engine.md) will be renamed to raw.PID.ckpt
 * in a moment: wait for it, so the newest checkpoint is used. */
static void wait_for_checkpoint(const char *tmpdir, pid_t pid)
{
	char prefix[48];
	size_t plen = (size_t)snprintf(prefix, sizeof prefix, "raw.%d.ckpt.", (int)pid);
	bool writing = true;

	for (int waited = 0; writing && waited < 60000; waited += 10) {
		DIR *d = opendir(tmpdir);
		struct dirent *e;

		writing = false;
		while (d && (e = readdir(d)))
			if (!strncmp(e->d_name, prefix, plen) &&
			    process_running(strtol(e->d_name + plen, NULL, 10)))
				writing = true;
		if (d)
			closedir(d);
		if (writing)
			usleep(10000);
	}
}

void rawdir_pick(const char *tmpdir, pid_t pid, struct sbuf *path, bool *checkpoint)
{
	struct stat sb;

	*checkpoint = false;
	sbuf_reset(path);
	sbuf_addf(path, "%s/raw.%d", tmpdir, (int)pid);
	if (dump_has_end(path->buf))
		return;
	wait_for_checkpoint(tmpdir, pid);
	sbuf_adds(path, ".ckpt");
	if (stat(path->buf, &sb) == 0) {
		*checkpoint = true;
		return;
	}
	sbuf_reset(path);
	sbuf_addf(path, "%s/raw.%d", tmpdir, (int)pid);
	/* The engine creates raw.PID at start-up: an empty one means the
	 * process was killed (SIGKILL) before it could write anything. */
	if (stat(path->buf, &sb) == 0 && sb.st_size == 0)
		sbuf_reset(path);
}
