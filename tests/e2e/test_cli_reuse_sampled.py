"""dcprof reuse --sampled / --converted / --accuracy and finalize of the raw
dump version 4 records (rhist sampled, runseen, the reuse_* sampling meta),
on fixtures/reuse_sampled.raw.

The dump describes this trace (one L1 of 4 fully-associative 64-byte lines,
reuse_block 64, reuse_bins 1:2: bin 0 [0,1), bin 1 [1,2), bin 2 [2,4),
bin 3 [4,8)):

  t1..t4   a0 a1 a2 a3  arr,  loc 0 (main a.c:10)  4 first touches
  t5..t8   a0 a1 a2 a3  arr,  loc 1 (main a.c:20)  stack 3 (bin 2), time 4 (bin 3)
  t9..t11  l0 l1 l2     list, loc 2 (walk b.c:30)  3 first touches
  t12      l0           stack 2 (l1 l2; bin 2), time 3 (bin 2)
  t13      l0           stack 0 (bin 0), time 1 (bin 1)
  t14      e0           EVIL, loc 3 (unknown)      first touch
  t15      e0           stack 0 (bin 0), time 1 (bin 1)
  t16      l1           list: stack 3 (l2 l0 e0; bin 2), time 6 (bin 3)

Exact, 16 accesses, 8 first touches, 8 reuses:
  stack: arr bin 2: 4; list bin 0: 1, bin 2: 2; EVIL bin 0: 1
         whole program bin 0: 2, bin 2: 6
  time:  arr bin 3: 4; list bin 1: 1, bin 2: 1, bin 3: 1; EVIL bin 1: 1
         whole program bin 1: 2, bin 2: 1, bin 3: 5
  rfirst arr 4, list 3, EVIL 1.
  Sums of the distances (rhist's 6th field), mean = sum / count:
    stack: arr bin 2: 12 (3); list bin 0: 0 (0), bin 2: 2 + 3 = 5 (2.5);
           EVIL bin 0: 0 (0)
    time:  arr bin 3: 16 (4); list bin 1: 1 (1), bin 2: UNKNOWN (2^63 - 1,
           as if it had overflowed; the trace says 3), bin 3: 6 (6);
           EVIL bin 1: 1 (1)
    whole program time: bin 1: 2/2 = 1, bin 2: unknown (list's is),
           bin 3: (16 + 6)/5 = 4.4 (the even spread over 4..7 has 5.5)
(Every miss of the 4-line LRU L1 is a first touch: the cost records say 8.)

Sampled (meta reuse_sample_period 2, 2 DR watchpoints, reservoir,
proportional attribution): a use sampled at every even time t2 .. t16,
8 samples; counts in the dump are weights x period 2.
  t2 a1 armed, trapped at t6 (time 4)        arr  bin 3, weight 1
  t4 a3 armed, trapped at t8 (time 4)        arr  bin 3, weight 1
  t6 a1, t8 a3 armed again (the traps freed both watchpoints)
  t10 l1: both armed, the reservoir keeps them: dropped (its context lost 1)
  t12 l0: both armed, replaces a3 (t8) (replaced 1; loc 1's context lost 1)
  t13 l0 traps (time 1): list bin 1, weight 1 + 1 lost = 2
  t14 e0 armed, traps at t15 (time 1)        EVIL bin 1, weight 1
  t16 l1 armed; at exit a1 (t6, weight 1 + the lost a3 = 2) and l1 (t16,
  weight 1) are still armed: never reused.
  => rhist sampled arr bin 3: 2x2 = 4; list bin 1: 2x2 = 4; EVIL bin 1: 1x2 = 2
     runseen arr 2x2 = 4, list 1x2 = 2 (EVIL: none)
     sums (weight x distance x period): arr bin 3: (4 + 4)x2 = 16 (mean 4,
     the bin's lower bound), list bin 1: 2x1x2 = 4 (1), EVIL bin 1: 2 (1)
  meta samples 8, arms 7, replaced 1, dropped 1, traps 4, accesses 16.

dcprof reuse --sampled --kind time (percentages of reuses + never reused):
  whole program (10 + 6 = 16): [1,2) 6 = 37.50 % (cum 37.50), [4,8) 4 = 25.00 %
    (cum 62.50), no reuse seen 6 = 37.50 % (cum 100); bars: 6 -> 40 #,
    4 -> 4*40/6 = 26.67 -> 27 #.
  --object arr: [4,8) 4 (50 %), no reuse seen 4 (50 %)
  --object list: [1,2) 4 (66.67 %), no reuse seen 2 (33.33 %)
  --object EVIL: [1,2) 2 (100 %), no reuse seen 0 (0 %, cum 100)

The model (rmodel.c), for the stack histograms --converted (from the exact
time histogram) and --sampled (from the sampled one), is implemented
independently below (bin_points, tilt, window, model_convert); by hand:
  a bin at most 32 wide is taken at each of its distances from max(lo, 1),
  shares along exp(lam (i/n - 1)), lam such that the mean place sum of
  share x i/n is (mean - lo) / width; n = width; unknown mean: lam = 0.
  So a narrow bin's points have exactly the bin's mean.
  exact:   E(inf) over the reuses = (2*1 + 1*2.5 (bin 2 even: 2, 3) +
           5*4.4) / 8 = 26.5/8 = 3.3125, N = max(8 first touches,
           ceil(3.3125) + 1 = 5) = 8
  sampled: bin 3's mean 4 = lo: lam -> -700, all its share at distance 4;
           E(inf) = (6*1 + 4*4) / 10 = 2.2, N = max(6 never reused, 3 + 1) = 6
  A window counts the first touches (never reused) at distance inf, over
  all accesses: exact E(1) = (8 reuses * 1 + 8 * 1) / 16 = 1, E(2) =
  (2*1 + 1*2 + 5*2 + 8*2) / 16 = 1.875; sampled E(3) = (6*1 + 4*3 + 6*3)
  / 16 = 2.25.  A reuse at time distance d has mean stack distance
  (N - 1) E(d - 1) / N over m = min(d - 1, N - 1) trials:
  a time distance 1 has an empty window, m = 0: stack distance 0;
  exact time 2 (bin 2, share 1/2): mean 7/8 over 1 trial, stack 1 with
  probability 0.875; sampled time 4: mean 5 * 2.25 / 6 = 1.875 over 3
  trials, p = 0.625: P(0) = .0527, P(1) = .2637, P(2 or 3) = .6836, so
  the 4 reuses give 0.21, 1.05, 2.73 and with the 6 at time 1 the sampled
  stack histogram is 6.21, 1.05, 2.73 -> 6, 1, 3 (bins 0..2).
  The tilt shows in the rounded histograms: --converted 2, 1, 4, 1 in stack
  bins 0..3 (evenly spread bins would give 2, 1, 3, 2), --sampled 6, 1, 3
  (6, 1, 2, 1).

--accuracy, whole program (shares of reuses; first touches left out):
  sampled_time: exact time (bins 1..3) 2/8, 1/8, 5/8 against sampled 6/10, 0,
    4/10: S = 1 - (0.35 + 0.125 + 0.225)/2 = 0.65; with one empty bin 4
    after bin 3, S-hat over the pairs (0,1) .. (3,4):
    |.125-.3| + |.1875-.3| + |.375-.2| + |.3125-.2| = .575 -> 0.7125.
  The converted rows come from model_convert.
"""
import csv
import io
import json
import math
import os

from harness import DCPROF, RAW_VERSION, SCHEMA_VERSION, run
from test_cli_common import (EVIL, EVIL_JSON, EVIL_TEXT, FIXTURES, CliTest, meta,
                             query_bytes, run_bytes, text_rows)
from test_cli_finalize import DumpErrors, fixture_lines

REUSE_SAMPLED = os.path.join(FIXTURES, "reuse_sampled.raw")
EVIL_ARG = EVIL.decode("utf-8", "surrogateescape")
NAMES = {"arr": 0, "list": 1, EVIL_ARG: 2}

VERDICT_ACCURATE = "accurate (S >= 0.9)"
VERDICT_SHIFT = "off by one bin (S < 0.9 but S-hat >= 0.9)"
VERDICT_SAMPLING = "sampling: the sampled time histogram is off (S-hat < 0.9)"
VERDICT_MODEL = ("model: accesses are too dependent for the conversion (S < 0.9 on exact"
                 " time distances)")
VERDICT_SPARSE = "sparse samples: sampled and model rows are each fine, together not"


# ---- an independent implementation of the model (rmodel.c) ----------------

UNKNOWN = 2 ** 63 - 1       # rhist SUM: the sum of the distances is unknown
PARTS = 32


def bin_bounds(first, growth, k):
    """[lo, hi) of bin k of FIRST:GROWTH."""
    if k == 0:
        return 0, first
    lo = first * growth ** (k - 1)
    return lo, lo * growth


def bin_of(first, growth, d):
    k = 0
    while d >= bin_bounds(first, growth, k)[1]:
        k += 1
    return k


def hist(h):
    """{bin: (count, mean or None)} of {bin: count} or of such a dict."""
    return {k: v if isinstance(v, tuple) else (v, None) for k, v in h.items()}


