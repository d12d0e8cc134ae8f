/* spawn.h — find and run the engine the way a shell would. */
#ifndef DC_CLI_SPAWN_H
#define DC_CLI_SPAWN_H

#include <sys/types.h>

#include "base/sbuf.h"

/* Finds an executable like execvp: name itself when it contains a slash,
 * else the first match in $PATH.  Returns 0 with the path in out, or an
 * errno value (ENOENT, EACCES, EISDIR). */
int spawn_lookup(const char *name, struct sbuf *out);

/* What to call about once a second while the child runs: fn(arg, seconds
 * since it was started). */
struct spawn_tick {
	void (*fn)(void *arg, double seconds);
	void *arg;
};

/* Runs argv[0] (a path) with env_name=env_value added to the environment
 * and waits for it, calling tick (when not NULL) once a second.  Meanwhile SIGINT and SIGQUIT are ignored (the child
 * gets them from the terminal) and SIGTERM and SIGHUP are forwarded to the
 * child; once it has ended they stay blocked, so the caller can finish
 * writing profiles.  Returns 0 with the child's pid and wait status, or an
 * errno value when the child could not be started. */
int spawn_wait(char *const argv[], const char *env_name, const char *env_value,
	       const struct spawn_tick *tick, pid_t *pid, int *status);

#endif
