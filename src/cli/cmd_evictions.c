/* cmd_evictions.c — dcprof evictions: who evicts whom (seeds/002 ch. 5).
 *
 * Notes (docs/cli.md):
 *  - The matrix (Tables 13-18): the top N buckets by misses at the level
 *    are both the columns (victims) and the rows (evictors); a cell is the
 *    share of the column's evictions at that level made by accesses to the
 *    row's bucket, and the `other` row holds every other evictor, so a
 *    column with evictions sums to 100 %.
 *  - --object U (Tables 19-21): the evictions of the bucket(s) named U by
 *    evictor bucket, optionally per function or source line of the
 *    evicting access.
 *  - --sampled reads cost_sampled and the eviction rows with sampled = 1,
 *    which exist only at the level of the sampled miss event.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/evmatrix.h"
#include "analysis/view.h"
#include "base/fmt.h"
#include "base/num.h"
#include "cli/cli.h"
#include "cli/opts.h"
#include "report/header.h"
#include "report/render.h"
#include "report/shorten.h"
#include "store/sample.h"

#define MATRIX_MAX EVMATRIX_MAX   /* victims: the table's columns, less the two keys */

enum { OPT_LEVEL = OPT_OWN, OPT_SAMPLED, OPT_TOP, OPT_OBJECT, OPT_BY, OPT_FORMAT };

static const struct opt_def evictions_opts[] = {
	{ OPT_HELP, 'h', "help", OPT_NOARG },
	{ OPT_LEVEL, 0, "level", OPT_REQUIRED },
	{ OPT_SAMPLED, 0, "sampled", OPT_NOARG },
	{ OPT_TOP, 0, "top", OPT_REQUIRED },
	{ OPT_OBJECT, 0, "object", OPT_REQUIRED },
	{ OPT_BY, 0, "by", OPT_REQUIRED },
	{ OPT_FORMAT, 0, "format", OPT_REQUIRED },
	{ 0, 0, NULL, 0 },
};

void cmd_evictions_usage(FILE *f)
{
	fprintf(f,
		"usage: dcprof evictions PROFILE [options]\n"
		"       dcprof evictions PROFILE --object NAME [--by function|line] [options]\n"
		"\n"
		"Who evicts whom, for a profile recorded with --evictions=yes (or, with\n"
		"--sampled, with --sample of a miss event).  The matrix: for the top buckets\n"
		"by misses, the share of each one's evictions (columns) made by accesses\n"
		"to each of them (rows) and to all others.  With --object: who evicts\n"
		"bucket NAME, and where.\n"
		"\n"
		"  --level L                  cache level (default: 1; with --sampled the\n"
		"                             level of the sampled event)\n"
		"  --sampled                  the sampled estimates instead of the exact\n"
		"                             counts (default: exact)\n"
		"  --top N                    matrix: the top N buckets, 1 to %d (default: 5);\n"
		"                             --object: show the first N rows, 0 = all\n"
		"                             (default: 20 for text, all for csv and json)\n"
		"  --object NAME              the evictions of the bucket(s) named NAME\n"
		"  --by function|line         with --object: one row per evicting bucket and\n"
		"                             function or source line (default: per bucket)\n"
		"  --format text|csv|json     output format (default: text)\n"
		"  -h, --help                 show this help\n", MATRIX_MAX);
}

struct evictions {
	const char *path;
	int level;                 /* 0 until known */
	bool sampled;
	bool top_given;
	size_t top;
	const char *object;
	bool by_given;
	enum view_kind by;
	enum out_format format;
	struct sample_info si;
	bool has_fill;
	int64_t fill[3];           /* fills, empty fills, evictions */
};

