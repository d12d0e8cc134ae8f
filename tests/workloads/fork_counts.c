/* fork_counts.c — a forked child's profile counts from the fork.
 *
 * The parent reads one word of each of the 1024 lines of parent_data, then
 * forks; the child reads each of the 512 lines of child_data once and
 * exits; the parent waits.  Sums go to a volatile global so no loop is
 * dropped.
 *
 * Expected (with --reuse=yes --evictions=yes --sample=D1m:1):
 *  - the parent's profile: 1024 first touches of parent_data, none of
 *    child_data, and no sampled or exact cost for child_data;
 *  - the child's profile (NAME.PID.db): 512 first touches of child_data and
 *    none of parent_data (its counts start at zero at the fork, although it
 *    inherits the parent's cache and reuse history), no cost of its own for
 *    parent_data, and every child_data read misses L1 (cold: the parent
 *    never touched it), so its sampled D1 misses at period 1 are 512.
 */
#include <sys/wait.h>
#include <unistd.h>

long parent_data[1024 * 8];
long child_data[512 * 8];
volatile long sink;

int main(void)
{
	long s = 0;
	pid_t pid;

	for (int i = 0; i < 1024 * 8; i += 8)
		s += parent_data[i];
	sink = s;
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 512 * 8; i += 8)
			s += child_data[i];
		sink = s;
		_exit(0);
	}
	if (pid < 0)
		return 1;
	waitpid(pid, 0, 0);
	return 0;
}
