/* fmt.c — escaping one value for text, CSV and JSON; numbers with thousands separators. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/fmt.h"

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if the bytes are
 * not one (overlong forms, surrogates and values above U+10FFFF are not). */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c = s[0], min;
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, c &= 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, c &= 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, c &= 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* One rule for every format (fmt.h): the bytes of a name become escaped
 * text, then the format's own syntax wraps it.  In JSON the backslash
 * of an escape is itself escaped (\\x0a in the file is the value \x0a),
 * and '"' is \", so the value a JSON reader gets is the text form. */
enum esc { ESC_TEXT, ESC_JSON };

static void add_hex_bytes(struct sbuf *out, const unsigned char *s, size_t n, enum esc how)
{
	for (size_t i = 0; i < n; i++)
		sbuf_addf(out, how == ESC_JSON ? "\\\\x%02x" : "\\x%02x", s[i]);
}

/* Appends s escaped; returns its width in terminal columns. */
static size_t escape(struct sbuf *out, const char *str, size_t len, enum esc how)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t width = 0;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_seq(s + i, len - i, &cp);

		if (n == 0) {
			add_hex_bytes(out, s + i, 1, how);
			width += 4;
			i++;
			continue;
		}
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			add_hex_bytes(out, s + i, n, how);
			width += 4 * n;
		} else if (cp == '\\') {
			sbuf_adds(out, how == ESC_JSON ? "\\\\\\\\" : "\\\\");
			width += 2;
		} else if (cp == '"' && how == ESC_JSON) {
			sbuf_adds(out, "\\\"");
			width++;
		} else {
			sbuf_add(out, s + i, n);
			width++;
		}
		i += n;
	}
	return width;
}

size_t fmt_text(struct sbuf *out, const char *str, size_t len)
{
	return escape(out, str, len, ESC_TEXT);
}

/* A plain decimal number: optional sign, digits, optional fraction. */
static bool is_number(const char *s, size_t len)
{
	size_t i = 0, digits = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	return digits && i == len;
}

void fmt_source(struct sbuf *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_seq(s + i, len - i, &cp);

		if (n == 0 || (cp != '\t' && (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)))) {
			n = n ? n : 1;
			add_hex_bytes(out, s + i, n, ESC_TEXT);
		} else {
			sbuf_add(out, s + i, n);
		}
		i += n;
	}
}

void fmt_csv_field(struct sbuf *out, const char *s, size_t len)
{
	size_t start = out->len, n;
	bool quote = false;
	char *cell;

	escape(out, s, len, ESC_TEXT);
	n = out->len - start;
	cell = out->buf + start;
	/* A spreadsheet runs a cell starting with = + - or @ as a formula
	 * (OWASP "CSV injection"); a quote in front makes it text.  Tab and
	 * CR, which OWASP lists too, are already \x09 and \x0d. */
	if (n && strchr("=+-@", cell[0]) && !is_number(cell, n)) {
		sbuf_addc(out, '\0');
		cell = out->buf + start;
		memmove(cell + 1, cell, n);
		cell[0] = '\'';
		n++;
	}
	for (size_t i = 0; i < n && !quote; i++)
		quote = cell[i] == ',' || cell[i] == '"';
	if (!quote)
		return;
	/* RFC 4180: quote the field and double its quotes */
	{
		char *copy = xmemdup(cell, n);

		out->len = start;
		sbuf_addc(out, '"');
		for (size_t i = 0; i < n; i++) {
			if (copy[i] == '"')
				sbuf_addc(out, '"');
			sbuf_addc(out, copy[i]);
		}
		sbuf_addc(out, '"');
		free(copy);
	}
}

void fmt_json_source(struct sbuf *out, const char *str, size_t len)
{
	struct sbuf text;

	/* The text form first (fmt_source), then only what JSON needs. */
	sbuf_init(&text);
	fmt_source(&text, str, len);
	sbuf_addc(out, '"');
	for (size_t i = 0; i < text.len; i++) {
		char c = text.buf[i];
		if (c == '"' || c == '\\')
			sbuf_addc(out, '\\');
		if (c == '\t')
			sbuf_adds(out, "\\t");
		else
			sbuf_addc(out, c);
	}
	sbuf_addc(out, '"');
	sbuf_release(&text);
}

void fmt_json_str(struct sbuf *out, const char *str, size_t len)
{
	sbuf_addc(out, '"');
	escape(out, str, len, ESC_JSON);
	sbuf_addc(out, '"');
}

void fmt_thousands(struct sbuf *out, int64_t v)
{
	char digits[24];
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)u);

	if (v < 0)
		sbuf_addc(out, '-');
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			sbuf_addc(out, ',');
		sbuf_addc(out, digits[i]);
	}
}
