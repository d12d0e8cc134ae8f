/* insnskid.c — walking a skidded sample back over the instructions that
 * may have executed before it.
 *
 * Notes (N. Rutar, J. K. Hollingsworth, "Software Analysis Techniques to
 * Approximate Data Centric Direct Measurements", §3.3.3; docs/approx.md,
 * "Skid over instructions"):
 *  - Control flow per function from objdump's text: an instruction falls
 *    through to the next unless it is an unconditional or indirect jump, a
 *    return, hlt or ud2; a direct jump or conditional branch also goes to
 *    its target when that is in the function.  A call falls through (the
 *    callee's instructions are not counted).
 *  - Predecessor weights, a static estimate of "which instruction ran just
 *    before": pred j of i weighs freq(j) x p(j -> i), with freq(j) =
 *    10^depth(j), depth the number of backward branches whose range
 *    [target, branch] holds j (loop nesting), and p the edge probability:
 *    1 for fall-through and jumps, a backward conditional branch taken 0.9
 *    (a loop repeats) and falling through 0.1, a forward one 0.5 each.
 *  - Memory instructions: an explicit memory operand (parentheses, a
 *    segment override, or an absolute address), not lea, nop, prefetch or
 *    endbr; push, pop, call and ret (implicit stack) are not.
 *  - The walk: P_0 = the sampled instruction; P_{k+1}(j) = sum over i of
 *    P_k(i) x weight(j | i).  A memory instruction j gets sum_k w[k]
 *    P_k(j).  Probability that reaches the function's entry is lost.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/insnskid.h"
#include "base/err.h"

#define MAX_DEPTH 6

void is_obj_init(struct is_obj *o)
{
	memset(o, 0, sizeof *o);
}

void is_obj_release(struct is_obj *o)
{
	for (size_t i = 0; i < o->nfiles; i++)
		free(o->files[i]);
	free(o->files);
	free(o->insn);
	free(o->fn_first);
	free(o->pred_first);
	free(o->preds);
	memset(o, 0, sizeof *o);
}

static int32_t intern(struct is_obj *o, const char *s, size_t len)
{
	for (size_t i = o->nfiles; i-- > 0;)
		if (strlen(o->files[i]) == len && !memcmp(o->files[i], s, len))
			return (int32_t)i;
	if (o->nfiles == o->files_cap) {
		o->files_cap = o->files_cap ? 2 * o->files_cap : 16;
		o->files = xrealloc(o->files, o->files_cap * sizeof *o->files);
	}
	o->files[o->nfiles] = xmemdup(s, len);
	return (int32_t)o->nfiles++;
}

static bool word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && !memcmp(s, w, n);
}

static bool is_prefix(const char *s, size_t n)
{
	static const char *const pre[] = {
		"rep", "repz", "repnz", "repe", "repne", "lock", "notrack", "bnd", "data16",
		"addr32", "cs", "ds", "es", "fs", "gs", "ss",
	};

	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
		if (word_is(s, n, pre[i]))
			return true;
	return false;
}

static bool starts(const char *s, size_t n, const char *w)
{
	size_t l = strlen(w);

	return n >= l && !memcmp(s, w, l);
}

/* An operand list with a memory reference (Notes). */
static bool has_mem(const char *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (ops[i] == '(' || (ops[i] == ':' && i && ops[i - 1] != ' '))
			return true;
		/* An absolute address: 0x... at an operand's start, no $. */
		if ((i == 0 || ops[i - 1] == ',') && i + 1 < n && ops[i] == '0' && ops[i + 1] == 'x')
			return true;
	}
	return false;
}

