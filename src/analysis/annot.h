/* annot.h — per-source-line costs for dcprof annotate.
 *
 * The report's line view (view.h) summed over the functions of a line —
 * inlined code puts several on one — and grouped by source file, with
 * each line's split of one metric over the buckets its accesses touched
 * (the line view per bucket, summed over functions).
 *
 * Notes:
 *  - Counts and percentages of a line are the sums of its rows; LatPerMiss
 *    is recomputed from the sums (MissLat / (D1mr + D1mw)).
 *  - The metric must add up over rows (a count or a share): the files and
 *    lines are ranked by it and the bucket split is a split of it.
 *  - A file is what location.file records: a base name or a path; the
 *    unknown file (empty) is left out, its metric kept as no_file, and so
 *    are lines numbered 0 (their cost still counts in their file's).
 */
#ifndef DC_ANALYSIS_ANNOT_H
#define DC_ANALYSIS_ANNOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/table.h"
#include "store/profile.h"

struct annot_share {
	char *bucket;              /* bucket name (NUL-terminated, may hold NUL) */
	size_t len;
	double value;              /* the metric's part on this bucket */
};

struct annot_line {
	int64_t line;
	size_t row;                /* its row in annot.t */
	double metric;
	struct annot_share *shares;  /* value descending, ties by name; zeros left out */
	size_t nshares;
};

struct annot_file {
	char *name;                /* as recorded (NUL-terminated, may hold NUL) */
	size_t len;
	double metric;             /* over all its lines, line 0 included */
	char *fn;                  /* the function with the largest part of the
				    * metric (ties by name), to name a file whose
				    * source is not shown; NUL-terminated, may hold NUL */
	size_t fnlen;
	struct annot_line *lines;  /* by line number */
	size_t nlines;
};

struct annot {
	struct table t;            /* per (file, line): key columns file and line,
				    * then the line view's metrics and totals */
	int metric;                /* the metric's column in t */
	double total;              /* the metric over the whole view */
	struct annot_file *files;  /* metric descending, ties by name */
	size_t nfiles;
	double no_file;            /* the metric of code with no source file */
};

/* Builds a (caller-owned storage) from the exact costs; object: only the
 * accesses to the bucket(s) so named, or NULL; outer: inlined code on the
 * line of its outermost call (view_opts.outer).  On error err holds the
 * whole message (an unknown metric lists the valid ones) and a needs no
 * release. */
int annot_build(struct profile *p, const char *object, bool outer, const char *metric,
		struct annot *a, char *err, size_t errlen);
void annot_release(struct annot *a);
/* A numeric cell as a double (0 when null). */
double annot_value(const struct table *t, const struct cell *row, int col);

#endif
