"""dcprof merge and report --spread (src/store/merge.h, src/analysis/spread.h),
and dcprof record under an MPI launcher (-o app.%r.db).

Expected numbers: the merged profile's counts are the sums of its inputs'
(read with Python's sqlite3 from the inputs, independent of dcprof); the
MPI stencil's per-rank counts are derived in tests/workloads/mpi/
mpi_stencil.c."""
import csv
import io
import json
import os
import shutil
import sqlite3
import subprocess
import time

from harness import DCPROF, ROOT, TmpDirTest, query, workload

CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"
FIXTURES = os.path.join(ROOT, "tests", "e2e", "fixtures")
COSTS = ["Dr", "Dw", "D1mr", "D1mw", "D2mr", "D2mw", "Lat"]


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def by_bucket(db):
    """{(name, kind, n): [costs]} over the cost table, n numbering buckets of
    one name and kind in id order."""
    rows = query(db, "SELECT b.id, b.name, b.kind, %s FROM bucket b LEFT JOIN"
                     " (SELECT bucket, %s FROM cost GROUP BY bucket) c ON c.bucket = b.id"
                     " ORDER BY b.id" % (", ".join("coalesce(c.%s, 0)" % c for c in COSTS),
                                        ", ".join("SUM(%s) AS %s" % (c, c) for c in COSTS)))
    seen, out = {}, {}
    for r in rows:
        key = (r[1], r[2])
        seen[key] = seen.get(key, 0) + 1
        out[key + (seen[key],)] = list(r[3:])
    return out


