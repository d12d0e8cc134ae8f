/* attrib.c — raw assignment, loop compensation and skid negation over the
 * locations srcvars found on each line.
 *
 * Notes (N. Rutar, J. K. Hollingsworth, "Software Analysis Techniques to
 * Approximate Data Centric Direct Measurements"; docs/approx.md):
 *  - Counted locations: those read on the line (§3.3.1), and with
 *    at_opts.writes those written too (for events that count write misses).
 *  - Raw (§3.3.1, Figure 2): a line's samples split equally over its
 *    counted locations (at_opts.per_location), or equally over the
 *    variables with a counted location on the line, then equally over that
 *    variable's locations (the default: tIn[c], tIn[c+1] and tIn[c+nx] of
 *    one stencil are mostly one cache line or a line an earlier iteration
 *    brought in).  Each location has a unit, 1 or 1 / (its variable's
 *    locations on the line); a line's share of a location is its unit over
 *    the line's units, and skid negation weighs units where the paper
 *    weighs reads.  A line without any is unplaced.
 *  - LA (§3.3.2): the raw value of a location on a line inside a loop
 *    (the innermost one, the shortest range holding the line) times the
 *    final weight of that location in the loop (approx_loop_weights over
 *    every location counted in the loop, lines = code lines of the loop),
 *    as the paper's table does; totals are not kept (the paper's LA sums
 *    to 2.29 of 3 misses).  Outside loops the weight is 1.
 *  - SA (§3.3.3): a sample on line S may come from the code line k code
 *    lines before S (k = 0: S itself) with probability w[k]
 *    (approx_skid_offsets); each counted location on those lines gets
 *    w[k] (eq. 6), normalised over all of them (eq. 7-8), then loop
 *    compensation as for LA (the paper: "the skid negated value would be
 *    the base for passes such as the loop compensation").  The window
 *    stays in S's file.
 *  - SA over instructions (at_groups, insnskid.c): a group's samples go to
 *    the lines of the instructions they may have come from, p each,
 *    normalised over those lines with a counted location; on a line, p is
 *    split equally over its counted locations; then loop compensation.
 *  - Register accesses (sv_access.reg) are not counted unless
 *    at_opts.registers: a local scalar whose address is never taken lives
 *    in a register at -O2 and cannot miss.
 *  - Loop scalars: a whole variable (a global or static scalar, a local
 *    whose address is taken: one word, the same address every iteration)
 *    on a line inside a loop is not counted when the line has another
 *    counted location (an element, a member, a dereference), unless
 *    at_opts.loop_scalars: after the first iteration it is in the cache.
 *    Alone on its line it counts.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/approx.h"
#include "analysis/attrib.h"
#include "base/err.h"

#define SKID_MAX 64

struct loopw {
	bool done;
	size_t n;
	const char **keys;      /* sorted */
	double *w;
};

struct at_ctx {
	const struct sv_prog *p;
	const struct at_opts *o;
	struct loopw *lw;
	bool *demoted;          /* per access: a loop scalar not counted (Notes) */
	double *unit;           /* per access: its unit (Notes), 0 when not counted */
};

static bool counted_base(const struct at_opts *o, const struct sv_access *a)
{
	if (a->reg && !o->registers)
		return false;
	return (a->mode & SV_READ) || (o->writes && (a->mode & SV_WRITE));
}

