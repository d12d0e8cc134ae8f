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

		if (s[i] != '<' || ends_with(s, i, "operator") || (i > 0 && s[i - 1] == ' ') ||
		    (i > 0 && s[i - 1] == '<') || (i + 1 < len && (s[i + 1] == '<' || s[i + 1] == '=')) ||
		    (end = closing(s, len, i)) == len) {
			sbuf_addc(out, s[i++]);
			continue;
		}
		sbuf_adds(out, "<" ELLIPSIS ">");
		i = end + 1;
	}
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '>';
}

/* The index of the ')' that closes the '(' at i, or len if none. */
static size_t closing_paren(const char *s, size_t len, size_t i)
{
	int depth = 0;

	for (; i < len; i++) {
		if (s[i] == '(')
			depth++;
		else if (s[i] == ')' && --depth == 0)
			return i;
	}
	return len;
}

/* A parameter list -- "(" right after a name, f(int, double*) -- becomes
 * "(…)"; a "(file.c:12)" after a space, or "(anonymous namespace)", stays. */
static void drop_params(struct sbuf *sb)
{
	struct sbuf out;
	size_t i = 0;

	sbuf_init(&out);
	while (i < sb->len) {
		size_t end;

		if (sb->buf[i] != '(' || i == 0 || !ident_char(sb->buf[i - 1]) ||
		    ends_with(sb->buf, i, "operator") ||
		    (end = closing_paren(sb->buf, sb->len, i)) == sb->len || end == i + 1) {
			sbuf_addc(&out, sb->buf[i++]);
			continue;
		}
		sbuf_adds(&out, "(" ELLIPSIS ")");
		i = end + 1;
	}
	sbuf_reset(sb);
	sbuf_add(sb, out.buf, out.len);
	sbuf_release(&out);
}

/* An allocation path "f (a.c:3) < g < main" keeps its first frames: the
 * allocating code tells buckets apart, the outer callers less. */
static void drop_outer_frames(struct sbuf *sb)
{
#define FRAME_SEP " < "
	size_t keep = 0;

	for (size_t i = 0; i + 3 <= sb->len; i++) {
		if (memcmp(sb->buf + i, FRAME_SEP, 3))
			continue;
		if (i + strlen(FRAME_SEP ELLIPSIS) > SHORTEN_MAX)
			break;
		keep = i;
	}
	if (!keep)
		return;
	sb->len = keep;
	sbuf_adds(sb, FRAME_SEP ELLIPSIS);
#undef FRAME_SEP
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
		/* The demangler's " [clone .part.0]" goes whole (an OpenMP
		 * region's "[clone ._omp_fn.0]" names a function and stays). */
		if (!skip && sb->len - r > 9 && !memcmp(sb->buf + r, " [clone .", 9) &&
		    memcmp(sb->buf + r + 9, "_omp_fn", 7)) {
			const char *end = memchr(sb->buf + r, ']', sb->len - r);
			if (end)
				skip = (size_t)(end - (sb->buf + r)) + 1;
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
		drop_params(&s);
	if (s.len > SHORTEN_MAX)
		drop_clones(&s);
	if (s.len > SHORTEN_MAX)
		drop_outer_frames(&s);
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
