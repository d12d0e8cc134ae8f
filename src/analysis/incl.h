/* incl.h — inclusive costs per function for report --inclusive, from the
 * call arcs of a profile recorded with --calls (seeds/001 §2–3;
 * docs/cli.md).
 *
 * Notes:
 *  - A function's inclusive cost is its self cost plus the inclusive costs
 *    of the call arcs whose call site is in it (call_arc rows of kind
 *    'call'; per thread with --thread), the back-dated SpLoss/AcCost/
 *    Evicted from call_use the same way: the cost of its code and of the
 *    calls it made, so inclusive >= self in every row.  For a function
 *    whose code runs only in its own calls this is exactly the inclusive
 *    cost of the arcs into it (the engine's counter differences, seeds/001
 *    §2, method 3), which is what callgrind_annotate --inclusive=yes shows
 *    for a called function.  They differ for code that also runs outside
 *    its function's calls: entered by a jump into its body (memcpy's body
 *    from mempcpy), in a root frame (a thread's first function), or, after
 *    a longjmp, before the next call pops the frames it left (that stretch
 *    of the caller is counted in its own cost and in the left call's).
 *    Calls of a function to itself add 0 (their arcs do); a cycle through
 *    other functions (f -> g -> f) counts the inner activations of f twice.
 *  - A row's key is the function's name and the file of its code (one row
 *    per file for inlined code, as the function view has).  A function
 *    with calls but no data access of its own gets a row with zero self
 *    costs.
 *  - The row "<root>" stands for the roots of the call trees, the threads
 *    and the signal handlers (one row per thread with --thread): no self
 *    cost, and the roots' arcs as its calls' inclusive costs: the
 *    program's totals (or the thread's).  Not with --function.
 *  - Columns: calls (the calls of the arcs into the function; null for
 *    <root>), InclMissLat (derived from InclLat like MissLat),
 *    InclMissLatPct (of the program's MissLat), InclLat, InclDr, InclDw,
 *    InclD1mr, InclD1mw, ... InclDLmr, InclDLmw, then per level
 *    InclSpLoss<k>, InclAcCost<k> and InclEvicted<k>: the self columns'
 *    layout from Lat on.
 *  - The totals row has no inclusive costs: they do not add up across
 *    functions (a caller's include its callees').
 */
#ifndef DC_ANALYSIS_INCL_H
#define DC_ANALYSIS_INCL_H

#include "store/profile.h"
#include "analysis/table.h"
#include "analysis/view.h"

/* Column indexes of the inclusive columns. */
struct incl_cols {
	int calls, misslat, misslat_pct;
	int lat;                   /* InclLat, then the rest as the self columns */
	int n;                     /* InclLat ... the last: as many as Lat ... */
	int nuse;                  /* cache-use metrics per level (0, 2, 3) */
	int64_t l1_latency;
};

/* Adds the inclusive columns to a function view's table t, after its
 * self columns; nuse as view_use_count. */
void incl_add_cols(struct table *t, const struct profile *p, int nuse, struct incl_cols *ic);
/* Fills them for t's rows (keys: function, file and, with o->thread,
 * thread), whose self costs Lat, Dr, ... are the integer columns from
 * self_first to self_end (exclusive), laid out as the inclusive ones;
 * adds rows (zero self costs) for functions with calls but no self costs
 * and the <root> rows.  0, or -1 with err set. */
int incl_fill(struct profile *p, const struct view_opts *o, struct table *t,
	      const struct incl_cols *ic, int self_first, int self_end, char *err,
	      size_t errlen);

#endif
