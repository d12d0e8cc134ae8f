/* main.c — runs the registered unit tests (see unit.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

static struct dc_unit_test *tests;      /* sorted by name */
static int duplicates;
static const struct dc_unit_test *current;
static jmp_buf *abandon;

/* Runs from constructors, before main. */
void dc_unit_register(struct dc_unit_test *t)
{
	struct dc_unit_test **p = &tests;
	while (*p && strcmp((*p)->name, t->name) < 0)
		p = &(*p)->next;
	if (*p && strcmp((*p)->name, t->name) == 0) {
		fprintf(stderr, "unit-tests: two tests named '%s'\n", t->name);
		duplicates++;
		return;
	}
	t->next = *p;
	*p = t;
}

void dc_unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%s:%d: %s: ", file, line, current->name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	longjmp(*abandon, 1);
}

double dc_unit_sqrt(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 200; i++)       /* Newton's method */
		r = 0.5 * (r + x / r);
	return r;
}

void dc_unit_check_streq(const char *file, int line, const char *ea, const char *eb,
			 const char *a, const char *b)
{
	if (a == b || (a && b && strcmp(a, b) == 0))
		return;
	const char *qa = a ? "\"" : "", *qb = b ? "\"" : "";
	dc_unit_fail(file, line, "CHECK_STREQ(%s, %s): %s%s%s != %s%s%s", ea, eb,
		     qa, a ? a : "NULL", qa, qb, b ? b : "NULL", qb);
}

/* Kept apart from main so that no local of main lives across setjmp. */
static int run(const struct dc_unit_test *t)
{
	jmp_buf jb;

	if (setjmp(jb))
		return 0;
	current = t;
	abandon = &jb;
	t->fn();
	return 1;
}

static int selected(const char *name, int nfilters, char **filters)
{
	for (int i = 0; i < nfilters; i++)
		if (strstr(name, filters[i]))
			return 1;
	return nfilters == 0;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0, unmatched = 0;

	for (const struct dc_unit_test *t = tests; t; t = t->next) {
		if (!selected(t->name, argc - 1, argv + 1))
			continue;
		if (run(t))
			passed++;
		else
			failed++;
	}
	for (int i = 1; i < argc; i++) {
		const struct dc_unit_test *t = tests;
		while (t && !strstr(t->name, argv[i]))
			t = t->next;
		if (!t) {
			fprintf(stderr, "unit-tests: no test matches '%s'\n", argv[i]);
			unmatched++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed || duplicates || unmatched;
}
