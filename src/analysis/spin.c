/* spin.c — how much of a run was threads spin-waiting in a parallel
 * runtime (see spin.h). */
#include <string.h>

#include "analysis/spin.h"

bool spin_runtime(const char *object, size_t len)
{
	static const char *const names[] = { "libgomp.so", "libomp.so", "libiomp5.so",
					      "libtbb.so" };
	const char *base = object;

	for (size_t i = 0; i < len; i++)
		if (object[i] == '/')
			base = object + i + 1;
	len -= (size_t)(base - object);
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		size_t n = strlen(names[i]);
		if (len >= n && !memcmp(base, names[i], n))
			return true;
	}
	return false;
}

int spin_share(struct profile *p, double *share, struct sbuf *object, char *err,
	       size_t errlen)
{
	/* total() is a double: no integer overflow whatever the counts. */
	static const char sql[] = "SELECT l.object, total(c.Dr) + total(c.Dw) FROM cost c"
				  " JOIN location l ON l.id = c.location GROUP BY l.object";
	double all = 0, best = 0;
	sqlite3_stmt *st;
	int rc;

	*share = 0;
	sbuf_reset(object);
	if (sqlite3_prepare_v2(p->db, sql, -1, &st, NULL) != SQLITE_OK) {
		profile_read_error(p, err, errlen);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *obj = (const char *)sqlite3_column_text(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		double n = sqlite3_column_double(st, 1);

		all += n;
		if (obj && n > best && spin_runtime(obj, len)) {
			best = n;
			sbuf_reset(object);
			sbuf_add(object, obj, len);
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		profile_read_error(p, err, errlen);
		return -1;
	}
	*share = all > 0 ? best / all : 0;
	return 0;
}
