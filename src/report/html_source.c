/* html_source.c — the source lines the HTML report shows, read when the
 * page is made (html_int.h).
 *
 * Notes:
 *  - A file named by an absolute path is read there; a relative one below
 *    each --source-dir in order, then below the current directory.  The
 *    profile has the name the debug information gives, often without its
 *    directory, so the first match wins.
 *  - Only regular files of at most SOURCE_MAX bytes are read; lines are cut
 *    at LINE_MAX bytes.  A file not found, not readable or too big gets an
 *    "error" and no lines; "nlines" says how many lines it has, so the page
 *    can tell a line beyond the end (the file changed since the run).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/err.h"
#include "base/fmt.h"
#include "report/html_int.h"

#define SOURCE_MAX (64L << 20)
#define LINE_MAX_BYTES 1000

static int cmp_ref(const void *x, const void *y)
{
	const struct html_lineref *a = x, *b = y;
	size_t n = a->file_len < b->file_len ? a->file_len : b->file_len;
	int c = memcmp(a->file, b->file, n);

	if (c)
		return c;
	if (a->file_len != b->file_len)
		return a->file_len < b->file_len ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

/* Opens the file a profile names; *path gets the path opened.  NULL with
 * err set when there is none. */
static FILE *open_source(const char *name, const struct html_opts *o, struct sbuf *path,
			 struct sbuf *err)
{
	size_t ndirs = name[0] == '/' ? 1 : o->nsource_dirs + 1;
	int first_errno = 0;

	for (size_t i = 0; i < ndirs; i++) {
		const char *dir = name[0] == '/' ? NULL : i < o->nsource_dirs ? o->source_dirs[i] : ".";
		struct stat sb;
		FILE *f;

		sbuf_reset(path);
		if (dir && strcmp(dir, "."))
			sbuf_addf(path, "%s/", dir);
		sbuf_adds(path, name);
		if (stat(path->buf, &sb)) {
			if (errno != ENOENT && errno != ENOTDIR && !first_errno)
				first_errno = errno;
			continue;
		}
		if (!S_ISREG(sb.st_mode)) {
			sbuf_addf(err, "'%s' is not a regular file", path->buf);
			return NULL;
		}
		if (sb.st_size > SOURCE_MAX) {
			sbuf_addf(err, "'%s' is larger than %ld MiB", path->buf, SOURCE_MAX >> 20);
			return NULL;
		}
		f = fopen(path->buf, "r");
		if (!f)
			sbuf_addf(err, "cannot read '%s': %s", path->buf, strerror(errno));
		return f;
	}
	if (first_errno) {
		sbuf_addf(err, "cannot read '%s': %s", name, strerror(first_errno));
		return NULL;
	}
	sbuf_adds(err, "not found in ");
	if (name[0] == '/')
		sbuf_adds(err, "its directory");
	for (size_t i = 0; name[0] != '/' && i < ndirs; i++)
		sbuf_addf(err, "%s'%s'", i ? ", " : "",
			  i < o->nsource_dirs ? o->source_dirs[i] : ".");
	sbuf_adds(err, " (dcprof html --source-dir DIR looks elsewhere)");
	return NULL;
}

/* The wanted lines of one file, refs[0..n) (sorted, same file). */
static void one_file(struct sbuf *out, const struct html_lineref *refs, size_t n,
		     const struct html_opts *o)
{
	struct sbuf path, err;
	char *name = xmemdup(refs[0].file, refs[0].file_len);
	char *line = NULL;
	size_t cap = 0, want = 0, shown = 0;
	int64_t lineno = 0;
	ssize_t len;
	FILE *f = NULL;

	sbuf_init(&path);
	sbuf_init(&err);
	sbuf_adds(out, "{\"file\":");
	fmt_json_str(out, refs[0].file, refs[0].file_len);
	if (memchr(refs[0].file, 0, refs[0].file_len))
		sbuf_adds(&err, "the name holds a NUL byte");
	else
		f = open_source(name, o, &path, &err);
	sbuf_adds(out, ",\"path\":");
	if (f)
		fmt_json_str(out, path.buf, path.len);
	else
		sbuf_adds(out, "null");
	sbuf_adds(out, ",\"lines\":{");
	while (f && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (want < n && refs[want].line < lineno)
			want++;
		if (want == n || refs[want].line != lineno)
			continue;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			len--;
		if (len > LINE_MAX_BYTES)
			len = LINE_MAX_BYTES;
		sbuf_addf(out, "%s\"%lld\":", shown++ ? "," : "", (long long)lineno);
		fmt_json_source(out, line, (size_t)len);
	}
	sbuf_adds(out, "},\"nlines\":");
	if (f && ferror(f)) {
		sbuf_addf(&err, "cannot read '%s': %s", path.buf, strerror(errno));
		sbuf_adds(out, "null");
	} else if (f) {
		sbuf_addf(out, "%lld", (long long)lineno);
	} else {
		sbuf_adds(out, "null");
	}
	sbuf_adds(out, ",\"error\":");
	if (err.len)
		fmt_json_str(out, err.buf, err.len);
	else
		sbuf_adds(out, "null");
	sbuf_addc(out, '}');
	if (f)
		fclose(f);
	free(line);
	free(name);
	sbuf_release(&path);
	sbuf_release(&err);
}

void html_sources(struct sbuf *out, struct html_lineref *refs, size_t n,
		  const struct html_opts *o)
{
	size_t files = 0;

	qsort(refs, n, sizeof *refs, cmp_ref);
	sbuf_addc(out, '[');
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && refs[j].file_len == refs[i].file_len &&
				!memcmp(refs[j].file, refs[i].file, refs[i].file_len); j++)
			;
		sbuf_adds(out, files++ ? "," : "");
		one_file(out, refs + i, j - i, o);
	}
	sbuf_addc(out, ']');
}
