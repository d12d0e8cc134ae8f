/* outfile.c — writing an output file so that nothing is lost or harmed
 * (see outfile.h for the rules). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/err.h"
#include "base/outfile.h"

enum kind { NEW_FILE, REGULAR, STREAM };

/* The file to write: target, or what its symbolic link names. */
static char *resolve(const char *target)
{
	struct stat st;
	char *real;

	if (lstat(target, &st) == 0 && S_ISLNK(st.st_mode) && (real = realpath(target, NULL))) {
		char *copy = xmemdup(real, strlen(real));
		free(real);
		return copy;
	}
	return xmemdup(target, strlen(target));
}

static int fail(char *err, size_t errlen, const char *target, const char *why)
{
	snprintf(err, errlen, "cannot write '%s': %s", target, why);
	return -1;
}

/* What path is, or -1 with the message in err. */
static int classify(const char *target, const char *path, const char *input, bool streams,
		    char *err, size_t errlen)
{
	struct stat st, in;

	if (!*target)
		return fail(err, errlen, target, "empty file name");
	if (stat(path, &st) < 0) {
		if (errno == ENOENT)
			return NEW_FILE;
		return fail(err, errlen, target, strerror(errno));
	}
	if (input && stat(input, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino)
		return fail(err, errlen, target, "it is the input file");
	if (S_ISDIR(st.st_mode))
		return fail(err, errlen, target, "it is a directory");
	if (S_ISREG(st.st_mode))
		return REGULAR;
	if (streams && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)))
		return STREAM;
	return fail(err, errlen, target, "not a regular file");
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xmemdup(".", 1);
	if (slash == path)
		return xmemdup("/", 1);
	return xmemdup(path, (size_t)(slash - path));
}

int outfile_check(const char *target, bool streams, char *err, size_t errlen)
{
	char *path = resolve(target), *dir;
	int kind = classify(target, path, NULL, streams, err, errlen), rc = 0;

	if (kind == NEW_FILE || kind == REGULAR) {
		dir = dir_of(path);
		if (access(dir, W_OK | X_OK) < 0) {
			char why[PATH_MAX + 64];
			snprintf(why, sizeof why, "%s: %s", dir, strerror(errno));
			rc = fail(err, errlen, target, why);
		}
		free(dir);
	}
	free(path);
	return kind < 0 ? -1 : rc;
}

static mode_t creation_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

int outfile_open(struct outfile *o, const char *target, const char *input, bool streams,
		 char *err, size_t errlen)
{
	struct stat st;
	size_t n;
	int kind;

	memset(o, 0, sizeof *o);
	o->fd = -1;
	o->target = resolve(target);
	kind = classify(target, o->target, input, streams, err, errlen);
	if (kind < 0)
		goto fail;
	if (kind == STREAM) {
		o->fd = open(o->target, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			fail(err, errlen, target, strerror(errno));
			goto fail;
		}
		return 0;
	}
	n = strlen(o->target);
	o->tmp = xmalloc(n + sizeof ".XXXXXX.tmp");
	memcpy(o->tmp, o->target, n);
	memcpy(o->tmp + n, ".XXXXXX.tmp", sizeof ".XXXXXX.tmp");
	o->fd = mkostemps(o->tmp, 4, O_CLOEXEC);
	if (o->fd < 0) {
		char *dir = dir_of(o->target), why[PATH_MAX + 64];
		snprintf(why, sizeof why, "%s: %s", dir, strerror(errno));
		free(dir);
		fail(err, errlen, target, why);
		free(o->tmp);
		o->tmp = NULL;
		goto fail;
	}
	if (fstat(o->fd, &st) < 0 || fchmod(o->fd, creation_mode()) < 0) {
		fail(err, errlen, target, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	return 0;
fail:
	free(o->target);
	o->target = NULL;
	return -1;
}

const char *outfile_path(const struct outfile *o)
{
	return o->tmp ? o->tmp : o->target;
}

int outfile_write(struct outfile *o, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t k = write(o->fd, c, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		c += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Whether tmp is still the file outfile_open created. */
static bool still_ours(const struct outfile *o)
{
	struct stat st;

	return lstat(o->tmp, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

static void release(struct outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	free(o->tmp);
	free(o->target);
	o->tmp = o->target = NULL;
}

/* The directory entry of the rename reaches the disk too (best effort: a
 * file system may not allow fsync on a directory). */
static void sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	int fd = o->fd;

	if (!o->tmp) {
		/* A stream: a terminal or a pipe cannot be synced. */
		int e = 0;

		o->fd = -1;
		if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
			e = errno;
		if (close(fd) < 0 && !e)
			e = errno;
		if (e)
			fail(err, errlen, o->target, strerror(e));
		release(o);
		return e ? -1 : 0;
	}
	if (fsync(fd) < 0) {
		fail(err, errlen, o->target, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	o->fd = -1;
	if (close(fd) < 0) {
		fail(err, errlen, o->target, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	if (!still_ours(o)) {
		char why[PATH_MAX + 64];
		snprintf(why, sizeof why, "its temporary file '%s' was replaced or removed", o->tmp);
		fail(err, errlen, o->target, why);
		release(o);
		return -1;
	}
	if (rename(o->tmp, o->target) < 0) {
		fail(err, errlen, o->target, strerror(errno));
		outfile_abort(o);
		return -1;
	}
	sync_dir(o->target);
	release(o);
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->tmp && still_ours(o))
		unlink(o->tmp);
	release(o);
}
