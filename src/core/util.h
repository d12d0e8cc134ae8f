/* util.h — small freestanding helpers: formatting, strings, bit tricks. */
#ifndef DC_UTIL_H
#define DC_UTIL_H

#include "core/port.h"

/* A tiny snprintf: %s %c %d %u (int/unsigned), %U (uint64_t), %X (uint64_t
 * lower-case hex, no prefix) and %%.  Always NUL-terminates when len > 0; returns the
 * length the full output would have had. */
size_t dc_fmt(char *buf, size_t len, const char *fmt, ...);

size_t dc_strlen(const char *s);
/* Copies at most len-1 bytes and NUL-terminates. */
void dc_strlcpy(char *dst, const char *src, size_t len);

static inline bool dc_is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

/* floor(log2(x)) for x > 0 (-1 for 0); one instruction on x86-64. */
static inline int dc_log2(uint64_t x)
{
	return x ? 63 - __builtin_clzll(x) : -1;
}

/* Does the CPU have the POPCNT instruction?  (x86-64's baseline has not,
 * and without -mpopcnt __builtin_popcountll calls libgcc, which the core
 * cannot.) */
bool dc_cpu_popcnt(void);
/* Does the CPU have AVX2, with the OS saving its registers? */
bool dc_cpu_avx2(void);

/* The 1 bits of x: the POPCNT instruction when hw (dc_cpu_popcnt()), else
 * the bit-parallel sum. */
static inline unsigned dc_popcount64(bool hw, uint64_t x)
{
#if defined(__x86_64__)
	if (hw) {
		uint64_t n;
		__asm__("popcntq %1, %0" : "=r"(n) : "rm"(x));
		return (unsigned)n;
	}
#endif
	(void)hw;
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (unsigned)((x * 0x0101010101010101ULL) >> 56);
}

/* Removal from a linear-probing table by shifting the rest of the cluster
 * back over the hole: the entry at `slot`, whose home slot is `home`, moves
 * into the hole at `hole` when its home is not cyclically in (hole, slot]
 * (mask: the capacity, a power of two, less 1). */
static inline bool dc_probe_may_move(uint64_t hole, uint64_t slot, uint64_t home, uint64_t mask)
{
	return ((slot - home) & mask) >= ((slot - hole) & mask);
}

/* The length of a symbol's name without its version: NAME@VERSION and
 * NAME@@VERSION (a .symtab's copies and definitions of versioned dynamic
 * symbols, Valgrind's function names) are NAME; len bytes of name. */
static inline size_t dc_sym_name_len(const char *name, size_t len)
{
	for (size_t k = 1; k < len; k++)
		if (name[k] == '@')
			return k;
	return len;
}

/* 64-bit mix for hash tables (splitmix64 finaliser). */
static inline uint64_t dc_hash64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* splitmix64: the next pseudo-random number of the generator *state. */
static inline uint64_t dc_rand64(uint64_t *state)
{
	return dc_hash64(*state += 0x9e3779b97f4a7c15ULL);
}

#endif
