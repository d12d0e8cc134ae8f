/* ipsamp.h — IP-only samples per function or source line (report
 * --ip-samples), as perf report shows cpu-clock samples.
 *
 * Columns (docs/cli.md): the view's keys (function, file; or file:line,
 * file, line, function; with thread, the thread), then
 *   samples     SUM(ip_sample.count) / sample_period: the samples that
 *               landed there
 *   events      SUM(ip_sample.count): samples x period, the estimated
 *               events when each sample is taken where it landed
 *   SamplesPct  100 * samples / samples of the whole view
 * A sample lands where the skid put it (Rutar and Hollingsworth, §3.3.3):
 * with skid 0 on the instruction that caused the event, else on one
 * executed after it.
 */
#ifndef DC_ANALYSIS_IPSAMP_H
#define DC_ANALYSIS_IPSAMP_H

#include "analysis/table.h"
#include "analysis/view.h"
#include "store/sample.h"

/* Builds the rows of view kind o->kind (VIEW_FUNCTION or VIEW_LINE),
 * filtered by o->function, per thread with o->thread. */
int ipsamp_build(struct profile *p, const struct view_opts *o, const struct sample_info *si,
		 struct table *t, char *err, size_t errlen);

#endif