static int parse(struct evictions *e, int argc, char **argv)
{
	struct opt_iter it;
	uint64_t v;
	int id;

	opt_iter_init(&it, argc, argv, false);
	while ((id = opt_next_cmd(&it, evictions_opts, "evictions", cmd_evictions_usage, &e->path)) > 0) {
		switch (id) {
		case OPT_LEVEL:
			if (num_parse_u64(it.arg, DC_MAX_LEVELS, &v) || v == 0) {
				err_msg("invalid --level value '%s' (1 to %d)", it.arg,
					  DC_MAX_LEVELS);
				return -1;
			}
			e->level = (int)v;
			break;
		case OPT_SAMPLED:
			e->sampled = true;
			break;
		case OPT_TOP:
			if (num_parse_u64(it.arg, SIZE_MAX, &v)) {
				err_msg("invalid --top value '%s' (a number)", it.arg);
				return -1;
			}
			e->top = (size_t)v;
			e->top_given = true;
			break;
		case OPT_OBJECT:
			e->object = it.arg;
			break;
		case OPT_BY:
			e->by_given = true;
			if (!strcmp(it.arg, "function"))
				e->by = VIEW_FUNCTION;
			else if (!strcmp(it.arg, "line"))
				e->by = VIEW_LINE;
			else {
				err_msg("invalid --by value '%s' (function or line)", it.arg);
				return -1;
			}
			break;
		case OPT_FORMAT:
			if (render_parse_format(it.arg, &e->format))
				return -1;
			break;
		}
	}
	if (id != OPT_DONE)
		return id == OPT_HELP_SHOWN ? 1 : -1;
	if (e->by_given && !e->object) {
		err_msg("--by needs --object");
		return -1;
	}
	if (!e->object && e->top_given && (e->top == 0 || e->top > MATRIX_MAX)) {
		err_msg("invalid --top value '%zu' (the matrix shows 1 to %d buckets)", e->top,
			  MATRIX_MAX);
		return -1;
	}
	if (!e->top_given)
		e->top = e->object ? (e->format == FMT_TEXT ? 20 : 0) : 5;
	return 0;
}

/* The profile has the eviction rows asked for; settles the level. */
static int check_data(struct profile *p, struct evictions *e, char *err, size_t errlen)
{
	struct sbuf v;
	int rc = 0;

	if (e->sampled) {
		if (sample_info_read(p, &e->si, err, errlen))
			return -1;
		if (!e->si.level) {
			snprintf(err, errlen, "profile '%s' has no sampled evictions: its sampled"
				 " event %s is not a miss event", p->path, e->si.event);
			return -1;
		}
		if (e->level && e->level != e->si.level) {
			snprintf(err, errlen, "profile '%s' has sampled evictions only at level %d"
				 " (the sampled event is %s)", p->path, e->si.level, e->si.event);
			return -1;
		}
		e->level = e->si.level;
	} else {
		sbuf_init(&v);
		if (p->version >= 2)
			rc = profile_meta(p, "evictions", &v);
		if (rc > 0)
			rc = !strcmp(v.buf, "yes");
		sbuf_release(&v);
		if (rc < 0) {
			profile_read_error(p, err, errlen);
			return -1;
		}
		if (!rc) {
			snprintf(err, errlen, "profile '%s' has no eviction data; record with"
				 " --evictions=yes", p->path);
			return -1;
		}
	}
	if (!e->level)
		e->level = 1;
	if (e->level > p->nlevels) {
		snprintf(err, errlen, "profile '%s' has no level %d (it has %d levels)", p->path,
			 e->level, p->nlevels);
		return -1;
	}
	return 0;
}