static void add_insn(struct is_obj *o, const char *s, size_t n, int32_t file, uint32_t line)
{
	const char *p = s, *end = s + n, *m, *ops;
	struct is_insn in = { 0 };
	size_t ml, ol;
	char *e;

	in.addr = strtoull(p, &e, 16);
	if (e == p || e >= end || *e != ':' || !o->nfn)
		return;
	p = e + 1;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		m = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		ml = (size_t)(p - m);
		if (!ml || !is_prefix(m, ml) || p == end)
			break;
	}
	if (!ml || (ml == 5 && !memcmp(m, "(bad)", 5)))
		return;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	ops = p;
	while (p < end && *p != '#' && *p != '<')
		p++;
	ol = (size_t)(p - ops);
	while (ol && (ops[ol - 1] == ' ' || ops[ol - 1] == '\t'))
		ol--;
	if (word_is(m, ml, "jmp") || word_is(m, ml, "jmpq")) {
		in.kind = ol && ops[0] == '*' ? IS_STOP : IS_JUMP;
	} else if (m[0] == 'j' || starts(m, ml, "loop")) {
		in.kind = IS_COND;
	} else if (starts(m, ml, "ret") || starts(m, ml, "iret") || word_is(m, ml, "hlt") ||
		   word_is(m, ml, "ud2") || starts(m, ml, "sysret")) {
		in.kind = IS_STOP;
	} else if (starts(m, ml, "call")) {
		in.kind = IS_CALL;
	}
	if (in.kind == IS_JUMP || in.kind == IS_COND) {
		uint64_t t = strtoull(ops, &e, 16);

		if (e != ops && e <= ops + ol)
			in.target = t;
	} else if (in.kind == IS_PLAIN) {
		in.mem = has_mem(ops, ol) && !starts(m, ml, "lea") && !starts(m, ml, "nop") &&
			 !starts(m, ml, "prefetch") && !starts(m, ml, "endbr") &&
			 !starts(m, ml, "push") && !starts(m, ml, "pop");
	}
	in.fn = (uint32_t)(o->nfn - 1);
	in.file = file;
	in.line = line;
	if (o->n == o->cap) {
		o->cap = o->cap ? 2 * o->cap : 1024;
		o->insn = xrealloc(o->insn, o->cap * sizeof *o->insn);
	}
	o->insn[o->n++] = in;
}

/* "path:LINE" or "path:LINE (discriminator N)": sets file and line. */
static bool source_line(struct is_obj *o, const char *s, size_t n, int32_t *file, uint32_t *line)
{
	const char *d = memchr(s, '(', n);
	size_t end = d ? (size_t)(d - s) : n, colon;
	unsigned long v = 0;

	while (end && s[end - 1] == ' ')
		end--;
	colon = end;
	while (colon && s[colon - 1] >= '0' && s[colon - 1] <= '9')
		colon--;
	if (colon == end || colon < 2 || s[colon - 1] != ':')
		return false;
	for (size_t i = colon; i < end; i++)
		v = v * 10 + (unsigned long)(s[i] - '0');
	*file = intern(o, s, colon - 1);
	*line = v > UINT32_MAX ? 0 : (uint32_t)v;
	return true;
}

/* Predecessor lists with their weights (Notes). */
static void build_preds(struct is_obj *o)
{
	int *diff = xcalloc(o->n + 2, sizeof *diff);
	size_t *cnt = xcalloc(o->n + 2, sizeof *cnt), ne = 0;
	struct is_pred *tmp;
	size_t *to = xcalloc(2 * o->n + 2, sizeof *to);
	double *pw = xcalloc(2 * o->n + 2, sizeof *pw);
	size_t *fromv = xcalloc(2 * o->n + 2, sizeof *fromv);
	int depth = 0;

	for (size_t j = 0; j < o->n; j++) {
		long t = o->insn[j].target ? is_find(o, o->insn[j].target) : -1;

		if (t >= 0 && (size_t)t <= j && o->insn[t].fn == o->insn[j].fn) {
			diff[t]++;
			diff[j + 1]--;
		}
	}
	for (size_t j = 0; j < o->n; j++) {
		const struct is_insn *in = &o->insn[j];
		long t = in->target ? is_find(o, in->target) : -1;
		bool fall = j + 1 < o->n && o->insn[j + 1].fn == in->fn &&
			    (in->kind == IS_PLAIN || in->kind == IS_CALL || in->kind == IS_COND);
		double taken = 1.0;
		double f;

		depth += diff[j];
		f = pow(10.0, depth < MAX_DEPTH ? depth : MAX_DEPTH);
		if (t >= 0 && o->insn[t].fn != in->fn)
			t = -1;
		if (in->kind == IS_COND)
			taken = t >= 0 && (size_t)t <= j ? 0.9 : 0.5;
		if (fall) {
			fromv[ne] = j;
			to[ne] = j + 1;
			pw[ne++] = f * (in->kind == IS_COND ? 1.0 - taken : 1.0);
		}
		if (t >= 0 && (in->kind == IS_JUMP || in->kind == IS_COND)) {
			fromv[ne] = j;
			to[ne] = (size_t)t;
			pw[ne++] = f * taken;
		}
	}
	for (size_t e = 0; e < ne; e++)
		cnt[to[e] + 1]++;
	for (size_t i = 0; i < o->n; i++)
		cnt[i + 1] += cnt[i];
	tmp = xcalloc(ne + 1, sizeof *tmp);
	o->pred_first = xcalloc(o->n + 1, sizeof *o->pred_first);
	memcpy(o->pred_first, cnt, (o->n + 1) * sizeof *cnt);
	for (size_t e = 0; e < ne; e++)
		tmp[cnt[to[e]]++] = (struct is_pred){ fromv[e], pw[e] };
	o->preds = tmp;
	free(diff);
	free(cnt);
	free(to);
	free(pw);
	free(fromv);
}

