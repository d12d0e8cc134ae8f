/* fptrace.c — footprint analysis of a profile's sampled trace (see
 * fptrace.h Notes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"
#include "analysis/fptrace.h"
#include "base/sbuf.h"
#include "core/blockset.h"
#include "core/reuse.h"
#include "core/trace.h"
#include "core/util.h"
#include "host/port_libc.h"

static int meta_int(struct profile *p, const char *key, int64_t *v, bool required)
{
	struct sbuf sb;
	char *end;
	int rc;

	sbuf_init(&sb);
	rc = profile_meta(p, key, &sb);
	if (rc == 1) {
		*v = strtoll(sb.buf, &end, 10);
		rc = *end || *v < 0 ? -1 : 0;
	} else if (rc == 0) {
		rc = required ? -1 : 0;
	}
	sbuf_release(&sb);
	return rc;
}

static int query_error(struct profile *p, char *err, size_t errlen)
{
	profile_read_error(p, err, errlen);
	return -1;
}

/* The most a window's start, period or reference footprint may be:
 * anything larger cannot come from a run (2^62 accesses), and the
 * estimates multiply and add them. */
#define MAX_TRACE_VALUE (INT64_C(1) << 62)

static bool trace_value_ok(int64_t v)
{
	return v >= 0 && v <= MAX_TRACE_VALUE;
}

