"""Exact reuse distances (issue 5, first part) on a workload with known
distances: tests/workloads/reuse_sweep.c derives every expected number.
Profiles are read with SQL, independently of `dcprof reuse`/`dcprof mrc`."""
import unittest

from test_engine_common import Recorded, query, totals


def bucket_id(db, name):
    rows = query(db, "SELECT id FROM bucket WHERE name = ?", name)
    if not rows:
        raise AssertionError("no bucket %r" % name)
    return rows[0][0]


def hist(db, name, kind):
    """[(lo, hi, count)] of a bucket's histogram rows of one kind."""
    return query(db, "SELECT lo, hi, count FROM reuse_hist WHERE bucket = ? AND kind = ?"
                 " AND count > 0 ORDER BY bin", bucket_id(db, name), kind)


def first(db, name):
    rows = query(db, "SELECT count FROM reuse_first WHERE bucket = ?", bucket_id(db, name))
    return rows[0][0] if rows else 0


class Sweeps(Recorded):
    """Two passes over 1024 lines: 1024 first touches, then 1024 reuses at
    stack distance 1023 and time distance 1024 (reuse_sweep.c)."""
    WORKLOAD = "reuse_sweep"
    ARGS = ("1024", "2")
    OPTS = ("--collect-atstart=no", "--reuse=yes")
    L, P = 1024, 2

    def test_first_touches(self):
        self.assertEqual(first(self.db, "sweep_data"), self.L)

    def test_stack_distance(self):
        # default bins 1:2: 1023 falls in bin 10 = [512, 1024)
        self.assertEqual(hist(self.db, "sweep_data", "stack"),
                         [(512, 1024, (self.P - 1) * self.L)])

    def test_time_distance(self):
        # 1024 falls in bin 11 = [1024, 2048)
        self.assertEqual(hist(self.db, "sweep_data", "time"),
                         [(1024, 2048, (self.P - 1) * self.L)])

    def test_mean_distances(self):
        # every reuse of the array sits at stack 1023 and time 1024 exactly
        rows = query(self.db, "SELECT kind, mean FROM reuse_hist WHERE bucket = ?"
                     " ORDER BY kind", bucket_id(self.db, "sweep_data"))
        self.assertEqual(rows, [("stack", self.L - 1.0), ("time", float(self.L))])

    def test_pair_of_the_load_with_itself(self):
        rows = query(self.db, "SELECT p.count, p.mean_stack, p.mean_time, u.function,"
                     " r.function, u.line = r.line FROM reuse_pair p"
                     " JOIN location u ON u.id = p.use_location"
                     " JOIN location r ON r.id = p.reuse_location"
                     " WHERE p.count >= 1000")
        self.assertEqual(rows, [((self.P - 1) * self.L, self.L - 1.0, float(self.L),
                                 "main", "main", 1)])

    def test_meta(self):
        m = dict(query(self.db, "SELECT key, value FROM meta"))
        self.assertEqual((m["reuse_block"], m["reuse_bins"]), ("64", "1:2"))


class WordBlocks(Recorded):
    """--reuse-block=8 and bins 4:4: one access per line, each to its own
    word, so the distances are the same.  With FIRST=4, GROWTH=4 the bins
    are [0,4), [4,16), [16,64), [64,256), [256,1024), [1024,4096): stack
    distance 1023 falls in [256, 1024), time distance 1024 in [1024, 4096);
    three passes give 2·1024 reuses."""
    WORKLOAD = "reuse_sweep"
    ARGS = ("1024", "3")
    OPTS = ("--collect-atstart=no", "--reuse=yes", "--reuse-block=8", "--reuse-bins=4:4")

    def test_bins(self):
        self.assertEqual(first(self.db, "sweep_data"), 1024)
        self.assertEqual(hist(self.db, "sweep_data", "stack"), [(256, 1024, 2 * 1024)])
        self.assertEqual(hist(self.db, "sweep_data", "time"), [(1024, 4096, 2 * 1024)])


