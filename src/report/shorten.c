/* shorten.c — long names made readable in a text table (see shorten.h). */
#include <stdbool.h>
#include <string.h>

#include "report/shorten.h"

#define ELLIPSIS "\xe2\x80\xa6"    /* U+2026, one column */

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t n = strlen(tail);
	return len >= n && !memcmp(s + len - n, tail, n);
}

/* The index of the '>' that closes the '<' at i, or len if none. */
static size_t closing(const char *s, size_t len, size_t i)
{
	int depth = 0;

	for (; i < len; i++) {
		if (s[i] == '<')
			depth++;
		else if (s[i] == '>' && --depth == 0)
			return i;
	}
	return len;
}

static void drop_templates(struct sbuf *out, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t end;

		if (s[i] != '<' || ends_with(s, i, "operator") ||
		    (i > 0 && s[i - 1] == '<') || (i + 1 < len && (s[i + 1] == '<' || s[i + 1] == '=')) ||
		    (end = closing(s, len, i)) == len) {
			sbuf_addc(out, s[i++]);
			continue;
		}
		sbuf_adds(out, "<" ELLIPSIS ">");
		i = end + 1;
	}
}

/* Removes ".constprop.N", ".isra.N", ".part.N" and ".cold" wherever they
 * end a name part (they also appear inside a bucket's allocation path). */
static void drop_clones(struct sbuf *sb)
{
	static const char *const marks[] = { ".constprop.", ".isra.", ".part.", ".cold" };
	size_t w = 0;

	for (size_t r = 0; r < sb->len;) {
		size_t skip = 0;

		for (size_t k = 0; k < sizeof marks / sizeof *marks && !skip; k++) {
			size_t n = strlen(marks[k]);
			if (sb->len - r >= n && !memcmp(sb->buf + r, marks[k], n)) {
				skip = n;
				while (r + skip < sb->len && sb->buf[r + skip] >= '0' &&
				       sb->buf[r + skip] <= '9')
					skip++;
			}
		}
		if (skip) {
			r += skip;
			continue;
		}
		sb->buf[w++] = sb->buf[r++];
	}
	sb->len = w;
	sb->buf[w] = '\0';
}

static bool continuation(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

void shorten_name(struct sbuf *out, const char *name, size_t len)
{
	struct sbuf s;
	size_t head, tail;

	if (len <= SHORTEN_MAX) {
		sbuf_add(out, name, len);
		return;
	}
	sbuf_init(&s);
	drop_templates(&s, name, len);
	if (s.len > SHORTEN_MAX)
		drop_clones(&s);
	if (s.len <= SHORTEN_MAX) {
		sbuf_add(out, s.buf, s.len);
		sbuf_release(&s);
		return;
	}
	head = SHORTEN_MAX / 2 - 2;
	tail = s.len - (SHORTEN_MAX - head - 1);
	while (head > 0 && continuation((unsigned char)s.buf[head]))
		head--;
	while (tail < s.len && continuation((unsigned char)s.buf[tail]))
		tail++;
	sbuf_add(out, s.buf, head);
	sbuf_adds(out, ELLIPSIS);
	sbuf_add(out, s.buf + tail, s.len - tail);
	sbuf_release(&s);
}
