/* err.c — one-line error messages and allocation that cannot fail. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fmt.h"
#include "base/sbuf.h"

static const char *prefix = "dcprof";

void err_set_prefix(const char *s)
{
	prefix = s;
}

static void vmessage(const char *pfx, const char *fmt, va_list ap)
{
	char msg[4096];
	struct sbuf sb;

	vsnprintf(msg, sizeof msg, fmt, ap);
	sbuf_init(&sb);
	sbuf_adds(&sb, pfx);
	sbuf_adds(&sb, ": ");
	fmt_text(&sb, msg, strlen(msg));
	sbuf_addc(&sb, '\n');
	fflush(stdout);
	fwrite(sb.buf, 1, sb.len, stderr);
	sbuf_release(&sb);
}

void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(prefix, fmt, ap);
	va_end(ap);
}

void err_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage("dcprof", fmt, ap);
	va_end(ap);
}

static void *oom(void)
{
	/* No allocation from here on: print and leave. */
	fputs("dcprof: out of memory\n", stderr);
	exit(DC_EXIT_ERROR);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	return p ? p : oom();
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	return q ? q : oom();
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	return p ? p : oom();
}

char *xmemdup(const void *p, size_t n)
{
	char *s = xmalloc(n + 1);

	/* SQLite gives NULL for an empty text or blob. */
	if (n)
		memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

int err_flush_output(void)
{
	if (!fflush(stdout))
		return 0;
	err_msg("cannot write the report: %s", strerror(errno));
	return DC_EXIT_ERROR;
}
