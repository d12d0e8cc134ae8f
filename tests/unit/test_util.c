/* test_util.c — the freestanding helpers of util.h: dc_fmt's conversions,
 * truncation and return value, the bit tricks (population count both
 * ways), the string helpers and the error strings.  Expected texts are what C's printf would print for the
 * same conversion (%X is the one exception: see its test). */
#include <limits.h>
#include <string.h>

#include "core/util.h"
#include "unit.h"

DC_TEST(util, fmt_strings_and_chars)
{
	char buf[64];

	CHECK_EQ(dc_fmt(buf, sizeof buf, "%s", "abc"), 3);
	CHECK_STREQ(buf, "abc");
	CHECK_EQ(dc_fmt(buf, sizeof buf, "[%s]", ""), 2);
	CHECK_STREQ(buf, "[]");
	/* A NULL string prints as glibc's printf prints it. */
	CHECK_EQ(dc_fmt(buf, sizeof buf, "%s", (const char *)NULL), 6);
	CHECK_STREQ(buf, "(null)");
	CHECK_EQ(dc_fmt(buf, sizeof buf, "%c%c", 'x', '%'), 2);
	CHECK_STREQ(buf, "x%");
	CHECK_EQ(dc_fmt(buf, sizeof buf, "100%%"), 4);
	CHECK_STREQ(buf, "100%");
	CHECK_EQ(dc_fmt(buf, sizeof buf, "plain"), 5);
	CHECK_STREQ(buf, "plain");
	CHECK_EQ(dc_fmt(buf, sizeof buf, ""), 0);
	CHECK_STREQ(buf, "");
}

DC_TEST(util, fmt_integers)
{
	char buf[64];

	dc_fmt(buf, sizeof buf, "%d %d %d", 0, 42, -42);
	CHECK_STREQ(buf, "0 42 -42");
	/* INT_MIN has no positive int counterpart: -2^31 = -2147483648. */
	dc_fmt(buf, sizeof buf, "%d %d", INT_MIN, INT_MAX);
	CHECK_STREQ(buf, "-2147483648 2147483647");
	dc_fmt(buf, sizeof buf, "%u %u", 0u, UINT_MAX);
	CHECK_STREQ(buf, "0 4294967295");
	/* %U takes a uint64_t: 2^64-1 = 18446744073709551615, and a value
	 * above 2^32 shows it is not read as an unsigned int. */
	dc_fmt(buf, sizeof buf, "%U %U %U", (uint64_t)0, (uint64_t)UINT64_MAX,
	       (uint64_t)1 << 32);
	CHECK_STREQ(buf, "0 18446744073709551615 4294967296");
	dc_fmt(buf, sizeof buf, "L%d: %s (%U B, %u-way)", 3, "x", (uint64_t)532676608, 1u);
	CHECK_STREQ(buf, "L3: x (532676608 B, 1-way)");
}

/* util.h says "%X (uint64_t hex, no prefix)" without a case; the core prints
 * lower-case digits (unlike printf's %X).  Pinned so that a change is a
 * decision, not an accident. */
DC_TEST(util, fmt_hex)
{
	char buf[64];

	dc_fmt(buf, sizeof buf, "%X", (uint64_t)0);
	CHECK_STREQ(buf, "0");
	dc_fmt(buf, sizeof buf, "%X", (uint64_t)0x1234);
	CHECK_STREQ(buf, "1234");
	dc_fmt(buf, sizeof buf, "%X", (uint64_t)0xdeadbeefULL);
	CHECK_STREQ(buf, "deadbeef");
	dc_fmt(buf, sizeof buf, "%X|%X", (uint64_t)UINT64_MAX, (uint64_t)0x7f0000001000ULL);
	CHECK_STREQ(buf, "ffffffffffffffff|7f0000001000");
}

/* Truncation keeps len-1 bytes and a NUL, writes nothing past buf[len-1],
 * and the return value is the untruncated length. */
DC_TEST(util, fmt_truncates_and_returns_full_length)
{
	char buf[16];

	memset(buf, 'Z', sizeof buf);
	CHECK_EQ(dc_fmt(buf, 8, "%s", "abcdefghij"), 10);
	CHECK_STREQ(buf, "abcdefg");
	CHECK_EQ(buf[8], 'Z');
	/* Exactly fitting: 10 characters need 11 bytes. */
	CHECK_EQ(dc_fmt(buf, 11, "%s", "abcdefghij"), 10);
	CHECK_STREQ(buf, "abcdefghij");
	CHECK_EQ(dc_fmt(buf, 10, "%s", "abcdefghij"), 10);
	CHECK_STREQ(buf, "abcdefghi");
	/* Truncation inside a number: "-12345" cut to 3 bytes. */
	CHECK_EQ(dc_fmt(buf, 4, "%d", -12345), 6);
	CHECK_STREQ(buf, "-12");
	CHECK_EQ(dc_fmt(buf, 1, "%U", (uint64_t)99), 2);
	CHECK_STREQ(buf, "");
	/* len 0: nothing is written, so buf may be NULL (a size query). */
	CHECK_EQ(dc_fmt(NULL, 0, "%s=%U", "key", (uint64_t)1000), 8);
	memset(buf, 'Z', sizeof buf);
	CHECK_EQ(dc_fmt(buf, 0, "abc"), 3);
	CHECK_EQ(buf[0], 'Z');
}

