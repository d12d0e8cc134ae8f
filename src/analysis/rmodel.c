/* rmodel.c — time-to-stack conversion and histogram similarity (see
 * rmodel.h Notes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "base/num.h"
#include "analysis/rmodel.h"

#define MAX_BINS 64      /* the engine's bins per histogram */
#define PARTS 32         /* points a wide time bin is taken at */
#define EXACT_SD 8.0     /* below this standard deviation, sum the binomial */

/* The distances a time bin's count is taken at and their shares: every
 * distance of a bin at most PARTS wide, else PARTS quantiles.  The count
 * is spread evenly, or, when the bin's mean distance is known, along
 * exp(λ t) (t = the place in the bin, 0 to 1) with λ such that the spread
 * has that mean: a sweep's reuses, all at a bin's lower bound, stay there. */
struct points {
	int n;
	double d[PARTS], w[PARTS];
};

/* Mean place (0 to 1) of the spread along exp(λ t): over the n places
 * i/n (discrete) or over [0, 1) (n = 0). */
static double tilt_mean(double lambda, int n)
{
	double s = 0, sw = 0;

	if (n == 0) {
		/* 1/(1 - e^-λ) - 1/λ cancels near 0: there take its series */
		if (fabs(lambda) < 1e-4)
			return 0.5 + lambda / 12;
		return -1 / expm1(-lambda) - 1 / lambda;
	}
	for (int i = 0; i < n; i++) {
		double w = exp(lambda * ((double)i / n - 1));   /* scaled: no overflow */
		s += w * i / n;
		sw += w;
	}
	return s / sw;
}

/* λ whose spread has mean place `target`, by bisection (the mean grows
 * with λ); the ends stand for all at the first or the last place (on
 * [0, 1), n = 0, far enough out that every quantile of a bin lands on its
 * bound). */
