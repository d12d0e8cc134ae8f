/* rhist.c — exact reuse-distance histograms: bin bounds, meta, reading. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"
#include "store/rhist.h"

int reuse_parse_bins(const char *s, int64_t max_first, int64_t max_growth,
		     int64_t *first, int64_t *growth)
{
	const char *colon = strchr(s, ':');
	char head[24];
	uint64_t f, g;
	size_t n = colon ? (size_t)(colon - s) : 0;

	if (!colon || n == 0 || n >= sizeof head)
		return -1;
	memcpy(head, s, n);
	head[n] = '\0';
	if (num_parse_u64(head, (uint64_t)max_first, &f) || f < 1 ||
	    num_parse_u64(colon + 1, (uint64_t)max_growth, &g) || g < 2)
		return -1;
	*first = (int64_t)f;
	*growth = (int64_t)g;
	return 0;
}

int reuse_bin_bounds(int64_t first, int64_t growth, int64_t k, int64_t *lo, int64_t *hi,
		     bool *hi_inf)
{
	int64_t b = first;      /* FIRST * GROWTH^(k-1) once the loop is done */

	*hi_inf = false;
	if (k < 0 || k >= REUSE_MAX_BINS)
		return -1;
	if (k == 0) {
		*lo = 0;
		*hi = first;
		return 0;
	}
	for (int64_t i = 1; i < k; i++) {
		if (b > INT64_MAX / growth)
			return -1;
		b *= growth;
	}
	*lo = b;
	if (b > INT64_MAX / growth) {
		*hi_inf = true;
		*hi = 0;
	} else {
		*hi = b * growth;
	}
	return 0;
}

/* A number meta value; 1, 0 when absent, 2 when malformed, < 0 errors. */
static int meta_num(struct profile *p, const char *key, struct sbuf *v, int64_t *out)
{
	uint64_t n;
	int rc = profile_meta(p, key, v);

	if (rc != 1)
		return rc;
	if (num_parse_u64(v->buf, INT64_MAX, &n))
		return 2;
	*out = (int64_t)n;
	return 1;
}

static void meta_word(struct profile *p, const char *key, struct sbuf *v, char *out, size_t len)
{
	snprintf(out, len, "%s", profile_meta(p, key, v) == 1 ? v->buf : "?");
}

/* The --reuse-sample meta; 1 (also when not sampled), 2 when one is
 * missing or malformed, or < 0. */
static int sampled_info(struct profile *p, struct reuse_info *ri, struct sbuf *v)
{
	static const char *const keys[] = { "reuse_sample_period", "reuse_watchpoints",
					    "reuse_samples", "reuse_traps", "reuse_dropped" };
	int64_t *vals[] = { &ri->period, &ri->watchpoints, &ri->samples, &ri->traps,
			    &ri->dropped };
	int rc = meta_num(p, keys[0], v, vals[0]);

	ri->sampled = rc == 1;
	if (rc != 1)
		return rc == 0 ? 1 : rc;
	for (size_t i = 1; i < sizeof keys / sizeof *keys; i++)
		if ((rc = meta_num(p, keys[i], v, vals[i])) != 1)
			return rc == 0 ? 2 : rc;
	meta_word(p, "reuse_watch", v, ri->watch, sizeof ri->watch);
	meta_word(p, "reuse_replace", v, ri->replace, sizeof ri->replace);
	meta_word(p, "reuse_attrib", v, ri->attrib, sizeof ri->attrib);
	snprintf(ri->unit, sizeof ri->unit, "%s",
		 profile_meta(p, "reuse_distance_unit", v) == 1 ? v->buf : "accesses");
	snprintf(ri->use_event, sizeof ri->use_event, "%s",
		 profile_meta(p, "reuse_use_event", v) == 1 ? v->buf : "access");
	return 1;
}

bool reuse_unit_accesses(const struct reuse_info *ri)
{
	return !ri->sampled || !ri->unit[0] || !strcmp(ri->unit, "accesses");
}

const char *reuse_unit_text(const struct reuse_info *ri)
{
	if (reuse_unit_accesses(ri))
		return "accesses";
	return !strcmp(ri->unit, "ns") ? "ns of CPU time" : ri->unit;
}

int reuse_info_read(struct profile *p, struct reuse_info *ri, char *err, size_t errlen)
{
	struct sbuf v;
	uint64_t block;
	int rc = 0;

	if (p->version < 3) {
		snprintf(err, errlen, "profile '%s' has no reuse data; record with --reuse=yes",
			 p->path);
		return -1;
	}
	sbuf_init(&v);
	rc = profile_meta(p, "reuse_bins", &v);
	if (rc == 1 && reuse_parse_bins(v.buf, INT64_MAX, INT64_MAX, &ri->first, &ri->growth)) {
		snprintf(err, errlen, "cannot read profile '%s': bad meta reuse_bins", p->path);
		rc = -1;
		goto out;
	}
	if (rc == 1)
		rc = profile_meta(p, "reuse_block", &v);
	if (rc == 1) {
		if (num_parse_u64(v.buf, INT64_MAX, &block) || block == 0) {
			snprintf(err, errlen, "cannot read profile '%s': bad meta reuse_block",
				 p->path);
			rc = -1;
			goto out;
		}
		ri->block = (int64_t)block;
	}
	if (rc == 1)
		rc = sampled_info(p, ri, &v);
	if (rc == 2) {
		snprintf(err, errlen, "cannot read profile '%s': bad sampled reuse meta", p->path);
		rc = -1;
		goto out;
	}
	if (rc == 1) {
		rc = profile_has_rows(p, "reuse_first");
		ri->exact = rc == 1;
		rc = rc < 0 ? rc : 1;
	}
	if (rc == 0)
		snprintf(err, errlen, "profile '%s' has no reuse data; record with --reuse=yes"
			 " or --reuse-sample=N", p->path);
	else if (rc < 0)
		profile_read_error(p, err, errlen);
	rc = rc == 1 ? 0 : -1;
out:
	sbuf_release(&v);
	return rc;
}

