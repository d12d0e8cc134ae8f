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
 */
#ifndef DC_CLI_VIEW_H
#define DC_CLI_VIEW_H

#include <stdbool.h>

#include "cli/profile.h"
#include "cli/table.h"

enum view_kind { VIEW_OBJECT, VIEW_FUNCTION, VIEW_LINE, VIEW_STATS };

struct view_opts {
	enum view_kind kind;
	const char *object;      /* only this bucket name, or NULL */
	const char *function;    /* only this function, or NULL */
	bool thread;             /* one row per thread */
};

/* Whole-profile counts per level: accesses[k] reach level k+1 (accesses[N]
 * reach memory), misses[k] miss it. */
struct level_totals {
	int64_t accesses[DC_MAX_LEVELS + 1];
	int64_t misses[DC_MAX_LEVELS];
	int64_t lat, misslat;
};

const char *view_name(enum view_kind k);
/* Fills t (initialised by the caller) with the view's rows and totals,
 * unsorted.  On error err holds the whole message. */
int view_build(struct profile *p, const struct view_opts *o, struct table *t,
	       char *err, size_t errlen);
/* The column a view sorts by unless --sort says otherwise. */
int view_default_sort(const struct table *t, enum view_kind k);
int view_level_totals(struct profile *p, struct level_totals *lt, char *err, size_t errlen);

#endif