def tilt_mean(lam, n):
    """The mean place of shares along exp(lam t): over the places i/n,
    i = 0..n-1, or (n = 0) t uniform-tilted on [0, 1), whose density
    lam e^(lam t) / (e^lam - 1) has mean 1/(1 - e^-lam) - 1/lam (near 0 by
    its series 1/2 + lam/12 - lam^3/720, exact to rounding there)."""
    if n == 0:
        if abs(lam) < 1e-4:
            return 0.5 + lam / 12 - lam ** 3 / 720
        if lam < -700:      # 1/(1 - e^-lam) underflows to 0
            return -1 / lam
        return -1 / math.expm1(-lam) - 1 / lam
    ws = [math.exp(lam * (i / n - 1)) for i in range(n)]    # scaled by e^-lam
    return sum(w * i / n for i, w in enumerate(ws)) / sum(ws)


def tilt(target, n):
    """lam whose spread has mean place target: bisection, 100 halvings of
    [-700, 700] over n places, of [-1e9, 1e9] on [0, 1) (so that a mean at
    a wide bin's lower bound puts every quantile there; the mean place
    grows with lam)."""
    lo, hi = (-700.0, 700.0) if n else (-1e9, 1e9)
    for _ in range(100):
        mid = (lo + hi) / 2
        if tilt_mean(mid, n) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def quantile(u, lam):
    """t with P(T <= t) = u for T of density proportional to e^(lam t) on
    [0, 1): (e^(lam t) - 1) / (e^lam - 1) = u."""
    if abs(lam) < 1e-9:
        return u
    if lam > 0:     # e^(lam (t - 1)) = u + (1 - u) e^-lam: no e^lam to overflow
        return 1 + math.log1p((1 - u) * math.expm1(-lam)) / lam
    return math.log1p(u * math.expm1(lam)) / lam


def bin_points(lo, hi, mean):
    """[(distance, share)] a time bin [lo, hi) is taken at: each distance
    from max(lo, 1) when at most 32 wide, else 32 quantile points; shares
    even, or along exp(lam t) with the bin's mean when known."""
    lo = max(lo, 1)
    width = hi - lo
    if width <= 0:
        return []
    narrow = width <= PARTS
    n = width if narrow else PARTS
    lam = tilt((mean - lo) / width, n if narrow else 0) \
        if mean is not None and width > 1 else 0.0
    if narrow:
        pts = [(lo + i, math.exp(lam * (i / n - 1))) for i in range(n)]
    else:
        pts = [(math.floor(lo + quantile((j + 0.5) / n, lam) * width), 1.0)
               for j in range(n)]
    total = sum(w for _, w in pts)
    return [(d, w / total) for d, w in pts]


def points_of(h, first, growth):
    """{bin: (count, points)}."""
    return {k: (c, bin_points(*bin_bounds(first, growth, k), mean))
            for k, (c, mean) in hist(h).items()}


def window(prog, first, growth, w, pts=None, prog_first=None):
    """E(w) = sum over the bins' points of count x share x min(d, w), plus
    prog_first x w (the accesses never reused, read forwards: distance
    infinite), over reuses + prog_first; prog_first None: reuses only."""
    pts = pts or points_of(prog, first, growth)
    s = sum(c * sw * (d if w is None else min(d, w))
            for c, ps in pts.values() for d, sw in ps)
    n = sum(c for c, _ in pts.values())
    if prog_first is not None:
        s, n = s + prog_first * w, n + prog_first
    return s / n


def model_N(prog, prog_first, first, growth):
    """N = max(first touches, ceil(E(inf) over reuses only) + 1)."""
    return max(prog_first, math.ceil(window(prog, first, growth, None)) + 1)


def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def binomial_pmf(n, p):
    """P(X = k), k = 0..n, X ~ Binomial(n, p), 0 < p < 1: the recurrence
    P(k + 1) / P(k) = (n - k) / (k + 1) * p / q, in logarithms."""
    lp, r = n * math.log1p(-p), math.log(p) - math.log1p(-p)
    out = [math.exp(lp)]
    for k in range(n):
        lp += math.log(n - k) - math.log(k + 1) + r
        out.append(math.exp(lp))
    return out


def model_convert(time, prog, prog_first, first, growth, normal=True, stats=None):
    """The stack histogram {bin: expected count (float)} of the time
    histogram `time` under the model whose f and N come from `prog` and
    `prog_first` (histograms {bin: (count, mean)} or {bin: count}).
    normal=False sums the binomial exactly everywhere.  stats, a dict,
    receives N and the per-point (sd, weight, p)."""
    out = {}
    if not sum(c for c, _ in hist(prog).values()):
        return out              # no reuses: no f, nothing to convert
    pts = points_of(prog, first, growth)
    N = max(prog_first, math.ceil(window(prog, first, growth, None, pts)) + 1)
    n = N - 1
    if stats is not None:
        stats.update(N=N, points=[])
    for c, tpts in points_of(time, first, growth).values():
        for delta, share in tpts:
            weight = c * share
            # mean (N - 1) E(delta - 1) / N as Binomial(m, mean / m), m the
            # most distinct blocks delta - 1 accesses can hold among N - 1
            e = window(prog, first, growth, delta - 1, pts, prog_first)
            m = min(delta - 1, n)
            mu = n * min(e, N) / N
            if m <= 0:
                out[0] = out.get(0, 0) + weight
                continue
            p = min(1.0, mu / m)
            if p >= 1:
                b = bin_of(first, growth, m)
                out[b] = out.get(b, 0) + weight
                continue
            if p <= 0:
                out[0] = out.get(0, 0) + weight
                continue
            sd = math.sqrt(m * p * (1 - p))
            if stats is not None:
                stats["points"].append((sd, weight, p))
            if sd < 8 or not normal:
                for x, px in enumerate(binomial_pmf(m, p)):
                    b = bin_of(first, growth, x)
                    out[b] = out.get(b, 0) + weight * px
                continue
            mu = m * p
            j = 0
            while True:        # normal, continuity correction, until no mass is left
                blo, bhi = bin_bounds(first, growth, j)
                out[j] = out.get(j, 0) + weight * (phi((bhi - 0.5 - mu) / sd) -
                                                   phi((blo - 0.5 - mu) / sd))
                if blo > m + 40 * sd:
                    break
                j += 1
    return out


def rounded(h):
    """Counts rounded to integers (half away from zero), empty bins left out."""
    r = {k: math.floor(v + 0.5) for k, v in h.items()}
    return {k: v for k, v in r.items() if v > 0}


def similarity(truth, est, sliding):
    """S (equation 1) or S-hat (equation 2): shares of reuses per bin, bins up
    to the last non-empty one of either plus one empty bin; S-hat compares
    the means of adjacent bins."""
    rt, re = sum(truth.values()), sum(est.values())
    if rt <= 0 or re <= 0:
        return 1.0 if rt <= 0 and re <= 0 else 0.0
    n = max(k for h in (truth, est) for k, v in h.items() if v) + 2
    a = [truth.get(i, 0) / rt for i in range(n)]
    b = [est.get(i, 0) / re for i in range(n)]
    if not sliding:
        d = sum(abs(x - y) for x, y in zip(a, b))
    else:
        d = sum(abs((a[i] + a[i + 1]) / 2 - (b[i] + b[i + 1]) / 2) for i in range(n - 1))
    return 1 - d / 2


def verdict(rows):
    """seeds/003 Fig. 5 as reuse_acc.c's Notes put it; rows [(S, S-hat)]:
    sampled_time, converted_exact, converted_sampled (or converted_exact
    alone)."""
    last, model = rows[-1], rows[1 if len(rows) == 3 else 0]
    if last[0] >= 0.9:
        return VERDICT_ACCURATE
    if last[1] >= 0.9:
        return VERDICT_SHIFT
    if len(rows) == 3 and rows[0][1] < 0.9:
        return VERDICT_SAMPLING
    if model[0] < 0.9:
        return VERDICT_MODEL
    return VERDICT_SPARSE


