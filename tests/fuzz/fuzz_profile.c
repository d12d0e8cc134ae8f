/* fuzz_profile.c — fuzz target: the bytes are a profile (an SQLite file,
 * docs/schema.md); every profile-reading command runs on it
 * (fuzz_read.c).
 *
 * Flipping bytes of an SQLite file mostly exercises SQLite's corruption
 * checks, so under libFuzzer a custom mutator also edits the profile as a
 * database: it opens the input in memory (sqlite3_deserialize), changes
 * one random cell of one random table to a value no engine writes (0, -1,
 * the 64-bit extremes, an empty or odd string, NULL, a real), deletes or
 * duplicates a row, and hands back the file (sqlite3_serialize).  A third
 * of the mutations stay libFuzzer's own byte-level ones.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_setup();
	fuzz_write("p.db", data, size);
	fuzz_read_profile("p.db");
	fuzz_clean(NULL);
	return 0;
}

#ifdef FUZZ_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint64_t rng;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const char *const values[] = {
	"0", "-1", "1", "2", "9223372036854775807", "-9223372036854775808",
	"2147483648", "4294967296", "65", "63", "4096", "''", "NULL", "'x'",
	"'%s'", "1e308", "-0.5", "'-'", "'0:0'", "'1:1'", "'yes'", "'D9m'",
	"x'00ff'",
};

/* The names a query returns (at most n), as one string each. */
static int names(sqlite3 *db, const char *sql, char out[][64], int n)
{
	sqlite3_stmt *st;
	int k = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (k < n && sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_text(st, 0))
			snprintf(out[k++], 64, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return k;
}

static int64_t count(sqlite3 *db, const char *table)
{
	char sql[128];
	sqlite3_stmt *st;
	int64_t n = 0;

	snprintf(sql, sizeof sql, "SELECT count(*) FROM \"%s\"", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* One edit of the database; returns the new size, or 0 to fall back to
 * libFuzzer's mutation. */
static size_t sql_mutate(uint8_t *data, size_t size, size_t max_size)
{
	char tables[32][64], cols[32][64], sql[512];
	sqlite3 *db = NULL;
	unsigned char *buf, *out;
	sqlite3_int64 outsize = 0;
	int nt, nc, edits = 1 + (int)(next() % 3);
	size_t res = 0;

	if (size < 512 || sqlite3_open(":memory:", &db) != SQLITE_OK)
		goto done;
	buf = sqlite3_malloc64(size);
	if (!buf)
		goto done;
	memcpy(buf, data, size);
	if (sqlite3_deserialize(db, "main", buf, (sqlite3_int64)size, (sqlite3_int64)size,
				SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) !=
	    SQLITE_OK)
		goto done;
	nt = names(db, "SELECT name FROM sqlite_master WHERE type = 'table'", tables, 32);
	if (!nt)
		goto done;
	for (int e = 0; e < edits; e++) {
		const char *t = tables[next() % (uint64_t)nt];
		int64_t rows = count(db, t);
		uint64_t row = rows > 0 ? next() % (uint64_t)rows : 0;
		char info[128];

		snprintf(info, sizeof info, "SELECT name FROM pragma_table_info('%s')", t);
		nc = names(db, info, cols, 32);
		if (!nc)
			continue;
		switch (next() % 8) {
		case 0:
			snprintf(sql, sizeof sql,
				 "DELETE FROM \"%s\" WHERE rowid = (SELECT rowid FROM \"%s\" LIMIT 1 OFFSET %llu)",
				 t, t, (unsigned long long)row);
			break;
		case 1:
			snprintf(sql, sizeof sql,
				 "INSERT INTO \"%s\" SELECT * FROM \"%s\" LIMIT 1 OFFSET %llu",
				 t, t, (unsigned long long)row);
			break;
		case 2: {
			/* A value of another row (an ID that exists elsewhere). */
			const char *c = cols[next() % (uint64_t)nc];
			snprintf(sql, sizeof sql,
				 "UPDATE OR IGNORE \"%s\" SET \"%s\" = (SELECT \"%s\" FROM \"%s\" LIMIT 1"
				 " OFFSET %llu) WHERE rowid = (SELECT rowid FROM \"%s\" LIMIT 1 OFFSET %llu)",
				 t, c, c, t, (unsigned long long)(rows > 0 ? next() % (uint64_t)rows : 0),
				 t, (unsigned long long)row);
			break;
		}
		case 3: {
			/* Off by one, or scaled. */
			const char *c = cols[next() % (uint64_t)nc];
			static const char *const ops[] = { "+ 1", "- 1", "* 1000", "* -1", "/ 2" };
			snprintf(sql, sizeof sql,
				 "UPDATE OR IGNORE \"%s\" SET \"%s\" = \"%s\" %s WHERE rowid = (SELECT rowid"
				 " FROM \"%s\" LIMIT 1 OFFSET %llu)",
				 t, c, c, ops[next() % 5], t, (unsigned long long)row);
			break;
		}
		default: {
			const char *c = cols[next() % (uint64_t)nc];
			const char *v = values[next() % (sizeof values / sizeof *values)];
			snprintf(sql, sizeof sql,
				 "UPDATE OR IGNORE \"%s\" SET \"%s\" = %s WHERE rowid = (SELECT rowid FROM"
				 " \"%s\" LIMIT 1 OFFSET %llu)",
				 t, c, v, t, (unsigned long long)row);
		}
		}
		sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	out = sqlite3_serialize(db, "main", &outsize, 0);
	if (out && outsize > 0 && (size_t)outsize <= max_size) {
		memcpy(data, out, (size_t)outsize);
		res = (size_t)outsize;
	}
	sqlite3_free(out);
done:
	sqlite3_close(db);
	return res;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	size_t n;

	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	if (next() % 3 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	n = sql_mutate(data, size, max_size);
	return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
#endif
