/* hier.c — cache hierarchy description: parsing, validation, defaults.
 *
 * Notes:
 *  - A spec names levels in order: "L1=32K:8:64,L2=1M:16:64".  Sizes accept
 *    K/M/G suffixes (powers of 1024).  Each level is SIZE:ASSOC:LINE.
 *  - Simulatable geometry: line a power of two >= 16 bytes (so no access of
 *    up to 16 bytes touches three lines), size a multiple of assoc x line,
 *    size > line, assoc <= size/line.  The set count need not be a power
 *    of two (cache.h: block mod sets); Cachegrind requires one, and
 *    dc_hier_cachegrind adjusts such an LL as Cachegrind does.
 *  - Plausibility of what a host reports (dc_hier_from_host): virtual
 *    machines often describe caches that no CPU has (this project's build
 *    machines claim a 508 MiB direct-mapped L3).  A set count that is not a
 *    power of two is plausible (a 30 MiB 20-way L3 has 24,576 sets).  A
 *    host level is rejected if it is missing, not simulatable, has line
 *    size other than 32..256, associativity below 2, L1 outside
 *    8 KiB..256 KiB, any level above 256 MiB, or a level not larger than
 *    the one above.  The whole host
 *    description is then replaced by the typical hierarchy, and the reason
 *    says which level failed and why.
 *  - Cachegrind compatibility (dc_hier_cachegrind) reproduces cg-arch.c of
 *    Valgrind 3.19: LL is the unified cache of the deepest level; when its set
 *    count is not a power of two, the set count is rounded down to one and
 *    the associativity scaled up by the same factor (rounded to nearest), and
 *    the size recomputed from the new geometry.
 */
#include "core/hier.h"
#include "core/util.h"

static const uint32_t default_latency[DC_MAX_LEVELS] = { 4, 14, 40, 80 };

uint32_t dc_hier_default_latency(int level)
{
	if (level < 1 || level > DC_MAX_LEVELS)
		return DC_DEFAULT_MEM_LATENCY;
	return default_latency[level - 1];
}

static void set_level(struct dc_level_cfg *l, uint64_t size, uint32_t assoc,
		      uint32_t line, int level)
{
	l->size = size;
	l->assoc = assoc;
	l->line = line;
	l->latency = dc_hier_default_latency(level);
}

void dc_hier_typical(struct dc_hier *h)
{
	memset(h, 0, sizeof *h);
	h->nlevels = 3;
	set_level(&h->lv[0], 32 << 10, 8, 64, 1);
	set_level(&h->lv[1], 1 << 20, 16, 64, 2);
	set_level(&h->lv[2], 32 << 20, 16, 64, 3);
	h->mem_latency = DC_DEFAULT_MEM_LATENCY;
}

int dc_level_check(const struct dc_level_cfg *l, char *err, size_t errlen)
{
	uint64_t sets;

	if (l->line < 16 || !dc_is_pow2(l->line)) {
		dc_fmt(err, errlen, "line size %u is not a power of two >= 16", l->line);
		return DC_EINVAL;
	}
	if (l->assoc == 0) {
		dc_fmt(err, errlen, "associativity must be at least 1");
		return DC_EINVAL;
	}
	if (l->size <= l->line) {
		dc_fmt(err, errlen, "size %U must be larger than the line size", l->size);
		return DC_EINVAL;
	}
	if (l->assoc > l->size / l->line) {
		dc_fmt(err, errlen, "associativity %u exceeds the number of lines", l->assoc);
		return DC_EINVAL;
	}
	if (l->size % ((uint64_t)l->assoc * l->line) != 0) {
		dc_fmt(err, errlen, "size %U is not a multiple of associativity x line size",
		       l->size);
		return DC_EINVAL;
	}
	sets = l->size / ((uint64_t)l->assoc * l->line);
	if (sets > ((uint64_t)1 << 30)) {
		dc_fmt(err, errlen, "too many sets (%U)", sets);
		return DC_ERANGE;
	}
	return 0;
}