class TwiceSweeps(Recorded):
    """Two passes over 1024 lines, each line loaded twice in a row
    (reuse_sweep.c with TWICE = 1): the second load of a line reuses the
    block the load before it touched (stack distance 0, time distance 1:
    the engine's shortest path, whose bins it knows in advance), the first
    load of pass 2 reuses its line after both loads of the 1023 others
    (stack distance 1023, time distance 2·1023 + 1 = 2047)."""
    WORKLOAD = "reuse_sweep"
    ARGS = ("1024", "2", "1")
    OPTS = ("--collect-atstart=no", "--reuse=yes")
    L, P = 1024, 2

    def test_first_touches(self):
        self.assertEqual(first(self.db, "sweep_data"), self.L)

    def test_histograms(self):
        # default bins 1:2: 0 in bin 0 = [0, 1), 1023 in [512, 1024);
        # 1 in bin 1 = [1, 2), 2047 in [1024, 2048)
        self.assertEqual(hist(self.db, "sweep_data", "stack"),
                         [(0, 1, self.P * self.L), (512, 1024, (self.P - 1) * self.L)])
        self.assertEqual(hist(self.db, "sweep_data", "time"),
                         [(1, 2, self.P * self.L), (1024, 2048, (self.P - 1) * self.L)])

    def test_pairs(self):
        # (count, mean stack, mean time) of the two pairs of the two loads
        rows = query(self.db, "SELECT p.count, p.mean_stack, p.mean_time FROM reuse_pair p"
                     " WHERE p.count >= 1000 ORDER BY p.count")
        self.assertEqual(rows, [((self.P - 1) * self.L, self.L - 1.0, 2.0 * self.L - 1),
                                (self.P * self.L, 0.0, 1.0)])


class TwiceSweepsWideBins(Recorded):
    """The same with --reuse-bins=4:4: stack distance 0 and time distance 1
    both fall in bin 0 = [0, 4); 1023 in [256, 1024), 2047 in [1024, 4096)."""
    WORKLOAD = "reuse_sweep"
    ARGS = ("1024", "2", "1")
    OPTS = ("--collect-atstart=no", "--reuse=yes", "--reuse-bins=4:4")
    L, P = 1024, 2

    def test_histograms(self):
        self.assertEqual(hist(self.db, "sweep_data", "stack"),
                         [(0, 4, self.P * self.L), (256, 1024, (self.P - 1) * self.L)])
        self.assertEqual(hist(self.db, "sweep_data", "time"),
                         [(0, 4, self.P * self.L), (1024, 4096, (self.P - 1) * self.L)])


class MissRatioAgainstSimulation(unittest.TestCase):
    """A fully-associative LRU cache of C lines misses exactly on first
    touches and on reuses at stack distance >= C.  With one set of C = 1024
    ways (--cache=L1=64K:1024:64) the engine's simulated D1 misses of
    sweep_data must equal that count from the histogram, for a sweep that
    fits (L = 1024: 1024 cold misses) and one that does not (L = 2048: all
    2·2048 accesses miss)."""

    def check(self, lines, expect_misses):
        import os
        import shutil
        import tempfile
        from test_engine_common import record, workload
        tmp = tempfile.mkdtemp(prefix="dcprof-mrc-")
        try:
            db = os.path.join(tmp, "p.db")
            r = record(db, [workload("reuse_sweep"), str(lines), "2"],
                       ["--collect-atstart=no", "--reuse=yes", "--cache=L1=64K:1024:64"])
            self.assertEqual(r.returncode, 0, r.stderr)
            c = 1024
            from_hist = first(db, "sweep_data") + sum(
                n for lo, hi, n in hist(db, "sweep_data", "stack") if lo >= c)
            # bins are powers of two, so C = 1024 is a bin boundary: exact
            self.assertFalse([1 for lo, hi, n in hist(db, "sweep_data", "stack")
                              if lo < c < (hi or c + 1)])
            t = totals(db, bucket="sweep_data")
            self.assertEqual(t["D1mr"] + t["D1mw"], from_hist)
            self.assertEqual(from_hist, expect_misses)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_fits(self):
        self.check(1024, 1024)

    def test_does_not_fit(self):
        self.check(2048, 2 * 2048)


