/* fuzz_read.c — run every profile-reading command on one profile, the way
 * users do (the variants below cover each command's modes and formats). */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "fuzz.h"

/* "@O" is replaced by the name of a bucket of the profile and "@F" by a
 * function's, so --object and --function select something. */
static const char *const variants[][12] = {
	{ "report", "@P" },
	{ "report", "@P", "--by=function", "--format=csv" },
	{ "report", "@P", "--by", "line", "--format", "json", "--top", "0" },
	{ "report", "@P", "--thread", "--sort=D1mr" },
	{ "report", "@P", "--stats" },
	{ "report", "@P", "--stats", "--format=json", "--sort=blocks" },
	{ "report", "@P", "--sampled", "--by=line" },
	{ "report", "@P", "--inclusive" },
	{ "report", "@P", "--inclusive", "--format=csv", "--thread" },
	{ "report", "@P", "--object", "@O" },
	{ "report", "@P", "--function", "@F", "--by=object" },
	{ "diff", "@P", "@P" },
	{ "diff", "@P", "@P", "--by=function", "--format=json" },
	{ "diff", "@P", "@P", "--inclusive", "--format=csv" },
	{ "diff", "@P", "@P", "--sampled", "--object", "@O" },
	{ "accuracy", "@P" },
	{ "accuracy", "@P", "--format=json", "--top=3" },
	{ "evictions", "@P" },
	{ "evictions", "@P", "--sampled" },
	{ "evictions", "@P", "--level=2", "--format=csv", "--top=20" },
	{ "evictions", "@P", "--object", "@O", "--by=line" },
	{ "evictions", "@P", "--object", "@O", "--sampled", "--format=json" },
	{ "reuse", "@P" },
	{ "reuse", "@P", "--kind=time", "--format=csv" },
	{ "reuse", "@P", "--sampled", "--object", "@O" },
	{ "reuse", "@P", "--sampled", "--kind=time", "--format=json" },
	{ "reuse", "@P", "--converted" },
	{ "reuse", "@P", "--pairs", "--top=0" },
	{ "reuse", "@P", "--pairs", "--sampled", "--format=json" },
	{ "reuse", "@P", "--accuracy" },
	{ "reuse", "@P", "--accuracy", "--object", "@O", "--format=csv" },
	{ "mrc", "@P" },
	{ "mrc", "@P", "--object", "@O", "--format=json" },
	{ "footprint", "@P" },
	{ "footprint", "@P", "--by=interval", "--levels=0", "--format=csv" },
	{ "footprint", "@P", "--zoom" },
	{ "footprint", "@P", "--zoom", "--tau=1", "--min-page=64", "--format=json" },
	{ "footprint", "@P", "--accuracy" },
	{ "footprint", "@P", "--top=0", "--format=json" },
	{ "export", "@P", "--format=callgrind", "-o", "out.callgrind" },
	{ "export", "@P", "--format=callgrind", "-o", "out.callgrind", "--by-object" },
};

/* The first non-empty value of a query on the profile, else fallback.
 * Only SQLite reads the file here; the commands are what is fuzzed. */
static void pick(const char *path, const char *sql, const char *fallback,
		 char *out, size_t len)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	snprintf(out, len, "%s", fallback);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
}

void fuzz_read_profile(const char *name)
{
	char path[4096], object[256], function[256];

	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	pick(path, "SELECT name FROM bucket WHERE name <> '' ORDER BY id LIMIT 1", "A",
	     object, sizeof object);
	pick(path, "SELECT function FROM location WHERE function <> '' ORDER BY id LIMIT 1",
	     "main", function, sizeof function);
	for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
		char *argv[12];
		int argc = 0;

		for (; argc < 12 && variants[i][argc]; argc++) {
			const char *a = variants[i][argc];
			argv[argc] = (char *)(!strcmp(a, "@P") ? name : !strcmp(a, "@O") ? object
					      : !strcmp(a, "@F") ? function : a);
		}
		fuzz_dcprof(argc, argv);
	}
}
