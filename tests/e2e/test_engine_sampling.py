"""End-to-end tests of the emulated miss sampler (`--sample=EVENT:N`,
`--sample-seed=S`; seeds/002 §3.1, §4.3.1): the sampled estimates
(cost_sampled, eviction rows with sampled = 1) are checked against the exact
counts of the same run, which the profile holds too.

* With period 1 every event is sampled with weight 1, so the estimates must
  equal the exact counts, row by row.
* With a period giving a few thousand samples, the sampled shares must agree
  with the exact shares within a bound derived from the binomial standard
  error (see SampledShares).
* The same seed gives the same samples; another seed other samples, within
  the same bound.

Workload: tests/workloads/sample_mix.c (six arrays, L1 misses in a
pseudo-random order with shares 40/25/15/10/5/5 %); threads.c for the thread
key."""
import cmath
import json
import math
import os
import shutil
import tempfile
import unittest

from test_engine_common import (CACHE_2, LAT, L1_LAT, L2_LAT, MEM_LAT, Recorded,
                                meta, query, record, run, workload)
from harness import DCPROF

COLS = ["Dr", "Dw", "D1mr", "D1mw", "D2mr", "D2mw", "D3mr", "D3mw", "D4mr", "D4mw", "Lat"]
MIX = ["mix_%s" % c for c in "abcdef"]


def rows(db, table):
    """{(bucket, location, thread): {column: value}} of cost or cost_sampled."""
    out = {}
    for r in query(db, "SELECT bucket, location, thread, %s FROM %s" % (", ".join(COLS), table)):
        out[tuple(r[:3])] = dict(zip(COLS, r[3:]))
    return out


def evictions(db, sampled, level=None):
    """{(level, evictor, victim, location): count}."""
    sql = "SELECT level, evictor, victim, location, count FROM eviction WHERE sampled = ?"
    args = [sampled]
    if level is not None:
        sql += " AND level = ?"
        args.append(level)
    return {tuple(r[:4]): r[4] for r in query(db, sql, *args)}


def by_name(db, sql):
    """{bucket name: value} for SQL selecting (bucket id, value)."""
    names = dict(query(db, "SELECT id, name FROM bucket"))
    return {names[b]: v for b, v in query(db, sql)}


def miss_counts(db, table):
    """{bucket name: D1mr + D1mw} summed over locations and threads."""
    return by_name(db, "SELECT bucket, SUM(D1mr + D1mw) FROM %s GROUP BY bucket" % table)


def eviction_matrix(db, sampled, level=1):
    """{(evictor name, victim name): count} at LEVEL."""
    names = dict(query(db, "SELECT id, name FROM bucket"))
    return {(names[e], names[v]): n for e, v, n in query(
        db, "SELECT evictor, victim, SUM(count) FROM eviction WHERE sampled = ? AND level = ?"
        " GROUP BY evictor, victim", sampled, level)}