int rhist_read(struct profile *p, const char *kind, const char *object, struct rhist *h,
	       char *err, size_t errlen)
{
	static const char filter[] = " AND (?2 IS NULL OR bucket IN"
				     " (SELECT id FROM bucket WHERE name = ?2))";
	struct sbuf sql;
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	bool ovf = false;
	int rc;

	memset(h, 0, sizeof *h);
	sbuf_init(&sql);
	/* the mean of several buckets' rows: known when every row's is */
	sbuf_addf(&sql, "SELECT bin, lo, hi, SUM(count) AS n, %s, MIN(count)"
		  " FROM reuse_hist WHERE kind = ?1%s GROUP BY bin ORDER BY bin",
		  p->version >= 4 ? "CASE WHEN COUNT(mean) = COUNT(*) THEN"
				    " SUM(mean * count) / SUM(count) END" : "NULL", filter);
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto read_error;
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	if (object)
		sqlite3_bind_text(st, 2, object, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rbin *b;

		if (h->n == cap) {
			cap = cap ? 2 * cap : 64;
			h->bins = xrealloc(h->bins, cap * sizeof *h->bins);
		}
		b = &h->bins[h->n];
		b->bin = sqlite3_column_int64(st, 0);
		b->lo = sqlite3_column_int64(st, 1);
		b->hi_inf = sqlite3_column_type(st, 2) == SQLITE_NULL;
		b->hi = b->hi_inf ? 0 : sqlite3_column_int64(st, 2);
		b->count = sqlite3_column_int64(st, 3);
		b->has_mean = sqlite3_column_type(st, 4) != SQLITE_NULL;
		b->mean = b->has_mean ? sqlite3_column_double(st, 4) : 0;
		/* what the analyses index, divide and draw by must be sane */
		if (b->bin < 0 || b->bin >= REUSE_MAX_BINS || sqlite3_column_int64(st, 5) < 0 ||
		    b->lo < 0 || (!b->hi_inf && b->hi <= b->lo) ||
		    (b->has_mean && !(b->mean >= 0 && b->mean <= (double)INT64_MAX))) {
			snprintf(err, errlen, "cannot read profile '%s': reuse_hist bin %lld: a"
				 " negative count, a bin beyond %d or bounds out of order", p->path,
				 (long long)b->bin, REUSE_MAX_BINS - 1);
			goto error;
		}
		if (b->count > 0) {         /* only non-empty bins */
			h->n++;
			h->reuses = num_add(h->reuses, b->count, &ovf);
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if (rc != SQLITE_DONE)
		goto read_error;
	sbuf_reset(&sql);
	if (ovf) {
		profile_overflow_error(p, err, errlen);
		goto error;
	}
	/* sampled uses never reused stand where exact first touches stand */
	if (strcmp(kind, "sampled")) {
		sbuf_addf(&sql, "SELECT COALESCE(SUM(count), 0), MIN(count) FROM reuse_first"
			  " WHERE 1%s", filter);
	} else if (p->version >= 4) {
		sbuf_addf(&sql, "SELECT COALESCE(SUM(count), 0), MIN(count) FROM reuse_unseen"
			  " WHERE 1%s", filter);
	} else {
		sbuf_release(&sql);
		return 0;
	}
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto read_error;
	if (object)
		sqlite3_bind_text(st, 2, object, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		goto read_error;
	h->first = sqlite3_column_int64(st, 0);
	if (sqlite3_column_int64(st, 1) < 0) {
		snprintf(err, errlen, "cannot read profile '%s': %s has a negative count", p->path,
			 strcmp(kind, "sampled") ? "reuse_first" : "reuse_unseen");
		goto error;
	}
	num_add(h->reuses, h->first, &ovf);
	if (ovf) {
		profile_overflow_error(p, err, errlen);
		goto error;
	}
	sqlite3_finalize(st);
	sbuf_release(&sql);
	return 0;
read_error:
	profile_read_error(p, err, errlen);
error:
	sqlite3_finalize(st);
	sbuf_release(&sql);
	rhist_release(h);
	return -1;
}

void rhist_release(struct rhist *h)
{
	free(h->bins);
	memset(h, 0, sizeof *h);
}

int64_t reuse_bytes(int64_t v, int64_t block)
{
	if (block > 0 && v > INT64_MAX / block)
		return -1;
	return v * block;
}
