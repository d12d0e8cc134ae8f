"""Checkpoints (`--checkpoint`, docs/engine.md "Robustness"): every period a
copy of the engine writes the dump as it would be at that instant, so a
process killed by SIGKILL still leaves a profile (test_engine_errors.py).
Taking them must change nothing else: the finished profile is the one a run
without checkpoints writes, the --trace-out file too, and the program sees
only its own children, wait() results and SIGCHLD.  Workloads
ckpt_children.c, ckpt_work.c, threads.c."""
import glob
import os
import shutil
import sqlite3
import tempfile
import unittest

from test_engine_common import CACHE_2, DCPROF, meta, run, totals, workload

# every 2 ms, or as soon as their estimated cost has passed
# Every 2 ms whatever they cost: the first checkpoint's estimated cost
# counts Valgrind's own start-up faults, which exceed these short runs on
# some machines (docs/engine.md).
FREQUENT = ["--checkpoint=0.002", "--checkpoint-budget=none"]


def tables(db):
    """Every table but meta, as sorted rows (meta holds the run's own
    command line and timing)."""
    con = sqlite3.connect(db)
    try:
        names = [n for (n,) in con.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'meta'")]
        return {n: sorted(con.execute("SELECT * FROM %s" % n).fetchall(), key=repr)
                for n in names}
    finally:
        con.close()


class Checkpoints(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-ckpt-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def record(self, name, prog, opts, keep_raw=False):
        """dcprof record into NAME.db; with keep_raw, the raw dumps stay in
        a directory of their own (returned)."""
        tmpdir = os.path.join(self.tmp, name + ".raw")
        os.mkdir(tmpdir)
        db = os.path.join(self.tmp, name + ".db")
        r = run([DCPROF, "record", "-q", "-o", db] + (["--keep-raw"] if keep_raw else [])
                + list(opts) + ["--"] + list(prog), env=dict(os.environ, TMPDIR=tmpdir))
        self.assertEqual(r.returncode, 0, r.stderr)
        return db, tmpdir

    def assertCheckpointed(self, db, raw):
        """Checkpoints were taken, and the finished dump replaced the last."""
        self.assertGreater(int(meta(db)["checkpoints"]), 0, "no checkpoint was taken")
        self.assertEqual(glob.glob(os.path.join(raw, "dcprof-*", "raw.*.ckpt*")), [])

    def same_profile(self, prog, opts, opts0=(), opts1=()):
        """The profile with checkpoints every 2 ms (and OPTS1) equals the
        one without (and OPTS0), table by table."""
        plain, _ = self.record("run0", prog, list(opts) + list(opts0) + ["--checkpoint=0"])
        ckpt, raw = self.record("run1", prog, list(opts) + list(opts1) + FREQUENT,
                                keep_raw=True)
        self.assertCheckpointed(ckpt, raw)
        a, b = tables(plain), tables(ckpt)
        self.assertEqual(sorted(a), sorted(b))
        for name in a:
            self.assertEqual(a[name], b[name], "table %s differs" % name)
        self.assertEqual(meta(ckpt)["complete"], "1")
        self.assertNotIn("checkpoint_ms", meta(ckpt))
        self.assertEqual(meta(plain)["checkpoints"], "0")

    def test_program_sees_only_its_own_children(self):
        db, raw = self.record("children", [workload("ckpt_children")], [CACHE_2] + FREQUENT,
                              keep_raw=True)
        self.assertCheckpointed(db, raw)

    # ckpt_work.c measures only its passes between DCPROF_START and
    # DCPROF_STOP, the same accesses in every run; a whole run's stack lines
    # (ld.so's start-up) have cache use and reuse that vary from run to run
    # even without checkpoints.
    def test_calls_and_cache_use(self):
        self.same_profile([workload("ckpt_work")],
                          ["--collect-atstart=no", CACHE_2, "--calls", "--cache-use",
                           "--evictions"])

    def test_reuse_and_traces(self):
        trace = [os.path.join(self.tmp, "run%d.trace" % i) for i in (0, 1)]
        opts = ["--collect-atstart=no", CACHE_2, "--reuse", "--reuse-sample=100",
                "--trace-window=100", "--trace-period=1000", "--trace-full"]
        self.same_profile([workload("ckpt_work")], opts,
                          ["--trace-out=" + trace[0]], ["--trace-out=" + trace[1]])
        with open(trace[0], "rb") as a, open(trace[1], "rb") as b:
            self.assertEqual(a.read(), b.read(), "the trace files differ")

    def test_forked_child(self):
        self.same_profile([workload("ckpt_work"), "24", "fork"],
                          ["--collect-atstart=no", CACHE_2, "--reuse"])
        child = [glob.glob(os.path.join(self.tmp, "run%d.*.db" % i)) for i in (0, 1)]
        self.assertEqual([len(c) for c in child], [1, 1], os.listdir(self.tmp))
        self.assertEqual(tables(child[0][0]), tables(child[1][0]))

    def test_threads(self):
        # threads.c's derivation: each thread's array, read P = 2 times,
        # misses both levels on every line every time (the interleaving of
        # the threads, which checkpoints may change, does not matter)
        db, raw = self.record("run1", [workload("threads")],
                              ["--cache=L1=32K:8:64,L2=256K:8:64"] + FREQUENT, keep_raw=True)
        self.assertCheckpointed(db, raw)
        for name in ("thr_a", "thr_b"):
            t = totals(db, bucket=name)
            self.assertEqual((t["Dr"], t["D1mr"], t["D2mr"]), (2 * 131072, 2 * 16384,
                                                               2 * 16384), t)


if __name__ == "__main__":
    unittest.main()