void is_parse(struct is_obj *o, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int32_t file = -1;
	uint32_t line = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *e = nl ? nl : end;
		size_t n = (size_t)(e - p);

		if (n && (p[0] == ' ' || p[0] == '\t')) {
			add_insn(o, p, n, file, line);
		} else if (n > 2 && p[n - 1] == ':' && p[n - 2] == '>') {
			/* "0000000000001060 <main>:" starts a function. */
			if (o->nfn == o->fn_cap) {
				o->fn_cap = o->fn_cap ? 2 * o->fn_cap : 64;
				o->fn_first = xrealloc(o->fn_first, o->fn_cap * sizeof *o->fn_first);
			}
			o->fn_first[o->nfn++] = o->n;
			file = -1;
			line = 0;
		} else if (n) {
			source_line(o, p, n, &file, &line);
		}
		p = e + 1;
	}
	build_preds(o);
}

long is_find(const struct is_obj *o, uint64_t addr)
{
	size_t lo = 0, hi = o->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->insn[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->n && o->insn[lo].addr == addr ? (long)lo : -1;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static size_t bias_score(const struct is_obj *o, uint64_t b, const uint64_t *ip,
			 const uint32_t *line, size_t n)
{
	size_t score = 0;

	for (size_t i = 0; i < n; i++) {
		long k = is_find(o, ip[i] - b);

		score += k >= 0 && o->insn[k].line == line[i];
	}
	return score;
}

uint64_t is_bias(const struct is_obj *o, const uint64_t *ip, const uint32_t *line,
		 const char *const *base, size_t n)
{
	uint64_t best = 0;
	size_t best_score = 0;

	for (size_t s = 0; s < n && s < 8; s++) {
		for (size_t j = 0; j < o->n; j++) {
			const struct is_insn *in = &o->insn[j];
			uint64_t b = ip[s] - in->addr;
			size_t score;

			if (in->line != line[s] || in->file < 0 || (b & 0xfff) ||
			    strcmp(base_of(o->files[in->file]), base[s]))
				continue;
			score = bias_score(o, b, ip, line, n < 256 ? n : 256);
			if (score > best_score) {
				best_score = score;
				best = b;
			}
		}
	}
	return best;
}

static int cmp_from(const void *pa, const void *pb)
{
	const struct is_from *a = pa, *b = pb;

	return (a->insn > b->insn) - (a->insn < b->insn);
}

/* Sorts v by instruction and adds up the repeats. */
static size_t merge(struct is_from *v, size_t n)
{
	size_t out = 0;

	if (n)
		qsort(v, n, sizeof *v, cmp_from);
	for (size_t i = 0; i < n; i++) {
		if (out && v[out - 1].insn == v[i].insn)
			v[out - 1].p += v[i].p;
		else
			v[out++] = v[i];
	}
	return out;
}

static void push(struct is_from **v, size_t *n, size_t *cap, size_t insn, double p)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = (struct is_from){ insn, p };
}

size_t is_skid_back(const struct is_obj *o, size_t at, const double *w, size_t nw,
		    struct is_from **out, size_t *n, size_t *cap)
{
	struct is_from *cur = NULL, *next = NULL;
	size_t ncur = 0, ccur = 0, nnext = 0, cnext = 0;

	*n = 0;
	push(&cur, &ncur, &ccur, at, 1.0);
	for (size_t k = 0; k < nw && ncur; k++) {
		for (size_t i = 0; i < ncur; i++)
			if (w[k] > 0 && o->insn[cur[i].insn].mem)
				push(out, n, cap, cur[i].insn, w[k] * cur[i].p);
		if (k + 1 == nw)
			break;
		nnext = 0;
		for (size_t i = 0; i < ncur; i++) {
			size_t a = o->pred_first[cur[i].insn], b = o->pred_first[cur[i].insn + 1];
			double total = 0;

			for (size_t e = a; e < b; e++)
				total += o->preds[e].w;
			for (size_t e = a; total > 0 && e < b; e++)
				push(&next, &nnext, &cnext, o->preds[e].from,
				     cur[i].p * o->preds[e].w / total);
		}
		nnext = merge(next, nnext);
		{
			struct is_from *t = cur;
			size_t tc = ccur;

			cur = next;
			ccur = cnext;
			ncur = nnext;
			next = t;
			cnext = tc;
		}
	}
	free(cur);
	free(next);
	*n = merge(*out, *n);
	return *n;
}
