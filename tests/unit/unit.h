/* unit.h — the unit-test framework for the core.
 *
 * Writing a test, in any C file in tests/unit/:
 *
 *     #include "unit.h"
 *
 *     DC_TEST(hier, rejects_zero_ways)
 *     {
 *             CHECK_EQ(dc_hier_parse(&h, "L1=32k:0:64"), DC_EINVAL);
 *     }
 *
 * This defines test_hier__rejects_zero_ways and registers it from a
 * constructor, so there is no list to keep in step: a test that is written
 * always runs (the Makefile links every C file in tests/unit/).  Two tests with the
 * same name make the run fail.
 *
 * CHECK(cond), CHECK_EQ(a, b) (integers, pointers, error codes) and
 * CHECK_STREQ(a, b) (strings, NULL allowed) print file:line, the test name
 * and the values, then abandon the test: they jump back to the runner, so
 * they work at any depth, also inside an allocation-walk scenario.  Memory
 * the abandoned test held is leaked, and LeakSanitizer says so at exit.
 *
 * Running: build/unit-tests [SUBSTRING...] runs every test, or those whose
 * name contains one of the SUBSTRINGs, in name order.  The last line is
 * "N passed, N failed"; the exit status is non-zero when a test failed or a
 * SUBSTRING matched nothing.
 *
 * Allocation-failure walks (SQLite's test_malloc idea).  Write the scenario
 * as a function that builds what it tests with the env it is given, uses
 * it, releases everything and returns 0 or the first error:
 *
 *     static int omap_scenario(const struct dc_env *env, void *ud)
 *     {
 *             struct dc_omap m;
 *             int rc = dc_omap_init(&m, env);
 *             if (rc)
 *                     return rc;
 *             rc = dc_omap_insert(&m, 0x1000, 64, 1);
 *             dc_omap_release(&m);
 *             return rc;
 *     }
 *
 *     DC_TEST(omap, alloc_walk)
 *     {
 *             DC_ALLOC_WALK(omap_scenario, NULL);
 *     }
 *
 * The walk runs the scenario with allocation 1 (and every later one)
 * failing, then allocation 2, and so on, until a run completes without an
 * injected failure.  Each run must free all it allocated, return DC_ENOMEM
 * if an allocation failed and 0 otherwise; the clean run must allocate at
 * least once.  The scenario must be deterministic.  Code that recovers from
 * a failed allocation on purpose is checked inside the scenario, which then
 * returns DC_ENOMEM itself: env->ud is the struct dc_failenv, whose
 * failures field says whether anything failed.
 */
#ifndef DC_UNIT_H
#define DC_UNIT_H

#include "core/port.h"

struct dc_unit_test {
	const char *name;
	void (*fn)(void);
	struct dc_unit_test *next;
};

void dc_unit_register(struct dc_unit_test *t);

#define DC_TEST(suite, case_)                                                   \
	static void test_##suite##__##case_(void);                              \
	static struct dc_unit_test dc_unit_##suite##__##case_ = {               \
		"test_" #suite "__" #case_, test_##suite##__##case_, NULL };    \
	__attribute__((constructor)) static void dc_unit_reg_##suite##__##case_(void) \
	{                                                                       \
		dc_unit_register(&dc_unit_##suite##__##case_);                  \
	}                                                                       \
	static void test_##suite##__##case_(void)

_Noreturn void dc_unit_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define CHECK(c)                                                                \
	do {                                                                    \
		if (!(c))                                                       \
			dc_unit_fail(__FILE__, __LINE__, "CHECK(%s)", #c);      \
	} while (0)

/* Compares as long long; prints both values in decimal and hex. */
#define CHECK_EQ(a, b)                                                          \
	do {                                                                    \
		long long dc_a_ = (long long)(a), dc_b_ = (long long)(b);       \
		if (dc_a_ != dc_b_)                                             \
			dc_unit_fail(__FILE__, __LINE__,                        \
				     "CHECK_EQ(%s, %s): %lld (%#llx) != %lld (%#llx)", \
				     #a, #b, dc_a_, (unsigned long long)dc_a_,  \
				     dc_b_, (unsigned long long)dc_b_);         \
	} while (0)

void dc_unit_check_streq(const char *file, int line, const char *ea, const char *eb,
			 const char *a, const char *b);
#define CHECK_STREQ(a, b) dc_unit_check_streq(__FILE__, __LINE__, #a, #b, (a), (b))

/* An env whose allocation number fail_at (1-based) and every later one
 * return NULL; fail_at 0 never fails.  It counts what it hands out. */
struct dc_failenv {
	struct dc_env env;          /* pass &fe.env to the code under test */
	long fail_at;
	long calls;                 /* allocation requests so far */
	long failures;              /* of them, failed on purpose */
	long live;                  /* blocks handed out and not yet freed */
	const char *fail_label;     /* label of the first failed request */
};

void dc_failenv_init(struct dc_failenv *fe, long fail_at);

typedef int dc_unit_scenario(const struct dc_env *env, void *ud);

enum {
	DC_WALK_OK,
	DC_WALK_LEAK,               /* a run ended with blocks still live */
	DC_WALK_FAIL_RC,            /* an allocation failed, rc was not DC_ENOMEM */
	DC_WALK_CLEAN_RC,           /* nothing failed, rc was not 0 */
	DC_WALK_NO_ALLOC,           /* the scenario never allocates */
};

struct dc_walk_report {
	int verdict;
	long step;                  /* fail_at of the run that decided */
	int rc;                     /* what that run returned */
	long live;
	const char *fail_label;
};

/* Runs the walk described above; stops at the first bad run. */
int dc_alloc_walk(dc_unit_scenario *fn, void *ud, struct dc_walk_report *r);

void dc_unit_check_walk(const char *file, int line, const char *name,
			dc_unit_scenario *fn, void *ud);
#define DC_ALLOC_WALK(fn, ud) dc_unit_check_walk(__FILE__, __LINE__, #fn, (fn), (ud))

/* sqrt without libm (the unit binary does not link it), for the bounds of
 * statistical checks. */
double dc_unit_sqrt(double x);

#endif
