/* sbuf.c — a growable byte string. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/sbuf.h"

static char sbuf_empty[1];

void sbuf_init(struct sbuf *sb)
{
	sb->buf = sbuf_empty;
	sb->len = 0;
	sb->cap = 0;
}

void sbuf_release(struct sbuf *sb)
{
	if (sb->cap)
		free(sb->buf);
	sbuf_init(sb);
}

void sbuf_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->cap)
		sb->buf[0] = '\0';
}

static void grow(struct sbuf *sb, size_t extra)
{
	size_t want = sb->len + extra + 1;

	if (want <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < want)
		cap *= 2;
	sb->buf = sb->cap ? xrealloc(sb->buf, cap) : xmalloc(cap);
	if (!sb->cap)
		sb->buf[0] = '\0';
	sb->cap = cap;
}

void sbuf_add(struct sbuf *sb, const void *p, size_t n)
{
	grow(sb, n);
	memcpy(sb->buf + sb->len, p, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sbuf_addc(struct sbuf *sb, char c)
{
	grow(sb, 1);
	sb->buf[sb->len++] = c;
	sb->buf[sb->len] = '\0';
}

void sbuf_adds(struct sbuf *sb, const char *s)
{
	sbuf_add(sb, s, strlen(s));
}

void sbuf_addf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	grow(sb, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
}
