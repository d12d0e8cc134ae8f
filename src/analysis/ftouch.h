/* ftouch.h — the first-touch view (dcprof report --first-touch): pages of
 * each object first touched, from the native engine's --event=pagefault
 * (table first_touch, docs/schema.md). */
#ifndef DC_ANALYSIS_FTOUCH_H
#define DC_ANALYSIS_FTOUCH_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/table.h"
#include "store/profile.h"

/* One row per bucket (per bucket and thread with by_thread): pages, their
 * share, and the code location that first touched most of them.  A
 * profile without first touches is an error naming the option to record
 * them. */
int ftouch_build(struct profile *p, bool by_thread, struct table *t, char *err, size_t errlen);

#endif
