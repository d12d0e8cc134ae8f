/* fmt.c — escaping one value for text, CSV and JSON; numbers with thousands separators. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

static void add_hex_bytes(struct sbuf *out, const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sbuf_addf(out, "\\x%02x", s[i]);
}

size_t fmt_text(struct sbuf *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t width = 0;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_seq(s + i, len - i, &cp);

		if (n == 0) {
			add_hex_bytes(out, s + i, 1);
			width += 4;
			i++;
			continue;
		}
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			add_hex_bytes(out, s + i, n);
			width += 4 * n;
		} else if (cp == '\\') {
			sbuf_add(out, "\\\\", 2);
			width += 2;
		} else {
			sbuf_add(out, s + i, n);
			width++;
		}
		i += n;
	}
	return width;
}

void fmt_source(struct sbuf *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_seq(s + i, len - i, &cp);

		if (n == 0 || (cp != '\t' && (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)))) {
			n = n ? n : 1;
			add_hex_bytes(out, s + i, n);
		} else {
			sbuf_add(out, s + i, n);
		}
		i += n;
	}
}

void fmt_csv_field(struct sbuf *out, const char *s, size_t len)
{
	bool quote = false;

	for (size_t i = 0; i < len && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!quote) {
		sbuf_add(out, s, len);
		return;
	}
	sbuf_addc(out, '"');
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			sbuf_addc(out, '"');
		sbuf_addc(out, s[i]);
	}
	sbuf_addc(out, '"');
}

void fmt_json_str(struct sbuf *out, const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;

	sbuf_addc(out, '"');
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_seq(s + i, len - i, &cp);

		if (n == 0) {
			sbuf_adds(out, "\\ufffd");
			i++;
			continue;
		}
		switch (cp) {
		case '"': sbuf_adds(out, "\\\""); break;
		case '\\': sbuf_adds(out, "\\\\"); break;
		case '\n': sbuf_adds(out, "\\n"); break;
		case '\r': sbuf_adds(out, "\\r"); break;
		case '\t': sbuf_adds(out, "\\t"); break;
		default:
			if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
				sbuf_addf(out, "\\u%04x", (unsigned)cp);
			else
				sbuf_add(out, s + i, n);
		}
		i += n;
	}
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
