/* test_unit.c — the framework's own fault injection: the failenv and the
 * allocation walk must catch the mistakes they exist for. */
#include <stdlib.h>

#include "unit.h"

DC_TEST(unit, failenv_fails_from_fail_at_on)
{
	struct dc_failenv fe;

	dc_failenv_init(&fe, 3);
	void *a = dc_alloc(&fe.env, 8, "a"), *b = dc_alloc(&fe.env, 8, "b");
	CHECK(a && b);
	CHECK(!dc_alloc(&fe.env, 8, "c"));
	CHECK(!dc_alloc(&fe.env, 8, "d"));
	CHECK_EQ(fe.calls, 4);
	CHECK_EQ(fe.failures, 2);
	CHECK_STREQ(fe.fail_label, "c");
	CHECK_EQ(fe.live, 2);
	dc_free(&fe.env, a);
	dc_free(&fe.env, b);
	CHECK_EQ(fe.live, 0);
}

DC_TEST(unit, failenv_zero_never_fails)
{
	struct dc_failenv fe;

	dc_failenv_init(&fe, 0);
	for (int i = 0; i < 100; i++) {
		void *p = dc_alloc(&fe.env, 16, "x");
		CHECK(p);
		dc_free(&fe.env, p);
	}
	CHECK_EQ(fe.failures, 0);
	CHECK_EQ(fe.live, 0);
}

/* Three allocations, all released on every path. */
static int tidy(const struct dc_env *env, void *ud)
{
	void *a = NULL, *b = NULL, *c = NULL;
	int rc = DC_ENOMEM;

	if (!(a = dc_alloc(env, 8, "a")) || !(b = dc_alloc(env, 8, "b")) ||
	    !(c = dc_alloc(env, 8, "c")))
		goto out;
	rc = 0;
out:
	dc_free(env, c);
	dc_free(env, b);
	dc_free(env, a);
	return rc;
}

/* Forgets a when b fails; hands it to the test through ud so that
 * LeakSanitizer stays quiet. */
static int leaky(const struct dc_env *env, void *ud)
{
	void *a = dc_alloc(env, 8, "a");
	if (!a)
		return DC_ENOMEM;
	void *b = dc_alloc(env, 8, "b");
	if (!b) {
		*(void **)ud = a;
		return DC_ENOMEM;
	}
	dc_free(env, b);
	dc_free(env, a);
	return 0;
}

/* Treats a failed allocation as success. */
static int swallows(const struct dc_env *env, void *ud)
{
	void *a = dc_alloc(env, 8, "a");
	dc_free(env, a);
	return 0;
}

/* Fails for a reason of its own even when memory is plentiful. */
static int broken(const struct dc_env *env, void *ud)
{
	void *a = dc_alloc(env, 8, "a");
	if (!a)
		return DC_ENOMEM;
	dc_free(env, a);
	return DC_EINVAL;
}

static int idle(const struct dc_env *env, void *ud)
{
	return 0;
}

DC_TEST(unit, walk_passes_tidy_scenario)
{
	struct dc_walk_report r;

	CHECK_EQ(dc_alloc_walk(tidy, NULL, &r), DC_WALK_OK);
	CHECK_EQ(r.step, 4);    /* runs 1..3 fail, run 4 is clean */
	DC_ALLOC_WALK(tidy, NULL);
}

DC_TEST(unit, walk_catches_leak)
{
	struct dc_walk_report r;
	void *leaked = NULL;

	CHECK_EQ(dc_alloc_walk(leaky, &leaked, &r), DC_WALK_LEAK);
	free(leaked);
	CHECK_EQ(r.step, 2);
	CHECK_EQ(r.live, 1);
	CHECK_STREQ(r.fail_label, "b");
}

DC_TEST(unit, walk_catches_swallowed_failure)
{
	struct dc_walk_report r;

	CHECK_EQ(dc_alloc_walk(swallows, NULL, &r), DC_WALK_FAIL_RC);
	CHECK_EQ(r.step, 1);
	CHECK_EQ(r.rc, 0);
}

DC_TEST(unit, walk_catches_error_in_clean_run)
{
	struct dc_walk_report r;

	CHECK_EQ(dc_alloc_walk(broken, NULL, &r), DC_WALK_CLEAN_RC);
	CHECK_EQ(r.step, 2);
	CHECK_EQ(r.rc, DC_EINVAL);
}

DC_TEST(unit, walk_rejects_scenario_without_allocation)
{
	struct dc_walk_report r;

	CHECK_EQ(dc_alloc_walk(idle, NULL, &r), DC_WALK_NO_ALLOC);
}
