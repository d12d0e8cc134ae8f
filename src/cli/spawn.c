/* spawn.c — find and run the engine the way a shell would. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/spawn.h"

static int check_exec(const char *path)
{
	struct stat sb;

	if (stat(path, &sb) < 0)
		return errno;
	if (S_ISDIR(sb.st_mode))
		return EISDIR;
	if (!S_ISREG(sb.st_mode) || access(path, X_OK) < 0)
		return EACCES;
	return 0;
}

int spawn_lookup(const char *name, struct sbuf *out)
{
	const char *path = getenv("PATH");
	int err = ENOENT;

	sbuf_reset(out);
	if (!*name)
		return ENOENT;
	if (strchr(name, '/')) {
		sbuf_adds(out, name);
		return check_exec(name);
	}
	if (!path)
		path = "/bin:/usr/bin";   /* what execvp uses */
	for (;;) {
		const char *colon = strchrnul(path, ':');
		int rc;

		sbuf_reset(out);
		/* An empty PATH entry means the current directory. */
		if (colon == path)
			sbuf_addc(out, '.');
		else
			sbuf_add(out, path, (size_t)(colon - path));
		sbuf_addc(out, '/');
		sbuf_adds(out, name);
		rc = check_exec(out->buf);
		if (rc == 0)
			return 0;
		/* Like execvp: a match we may not run beats no match. */
		if (rc == EACCES)
			err = EACCES;
		if (!*colon)
			break;
		path = colon + 1;
	}
	return err;
}

/* The child to forward SIGTERM/SIGHUP to; set while they are blocked. */
static volatile pid_t child;

static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* The tick's timer only interrupts waitpid. */
static void wake(int sig)
{
	(void)sig;
}

static double since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

int spawn_wait(char *const argv[], const char *env_name, const char *env_value,
	       const struct spawn_tick *tick, pid_t *pid, int *status)
{
	struct sigaction alrm = { .sa_handler = wake }, old_alrm;
	struct itimerval every = { { 1, 0 }, { 1, 0 } }, off = { { 0, 0 }, { 0, 0 } };
	struct timespec t0;
	struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = forward };
	sigset_t fwd_set, old_mask;
	int pipefd[2], err = 0;
	ssize_t n;

	sigemptyset(&fwd_set);
	sigaddset(&fwd_set, SIGTERM);
	sigaddset(&fwd_set, SIGHUP);
	/* An exec failure in the child comes back as an errno on this pipe;
	 * a successful exec closes it. */
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return errno;
	sigprocmask(SIG_BLOCK, &fwd_set, &old_mask);
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
	*pid = fork();
	if (*pid < 0) {
		err = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (*pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		close(pipefd[0]);
		setenv(env_name, env_value, 1);
		execv(argv[0], argv);
		err = errno;
		n = write(pipefd[1], &err, sizeof err);
		_exit(127);
	}
	child = *pid;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* Set up after the fork: the child keeps neither.  No SA_RESTART, so
	 * the alarm ends a waitpid with EINTR. */
	if (tick) {
		sigaction(SIGALRM, &alrm, &old_alrm);
		setitimer(ITIMER_REAL, &every, NULL);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	close(pipefd[1]);
	do
		n = read(pipefd[0], &err, sizeof err);
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n != sizeof err)
		err = 0;
	while (waitpid(*pid, status, 0) < 0) {
		if (errno != EINTR) {
			err = errno;
			break;
		}
		if (tick)
			tick->fn(tick->arg, since(&t0));
	}
	if (tick) {
		setitimer(ITIMER_REAL, &off, NULL);
		sigaction(SIGALRM, &old_alrm, NULL);
	}
	sigprocmask(SIG_BLOCK, &fwd_set, NULL);
	child = 0;
	return err;
}