/* Parses a decimal number with an optional K/M/G suffix at *p. */
static int parse_size(const char **p, uint64_t *out, bool allow_suffix)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return DC_EINVAL;
	while (*s >= '0' && *s <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return DC_ERANGE;
		v = v * 10 + (uint64_t)(*s++ - '0');
	}
	if (allow_suffix) {
		int shift = 0;
		if (*s == 'K' || *s == 'k')
			shift = 10;
		else if (*s == 'M' || *s == 'm')
			shift = 20;
		else if (*s == 'G' || *s == 'g')
			shift = 30;
		if (shift) {
			if (v > (UINT64_MAX >> shift))
				return DC_ERANGE;
			v <<= shift;
			s++;
		}
	}
	*p = s;
	*out = v;
	return 0;
}

/* The next token of a spec, for error messages: never a control byte, so
 * the message stays one line. */
static const char *token(const char *p, char *buf, size_t len)
{
	size_t n = 0;

	while (p[n] && p[n] != ',' && (unsigned char)p[n] > 0x20 && n + 1 < len && n < 24) {
		buf[n] = p[n];
		n++;
	}
	buf[n] = 0;
	return buf;
}

/* Parses "L<n>" or "MEM" at *p followed by '='; returns the level number,
 * 0 for MEM, or -1. */
static int parse_key(const char **p)
{
	const char *s = *p;

	if ((s[0] == 'L' || s[0] == 'l') && s[1] >= '1' && s[1] <= '9' && s[2] == '=') {
		*p = s + 3;
		return s[1] - '0';
	}
	if ((s[0] == 'M' || s[0] == 'm') && (s[1] == 'E' || s[1] == 'e') &&
	    (s[2] == 'M' || s[2] == 'm') && s[3] == '=') {
		*p = s + 4;
		return 0;
	}
	return -1;
}

int dc_hier_parse_cache(struct dc_hier *h, const char *spec, char *err, size_t errlen)
{
	const char *p = spec;
	struct dc_hier tmp;
	int rc;

	memset(&tmp, 0, sizeof tmp);
	tmp.mem_latency = DC_DEFAULT_MEM_LATENCY;
	if (!*p) {
		dc_fmt(err, errlen, "empty cache specification");
		return DC_EINVAL;
	}
	for (;;) {
		uint64_t size, assoc, line;
		int key = parse_key(&p);
		struct dc_level_cfg *l;

		if (key < 1) {
			char tok[32];
			dc_fmt(err, errlen, "expected 'L%d=SIZE:ASSOC:LINE' at '%s'",
			       tmp.nlevels + 1, token(p, tok, sizeof tok));
			return DC_EINVAL;
		}
		if (key != tmp.nlevels + 1) {
			dc_fmt(err, errlen, "levels must be given in order; expected L%d, got L%d",
			       tmp.nlevels + 1, key);
			return DC_EINVAL;
		}
		if (key > DC_MAX_LEVELS) {
			dc_fmt(err, errlen, "at most %d cache levels are supported", DC_MAX_LEVELS);
			return DC_ERANGE;
		}
		if (parse_size(&p, &size, true) || *p++ != ':' ||
		    parse_size(&p, &assoc, false) || *p++ != ':' ||
		    parse_size(&p, &line, true) || (*p && *p != ',')) {
			dc_fmt(err, errlen, "L%d: expected SIZE:ASSOC:LINE such as 32K:8:64", key);
			return DC_EINVAL;
		}
		if (assoc > UINT32_MAX || line > UINT32_MAX) {
			dc_fmt(err, errlen, "L%d: value too large", key);
			return DC_ERANGE;
		}
		l = &tmp.lv[tmp.nlevels++];
		set_level(l, size, (uint32_t)assoc, (uint32_t)line, key);
		rc = dc_level_check(l, err, errlen);
		if (rc) {
			char why[160];
			dc_fmt(why, sizeof why, "%s", err);
			dc_fmt(err, errlen, "L%d: %s", key, why);
			return rc;
		}
		if (!*p)
			break;
		p++;
	}
	*h = tmp;
	return 0;
}

