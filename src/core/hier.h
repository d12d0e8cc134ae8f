/* hier.h — cache hierarchy description: parsing, validation, defaults.
 *
 * A hierarchy is 1 to 4 data-cache levels plus a memory latency.  The same
 * parser validates --cache/--latency in the dcprof front end (so errors come
 * before Valgrind starts) and configures the engine.
 */
#ifndef DC_HIER_H
#define DC_HIER_H

#include "core/port.h"

#define DC_MAX_LEVELS 4

struct dc_level_cfg {
	uint64_t size;      /* bytes */
	uint32_t assoc;     /* ways */
	uint32_t line;      /* bytes, power of two */
	uint32_t latency;   /* cycles for a hit at this level */
};

struct dc_hier {
	int nlevels;
	struct dc_level_cfg lv[DC_MAX_LEVELS];
	uint32_t mem_latency;   /* cycles for an access served by memory */
};

/* One cache as a host (CPUID/sysfs) describes it. */
struct dc_host_cache {
	int level;          /* 1.. */
	int kind;           /* DC_HOST_DATA, DC_HOST_INSN or DC_HOST_UNIFIED */
	uint64_t size;
	uint32_t assoc;
	uint32_t line;
};
enum { DC_HOST_DATA = 1, DC_HOST_INSN = 2, DC_HOST_UNIFIED = 3 };

/* Default latencies by level (1-based) and for memory; see docs/options.md. */
uint32_t dc_hier_default_latency(int level);
#define DC_DEFAULT_MEM_LATENCY 200

/* The documented typical hierarchy: L1=32K:8:64, L2=1M:16:64, L3=32M:16:64. */
void dc_hier_typical(struct dc_hier *h);

/* Parse "L1=32K:8:64,L2=1M:16:64" (sizes take K, M, G suffixes).  Levels
 * must be given in order L1, L2, ... Latencies get their defaults.  On error
 * returns DC_EINVAL (malformed) or DC_ERANGE (more than DC_MAX_LEVELS
 * levels, values too large) and writes a one-line reason into err. */
int dc_hier_parse_cache(struct dc_hier *h, const char *spec, char *err, size_t errlen);

/* Parse "L1=4,L2=14,MEM=200" onto an already configured hierarchy; keys name
 * existing levels or MEM, unnamed ones keep their values. */
int dc_hier_parse_latency(struct dc_hier *h, const char *spec, char *err, size_t errlen);

/* Check one level's geometry: line a power of two >= 16, size a multiple
 * of assoc x line (any number of sets), size > line, assoc <= size/line.  Returns 0 or DC_EINVAL with reason. */
int dc_level_check(const struct dc_level_cfg *l, char *err, size_t errlen);

/* Build the default hierarchy from what the host reports: the data/unified
 * caches of levels 1..N.  When any level is implausible (see hier.c Notes)
 * the typical hierarchy is used instead.  Returns 1 if the host's caches were
 * used, 0 if the typical one was; why is a one-line explanation either way. */
int dc_hier_from_host(struct dc_hier *h, const struct dc_host_cache *c, int n,
		      char *why, size_t whylen);

/* Cachegrind's configuration on the same host (cg-arch.c): D1 = the level-1
 * data cache, LL = the unified cache of the deepest level, LL adjusted the
 * way Cachegrind adjusts a set count that is not a power of two.  I1 is the
 * level-1 instruction cache.  Falls back to Cachegrind's amd64 defaults
 * (64K:2:64 for I1 and D1, 256K:8:64 for LL) when one of them is missing.
 * Returns 0, or DC_EINVAL when the result is not simulatable. */
int dc_hier_cachegrind(struct dc_hier *h, struct dc_level_cfg *i1,
		       const struct dc_host_cache *c, int n, char *why, size_t whylen);

/* "32K:8:64"-style text of one level, for messages and meta. */
void dc_level_format(const struct dc_level_cfg *l, char *buf, size_t len);

#endif