static double tilt(double target, int n)
{
	double lo = n ? -700 : -1e9, hi = n ? 700 : 1e9;

	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;
		if (tilt_mean(mid, n) < target)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static void bin_points(const struct rbin *b, struct points *p)
{
	double lo = b->lo < 1 ? 1 : (double)b->lo;     /* a time distance is at least 1 */
	double hi = b->hi_inf ? 2.0 * (double)b->lo : (double)b->hi, width = hi - lo;
	bool narrow = width <= PARTS;
	int n = narrow ? (int)width : PARTS;
	double lambda = 0, sum = 0;

	p->n = n > 0 ? n : 0;
	if (p->n == 0)
		return;
	if (b->has_mean && width > 1)
		lambda = tilt((b->mean - lo) / width, narrow ? n : 0);
	if (fabs(lambda) < 1e-6)
		lambda = 0;     /* even: quantiles land on whole distances exactly */
	for (int j = 0; j < n; j++) {
		if (narrow) {
			p->d[j] = lo + j;
			p->w[j] = exp(lambda * ((double)j / n - 1));
		} else {
			/* the quantile (j + 1/2) / n of the spread on [0, 1) */
			double u = (j + 0.5) / n, t = lambda == 0 ? u
				: lambda > 0 ? 1 + log(u + (1 - u) * exp(-lambda)) / lambda
					     : log1p(u * expm1(lambda)) / lambda;
			p->d[j] = floor(lo + t * width);
			p->w[j] = 1;
		}
		sum += p->w[j];
	}
	for (int j = 0; j < n; j++)
		p->w[j] /= sum;
}

/* E(w) = sum over δ of f(δ) min(δ, w), f = count / accesses taken at the
 * bins' points, first touches (the accesses never reused, read forwards)
 * at δ = ∞ unless reuses_only. */
static double window_blocks(const struct rhist *prog, const struct points *pts, double w,
			    bool reuses_only)
{
	double sum = reuses_only ? 0 : (double)prog->first * w;

	for (size_t i = 0; i < prog->n; i++) {
		double e = 0;
		for (int j = 0; j < pts[i].n; j++)
			e += pts[i].w[j] * (pts[i].d[j] < w ? pts[i].d[j] : w);
		sum += (double)prog->bins[i].count * e;
	}
	return sum / ((double)prog->reuses + (reuses_only ? 0 : (double)prog->first));
}

/* Index of the stack bin holding distance k (ri's bins). */
static int bin_index(const struct reuse_info *ri, double k)
{
	double b = (double)ri->first;
	int i = 1;

	if (k < b)
		return 0;
	while (i < MAX_BINS - 1 && k >= b * (double)ri->growth) {
		b *= (double)ri->growth;
		i++;
	}
	return i;
}

static double phi(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

/* Adds weight x Binomial(n, p) to the stack bins. */
static void add_binomial(const struct reuse_info *ri, double n, double p, double weight,
			 double *stack)
{
	double mu = n * p, sd = sqrt(n * p * (1 - p));

	if (n <= 0 || p <= 0) {
		stack[0] += weight;
		return;
	}
	if (p >= 1) {
		stack[bin_index(ri, n)] += weight;
		return;
	}
	if (sd < EXACT_SD) {
		double lo = floor(mu - 12 * sd - 12), hi = ceil(mu + 12 * sd + 12);
		double lp = log(p), lq = log1p(-p), ln = lgamma(n + 1);
		if (lo < 0)
			lo = 0;
		if (hi > n)
			hi = n;
		for (double k = lo; k <= hi; k++)
			stack[bin_index(ri, k)] +=
				weight * exp(ln - lgamma(k + 1) - lgamma(n - k + 1) + k * lp +
					     (n - k) * lq);
		return;
	}
	for (int j = 0; j < MAX_BINS; j++) {
		int64_t blo, bhi;
		bool inf;
		double a, b;
		if (reuse_bin_bounds(ri->first, ri->growth, j, &blo, &bhi, &inf))
			break;
		a = phi(((double)blo - 0.5 - mu) / sd);
		b = inf || j == MAX_BINS - 1 ? 1.0 : phi(((double)bhi - 0.5 - mu) / sd);
		stack[j] += weight * (b - a);
		if (inf)
			break;
	}
}

/* Adds the stack distances of weight reuses at time distance d: mean
 * (N − 1) E(d − 1) / N (Shen: each other block among the d − 1 accesses
 * with probability E(d − 1) / N), as Binomial(m, mean / m) over
 * m = min(d − 1, N − 1) trials, the most distinct blocks there can be. */
static void add_reuses(const struct reuse_info *ri, double e, double n, double d,
		       double weight, double *stack)
{
	double m = d - 1 < n - 1 ? d - 1 : n - 1, mu = (n - 1) * (e < n ? e : n) / n;

	if (m <= 0) {
		stack[0] += weight;
		return;
	}
	add_binomial(ri, m, mu >= m ? 1 : mu / m, weight, stack);
}

void rmodel_convert(const struct reuse_info *ri, const struct rhist *prog,
		    const struct rhist *time, struct rhist *out)
{
	double stack[MAX_BINS] = { 0 };
	double n = (double)prog->first, most;
	struct points *pts;

	memset(out, 0, sizeof *out);
	out->first = time->first;
	if (prog->reuses <= 0)
		return;
	pts = xcalloc(prog->n, sizeof *pts);
	for (size_t i = 0; i < prog->n; i++)
		bin_points(&prog->bins[i], &pts[i]);
	/* with every block reused a window holds at most the mean reuse time
	 * distance; N is at least that many (sampled first touches are only
	 * the uses never reused) */
	most = window_blocks(prog, pts, INFINITY, true);
	if (n < ceil(most) + 1)
		n = ceil(most) + 1;
	for (size_t i = 0; i < time->n; i++) {
		struct points tp;
		bin_points(&time->bins[i], &tp);
		for (int j = 0; j < tp.n; j++) {
			add_reuses(ri, window_blocks(prog, pts, tp.d[j] - 1, false), n, tp.d[j],
				   (double)time->bins[i].count * tp.w[j], stack);
		}
	}
	free(pts);
	for (int j = 0; j < MAX_BINS; j++) {
		/* a count beyond 2^62 can only come from crafted input */
		int64_t c = stack[j] >= 0x1p62 ? INT64_C(1) << 62 : stack[j] > 0 ? llround(stack[j]) : 0;
		struct rbin *bin;
		if (c <= 0)
			continue;
		out->bins = xrealloc(out->bins, (out->n + 1) * sizeof *out->bins);
		bin = &out->bins[out->n++];
		memset(bin, 0, sizeof *bin);
		bin->bin = j;
		if (reuse_bin_bounds(ri->first, ri->growth, j, &bin->lo, &bin->hi, &bin->hi_inf))
			bin->lo = bin->hi = 0;
		bin->count = c;
		out->reuses = num_add(out->reuses, c, NULL);
	}
}

/* Shares of reuses per bin index, dense; returns the number of bins used. */
static int shares(const struct rhist *h, double *s)
{
	int n = 0;

	memset(s, 0, MAX_BINS * sizeof *s);
	for (size_t i = 0; i < h->n; i++) {
		int b = h->bins[i].bin < 0 ? 0 : h->bins[i].bin < MAX_BINS ? (int)h->bins[i].bin
										: MAX_BINS - 1;
		s[b] += (double)h->bins[i].count / (double)h->reuses;
		if (b + 1 > n)
			n = b + 1;
	}
	return n;
}

double rhist_similarity(const struct rhist *truth, const struct rhist *est, bool sliding)
{
	double a[MAX_BINS], b[MAX_BINS], d = 0;
	int n;

	if (truth->reuses <= 0 || est->reuses <= 0)
		return truth->reuses <= 0 && est->reuses <= 0 ? 1.0 : 0.0;
	n = shares(truth, a);
	if (shares(est, b) > n)
		n = shares(est, b);
	if (n < MAX_BINS)
		n++;            /* an empty bin after the last: both ends count alike */
	if (!sliding) {
		for (int i = 0; i < n; i++)
			d += fabs(a[i] - b[i]);
	} else if (n == 1) {
		d = fabs(a[0] - b[0]);
	} else {
		for (int i = 0; i + 1 < n; i++)
			d += fabs((a[i] + a[i + 1]) / 2 - (b[i] + b[i + 1]) / 2);
	}
	return 1 - d / 2;
}

/* The time histogram of `kind` ("time" or "sampled") for object, converted
 * with the program's. */
static int convert_read(struct profile *p, const struct reuse_info *ri, const char *kind,
			const char *object, struct rhist *out, char *err, size_t errlen)
{
	struct rhist prog = { 0 }, time = { 0 };
	int rc = rhist_read(p, kind, NULL, &prog, err, errlen);

	if (!rc)
		rc = rhist_read(p, kind, object, &time, err, errlen);
	if (!rc)
		rmodel_convert(ri, &prog, &time, out);
	rhist_release(&prog);
	rhist_release(&time);
	return rc;
}

int rhist_source_read(struct profile *p, const struct reuse_info *ri, enum rsource src,
		      const char *kind, const char *object, struct rhist *out, char *err,
		      size_t errlen)
{
	bool stack = !strcmp(kind, "stack");

	memset(out, 0, sizeof *out);
	if (src != RSRC_SAMPLED && !ri->exact) {
		snprintf(err, errlen, "profile '%s' has no exact reuse data (recorded with"
			 " --reuse-sample only); see --sampled", p->path);
		return -1;
	}
	if (src == RSRC_SAMPLED && !ri->sampled) {
		snprintf(err, errlen, "profile '%s' has no sampled reuse data; record with"
			 " --reuse-sample=N", p->path);
		return -1;
	}
	if (src == RSRC_EXACT)
		return rhist_read(p, kind, object, out, err, errlen);
	if (src == RSRC_SAMPLED && !stack)
		return rhist_read(p, "sampled", object, out, err, errlen);
	return convert_read(p, ri, src == RSRC_SAMPLED ? "sampled" : "time", object, out, err,
			    errlen);
}
