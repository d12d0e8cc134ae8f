/* allocsite.c — what an allocation's source line assigns the block to
 * (see allocsite.h). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "analysis/allocsite.h"

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The keyword kw as a whole word in s, or NULL. */
static const char *word(const char *s, const char *kw)
{
	size_t n = strlen(kw);

	for (const char *p = strstr(s, kw); p; p = strstr(p + 1, kw))
		if ((p == s || !ident_char(p[-1])) && !ident_char(p[n]))
			return p;
	return NULL;
}

static const char *skip_ws(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* Copies [a, b) into out with runs of blanks as one space, trimmed, and
 * a namespace or class prefix dropped (`ns::T` -> `T`: DWARF names a type
 * by its own name). */
static bool put_type(const char *a, const char *b, char *out, size_t len)
{
	size_t n = 0;
	const char *colon = NULL;

	for (const char *p = a; p + 1 < b; p++)
		if (p[0] == ':' && p[1] == ':')
			colon = p + 2;
	if (colon)
		a = colon;
	while (a < b && isspace((unsigned char)*a))
		a++;
	while (b > a && isspace((unsigned char)b[-1]))
		b--;
	for (const char *p = a; p < b && n + 1 < len; p++) {
		if (isspace((unsigned char)*p)) {
			if (n && out[n - 1] != ' ')
				out[n++] = ' ';
		} else {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return n > 0 && (isalpha((unsigned char)out[0]) || out[0] == '_');
}

/* new [(placement)] T [...]: the type T. */
static bool parse_new(const char *s, char *out, size_t len)
{
	const char *p = word(s, "new"), *a;

	if (!p)
		return false;
	p = skip_ws(p + 3);
	if (*p == '(') {   /* placement or nothrow arguments */
		int depth = 0;
		do {
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
			p++;
		} while (*p && depth > 0);
		p = skip_ws(p);
	}
	a = p;
	while (*p && (ident_char(*p) || *p == ':' || *p == ' '))
		p++;
	if (*p == '<')     /* a template's DWARF name is not what the source says */
		return false;
	return put_type(a, p, out, len);
}

/* (T *) or static_cast<T *>: the type T of a cast to a pointer. */
static bool parse_cast(const char *s, char *out, size_t len)
{
	const char *p = strstr(s, "_cast<");

	if (p) {
		const char *a = p + 6, *star = strchr(a, '*');
		return star && put_type(a, star, out, len);
	}
	for (p = strchr(s, '('); p; p = strchr(p + 1, '(')) {
		const char *a = p + 1, *q = a;
		while (*q && (ident_char(*q) || *q == ' ' || *q == ':'))
			q++;
		if (*q != '*' || q == a)
			continue;
		{
			const char *r = skip_ws(q + 1);
			/* one pointer level, then the cast's operand: a call */
			if (*r != ')')
				continue;
			r = skip_ws(r + 1);
			if (!ident_char(*r))
				continue;
			while (ident_char(*r))
				r++;
			if (*skip_ws(r) != '(')
				continue;
		}
		if (put_type(a, q, out, len) && strcmp(out, "void") && strcmp(out, "char"))
			return true;
	}
	return false;
}

/* Is c a character of an lvalue of identifiers, ->, . and [...]? */
static bool lvalue_char(char c)
{
	return ident_char(c) || c == '.' || c == '>' || c == '-' || c == ']' || c == '[' ||
	       c == ' ';
}

/* The lvalue ending just before end (at s at the earliest), spaces and
 * subscripts' contents removed. */
static bool put_lvalue(const char *s, const char *end, char *out, size_t len)
{
	const char *a = end;
	size_t n = 0;
	int depth = 0;

	while (a > s && (lvalue_char(a[-1]) || depth > 0)) {
		if (a[-1] == ']')
			depth++;
		else if (a[-1] == '[')
			depth--;
		else if (depth == 0 && a[-1] == '>' && (a - 1 == s || a[-2] != '-'))
			break;
		else if (depth == 0 && a[-1] == '-' && a[0] != '>')
			break;
		a--;
	}
	while (a < end && isspace((unsigned char)*a))
		a++;
	/* a declaration (`node *p =`, `int n =`) or a dereference (`*p =`) */
	{
		const char *b = a;
		while (b > s && isspace((unsigned char)b[-1]))
			b--;
		if (b > s && (b[-1] == '*' || b[-1] == '&' || ident_char(b[-1])))
			return false;
		for (const char *p = a; p < end; p++)
			if (*p == ' ' && ident_char(p[-1]) && p + 1 < end && ident_char(*skip_ws(p)))
				return false;
	}
	depth = 0;
	for (const char *p = a; p < end && n + 1 < len; p++) {
		if (*p == '[') {
			if (!depth)
				out[n++] = '[';
			depth++;
		} else if (*p == ']') {
			depth--;
			if (!depth)
				out[n++] = ']';
		} else if (!depth && !isspace((unsigned char)*p)) {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
	return n > 0 && (isalpha((unsigned char)out[0]) || out[0] == '_');
}

/* X = ... or posix_memalign(&X, ...): the lvalue X. */
static bool parse_assign(const char *s, char *out, size_t len)
{
	const char *p = strstr(s, "posix_memalign");

	if (p) {
		const char *a = skip_ws(p + 14), *e;
		if (*a != '(')
			return false;
		a = skip_ws(a + 1);
		if (*a == '(') {   /* a cast: (void **)&X */
			a = strchr(a, ')');
			a = a ? skip_ws(a + 1) : "";
		}
		if (*a != '&')
			return false;
		a++;
		e = strchr(a, ',');
		while (e && e > a && isspace((unsigned char)e[-1]))
			e--;
		return e && put_lvalue(a, e, out, len);
	}
	/* the first assignment to an lvalue: a loop's header joined before
	 * the statement (`for (int i = 0; ...)`) declares its counter */
	for (p = strchr(s, '='); p; p = strchr(p + 1, '=')) {
		if (p[1] == '=' || (p > s && strchr("=!<>+-*/%&|^", p[-1])))
			continue;
		if (put_lvalue(s, p, out, len))
			return true;
	}
	return false;
}

/* The standard containers' methods that allocate (and, for the node
 * containers, those that insert: their error names the container). */
static const char *const grow_methods[] = {
	"resize", "reserve", "push_back", "emplace_back", "insert", "emplace", "assign",
	"append", "push_front", "emplace_front", "emplace_hint", "try_emplace",
	"insert_or_assign", "shrink_to_fit",
};

/* X.method(...) or X->method(...): the object X (through `->`, X is a
 * pointer to it). */
static bool parse_method(const char *s, char *out, size_t len)
{
	for (const char *p = s; *p; p++) {
		const char *m, *e;
		size_t n;
		if (*p == '.')
			m = skip_ws(p + 1);
		else if (p[0] == '-' && p[1] == '>')
			m = skip_ws(p + 2);
		else
			continue;
		for (e = m; ident_char(*e); e++)
			;
		n = (size_t)(e - m);
		if (*skip_ws(e) != '(')
			continue;
		for (size_t i = 0; i < sizeof grow_methods / sizeof *grow_methods; i++)
			if (strlen(grow_methods[i]) == n && !strncmp(m, grow_methods[i], n))
				return put_lvalue(s, p, out, len);
	}
	return false;
}

size_t allocsite_code_len(const char *line)
{
	size_t n = 0, end = 0;
	char quote = 0;

	for (const char *p = line; *p && *p != '\n'; p++, n++) {
		if (quote) {
			if (*p == '\\' && p[1])
				p++, n++;
			else if (*p == quote)
				quote = 0;
		} else if (*p == '"' || *p == '\'') {
			quote = *p;
		} else if (p[0] == '/' && p[1] == '/') {
			break;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *c = strstr(p + 2, "*/");
			if (!c)
				break;
			n += (size_t)(c + 1 - p);
			p = c + 1;
			continue;
		}
		if (!isspace((unsigned char)*p))
			end = n + 1;
	}
	return end;
}

enum allocsite_kind allocsite_parse(const char *text, char *out, size_t len)
{
	if (!len)
		return ALLOCSITE_NONE;
	out[0] = '\0';
	if (parse_new(text, out, len) || parse_cast(text, out, len))
		return ALLOCSITE_TYPE;
	if (parse_method(text, out, len))
		return ALLOCSITE_OBJECT;
	if (parse_assign(text, out, len))
		return ALLOCSITE_LVALUE;
	out[0] = '\0';
	return ALLOCSITE_NONE;
}
