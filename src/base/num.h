/* num.h — numbers as the user and the files write them, and arithmetic on
 * numbers read from files.  Every front-end layer parses an option value
 * or a stored number with these, so the rules are one: unsigned decimal
 * digits only (no sign, no spaces, no base prefix), checked against a
 * maximum before they overflow.
 *
 * Counts read from a profile are data: a crafted profile may hold any
 * 64-bit value, so sums and products of them go through num_add, num_sub
 * and num_mul, which cannot overflow: the result saturates at INT64_MIN or
 * INT64_MAX and *ovf (when not NULL) is set, so a reader can fail with
 * "integer overflow" once it has summed a whole table.
 */
#ifndef DC_BASE_NUM_H
#define DC_BASE_NUM_H

#include <stdbool.h>
#include <stdint.h>

/* Strict unsigned decimal no greater than max; 0 or -1. */
int num_parse_u64(const char *s, uint64_t max, uint64_t *out);

static inline int64_t num_saturate(bool negative, bool *ovf)
{
	if (ovf)
		*ovf = true;
	return negative ? INT64_MIN : INT64_MAX;
}

static inline int64_t num_add(int64_t a, int64_t b, bool *ovf)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return num_saturate(a < 0, ovf);
	return r;
}

static inline int64_t num_sub(int64_t a, int64_t b, bool *ovf)
{
	int64_t r;

	if (__builtin_sub_overflow(a, b, &r))
		return num_saturate(a < 0, ovf);
	return r;
}

static inline int64_t num_mul(int64_t a, int64_t b, bool *ovf)
{
	int64_t r;

	if (__builtin_mul_overflow(a, b, &r))
		return num_saturate((a < 0) != (b < 0), ovf);
	return r;
}

#endif
