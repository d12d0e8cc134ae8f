/* util.c — small freestanding helpers: formatting, strings, errors, CPU features. */
#include <stdarg.h>
#include "core/util.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

const char *dc_strerror(int err)
{
	switch (err) {
	case DC_OK: return "success";
	case DC_ENOMEM: return "out of memory";
	case DC_EINVAL: return "invalid input";
	case DC_EIO: return "write failed";
	case DC_ERANGE: return "value out of range";
	default: return "unknown error";
	}
}

size_t dc_strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

void dc_strlcpy(char *dst, const char *src, size_t len)
{
	size_t i = 0;
	if (!len)
		return;
	for (; i + 1 < len && src[i]; i++)
		dst[i] = src[i];
	dst[i] = 0;
}

struct out {
	char *buf;
	size_t len, pos;
};

static void put(struct out *o, char c)
{
	if (o->pos + 1 < o->len)
		o->buf[o->pos] = c;
	o->pos++;
}

static void put_u64(struct out *o, uint64_t v, unsigned base)
{
	char tmp[24];
	int n = 0;
	do {
		unsigned d = (unsigned)(v % base);
		tmp[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	while (n)
		put(o, tmp[--n]);
}

size_t dc_fmt(char *buf, size_t len, const char *fmt, ...)
{
	struct out o = { buf, len, 0 };
	va_list ap;

	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			put(&o, *p);
			continue;
		}
		switch (*++p) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			while (*s)
				put(&o, *s++);
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 'd': {
			int v = va_arg(ap, int);
			uint64_t u = (uint64_t)(v < 0 ? -(int64_t)v : v);
			if (v < 0)
				put(&o, '-');
			put_u64(&o, u, 10);
			break;
		}
		case 'u':
			put_u64(&o, va_arg(ap, unsigned), 10);
			break;
		case 'U':
			put_u64(&o, va_arg(ap, uint64_t), 10);
			break;
		case 'X':
			put_u64(&o, va_arg(ap, uint64_t), 16);
			break;
		case '%':
			put(&o, '%');
			break;
		default:
			put(&o, '%');
			if (*p)
				put(&o, *p);
			else
				p--;
		}
	}
	va_end(ap);
	if (len)
		buf[o.pos < len ? o.pos : len - 1] = 0;
	return o.pos;
}

bool dc_cpu_popcnt(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d;
	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_POPCNT);
#else
	return false;
#endif
}

bool dc_cpu_avx2(void)
{
#if defined(__x86_64__)
	unsigned a, b, c, d, lo, hi;

	/* the CPU has AVX and XSAVE enabled by the OS (CPUID 1), the OS saves
	 * the YMM state (XCR0 bits 1 and 2), and the CPU has AVX2 (CPUID 7) */
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) || !(c & bit_OSXSAVE))
		return false;
	__asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	(void)hi;
	return (lo & 6) == 6 && __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX2);
#else
	return false;
#endif
}