if __name__ == "__main__":
    unittest.main()


class UniformRandom(Recorded):
    """Uniform random accesses over K = 1024 lines after one ordered pass
    (reuse_random.c derives the distributions): every one of the N random
    accesses is a reuse; stack distances are uniform on 0..K-1, time
    distances geometric with p = 1/K.  Each bin's share must be within
    4 binomial standard errors sqrt(q(1-q)/N) of its expected share q, plus
    K/N for the reuses whose previous access was the ordered pass (at most
    one per block)."""
    WORKLOAD = "reuse_random"
    K, N = 1024, 200000
    ARGS = (str(K), str(N))
    OPTS = ("--collect-atstart=no", "--reuse=yes")

    def bound(self, q):
        return 4 * (q * (1 - q) / self.N) ** 0.5 + self.K / self.N

    def test_counts(self):
        self.assertEqual(first(self.db, "rand_data"), self.K)
        self.assertEqual(sum(n for _, _, n in hist(self.db, "rand_data", "stack")), self.N)
        self.assertEqual(sum(n for _, _, n in hist(self.db, "rand_data", "time")), self.N)

    def test_stack_distance_is_uniform(self):
        got = {lo: n / self.N for lo, hi, n in hist(self.db, "rand_data", "stack")}
        # bins 1:2: {0}, {1}, [2,4), ..., [512,1024); nothing at or beyond K
        expect = {0: 1 / self.K, 1: 1 / self.K}
        lo = 2
        while lo < self.K:
            expect[lo] = lo / self.K          # [lo, 2lo) holds lo of the K values
            lo *= 2
        self.assertLessEqual(set(got), set(expect), "distances >= K seen: %s" % got)
        for lo, q in expect.items():
            self.assertLessEqual(abs(got.get(lo, 0.0) - q), self.bound(q),
                                 "stack bin at %d: %.5f vs %.5f" % (lo, got.get(lo, 0.0), q))

    def test_time_distance_is_geometric(self):
        p = 1 / self.K
        rows = hist(self.db, "rand_data", "time")
        for lo, hi, n in rows:
            a = max(lo, 1)   # time distances are >= 1
            q = (1 - p) ** (a - 1) - ((1 - p) ** (hi - 1) if hi else 0.0)
            self.assertLessEqual(abs(n / self.N - q), self.bound(q),
                                 "time bin [%d, %s): %.5f vs %.5f" % (lo, hi, n / self.N, q))
        # the bins that should hold most of the mass are there: [512, 4096)
        # holds (1-p)^511 - (1-p)^4095, about 58 %
        mass = sum(n for lo, hi, n in rows if 512 <= lo < 4096) / self.N
        q = (1 - p) ** 511 - (1 - p) ** 4095
        self.assertLessEqual(abs(mass - q), self.bound(q))


class Mix(Recorded):
    """A sweep of L = 1024 lines interleaved with a hot set of 4 lines, two
    passes (reuse_mix.c): hot reuses at stack distance 7 / time 8, sweep
    reuses at stack distance L+3 / time 2L."""
    WORKLOAD = "reuse_mix"
    L = 1024
    ARGS = (str(L),)
    OPTS = ("--collect-atstart=no", "--reuse=yes")

    def test_hot_set(self):
        self.assertEqual(first(self.db, "mix_hot"), 4)
        # 7 in bin 3 = [4, 8); 8 in bin 4 = [8, 16)
        self.assertEqual(hist(self.db, "mix_hot", "stack"), [(4, 8, 2 * self.L - 4)])
        self.assertEqual(hist(self.db, "mix_hot", "time"), [(8, 16, 2 * self.L - 4)])

    def test_sweep(self):
        self.assertEqual(first(self.db, "mix_sweep"), self.L)
        # 1027 in [1024, 2048); 2048 in [2048, 4096)
        self.assertEqual(hist(self.db, "mix_sweep", "stack"), [(1024, 2048, self.L)])
        self.assertEqual(hist(self.db, "mix_sweep", "time"), [(2048, 4096, self.L)])
