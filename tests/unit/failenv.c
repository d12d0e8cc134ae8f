/* failenv.c — the fault-injecting env and the allocation-failure walk
 * (see unit.h). */
#include <stdio.h>
#include <stdlib.h>

#include "unit.h"

static void *failenv_alloc(void *ud, size_t n, const char *label)
{
	struct dc_failenv *fe = ud;

	fe->calls++;
	if (fe->fail_at && fe->calls >= fe->fail_at) {
		if (!fe->failures++)
			fe->fail_label = label;
		return NULL;
	}
	void *p = malloc(n);
	if (p)
		fe->live++;
	return p;
}

static void failenv_free(void *ud, void *p)
{
	struct dc_failenv *fe = ud;

	if (p)
		fe->live--;
	free(p);
}

void dc_failenv_init(struct dc_failenv *fe, long fail_at)
{
	*fe = (struct dc_failenv){
		.env = { failenv_alloc, failenv_free, fe },
		.fail_at = fail_at,
	};
}

int dc_alloc_walk(dc_unit_scenario *fn, void *ud, struct dc_walk_report *r)
{
	for (long n = 1;; n++) {
		struct dc_failenv fe;

		dc_failenv_init(&fe, n);
		int rc = fn(&fe.env, ud);
		*r = (struct dc_walk_report){
			.step = n, .rc = rc, .live = fe.live, .fail_label = fe.fail_label,
		};
		if (fe.live)
			return r->verdict = DC_WALK_LEAK;
		if (fe.failures && rc != DC_ENOMEM)
			return r->verdict = DC_WALK_FAIL_RC;
		if (!fe.failures && rc)
			return r->verdict = DC_WALK_CLEAN_RC;
		if (!fe.failures)
			return r->verdict = fe.calls ? DC_WALK_OK : DC_WALK_NO_ALLOC;
	}
}

void dc_unit_check_walk(const char *file, int line, const char *name,
			dc_unit_scenario *fn, void *ud)
{
	static const char *const why[] = {
		[DC_WALK_LEAK] = "blocks still live after the run",
		[DC_WALK_FAIL_RC] = "an allocation failed but it did not return DC_ENOMEM",
		[DC_WALK_CLEAN_RC] = "nothing failed but it did not return 0",
		[DC_WALK_NO_ALLOC] = "it never allocates, so the walk tests nothing",
	};
	struct dc_walk_report r;

	if (dc_alloc_walk(fn, ud, &r) == DC_WALK_OK)
		return;
	dc_unit_fail(file, line, "DC_ALLOC_WALK(%s): failing allocation %ld ('%s'): %s "
		     "(rc %d, %ld live)", name, r.step, r.fail_label ? r.fail_label : "none",
		     why[r.verdict], r.rc, r.live);
}