class Dump:
    """The reuse records of a raw dump, read by Python (not by dcprof)."""

    def __init__(self, lines):
        self.first, self.growth = 1, 2
        self.hist = {"stack": {}, "time": {}, "sampled": {}}
        self.rfirst, self.unseen = {}, {}
        for l in lines:
            f = l.split(b" ")
            if f[:2] == [b"meta", b"reuse_bins"]:
                self.first, self.growth = map(int, f[2].split(b":"))
            elif f[0] == b"rhist":
                # (count, sum of the distances or None); version 3: no sums
                s = int(f[5]) if len(f) > 5 else UNKNOWN
                h = self.hist[f[1].decode()].setdefault(int(f[2]), {})
                h[int(f[3])] = (int(f[4]), None if s == UNKNOWN else s)
            elif f[0] == b"rfirst":
                self.rfirst[int(f[1])] = int(f[2])
            elif f[0] == b"runseen":
                self.unseen[int(f[1])] = int(f[2])

    def hm(self, kind, bucket=None):
        """{bin: (count, mean)} of one bucket or of all: the mean of the
        sums over the counts, None when a bucket's sum is unknown (a row
        counting nothing has no mean either)."""
        out = {}
        for b, h in self.hist[kind].items():
            if bucket is None or b == bucket:
                for k, (c, s) in h.items():
                    o = out.setdefault(k, [0, 0, True])
                    o[0] += c
                    if s is None or c == 0:
                        o[2] = False
                    else:
                        o[1] += s
        return {k: (c, s / c if known else None) for k, (c, s, known) in out.items() if c}

    def h(self, kind, bucket=None):
        """{bin: count} of one bucket or of all."""
        return {k: c for k, (c, _) in self.hm(kind, bucket).items()}

    def n_first(self, kind, bucket=None):
        d = self.unseen if kind == "sampled" else self.rfirst
        return sum(c for b, c in d.items() if bucket is None or b == bucket)

    def convert(self, kind, bucket=None, **kw):
        """kind "time" (--converted) or "sampled" (--sampled --kind stack)."""
        return model_convert(self.hm(kind, bucket), self.hm(kind), self.n_first(kind),
                             self.first, self.growth, **kw)

    def accuracy(self, bucket=None):
        """[(S, S-hat)] as --accuracy should print them."""
        truth_t, truth_s = self.h("time", bucket), self.h("stack", bucket)
        conv_e = rounded(self.convert("time", bucket))
        rows = [(similarity(truth_s, conv_e, False), similarity(truth_s, conv_e, True))]
        if self.unseen or self.hist["sampled"]:
            samp, conv_s = self.h("sampled", bucket), rounded(self.convert("sampled", bucket))
            rows = [(similarity(truth_t, samp, False), similarity(truth_t, samp, True)),
                    rows[0],
                    (similarity(truth_s, conv_s, False), similarity(truth_s, conv_s, True))]
        return rows


def pct(n, d):
    return 100.0 * n / d


def version_3(lines):
    """The dump as version 3 wrote it: no sums in the rhist records, no
    INLINED field in the loc records (version 6)."""
    return [b"dcprof-raw 3"] + [b" ".join(l.split(b" ")[:5]) if l.startswith(b"rhist ") else
                                b" ".join(l.split(b" ")[:7]) if l.startswith(b"loc ") else l
                                for l in lines[1:]]


class SampledTest(CliTest):
    GOOD = fixture_lines(REUSE_SAMPLED)

    def setUp(self):
        super().setUp()
        self.db = self.profile(REUSE_SAMPLED)

    def variant(self, drop=(), add=(), name="v.raw", lines=None):
        """The fixture without the lines starting with one of drop, with the
        lines add before its end record; returns (raw path, Dump)."""
        lines = [l for l in (lines or self.GOOD) if not any(l.startswith(d) for d in drop)]
        lines = lines[:-1] + list(add) + lines[-1:]
        return self.write(name, b"\n".join(lines) + b"\n"), Dump(lines)

    def variant_db(self, *args, **kw):
        raw, dump = self.variant(*args, **kw)
        r, db = self.finalize(raw, os.path.basename(raw)[:-4] + ".db")
        self.assertEqual(r.returncode, 0, r.stderr)
        return db, dump

    def json(self, *opts, db=None):
        return json.loads(self.run_dcprof("reuse", db or self.db, "--format", "json", *opts))

    def assertRows(self, got, want):
        """want: [(bin, lo, hi, count, pct, cum_pct)]"""
        self.assertEqual(len(got), len(want), got)
        for g, w in zip(got, want):
            self.assertEqual((g["bin"], g["lo"], g["hi"], g["count"]), w[:4])
            self.assertAlmostEqual(g["pct"], w[4], places=6)
            self.assertAlmostEqual(g["cum_pct"], w[5], places=6)

    def assertModel(self, doc, want, first, dump):
        """doc: dcprof's JSON; want: {bin: expected count} from model_convert,
        rounded as dcprof rounds;
        first: the first touches (or uses never reused) of the histogram;
        dump: the Dump (for the bins)."""
        got = {r["bin"]: r["count"] for r in doc["rows"]}
        for k in set(got) | set(want):
            # rounded alike, unless the model's count is within noise of a half
            v = want.get(k, 0)
            tol = 0 if abs(v - math.floor(v) - 0.5) > 1e-6 else 1
            self.assertLessEqual(abs(got.get(k, 0) - math.floor(v + 0.5)), tol,
                                 "bin %d: dcprof %s, model %.4f (all: %s, model %s)"
                                 % (k, got.get(k, 0), v, got, want))
        for r in doc["rows"]:
            self.assertEqual((r["lo"], r["hi"]), bin_bounds(dump.first, dump.growth, r["bin"]))
            self.assertEqual((r["lo_bytes"], r["hi_bytes"]), (r["lo"] * 64, r["hi"] * 64))
            self.assertGreater(r["count"], 0)
        self.assertEqual(doc["kind"], "stack")
        self.assertEqual(doc["reuses"], sum(got.values()))
        self.assertEqual(doc["first_touches"], first)
        self.assertEqual(doc["accesses"], sum(got.values()) + first)
        total, cum = sum(got.values()) + first, 0
        for r in doc["rows"]:
            cum += r["count"]
            self.assertAlmostEqual(r["pct"], pct(r["count"], total), places=6)
            self.assertAlmostEqual(r["cum_pct"], pct(cum, total), places=6)

    def bad(self, args, message, cmd="reuse"):
        self.assertError(run([DCPROF, cmd] + args), "dcprof " + cmd, message)

    ACC_NAMES = ["sampled_time", "converted_exact", "converted_sampled"]

    def assertAccuracy(self, db, dump, want_verdict=None, object=None):
        """JSON and text of --accuracy against dump.accuracy(); returns the
        verdict."""
        bucket = NAMES[object] if object is not None else None
        # the rounding of every converted bin is clear: no count within
        # floating-point noise of one half
        for kind in ("time", "sampled"):
            for v in dump.convert(kind, bucket).values():
                self.assertGreater(abs(v - math.floor(v) - 0.5), 1e-6, (kind, v))
        want = dump.accuracy(bucket)
        names = self.ACC_NAMES if len(want) == 3 else self.ACC_NAMES[1:2]
        opts = ["--object", object] if object is not None else []
        doc = self.json("--accuracy", *opts, db=db)
        self.assertEqual([r["comparison"] for r in doc["rows"]], names)
        for r, (s, s_hat) in zip(doc["rows"], want):
            self.assertAlmostEqual(r["S"], s, places=8, msg=r["comparison"])
            self.assertAlmostEqual(r["S_hat"], s_hat, places=8, msg=r["comparison"])
        self.assertEqual(doc["verdict"], verdict(want))
        if want_verdict is not None:
            self.assertEqual(doc["verdict"], want_verdict)
        # reuse_acc.c: watching the accessed bytes (dr) while exact
        # distances are per block wider than 8 bytes gets a note
        m = dict(query_bytes(db, "SELECT key, value FROM meta"))
        note = None
        if (m.get(b"reuse_watch") == b"dr" and int(m[b"reuse_block"]) > 8 and
                b"reuse_sample_period" in m):
            note = ("the watchpoints watched the accessed bytes (--reuse-watch=dr) but exact"
                    " distances are per block of more than 8 bytes: record with"
                    " --reuse-watch=block (or --reuse-block=8) to compare like with like")
        self.assertEqual(doc["note"], note)
        out = self.run_dcprof("reuse", db, "--accuracy", *opts)
        self.assertIn("\n\nverdict:  %s\n" % verdict(want), out)
        self.assertTrue(out.endswith("\nverdict:  %s\n" % verdict(want) +
                                     ("note:     %s\n" % note if note else "")))
        rows = text_rows(out, "estimate")
        labels = {"sampled_time": ("sampled time", "exact time"),
                  "converted_exact": ("exact time, converted", "exact stack"),
                  "converted_sampled": ("sampled time, converted", "exact stack")}
        self.assertEqual(list(rows), [labels[n][0] for n in names])
        for n, (s, s_hat) in zip(names, want):
            self.assertEqual(rows[labels[n][0]], [labels[n][0], labels[n][1], "%.2f" % s,
                                                  "%.2f" % s_hat])
        return doc["verdict"]


# ---- 1. finalize -----------------------------------------------------------

