/* outfile.h — writing an output file so that nothing is lost or harmed.
 *
 * Notes:
 *  - The output is written to a temporary file of a unique name beside the
 *    target ("TARGET.XXXXXX.tmp", created with O_EXCL), fsync'ed through
 *    its descriptor and renamed over the target at the end.  A reader sees
 *    the old file or the whole new one; two writers of one target each
 *    write their own temporary file and the last rename wins with a
 *    complete file (no writer renames another's).
 *  - Before a rename or a removal the temporary name is checked to still be
 *    the file created here (device and inode): dcprof never removes or
 *    replaces a file it did not create.  On failure only the temporary
 *    file goes; the target is left as it was.
 *  - A target that is a symbolic link is followed: the file it names is
 *    replaced, the link stays.
 *  - A target that exists and is a character device or a FIFO (/dev/stdout,
 *    a pipe) is written in place when the caller allows streams; a
 *    directory, an empty name, or another kind of file is an error.
 *  - The output may not be the input (same device and inode): "export P.db
 *    -o P.db" is refused before anything is written.
 *  - The new file gets mode 0666 less the umask, as fopen would give it.
 */
#ifndef DC_BASE_OUTFILE_H
#define DC_BASE_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct outfile {
	char *target;      /* the file the caller asked for (links followed) */
	char *tmp;         /* the temporary file, NULL when writing in place */
	int fd;            /* open for writing on tmp (or the target in place) */
	dev_t dev;         /* of tmp, to check it is still ours */
	ino_t ino;
};

/* Checks target and opens the file to write.  input, if not NULL, names a
 * file the output must not be.  streams allows writing in place to a
 * character device or a FIFO.  0, or -1 with the whole message in err
 * ("cannot write 'T': ..."). */
int outfile_open(struct outfile *o, const char *target, const char *input, bool streams,
		 char *err, size_t errlen);
/* Checks, without creating anything, what outfile_open would refuse
 * (for dcprof record, before the program runs). */
int outfile_check(const char *target, bool streams, char *err, size_t errlen);
/* The path to write through (tmp, or the target in place). */
const char *outfile_path(const struct outfile *o);
/* Writes all n bytes; 0, or -1 with errno set. */
int outfile_write(struct outfile *o, const void *p, size_t n);
/* fsync, then renames tmp over the target; closes.  On error the
 * temporary file is removed and err says why. */
int outfile_commit(struct outfile *o, char *err, size_t errlen);
/* Removes the temporary file (if it is still ours) and closes. */
void outfile_abort(struct outfile *o);

#endif
