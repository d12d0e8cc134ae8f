/* fields.c — a bucket by offset and by field (see fields.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/allocsite.h"
#include "analysis/dwtype.h"
#include "analysis/fields.h"
#include "analysis/view.h"
#include "base/err.h"
#include "base/num.h"

/* Counts of one (folded) offset: Dr, Dw, misses at levels 1..4, Lat, and
 * unused bytes at levels 1..4 (from this offset to the next row's). */
enum { V_DR, V_DW, V_M1, V_LAT = V_M1 + DC_MAX_LEVELS, V_U1, V_N = V_U1 + DC_MAX_LEVELS };

/* An unused-bytes range: every byte in [lo, hi) u[k] times at level k+1. */
struct urange {
	int64_t lo, hi;
	int64_t u[DC_MAX_LEVELS];
};

/* A change of the per-byte unused counts at `off` (a range's edge). */
struct uedge {
	int64_t off;
	int64_t d[DC_MAX_LEVELS];
};

struct orow {
	int64_t off, size;
	int64_t v[V_N];
};

void fields_info_init(struct fields_info *fi)
{
	memset(fi, 0, sizeof *fi);
	sbuf_init(&fi->type);
	sbuf_init(&fi->why);
	sbuf_init(&fi->summary);
}

void fields_info_release(struct fields_info *fi)
{
	sbuf_release(&fi->type);
	sbuf_release(&fi->why);
	sbuf_release(&fi->summary);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* The file a global's symbols come from: the program, or for NAME@SONAME
 * the code object of the profile whose base name is SONAME. */
static int global_file(struct profile *p, const char *soname, const char *program,
		       struct sbuf *out)
{
	sqlite3_stmt *st;
	int rc;

	if (!soname) {
		sbuf_adds(out, program);
		return 1;
	}
	rc = sqlite3_prepare_v2(p->db, "SELECT DISTINCT object FROM location", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return -rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *o = (const char *)sqlite3_column_text(st, 0);
		if (o && !strcmp(base_name(o), soname)) {
			sbuf_adds(out, o);
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -rc;
	return rc == SQLITE_ROW;
}

/* The statement ending at line `line` of the source whose base name is
 * file_base, as the profile's locations name it: the line and those before
 * it while they do not end one (';', '{', '}'), at most 8, without their
 * trailing comments.  1, or 0 when no such file can be read. */
static int statement_at(struct profile *p, const char *file_base, int64_t line,
			struct sbuf *out)
{
	sqlite3_stmt *st;
	char *lines[8] = { NULL };
	int found = 0;

	if (sqlite3_prepare_v2(p->db, "SELECT DISTINCT file FROM location WHERE file = ?1 OR"
			       " file LIKE '%/' || ?1", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, file_base, -1, SQLITE_STATIC);
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		FILE *f = path ? fopen(path, "r") : NULL;
		char buf[4096];
		int64_t n = 0;

		if (!f)
			continue;
		while (fgets(buf, sizeof buf, f) && ++n <= line)
			if (n > line - 8) {
				free(lines[n % 8]);
				lines[n % 8] = xmemdup(buf, strlen(buf));
			}
		fclose(f);
		found = n >= line;
	}
	sqlite3_finalize(st);
	if (found) {
		int64_t first = line;
		/* back while the line before does not end a statement */
		while (first > 1 && first > line - 7) {
			const char *prev = lines[(first - 1) % 8];
			size_t k = prev ? allocsite_code_len(prev) : 0;
			if (!prev || !k || strchr(";{}", prev[k - 1]) || prev[0] == '#')
				break;
			first--;
		}
		for (int64_t i = first; i <= line; i++)
			if (lines[i % 8]) {
				sbuf_add(out, lines[i % 8], allocsite_code_len(lines[i % 8]));
				sbuf_adds(out, "\n");
			}
	}
	for (int i = 0; i < 8; i++)
		free(lines[i]);
	return found;
}

/* A heap bucket whose allocation is not a declaration: what its source
 * line assigns the block to (allocsite.h), typed from DWARF. */
static int heap_by_source(struct profile *p, const char *prog, const char *fn,
			  const char *file_base, int64_t line, struct dw_type *t, char *why,
			  size_t whylen)
{
	struct sbuf text;
	char target[256];
	int rc = 0;

	sbuf_init(&text);
	if (!statement_at(p, file_base, line, &text)) {
		snprintf(why + strlen(why), whylen - strlen(why), "; the source of %s:%lld cannot"
			 " be read to see what the block is assigned to", file_base, (long long)line);
		goto out;
	}
	switch (allocsite_parse(text.buf, target, sizeof target)) {
	case ALLOCSITE_TYPE:
		rc = dwtype_named(prog, target, t, why, whylen);
		if (rc == 0)   /* T * in a template: T of this instance */
			rc = dwtype_template_param(prog, fn, target, t, why, whylen);
		break;
	case ALLOCSITE_LVALUE:
		rc = dwtype_heap_lvalue(prog, fn, file_base, line, target, t, why, whylen);
		break;
	case ALLOCSITE_OBJECT:
		rc = dwtype_heap_object(prog, fn, file_base, line, target, t, why, whylen);
		break;
	default:
		snprintf(why, whylen, "%s:%lld assigns the block to no variable, member or cast"
			 " (name its type with DCPROF_NAME_BLOCK_TYPED)", file_base, (long long)line);
		break;
	}
out:
	sbuf_release(&text);
	return rc;
}

/* The element type of bucket id (kind, name): 1 with t, 0 with fi->why. */
static int find_type(struct profile *p, int64_t id, const char *kind, const char *name,
		     struct dw_type *t, struct fields_info *fi)
{
	struct sbuf prog, file, sym, type;
	char why[512] = "";
	int rc = 0;

	sbuf_init(&prog);
	sbuf_init(&file);
	sbuf_init(&sym);
	sbuf_init(&type);
	if (profile_meta(p, "program", &prog) != 1 || !prog.len) {
		snprintf(why, sizeof why, "the profile does not name its program");
		goto out;
	}
	/* The program is argv[0] as typed (./app); the code object of that
	 * base name is its absolute path, found from any directory. */
	if (global_file(p, base_name(prog.buf), prog.buf, &file) == 1) {
		sbuf_reset(&prog);
		sbuf_add(&prog, file.buf, file.len);
		sbuf_reset(&file);
	}
	if (!strcmp(kind, "global")) {
		/* NAME, NAME (file.c) for a file-static, NAME@SONAME */
		const char *at = strchr(name, '@'), *paren = strstr(name, " (");
		char *fb = NULL;
		sbuf_add(&sym, name, at ? (size_t)(at - name) : paren ? (size_t)(paren - name)
								   : strlen(name));
		if (paren && !at && name[strlen(name) - 1] == ')')
			fb = xmemdup(paren + 2, strlen(paren + 2) - 1);
		rc = global_file(p, at ? at + 1 : NULL, prog.buf, &file);
		if (rc == 1)
			rc = dwtype_global(file.buf, sym.buf, fb, t, why, sizeof why);
		else if (rc == 0)
			snprintf(why, sizeof why, "no code object of the profile is '%s'", at + 1);
		free(fb);
	} else if (!strcmp(kind, "heap")) {
		/* fn (file.c:41) < caller ...: the first frame's site */
		const char *open = strstr(name, " ("), *close = open ? strchr(open, ')') : NULL;
		const char *colon = NULL;
		for (const char *c = open; c && c < close; c++)
			if (*c == ':')
				colon = c;
		if (!open || !close || !colon) {
			snprintf(why, sizeof why, "the bucket name has no file and line of its"
				 " allocation");
			goto out;
		}
		sbuf_add(&sym, name, (size_t)(open - name));
		sbuf_add(&file, open + 2, (size_t)(colon - open - 2));
		rc = dwtype_heap_site(prog.buf, sym.buf, file.buf, strtoll(colon + 1, NULL, 10), t,
				      why, sizeof why);
		if (rc == 2)
			rc = 0;         /* the site's variables disagree (why) */
		else if (rc == 0)
			rc = heap_by_source(p, prog.buf, sym.buf, file.buf,
					    strtoll(colon + 1, NULL, 10), t, why, sizeof why);
	} else if (!strcmp(kind, "user")) {
		sqlite3_stmt *st;
		rc = 0;
		if (p->version >= 7 &&
		    sqlite3_prepare_v2(p->db, "SELECT type FROM bucket_type WHERE bucket = ?1", -1,
				       &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, id);
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
				sbuf_adds(&type, (const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
		}
		if (type.len)
			rc = dwtype_named(prog.buf, type.buf, t, why, sizeof why);
		else
			snprintf(why, sizeof why, "the program gave no type (DCPROF_NAME_BLOCK_TYPED)");
	}
	if (rc < 0)
		rc = 0;
out:
	if (rc != 1)
		sbuf_adds(&fi->why, why);
	sbuf_release(&prog);
	sbuf_release(&file);
	sbuf_release(&sym);
	sbuf_release(&type);
	return rc == 1;
}

static int cmp_off(const void *a, const void *b)
{
	const struct orow *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off ? 1 : 0;
}

static void add_into(struct orow *to, const struct orow *from)
{
	for (int k = 0; k < V_N; k++)
		to->v[k] = num_add(to->v[k], from->v[k], NULL);
	if (from->size > to->size)
		to->size = from->size;
}

/* Folds offsets by size (when > 0), sorts and merges equal ones; returns
 * the new count. */
static size_t fold(struct orow *r, size_t n, int64_t size)
{
	size_t m = 0;

	for (size_t i = 0; size > 0 && i < n; i++)
		r[i].off %= size;
	qsort(r, n, sizeof *r, cmp_off);
	for (size_t i = 0; i < n; i++) {
		if (m && r[m - 1].off == r[i].off)
			add_into(&r[m - 1], &r[i]);
		else
			r[m++] = r[i];
	}
	return m;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct uedge *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off ? 1 : 0;
}

static void add_edge(struct uedge **e, size_t *n, size_t *cap, int64_t off, const int64_t *u,
		     int sign)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*e = xrealloc(*e, *cap * sizeof **e);
	}
	(*e)[*n].off = off;
	for (int k = 0; k < DC_MAX_LEVELS; k++)
		(*e)[*n].d[k] = sign * u[k];
	(*n)++;
}

/* Folds unused ranges by size (when > 0: a range covering whole elements
 * adds to every byte of one) into disjoint ranges in offset order, which
 * replace u[0..*n); returns the new array. */
static struct urange *fold_unused(struct urange *u, size_t *n, int64_t size)
{
	struct uedge *e = NULL;
	struct urange *out = NULL;
	size_t ne = 0, cape = 0, m = 0, capo = 0;
	int64_t cov[DC_MAX_LEVELS] = { 0 };

	for (size_t i = 0; i < *n; i++) {
		int64_t lo = u[i].lo, hi = u[i].hi;
		if (size > 0) {
			int64_t whole = (hi - lo) / size, w[DC_MAX_LEVELS];
			for (int k = 0; k < DC_MAX_LEVELS; k++)
				w[k] = num_mul(u[i].u[k], whole, NULL);
			if (whole) {
				add_edge(&e, &ne, &cape, 0, w, 1);
				add_edge(&e, &ne, &cape, size, w, -1);
			}
			lo += whole * size;
			if (lo == hi)
				continue;
			hi = hi - lo + lo % size;
			lo %= size;
			if (hi > size) {
				add_edge(&e, &ne, &cape, 0, u[i].u, 1);
				add_edge(&e, &ne, &cape, hi - size, u[i].u, -1);
				hi = size;
			}
		}
		add_edge(&e, &ne, &cape, lo, u[i].u, 1);
		add_edge(&e, &ne, &cape, hi, u[i].u, -1);
	}
	qsort(e, ne, sizeof *e, cmp_edge);
	for (size_t i = 0; i < ne; i++) {
		bool any = false;
		for (int k = 0; k < DC_MAX_LEVELS; k++) {
			cov[k] += e[i].d[k];
			any |= cov[k] != 0;
		}
		if (!any || (i + 1 < ne && e[i + 1].off == e[i].off) || i + 1 == ne)
			continue;
		if (m == capo) {
			capo = capo ? 2 * capo : 64;
			out = xrealloc(out, capo * sizeof *out);
		}
		out[m].lo = e[i].off;
		out[m].hi = e[i + 1].off;
		memcpy(out[m].u, cov, sizeof cov);
		m++;
	}
	free(e);
	free(u);
	*n = m;
	return out;
}

/* Adds to to[V_U1 + k] the unused bytes of ranges u[0..n) in [lo, hi). */
static void add_unused(int64_t *to, const struct urange *u, size_t n, int64_t lo, int64_t hi)
{
	for (size_t i = 0; i < n; i++) {
		int64_t a = u[i].lo > lo ? u[i].lo : lo, b = u[i].hi < hi ? u[i].hi : hi;
		if (a >= b)
			continue;
		for (int k = 0; k < DC_MAX_LEVELS; k++)
			to[V_U1 + k] = num_add(to[V_U1 + k], num_mul(u[i].u[k], b - a, NULL), NULL);
	}
}

struct cols {
	int key, field, off, size, v[V_N], misslat, accpct, misspct, note;
};

static void add_cols(struct table *t, struct profile *p, enum fields_by by, struct cols *c,
		     bool unused)
{
	static const char *const names[DC_MAX_LEVELS] = { "D1m", "D2m", "D3m", "D4m" };
	static const char *const unames[DC_MAX_LEVELS] = { "Unused1", "Unused2", "Unused3",
							   "Unused4" };

	memset(c, -1, sizeof *c);
	if (by == FIELDS_FIELD) {
		c->field = table_add_col(t, "field", NULL, COL_STR, true);
		c->off = table_add_col(t, "offset", NULL, COL_INT, false);
		c->size = table_add_col(t, "size", NULL, COL_INT, false);
	} else {
		c->off = table_add_col(t, "offset", NULL, COL_INT, true);
		c->field = table_add_col(t, "field", NULL, COL_STR, false);
		c->size = table_add_col(t, "access_size", "size", COL_INT, false);
	}
	c->v[V_DR] = table_add_col(t, "Dr", NULL, COL_INT, false);
	c->v[V_DW] = table_add_col(t, "Dw", NULL, COL_INT, false);
	for (int k = 0; k < p->nlevels; k++)
		c->v[V_M1 + k] = table_add_col(t, k == p->nlevels - 1 && k ? "DLm" : names[k], NULL,
					       COL_INT, false);
	c->v[V_LAT] = table_add_col(t, "Lat", NULL, COL_INT, false);
	c->misslat = table_add_col(t, "MissLat", NULL, COL_INT, false);
	c->accpct = table_add_col(t, "AccPct", "Acc%", COL_PCT, false);
	c->misspct = table_add_col(t, "MissPct", "Miss%", COL_PCT, false);
	for (int k = 0; unused && k < p->nlevels; k++)
		c->v[V_U1 + k] = table_add_col(t, k == p->nlevels - 1 && k ? "UnusedL" : unames[k],
					       NULL, COL_INT, false);
	if (by == FIELDS_FIELD)
		c->note = table_add_col(t, "note", NULL, COL_STR, false);
}

static double pct(int64_t part, int64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Sets the metric cells of row from counts v; totals for the shares. */
static void set_metrics(struct table *t, struct profile *p, const struct cols *c,
			struct cell *row, const int64_t *v, const int64_t *tot, bool shares)
{
	int64_t acc = num_add(v[V_DR], v[V_DW], NULL);

	for (int k = 0; k < V_N; k++)
		if (c->v[k] >= 0)
			cell_set_int(&row[c->v[k]], v[k]);
	cell_set_int(&row[c->misslat], view_misslat(v[V_LAT], acc, v[V_M1], p->lv[0].latency));
	if (shares) {
		cell_set_real(&row[c->accpct], pct(acc, num_add(tot[V_DR], tot[V_DW], NULL)));
		cell_set_real(&row[c->misspct], pct(v[V_M1], tot[V_M1]));
	}
	(void)t;
}

static void set_str(struct cell *c, const char *s)
{
	cell_set_str(c, s, strlen(s));
}

/* An array of scalars: one field, the element itself. */
static bool scalar_type(const struct dw_type *ty)
{
	return ty->nfields == 1 && !strcmp(ty->fields[0].name, ty->name);
}

/* The width of bucket id's offset cells, the engine's grain (engine.md,
 * "Offsets within objects"): the least power of two g <= 8 with which
 * meta offset_bucket_cells cells cover its first object (the window if
 * smaller).  The profile does not say which object came first, so the
 * largest object stands for it: never narrower than the grain.  Every
 * cell starts at a multiple of the grain, which bounds it too. */
static int64_t cell_bytes(struct profile *p, int64_t id, const struct orow *r, size_t n,
			  struct fields_info *fi)
{
	int64_t window = fi->window;
	struct sbuf val;
	sqlite3_stmt *st;
	int64_t share = 0, size = -1, g = 8;

	sbuf_init(&val);
	if (profile_meta(p, "offset_bucket_cells", &val) == 1)
		share = strtoll(val.buf, NULL, 10);
	sbuf_release(&val);
	if (sqlite3_prepare_v2(p->db, "SELECT max_size FROM bucket WHERE id = ?1", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			size = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	/* profiles before the bucket share had a cell per byte */
	if (share <= 0)
		return 1;
	if (size >= 0) {
		int64_t ext = window > 0 && window < size ? window : size;
		fi->cell_share = share;
		fi->cell_ext = ext;
		g = 1;
		while (g < 8 && (ext + g - 1) / g > share)
			g *= 2;
	}
	for (size_t i = 0; i < n; i++)
		while (g > 1 && r[i].off % g)
			g /= 2;
	return g;
}

/* The fields holding bytes of the cell at folded offset off, g bytes wide
 * (wrapping into the next element), in idx[0..8); returns how many. */
static size_t cell_fields(const struct dw_type *ty, int64_t off, int64_t g, size_t *idx)
{
	size_t n = 0;

	for (int64_t b = off; b < off + g && b - off < 8; b++) {
		const struct dw_field *f = dw_type_field_at(ty, ty->size > 0 ? b % ty->size : b);
		size_t k = f ? (size_t)(f - ty->fields) : 0, j = 0;
		while (f && j < n && idx[j] != k)
			j++;
		if (f && j == n)
			idx[n++] = k;
	}
	return n;
}

/* A row of the field view: a field, or the fields sharing cells. */
struct frow {
	struct sbuf name;
	int64_t off, size;
	int64_t v[V_N];
	size_t idx[8], nidx;       /* shared rows: the fields */
	size_t shared;             /* fields: 1 + the shared row holding it
	                            * with accesses, else 0 */
	const char *note;
	struct sbuf see;           /* "see a|b" */
};

static int cmp_frow(const void *a, const void *b)
{
	const struct frow *x = *(struct frow *const *)a, *y = *(struct frow *const *)b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	return (x->nidx > 0) - (y->nidx > 0);
}

/* "struct node: next 48.00 % of L1 misses, key 47.00 %; payload[40] never
 * read" from the view's rows r[0..n) (fields, and fields sharing cells). */
static void summarize(struct fields_info *fi, const struct dw_type *ty, struct frow **r,
		      size_t n, const int64_t *tot, bool unused)
{
	size_t *order = xcalloc(n ? n : 1, sizeof *order), m = 0;
	bool first = true;

	sbuf_addf(&fi->summary, "%s:", ty->name);
	/* an array of scalars has one field, the element itself: nothing to
	 * rank, and "double 100 %" would say nothing */
	if (scalar_type(ty)) {
		sbuf_addf(&fi->summary, " elements of %lld bytes, no fields to compare; --by offset"
			  " shows which elements miss", (long long)ty->size);
		free(order);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if (r[i]->v[V_M1] > 0)
			order[m++] = i;
	/* by misses, descending (few fields: insertion sort) */
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && r[order[j]]->v[V_M1] > r[order[j - 1]]->v[V_M1]; j--) {
			size_t x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (size_t i = 0; i < m; i++) {
		sbuf_addf(&fi->summary, "%s %s %.2f %%%s", first ? "" : ",",
			  r[order[i]]->name.buf, pct(r[order[i]]->v[V_M1], tot[V_M1]),
			  first ? " of L1 misses" : "");
		first = false;
	}
	if (first)
		sbuf_adds(&fi->summary, " no L1 misses");
	first = true;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(r[i]->note, "never", 5))
			continue;
		sbuf_addf(&fi->summary, "%s %s %s", first ? ";" : ",", r[i]->name.buf, r[i]->note);
		first = false;
	}
	/* the fields holding most of level 1's unused bytes */
	m = 0;
	for (size_t i = 0; unused && i < n; i++)
		if (r[i]->v[V_U1] > 0)
			order[m++] = i;
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && r[order[j]]->v[V_U1] > r[order[j - 1]]->v[V_U1]; j--) {
			size_t x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	for (size_t i = 0; i < m && i < 3; i++)
		sbuf_addf(&fi->summary, "%s %s %.2f %%%s", i ? "," : ";", r[order[i]]->name.buf,
			  pct(r[order[i]]->v[V_U1], tot[V_U1]), i ? "" : " of L1 unused bytes");
	free(order);
}

/* The field view: one row per field of ty, one per set of fields sharing
 * cells (a|b: the engine's cells are g bytes wide and an access counts in
 * the cell of its first byte, so their accesses cannot be told apart),
 * then (padding).  rows[0..n) are the folded cells, ur[0..nu) the unused
 * ranges. */
static void field_view(struct table *t, struct profile *p, const struct cols *c,
		       struct fields_info *fi, const struct dw_type *ty, const struct orow *rows,
		       size_t n, const struct urange *ur, size_t nu, const int64_t *tot, int64_t g,
		       bool unused)
{
	size_t nf = ty->nfields, ns = 0, caps = 0, nall;
	struct frow *fr = xcalloc(nf ? nf : 1, sizeof *fr), *sh = NULL, **all;
	int64_t pad[V_N] = { 0 };
	bool any_pad = false;

	for (size_t i = 0; i < nf; i++) {
		sbuf_init(&fr[i].name);
		sbuf_init(&fr[i].see);
		sbuf_adds(&fr[i].name, ty->fields[i].name);
		fr[i].off = ty->fields[i].off;
		fr[i].size = ty->fields[i].size;
	}
	for (size_t i = 0; i < n; i++) {
		size_t idx[8], k = cell_fields(ty, rows[i].off, g, idx), j = 0;
		int64_t *to = pad;

		if (k == 1) {
			to = fr[idx[0]].v;
		} else if (k > 1) {
			while (j < ns && (sh[j].nidx != k || memcmp(sh[j].idx, idx, k * sizeof *idx)))
				j++;
			if (j == ns) {
				if (ns == caps) {
					caps = caps ? 2 * caps : 16;
					sh = xrealloc(sh, caps * sizeof *sh);
				}
				memset(&sh[ns], 0, sizeof sh[ns]);
				sbuf_init(&sh[ns].name);
				for (size_t q = 0; q < k; q++)
					sbuf_addf(&sh[ns].name, "%s%s", q ? "|" : "",
						  ty->fields[idx[q]].name);
				memcpy(sh[ns].idx, idx, k * sizeof *idx);
				sh[ns].nidx = k;
				sh[ns].off = rows[i].off;
				ns++;
			}
			if (rows[i].off < sh[j].off) {
				sh[j].size += sh[j].off - rows[i].off;
				sh[j].off = rows[i].off;
			}
			if (rows[i].off + g - sh[j].off > sh[j].size)
				sh[j].size = rows[i].off + g - sh[j].off;
			to = sh[j].v;
		}
		any_pad |= k == 0;
		for (int q = 0; q < V_U1; q++)
			to[q] = num_add(to[q], rows[i].v[q], NULL);
	}
	for (size_t i = 0; i < nf; i++)
		add_unused(fr[i].v, ur, nu, ty->fields[i].off, ty->fields[i].off + ty->fields[i].size);
	/* bytes in no field (folded ranges lie within one element) */
	for (size_t i = 0; i < nu; i++)
		for (int64_t o = ur[i].lo; o < ur[i].hi; o++) {
			if (dw_type_field_at(ty, o))
				continue;
			any_pad = true;
			add_unused(pad, ur + i, 1, o, o + 1);
		}
	/* a field with no reads of its own may have some in a shared row */
	for (size_t j = 0; j < ns; j++)
		for (size_t q = 0; q < sh[j].nidx; q++) {
			struct frow *f = &fr[sh[j].idx[q]];
			if (!sh[j].v[V_DR] && !sh[j].v[V_DW])
				continue;
			if (!f->shared || sh[j].v[V_DR])
				f->shared = 1 + j;
		}
	for (size_t j = 0; j < ns; j++)
		sh[j].note = sh[j].v[V_DR] ? "" : sh[j].v[V_DW] ? "never read" : "never accessed";
	for (size_t i = 0; i < nf; i++) {
		struct frow *f = &fr[i], *s = f->shared ? &sh[f->shared - 1] : NULL;
		/* the shared row's accesses may all be this field's, or none */
		if (f->v[V_DR])
			f->note = "";
		else if (s && (s->v[V_DR] || !f->v[V_DW])) {
			sbuf_addf(&f->see, "see %s", s->name.buf);
			f->note = f->see.buf;
		} else {
			f->note = f->v[V_DW] ? "never read" : "never accessed";
		}
	}
	nall = nf + ns;
	all = xcalloc(nall ? nall : 1, sizeof *all);
	for (size_t i = 0; i < nf; i++)
		all[i] = &fr[i];
	for (size_t j = 0; j < ns; j++)
		all[nf + j] = &sh[j];
	qsort(all, nall, sizeof *all, cmp_frow);
	for (size_t i = 0; i < nall; i++) {
		struct cell *row = table_add_row(t);
		cell_set_str(&row[c->field], all[i]->name.buf, all[i]->name.len);
		cell_set_int(&row[c->off], all[i]->off);
		cell_set_int(&row[c->size], all[i]->size);
		set_metrics(t, p, c, row, all[i]->v, tot, true);
		set_str(&row[c->note], all[i]->note);
	}
	if (any_pad) {
		struct cell *row = table_add_row(t);
		set_str(&row[c->field], "(padding)");
		set_metrics(t, p, c, row, pad, tot, true);
		set_str(&row[c->note], "");
	}
	fi->shared = ns;
	summarize(fi, ty, all, nall, tot, unused);
	for (size_t i = 0; i < nf; i++) {
		sbuf_release(&fr[i].name);
		sbuf_release(&fr[i].see);
	}
	for (size_t j = 0; j < ns; j++)
		sbuf_release(&sh[j].name);
	free(fr);
	free(sh);
	free(all);
}

int fields_build(struct profile *p, const char *object, enum fields_by by, struct table *t,
		 struct fields_info *fi, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	struct orow *rows = NULL, beyond = { 0 };
	struct urange *ur = NULL;
	size_t n = 0, cap = 0, nu = 0, capu = 0;
	bool unused = false;
	int64_t id = -1, tot[V_N] = { 0 };
	char kind[16] = "";
	struct sbuf val;
	struct dw_type ty;
	bool have_type = false, have_beyond = false;
	struct cols c;
	int rc, ret = -1;

	memset(&ty, 0, sizeof ty);
	sbuf_init(&val);
	rc = sqlite3_prepare_v2(p->db, "SELECT id, kind FROM bucket WHERE name = ?1 ORDER BY id"
				" LIMIT 1", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_text(st, 1, object, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		if (sqlite3_column_text(st, 1))
			snprintf(kind, sizeof kind, "%s", (const char *)sqlite3_column_text(st, 1));
	} else if (rc != SQLITE_DONE) {
		goto sql_error;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (id < 0) {
		snprintf(err, errlen, "no bucket named '%s'", object);
		goto out;
	}
	if (strcmp(kind, "global") && strcmp(kind, "heap") && strcmp(kind, "user")) {
		snprintf(err, errlen, "bucket '%s' is a %s bucket: offsets are recorded for"
			 " globals, heap and user buckets only", object, kind);
		goto out;
	}
	rc = profile_meta(p, "offsets", &val);
	if (rc < 0)
		goto sql_error;
	if (rc == 0 || strcmp(val.buf, "yes") || p->version < 7) {
		snprintf(err, errlen, "profile '%s' has no offsets; record with --offsets=yes",
			 p->path);
		goto out;
	}
	sbuf_reset(&val);
	if (profile_meta(p, "offset_window", &val) == 1)
		fi->window = strtoll(val.buf, NULL, 10);

	rc = sqlite3_prepare_v2(p->db, "SELECT o.offset, MAX(o.size), SUM(o.Dr), SUM(o.Dw),"
				" SUM(o.D1m), SUM(o.D2m), SUM(o.D3m), SUM(o.D4m), SUM(o.Lat)"
				" FROM offset_cost o JOIN bucket b ON b.id = o.bucket"
				" WHERE b.name = ?1 GROUP BY o.offset", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto sql_error;
	sqlite3_bind_text(st, 1, object, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct orow r;
		r.off = sqlite3_column_int64(st, 0);
		r.size = sqlite3_column_int64(st, 1);
		for (int k = 0; k < V_N; k++)
			r.v[k] = sqlite3_column_int64(st, 2 + k);
		if (r.off < 0) {
			beyond = r;
			have_beyond = true;
			continue;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			rows = xrealloc(rows, cap * sizeof *rows);
		}
		rows[n++] = r;
	}
	if (rc != SQLITE_DONE)
		goto sql_error;
	sqlite3_finalize(st);
	st = NULL;

	/* unused bytes: --cache-use with --offsets, schema version 8 */
	sbuf_reset(&val);
	rc = profile_meta(p, "cache_use", &val);
	if (rc < 0)
		goto sql_error;
	unused = p->version >= 8 && rc == 1 && !strcmp(val.buf, "yes");
	if (unused) {
		rc = sqlite3_prepare_v2(p->db, "SELECT o.offset, o.end_offset, o.Unused1, o.Unused2,"
					" o.Unused3, o.Unused4 FROM offset_unused o JOIN bucket b"
					" ON b.id = o.bucket WHERE b.name = ?1", -1, &st, NULL);
		if (rc != SQLITE_OK)
			goto sql_error;
		sqlite3_bind_text(st, 1, object, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct urange u;
			u.lo = sqlite3_column_int64(st, 0);
			u.hi = sqlite3_column_int64(st, 1);
			for (int k = 0; k < DC_MAX_LEVELS; k++)
				u.u[k] = sqlite3_column_int64(st, 2 + k);
			if (u.lo < 0 || u.hi <= u.lo) {
				for (int k = 0; k < DC_MAX_LEVELS; k++)
					beyond.v[V_U1 + k] = num_add(beyond.v[V_U1 + k], u.u[k], NULL);
				have_beyond = true;
				continue;
			}
			if (nu == capu) {
				capu = capu ? 2 * capu : 64;
				ur = xrealloc(ur, capu * sizeof *ur);
			}
			ur[nu++] = u;
		}
		if (rc != SQLITE_DONE)
			goto sql_error;
		sqlite3_finalize(st);
		st = NULL;
	}

	have_type = find_type(p, id, kind, object, &ty, fi);
	if (have_type) {
		sbuf_adds(&fi->type, ty.name);
		fi->elem_size = ty.size;
		/* an array of scalars has nothing inside an element to show by
		 * offset: its offsets stay where in the object they are */
		fi->folded = by == FIELDS_FIELD || !scalar_type(&ty);
	} else if (by == FIELDS_FIELD) {
		snprintf(err, errlen, "no type known for bucket '%s' (%s); --by offset shows its"
			 " offsets", object, fi->why.buf);
		goto out;
	}
	fi->cell_bytes = cell_bytes(p, id, rows, n, fi);
	n = fold(rows, n, fi->folded ? ty.size : 0);
	if (unused) {
		ur = fold_unused(ur, &nu, fi->folded ? ty.size : 0);
		/* by offset, a row starts each unused range too */
		if (by == FIELDS_OFFSET) {
			for (size_t i = 0; i < nu; i++) {
				if (n == cap) {
					cap = cap ? 2 * cap : 64;
					rows = xrealloc(rows, cap * sizeof *rows);
				}
				memset(&rows[n], 0, sizeof rows[n]);
				rows[n++].off = ur[i].lo;
			}
			n = fold(rows, n, 0);
			for (size_t i = 0; i < n; i++)
				add_unused(rows[i].v, ur, nu, rows[i].off,
					   i + 1 < n ? rows[i + 1].off : INT64_MAX);
		}
		add_unused(tot, ur, nu, 0, INT64_MAX);
	}
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < V_U1; k++)
			tot[k] = num_add(tot[k], rows[i].v[k], NULL);
	fi->counted = num_add(tot[V_DR], tot[V_DW], NULL);
	fi->beyond = num_add(beyond.v[V_DR], beyond.v[V_DW], NULL);

	add_cols(t, p, by, &c, unused);
	if (by == FIELDS_OFFSET) {
		for (size_t i = 0; i < n; i++) {
			struct cell *row = table_add_row(t);
			const struct dw_field *f = have_type ? dw_type_field_at(&ty, rows[i].off)
							     : NULL;
			cell_set_int(&row[c.off], rows[i].off);
			if (have_type && !fi->folded) {
				char el[32];
				snprintf(el, sizeof el, "[%lld]", (long long)(rows[i].off / ty.size));
				set_str(&row[c.field], el);
			} else if (have_type) {
				size_t idx[8], k = cell_fields(&ty, rows[i].off, fi->cell_bytes, idx);
				struct sbuf nm;
				sbuf_init(&nm);
				for (size_t q = 0; q < k; q++)
					sbuf_addf(&nm, "%s%s", q ? "|" : "", ty.fields[idx[q]].name);
				if (!k)
					sbuf_adds(&nm, f ? f->name : "(padding)");
				cell_set_str(&row[c.field], nm.buf, nm.len);
				sbuf_release(&nm);
			}
			cell_set_int(&row[c.size], rows[i].size);
			set_metrics(t, p, &c, row, rows[i].v, tot, true);
		}
	} else {
		field_view(t, p, &c, fi, &ty, rows, n, ur, nu, tot, fi->cell_bytes, unused);
	}
	if (have_beyond) {
		struct cell *row = table_add_row(t);
		set_str(&row[c.field], "(beyond)");
		if (by == FIELDS_OFFSET)    /* by field, size is a field's */
			cell_set_int(&row[c.size], beyond.size);
		set_metrics(t, p, &c, row, beyond.v, tot, false);
		if (by == FIELDS_FIELD)
			set_str(&row[c.note], "");
	}
	/* totals: what was counted by offset, the beyond row apart */
	t->has_total = true;
	for (int j = 0; j < t->ncols; j++)
		t->total[j].null = true;
	set_str(&t->total[c.field], "total");
	set_metrics(t, p, &c, t->total, tot, tot, true);
	ret = 0;
	goto out;
sql_error:
	profile_read_error(p, err, errlen);
out:
	sqlite3_finalize(st);
	free(rows);
	free(ur);
	if (have_type)
		dw_type_release(&ty);
	sbuf_release(&val);
	return ret;
}
