/* exec_list.c — exec through the argument-list calls: execl, execlp and
 * execle (glibc runs them inside libc, not through execve's dynamic
 * symbol).
 *
 * Usage: exec_list l|p|e NEXT ARGS...  Stores one word in each 4 KiB page
 * of list_data (8 pages, page-aligned), then execs NEXT with up to three
 * ARGS: execl(NEXT, NEXT, ...), execlp(basename of NEXT, ...) with NEXT's
 * directory first in PATH, or execle(NEXT, NEXT, ..., envp) with envp
 * holding only FOO=1.  Exits 4 when the exec fails.
 *
 * Expected in the profile of exec_list's image (--engine=native
 * --event=pagefault): list_data 8 pages first touched, complete, with meta
 * exec = the program exec'd; NEXT gets a profile of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long list_data[8 * 512] __attribute__((aligned(4096)));

int main(int argc, char **argv)
{
	char *foo[] = { "FOO=1", NULL };
	char path[8192];
	const char *base, *a1, *a2, *a3;

	if (argc < 3)
		return 2;
	for (int i = 0; i < 8 * 512; i += 512)
		list_data[i] = i;
	a1 = argc > 3 ? argv[3] : NULL;
	a2 = argc > 4 ? argv[4] : NULL;
	a3 = argc > 5 ? argv[5] : NULL;
	switch (argv[1][0]) {
	case 'l':
		execl(argv[2], argv[2], a1, a2, a3, (char *)NULL);
		break;
	case 'p':
		base = strrchr(argv[2], '/');
		snprintf(path, sizeof path, "%.*s:%s", base ? (int)(base - argv[2]) : 1,
			 base ? argv[2] : ".", getenv("PATH") ? getenv("PATH") : "");
		setenv("PATH", path, 1);
		execlp(base ? base + 1 : argv[2], argv[2], a1, a2, a3, (char *)NULL);
		break;
	case 'e':
		execle(argv[2], argv[2], a1, a2, a3, (char *)NULL, foo);
		break;
	}
	return 4;
}
