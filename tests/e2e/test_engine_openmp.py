"""OpenMP under the engine (docs/engine.md, "Threads"): threads run one at a
time, so a runtime that spin-waits holds the only CPU.  dcprof record runs
the program with OMP_WAIT_POLICY=passive unless the user set it, says so in
every profile and report header, and warns when a spinning runtime still
made a large share of the accesses.

omp_spin (tests/workloads/omp_spin.c, -O2 -g -fopenmp, 2 threads) derives
its counts in its header: omp_a gets Dr = 589,824 and Dw = 1,048,576
whatever the wait policy; in phase 2 one thread waits at each region's end
while the other walks 65,536 elements.
"""
import os
import subprocess

from harness import DCPROF, TmpDirTest, query, workload

CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"
# A bound so that a regression to minutes of spinning fails instead of
# stalling the suite; the passive run takes about a second.
LIMIT_S = 300


class OpenMP(TmpDirTest):

    def run_record(self, env_policy):
        env = dict(os.environ)
        env.pop("OMP_WAIT_POLICY", None)
        if env_policy:
            env["OMP_WAIT_POLICY"] = env_policy
        db = self.path("p.db")
        r = subprocess.run([DCPROF, "record", "-o", db, CACHE, "--", workload("omp_spin")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=env, timeout=LIMIT_S)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("omp_spin: checksum 15032680448", r.stdout)
        self.assertEqual(query(db, "SELECT SUM(Dr), SUM(Dw) FROM cost c JOIN bucket b"
                                   " ON b.id = c.bucket WHERE b.name = 'omp_a'"),
                         [(589824, 1048576)])
        return r, db

    def gomp_share(self, db):
        (gomp, total), = query(db, "SELECT SUM(CASE WHEN l.object LIKE '%/libgomp.so%'"
                                   " THEN c.Dr + c.Dw ELSE 0 END), SUM(c.Dr + c.Dw)"
                                   " FROM cost c JOIN location l ON l.id = c.location")
        return gomp / total

    def test_passive_by_default(self):
        r, db = self.run_record(None)
        self.assertEqual(query(db, "SELECT value FROM meta WHERE key = 'omp_wait_policy'"),
                         [("passive (set by dcprof record)",)])
        rep = subprocess.run([DCPROF, "report", db], stdout=subprocess.PIPE, text=True)
        self.assertIn("runtime:  OMP_WAIT_POLICY=passive (set by dcprof record)\n", rep.stdout)
        # Waiting threads sleep: libgomp's own accesses are a few per region.
        self.assertLess(self.gomp_share(db), 0.05)
        self.assertNotIn("spin-waiting", r.stderr)

    def test_user_policy_kept_and_spinning_warned(self):
        """With OMP_WAIT_POLICY=active the waiting thread spins through its
        whole time slice at each of the 8 phase-2 regions: libgomp's loads
        outnumber the program's (measured: about half of all accesses)."""
        r, db = self.run_record("active")
        self.assertEqual(query(db, "SELECT value FROM meta WHERE key = 'omp_wait_policy'"),
                         [("active (set by the user)",)])
        share = self.gomp_share(db)
        self.assertGreater(share, 0.10)
        warn = [l for l in r.stderr.splitlines() if "spin-waiting" in l]
        self.assertEqual(len(warn), 1, r.stderr)
        self.assertIn("libgomp.so", warn[0])
        self.assertIn("%.1f %%" % (100 * share), warn[0])

    def test_no_runtime_line_without_openmp(self):
        db = self.path("s.db")
        subprocess.run([DCPROF, "record", "-q", "-o", db, CACHE, "--", workload("stream")],
                       check=True, stdout=subprocess.DEVNULL)
        self.assertEqual(query(db, "SELECT value FROM meta WHERE key = 'omp_wait_policy'"),
                         [("passive (set by dcprof record)",)])
        rep = subprocess.run([DCPROF, "report", db], stdout=subprocess.PIPE, text=True)
        self.assertNotIn("runtime:", rep.stdout)
