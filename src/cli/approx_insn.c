/* approx_insn.c — the profile's IP-only samples walked back over the
 * instructions they may have skidded from (dcprof approx, skid over
 * instructions).
 *
 * Notes (docs/approx.md, "Skid over instructions"):
 *  - The objects: those with a sampled location in an analysed file,
 *    disassembled by `objdump -d -l --no-show-raw-insn -w` (GNU binutils)
 *    with its source lines.
 *  - The load bias (profile addresses are run-time ones; a PIE's objdump
 *    addresses start near 0): is_bias over the object's sampled locations
 *    in analysed files, matched by line and file name.
 *  - A group per sampled location (threads summed): is_skid_back from its
 *    instruction; each memory instruction it may have come from, on a line
 *    of an analysed file, is an at_from.  A location that is no
 *    instruction of the disassembly stays out of the groups.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/insnskid.h"
#include "base/err.h"
#include "base/sbuf.h"
#include "cli/approx_insn.h"

struct sampled {
	char *object, *file;
	uint64_t ip;
	uint32_t line;
	double count;
	int analysed;           /* approx_find_file, -1 */
};

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int approx_find_file(const struct sv_prog *pg, const char *file)
{
	char real[PATH_MAX];
	int f = realpath(file, real) ? sv_file_find(pg, real) : -1;

	for (size_t i = 0; f < 0 && i < pg->nfiles; i++) {
		if (strcmp(base_name(pg->files[i].path), base_name(file)))
			continue;
		for (size_t j = i + 1; j < pg->nfiles; j++)
			if (!strcmp(base_name(pg->files[j].path), base_name(file)))
				return -1;
		f = (int)i;
	}
	return f;
}

/* objdump's disassembly of path into out; -1 when it cannot be run or
 * fails. */
static int disassemble(const char *path, struct sbuf *out)
{
	char *argv[] = { "objdump", "-d", "-l", "--no-show-raw-insn", "-w", (char *)path, NULL };
	int fd[2], status;
	char buf[65536];
	ssize_t n;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(fd[1], 1);
		if (null >= 0)
			dup2(null, 2);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], buf, sizeof buf)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		sbuf_add(out, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 && out->len ? 0 : -1;
}

static int read_sampled(struct profile *p, const struct sv_prog *pg, struct sampled **out,
			size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	rc = sqlite3_prepare_v2(p->db, "SELECT l.object, l.ip, l.file, l.line, SUM(s.count)"
				" FROM ip_sample s JOIN location l ON l.id = s.location"
				" GROUP BY l.id ORDER BY l.object, l.ip", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		profile_read_error(p, err, errlen);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *obj = (const char *)sqlite3_column_text(st, 0);
		const char *file = (const char *)sqlite3_column_text(st, 2);
		int64_t line = sqlite3_column_int64(st, 3);
		struct sampled *s;

		if (sqlite3_column_double(st, 4) <= 0 || !obj || !*obj)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		s = &(*out)[(*n)++];
		s->object = xmemdup(obj, strlen(obj));
		s->file = xmemdup(file ? file : "", file ? strlen(file) : 0);
		s->ip = (uint64_t)sqlite3_column_int64(st, 1);
		s->line = line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
		s->count = sqlite3_column_double(st, 4);
		s->analysed = s->file[0] && s->line ? approx_find_file(pg, s->file) : -1;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		profile_read_error(p, err, errlen);
		return -1;
	}
	return 0;
}

/* The groups of the samples s[0..n), all in one disassembled object o. */
static void object_groups(const struct is_obj *o, const struct sv_prog *pg,
			  const struct sampled *s, size_t n, const double *w, size_t nw,
			  struct approx_insn *g)
{
	uint64_t *ip = xcalloc(n + 1, sizeof *ip);
	uint32_t *line = xcalloc(n + 1, sizeof *line);
	const char **base = xcalloc(n + 1, sizeof *base);
	int *file = xcalloc(o->nfiles + 1, sizeof *file);
	struct is_from *from = NULL;
	size_t m = 0, nfrom = 0, cfrom = 0;
	uint64_t bias;

	for (size_t i = 0; i < n; i++)
		if (s[i].analysed >= 0) {
			ip[m] = s[i].ip;
			line[m] = s[i].line;
			base[m++] = base_name(s[i].file);
		}
	bias = is_bias(o, ip, line, base, m);
	for (size_t f = 0; f < o->nfiles; f++)
		file[f] = approx_find_file(pg, o->files[f]);
	for (size_t i = 0; i < n; i++) {
		long at = is_find(o, s[i].ip - bias);

		if (at < 0)
			continue;
		is_skid_back(o, (size_t)at, w, nw, &from, &nfrom, &cfrom);
		for (size_t j = 0; j < nfrom; j++) {
			const struct is_insn *in = &o->insn[from[j].insn];

			if (in->file < 0 || file[in->file] < 0 || !in->line)
				continue;
			if (g->n == g->cap) {
				g->cap = g->cap ? 2 * g->cap : 256;
				g->from = xrealloc(g->from, g->cap * sizeof *g->from);
			}
			g->from[g->n++] = (struct at_from){ (uint32_t)g->ngroups,
							    (uint32_t)file[in->file], in->line,
							    from[j].p };
		}
		g->count = xrealloc(g->count, (g->ngroups + 1) * sizeof *g->count);
		g->count[g->ngroups++] = s[i].count;
		g->grouped += s[i].count;
	}
	free(from);
	free(ip);
	free(line);
	free(base);
	free(file);
}

int approx_insn_groups(struct profile *p, const struct sv_prog *pg, const double *w, size_t nw,
		       struct approx_insn *g, char *err, size_t errlen)
{
	struct sampled *s = NULL;
	size_t n = 0;
	struct sbuf text;
	int rc;

	sbuf_init(&text);
	rc = read_sampled(p, pg, &s, &n, err, errlen);
	for (size_t i = 0, j; !rc && i < n; i = j) {
		bool any = false;

		for (j = i; j < n && !strcmp(s[j].object, s[i].object); j++)
			any |= s[j].analysed >= 0;
		if (!any)
			continue;
		sbuf_reset(&text);
		if (disassemble(s[i].object, &text)) {
			err_note("warning: cannot disassemble '%s' with objdump (GNU binutils): its"
				 " samples get no skid negation over instructions", s[i].object);
			continue;
		}
		{
			struct is_obj o;

			is_obj_init(&o);
			is_parse(&o, text.buf, text.len);
			object_groups(&o, pg, s + i, j - i, w, nw, g);
			is_obj_release(&o);
		}
		g->objects++;
	}
	for (size_t i = 0; i < n; i++) {
		free(s[i].object);
		free(s[i].file);
	}
	free(s);
	sbuf_release(&text);
	return rc;
}

void approx_insn_release(struct approx_insn *g)
{
	free(g->from);
	free(g->count);
	memset(g, 0, sizeof *g);
}
