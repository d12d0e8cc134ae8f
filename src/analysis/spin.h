/* spin.h — how much of a run was threads spin-waiting in a parallel
 * runtime (OpenMP, TBB) rather than the program's own work.
 *
 * Under the engine threads run one at a time, so a runtime that spins
 * while it waits for work (libgomp with OMP_WAIT_POLICY=active, the
 * default of several runtimes) holds the only CPU: the run slows down by
 * orders of magnitude and its reads fill the profile.  dcprof record sets
 * OMP_WAIT_POLICY=passive unless the user chose (docs/engine.md,
 * "Threads"); spin_share finds the runs where spinning still dominated.
 */
#ifndef DC_ANALYSIS_SPIN_H
#define DC_ANALYSIS_SPIN_H

#include "base/sbuf.h"
#include "store/profile.h"

/* Whether object (a path) is a runtime library known to spin-wait:
 * libgomp, libomp, libiomp5 or libtbb. */
bool spin_runtime(const char *object, size_t len);
/* The share (0..1) of all data accesses (Dr + Dw) made by the code of the
 * spinning runtime with the most, and its object's path in object (empty
 * and 0 when none ran).  0, or -1 on a read error (err says why). */
int spin_share(struct profile *p, double *share, struct sbuf *object, char *err,
	       size_t errlen);

#endif