class FinalizeSampled(SampledTest):
    def test_header_is_this_version(self):
        self.assertEqual(self.GOOD[0], b"dcprof-raw %d" % RAW_VERSION)

    def test_tables(self):
        self.assertEqual(query_bytes(self.db, "SELECT * FROM reuse_hist WHERE kind = 'sampled'"
                                     " ORDER BY bucket, bin"),
                         [(0, b"sampled", 3, 4, 8, 4, 4.0), (1, b"sampled", 1, 1, 2, 4, 1.0),
                          (2, b"sampled", 1, 1, 2, 2, 1.0)])
        self.assertEqual(query_bytes(self.db, "SELECT * FROM reuse_unseen ORDER BY bucket"),
                         [(0, 4), (1, 2)])
        # the exact rows are as before, next to them
        self.assertEqual(query_bytes(self.db, "SELECT kind, COUNT(*), SUM(count) FROM"
                                     " reuse_hist GROUP BY kind ORDER BY kind"),
                         [(b"sampled", 3, 10), (b"stack", 4, 8), (b"time", 5, 8)])
        self.assertEqual(query_bytes(self.db, "SELECT * FROM reuse_first ORDER BY bucket"),
                         [(0, 4), (1, 3), (2, 1)])

    def test_meta(self):
        m = meta(self.db)
        self.assertEqual(m["schema_version"], str(SCHEMA_VERSION))
        self.assertEqual({k: v for k, v in m.items() if k.startswith("reuse_")}, {
            "reuse_block": "64", "reuse_bins": "1:2", "reuse_sample_period": "2",
            "reuse_watchpoints": "2", "reuse_watch": "dr", "reuse_replace": "reservoir",
            "reuse_attrib": "proportional", "reuse_samples": "8", "reuse_arms": "7",
            "reuse_replaced": "1", "reuse_dropped": "1", "reuse_traps": "4",
            "reuse_accesses": "16"})

    def means(self, db):
        return query_bytes(db, "SELECT kind, bucket, bin, count, mean FROM reuse_hist"
                           " ORDER BY kind, bucket, bin")

    def test_mean_column(self):
        """mean = SUM / COUNT of the rhist record, NULL for the unknown sum
        2^63 - 1; a sum of 0 is a mean of 0, not unknown."""
        self.assertEqual(query_bytes(self.db, "SELECT type FROM pragma_table_info('reuse_hist')"
                                     " WHERE name = 'mean'"), [(b"REAL",)])
        self.assertEqual(self.means(self.db), [
            (b"sampled", 0, 3, 4, 4.0), (b"sampled", 1, 1, 4, 1.0), (b"sampled", 2, 1, 2, 1.0),
            (b"stack", 0, 2, 4, 3.0), (b"stack", 1, 0, 1, 0.0), (b"stack", 1, 2, 2, 2.5),
            (b"stack", 2, 0, 1, 0.0),
            (b"time", 0, 3, 4, 4.0), (b"time", 1, 1, 1, 1.0), (b"time", 1, 2, 1, None),
            (b"time", 1, 3, 1, 6.0), (b"time", 2, 1, 1, 1.0)])
        # the same from the dump's fields, read by Python
        d = Dump(self.GOOD)
        self.assertEqual(self.means(self.db), sorted(
            (k.encode(), b, i, c, None if s is None else s / c)
            for k, h in d.hist.items() for b, bins in h.items()
            for i, (c, s) in bins.items()))

    def test_mean_edges(self):
        # the largest known sum (2^63 - 2) and a sum that does not divide
        big = UNKNOWN - 1
        db, _ = self.variant_db([b"rhist time 0 ", b"rhist stack 1 2 "],
                                [b"rhist time 0 3 4 %d" % big, b"rhist stack 1 2 3 10"])
        rows = {(k, b, i): m for k, b, i, _, m in self.means(db)}
        self.assertEqual(rows[(b"time", 0, 3)], big / 4)
        self.assertAlmostEqual(rows[(b"stack", 1, 2)], 10 / 3, places=12)
        self.assertIsNone(rows[(b"time", 1, 2)])

    def test_mean_of_a_version_3_dump_is_null(self):
        lines = version_3([l for l in self.GOOD
                           if not l.startswith((b"rhist sampled ", b"runseen "))])
        db, dump = self.variant_db(lines=lines)
        rows = self.means(db)
        self.assertEqual(len(rows), 9)
        self.assertEqual({m for _, _, _, _, m in rows}, {None})
        # so every bin is spread evenly: 2, 1, 3, 2 (the version 4 dump: 2, 1, 4, 1)
        want = dump.convert("time")
        self.assertEqual(want, model_convert(dump.h("time"), dump.h("time"), 8, 1, 2))
        self.assertEqual(rounded(want), {0: 2, 1: 1, 2: 3, 3: 2})
        self.assertEqual(rounded(Dump(self.GOOD).convert("time")), {0: 2, 1: 1, 2: 4, 3: 1})
        self.assertModel(self.json("--converted", db=db), want, 8, dump)
        self.assertModel(self.json("--converted"), Dump(self.GOOD).convert("time"), 8, dump)

    def test_sampled_bin_bounds_follow_reuse_bins(self):
        db, _ = self.variant_db([b"meta reuse_bins"], [b"meta reuse_bins 3:2"])
        self.assertEqual(query_bytes(db, "SELECT DISTINCT bin, lo, hi FROM reuse_hist"
                                     " WHERE kind = 'sampled' ORDER BY bin"),
                         [(1, 3, 6), (3, 12, 24)])


class FinalizeSampledErrors(DumpErrors):
    GOOD = fixture_lines(REUSE_SAMPLED)

    def line(self, prefix):
        return next(i for i, l in enumerate(self.GOOD) if l.startswith(prefix))

    def as_v3(self, lines):
        return b"\n".join(version_3(lines)) + b"\n"

    def test_sampled_kind_in_a_version_3_dump(self):
        self.check(self.as_v3(self.GOOD),
                   "unknown reuse distance kind 'sampled' (stack or time)",
                   self.line(b"rhist sampled ") + 1)

    def test_runseen_in_a_version_3_dump(self):
        lines = [l for l in self.GOOD if not l.startswith(b"rhist sampled ")]
        i = next(i for i, l in enumerate(lines) if l.startswith(b"runseen "))
        self.check(self.as_v3(lines), "unknown record type 'runseen'", i + 1)

    def test_bad_runseen(self):
        i = self.line(b"runseen 0 ")
        self.check(self.replace(i, b"runseen 0"), "runseen record has 1 fields, expected 2",
                   i + 1)
        self.check(self.replace(i, b"runseen 0 4 4"), "runseen record has 3 fields, expected 2",
                   i + 1)
        self.check(self.replace(i, b"runseen 0 x"),
                   "field 2: 'x' is not an unsigned decimal number", i + 1)
        self.check(self.replace(i, b"runseen -1 4"),
                   "field 1: '-1' is not an unsigned decimal number", i + 1)
        self.check(self.replace(i, b"runseen 0 99999999999999999999"),
                   "field 2: number out of range", i + 1)
        self.check(self.replace(i + 1, b"runseen 0 2"), "duplicate runseen record", i + 2)

    def test_srpair(self):
        # the fixture has no sampled pairs; one in place of its first rpair
        # record: estimated count and time sum, mean = sum / count
        i = self.line(b"rpair ")
        self.check(self.replace(i, b"srpair 0 1 0 4"), "srpair record with count 0", i + 1)
        self.check(self.replace(i, b"srpair 0 1 4"), "srpair record has 3 fields, expected 4",
                   i + 1)
        self.check(self.replace(i, b"srpair 0 99 4 8"), "location 99 is not declared", i + 1)
        v3 = list(self.GOOD)
        v3[i] = b"srpair 0 1 4 8"
        v3 = [l for l in v3 if not l.startswith((b"rhist sampled ", b"runseen "))]
        self.check(self.as_v3(v3), "unknown record type 'srpair'",
                   v3.index(b"srpair 0 1 4 8") + 1)

    def test_runseen_of_an_undeclared_bucket(self):
        i = self.line(b"runseen 0 ")
        self.check(self.replace(i, b"runseen 3 4"), "bucket 3 is not declared", i + 1)
        self.check(self.replace(i, b"runseen 9 4"), "bucket 9 is not declared", i + 1)

    def test_bad_sampled_rhist(self):
        i = self.line(b"rhist sampled 0 ")
        self.check(self.replace(i, b"rhist space 0 3 4 16"),
                   "unknown reuse distance kind 'space' (stack, time or sampled)", i + 1)
        self.check(self.replace(i, b"rhist sampled 3 3 4 16"), "bucket 3 is not declared",
                   i + 1)
        self.check(self.replace(i + 1, b"rhist sampled 0 3 1 4"),
                   "duplicate rhist record (same kind, bucket and bin)", i + 2)
        self.check(self.replace(i, b"rhist sampled 0 64 4 16"),
                   "rhist bin 64 is beyond the last there can be (63)", i + 1)

    def test_rhist_without_sum_in_a_version_4_dump(self):
        # version 4 rhist records have 5 fields; the version 3 form is an error
        for prefix, short in ((b"rhist time 0 ", b"rhist time 0 3 4"),
                              (b"rhist stack 1 0 ", b"rhist stack 1 0 1"),
                              (b"rhist sampled 2 ", b"rhist sampled 2 1 2")):
            i = self.line(prefix)
            self.check(self.replace(i, short), "rhist record has 4 fields, expected 5", i + 1)
        i = self.line(b"rhist time 0 ")
        self.check(self.replace(i, b"rhist time 0 3 4 16 16"),
                   "rhist record has 6 fields, expected 5", i + 1)

    def test_rhist_with_sum_in_a_version_3_dump(self):
        lines = version_3([l for l in self.GOOD
                           if not l.startswith((b"rhist sampled ", b"runseen "))])
        i = next(i for i, l in enumerate(lines) if l.startswith(b"rhist time 1 3 "))
        lines[i] = b"rhist time 1 3 1 6"
        self.check(b"\n".join(lines) + b"\n", "rhist record has 5 fields, expected 4", i + 1)

    def test_bad_sum(self):
        i = self.line(b"rhist time 0 ")
        for sum_, message in ((b"x", "field 5: 'x' is not an unsigned decimal number"),
                              (b"-1", "field 5: '-1' is not an unsigned decimal number"),
                              (b"1.5", "field 5: '1.5' is not an unsigned decimal number"),
                              (b"%d" % 2 ** 63, "field 5: number out of range")):
            self.check(self.replace(i, b"rhist time 0 3 4 " + sum_), message, i + 1)