static bool counted(const struct at_ctx *c, const struct sv_access *a)
{
	return counted_base(c->o, a) && !c->demoted[a - c->p->acc];
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The innermost loop of (file, line), or -1. */
static int loop_of(const struct sv_prog *p, uint32_t file, uint32_t line)
{
	int best = -1;

	for (size_t i = 0; i < p->nloops; i++) {
		const struct sv_loop *l = &p->loops[i];

		if (l->file == file && l->first <= line && line <= l->last &&
		    (best < 0 || l->last - l->first < p->loops[best].last - p->loops[best].first))
			best = (int)i;
	}
	return best;
}

static void loop_weights(struct at_ctx *c, int li)
{
	const struct sv_prog *p = c->p;
	const struct sv_loop *l = &p->loops[li];
	struct loopw *w = &c->lw[li];
	const char **all = NULL;
	size_t nall = 0, cap = 0;
	uint32_t *lines;
	double *raw, *adj;

	w->done = true;
	for (uint32_t line = l->first; line <= l->last && line; line++) {
		size_t n, s = sv_line_accesses(p, l->file, line, &n);

		for (size_t i = s; i < s + n; i++) {
			if (!counted(c, &p->acc[i]))
				continue;
			if (nall == cap) {
				cap = cap ? 2 * cap : 32;
				all = xrealloc(all, cap * sizeof *all);
			}
			all[nall++] = p->acc[i].key;
		}
		if (line == UINT32_MAX)
			break;
	}
	if (nall)
		qsort(all, nall, sizeof *all, cmp_str);
	/* One entry per distinct key; lines[k] = lines of the loop reading it
	 * (a key appears once per line after sv_prog_finish). */
	lines = xcalloc(nall + 1, sizeof *lines);
	for (size_t i = 0; i < nall; i++) {
		if (w->n && !strcmp(all[w->n - 1], all[i])) {
			lines[w->n - 1]++;
			continue;
		}
		all[w->n] = all[i];
		lines[w->n++] = 1;
	}
	w->keys = all;
	w->w = xcalloc(w->n + 1, sizeof *w->w);
	raw = xcalloc(w->n + 1, sizeof *raw);
	adj = xcalloc(w->n + 1, sizeof *adj);
	approx_loop_weights(lines, w->n, (uint32_t)sv_code_lines_in(p, l->file, l->first, l->last),
			    c->o->threshold, raw, adj, w->w);
	free(raw);
	free(adj);
	free(lines);
}

/* The loop scalars not counted (Notes). */
static void demote_loop_scalars(struct at_ctx *c)
{
	const struct sv_prog *p = c->p;

	c->demoted = xcalloc(p->nacc + 1, sizeof *c->demoted);
	if (c->o->loop_scalars)
		return;
	for (size_t s = 0, e; s < p->nacc; s = e) {
		bool other = false;

		for (e = s; e < p->nacc && p->acc[e].file == p->acc[s].file &&
		     p->acc[e].line == p->acc[s].line; e++)
			other |= counted_base(c->o, &p->acc[e]) && !p->acc[e].whole;
		if (!other || loop_of(p, p->acc[s].file, p->acc[s].line) < 0)
			continue;
		for (size_t i = s; i < e; i++)
			c->demoted[i] = p->acc[i].whole;
	}
}

/* Each counted access's unit (Notes). */
static void units(struct at_ctx *c)
{
	const struct sv_prog *p = c->p;

	c->unit = xcalloc(p->nacc + 1, sizeof *c->unit);
	for (size_t s = 0, e; s < p->nacc; s = e) {
		for (e = s; e < p->nacc && p->acc[e].file == p->acc[s].file &&
		     p->acc[e].line == p->acc[s].line; e++)
			;
		for (size_t i = s; i < e; i++) {
			size_t same = 0;

			if (!counted(c, &p->acc[i]))
				continue;
			for (size_t j = s; j < e && !c->o->per_location; j++)
				same += p->acc[j].var == p->acc[i].var && counted(c, &p->acc[j]);
			c->unit[i] = same ? 1.0 / (double)same : 1.0;
		}
	}
}

/* The loop compensation weight of access i. */
static double weight(struct at_ctx *c, size_t i)
{
	const struct sv_access *a = &c->p->acc[i];
	int li;
	const char **k;

	if (!c->o->loop)
		return 1.0;
	li = loop_of(c->p, a->file, a->line);
	if (li < 0)
		return 1.0;
	if (!c->lw[li].done)
		loop_weights(c, li);
	k = c->lw[li].n ? bsearch(&a->key, c->lw[li].keys, c->lw[li].n, sizeof *k, cmp_str) : NULL;
	return k ? c->lw[li].w[k - c->lw[li].keys] : 1.0;
}

static size_t count_on(const struct at_ctx *c, uint32_t file, uint32_t line, size_t *start)
{
	size_t n;

	*start = sv_line_accesses(c->p, file, line, &n);
	return n;
}

/* The code line k code lines before line in file (k = 0: line itself). */
static uint32_t line_back(const struct sv_prog *p, uint32_t file, uint32_t line, size_t k)
{
	const struct sv_file *f = &p->files[file];
	size_t lo = 0, hi = f->ncode;

	if (!k)
		return line;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->code[mid] < line)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo = code lines before line. */
	return lo >= k ? f->code[lo - k] : 0;
}

