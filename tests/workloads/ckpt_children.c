/* ckpt_children.c — the program's own child, wait() and SIGCHLD while the
 * engine takes checkpoints (test_engine_checkpoint.py).
 *
 * Counts SIGCHLD, forks one child that exits with status 3, then for about
 * a second of wall time streams a 64 KiB array and calls waitpid(-1,
 * WNOHANG) after every pass, then waits with wait() until ECHILD.  The
 * engine's checkpoint copies are made without SIGCHLD, so the program must
 * see exactly its own child: one pid reaped, with status 3, no other pid,
 * one SIGCHLD.  Prints "children R strangers S sigchld C" and exits 0 when
 * R = 1, S = 0 and C = 1, else 1.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t sigchld;
static volatile long arr[8192];
static pid_t child;
static int reaped, strangers;

static void on_chld(int sig)
{
	(void)sig;
	sigchld++;
}

static void account(pid_t p, int status)
{
	if (p == child && WIFEXITED(status) && WEXITSTATUS(status) == 3)
		reaped++;
	else
		strangers++;
}

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(void)
{
	struct sigaction sa = { 0 };
	double end;
	pid_t p;
	int status;

	sa.sa_handler = on_chld;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGCHLD, &sa, NULL);
	child = fork();
	if (child == 0)
		_exit(3);
	for (end = now() + 1.0; now() < end;) {
		for (int i = 0; i < 8192; i++)
			arr[i]++;
		while ((p = waitpid(-1, &status, WNOHANG)) > 0)
			account(p, status);
	}
	while ((p = wait(&status)) > 0 || errno == EINTR)
		if (p > 0)
			account(p, status);
	printf("children %d strangers %d sigchld %d\n", reaped, strangers, (int)sigchld);
	return reaped == 1 && strangers == 0 && sigchld == 1 ? 0 : 1;
}