# ---- 2. --sampled --kind time ---------------------------------------------

class SampledTime(SampledTest):
    def test_json(self):
        doc = self.json("--sampled", "--kind", "time")
        self.assertEqual((doc["schema_version"], doc["source"], doc["kind"], doc["object"],
                          doc["block"], doc["bin_first"], doc["bin_growth"]),
                         (SCHEMA_VERSION, "sampled", "time", None, 64, 1, 2))
        self.assertEqual((doc["accesses"], doc["reuses"], doc["first_touches"]), (16, 10, 6))
        self.assertRows(doc["rows"], [(1, 1, 2, 6, 37.5, 37.5), (3, 4, 8, 4, 25, 62.5)])
        # time distances are in accesses: no byte bounds
        self.assertEqual({(r["lo_bytes"], r["hi_bytes"]) for r in doc["rows"]}, {(None, None)})
        self.assertEqual(doc["first_touch"], {"count": 6, "pct": 37.5, "cum_pct": 100})

    def test_rows_are_the_dumps_bins(self):
        dump = Dump(self.GOOD)
        for name, bucket in list(NAMES.items()) + [(None, None)]:
            opts = ["--object", name] if name is not None else []
            doc = self.json("--sampled", "--kind", "time", *opts)
            self.assertEqual({r["bin"]: r["count"] for r in doc["rows"]},
                             dump.h("sampled", bucket), name)
            self.assertEqual(doc["first_touch"]["count"], dump.n_first("sampled", bucket))

    def test_object(self):
        doc = self.json("--sampled", "--kind", "time", "--object", "arr")
        self.assertEqual((doc["object"], doc["accesses"], doc["reuses"], doc["first_touches"]),
                         ("arr", 8, 4, 4))
        self.assertRows(doc["rows"], [(3, 4, 8, 4, 50, 50)])
        self.assertEqual(doc["first_touch"], {"count": 4, "pct": 50, "cum_pct": 100})
        doc = self.json("--sampled", "--kind", "time", "--object", "list")
        self.assertRows(doc["rows"], [(1, 1, 2, 4, pct(4, 6), pct(4, 6))])
        self.assertAlmostEqual(doc["first_touch"]["pct"], pct(2, 6), places=6)

    def test_hostile_object_name(self):
        doc = self.json("--sampled", "--kind", "time", "--object", EVIL_ARG)
        self.assertEqual(doc["object"], EVIL_JSON)
        self.assertRows(doc["rows"], [(1, 1, 2, 2, 100, 100)])
        # no runseen record: no use of EVIL stayed unseen
        self.assertEqual(doc["first_touch"], {"count": 0, "pct": 0, "cum_pct": 100})
        r = run_bytes([DCPROF, "reuse", self.db, "--sampled", "--kind", "time", "--object",
                       EVIL])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(("\nobject:   bucket '%s'\n" % EVIL_TEXT).encode(), r.stdout)
        self.assertNotIn(b"\x1b", r.stdout)
        rows = text_rows(r.stdout.decode("utf-8", "surrogateescape"), "time")
        self.assertEqual(rows["no reuse seen"], ["no reuse seen", "0", "0.00", "100.00"])

    def test_text(self):
        out = self.run_dcprof("reuse", self.db, "--sampled", "--kind", "time")
        self.assertIn("\nreuse:    sampled, blocks of 64 B, bins 1:2\n"
                      "object:   whole program\n"
                      "sampling: a use every 2 accesses, 2 watchpoints (dr), reservoir,"
                      " proportional attribution\n"
                      "          uses sampled 8, reuses caught 4, uses not watched 1\n"
                      "accesses: 16 (10 reuses, 6 never reused); time distances,"
                      " estimates\n\n", out)
        rows = text_rows(out, "time")
        self.assertEqual(rows, {
            "[1, 2) accesses": ["[1, 2) accesses", "6", "37.50", "37.50", "#" * 40],
            "[4, 8) accesses": ["[4, 8) accesses", "4", "25.00", "62.50", "#" * 27],
            "no reuse seen": ["no reuse seen", "6", "37.50", "100.00", "#" * 40]})
        self.assertEqual(list(rows)[-1], "no reuse seen")

    def test_text_other_sampling_meta(self):
        # each value distinct, so a swapped field shows
        db, _ = self.variant_db(
            [b"meta reuse_sample_period", b"meta reuse_watch", b"meta reuse_replace",
             b"meta reuse_attrib", b"meta reuse_samples", b"meta reuse_traps",
             b"meta reuse_dropped"],
            [b"meta reuse_sample_period 100", b"meta reuse_watchpoints 1",
             b"meta reuse_watch block", b"meta reuse_replace oldest", b"meta reuse_attrib none",
             b"meta reuse_samples 1234567", b"meta reuse_traps 23456",
             b"meta reuse_dropped 17"])
        out = self.run_dcprof("reuse", db, "--sampled", "--kind", "time")
        self.assertIn("\nsampling: a use every 100 accesses, 1 watchpoint (block), oldest,"
                      " none attribution\n"
                      "          uses sampled 1,234,567, reuses caught 23,456, uses not"
                      " watched 17\n", out)

    def test_csv(self):
        r = run([DCPROF, "reuse", self.db, "--sampled", "--kind", "time", "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.reader(io.StringIO(r.stdout)))
        self.assertEqual(rows, [
            ["bin", "lo", "hi", "lo_bytes", "hi_bytes", "count", "pct", "cum_pct"],
            ["1", "1", "2", "", "", "6", "37.5", "37.5"],
            ["3", "4", "8", "", "", "4", "25", "62.5"],
            ["", "", "", "", "", "6", "37.5", "100"]])

    def test_bad_sampling_meta(self):
        for drop, add in (([b"meta reuse_traps"], []),
                          ([b"meta reuse_samples"], [b"meta reuse_samples x"])):
            db, _ = self.variant_db(drop, add)
            self.bad([db, "--sampled"], "cannot read profile '%s': bad sampled reuse meta" % db)


# ---- 3. --converted and --sampled (stack): the model -----------------------

class Converted(SampledTest):
    def test_n(self):
        # the by-hand values of the docstring, through the model's own functions
        d = Dump(self.GOOD)
        self.assertEqual(d.hm("time"), {1: (2, 1.0), 2: (1, None), 3: (5, 4.4)})
        self.assertEqual(d.hm("sampled"), {1: (6, 1.0), 3: (4, 4.0)})
        self.assertAlmostEqual(window(d.hm("time"), 1, 2, None), 3.3125)
        self.assertEqual(model_N(d.hm("time"), d.n_first("time"), 1, 2), 8)
        self.assertAlmostEqual(window(d.hm("sampled"), 1, 2, None), 2.2)
        self.assertEqual(model_N(d.hm("sampled"), d.n_first("sampled"), 1, 2), 6)
        # evenly spread bins (no means) would give 4 and 2.8
        self.assertAlmostEqual(window(d.h("time"), 1, 2, None), 4.0)
        self.assertAlmostEqual(window(d.h("sampled"), 1, 2, None), 2.8)
        # the rounded histograms of the docstring
        self.assertEqual(rounded(d.convert("time")), {0: 2, 1: 1, 2: 4, 3: 1})
        self.assertEqual(rounded(d.convert("sampled")), {0: 6, 1: 1, 2: 3})
        # every point is summed exactly (sd < 8)
        for kind in ("time", "sampled"):
            stats = {}
            d.convert(kind, stats=stats)
            self.assertTrue(stats["points"] and all(sd < 8 for sd, _, _ in stats["points"]))

    def check_all(self, db, dump):
        for name, bucket in list(NAMES.items()) + [(None, None)]:
            opts = ["--object", name] if name is not None else []
            doc = self.json("--converted", *opts, db=db)
            self.assertEqual(doc["source"], "converted")
            self.assertModel(doc, dump.convert("time", bucket), dump.n_first("time", bucket),
                             dump)
            doc = self.json("--sampled", *opts, db=db)
            self.assertEqual(doc["source"], "sampled")
            self.assertModel(doc, dump.convert("sampled", bucket),
                             dump.n_first("sampled", bucket), dump)
            # --kind stack is the default
            self.assertEqual(self.json("--sampled", "--kind", "stack", *opts, db=db), doc)

    def test_fixture(self):
        self.check_all(self.db, Dump(self.GOOD))

    def test_bin_points(self):
        """The model's points on their own (no dcprof): a narrow bin's
        points have the bin's mean, an unknown mean spreads evenly, a mean
        at a bound puts (nearly) everything there."""
        def mean(pts):
            return sum(d * w for d, w in pts)
        self.assertEqual(bin_points(0, 1, None), [])            # no distance 0
        self.assertEqual(bin_points(1, 2, 7.0), [(1, 1.0)])     # 1 wide: no tilt
        self.assertEqual(bin_points(4, 8, None), [(d, 0.25) for d in range(4, 8)])
        for lo, hi, m in ((4, 8, 4.4), (4, 8, 6.9), (2, 4, 2.5), (32, 64, 40.0),
                          (0, 3, 7 / 6)):
            self.assertAlmostEqual(mean(bin_points(lo, hi, m)), m, places=9)
        for lo, hi in ((4, 8), (32, 64)):
            self.assertGreater(bin_points(lo, hi, lo)[0][1], 1 - 1e-9)
            self.assertGreater(bin_points(lo, hi, hi - 1)[-1][1], 1 - 1e-9)
        # wide: 32 quantiles with equal shares; evenly: the part-middles
        self.assertEqual(bin_points(64, 128, None), [(65 + 2 * j, 1 / 32) for j in range(32)])
        self.assertEqual(bin_points(128, 256, 128.0), [(128, 1 / 32)] * 32)
        self.assertEqual({d for d, _ in bin_points(128, 256, 255.0)}, set(range(251, 256)))
        pts = bin_points(64, 128, 110.0)
        self.assertEqual(len(pts), 32)
        self.assertTrue(all(64 <= d < 128 for d, _ in pts))
        # the continuous spread has mean 110; the floors take about 1/2 off
        self.assertLess(abs(mean(pts) - 109.5), 0.5)

    def test_n_from_the_mean_time_distance(self):
        # 1 use never reused: N = ceil(E(inf) = 2.2) + 1 = 4, not 1
        db, dump = self.variant_db([b"runseen "], [b"runseen 0 1"])
        self.assertEqual(model_N(dump.hm("sampled"), dump.n_first("sampled"), 1, 2), 4)
        self.check_all(db, dump)
        # and 1 first touch: N = ceil(3.3125) + 1 = 5
        db, dump = self.variant_db([b"runseen ", b"rfirst "],
                                   [b"runseen 0 1", b"rfirst 0 1"], name="w.raw")
        self.assertEqual(model_N(dump.hm("time"), dump.n_first("time"), 1, 2), 5)
        self.check_all(db, dump)

    def test_wide_bins(self):
        # bins wider than 32 distances are taken at 32 quantiles: time
        # [32,64) (width 32, every distance; mean 40, tilted down), [64,128)
        # (mean 110, tilted up), [128,256) (unknown: the part-middles);
        # sampled [32,64) mean 63 (all at 63), [128,256) mean 128 (all at 128)
        add = [b"rhist time 0 6 10 400", b"rhist time 1 7 6 660",
               b"rhist time 2 8 3 %d" % UNKNOWN,
               b"rhist sampled 0 6 8 504", b"rhist sampled 1 8 4 512"]
        db, dump = self.variant_db([], add)
        self.assertEqual(dump.hm("sampled"), {1: (6, 1.0), 3: (4, 4.0), 6: (8, 63.0),
                                              8: (4, 128.0)})
        self.check_all(db, dump)
        # the means matter: without them the model is off by more than 1
        even = Dump(version_3(self.GOOD[:-1] + add))
        for kind in ("time", "sampled"):
            a, b = rounded(dump.convert(kind)), rounded(even.convert(kind))
            self.assertGreater(max(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b)),
                               1, kind)

    def test_text(self):
        out = self.run_dcprof("reuse", self.db, "--converted")
        want = rounded(Dump(self.GOOD).convert("time"))
        self.assertIn("\nreuse:    converted, blocks of 64 B, bins 1:2\n", out)
        self.assertIn("\naccesses: %d (%d reuses, 8 first touches); stack distances converted"
                      " from time distances\n\n" % (sum(want.values()) + 8,
                                                    sum(want.values())), out)
        self.assertNotIn("sampling:", out)
        rows = text_rows(out, "stack")
        self.assertEqual(list(rows)[-1], "first touch")
        self.assertEqual(want[0], 2)
        self.assertEqual(rows["[0, 1) blocks"][:3], ["[0, 1) blocks", "[0 B, 64 B)", "2"])
        out = self.run_dcprof("reuse", self.db, "--sampled")
        want = rounded(Dump(self.GOOD).convert("sampled"))
        self.assertIn("\nreuse:    sampled, blocks of 64 B, bins 1:2\n", out)
        self.assertIn("\nsampling: a use every 2 accesses", out)
        self.assertIn("\naccesses: %d (%d reuses, 6 never reused); stack distances, estimates"
                      " converted from time distances\n\n" % (sum(want.values()) + 6,
                                                             sum(want.values())), out)
        self.assertEqual(list(text_rows(out, "stack"))[-1], "no reuse seen")

    def test_hostile_object_name(self):
        r = run_bytes([DCPROF, "reuse", self.db, "--sampled", "--object", EVIL])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(("\nobject:   bucket '%s'\n" % EVIL_TEXT).encode(), r.stdout)
        self.assertNotIn(b"\x1b", r.stdout)

    def test_first_bin_wider_than_one(self):
        """Bins 3:2: time bin 0 is [0, 3), which holds time distances 1 and 2
        only (a time distance is at least 1): its points start at
        max(lo, 1) = 1, and E(1) = P(delta >= 1) is 1.  (An earlier
        window_blocks() spread bin 0 over 0, 1, 2: E(1) = 0.8 here, and
        dcprof printed 89 and 11 for 84.95 and 15.05.)  Bin 0's mean 7/6
        (sum 70) tilts it towards 1, bin 1's 5 (sum 100) puts it at 5 =
        hi - 1, bin 2's is unknown."""
        db, dump = self.variant_db(
            [b"meta reuse_bins", b"rhist ", b"rfirst ", b"runseen "],
            [b"meta reuse_bins 3:2", b"rhist time 0 0 60 70", b"rhist time 0 1 20 100",
             b"rhist time 0 2 20 %d" % UNKNOWN, b"rfirst 0 4"])
        self.assertAlmostEqual(window(dump.hm("time"), 3, 2, 1), 1.0)
        # points at 1 (share 5/6) and 2 (1/6): the mean 7/6
        self.assertEqual([d for d, _ in bin_points(0, 3, 7 / 6)], [1, 2])
        self.assertAlmostEqual(bin_points(0, 3, 7 / 6)[1][1], 1 / 6)
        self.assertModel(self.json("--converted", db=db), dump.convert("time"), 4, dump)


    def test_mean_over_buckets(self):
        """The whole program's bin mean is the count-weighted mean of the
        buckets' (bin 3: (400*4 + 100*6) / 500 = 4.4, not (4 + 6)/2 = 5),
        unknown when one bucket's is (bin 2: arr's 2 and list's unknown:
        the even spread, not arr's 2); a bucket converts with its own means
        and the whole program's f and N.  Counts are large enough that
        either mistake moves a bin by more than 2."""
        U = UNKNOWN
        db, dump = self.variant_db([b"rhist time "], [
            b"rhist time 0 2 400 800", b"rhist time 0 3 400 1600",
            b"rhist time 1 1 100 100", b"rhist time 1 2 100 %d" % U, b"rhist time 1 3 100 600",
            b"rhist time 2 1 100 100"])
        self.assertEqual(dump.hm("time"), {1: (200, 1.0), 2: (500, None), 3: (500, 4.4)})
        self.assertEqual(dump.hm("time", 0), {2: (400, 2.0), 3: (400, 4.0)})
        self.assertEqual(dump.hm("time", 1), {1: (100, 1.0), 2: (100, None), 3: (100, 6.0)})
        right = dump.convert("time")
        for wrong in ({2: (500, None), 3: (500, 5.0)}, {2: (500, 2.0), 3: (500, 4.4)}):
            prog = {**dump.hm("time"), **wrong}
            other = model_convert(prog, prog, 8, 1, 2)
            self.assertGreater(max(abs(right[k] - other.get(k, 0)) for k in right), 2, wrong)
        self.check_all(db, dump)


class NormalBranch(SampledTest):
    """Large N: points with sd >= 8 take the normal approximation with
    continuity correction.  One bucket (arr), bins 1:2.

    SYMMETRIC: both the exact and the sampled time histogram are [1,2) 200,
    [8,16) 400 (mean 9: tilted towards 8), [32,64) 600 (mean 60: towards
    63), [128,256) 800, [256,512) 1000, [512,1024) 500, [1024,2048) 300,
    the wide bins' means unknown: their points are the part-middles
    lo + (j + 1/2) w/32 (mean lo + w/2), a narrow bin's points have its mean
    (3800 reuses):
      E(inf) = (200*1 + 400*9 + 600*60 + 800*192 + 1000*384 + 500*768
               + 300*1536) / 3800 = 1422200 / 3800 = 374.26
      --converted: 400 first touches: N = max(400, 376) = 400
      --sampled:   100 never reused:  N = max(100, 376) = 376
    p is between 0.6 and 1 there (many points with sd >= 8), where the
    normal approximation is within a fraction of a count of the exact
    binomial.

    SKEWED: time [1,2) 400000, [1024,2048) 10000 and [2048,4096) 10000
    (unknown: the part-middles), 6000 first touches (E(inf) over the
    reuses (400000 + 10000*1536 + 10000*3072) / 420000 = 110.67, N = 6000).
    A window of w accesses (1024 <= w < 4096) holds about
    (400000 + 10000 w' + 10000 w'' + 6000 w) / 426000 blocks (w', w'' the
    two bins' distances cut at w), 4 to 6 % of w: p is small, the binomial over m = w trials skewed (sd 7.8 to 12.6),
    and with these counts the normal approximation is off the exact sum by
    more than 3 in some bins, so only the normal branch matches the model's
    rounding."""
    SYMMETRIC = [(1, 200, 200), (4, 400, 3600), (6, 600, 36000), (8, 800, UNKNOWN),
                 (9, 1000, UNKNOWN), (10, 500, UNKNOWN), (11, 300, UNKNOWN)]
    SKEWED = [(1, 400000, 400000), (11, 10000, UNKNOWN), (12, 10000, UNKNOWN)]

    def dump_db(self, hist, rfirst, runseen, name):
        add = [b"rhist %s 0 %d %d %d" % (kind, k, c, s) for kind in (b"time", b"sampled")
               for k, c, s in hist] + [b"rfirst 0 %d" % rfirst, b"runseen 0 %d" % runseen]
        return self.variant_db([b"rhist ", b"rfirst ", b"runseen ", b"rpair "], add,
                               name=name)

    def check(self, db, d, opt, kind, N, first, normal_differs):
        stats = {}
        want = d.convert(kind, stats=stats)
        self.assertEqual(stats["N"], N)
        # the fixture reaches both branches
        sds = [sd for sd, _, _ in stats["points"]]
        self.assertTrue(any(sd >= 8 for sd in sds) and any(sd < 8 for sd in sds))
        doc = self.json(opt, db=db)
        got = {r["bin"]: r["count"] for r in doc["rows"]}
        # 1. the model as rmodel.c specifies it (normal for sd >= 8), rounded
        #    alike, as for the small fixture
        self.assertModel(doc, want, first, d)
        # 2. against the exact binomial everywhere, the model the normal
        #    branch approximates.  Looser: by the Berry-Esseen theorem
        #    (constant 0.4748, Shevtsova 2011) each CDF value
        #    P(X <= k - 1) = P(X <= k - 0.5) of a Binomial(n, p) is within
        #    0.4748 (p^2 + q^2) / sd of Phi((k - 0.5 - mu) / sd), so a bin's
        #    share (a difference of two of them) is within twice that; summed
        #    with each point's weight over the normal-branch points, plus 1
        #    for rounding.
        exact = d.convert(kind, normal=False)
        tol = 1 + sum(2 * 0.4748 * (p * p + (1 - p) ** 2) / sd * w
                      for sd, w, p in stats["points"] if sd >= 8)
        self.assertLess(tol, 0.1 * sum(d.h(kind).values()))      # still meaningful
        for k in set(got) | set(exact):
            self.assertLessEqual(abs(got.get(k, 0) - exact.get(k, 0)), tol,
                                 "%s bin %d" % (opt, k))
        # the two models differ by more than the rounding where expected
        worst = max(abs(want.get(k, 0) - exact.get(k, 0)) for k in set(want) | set(exact))
        self.assertEqual(worst > 3, normal_differs, worst)

    def test_symmetric(self):
        db, d = self.dump_db(self.SYMMETRIC, 400, 100, "n.raw")
        self.assertAlmostEqual(window(d.hm("time"), 1, 2, None), 1422200 / 3800)
        self.check(db, d, "--converted", "time", 400, 400, False)
        self.check(db, d, "--sampled", "sampled", 376, 100, False)

    def test_skewed(self):
        db, d = self.dump_db(self.SKEWED, 6000, 6000, "s.raw")
        self.assertAlmostEqual(window(d.hm("time"), 1, 2, None), 46480000 / 420000)
        self.check(db, d, "--converted", "time", 6000, 6000, True)

    def test_accuracy_without_exact_stack(self):
        # no exact stack rows: the converted rows compare with an empty truth
        db, _ = self.dump_db(self.SYMMETRIC, 400, 100, "n.raw")
        doc = self.json("--accuracy", db=db)
        self.assertEqual([(r["S"], r["S_hat"]) for r in doc["rows"]],
                         [(1, 1), (0, 0), (0, 0)])
        self.assertEqual(doc["verdict"], VERDICT_MODEL)


class Sweep(SampledTest):
    """A cyclic sweep over L blocks: every reuse at time distance L, stack
    distance L - 1, L first touches (R = 1000 reuses, all in arr).  The
    time bin holding L starts at L (L = 8: [8,16), 8 wide, every distance a
    point; L = 64: [64,128), 32 quantile points).

    Known mean (sum R*L): the mean is the bin's lower bound, lam -> -700,
    every point's share sits at L (L = 8: the next distance has a share
    e^(-700/8) ~ 1e-38).  So the reuses are all at L: E(inf) over them is
    L, N = max(L, L + 1) = L + 1; a window of L - 1 accesses counts every
    reuse and first touch (all at L or beyond): E(L - 1) = L - 1.  Each
    reuse has mean stack distance (N - 1) E(L - 1) / N = L (L - 1)/(L + 1)
    over m = min(L - 1, N - 1) = L - 1 trials: Binomial(L - 1, L/(L + 1)),
    mean ~ L - 2, never above L - 1.  Stack bin of L - 1 ([L/2, L)) gets
    R (1 - P(X < L/2)):
      L = 8:  [4,8) 995.96, [2,4) 4.03, [1,2) 0.01
      L = 64: [32,64) 1000.0 (P(X < 32) ~ 1e-40)
    (computed below from math.comb, not from the model's functions).
    --accuracy: S = 0.996 / 1.0: "accurate".

    Unknown mean: the bin is spread evenly (L = 8: 8..15, E(inf) = 11.5,
    N = 13; L = 64: 65, 67, .., 127, E(inf) = 96, N = 97), so f and the
    points spread over the bin and the stack distances over neighbouring
    bins, most of them beyond L: the bin of L - 1 keeps 235 (L = 8) and
    16 (L = 64) of the 1000 (the independent model_convert above);
    --accuracy says "model"."""

    R = 1000

    def sweep_db(self, L, known):
        k = bin_of(1, 2, L)
        s = L * self.R if known else UNKNOWN
        return self.variant_db(
            [b"rhist ", b"rfirst ", b"runseen ", b"rpair "],
            [b"rhist stack 0 %d %d %d" % (bin_of(1, 2, L - 1), self.R, (L - 1) * self.R),
             b"rhist time 0 %d %d %d" % (k, self.R, s),
             b"rhist sampled 0 %d %d %d" % (k, self.R, s),
             b"rfirst 0 %d" % L, b"runseen 0 %d" % L],
            name="sweep%d%s.raw" % (L, "k" if known else "u"))

    def analysis(self, L):
        """{stack bin: expected count}: R x Binomial(L - 1, L/(L + 1))."""
        p, n, out = L / (L + 1), L - 1, {}
        for x in range(n + 1):
            b = bin_of(1, 2, x)
            out[b] = out.get(b, 0) + self.R * math.comb(n, x) * p ** x * (1 - p) ** (n - x)
        return out

    def counts(self, db, *opts):
        return {r["bin"]: r["count"] for r in self.json(*opts, db=db)["rows"]}

    def test_known_mean_stays_at_the_lower_bound(self):
        for L in (8, 64):
            with self.subTest(L=L):
                lo, hi = bin_bounds(1, 2, bin_of(1, 2, L))
                self.assertEqual(lo, L)
                pts = bin_points(lo, hi, float(L))
                self.assertEqual(len(pts), min(hi - lo, PARTS))
                self.assertAlmostEqual(sum(w for d, w in pts if d == L), 1.0, places=15)
                db, dump = self.sweep_db(L, True)
                stats = {}
                model = dump.convert("time", stats=stats)
                self.assertEqual(stats["N"], L + 1)
                want = self.analysis(L)
                for k in set(model) | set(want):
                    self.assertAlmostEqual(model.get(k, 0), want.get(k, 0), places=6)
                got = self.counts(db, "--converted")
                self.assertEqual(got, rounded(want))
                # the stack bin of L - 1, the exact one, holds nearly all,
                # and no stack distance lies beyond L - 1
                truth = bin_of(1, 2, L - 1)
                self.assertEqual(got[truth], 996 if L == 8 else self.R)
                self.assertNotIn(truth + 1, got)
                # the sampled histogram is the same here
                self.assertEqual(self.counts(db, "--sampled"), got)
                self.assertAccuracy(db, dump, VERDICT_ACCURATE)

    def test_mean_at_the_middle_of_a_wide_bin(self):
        """L = 96: arr's 1000 reuses all at time distance 96 (sum 96000), in
        [64,128), whose middle lo + width/2 is 96; list has 1000 more there
        with an unknown sum.  The whole program's mean is unknown (list's
        is): f is the even spread, E(inf) = 96, N = 97.  arr's target place
        (96 - 64)/64 = 1/2 is the even spread's, lam = 0, its points the
        part-middles 65, 67, .., 127, as list's: both convert to [32,64) 16,
        [64,128) 984 (model_convert above).
        Failed when written (arr's conversion put more in [32,64) than
        list's, with the model of then).  rmodel.c's tilt_mean(lam, 0) computes
        1/(1 - e^-lam) - 1/lam, which cancels for small |lam| (off by about
        1e-16/lam^2: 1 at lam = 1e-8), so the bisection for 1/2 ends at
        lam = -3.3e-6, not 0; each quantile t_j is then just below
        (j + 1/2)/32, and floor(64 + 64 t_j) one lower: arr's points are
        64, 66, .., 126."""
        self.assertEqual(bin_points(64, 128, 96.0), bin_points(64, 128, None))
        L = 96
        db, dump = self.variant_db(
            [b"rhist ", b"rfirst ", b"runseen ", b"rpair "],
            [b"rhist stack 0 6 %d %d" % (self.R, (L - 1) * self.R),
             b"rhist time 0 7 %d %d" % (self.R, L * self.R),
             b"rhist time 1 7 %d %d" % (self.R, UNKNOWN), b"rfirst 0 %d" % L])
        self.assertEqual(dump.hm("time", 0), {7: (self.R, 96.0)})
        stats = {}
        model = dump.convert("time", 0, stats=stats)
        self.assertEqual(stats["N"], 97)
        self.assertEqual(rounded(model), {6: 16, 7: 984})
        self.assertEqual(model, dump.convert("time", 1))
        # the bucket with the mean converts like the one without
        self.assertEqual(self.counts(db, "--converted", "--object", "list"), {6: 16, 7: 984})
        self.assertEqual(self.counts(db, "--converted", "--object", "arr"), {6: 16, 7: 984})

    def test_unknown_mean_spreads(self):
        for L, N, kept in ((8, 13, 235), (64, 97, 16)):
            with self.subTest(L=L):
                db, dump = self.sweep_db(L, False)
                stats = {}
                model = dump.convert("time", stats=stats)
                self.assertEqual(stats["N"], N)
                got = self.counts(db, "--converted")
                self.assertModel(self.json("--converted", db=db), model, L, dump)
                truth = bin_of(1, 2, L - 1)
                self.assertLessEqual(abs(got.get(truth, 0) - kept), 1)
                # the difference the mean makes: most reuses move a bin up
                known = rounded(self.analysis(L))
                self.assertGreater(known[truth] - got.get(truth, 0), 0.6 * self.R)
                self.assertGreater(got[truth + 1], 0.75 * self.R)
                self.assertEqual(self.counts(db, "--sampled"), got)
                self.assertAccuracy(db, dump, VERDICT_MODEL)


# ---- 4. --accuracy ---------------------------------------------------------

class Accuracy(SampledTest):

    def test_fixture(self):
        dump = Dump(self.GOOD)
        want = dump.accuracy()
        # the by-hand row of the docstring
        self.assertAlmostEqual(want[0][0], 0.65)
        self.assertAlmostEqual(want[0][1], 0.7125)
        self.assertAccuracy(self.db, dump, VERDICT_SAMPLING)
        doc = self.json("--accuracy")
        self.assertEqual((doc["source"], doc["object"], doc["block"]),
                         ("exact and sampled", None, 64))
        self.assertNotIn("kind", doc)
        out = self.run_dcprof("reuse", self.db, "--accuracy")
        self.assertIn("\nreuse:    exact and sampled, blocks of 64 B, bins 1:2\n"
                      "object:   whole program\n"
                      "sampling: a use every 2 accesses, 2 watchpoints (dr), reservoir,"
                      " proportional attribution\n", out)

    def test_object(self):
        dump = Dump(self.GOOD)
        for name in NAMES:
            self.assertAccuracy(self.db, dump, object=name)
        doc = self.json("--accuracy", "--object", EVIL_ARG)
        self.assertEqual(doc["object"], EVIL_JSON)

    def test_csv(self):
        r = run([DCPROF, "reuse", self.db, "--accuracy", "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.reader(io.StringIO(r.stdout)))
        self.assertEqual(rows[0], ["comparison", "estimate", "truth", "S", "S_hat"])
        self.assertEqual([r[0] for r in rows[1:]], self.ACC_NAMES)
        for r, (s, s_hat) in zip(rows[1:], Dump(self.GOOD).accuracy()):
            self.assertAlmostEqual(float(r[3]), s, places=8)
            self.assertAlmostEqual(float(r[4]), s_hat, places=8)

    def test_accurate(self):
        # every reuse at time distance 1, stack distance 0, sampled alike
        db, dump = self.variant_db([b"rhist "], [b"rhist stack 0 0 4 0", b"rhist time 0 1 4 4",
                                                 b"rhist sampled 0 1 4 4"])
        self.assertEqual(dump.accuracy(), [(1, 1)] * 3)
        self.assertAccuracy(db, dump, VERDICT_ACCURATE)

    def test_off_by_one_bin(self):
        # an exact stack histogram 5, 3, 2 (bins 0..2) against the sampled
        # conversion 6, 1, 3: S = 1 - (.1 + .2 + .1)/2 = 0.8, S-hat over the
        # pairs (0,1), (1,2), (2,3): 1 - (|.4 - .35| + |.25 - .2| + |.1 - .15|)/2
        # = 0.925
        db, dump = self.variant_db([b"rhist stack "], [b"rhist stack 0 0 5 0",
                                                       b"rhist stack 0 1 3 3",
                                                       b"rhist stack 0 2 2 5"])
        self.assertEqual(rounded(dump.convert("sampled")), {0: 6, 1: 1, 2: 3})
        self.assertEqual([tuple(round(x, 9) for x in r) for r in dump.accuracy()][2],
                         (0.8, 0.925))
        self.assertAccuracy(db, dump, VERDICT_SHIFT)

    def test_sparse_samples(self):
        # the exact stack histogram is the model's own conversion of the exact
        # time histogram (model row S = 1); the sampled time histogram has
        # only 4 reuses, close to the exact one (S-hat >= 0.9), but its
        # conversion rounds to few bins
        conv = rounded(Dump(self.GOOD).convert("time"))
        db, dump = self.variant_db(
            [b"rhist stack ", b"rhist sampled ", b"runseen "],
            [b"rhist stack 0 %d %d %d" % (k, c, UNKNOWN) for k, c in sorted(conv.items())] +
            [b"rhist sampled 0 1 1 1", b"rhist sampled 0 2 1 2", b"rhist sampled 0 3 2 10",
             b"runseen 0 4"])
        self.assertEqual(dump.accuracy()[1], (1, 1))
        self.assertAccuracy(db, dump, VERDICT_SPARSE)

    def test_exact_only(self):
        db, dump = self.variant_db([b"rhist sampled ", b"runseen ", b"meta reuse_s",
                                    b"meta reuse_w", b"meta reuse_r", b"meta reuse_a",
                                    b"meta reuse_d", b"meta reuse_t"])
        self.assertEqual(len(dump.accuracy()), 1)
        self.assertAccuracy(db, dump, VERDICT_MODEL)
        out = self.run_dcprof("reuse", db, "--accuracy")
        self.assertIn("\nreuse:    exact, blocks of 64 B, bins 1:2\n", out)
        self.assertNotIn("sampling:", out)
        doc = self.json("--accuracy", db=db)
        self.assertEqual(doc["source"], "exact")
        self.bad([db, "--sampled"], "profile '%s' has no sampled reuse data; record with"
                 " --reuse-sample=N" % db)

    def test_sampled_only(self):
        db, _ = self.variant_db([b"rhist stack ", b"rhist time ", b"rfirst ", b"rpair "])
        msg = ("profile '%s' has no exact reuse data (recorded with --reuse-sample only);"
               " see --sampled" % db)
        self.bad([db, "--accuracy"], msg)
        self.bad([db, "--accuracy", "--format", "json"], msg)
        self.bad([db], msg)
        self.bad([db, "--converted"], msg)
        self.bad([db, "--pairs"], "profile '%s' has no exact reuse data; --pairs needs"
                 " --reuse=yes" % db)
        self.bad([db], "profile '%s' has sampled reuse data only; the miss-ratio curve needs"
                 " exact histograms (record with --reuse=yes)" % db, cmd="mrc")
        # the sampled histograms still work
        doc = self.json("--sampled", "--kind", "time", db=db)
        self.assertEqual((doc["reuses"], doc["first_touches"]), (10, 6))
        self.assertEqual(self.json("--sampled", db=db), self.json("--sampled"))


# ---- 5. option errors ------------------------------------------------------

class OptionErrors(SampledTest):
    def test_exclusive(self):
        both = ("--sampled, --converted and --accuracy exclude each other, and --pairs"
                " goes only with --sampled")
        for opts in (["--converted", "--sampled"], ["--accuracy", "--converted"],
                     ["--accuracy", "--pairs"], ["--pairs", "--converted"],
                     ["--sampled", "--accuracy"]):
            self.bad([self.db] + opts, both)

    def test_kind(self):
        self.bad([self.db, "--converted", "--kind", "time"],
                 "--converted makes stack distances; it does not apply to --kind time")
        for kind in ("stack", "time"):
            self.bad([self.db, "--accuracy", "--kind", kind],
                     "--kind does not apply to --accuracy (it compares both kinds)")
        self.bad([self.db, "--sampled", "--kind", "space"],
                 "invalid --kind value 'space' (stack or time)")

    def test_unknown_object(self):
        for opt in ("--sampled", "--converted", "--accuracy"):
            self.bad([self.db, opt, "--object", "nope"], "no bucket named 'nope'")