int dc_hier_parse_latency(struct dc_hier *h, const char *spec, char *err, size_t errlen)
{
	const char *p = spec;
	struct dc_hier tmp = *h;

	if (!*p) {
		dc_fmt(err, errlen, "empty latency specification");
		return DC_EINVAL;
	}
	for (;;) {
		uint64_t v;
		int key = parse_key(&p);

		if (key < 0) {
			char tok[32];
			dc_fmt(err, errlen, "expected 'L<n>=CYCLES' or 'MEM=CYCLES' at '%s'",
			       token(p, tok, sizeof tok));
			return DC_EINVAL;
		}
		if (key > tmp.nlevels) {
			dc_fmt(err, errlen, "latency given for L%d but the hierarchy has %d level%s",
			       key, tmp.nlevels, tmp.nlevels == 1 ? "" : "s");
			return DC_EINVAL;
		}
		if (parse_size(&p, &v, false) || (*p && *p != ',')) {
			dc_fmt(err, errlen, "expected a number of cycles after '='");
			return DC_EINVAL;
		}
		if (v > 1000000) {
			dc_fmt(err, errlen, "latency %U is implausibly large", v);
			return DC_ERANGE;
		}
		if (key == 0)
			tmp.mem_latency = (uint32_t)v;
		else
			tmp.lv[key - 1].latency = (uint32_t)v;
		if (!*p)
			break;
		p++;
	}
	*h = tmp;
	return 0;
}

static const struct dc_host_cache *find_cache(const struct dc_host_cache *c, int n,
					      int level, int kind)
{
	for (int i = 0; i < n; i++)
		if (c[i].level == level && c[i].kind == kind)
			return &c[i];
	return NULL;
}

static const struct dc_host_cache *find_data(const struct dc_host_cache *c, int n, int level)
{
	const struct dc_host_cache *d = find_cache(c, n, level, DC_HOST_DATA);
	return d ? d : find_cache(c, n, level, DC_HOST_UNIFIED);
}

static int plausible(const struct dc_host_cache *hc, const struct dc_level_cfg *above,
		     struct dc_level_cfg *out, char *why, size_t len)
{
	char err[128];

	set_level(out, hc->size, hc->assoc, hc->line, hc->level);
	if (dc_level_check(out, err, sizeof err)) {
		dc_fmt(why, len, "host L%d (%U B, %u-way, %u B lines) cannot be simulated: %s",
		       hc->level, hc->size, hc->assoc, hc->line, err);
		return 0;
	}
	if (hc->line < 32 || hc->line > 256 || hc->assoc < 2 ||
	    hc->size > ((uint64_t)256 << 20) ||
	    (hc->level == 1 && (hc->size < (8 << 10) || hc->size > (256 << 10))) ||
	    (above && hc->size <= above->size)) {
		dc_fmt(why, len, "host L%d (%U B, %u-way, %u B lines) is implausible",
		       hc->level, hc->size, hc->assoc, hc->line);
		return 0;
	}
	return 1;
}

int dc_hier_from_host(struct dc_hier *h, const struct dc_host_cache *c, int n,
		      char *why, size_t whylen)
{
	struct dc_hier tmp;
	int maxlevel = 0;

	for (int i = 0; i < n; i++)
		if (c[i].level > maxlevel)
			maxlevel = c[i].level;
	memset(&tmp, 0, sizeof tmp);
	tmp.mem_latency = DC_DEFAULT_MEM_LATENCY;
	if (maxlevel == 0) {
		dc_fmt(why, whylen, "the host describes no caches");
		goto typical;
	}
	if (maxlevel > DC_MAX_LEVELS) {
		dc_fmt(why, whylen, "the host describes %d cache levels", maxlevel);
		goto typical;
	}
	for (int lvl = 1; lvl <= maxlevel; lvl++) {
		const struct dc_host_cache *hc = find_data(c, n, lvl);
		if (!hc) {
			dc_fmt(why, whylen, "the host describes no data cache at L%d", lvl);
			goto typical;
		}
		if (!plausible(hc, lvl > 1 ? &tmp.lv[lvl - 2] : NULL, &tmp.lv[lvl - 1],
			       why, whylen))
			goto typical;
		tmp.nlevels = lvl;
	}
	*h = tmp;
	dc_fmt(why, whylen, "the host's caches (CPUID)");
	return 1;
typical:
	dc_hier_typical(h);
	{
		char reason[200];
		dc_fmt(reason, sizeof reason, "%s", why);
		dc_fmt(why, whylen, "%s; using the typical hierarchy", reason);
	}
	return 0;
}