def tables_missing(db):
    names = {r[0] for r in query(db, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"eviction", "level_fill", "residency", "cost_sampled"} - names


def cli_lists(command):
    r = run([DCPROF, "help"])
    return any(line.split()[:1] == [command] for line in (r.stdout + r.stderr).splitlines())


class V2(Recorded):
    def setUp(self):
        super().setUp()
        missing = tables_missing(self.db)
        self.assertFalse(missing, "profile lacks the version-2 tables %s" % sorted(missing))

    def assertRowsEqual(self, got, expected, what):
        """Two {key: {column: value}} maps, with a short diff on failure."""
        only_got = sorted(set(got) - set(expected))[:5]
        only_exp = sorted(set(expected) - set(got))[:5]
        diff = [(k, {c: (got[k][c], expected[k][c]) for c in COLS if got[k][c] != expected[k][c]})
                for k in sorted(set(got) & set(expected)) if got[k] != expected[k]][:5]
        self.assertFalse(only_got or only_exp or diff,
                         "%s: keys only sampled %s, only expected %s, differing"
                         " (observed, expected) %s" % (what, only_got, only_exp, diff))


# --------------------------------------------------------------------------
# Period 1: the estimates are the exact counts

class Period1D1(V2):
    """--sample=D1m:1 over the whole program (start-up included, with its
    straddling accesses): every access that misses L1 is sampled and adds 1
    read or write, its misses at the levels above the serving one, and its
    latency.  So per bucket x location x thread:
        cost_sampled.Dr = cost.D1mr,  cost_sampled.Dw = cost.D1mw,
        D1mr, D1mw, D2mr, D2mw equal to cost's,
        cost_sampled.Lat = MissLat = Lat - (Dr + Dw - D1mr - D1mw) * L1 latency,
    and rows exist exactly for the keys with L1 misses.  Every sampled miss
    that replaced a valid L1 line adds that eviction: the sampled level-1
    eviction rows equal the exact ones."""
    WORKLOAD = "sample_mix"
    ARGS = ("100000",)
    OPTS = (CACHE_2, LAT, "--evictions=yes", "--sample=D1m:1")

    def test_meta(self):
        m = meta(self.db)
        self.assertEqual((m.get("sample_event"), m.get("sample_period")), ("D1m", "1"))
        self.assertIn("sample_seed", m)
        misses = query(self.db, "SELECT SUM(D1mr + D1mw) FROM cost")[0][0]
        self.assertEqual(int(m.get("samples", -1)), misses, "one sample per L1 miss")

    def test_rows_equal_exact_misses(self):
        expected = {}
        for k, c in rows(self.db, "cost").items():
            if c["D1mr"] + c["D1mw"] == 0:
                continue
            e = dict(c, Dr=c["D1mr"], Dw=c["D1mw"])
            e["Lat"] = c["Lat"] - (c["Dr"] + c["Dw"] - c["D1mr"] - c["D1mw"]) * L1_LAT
            expected[k] = e
        self.assertGreater(len(expected), 100, "start-up gives many rows")
        self.assertRowsEqual(rows(self.db, "cost_sampled"), expected, "D1m:1")

    def test_sampled_evictions_equal_exact(self):
        exact = evictions(self.db, 0, level=1)
        self.assertGreater(sum(exact.values()), 100000)
        self.assertEqual(evictions(self.db, 1), exact, "sampled rows (any level) vs exact L1")


class Period1D2(V2):
    """--sample=D2m:1 with an L2 (256 KiB) smaller than the six arrays
    (384 KiB), so that L2 evicts: every access that missed L2 (and so L1)
    is sampled and served by memory:
        Dr = D1mr = D2mr, Dw = D1mw = D2mw  (of cost's row),
        Lat = (D2mr + D2mw) * memory latency,
    rows exactly for keys with L2 misses, sampled evictions = exact level 2."""
    WORKLOAD = "sample_mix"
    ARGS = ("100000",)
    OPTS = ("--cache=L1=32K:8:64,L2=256K:8:64", LAT, "--evictions=yes", "--sample=D2m:1")

    def test_rows_equal_exact_misses(self):
        expected = {}
        for k, c in rows(self.db, "cost").items():
            if c["D2mr"] + c["D2mw"] == 0:
                continue
            expected[k] = dict(c, Dr=c["D2mr"], Dw=c["D2mw"], D1mr=c["D2mr"], D1mw=c["D2mw"],
                               Lat=(c["D2mr"] + c["D2mw"]) * MEM_LAT)
        self.assertGreater(len(expected), 10)
        self.assertRowsEqual(rows(self.db, "cost_sampled"), expected, "D2m:1")
        misses = query(self.db, "SELECT SUM(D2mr + D2mw) FROM cost")[0][0]
        self.assertEqual(int(meta(self.db).get("samples", -1)), misses)

    def test_sampled_evictions_equal_exact(self):
        exact = evictions(self.db, 0, level=2)
        self.assertGreater(sum(exact.values()), 10000, "L2 must evict in this setup")
        self.assertEqual(evictions(self.db, 1), exact, "sampled rows vs exact L2")


class Period1Threads(V2):
    """threads.c with --sample=D1m:1: the thread key of cost_sampled is the
    accessing thread's, as in cost (two worker threads besides main)."""
    WORKLOAD = "threads"
    OPTS = ("--cache=L1=32K:8:64,L2=256K:8:64", LAT, "--evictions=yes", "--sample=D1m:1")

    def test_rows_equal_per_thread(self):
        expected = {}
        for k, c in rows(self.db, "cost").items():
            if c["D1mr"] + c["D1mw"]:
                e = dict(c, Dr=c["D1mr"], Dw=c["D1mw"])
                e["Lat"] = c["Lat"] - (c["Dr"] + c["Dw"] - c["D1mr"] - c["D1mw"]) * L1_LAT
                expected[k] = e
        got = rows(self.db, "cost_sampled")
        self.assertGreaterEqual(len({k[2] for k in got}), 3, "main and two workers")
        self.assertRowsEqual(got, expected, "D1m:1 per thread")
        self.assertEqual(evictions(self.db, 1), evictions(self.db, 0, level=1))


class Period1AllAccesses(V2):
    """--sample=Da:1: every data access is sampled with weight 1 and adds
    exactly what the exact count adds (a read or write, its misses, its
    latency): cost_sampled equals cost row by row.  Da is not a miss event,
    so no sampled evictions are recorded."""
    WORKLOAD = "sample_mix"
    ARGS = ("20000",)
    OPTS = (CACHE_2, LAT, "--sample=Da:1")

    def test_rows_equal_exact(self):
        self.assertRowsEqual(rows(self.db, "cost_sampled"), rows(self.db, "cost"), "Da:1")
        total = query(self.db, "SELECT SUM(Dr + Dw) FROM cost")[0][0]
        self.assertEqual(int(meta(self.db).get("samples", -1)), total)
        self.assertEqual(evictions(self.db, 1), {})


# --------------------------------------------------------------------------
# Period 97: statistical agreement

N = 97
H = N // 4                      # periods are uniform on [N - H, N + H]
VAR_PERIOD = H * (H + 1) / 3    # variance of that discrete uniform: ((2H+1)^2 - 1) / 12
Z = 4                           # standard errors allowed


def share_bound(p, n, events):
    """Allowed |sampled share - exact share| for a share p estimated from n
    samples out of a stream of `events` events.

    Binomial term: sample_mix picks the bucket of every miss with a
    pseudo-random generator unrelated to the sampler's, so the samples'
    buckets are a simple random sample (without replacement, which only
    lowers the variance) of the exact misses: the sampled share has standard
    error sqrt(p (1 - p) / n).  Z = 4 of them: a correct sampler fails a
    given check with probability ~6e-5.
    Period term: the sampler covers the stream with consecutive periods of
    N - H .. N + H events; only the ends of the stream — before the first
    sample and after the last, at most N + H events each — are not covered
    at the rate 1/N.  Dropping or doubling that many of the `events` events
    moves a share by at most (N + H) / events per end.  (For ~500k misses
    that is 0.05 percentage points: tiny next to the binomial term.)"""
    return Z * math.sqrt(p * (1 - p) / n) + 2 * (N + H) / events


class SampledShares(unittest.TestCase):
    """sample_mix.c, 500k L1 misses measured between DCPROF_START/STOP
    (--collect-atstart=no), --sample=D1m:97: ~5150 samples.  Recorded three
    times: seed 1 twice (reproducibility) and seed 2."""
    OPTS = (CACHE_2, LAT, "--collect-atstart=no", "--evictions=yes", "--sample=D1m:%d" % N)
    RUNS = {"s1": 1, "s1again": 1, "s2": 2}

    @classmethod
    def setUpClass(cls):
        cls.tmpdir = tempfile.mkdtemp(prefix="dcprof-sampling-")
        cls.dbs, cls.recs = {}, {}
        for name, seed in cls.RUNS.items():
            db = os.path.join(cls.tmpdir, name + ".db")
            cls.recs[name] = record(db, [workload("sample_mix")],
                                    list(cls.OPTS) + ["--sample-seed=%d" % seed])
            cls.dbs[name] = db

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmpdir, ignore_errors=True)

    def setUp(self):
        for name, db in self.dbs.items():
            if not os.path.exists(db):
                self.fail("dcprof record wrote no profile for %s (exit %d): %s" %
                          (name, self.recs[name].returncode,
                           self.recs[name].stderr.strip()[-2000:]))
            missing = tables_missing(db)
            self.assertFalse(missing, "profile lacks the version-2 tables %s" % sorted(missing))

    def test_meta(self):
        for name, seed in self.RUNS.items():
            m = meta(self.dbs[name])
            self.assertEqual((m.get("sample_event"), m.get("sample_period"),
                              m.get("sample_seed")), ("D1m", str(N), str(seed)), name)

    def test_sample_count(self):
        # The number of samples in E events is the renewal count of periods
        # with mean N and variance VAR_PERIOD: mean E/N (within 1/2), variance
        # E * VAR_PERIOD / N^3.  Z standard deviations plus 1.
        for name, db in self.dbs.items():
            e = query(db, "SELECT SUM(D1mr + D1mw) FROM cost")[0][0]
            n = int(meta(db)["samples"])
            bound = Z * math.sqrt(e * VAR_PERIOD / N ** 3) + 1
            self.assertLessEqual(abs(n - e / N), bound,
                                 "%s: %d samples for %d events, period %d" % (name, n, e, N))
            self.assertTrue(2000 <= n <= 10000, "a few thousand samples: %d" % n)
            # each sample adds N to exactly one of D1mr/D1mw and of Dr/Dw
            s = query(db, "SELECT SUM(Dr + Dw), SUM(D1mr + D1mw) FROM cost_sampled")[0]
            self.assertEqual(tuple(s), (n * N, n * N), name)

    def test_rows_are_whole_samples(self):
        # every sampled row is N x (whole samples), consistent with the
        # latency model: a D1 miss is served by L2 or by memory
        for name, db in self.dbs.items():
            for k, c in rows(db, "cost_sampled").items():
                self.assertTrue(all(c[col] % N == 0 for col in COLS), (name, k, c))
                self.assertEqual((c["Dr"], c["Dw"]), (c["D1mr"], c["D1mw"]), (name, k, c))
                l2 = c["D1mr"] + c["D1mw"] - c["D2mr"] - c["D2mw"]
                self.assertEqual(c["Lat"], l2 * L2_LAT + (c["D2mr"] + c["D2mw"]) * MEM_LAT,
                                 (name, k, c))

    def check_miss_shares(self, db, what):
        exact, sampled = miss_counts(db, "cost"), miss_counts(db, "cost_sampled")
        e_total, s_total = sum(exact.values()), sum(sampled.values())
        n = s_total // N
        checked = []
        for b, m in exact.items():
            p = m / e_total
            if p < 0.01:
                continue
            q = sampled.get(b, 0) / s_total
            bound = share_bound(p, n, e_total)
            self.assertLessEqual(abs(q - p), bound,
                                 "%s: %s exact share %.4f, sampled %.4f (%d samples),"
                                 " bound %.4f" % (what, b, p, q, n, bound))
            checked.append(b)
        self.assertEqual(sorted(checked), MIX, "buckets with >= 1 % of the misses")

    def check_eviction_cells(self, db, what):
        exact, sampled = eviction_matrix(db, 0), eviction_matrix(db, 1)
        self.assertFalse(query(db, "SELECT 1 FROM eviction WHERE sampled = 1 AND level != 1"),
                         "sampled evictions only at the sampled level")
        ev_total = sum(exact.values())
        s_total = sum(sampled.values())
        victims = {v for _, v in exact}
        cells = 0
        for v in victims:
            col = {e: c for (e, vv), c in exact.items() if vv == v}
            scol = {e: c for (e, vv), c in sampled.items() if vv == v}
            c_v = sum(col.values())
            if c_v < 0.01 * ev_total:
                continue
            # the column's share of all evictions
            nv = sum(scol.values()) // N
            p, q = c_v / ev_total, sum(scol.values()) / s_total
            self.assertLessEqual(abs(q - p), share_bound(p, s_total // N, ev_total),
                                 "%s: victim column %s share %.4f, sampled %.4f" % (what, v, p, q))
            # each cell as a share of its column, from the nv samples in it
            for e, c in col.items():
                p = c / c_v
                if p < 0.01:
                    continue
                q = scol.get(e, 0) / max(sum(scol.values()), 1)
                bound = share_bound(p, max(nv, 1), c_v)
                self.assertLessEqual(abs(q - p), bound,
                                     "%s: cell %s -> %s: exact %.4f of the column, sampled"
                                     " %.4f (%d samples in the column), bound %.4f" %
                                     (what, e, v, p, q, nv, bound))
                cells += 1
        self.assertGreaterEqual(cells, 30, "a dense 6 x 6 matrix")

    def test_sampled_keys_are_exact_keys(self):
        # a sample is a real miss: its row and eviction exist in the exact tables
        for name, db in self.dbs.items():
            exact = {k for k, c in rows(db, "cost").items() if c["D1mr"] + c["D1mw"]}
            self.assertLessEqual(set(rows(db, "cost_sampled")), exact, name)
            ev = set(evictions(db, 0, level=1))
            sev = evictions(db, 1)
            self.assertLessEqual(set(sev), ev, name)
            self.assertTrue(all(c % N == 0 for c in sev.values()), name)

    def test_miss_shares_within_bound(self):
        for name in ("s1", "s2"):
            self.check_miss_shares(self.dbs[name], name)

    def test_eviction_cells_within_bound(self):
        for name in ("s1", "s2"):
            self.check_eviction_cells(self.dbs[name], name)

    def test_same_seed_same_samples(self):
        a, b = self.dbs["s1"], self.dbs["s1again"]
        self.assertEqual(rows(a, "cost"), rows(b, "cost"), "the program itself is deterministic")
        self.assertEqual(meta(a)["samples"], meta(b)["samples"])
        self.assertEqual(rows(a, "cost_sampled"), rows(b, "cost_sampled"))
        self.assertEqual(evictions(a, 1), evictions(b, 1))

    def test_other_seed_other_samples(self):
        a, b = self.dbs["s1"], self.dbs["s2"]
        self.assertEqual(rows(a, "cost"), rows(b, "cost"))
        self.assertNotEqual(rows(a, "cost_sampled"), rows(b, "cost_sampled"))
        self.assertNotEqual(evictions(a, 1), evictions(b, 1))
        # both within the bound: test_miss_shares_within_bound,
        # test_eviction_cells_within_bound

    def test_accuracy_cli(self):
        if not cli_lists("accuracy"):
            self.skipTest("`dcprof help` does not list an accuracy command (not implemented yet)")
        db = self.dbs["s1"]
        r = run([DCPROF, "accuracy", db, "--format", "json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertTrue(doc, "empty document")
        self.assertIn(meta(db)["samples"], r.stdout, "the number of samples is stated")
        # where the rows carry actual and sampled percentages, they are the
        # shares of the exact and the sampled table
        exact, sampled = miss_counts(db, "cost"), miss_counts(db, "cost_sampled")
        et, st = sum(exact.values()), sum(sampled.values())
        seen = 0
        for row in _dicts(doc):
            b = row.get("bucket")
            if b in MIX and "actual_pct" in row and "sampled_pct" in row:
                self.assertAlmostEqual(row["actual_pct"], 100 * exact[b] / et, places=4, msg=row)
                self.assertAlmostEqual(row["sampled_pct"], 100 * sampled[b] / st, places=4,
                                       msg=row)
                seen += 1
        self.assertIn(seen, (0, len(MIX)), "rows for all six arrays or a different layout")

    def test_evictions_cli_sampled(self):
        if not cli_lists("evictions"):
            self.skipTest("`dcprof help` does not list an evictions command (not implemented yet)")
        r = run([DCPROF, "evictions", self.dbs["s1"], "--sampled", "--format", "json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        json.loads(r.stdout)
        self.assertIn('"mix_a"', r.stdout)


class AliasingRing(unittest.TestCase):
    """The period is randomized so that sampling cannot lock onto a loop.

    evict_ring.c's measured misses are strictly periodic: ring_0, ring_1,
    ..., ring_8, ring_0, ... (every access misses; see its header), 16 P
    misses per array.  Sampled every 99 = 11 x 9 misses exactly, every
    sample would fall on the same array: one bucket 100 %, the others 0.
    With periods uniform on [N - H, N + H] the position of a sample in the
    9-cycle is a Markov chain: a random walk on Z_9 whose steps are the
    period mod 9.  Its transition matrix is circulant with eigenvalues
    lambda_m = sum_d exp(2 pi i m d / 9) / (2H + 1), d over the 2H + 1
    periods; the largest |lambda_m| (m != 0) is ~0.06: successive samples are
    almost independent.  For such a reversible chain the variance of a
    sampled count is at most (1 + lambda) / (1 - lambda) times the binomial
    one; the bound below is share_bound's with that factor on its first term.
    """
    PERIOD = 99
    PASSES = 3000
    RUNS = (1, 2)

    @classmethod
    def setUpClass(cls):
        cls.tmpdir = tempfile.mkdtemp(prefix="dcprof-alias-")
        cls.dbs, cls.recs = {}, {}
        for seed in cls.RUNS:
            db = os.path.join(cls.tmpdir, "s%d.db" % seed)
            cls.recs[seed] = record(db, [workload("evict_ring"), str(cls.PASSES)],
                                    ["--cache=L1=8K:8:64,L2=1M:16:64", LAT,
                                     "--collect-atstart=no",
                                     "--sample=D1m:%d" % cls.PERIOD,
                                     "--sample-seed=%d" % seed])
            cls.dbs[seed] = db

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmpdir, ignore_errors=True)

    def test_no_lock_on_the_ring(self):
        n_, h = self.PERIOD, self.PERIOD // 4
        lam = max(abs(sum(cmath.exp(2j * math.pi * m * d / 9) for d in range(n_ - h, n_ + h + 1)))
                  / (2 * h + 1) for m in range(1, 9))
        factor = math.sqrt((1 + lam) / (1 - lam))
        for seed, db in self.dbs.items():
            if not os.path.exists(db):
                self.fail("no profile (exit %d): %s" % (self.recs[seed].returncode,
                                                         self.recs[seed].stderr[-2000:]))
            exact, sampled = miss_counts(db, "cost"), miss_counts(db, "cost_sampled")
            et, st = sum(exact.values()), sum(sampled.values())
            n = st // n_
            self.assertEqual(n, int(meta(db)["samples"]))
            for k in range(9):
                b = "ring_%d" % k
                p, q = exact[b] / et, sampled.get(b, 0) / st
                bound = Z * factor * math.sqrt(p * (1 - p) / n) + 2 * (n_ + h) / et
                self.assertLessEqual(abs(q - p), bound,
                                     "seed %d: %s exact %.4f, sampled %.4f of %d samples,"
                                     " bound %.4f" % (seed, b, p, q, n, bound))


def _dicts(obj):
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from _dicts(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _dicts(v)


if __name__ == "__main__":
    unittest.main()
