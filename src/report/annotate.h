/* annotate.h — source files with per-line costs (dcprof annotate): finding
 * and reading the sources a profile names, and printing them as text or
 * JSON with the costs of analysis/annot.h in the left margin.
 *
 * Notes:
 *  - A file is looked for, in order, in each --source-dir DIR as DIR/NAME
 *    and then as DIR/ plus every shorter tail of NAME that starts after a
 *    '/' (so /build/app/src/a.c is found as DIR/app/src/a.c, DIR/src/a.c,
 *    DIR/a.c), then as NAME itself (absolute, or relative to the current
 *    directory).  The directories come first so that a copy the user
 *    points to wins over whatever now lies at the recorded path.
 *  - Source text is the user's own: printed as it is, except control
 *    characters other than tab and invalid UTF-8 (base/fmt.h fmt_source)
 *    and one carriage return ending a line (CRLF files).
 *  - Shown are the regions around hot lines: each hot line with `context`
 *    lines before and after, regions that touch merged, like
 *    cg_annotate's --context.  Zero costs print as '.'.
 */
#ifndef DC_REPORT_ANNOTATE_H
#define DC_REPORT_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/annot.h"
#include "base/sbuf.h"

struct source {
	char *buf;
	size_t len;
	size_t *start;           /* offset of each line's first byte */
	size_t nlines;
};

/* 0 with the path in out (reset first) when the file recorded as name
 * (len bytes) is found, else -1. */
int source_find(const char *name, size_t len, const char *const *dirs, size_t ndirs,
		struct sbuf *out);
/* Reads a whole source file; on error err says why (strerror). */
int source_read(const char *path, struct source *s, char *err, size_t errlen);
void source_release(struct source *s);

struct annotate_opts {
	const int *cols;         /* the columns of annot.t shown in the margin */
	int ncols;
	double min_metric;       /* a line is hot at or above this value of the metric */
	bool any_cost;           /* ... or, when set, whenever it has accesses */
	size_t context;
	size_t max_shares;       /* buckets named on a hot line's split, the rest summed */
};

/* Is line l of f hot? */
bool annotate_is_hot(const struct annot *a, const struct annot_line *l,
		     const struct annotate_opts *o);
/* One file as text: a banner naming it (and the path it was read from),
 * the column headings, then the regions around its hot lines, each hot
 * line followed by its split over buckets.  src NULL: the file was not
 * found (only the banner is printed).  Returns the number of hot lines
 * beyond the end of the source (0 when none). */
size_t annotate_text(struct sbuf *out, const struct annot *a, const struct annot_file *f,
		     const char *path, const struct source *src, const struct annotate_opts *o);
/* One file as a JSON object: {"file","function","path","metric","pct","lines":[...]}
 * with every line that has costs (its text, "hot", the shown columns and
 * "buckets"). */
void annotate_json(struct sbuf *out, const struct annot *a, const struct annot_file *f,
		   const char *path, const struct source *src, const struct annotate_opts *o);
/* What the files shown leave out, as text after them (nothing when
 * nothing is): each file chosen but not shown (chosen[f] && !shown[f]:
 * its source not found) with its metric, share and main function, then
 * the files not chosen (named: the user named files, else they are below
 * the threshold) and the code with no source file, summed. */
void annotate_rest_text(struct sbuf *out, const struct annot *a, const bool *chosen,
			const bool *shown, bool named);
/* The same for JSON, as members of the top object: ,"other_files":N,
 * "other_metric":X,"no_file_metric":Y (the files chosen are in "files"). */
void annotate_rest_json(struct sbuf *out, const struct annot *a, const bool *chosen);

#endif
