/* view.h — the report's views: SQL over a profile into a table.
 *
 * Metric definitions (docs/cli.md):
 *   Lat        SUM(cost.Lat), modelled cycles of the accesses
 *   MissLat    Lat - (Dr + Dw - D1mr - D1mw) * L1.latency: cycles of the
 *              accesses that missed L1
 *   MissLatPct 100 * MissLat / MissLat of the whole view
 *   MissPct    100 * (D1mr + D1mw) / (D1mr + D1mw) of the whole view
 *   LatPerMiss MissLat / (D1mr + D1mw); null without misses
 * Miss columns: D1mr/D1mw, D2.., and the last level of an N-level profile
 * as DLmr/DLmw; a one-level profile has only D1mr/D1mw.
 * Sampled views read the same columns from cost_sampled instead of cost.
 * The stats view adds per level, when the profile has residency data,
 *   L<k>_resident_lines  residency.avg_lines (0 for a bucket without a row)
 *   L<k>_resident_pct    100 * L<k>_resident_lines * line_size / max_live_bytes
 */
#ifndef DC_ANALYSIS_VIEW_H
#define DC_ANALYSIS_VIEW_H

#include <stdbool.h>

#include "base/num.h"
#include "store/profile.h"
#include "base/sbuf.h"
#include "analysis/table.h"

enum view_kind { VIEW_OBJECT, VIEW_FUNCTION, VIEW_LINE, VIEW_STATS };

struct view_opts {
	enum view_kind kind;
	const char *object;      /* only this bucket name, or NULL */
	const char *function;    /* only this function, or NULL */
	bool thread;             /* one row per thread */
	bool sampled;            /* from cost_sampled (not for VIEW_STATS) */
	bool inclusive;          /* VIEW_FUNCTION: inclusive columns (incl.h) */
	bool per_bucket;         /* cost views: one row per bucket as well (key
				  * column bucket, after thread; annotate) */
	bool outer;              /* VIEW_LINE: inlined code on the line of its
				  * outermost call (view_add_keys) */
};

/* Whole-profile counts per level: accesses[k] reach level k+1 (accesses[N]
 * reach memory), misses[k] miss it. */
struct level_totals {
	int64_t accesses[DC_MAX_LEVELS + 1];
	int64_t misses[DC_MAX_LEVELS];
	int64_t lat, misslat;
};

/* MissLat (above): the cycles of `accesses` that `d1_misses` of them did
 * not spend hitting L1, at `l1_latency` cycles per hit. */
static inline int64_t view_misslat(int64_t lat, int64_t accesses, int64_t d1_misses,
				   int64_t l1_latency)
{
	/* saturating: a crafted profile may hold any counts */
	return num_sub(lat, num_mul(num_sub(accesses, d1_misses, NULL), l1_latency, NULL), NULL);
}

const char *view_name(enum view_kind k);
/* --by object|function|line (report, diff): 0, or -1 with the error
 * printed. */
int view_parse_by(const char *arg, enum view_kind *k);
/* Appends "by KIND[, bucket 'NAME'][, function 'NAME']" (names escaped
 * for text). */
void view_describe(struct sbuf *out, const struct view_opts *o);
/* Appends ,"object":NAME|null,"function":NAME|null (JSON). */
void view_json_filters(struct sbuf *out, const struct view_opts *o);
/* Adds the key columns of an object, function or line view (bucket, kind;
 * function, file; file:line (text only), file, line, function) to t, and
 * appends the SQL expressions that fill them (aliases b = bucket, l =
 * location) to sel and their GROUP BY terms to group, comma-separated.
 * In the line view code without a line (line 0) is one row per file and
 * function, "FILE:?" with a null line.  With outer, the line view keys
 * inlined code by its outer line (schema 9: location.outer_file,
 * outer_line, in outer_function, not marked inlined); code not inlined,
 * and every location of an older profile, keeps its own. */
void view_add_keys(struct table *t, enum view_kind k, bool outer, struct profile *p,
		   struct sbuf *sel, struct sbuf *group);
/* Appends the SQL of the function name code views show for location
 * alias a: the function, with " [inlined into CALLER]" when the code is
 * inlined (schema version 6); "??? (OBJECT)" for code without a symbol
 * (OBJECT: the base name of location.object; "???" without one); and
 * "FUNCTION (OBJECT)" for code in Valgrind's preloads (vgpreload_*;
 * docs/cli.md, "Code locations"). */
void view_fn_sql(struct sbuf *sb, const struct profile *p, const char *a);
/* Appends an SQL condition: location alias a is the function the SQL
 * parameter param names (--function), by its recorded name or the name
 * view_fn_sql shows, or with outer (schema 9) inlined code compiled into
 * that function (location.outer_function). */
void view_fn_filter_sql(struct sbuf *sb, const struct profile *p, const char *a,
			const char *param, bool outer);
/* Appends the SQL of the source file reports show for location alias a:
 * relative to the profile's source root (view_src_root), else as
 * recorded. */
void view_file_sql(struct sbuf *sb, struct profile *p, const char *a);
/* The deepest directory holding every absolute source file of the
 * profile outside /usr/ (system headers and libraries keep their full
 * paths), with its trailing '/'; NULL when there is none or it is "/". */
const char *view_src_root(struct profile *p);
/* Fills the first nkeys cells of row from the first columns of st, the
 * way view_add_keys laid them out (an unknown file's file:line is "??"; a
 * NULL integer, the line of code without one, stays null). */
void view_set_keys(const struct table *t, struct cell *row, int nkeys, sqlite3_stmt *st);
/* --object and --function must name something in the profile: "no bucket
 * named 'X'" or "no function named 'X'" in err otherwise. */
int view_check_filters(struct profile *p, const struct view_opts *o, char *err,
		       size_t errlen);
/* Fills t (initialised by the caller) with the view's rows and totals,
 * unsorted; a filter that names nothing gives no rows (see
 * view_check_filters).  On error err holds the whole message ("profile 'F' has no
 * call data; record with --calls=yes" for an inclusive view without
 * call arcs). */
int view_build(struct profile *p, const struct view_opts *o, struct table *t,
	       char *err, size_t errlen);
/* The column a view sorts by unless --sort says otherwise: InclMissLat
 * for an inclusive view (top-down: the roots, main, ...), else MissLat
 * (total_bytes for the stats view). */
int view_default_sort(const struct table *t, const struct view_opts *o);
/* Cache-use metrics per level (cache_use's columns), in report order:
 * SpLoss, AcCost and, when evictions were counted, Evicted. */
extern const char *const view_use_metrics[3];
/* How many of them the profile has per level: 0 (no cache_use rows), 2
 * or 3; negative (an SQLite code) on a read error. */
int view_use_count(struct profile *p);
/* Appends ", SUM(<cache_use.metric at level of cost row c>)" to sql: the
 * SpLoss, AcCost or Evicted charged to the cost rows summed (0 when none). */
void view_add_use_sum(struct sbuf *sql, const char *metric, int level);
/* From cost, or from cost_sampled when sampled. */
int view_level_totals(struct profile *p, bool sampled, struct level_totals *lt,
		      char *err, size_t errlen);

#endif