DC_TEST(util, log2_is_floor)
{
	CHECK_EQ(dc_log2(1), 0);
	CHECK_EQ(dc_log2(2), 1);
	CHECK_EQ(dc_log2(3), 1);
	CHECK_EQ(dc_log2(4), 2);
	CHECK_EQ(dc_log2(64), 6);
	CHECK_EQ(dc_log2(4095), 11);
	CHECK_EQ(dc_log2(4096), 12);
	/* 8323072 = 2^23 - 2^16 lies in [2^22, 2^23). */
	CHECK_EQ(dc_log2(8323072), 22);
	CHECK_EQ(dc_log2((uint64_t)1 << 63), 63);
	CHECK_EQ(dc_log2(UINT64_MAX), 63);
}

/* Both ways of counting (the instruction only where the CPU has it) give
 * the number of 1 bits: 0x8000000000000001 has 2, 0xff00ff00ff00ff00 has
 * 32, 0x5555555555555555 has 32 (one per pair of bits). */
DC_TEST(util, popcount_both_ways)
{
	bool ways[2] = { false, dc_cpu_popcnt() };

	for (int i = 0; i < 2; i++) {
		CHECK_EQ(dc_popcount64(ways[i], 0), 0u);
		CHECK_EQ(dc_popcount64(ways[i], 1), 1u);
		CHECK_EQ(dc_popcount64(ways[i], 0x8000000000000001ULL), 2u);
		CHECK_EQ(dc_popcount64(ways[i], 0xff00ff00ff00ff00ULL), 32u);
		CHECK_EQ(dc_popcount64(ways[i], 0x5555555555555555ULL), 32u);
		CHECK_EQ(dc_popcount64(ways[i], UINT64_MAX), 64u);
	}
}

DC_TEST(util, is_pow2)
{
	CHECK(!dc_is_pow2(0));
	CHECK(dc_is_pow2(1));
	CHECK(dc_is_pow2(2));
	CHECK(!dc_is_pow2(3));
	CHECK(!dc_is_pow2(6));
	CHECK(!dc_is_pow2(96));
	CHECK(dc_is_pow2(4096));
	CHECK(dc_is_pow2((uint64_t)1 << 63));
	CHECK(!dc_is_pow2(((uint64_t)1 << 63) + 1));
	CHECK(!dc_is_pow2(UINT64_MAX));
}

DC_TEST(util, strlcpy)
{
	char buf[16];

	memset(buf, 'Z', sizeof buf);
	dc_strlcpy(buf, "hello", 0);
	CHECK_EQ(buf[0], 'Z');
	dc_strlcpy(buf, "hello", 1);
	CHECK_STREQ(buf, "");
	CHECK_EQ(buf[1], 'Z');
	dc_strlcpy(buf, "hello", 3);
	CHECK_STREQ(buf, "he");
	CHECK_EQ(buf[3], 'Z');
	/* "hello" needs 6 bytes: fits exactly. */
	dc_strlcpy(buf, "hello", 6);
	CHECK_STREQ(buf, "hello");
	memset(buf, 'Z', sizeof buf);
	dc_strlcpy(buf, "hello", sizeof buf);
	CHECK_STREQ(buf, "hello");
	CHECK_EQ(buf[6], 'Z');
	dc_strlcpy(buf, "", sizeof buf);
	CHECK_STREQ(buf, "");
}

DC_TEST(util, strlen)
{
	CHECK_EQ(dc_strlen(""), 0);
	CHECK_EQ(dc_strlen("abc"), 3);
}

/* Messages are lower-case and have no trailing period (STYLE.md). */
DC_TEST(util, strerror)
{
	CHECK_STREQ(dc_strerror(DC_OK), "success");
	CHECK_STREQ(dc_strerror(DC_ENOMEM), "out of memory");
	CHECK_STREQ(dc_strerror(DC_EINVAL), "invalid input");
	CHECK_STREQ(dc_strerror(DC_EIO), "write failed");
	CHECK_STREQ(dc_strerror(DC_ERANGE), "value out of range");
	CHECK_STREQ(dc_strerror(-99), "unknown error");
	CHECK_STREQ(dc_strerror(1), "unknown error");
}

/* splitmix64: with state 0, the generator adds the golden gamma
 * 0x9e3779b97f4a7c15 and finalises; its first output is the published
 * 0xe220a8397b1dcdaf.  The finaliser maps 0 to 0 (every step is a xor-shift
 * or a multiplication). */
DC_TEST(util, hash64_is_splitmix64_finaliser)
{
	CHECK_EQ(dc_hash64(0x9e3779b97f4a7c15ULL), 0xe220a8397b1dcdafULL);
	CHECK_EQ(dc_hash64(0), 0);
	CHECK(dc_hash64(1) != dc_hash64(2));
}

/* dc_probe_may_move against its definition, walked slot by slot: the entry
 * at `slot` may fill the hole unless its home is one of the slots after the
 * hole up to and including its own, going round the table (8 and 1 slots;
 * every hole, slot and home). */
DC_TEST(util, probe_may_move_is_home_outside_hole_to_slot)
{
	for (uint64_t cap = 1; cap <= 8; cap *= 8) {
		uint64_t mask = cap - 1;
		for (uint64_t hole = 0; hole < cap; hole++)
			for (uint64_t slot = 0; slot < cap; slot++)
				for (uint64_t home = 0; home < cap; home++) {
					bool inside = false;
					for (uint64_t k = (hole + 1) & mask; slot != hole; k = (k + 1) & mask) {
						inside |= k == home;
						if (k == slot)
							break;
					}
					CHECK_EQ(dc_probe_may_move(hole, slot, home, mask), !inside);
				}
	}
}
