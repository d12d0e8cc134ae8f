/* test_allocsite.c — what an allocation's statement names
 * (src/analysis/allocsite.c): the std::vector method calls whose object
 * holds the block, the forms that stay lvalues or types, and the comments
 * that must not join or change a statement.
 */
#include <string.h>

#include "analysis/allocsite.h"
#include "unit.h"

/* The kind allocsite_parse gives text, and its output in out. */
static enum allocsite_kind parse(const char *text, char *out)
{
	return allocsite_parse(text, out, 128);
}

DC_TEST(allocsite, method_call_names_its_object)
{
	static const struct {
		const char *text, *object;
	} cases[] = {
		{ "pts.resize(n);", "pts" },
		{ "  cloud.pts.reserve(n);", "cloud.pts" },
		{ "c->pts.push_back(p);", "c->pts" },
		{ "this->cells.assign(n, Cell{1, 2.0});", "this->cells" },
		{ "edges.emplace_back(Edge{i, i + 1, 1.0f});", "edges" },
		{ "more.insert(more.end(), pts.begin(), pts.end());", "more" },
		{ "vp -> push_back (x);", "vp" },
		{ "g.v[i].push_back(x);", "g.v[]" },
		/* a loop's header joined before the call */
		{ "for (int i = 0; i < n; i++)\n\tg->edges.push_back(e);", "g->edges" },
	};
	char out[128];

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		CHECK_EQ(parse(cases[i].text, out), ALLOCSITE_OBJECT);
		CHECK_STREQ(out, cases[i].object);
	}
}

DC_TEST(allocsite, other_methods_are_not_containers)
{
	char out[128];

	/* size() allocates nothing: the statement names no block */
	CHECK_EQ(parse("use(pts.size());", out), ALLOCSITE_NONE);
	/* a call's result has no declared type to read */
	CHECK_EQ(parse("make().resize(n);", out), ALLOCSITE_NONE);
	/* an identifier that only starts like a method */
	CHECK_EQ(parse("x.resized(n);", out), ALLOCSITE_NONE);
}

DC_TEST(allocsite, types_and_lvalues_come_first_or_stay)
{
	char out[128];

	/* new T wins over a method call on the line */
	CHECK_EQ(parse("v.push_back(new Node);", out), ALLOCSITE_TYPE);
	CHECK_STREQ(out, "Node");
	CHECK_EQ(parse("s->items = calloc(n, sizeof *s->items);", out), ALLOCSITE_LVALUE);
	CHECK_STREQ(out, "s->items");
	/* `m[i] = x` on a map: an lvalue, which DWARF then says is a map's */
	CHECK_EQ(parse("for (int i = 0; i < n; i++)\n\tbyid[i] = pts[i];", out),
		 ALLOCSITE_LVALUE);
	CHECK_STREQ(out, "byid[]");
	/* a method's result assigned: the container is the allocation's */
	CHECK_EQ(parse("auto r = m.emplace(k, v);", out), ALLOCSITE_OBJECT);
	CHECK_STREQ(out, "m");
}

DC_TEST(allocsite, code_len_drops_trailing_comments)
{
	CHECK_EQ(allocsite_code_len("\tpts.resize(n);   /* SITE:resize */\n"), 15);
	CHECK_EQ(allocsite_code_len("x = 1; // set x\n"), 6);
	CHECK_EQ(allocsite_code_len("  /* only a comment */  \n"), 0);
	/* code after a comment, and comment marks inside a string */
	CHECK_EQ(allocsite_code_len("f(/* a */ 1)\n"), 12);
	CHECK_EQ(allocsite_code_len("s = \"http://x\"; /* url */"), 15);
	/* 17 + " c = " + "{{1, 1.0}," */
	CHECK_EQ(allocsite_code_len("std::vector<Cell> c = {{1, 1.0},  // first\n"), 32);
}
