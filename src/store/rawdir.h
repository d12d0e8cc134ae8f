/* rawdir.h — the raw dumps a `dcprof record` run leaves in its temporary
 * directory. */
#ifndef DC_STORE_RAWDIR_H
#define DC_STORE_RAWDIR_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/sbuf.h"

/* PIDs of the raw.PID files in dir, ascending (malloc'ed; *n of them). */
pid_t *rawdir_list(const char *dir, size_t *n);

/* The dump to finalize for process pid: raw.PID, or its checkpoint
 * raw.PID.ckpt (*checkpoint set) when raw.PID has no end record — after
 * waiting for a checkpoint the engine's copy is still writing; path is
 * left empty when neither holds anything (a process killed by SIGKILL
 * before any). */
void rawdir_pick(const char *dir, pid_t pid, struct sbuf *path, bool *checkpoint);

#endif
