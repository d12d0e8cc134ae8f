/* skid.c — emulated skid of IP-only samples (see skid.h Notes). */
#include "core/skid.h"
#include "core/util.h"

/* Up to three decimals of a number at most DC_SKID_MAX, as thousandths. */
static const char *parse_milli(const char *p, uint32_t *out)
{
	uint64_t v = 0, frac = 0;
	int digits = 0, decimals = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++)
		if ((v = v * 10 + (uint64_t)(*p - '0')) > DC_SKID_MAX)
			return NULL;
	if (*p == '.') {
		p++;
		for (; *p >= '0' && *p <= '9'; p++, decimals++) {
			if (decimals == 3)
				return NULL;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
		if (!decimals)
			return NULL;
	}
	if (!digits)
		return NULL;
	for (int i = decimals; i < 3; i++)
		frac *= 10;
	v = v * 1000 + frac;
	if (v > (uint64_t)DC_SKID_MAX * 1000)
		return NULL;
	*out = (uint32_t)v;
	return p;
}

int dc_skid_parse(const char *spec, uint32_t *mean_milli, uint32_t *sd_milli)
{
	const char *p = parse_milli(spec, mean_milli);

	if (!p || *p != ':')
		return DC_EINVAL;
	p = parse_milli(p + 1, sd_milli);
	return p && !*p ? 0 : DC_EINVAL;
}

void dc_skid_fmt_milli(char *buf, size_t len, uint32_t milli)
{
	uint32_t frac = milli % 1000;
	size_t n = dc_fmt(buf, len, "%u", milli / 1000);

	if (!frac || n + 5 > len)
		return;
	buf[n++] = '.';
	for (uint32_t d = 100; frac; d /= 10) {
		buf[n++] = (char)('0' + frac / d);
		frac %= d;
	}
	buf[n] = '\0';
}

int dc_skid_init(struct dc_skid *s, const struct dc_env *env, uint32_t mean_milli,
		 uint32_t sd_milli, uint64_t seed, uint32_t cap)
{
	memset(s, 0, sizeof *s);
	s->env = env;
	s->mean_milli = mean_milli;
	s->sd_milli = sd_milli;
	s->rng = seed;
	s->cap = cap ? cap : 1;
	s->next = UINT64_MAX;
	s->q = dc_alloc(env, (size_t)s->cap * sizeof *s->q, "skid.queue");
	return s->q ? 0 : DC_ENOMEM;
}

void dc_skid_release(struct dc_skid *s)
{
	dc_free(s->env, s->q);
	s->q = NULL;
	s->n = 0;
}

double dc_skid_sqrt(double x)
{
#if defined(__x86_64__)
	double r;
	__asm__("sqrtsd %1, %0" : "=x"(r) : "x"(x));
	return r;
#else
	/* Newton's iteration from a power-of-two guess */
	double r = x > 1 ? x : 1;
	if (x <= 0)
		return 0;
	for (int i = 0; i < 64; i++)
		r = 0.5 * (r + x / r);
	return r;
#endif
}

double dc_skid_ln(double x)
{
	static const double ln2 = 0.69314718055994530942;
	union { double d; uint64_t u; } b = { x };
	int e = (int)((b.u >> 52) & 0x7ff) - 1023;
	double m, t, t2, sum = 0, term;

	/* x = m * 2^e with m in [1, 2); then in [sqrt(1/2), sqrt(2)) so that
	 * t = (m - 1) / (m + 1) stays within 0.172 and the series
	 * ln m = 2 (t + t^3/3 + t^5/5 + ...) converges in a few terms. */
	b.u = (b.u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	m = b.d;
	if (m > 1.41421356237309504880) {
		m *= 0.5;
		e++;
	}
	t = (m - 1) / (m + 1);
	t2 = t * t;
	term = t;
	for (int k = 1; k < 40; k += 2) {
		sum += term / k;
		term *= t2;
	}
	return 2 * sum + e * ln2;
}

/* A uniform double in (-1, 1) from 53 random bits. */
static double uniform_pm1(uint64_t *rng)
{
	return (double)(dc_rand64(rng) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

double dc_skid_normal(uint64_t *rng)
{
	double u, v, q;

	do {
		u = uniform_pm1(rng);
		v = uniform_pm1(rng);
		q = u * u + v * v;
	} while (q >= 1 || q == 0);
	return u * dc_skid_sqrt(-2 * dc_skid_ln(q) / q);
}

uint64_t dc_skid_draw(struct dc_skid *s)
{
	double k = s->mean_milli / 1000.0;

	if (s->sd_milli)
		k += s->sd_milli / 1000.0 * dc_skid_normal(&s->rng);
	k += 0.5;
	return k < 1 ? 0 : (uint64_t)k;
}

static void update_next(struct dc_skid *s)
{
	s->next = UINT64_MAX;
	for (uint32_t i = 0; i < s->n; i++)
		if (!s->q[i].parked && s->q[i].at < s->next)
			s->next = s->q[i].at;
}

bool dc_skid_push(struct dc_skid *s, uint64_t at)
{
	if (s->n == s->cap) {
		s->dropped++;
		return false;
	}
	s->q[s->n].at = at;
	s->q[s->n].tid = s->tid;
	s->q[s->n].parked = false;
	s->n++;
	if (at < s->next)
		s->next = at;
	return true;
}

void dc_skid_due(struct dc_skid *s, uint64_t start, uint64_t end,
		 void (*land)(void *ud, uint64_t index, uint32_t tid), void *ud)
{
	uint32_t j = 0;

	for (uint32_t i = 0; i < s->n; i++) {
		struct dc_skid_pending *p = &s->q[i];
		if (!p->parked && p->at < end) {
			/* every stretch is checked, so at >= start; the clamp keeps a
			 * count the engine did not see (a stretch cut short) in range */
			land(ud, p->at > start ? p->at - start : 0, p->tid);
			continue;
		}
		s->q[j++] = *p;
	}
	s->n = j;
	update_next(s);
}

void dc_skid_switch(struct dc_skid *s, uint32_t tid, uint64_t now)
{
	if (tid == s->tid)
		return;
	for (uint32_t i = 0; i < s->n; i++) {
		struct dc_skid_pending *p = &s->q[i];
		if (!p->parked && p->tid == s->tid) {
			p->at = p->at > now ? p->at - now : 0;
			p->parked = true;
		} else if (p->parked && p->tid == tid) {
			p->at += now;
			p->parked = false;
		}
	}
	s->tid = tid;
	update_next(s);
}

void dc_skid_clear(struct dc_skid *s)
{
	s->n = 0;
	s->dropped = 0;
	s->next = UINT64_MAX;
}