class Merge(TmpDirTest):

    def record(self, name, prog, *opts, env=None):
        db = self.path(name)
        r = run([DCPROF, "record", "-q", "-o", db, CACHE] + list(opts) + ["--", prog], env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        return db

    def merge(self, inputs, out="all.db", *opts, ok=True):
        out = self.path(out)
        r = run([DCPROF, "merge"] + list(inputs) + ["-o", out] + list(opts))
        if ok:
            self.assertEqual(r.returncode, 0, r.stderr)
        return r, out

    def assert_sum(self, inputs, merged):
        want = {}
        for db in inputs:
            for k, v in by_bucket(db).items():
                want[k] = [a + b for a, b in zip(want.get(k, [0] * len(COSTS)), v)]
        self.assertEqual(by_bucket(merged), want)
        for t in ("cost", "cost_sampled", "eviction", "cache_use", "call_arc", "call_use",
                  "reuse_hist", "reuse_first", "reuse_pair"):
            col = {"cost": "Dr", "cost_sampled": "Dr", "eviction": "count",
                   "cache_use": "SpLoss", "call_arc": "count", "call_use": "AcCost",
                   "reuse_hist": "count", "reuse_first": "count", "reuse_pair": "count"}[t]
            total = sum(query(db, "SELECT coalesce(SUM(%s), 0) FROM %s" % (col, t))[0][0]
                        for db in inputs)
            self.assertEqual(query(merged, "SELECT coalesce(SUM(%s), 0) FROM %s" % (col, t)),
                             [(total,)], t)

    def test_two_runs_every_table(self):
        """Two runs of demo with every recording option: every table's sum is
        the sum of the two, bucket by bucket."""
        opts = ["--evictions=yes", "--sample=D1m:1000", "--reuse=yes", "--cache-use", "--calls"]
        a = self.record("a.db", workload("demo"), *opts)
        b = self.record("b.db", workload("demo"), *opts)
        r, m = self.merge([a, b])
        self.assert_sum([a, b], m)
        meta = dict(query(m, "SELECT key, value FROM meta"))
        self.assertEqual(meta["merged_profiles"], "2")
        self.assertEqual(meta["complete"], "1")
        self.assertEqual(query(m, "SELECT COUNT(*) FROM process"), [(2,)])
        # blocks are addresses of one process: not merged (store/merge.h)
        self.assertEqual(query(m, "SELECT COUNT(*) FROM block"), [(0,)])
        # every command reads it
        for cmd in (["report"], ["report", "--by", "line"], ["report", "--inclusive"],
                    ["evictions"], ["reuse"], ["mrc"], ["accuracy"], ["report", "--sampled"],
                    ["export", "--format=callgrind", "-o", self.path("cg.out")]):
            r = run([DCPROF, cmd[0], m] + cmd[1:])
            self.assertEqual(r.returncode, 0, "%s: %s" % (cmd, r.stderr))
        # a merged profile merges again, its processes carried over (a's
        # twice: --force, test_process_twice)
        r, m2 = self.merge([m, a], "again.db", "--force")
        self.assert_sum([a, b, a], m2)
        self.assertEqual(query(m2, "SELECT COUNT(*) FROM process"), [(3,)])

    def test_forked_children(self):
        """fork_counts' children have profiles of their own: merged with the
        parent's they add up."""
        out = self.path("f.db")
        r = run([DCPROF, "record", "-q", "-o", out, CACHE, "--", workload("fork_counts")])
        self.assertEqual(r.returncode, 0, r.stderr)
        dbs = sorted(os.path.join(self.tmp, f) for f in os.listdir(self.tmp)
                     if f.startswith("f.") and f.endswith(".db"))
        self.assertGreater(len(dbs), 1)
        r, m = self.merge(dbs, "fork_all.db", "--force")
        self.assert_sum(dbs, m)

    def test_refusals(self):
        a = self.record("a.db", workload("stream"))
        other_cache = self.path("c.db")
        r = run([DCPROF, "record", "-q", "-o", other_cache, "--cache=L1=16K:4:64,L2=1M:16:64",
                 "--", workload("stream")])
        self.assertEqual(r.returncode, 0, r.stderr)
        other_opts = self.record("o.db", workload("stream"), "--evictions=yes")
        other_prog = self.record("p.db", workload("startstop"))
        cases = [([a, other_cache], "different cache configurations"),
                 ([a, other_opts], "recorded with different options (evictions"),
                 ([a, other_prog], "profiles of different programs"),
                 ([a, self.path("none.db")], "cannot open profile"),
                 ([a, a], "")]
        for inputs, why in cases[:-1]:
            r, out = self.merge(inputs, "x.db", ok=False)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertIn(why, r.stderr)
            self.assertFalse(os.path.exists(out))
            self.assertEqual([f for f in os.listdir(self.tmp) if f.endswith(".tmp")], [])
        r, out = self.merge([a, other_prog], "forced.db", "--force")
        self.assert_sum([a, other_prog], out)
        r, out = self.merge([a, self.path("a.db")], "a.db", ok=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("it is one of the inputs", r.stderr)

    def test_process_twice(self):
        """One process given twice would count twice, silently: refused
        (exit 2, one line, nothing written) whether it is one file under
        two names or a merged profile merged again with one of its inputs;
        two runs of one program are not one process (the other tests);
        --force merges it twice on purpose."""
        a = self.record("a.db", workload("stream"))
        b = self.record("b.db", workload("stream"))
        os.symlink(a, self.path("link.db"))
        r, ab = self.merge([a, b], "ab.db")
        cases = [([a, a], "cannot merge '%s': it is the same file as '%s'" % (a, a)),
                 ([a, b, self.path("link.db")],
                  "cannot merge '%s': it is the same file as '%s'" % (self.path("link.db"), a)),
                 ([ab, b], "cannot merge '%s': process " % b),
                 ([b, ab], "cannot merge '%s': process " % ab)]
        for inputs, why in cases:
            r, out = self.merge(inputs, "x.db", ok=False)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertIn(why, r.stderr)
            self.assertIn("it would count twice", r.stderr)
            self.assertFalse(os.path.exists(out))
        pid = dict(query(b, "SELECT key, value FROM meta"))["pid"]
        r, out = self.merge([ab, b], "x.db", ok=False)
        self.assertIn("process %s (on " % pid, r.stderr)
        self.assertIn("already merged, from '%s'" % b, r.stderr)
        r, out = self.merge([a, a], "twice.db", "--force")
        self.assert_sum([a, a], out)

    def test_header_says_merged(self):
        """A merged profile's totals are sums over its processes: the header
        of report, diff, annotate and html says how many (the two inputs, also
        the rows of its process table); a one-process profile's does not."""
        a = self.record("a.db", workload("stream"))
        b = self.record("b.db", workload("stream"))
        r, m = self.merge([a, b])
        self.assertEqual(query(m, "SELECT COUNT(*) FROM process"), [(2,)])
        line = "merged:   2 processes (dcprof merge): counts are their sums"
        for cmd in (["report", m], ["diff", m, a], ["annotate", m]):
            out = run([DCPROF] + cmd).stdout
            self.assertIn(line, out, cmd)
        self.assertNotIn("merged:", run([DCPROF, "report", a]).stdout)
        page = self.path("m.html")
        self.assertEqual(run([DCPROF, "html", m, "-o", page]).returncode, 0)
        with open(page) as f:
            self.assertIn("<dt>merged</dt><dd>2 processes (dcprof merge)", f.read())
        j = json.loads(run([DCPROF, "report", m, "--format", "json"]).stdout)
        self.assertEqual(j["merged_processes"], 2)
        j = json.loads(run([DCPROF, "report", a, "--format", "json"]).stdout)
        self.assertNotIn("merged_processes", j)

    def test_incomplete_in_the_set(self):
        a = self.record("a.db", workload("stream"))
        b = self.path("b.db")
        shutil.copy(a, b)
        con = sqlite3.connect(b)
        con.execute("UPDATE meta SET value = '0' WHERE key = 'complete'")
        con.execute("INSERT INTO meta VALUES('incomplete_reason', 'killed by signal 9 (SIGKILL)')")
        con.commit()
        con.close()
        # b is a copy of a's process: --force lets it count twice
        r, m = self.merge([a, b], "all.db", "--force")
        warn = [l for l in r.stderr.splitlines() if "incomplete" in l]
        self.assertEqual(len(warn), 1, r.stderr)
        self.assertIn("'%s'" % b, warn[0])
        meta = dict(query(m, "SELECT key, value FROM meta"))
        self.assertEqual(meta["complete"], "0")
        self.assertIn("1 of them incomplete", meta["incomplete_reason"])
        rep = run([DCPROF, "report", m])
        self.assertIn("INCOMPLETE", rep.stdout)

    def test_sixty_four_profiles(self):
        """64 copies of one demo profile (a directory argument; --force, as
        they are one process): every count is 64 times the profile's; the
        time is printed for docs/performance.md (no timed assertion)."""
        a = self.record("a.db", workload("demo"))
        d = self.path("many")
        os.makedirs(d)
        for i in range(64):
            shutil.copy(a, os.path.join(d, "p%02d.db" % i))
        t0 = time.time()
        r, m = self.merge([d], "64.db", "--force")
        print("\n    merge of 64 demo profiles: %.2f s" % (time.time() - t0))
        want = {k: [64 * x for x in v] for k, v in by_bucket(a).items()}
        self.assertEqual(by_bucket(m), want)
        self.assertEqual(query(m, "SELECT COUNT(*) FROM process"), [(64,)])

    def test_spread_needs_merged(self):
        a = self.record("a.db", workload("stream"))
        r = run([DCPROF, "report", a, "--spread"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("is not a merged profile", r.stderr)
        r = run([DCPROF, "report", a, "--spread", "--by", "line"])
        self.assertEqual(r.returncode, 2)


class MPI(TmpDirTest):
    """4 ranks of mpi_stencil under Open MPI's mpirun, started by the test
    (as root it needs --allow-run-as-root; --oversubscribe: 2 cores)."""

    def setUp(self):
        super().setUp()
        if not shutil.which("mpirun") or not os.path.exists(workload("mpi_stencil")):
            self.skipTest("Open MPI is not installed (scripts/install-deps.sh installs it)")

    def test_ranks_merge_and_spread(self):
        out = os.path.join(self.tmp, "app.%r.db")
        r = run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4", DCPROF,
                 "record", "-q", "-o", out, CACHE, "--", workload("mpi_stencil")], timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr[-3000:])
        self.assertIn("mpi_stencil: 4 ranks", r.stdout)
        dbs = [self.path("app.%d.db" % k) for k in range(4)]
        for k, db in enumerate(dbs):
            self.assertTrue(os.path.exists(db), r.stderr[-2000:])
            meta = dict(query(db, "SELECT key, value FROM meta"))
            self.assertEqual(meta["rank"], str(k))
            self.assertIn("host", meta)
            n = 32768 if k == 0 else 16384
            got = dict((name, (dr, dw)) for name, dr, dw in query(
                db, "SELECT b.name, SUM(c.Dr), SUM(c.Dw) FROM cost c JOIN bucket b"
                    " ON b.id = c.bucket WHERE b.name LIKE 'grid_%' GROUP BY b.name"))
            self.assertEqual(got, {"grid_a": (7 * n - 8, 3 * n - 4),
                                   "grid_b": (6 * n - 8, 3 * n - 4)}, db)
            rep = run([DCPROF, "report", db])
            self.assertIn("process:  rank %d on " % k, rep.stdout)
        m = self.path("all.db")
        r = run([DCPROF, "merge", self.tmp, "-o", m])
        self.assertEqual(r.returncode, 0, r.stderr)
        total = sum(query(db, "SELECT SUM(Dr) FROM cost")[0][0] for db in dbs)
        self.assertEqual(query(m, "SELECT SUM(Dr) FROM cost"), [(total,)])
        rep = run([DCPROF, "report", m, "--spread=Dr", "--format", "csv"])
        self.assertEqual(rep.returncode, 0, rep.stderr)
        rows = {row["bucket"]: row for row in csv.DictReader(io.StringIO(rep.stdout))}
        for name, r0, ri in (("grid_a", 229368, 114680), ("grid_b", 196600, 98296)):
            row = rows[name]
            self.assertEqual(row["max_rank"], "0")
            self.assertEqual(row["max_process"], dbs[0])
            self.assertEqual((int(row["min"]), int(row["max"]), int(row["processes"])),
                             (ri, r0, 4))
            self.assertAlmostEqual(float(row["imbalance"]), r0 / ((r0 + 3 * ri) / 4), places=6)
