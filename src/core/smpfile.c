/* smpfile.c — parses the replay sample file (smpfile.h has the format). */
#include "core/smpfile.h"
#include "core/util.h"

const char *const dc_smp_kind_name[3] = { "pebs", "ibs", "spe" };

/* The core has no memcmp (tests/check-core-symbols.sh). */
static bool eq(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static bool same(const char *s, size_t n, const char *lit)
{
	size_t k = dc_strlen(lit);
	return n == k && eq(s, lit, n);
}

static bool event_ok(const char *s, size_t n)
{
	if (same(s, n, "Dr") || same(s, n, "Dw") || same(s, n, "Da") || same(s, n, "DLm"))
		return true;
	return n == 3 && s[0] == 'D' && s[1] >= '1' && s[1] <= '4' && s[2] == 'm';
}

int dc_smpfile_kind(const char *line, size_t len, char event[4])
{
	static const char magic[] = "dcprof-samples ";
	size_t m = sizeof magic - 1, k = m;

	if (len < m || !eq(line, magic, m))
		return -1;
	while (k < len && line[k] != ' ')
		k++;
	memcpy(event, "Da", 3);
	if (k < len) {
		if (!event_ok(line + k + 1, len - k - 1))
			return -1;
		memcpy(event, line + k + 1, len - k - 1);
		event[len - k - 1] = 0;
	}
	for (int i = 0; i < 3; i++)
		if (same(line + m, k - m, dc_smp_kind_name[i]))
			return i;
	return -1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Decimal (or 0x hex when hex) number filling all of s[0..n). */
static bool num(const char *s, size_t n, bool hex, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	if (hex) {
		if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
			return false;
		i = 2;
	}
	if (i == n || n - i > (hex ? 16 : 20))
		return false;
	for (; i < n; i++) {
		int d = hex ? hexval(s[i]) : (s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : -1);
		if (d < 0)
			return false;
		if (!hex && v > (UINT64_MAX - (uint64_t)d) / 10)
			return false;
		v = hex ? v << 4 | (uint64_t)d : v * 10 + (uint64_t)d;
	}
	*out = v;
	return true;
}

bool dc_smp_unescape(const char *s, size_t n, char *out, size_t outlen)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '%') {
			int hi = i + 2 < n ? hexval(s[i + 1]) : -1;
			int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return false;
			c = (char)(hi << 4 | lo);
			i += 2;
		}
		if (k + 1 >= outlen)
			return false;
		out[k++] = c;
	}
	if (!outlen)
		return false;
	out[k] = 0;
	return true;
}

/* A name of n bytes: not empty, escapes well formed. */
static bool name_ok(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '%') {
			if (i + 2 >= n)
				return false;
			if (hexval(s[i + 1]) < 0 || hexval(s[i + 2]) < 0 ||
			    (s[i + 1] == '0' && s[i + 2] == '0'))
				return false;
			i += 2;
		}
	return true;
}

/* "PREFIX+0xOFF": the part before the last '+' and the offset. */
static bool split_off(const char *s, size_t n, size_t *pre, uint64_t *off)
{
	size_t i = n;

	while (i > 0 && s[i - 1] != '+')
		i--;
	if (!i)
		return false;
	*pre = i - 1;
	return num(s + i, n - i, true, off);
}

static bool parse_addr(const char *s, size_t n, struct dc_smpline *o)
{
	size_t pre;

	if (same(s, n, "-")) {
		o->where = DC_SMP_NONE;
		return true;
	}
	if (n > 2 && s[0] == '0') {
		o->where = DC_SMP_ABS;
		return num(s, n, true, &o->addr);
	}
	if (n > 5 && eq(s, "heap:", 5)) {
		o->where = DC_SMP_HEAP;
		return split_off(s + 5, n - 5, &pre, &o->addr) &&
		       num(s + 5, pre, false, &o->seq) && o->seq > 0;
	}
	if (n > 7 && eq(s, "global:", 7)) {
		o->where = DC_SMP_GLOBAL;
		if (!split_off(s + 7, n - 7, &pre, &o->addr) || !name_ok(s + 7, pre))
			return false;
		o->name = s + 7;
		o->name_len = pre;
		return true;
	}
	if (n > 7 && eq(s, "stack:+", 7)) {
		o->where = DC_SMP_STACK;
		return num(s + 7, n - 7, true, &o->addr);
	}
	return false;
}

static bool parse_ip(const char *s, size_t n, struct dc_smpline *o)
{
	size_t pre;

	o->ip_obj = NULL;
	o->ip_obj_len = 0;
	if (num(s, n, true, &o->ip))
		return true;
	if (!split_off(s, n, &pre, &o->ip) || !name_ok(s, pre))
		return false;
	o->ip_obj = s;
	o->ip_obj_len = pre;
	return true;
}

static bool parse_source(int kind, const char *s, size_t n, struct dc_smpline *o)
{
	if (same(s, n, "MEM")) {
		o->level = DC_SMP_MEM;
		return true;
	}
	if (n != 2 || s[0] != 'L' || s[1] < '1' || s[1] > (kind == DC_SMP_PEBS ? '4' : '3'))
		return false;
	o->level = (uint8_t)(s[1] - '0');
	return true;
}

static void fail(char *err, size_t errlen, const char *what, const char *f, size_t n)
{
	char field[48];
	size_t k = n < sizeof field - 1 ? n : sizeof field - 1;

	memcpy(field, f, k);
	field[k] = 0;
	dc_fmt(err, errlen, "invalid %s '%s'", what, field);
}

int dc_smpline_parse(int kind, const char *line, size_t len, struct dc_smpline *out,
		     char *err, size_t errlen)
{
	static const char *const names[7] = { "address", "IP", "weight", "op", "source",
					       "thread", "time" };
	const char *f[8];
	size_t fl[8], nf = 0, i = 0;
	uint64_t v;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i == len || line[i] == '#')
		return 0;
	while (i < len) {
		size_t s = i;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		if (nf == 8)
			break;
		f[nf] = line + s;
		fl[nf++] = i - s;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
	}
	if (nf != 7) {
		dc_fmt(err, errlen, "%s fields where 7 are expected (ADDRESS IP WEIGHT OP SOURCE"
		       " THREAD TIME)", nf > 7 ? "more" : "fewer");
		return -1;
	}
	memset(out, 0, sizeof *out);
	if (!parse_addr(f[0], fl[0], out)) {
		fail(err, errlen, names[0], f[0], fl[0]);
		return -1;
	}
	if (!parse_ip(f[1], fl[1], out)) {
		fail(err, errlen, names[1], f[1], fl[1]);
		return -1;
	}
	if (!num(f[2], fl[2], false, &out->weight) || !out->weight) {
		fail(err, errlen, names[2], f[2], fl[2]);
		return -1;
	}
	if (!same(f[3], fl[3], "r") && !same(f[3], fl[3], "w")) {
		fail(err, errlen, names[3], f[3], fl[3]);
		return -1;
	}
	out->is_write = f[3][0] == 'w';
	if (!parse_source(kind, f[4], fl[4], out)) {
		fail(err, errlen, names[4], f[4], fl[4]);
		return -1;
	}
	if (!num(f[5], fl[5], false, &v) || !v || v > UINT32_MAX) {
		fail(err, errlen, names[5], f[5], fl[5]);
		return -1;
	}
	out->thread = (uint32_t)v;
	if (!num(f[6], fl[6], false, &out->time)) {
		fail(err, errlen, names[6], f[6], fl[6]);
		return -1;
	}
	return 1;
}