/* -1 on a read error, -2 for a window whose values are out of range. */
static int read_windows(struct profile *p, struct fp_trace *t)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(p->db, "SELECT id, start, period, ref_f, ref_f_str, ref_f_irr"
				" FROM trace_window ORDER BY id", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct fp_win *w;
		if (sqlite3_column_int64(st, 0) != (int64_t)t->nwins)
			break;
		t->wins = xrealloc(t->wins, (t->nwins + 1) * sizeof *t->wins);
		w = &t->wins[t->nwins++];
		memset(w, 0, sizeof *w);
		w->start = sqlite3_column_int64(st, 1);
		w->period = sqlite3_column_int64(st, 2);
		w->has_ref = sqlite3_column_type(st, 3) != SQLITE_NULL;
		for (int k = 0; k < 3; k++)
			w->ref[k] = sqlite3_column_int64(st, 3 + k);
		if (!trace_value_ok(w->start) || !trace_value_ok(w->period) ||
		    !trace_value_ok(w->ref[0]) || !trace_value_ok(w->ref[1]) ||
		    !trace_value_ok(w->ref[2])) {
			sqlite3_finalize(st);
			return -2;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	/* Records per window in one pass: trace_access has no index on window,
	 * so a count per window would scan every access once per window. */
	rc = sqlite3_prepare_v2(p->db, "SELECT window FROM trace_access ORDER BY time", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t win = sqlite3_column_int64(st, 0);
		if (win >= 0 && (size_t)win < t->nwins)
			t->wins[win].n++;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static struct fp_fn *add_fn(struct fp_trace *t, const char *s, size_t len)
{
	struct fp_fn *f;

	t->fns = xrealloc(t->fns, (t->nfns + 1) * sizeof *t->fns);
	f = &t->fns[t->nfns++];
	memset(f, 0, sizeof *f);
	f->name = xmemdup(s ? s : "", len);
	f->len = len;
	return f;
}

/* A location's function: locations sharing a name share it.  Kept as
 * pairs sorted by id, not as an array indexed by id: ids come from the
 * profile, and one near 2^31 must not make dcprof allocate gigabytes. */
struct loc_fn {
	int64_t id;
	uint32_t fn;
};

static int cmp_loc_fn(const void *a, const void *b)
{
	int64_t x = ((const struct loc_fn *)a)->id, y = ((const struct loc_fn *)b)->id;

	return (x > y) - (x < y);
}

/* The function of location id, or UINT32_MAX. */
static uint32_t loc_function(const struct loc_fn *map, size_t n, int64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (map[mid].id == id)
			return map[mid].fn;
		if (map[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

static int read_functions(struct profile *p, struct fp_trace *t, struct loc_fn **loc2fn,
			  size_t *nlocs)
{
	size_t cap = 0;
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(p->db, "SELECT id, CAST(function AS BLOB) FROM location"
				" ORDER BY 2, 1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *s = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		struct fp_fn *last = t->nfns ? &t->fns[t->nfns - 1] : NULL;

		if (!last || last->len != len || memcmp(last->name, s ? s : "", len))
			last = add_fn(t, s, len);
		if (*nlocs == cap) {
			cap = cap ? 2 * cap : 256;
			*loc2fn = xrealloc(*loc2fn, cap * sizeof **loc2fn);
		}
		(*loc2fn)[*nlocs].id = id;
		(*loc2fn)[(*nlocs)++].fn = (uint32_t)(last - t->fns);
	}
	sqlite3_finalize(st);
	if (*nlocs)
		qsort(*loc2fn, *nlocs, sizeof **loc2fn, cmp_loc_fn);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int read_buckets(struct profile *p, struct fp_trace *t)
{
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(p->db, "SELECT id, CAST(name AS BLOB) FROM bucket ORDER BY id",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s = sqlite3_column_blob(st, 1);
		size_t len = (size_t)sqlite3_column_bytes(st, 1);
		if (sqlite3_column_int64(st, 0) != (int64_t)t->nbuckets)
			break;
		t->buckets = xrealloc(t->buckets, (t->nbuckets + 1) * sizeof *t->buckets);
		t->bucket_len = xrealloc(t->bucket_len, (t->nbuckets + 1) * sizeof *t->bucket_len);
		t->buckets[t->nbuckets] = xmemdup(s ? s : "", len);
		t->bucket_len[t->nbuckets++] = len;
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static struct fp_fn *find_fn(struct fp_trace *t, size_t n, const char *s, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct fp_fn *f = &t->fns[mid];
		size_t m = f->len < len ? f->len : len;
		int c = memcmp(f->name, s, m);
		if (!c)
			c = f->len < len ? -1 : f->len > len;
		if (!c)
			return &t->fns[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The full-trace reference of each function; functions the sample never
 * saw are added with empty estimates. */
static int read_function_refs(struct profile *p, struct fp_trace *t)
{
	size_t n = t->nfns;
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(p->db, "SELECT CAST(function AS BLOB), accesses, const_loads, f,"
				" f_str, f_irr FROM trace_function_ref", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		struct fp_fn *f = find_fn(t, n, s ? s : "", len);

		if (!f)
			f = add_fn(t, s, len);
		f->has_ref = true;
		f->ref_a = sqlite3_column_int64(st, 1);
		f->ref_aconst = sqlite3_column_int64(st, 2);
		for (int k = 0; k < 3; k++)
			f->ref[k] = sqlite3_column_int64(st, 3 + k);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void add_sums(struct fp_sums *to, const struct fp_sums *s)
{
	to->a += s->a;
	to->aconst += s->aconst;
	to->f += s->f;
	to->fstr += s->fstr;
	to->firr += s->firr;
	to->records += s->records;
	to->dsum += s->dsum;
	to->dn += s->dn;
	to->dinter_sum += s->dinter_sum;
	to->dinter_n += s->dinter_n;
}

/* Counts a new block for a set's footprint. */
static void add_block(struct fp_sums *s, double rho, char cls)
{
	s->f += rho;
	if (cls == 's')
		s->fstr += rho;
	else
		s->firr += rho;
}

struct scan {
	struct dc_fphist hist;
	struct dc_blockset wset, fset;
	struct dc_reuse reuse;
	int64_t *dt;               /* per access: records since the block's access in an
				    * earlier window, or -1 */
	size_t cap;
};

static int scan_row(struct fp_trace *t, struct scan *sc, sqlite3_stmt *st,
		    const struct loc_fn *loc2fn, size_t nlocs, int64_t *cur, size_t *first)
{
	int64_t win = sqlite3_column_int64(st, 0), loc = sqlite3_column_int64(st, 2);
	const unsigned char *cls = sqlite3_column_text(st, 5);
	int64_t implied = sqlite3_column_int64(st, 6);
	struct fp_win *w;
	struct fp_sums *fs;
	struct fp_acc *a;
	struct dc_reuse_result res;
	uint32_t fn;
	double rho;
	uint64_t block;

	if (win < 0 || (size_t)win >= t->nwins || !cls ||
	    (fn = loc_function(loc2fn, nlocs, loc)) == UINT32_MAX || implied < 0)
		return -1;
	w = &t->wins[win];
	fs = &t->fns[fn].s;
	rho = w->rho;
	if (win != *cur) {
		dc_blockset_clear(&sc->wset);
		dc_blockset_clear(&sc->fset);
		*cur = win;
		*first = t->nacc;
		dc_fphist_restart(&sc->hist);
	}
	if (dc_fphist_add(&sc->hist, (uint64_t)sqlite3_column_int64(st, 4) >> t->block_bits,
			  cls[0] == 'c' ? DC_TC_CONST : cls[0] == 's' ? DC_TC_STRIDED : DC_TC_IRREG))
		return -2;
	w->s.records++;
	fs->records++;
	w->s.aconst += rho * (double)implied;
	fs->aconst += rho * (double)implied;
	if (cls[0] == 'c') {
		w->s.aconst += rho;
		fs->aconst += rho;
		return 0;
	}
	w->s.a += rho;
	fs->a += rho;
	block = (uint64_t)sqlite3_column_int64(st, 4) >> t->block_bits;
	if (dc_blockset_add(&sc->wset, block) == 1) {
		add_block(&w->s, rho, (char)cls[0]);
		w->f++;
		if (cls[0] == 's')
			w->fstr++;
		else
			w->firr++;
	}
	if (dc_blockset_add(&sc->fset, block | (uint64_t)(fn & 0xfffff) << 44) == 1)
		add_block(fs, rho, (char)cls[0]);
	if (t->nacc == sc->cap) {
		sc->cap = sc->cap ? 2 * sc->cap : 4096;
		t->acc = xrealloc(t->acc, sc->cap * sizeof *t->acc);
		sc->dt = xrealloc(sc->dt, sc->cap * sizeof *sc->dt);
	}
	a = &t->acc[t->nacc];
	a->addr = (uint64_t)sqlite3_column_int64(st, 4);
	a->time = sqlite3_column_int64(st, 1);
	a->win = (uint32_t)win;
	a->fn = fn;
	a->bucket = (uint32_t)sqlite3_column_int64(st, 3);
	a->d = -1;
	sc->dt[t->nacc] = -1;
	if (dc_reuse_access(&sc->reuse, a->addr, 0, &res))
		return -2;
	if (!res.first) {
		size_t prev = t->nacc - (size_t)res.time_dist;
		if (prev >= *first) {
			a->d = (double)res.stack_dist;
			w->s.dsum += a->d;
			w->s.dn++;
			fs->dsum += a->d;
			fs->dn++;
		} else {
			sc->dt[t->nacc] = num_sub(a->time, t->acc[prev].time, NULL);
		}
	}
	t->nacc++;
	return 0;
}

static int scan_accesses(struct profile *p, struct fp_trace *t, const struct loc_fn *loc2fn,
			 size_t nlocs, char *err, size_t errlen)
{
	struct scan sc = { 0 };
	sqlite3_stmt *st = NULL;
	int64_t cur = -1;
	size_t first = 0;
	int rc = -1;
	double growth;

	if (dc_fphist_init(&sc.hist, dc_env_libc(), (uint64_t)t->w) ||
	    dc_blockset_init(&sc.wset, dc_env_libc()) || dc_blockset_init(&sc.fset, dc_env_libc()) ||
	    dc_reuse_init(&sc.reuse, dc_env_libc(), t->block_bits)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (sqlite3_prepare_v2(p->db, "SELECT window, time, location, bucket, address, class,"
			       " implied FROM trace_access ORDER BY time", -1, &st, NULL)) {
		query_error(p, err, errlen);
		goto out;
	}
	for (size_t i = 0; i < t->nwins; i++) {
		struct fp_win *w = &t->wins[i];
		w->rho = w->n ? ((double)w->period + (i ? 0 : (double)w->start)) / (double)w->n : 0;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		rc = scan_row(t, &sc, st, loc2fn, nlocs, &cur, &first);
		if (rc == -2) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		if (rc) {
			snprintf(err, errlen, "cannot read profile '%s': trace access at time %lld"
				 " names an unknown window, location or class", p->path,
				 (long long)sqlite3_column_int64(st, 1));
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		query_error(p, err, errlen);
		rc = -1;
		goto out;
	}
	t->nhist = sc.hist.nbins;
	memcpy(t->hist, sc.hist.bin, sizeof t->hist);
	for (size_t i = 0; i < t->nwins; i++)
		add_sums(&t->all, &t->wins[i].s);
	/* Inter-window distances need the run's growth, known only now. */
	growth = fp_growth(&t->all);
	for (size_t i = 0; i < t->nacc; i++) {
		struct fp_acc *a = &t->acc[i];
		double d;
		if (sc.dt[i] < 0 || isnan(growth))
			continue;
		d = growth * (double)sc.dt[i];
		t->wins[a->win].s.dinter_sum += d;
		t->wins[a->win].s.dinter_n++;
		t->fns[a->fn].s.dinter_sum += d;
		t->fns[a->fn].s.dinter_n++;
		t->all.dinter_sum += d;
		t->all.dinter_n++;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	free(sc.dt);
	dc_blockset_release(&sc.wset);
	dc_blockset_release(&sc.fset);
	dc_reuse_release(&sc.reuse);
	dc_fphist_release(&sc.hist);
	return rc;
}

/* meta trace_hist: SIZE:TILES:F:FSTR:FIRR per bin, sizes 2, 4, ... in
 * order, comma-separated (the engine's hist_meta). */
static int parse_full_hist(struct fp_trace *t, const char *s)
{
	unsigned k = 0;

	while (*s) {
		uint64_t v[5];
		char *end;
		if (k == DC_FPHIST_MAX)
			return -1;
		for (int i = 0; i < 5; i++) {
			if (*s < '0' || *s > '9')
				return -1;
			v[i] = strtoull(s, &end, 10);
			if (i < 4 ? *end != ':' : (*end != ',' || !end[1]) && *end)
				return -1;
			s = *end ? end + 1 : end;
		}
		if (v[0] != (uint64_t)2 << k || v[1] > (uint64_t)MAX_TRACE_VALUE ||
		    v[2] > (uint64_t)MAX_TRACE_VALUE || v[3] > v[2] || v[3] + v[4] != v[2])
			return -1;
		t->full_hist[k].tiles = v[1];
		t->full_hist[k].f = v[2];
		t->full_hist[k].fstr = v[3];
		t->full_hist[k].firr = v[4];
		k++;
	}
	t->has_full_hist = true;
	return 0;
}

int fp_load(struct profile *p, struct fp_trace *t, char *err, size_t errlen)
{
	struct loc_fn *loc2fn = NULL;
	size_t nlocs = 0;
	struct sbuf sb;
	int rc;

	memset(t, 0, sizeof *t);
	rc = profile_has_rows(p, "trace_window");
	if (rc < 0)
		return query_error(p, err, errlen);
	if (rc == 0) {
		snprintf(err, errlen, "profile '%s' has no sampled trace (record with"
			 " --trace-window=W)", p->path);
		return -1;
	}
	if (meta_int(p, "trace_window", &t->w, true) ||
	    meta_int(p, "trace_period", &t->period, true) ||
	    meta_int(p, "trace_block", &t->block, true) ||
	    meta_int(p, "trace_records", &t->records, true) || t->block < 8 ||
	    (t->block & (t->block - 1)) || t->block > (1 << 20)) {
		snprintf(err, errlen, "cannot read profile '%s': missing or malformed trace_* meta"
			 " values", p->path);
		return -1;
	}
	t->block_bits = (unsigned)dc_log2((uint64_t)t->block);
	sbuf_init(&sb);
	t->full = profile_meta(p, "trace_full", &sb) == 1 && !strcmp(sb.buf, "yes");
	sbuf_reset(&sb);
	rc = profile_meta(p, "trace_hist", &sb);
	if (rc == 1 && parse_full_hist(t, sb.buf ? sb.buf : "")) {
		snprintf(err, errlen, "cannot read profile '%s': malformed trace_hist meta value",
			 p->path);
		sbuf_release(&sb);
		return -1;
	}
	sbuf_release(&sb);
	rc = read_windows(p, t);
	if (rc == -2) {
		snprintf(err, errlen, "cannot read profile '%s': trace_window %zu: a value out of"
			 " range (0 to 2^62)", p->path, t->nwins - 1);
		fp_release(t);
		return -1;
	}
	if (rc || read_functions(p, t, &loc2fn, &nlocs) || read_buckets(p, t) ||
	    (t->full && read_function_refs(p, t))) {
		free(loc2fn);
		fp_release(t);
		return query_error(p, err, errlen);
	}
	rc = scan_accesses(p, t, loc2fn, nlocs, err, errlen);
	free(loc2fn);
	if (rc)
		fp_release(t);
	return rc;
}

void fp_release(struct fp_trace *t)
{
	for (size_t i = 0; i < t->nfns; i++)
		free(t->fns[i].name);
	for (size_t i = 0; i < t->nbuckets; i++)
		free(t->buckets[i]);
	free(t->fns);
	free(t->buckets);
	free(t->bucket_len);
	free(t->wins);
	free(t->acc);
	memset(t, 0, sizeof *t);
}

double fp_growth(const struct fp_sums *s)
{
	return s->a + s->aconst > 0 ? s->f / (s->a + s->aconst) : NAN;
}

double fp_share(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : NAN;
}

double fp_mean(double sum, int64_t n)
{
	return n ? sum / (double)n : NAN;
}

/* ---- trace-window histograms ------------------------------------------- */

bool fp_hist_compared(const struct fp_trace *t, unsigned k)
{
	return t->has_full_hist && k < t->nhist && t->hist[k].tiles && t->full_hist[k].tiles &&
	       t->full_hist[k].f;
}

int fp_hist_mape(const struct fp_trace *t, double mape[3])
{
	double sum[3] = { 0 };
	int64_t n[3] = { 0 };
	int sizes = 0;

	for (unsigned k = 0; k < t->nhist; k++) {
		const struct dc_fphist_bin *s = &t->hist[k], *f = &t->full_hist[k];
		const uint64_t sv[3] = { s->f, s->fstr, s->firr }, fv[3] = { f->f, f->fstr, f->firr };
		if (!fp_hist_compared(t, k))
			continue;
		sizes++;
		for (int c = 0; c < 3; c++) {
			double est = (double)sv[c] / (double)s->tiles;
			double exact = (double)fv[c] / (double)f->tiles;
			/* at least 1 % of the full F (sums over the same tiles) */
			if (!fv[c] || 100.0 * (double)fv[c] < (double)fv[0])
				continue;
			sum[c] += 100.0 * fabs(est - exact) / exact;
			n[c]++;
		}
	}
	for (int c = 0; c < 3; c++)
		mape[c] = fp_mean(sum[c], n[c]);
	return sizes;
}

/* ---- execution interval tree ------------------------------------------- */

size_t fp_interval_tree(const struct fp_trace *t, int levels, struct fp_node **out)
{
	int depth = 1;
	size_t n = 0, cap = 0;
	struct fp_node *nodes = NULL;

	while (((size_t)1 << (depth - 1)) < t->nwins)
		depth++;
	if (levels <= 0 || levels > depth)
		levels = depth;
	for (int k = 0; k < levels; k++) {
		size_t span = (size_t)1 << (depth - 1 - k);
		for (size_t first = 0, i = 0; first < t->nwins; first += span, i++) {
			struct fp_node *nd;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				nodes = xrealloc(nodes, cap * sizeof *nodes);
			}
			nd = &nodes[n++];
			memset(nd, 0, sizeof *nd);
			nd->level = k;
			nd->index = i;
			nd->first = first;
			nd->last = first + span < t->nwins ? first + span : t->nwins;
			for (size_t j = nd->first; j < nd->last; j++)
				add_sums(&nd->s, &t->wins[j].s);
		}
	}
	*out = nodes;
	return n;
}

/* ---- location zoom --------------------------------------------------- */

struct zoom {
	const struct fp_trace *t;
	const struct fp_acc **by_addr;
	double tau;
	unsigned min_bits;
	int64_t *bucket_n, *fn_n;
	struct fp_region *out;
	size_t n, cap;
};

static int cmp_addr(const void *x, const void *y)
{
	const struct fp_acc *a = *(const struct fp_acc *const *)x;
	const struct fp_acc *b = *(const struct fp_acc *const *)y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->time < b->time ? -1 : a->time > b->time;
}

/* A final region: its bounds are those of its accesses, in whole pages of
 * the smallest size. */
static void leaf(struct zoom *z, size_t i0, size_t i1)
{
	uint64_t mask = ((uint64_t)1 << z->min_bits) - 1;
	const struct fp_trace *t = z->t;
	struct fp_region *r;
	uint64_t last_block = UINT64_MAX;
	int64_t best = 0;

	if (z->n == z->cap) {
		z->cap = z->cap ? 2 * z->cap : 16;
		z->out = xrealloc(z->out, z->cap * sizeof *z->out);
	}
	r = &z->out[z->n++];
	memset(r, 0, sizeof *r);
	r->lo = z->by_addr[i0]->addr & ~mask;
	r->hi = (z->by_addr[i1 - 1]->addr | mask) + 1;
	r->accesses = (int64_t)(i1 - i0);
	for (size_t i = i0; i < i1; i++) {
		const struct fp_acc *a = z->by_addr[i];
		if (a->addr >> t->block_bits != last_block) {
			last_block = a->addr >> t->block_bits;
			r->blocks++;
		}
		if (a->d >= 0) {
			r->dsum += a->d;
			r->dn++;
		}
		if (a->bucket < t->nbuckets)
			z->bucket_n[a->bucket]++;
		z->fn_n[a->fn]++;
	}
	r->bucket = UINT32_MAX;
	for (int k = 0; k < 3; k++)
		r->fns[k] = UINT32_MAX;
	/* The most frequent bucket and functions (ties: the lower index);
	 * counts are reset as they are read. */
	for (size_t i = i0; i < i1; i++) {
		uint32_t b = z->by_addr[i]->bucket;
		int64_t c = b < t->nbuckets ? z->bucket_n[b] : 0;
		if (!c)
			continue;
		z->bucket_n[b] = 0;
		if (r->bucket == UINT32_MAX || c > best || (c == best && b < r->bucket)) {
			r->bucket = b;
			best = c;
		}
	}
	for (size_t i = i0; i < i1; i++) {
		uint32_t fn = z->by_addr[i]->fn;
		int64_t c = z->fn_n[fn];
		if (!c)
			continue;
		z->fn_n[fn] = 0;
		for (int k = 0; k < 3; k++) {
			if (r->fns[k] == UINT32_MAX || c > r->fn_count[k] ||
			    (c == r->fn_count[k] && fn < r->fns[k])) {
				for (int m = 2; m > k; m--) {
					r->fns[m] = r->fns[m - 1];
					r->fn_count[m] = r->fn_count[m - 1];
				}
				r->fns[k] = fn;
				r->fn_count[k] = c;
				break;
			}
		}
	}
}

static bool one_bucket(const struct zoom *z, size_t i0, size_t i1)
{
	for (size_t i = i0 + 1; i < i1; i++)
		if (z->by_addr[i]->bucket != z->by_addr[i0]->bucket)
			return false;
	return true;
}

/* A region found with pages of 2^bits: split it into runs of contiguous
 * non-empty pages of the next smaller size and recurse into the hot ones,
 * unless the cold runs would drop more than tau % of its accesses; then,
 * at the smallest page size, or when all its accesses are to one bucket
 * (one data object: smaller pages would only find sampling gaps), the
 * region is final. */
/* The end of the run of contiguous non-empty pages of 2^bits from access j. */
static size_t run_end(const struct zoom *z, size_t j, size_t i1, unsigned bits)
{
	uint64_t end = z->by_addr[j]->addr >> bits;
	size_t k = j + 1;

	while (k < i1 && (z->by_addr[k]->addr >> bits) <= end + 1)
		end = z->by_addr[k++]->addr >> bits;
	return k;
}

static void zoom_region(struct zoom *z, size_t i0, size_t i1, unsigned bits)
{
	unsigned nb = bits >= z->min_bits + 2 ? bits - 2 : z->min_bits;
	double need = z->tau / 100.0 * (double)(i1 - i0);
	size_t hot = 0;

	if (bits <= z->min_bits || one_bucket(z, i0, i1)) {
		leaf(z, i0, i1);
		return;
	}
	for (size_t j = i0, k; j < i1; j = k) {
		k = run_end(z, j, i1, nb);
		if ((double)(k - j) >= need)
			hot += k - j;
	}
	if ((double)(i1 - i0 - hot) > need) {
		leaf(z, i0, i1);
		return;
	}
	for (size_t j = i0, k; j < i1; j = k) {
		k = run_end(z, j, i1, nb);
		if ((double)(k - j) >= need)
			zoom_region(z, j, k, nb);
	}
}

size_t fp_zoom(const struct fp_trace *t, double tau, uint64_t min_page,
	       struct fp_region **out)
{
	struct zoom z = { 0 };

	*out = NULL;
	if (!t->nacc)
		return 0;
	z.t = t;
	z.tau = tau;
	z.min_bits = (unsigned)dc_log2(min_page);
	z.by_addr = xmalloc(t->nacc * sizeof *z.by_addr);
	for (size_t i = 0; i < t->nacc; i++)
		z.by_addr[i] = &t->acc[i];
	qsort(z.by_addr, t->nacc, sizeof *z.by_addr, cmp_addr);
	z.bucket_n = xcalloc(t->nbuckets + 1, sizeof *z.bucket_n);
	z.fn_n = xcalloc(t->nfns + 1, sizeof *z.fn_n);
	zoom_region(&z, 0, t->nacc, 32 > z.min_bits ? 32 : z.min_bits + 2);
	free(z.by_addr);
	free(z.bucket_n);
	free(z.fn_n);
	*out = z.out;
	return z.n;
}
