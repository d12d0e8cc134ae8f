/* rawdir.h — the raw dumps a `dcprof record` run leaves in its temporary
 * directory. */
#ifndef DC_STORE_RAWDIR_H
#define DC_STORE_RAWDIR_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/sbuf.h"

/* One dump: raw.PID, written by the image process PID ran last under the
 * engine, or raw.PID.N, by the N-th image (N >= 1) of the process, which
 * ended by exec (docs/raw-dump.md, "Dump files"). */
struct rawdir_dump {
	pid_t pid;
	unsigned image;           /* N, or 0 for raw.PID */
};

/* The dumps in dir by pid, each process's images in exec order (raw.PID
 * last); malloc'ed, *n of them. */
struct rawdir_dump *rawdir_list(const char *dir, size_t *n);

/* The file to finalize for d.  raw.PID.N as it is.  raw.PID, or its
 * checkpoint raw.PID.ckpt (*checkpoint set) when raw.PID has no end record
 * — after waiting for a checkpoint the engine's copy is still writing.
 * path is left empty when the file holds nothing (a process killed by
 * SIGKILL before it wrote anything). */
void rawdir_pick(const char *dir, const struct rawdir_dump *d, struct sbuf *path,
		 bool *checkpoint);

/* The value of meta KEY among the meta records at the head of the dump
 * path (those the engine writes when the image starts), unescaped into
 * value; -1 when it is not there. */
int rawdir_head_meta(const char *path, const char *key, struct sbuf *value);

#endif
