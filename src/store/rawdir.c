/* rawdir.c — the raw dumps a `dcprof record` run leaves in its temporary
 * directory: raw.PID per process (its last image), raw.PID.N for the
 * images it exec'd from, and the engine's checkpoints raw.PID.ckpt
 * (docs/raw-dump.md). */
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

static int cmp_dump(const void *a, const void *b)
{
	const struct rawdir_dump *x = a, *y = b;
	/* raw.PID (image 0) is the process's last image */
	unsigned xi = x->image ? x->image : UINT_MAX, yi = y->image ? y->image : UINT_MAX;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (xi > yi) - (xi < yi);
}

/* raw.PID or raw.PID.N: 0 with the parts, -1 for any other name. */
static int parse_name(const char *name, struct rawdir_dump *d)
{
	const char *dot;
	uint64_t v;
	char pid[24];

	if (strncmp(name, "raw.", 4))
		return -1;
	name += 4;
	dot = strchr(name, '.');
	if (!dot) {
		if (num_parse_u64(name, INT_MAX, &v))
			return -1;
		d->pid = (pid_t)v;
		d->image = 0;
		return 0;
	}
	if ((size_t)(dot - name) >= sizeof pid)
		return -1;
	memcpy(pid, name, (size_t)(dot - name));
	pid[dot - name] = '\0';
	if (num_parse_u64(pid, INT_MAX, &v))
		return -1;
	d->pid = (pid_t)v;
	if (num_parse_u64(dot + 1, UINT_MAX - 1, &v) || v == 0)
		return -1;        /* raw.PID.ckpt and its temporary files */
	d->image = (unsigned)v;
	return 0;
}

struct rawdir_dump *rawdir_list(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct rawdir_dump *dumps = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		struct rawdir_dump one;

		if (parse_name(e->d_name, &one))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 8;
			dumps = xrealloc(dumps, cap * sizeof *dumps);
		}
		dumps[(*n)++] = one;
	}
	closedir(d);
	if (*n)
		qsort(dumps, *n, sizeof *dumps, cmp_dump);
	return dumps;
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

void rawdir_pick(const char *tmpdir, const struct rawdir_dump *d, struct sbuf *path,
		 bool *checkpoint)
{
	struct stat sb;

	*checkpoint = false;
	sbuf_reset(path);
	sbuf_addf(path, "%s/raw.%d", tmpdir, (int)d->pid);
	if (d->image) {
		/* written whole before the exec, or cut short with the process */
		sbuf_addf(path, ".%u", d->image);
		if (stat(path->buf, &sb) == 0 && sb.st_size == 0)
			sbuf_reset(path);
		return;
	}
	if (dump_has_end(path->buf))
		return;
	wait_for_checkpoint(tmpdir, d->pid);
	sbuf_adds(path, ".ckpt");
	if (stat(path->buf, &sb) == 0) {
		*checkpoint = true;
		return;
	}
	sbuf_reset(path);
	sbuf_addf(path, "%s/raw.%d", tmpdir, (int)d->pid);
	/* The engine creates raw.PID at start-up: an empty one means the
	 * process was killed (SIGKILL) before it could write anything. */
	if (stat(path->buf, &sb) == 0 && sb.st_size == 0)
		sbuf_reset(path);
}

/* Undoes the escaping of string fields (docs/raw-dump.md, "Lexical
 * rules"); -1 on a malformed escape. */
static int unescape(const char *s, size_t n, struct sbuf *out)
{
	static const char hex[] = "0123456789ABCDEF";

	sbuf_reset(out);
	if (n == 2 && !memcmp(s, "%-", 2))
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *hi, *lo;

		if (s[i] != '%') {
			sbuf_addc(out, s[i]);
			continue;
		}
		if (i + 2 >= n || !s[i + 1] || !s[i + 2])
			return -1;
		hi = strchr(hex, s[i + 1]);
		lo = strchr(hex, s[i + 2]);
		if (!hi || !lo)
			return -1;
		sbuf_addc(out, (char)((hi - hex) << 4 | (lo - hex)));
		i += 2;
	}
	return 0;
}

int rawdir_head_meta(const char *path, const char *key, struct sbuf *value)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	size_t klen = strlen(key);
	int rc = -1;

	if (!f)
		return -1;
	/* the first line is the version; the head's meta records follow */
	if (!fgets(line, sizeof line, f))
		goto out;
	while (fgets(line, sizeof line, f) && !strncmp(line, "meta ", 5)) {
		size_t n = strlen(line);

		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (strncmp(line + 5, key, klen) || line[5 + klen] != ' ')
			continue;
		rc = unescape(line + 6 + klen, n - 6 - klen, value);
		break;
	}
out:
	fclose(f);
	return rc;
}