/* cg-arch.c's maybe_tweak_LLc: scale a non-power-of-two set count down to a
 * power of two and the associativity up by the same factor. */
static void tweak_ll(struct dc_level_cfg *ll)
{
	uint64_t nsets = ll->size / ((uint64_t)ll->assoc * ll->line);
	uint64_t newsets;

	if (nsets == 0)
		return;
	if (dc_is_pow2(nsets)) {
		ll->size = (uint64_t)ll->line * ll->assoc * nsets;
		return;
	}
	newsets = (uint64_t)1 << dc_log2(nsets);
	/* (UInt)(0.5 + factor * assoc) with factor = nsets / newsets */
	ll->assoc = (uint32_t)((2 * nsets * ll->assoc + newsets) / (2 * newsets));
	ll->size = (uint64_t)ll->line * ll->assoc * newsets;
}

/* Cachegrind's rules for a level: dcprof's, and a power-of-two set count
 * (it adjusts only LL's). */
static int cg_level_check(const struct dc_level_cfg *l, char *err, size_t errlen)
{
	uint64_t sets;
	int rc = dc_level_check(l, err, errlen);

	if (rc)
		return rc;
	sets = l->size / ((uint64_t)l->assoc * l->line);
	if (!dc_is_pow2(sets)) {
		dc_fmt(err, errlen, "set count %U is not a power of two", sets);
		return DC_EINVAL;
	}
	return 0;
}

int dc_hier_cachegrind(struct dc_hier *h, struct dc_level_cfg *i1,
		       const struct dc_host_cache *c, int n, char *why, size_t whylen)
{
	const struct dc_host_cache *hi = NULL, *hd = NULL, *hl = NULL;
	int maxlevel = 0;
	char err[128];

	for (int k = 0; k < n; k++)
		if (c[k].level > maxlevel)
			maxlevel = c[k].level;
	if (maxlevel > 0) {
		hi = find_cache(c, n, 1, DC_HOST_INSN);
		hd = find_cache(c, n, 1, DC_HOST_DATA);
		hl = find_cache(c, n, maxlevel, DC_HOST_UNIFIED);
	}
	memset(h, 0, sizeof *h);
	h->nlevels = 2;
	h->mem_latency = DC_DEFAULT_MEM_LATENCY;
	if (hi && hd && hl) {
		set_level(i1, hi->size, hi->assoc, hi->line, 1);
		set_level(&h->lv[0], hd->size, hd->assoc, hd->line, 1);
		set_level(&h->lv[1], hl->size, hl->assoc, hl->line, 2);
		dc_fmt(why, whylen, "Cachegrind's choice on this host: D1 = host L1d, LL = host L%d",
		       maxlevel);
	} else {
		set_level(i1, 65536, 2, 64, 1);
		set_level(&h->lv[0], 65536, 2, 64, 1);
		set_level(&h->lv[1], 262144, 8, 64, 2);
		dc_fmt(why, whylen, "Cachegrind's defaults (the host describes no usable caches)");
	}
	tweak_ll(&h->lv[1]);
	if (cg_level_check(i1, err, sizeof err) || cg_level_check(&h->lv[0], err, sizeof err) ||
	    cg_level_check(&h->lv[1], err, sizeof err)) {
		dc_fmt(why, whylen, "Cachegrind's configuration cannot be simulated: %s", err);
		return DC_EINVAL;
	}
	return 0;
}

void dc_level_format(const struct dc_level_cfg *l, char *buf, size_t len)
{
	uint64_t s = l->size;
	const char *suf = "";

	if (s % (1 << 30) == 0) {
		s >>= 30;
		suf = "G";
	} else if (s % (1 << 20) == 0) {
		s >>= 20;
		suf = "M";
	} else if (s % (1 << 10) == 0) {
		s >>= 10;
		suf = "K";
	}
	dc_fmt(buf, len, "%U%s:%u:%u", s, suf, l->assoc, l->line);
}