static int read_fill(struct profile *p, struct evictions *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(p->db, "SELECT fills, empty_fills, evictions FROM level_fill"
			       " WHERE level = ?1", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int(st, 1, e->level);
	rc = sqlite3_step(st);
	e->has_fill = rc == SQLITE_ROW;
	for (int i = 0; e->has_fill && i < 3; i++)
		e->fill[i] = sqlite3_column_int64(st, i);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* The level line and, when known, the fills line. */
static void text_intro(struct sbuf *out, struct profile *p, const struct evictions *e)
{
	const char *name = p->lv[e->level - 1].name;

	sbuf_addf(out, "%-10s%d (", "level:", e->level);
	fmt_text(out, name, strlen(name));
	sbuf_adds(out, "), ");
	if (e->sampled) {
		sbuf_adds(out, "sampled estimates from ");
		sample_describe(out, &e->si);
	} else {
		sbuf_adds(out, "exact counts");
	}
	if (e->has_fill) {
		sbuf_addf(out, "\n%-10s", "fills:");
		fmt_thousands(out, e->fill[0]);
		sbuf_adds(out, " lines filled: ");
		fmt_thousands(out, e->fill[1]);
		sbuf_adds(out, " into empty lines, ");
		fmt_thousands(out, e->fill[2]);
		sbuf_adds(out, e->sampled ? " evictions (exact)" : " evictions");
	}
	sbuf_addc(out, '\n');
}

static void json_intro(struct sbuf *out, struct profile *p, const struct header *h,
		       const struct evictions *e)
{
	header_json(out, p, h);
	sbuf_addf(out, ",\"level\":%d,\"sampled\":%s,\"sample\":", e->level,
		  e->sampled ? "true" : "false");
	if (e->sampled)
		sample_json(out, &e->si);
	else
		sbuf_adds(out, "null");
	sbuf_adds(out, ",\"fill\":");
	if (e->has_fill)
		sbuf_addf(out, "{\"fills\":%lld,\"empty_fills\":%lld,\"evictions\":%lld}",
			  (long long)e->fill[0], (long long)e->fill[1], (long long)e->fill[2]);
	else
		sbuf_adds(out, "null");
}

/* ---- the matrix ------------------------------------------------------- */

static void victims_table(const struct evmatrix *m, struct table *t)
{
	table_add_col(t, "bucket", NULL, COL_STR, true);
	table_add_col(t, "kind", NULL, COL_STR, true);
	table_add_col(t, "misses", NULL, COL_INT, false);
	table_add_col(t, "evictions", NULL, COL_INT, false);
	for (size_t i = 0; i < m->n; i++) {
		struct cell *row = table_add_row(t);

		cell_set_str(&row[0], m->v[i].name, m->v[i].name_len);
		cell_set_str(&row[1], m->v[i].kind, strlen(m->v[i].kind));
		cell_set_int(&row[2], m->v[i].misses);
		cell_set_int(&row[3], m->v[i].evictions);
	}
}

/* Text matrix columns named by a bucket name longer than this are
 * labelled by their place (#1 is the first row's bucket), and named in
 * full under the table: five heap paths of 60 characters side by side
 * made lines of 400. */
#define LABEL_MAX 24
static const char *const place_label[] = {
	"#1", "#2", "#3", "#4", "#5", "#6", "#7", "#8", "#9", "#10",
	"#11", "#12", "#13", "#14", "#15", "#16", "#17", "#18", "#19", "#20",
};

static bool placed(const struct evmatrix *m, size_t j)
{
	return m->v[j].name_len > LABEL_MAX &&
	       j < sizeof place_label / sizeof place_label[0];
}

/* Columns are named by the victims; the names stay owned by m. */
static void matrix_table(const struct evmatrix *m, struct table *t)
{
	table_add_col(t, "evictor", "evicted by", COL_STR, true);
	table_add_col(t, "kind", NULL, COL_STR, true);
	for (size_t j = 0; j < m->n; j++)
		table_add_col(t, m->v[j].name, placed(m, j) ? place_label[j] : NULL, COL_PCT,
			      false);
	for (size_t i = 0; i <= m->n; i++) {
		struct cell *row = table_add_row(t);

		if (i < m->n) {
			cell_set_str(&row[0], m->v[i].name, m->v[i].name_len);
			cell_set_str(&row[1], m->v[i].kind, strlen(m->v[i].kind));
		} else {
			cell_set_str(&row[0], "other", 5);
		}
		for (size_t j = 0; j < m->n; j++)
			if (m->v[j].evictions)
				cell_set_real(&row[2 + j], 100.0 * (double)m->count[i][j] /
					      (double)m->v[j].evictions);
	}
}

static void json_matrix_row(struct sbuf *out, const struct evmatrix *m, size_t i)
{
	sbuf_adds(out, "\"pct\":[");
	for (size_t j = 0; j < m->n; j++) {
		sbuf_adds(out, j ? "," : "");
		if (m->v[j].evictions)
			sbuf_addf(out, "%.10g", 100.0 * (double)m->count[i][j] /
				  (double)m->v[j].evictions);
		else
			sbuf_adds(out, "null");
	}
	sbuf_adds(out, "],\"count\":[");
	for (size_t j = 0; j < m->n; j++)
		sbuf_addf(out, "%s%lld", j ? "," : "", (long long)m->count[i][j]);
	sbuf_addc(out, ']');
}

static void print_matrix(struct profile *p, const struct header *h,
			 const struct evictions *e, const struct evmatrix *m)
{
	struct table victims, mx;
	struct sbuf out;

	table_init(&victims);
	table_init(&mx);
	victims_table(m, &victims);
	matrix_table(m, &mx);
	sbuf_init(&out);
	switch (e->format) {
	case FMT_TEXT:
		header_text(&out, p, h);
		text_intro(&out, p, e);
		sbuf_addc(&out, '\n');
		fwrite(out.buf, 1, out.len, stdout);
		render_table_text(stdout, &victims, 0);
		fputc('\n', stdout);
		render_table_text(stdout, &mx, 0);
		printf("(a cell is the share of its column's evictions at L%d made by accesses"
		       " to its row)\n", e->level);
		bool first = true;
		for (size_t j = 0; j < m->n; j++) {
			struct sbuf name;
			if (!placed(m, j))
				continue;
			sbuf_init(&name);
			shorten_name(&name, m->v[j].name, m->v[j].name_len);
			sbuf_reset(&out);
			fmt_text(&out, name.buf, name.len);
			printf("%s%-4s%.*s\n", first ? "columns: " : "         ", place_label[j],
			       (int)out.len, out.buf);
			first = false;
			sbuf_release(&name);
		}
		break;
	case FMT_CSV:
		render_table_csv(stdout, &mx, 0);
		break;
	case FMT_JSON:
		json_intro(&out, p, h, e);
		sbuf_adds(&out, ",\"victims\":");
		render_table_json_rows(&out, &victims, 0);
		sbuf_adds(&out, ",\"rows\":[");
		for (size_t i = 0; i < m->n; i++) {
			sbuf_adds(&out, i ? ",{\"evictor\":" : "{\"evictor\":");
			fmt_json_str(&out, m->v[i].name, m->v[i].name_len);
			sbuf_adds(&out, ",\"kind\":");
			fmt_json_str(&out, m->v[i].kind, strlen(m->v[i].kind));
			sbuf_addc(&out, ',');
			json_matrix_row(&out, m, i);
			sbuf_addc(&out, '}');
		}
		sbuf_adds(&out, "],\"other\":{");
		json_matrix_row(&out, m, m->n);
		sbuf_adds(&out, "}}\n");
		fwrite(out.buf, 1, out.len, stdout);
		break;
	}
	sbuf_release(&out);
	table_release(&victims);
	table_release(&mx);
}

/* ---- one bucket's evictions (--object) -------------------------------- */

static int object_table(struct profile *p, const struct evictions *e, struct table *t)
{
	struct sbuf sql, sel, group;
	sqlite3_stmt *st;
	int nkeys, count, pct, rc;

	sbuf_init(&sql);
	sbuf_init(&sel);
	sbuf_init(&group);
	table_add_col(t, "evictor", "evicted by", COL_STR, true);
	table_add_col(t, "kind", NULL, COL_STR, true);
	sbuf_adds(&sel, "b.name, b.kind");
	sbuf_adds(&group, "b.id");
	if (e->by_given)
		view_add_keys(t, e->by, false, p, &sel, &group);
	nkeys = t->ncols;
	count = table_add_col(t, "evictions", NULL, COL_INT, false);
	pct = table_add_col(t, "pct", "%", COL_PCT, false);
	sbuf_addf(&sql, "SELECT %s, SUM(e.count) FROM eviction e"
		  " JOIN bucket b ON b.id = e.evictor JOIN location l ON l.id = e.location"
		  " WHERE e.level = ?1 AND e.sampled = ?2"
		  " AND e.victim IN (SELECT id FROM bucket WHERE name = ?3) GROUP BY %s",
		  sel.buf, group.buf);
	rc = sqlite3_prepare_v2(p->db, sql.buf, -1, &st, NULL);
	sbuf_release(&sql);
	sbuf_release(&sel);
	sbuf_release(&group);
	if (rc != SQLITE_OK)
		return -1;
	sqlite3_bind_int(st, 1, e->level);
	sqlite3_bind_int(st, 2, e->sampled);
	sqlite3_bind_text(st, 3, e->object, -1, SQLITE_STATIC);
	cell_set_int(&t->total[count], 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct cell *row = table_add_row(t);

		view_set_keys(t, row, nkeys, st);
		cell_set_int(&row[count], sqlite3_column_int64(st, nkeys));
		t->total[count].i += row[count].i;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	for (size_t i = 0; i < t->nrows; i++) {
		struct cell *row = table_row(t, i);
		cell_set_real(&row[pct], 100.0 * (double)row[count].i / (double)t->total[count].i);
	}
	if (t->total[count].i)
		cell_set_real(&t->total[pct], 100.0);
	cell_set_str(&t->total[0], "total", 5);
	t->has_total = true;
	table_sort(t, count);
	return 0;
}

static void print_object(struct profile *p, const struct header *h,
			 const struct evictions *e, const struct table *t)
{
	struct sbuf out;

	sbuf_init(&out);
	switch (e->format) {
	case FMT_TEXT:
		header_text(&out, p, h);
		text_intro(&out, p, e);
		sbuf_addf(&out, "%-10sbucket '", "victim:");
		fmt_text(&out, e->object, strlen(e->object));
		sbuf_adds(&out, "'\n\n");
		fwrite(out.buf, 1, out.len, stdout);
		render_table_text(stdout, t, e->top);
		if (e->top && e->top < t->nrows)
			printf("(%zu of %zu rows shown; --top 0 shows all)\n", e->top, t->nrows);
		break;
	case FMT_CSV:
		render_table_csv(stdout, t, e->top);
		break;
	case FMT_JSON:
		json_intro(&out, p, h, e);
		sbuf_adds(&out, ",\"object\":");
		fmt_json_str(&out, e->object, strlen(e->object));
		sbuf_addf(&out, ",\"by\":\"%s\",\"totals\":",
			  e->by_given ? view_name(e->by) : "object");
		render_table_json_totals(&out, t);
		sbuf_addf(&out, ",\"total_rows\":%zu,\"rows\":", t->nrows);
		render_table_json_rows(&out, t, e->top);
		sbuf_adds(&out, "}\n");
		fwrite(out.buf, 1, out.len, stdout);
		break;
	}
	sbuf_release(&out);
}

int cmd_evictions(int argc, char **argv)
{
	struct evictions e = { 0 };
	struct view_opts filter = { 0 };
	struct evmatrix *m = NULL;
	struct profile p;
	struct header h;
	struct table t;
	char err[DC_ERRLEN];
	int rc;

	rc = parse(&e, argc, argv);
	if (rc)
		return rc > 0 ? 0 : DC_EXIT_ERROR;
	if (profile_open_cmd(&p, e.path))
		return DC_EXIT_ERROR;
	header_init(&h);
	table_init(&t);
	rc = DC_EXIT_ERROR;
	filter.object = e.object;
	if (check_data(&p, &e, err, sizeof err) ||
	    view_check_filters(&p, &filter, err, sizeof err) ||
	    header_read(&p, &h, err, sizeof err)) {
		err_msg("%s", err);
		goto out;
	}
	if (e.object) {
		if (read_fill(&p, &e) || object_table(&p, &e, &t))
			goto read_error;
		print_object(&p, &h, &e, &t);
	} else {
		m = xcalloc(1, sizeof *m);
		if (read_fill(&p, &e) || evmatrix_read(&p, e.level, e.sampled, e.top, m))
			goto read_error;
		print_matrix(&p, &h, &e, m);
	}
	rc = err_flush_output();
	goto out;
read_error:
	profile_read_error(&p, err, sizeof err);
	err_msg("%s", err);
out:
	if (m)
		evmatrix_release(m);
	free(m);
	table_release(&t);
	header_release(&h);
	profile_close(&p);
	return rc;
}