static void raw_line(struct at_ctx *c, const struct at_line *l, struct at_result *r)
{
	size_t s, n = count_on(c, l->file, l->line, &s);
	double m = 0;

	for (size_t i = s; i < s + n; i++)
		m += c->unit[i];
	if (!(m > 0)) {
		r->unplaced[AT_RAW] += l->count;
		r->unplaced[AT_LA] += l->count;
		return;
	}
	for (size_t i = s; i < s + n; i++) {
		if (!counted(c, &c->p->acc[i]))
			continue;
		r->val[AT_RAW][i] += l->count * c->unit[i] / m;
		r->val[AT_LA][i] += l->count * c->unit[i] / m * weight(c, i);
	}
}

static void skid_line(struct at_ctx *c, const struct at_line *l, const double *w, size_t nw,
		      struct at_result *r)
{
	double sum = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < nw; k++) {
			uint32_t line = line_back(c->p, l->file, l->line, k);
			size_t s, n;

			if (!line || w[k] <= 0)
				continue;
			n = count_on(c, l->file, line, &s);
			for (size_t i = s; i < s + n; i++) {
				if (!counted(c, &c->p->acc[i]))
					continue;
				if (pass == 0)
					sum += w[k] * c->unit[i];       /* eq. 6-7 */
				else
					r->val[AT_SA][i] += l->count * w[k] * c->unit[i] / sum *
							    weight(c, i);
			}
		}
		if (!(sum > 0)) {
			r->unplaced[AT_SA] += l->count;
			return;
		}
	}
}

/* The units of a line's counted locations; *start and *n as count_on's. */
static double counted_on(const struct at_ctx *c, uint32_t file, uint32_t line, size_t *start,
			 size_t *n)
{
	double m = 0;

	*n = count_on(c, file, line, start);
	for (size_t i = *start; i < *start + *n; i++)
		m += c->unit[i];
	return m;
}

/* SA of one group's n entries f (Notes). */
static void skid_group(struct at_ctx *c, const struct at_from *f, size_t n, double count,
		       struct at_result *r)
{
	double sum = 0;

	for (size_t j = 0; j < n; j++) {
		size_t s, k;

		if (counted_on(c, f[j].file, f[j].line, &s, &k) > 0)
			sum += f[j].p;
	}
	if (!(sum > 0)) {
		r->unplaced[AT_SA] += count;
		return;
	}
	for (size_t j = 0; j < n; j++) {
		size_t s, k;
		double m = counted_on(c, f[j].file, f[j].line, &s, &k);

		for (size_t i = s; i < s + k; i++)
			if (c->unit[i] > 0)
				r->val[AT_SA][i] += count * f[j].p / sum * c->unit[i] / m *
						    weight(c, i);
	}
}

void attrib_run(const struct sv_prog *p, const struct at_line *lines, size_t n,
		const struct at_opts *o, const struct at_groups *g, struct at_result *r)
{
	struct at_ctx c = { p, o, xcalloc(p->nloops + 1, sizeof *c.lw), NULL, NULL };
	double w[SKID_MAX];
	size_t nw = 0;

	demote_loop_scalars(&c);
	units(&c);
	memset(r, 0, sizeof *r);
	for (int m = 0; m < AT_METHODS; m++)
		r->val[m] = xcalloc(p->nacc + 1, sizeof *r->val[m]);
	if (o->skid_sd >= 0)
		nw = approx_skid_offsets(o->skid_mean, o->skid_sd, w, SKID_MAX);
	else
		nw = approx_skid_offsets(0, 0, w, SKID_MAX);
	for (size_t i = 0; i < n; i++) {
		raw_line(&c, &lines[i], r);
		if (!g)
			skid_line(&c, &lines[i], w, nw, r);
	}
	for (size_t grp = 0, j = 0; g && grp < g->ngroups; grp++) {
		size_t k = j;

		while (k < g->n && g->from[k].group == grp)
			k++;
		skid_group(&c, g->from + j, k - j, g->count[grp], r);
		j = k;
	}
	for (size_t i = 0; i < p->nloops; i++) {
		free(c.lw[i].keys);
		free(c.lw[i].w);
	}
	free(c.lw);
	free(c.demoted);
	free(c.unit);
}

void at_result_release(struct at_result *r)
{
	for (int m = 0; m < AT_METHODS; m++)
		free(r->val[m]);
	memset(r, 0, sizeof *r);
}
