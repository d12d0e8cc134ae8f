"""End-to-end tests of IP-only samples with emulated skid (`dcprof record
--sample=EVENT:N --sample-ip-only [--skid=MEAN:SD]`; Rutar and
Hollingsworth, "Software Analysis Techniques to Approximate Data Centric
Direct Measurements", §3.3.3; docs/engine.md).  Every expected number is
derived from the exact tables of the same run or from the instruction
sequence of the workload as objdump lists it.

* Skid 0:0, period 1 (the sampler's period N = 1 has no randomisation:
  h = N/4 = 0, so every event is a sample, src/core/sampler.h): every L1
  miss is a sample of weight 1 at its own instruction, so ip_sample per
  (location, thread) equals cost's D1mr + D1mw per (location, thread)
  exactly -- on an optimized C++ program and a threaded one -- and report
  --ip-samples --by line equals the exact report's D1mr + D1mw per line.
* Period 3 (h = 3/4 = 0: every 3rd miss exactly): the sum of ip_sample is
  3 floor(M / 3) for M misses in all, and skid_walk's 20,000 consecutive
  misses at skid_load hold floor(20000/3) or that + 1 samples.
* Skid K:0 on tests/workloads/skid_walk.c: every sample of the load lands
  on the K-th instruction after it in execution order (objdump), also past
  the loop's jump.
* Skid 20:4: the displacement of the samples landing in the straight-line
  block has the Gaussian's mean and variance within derived bounds.
* The same seed gives the same samples; another seed other ones.
* Option errors: one line, exit 2, no profile."""
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from test_engine_common import (CACHE_2, LAT, Recorded, meta, query, record, run,
                                workload)
from harness import DCPROF

N_WALK = 20000
SKID_OPTS = (CACHE_2, LAT)


def ip_samples(db):
    """{(location ip, thread): count}."""
    return {(ip, t): n for ip, t, n in query(
        db, "SELECT l.ip, s.thread, s.count FROM ip_sample s JOIN location l ON l.id = s.location")}


def exact_misses(db):
    """{(location ip, thread): D1mr + D1mw} for the rows with misses."""
    return {(ip, t): n for ip, t, n in query(
        db, "SELECT l.ip, c.thread, SUM(c.D1mr + c.D1mw) FROM cost c"
        " JOIN location l ON l.id = c.location GROUP BY l.ip, c.thread"
        " HAVING SUM(c.D1mr + c.D1mw) > 0")}


def walk_block(path):
    """Addresses (link-time) of skid_load and the instructions after it
    up to the loop's jnz, from objdump: [skid_load, add 1, ..., jnz]."""
    syms = subprocess.run(["nm", path], stdout=subprocess.PIPE, text=True, check=True).stdout
    start = int(re.search(r"^([0-9a-f]+) T skid_load$", syms, re.M).group(1), 16)
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                          "--start-address=%#x" % start, "--stop-address=%#x" % (start + 400),
                          path], stdout=subprocess.PIPE, text=True, check=True).stdout
    block = []
    for line in dis.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(\S+)", line)
        if not m:
            continue
        block.append(int(m.group(1), 16))
        if m.group(2).startswith("jne") or m.group(2).startswith("jnz"):
            break
    return block


class SkidRun(Recorded):
    """Records WORKLOAD ARGS with OPTS once per class (Recorded)."""
    WORKLOAD = "skid_walk"
    ARGS = (str(N_WALK),)

    def walk(self):
        """(runtime addresses of skid_walk's block, misses at skid_load):
        the load bias is the profile's skid_load location ip minus nm's
        address.  The load is the instruction of walk with the most misses
        (its 20,000; walk's ret may miss once on the stack, after the
        walk evicted it, but it lies after the block)."""
        block = walk_block(workload("skid_walk"))
        rows = query(self.db, "SELECT l.ip, SUM(c.D1mr + c.D1mw) AS m FROM cost c"
                     " JOIN location l ON l.id = c.location WHERE l.function = 'walk'"
                     " GROUP BY l.ip ORDER BY m DESC LIMIT 2")
        bias = rows[0][0] - block[0]
        self.assertTrue(all(r[0] > block[-1] + bias for r in rows[1:]),
                        "no other instruction of the block misses: %s" % rows)
        self.assertEqual(len(block), 68, "skid_load, 64 x addq $1, addq, subq, jnz")
        return [a + bias for a in block], rows[0][1]


class Precise(SkidRun):
    """Skid 0:0 (the default), period 1: ip_sample = exact misses."""
    WORKLOAD = "cg_cxx"
    ARGS = ()
    OPTS = SKID_OPTS + ("--sample=D1m:1", "--sample-ip-only")

    def test_meta_and_no_estimates(self):
        m = meta(self.db)
        self.assertEqual((m.get("sample_ip_only"), m.get("sample_skid"), m.get("sample_event"),
                          m.get("sample_period"), m.get("sample_skid_lost")),
                         ("1", "0:0", "D1m", "1", "0"))
        total = query(self.db, "SELECT SUM(D1mr + D1mw) FROM cost")[0][0]
        self.assertEqual(int(m["samples"]), total, "one sample per L1 miss")
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM cost_sampled")[0][0], 0)
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM eviction WHERE sampled = 1")[0][0], 0)

    def test_ip_sample_equals_exact_misses(self):
        got, want = ip_samples(self.db), exact_misses(self.db)
        self.assertTrue(want)
        diff = {k: (got.get(k), want.get(k)) for k in set(got) | set(want)
                if got.get(k) != want.get(k)}
        self.assertFalse(diff, "(ip, thread): (ip_sample, D1mr+D1mw) %s" % sorted(diff.items())[:5])

    def test_report_by_line_equals_exact_lines(self):
        ip = json_report(self, self.db, "--ip-samples", "--by", "line", "--top", "0")
        ex = json_report(self, self.db, "--by", "line", "--top", "0")
        key = lambda r: (r["file"], r["line"], r["function"])
        want = {key(r): r["D1mr"] + r["D1mw"] for r in ex["rows"] if r["D1mr"] + r["D1mw"]}
        got = {key(r): r["samples"] for r in ip["rows"]}
        self.assertEqual(got, want)
        self.assertEqual(ip["ip_samples"]["skid"], "0:0")
        self.assertEqual(ip["totals"]["samples"], sum(want.values()))


class PreciseThreads(SkidRun):
    """The same on threads.c: the key includes the thread."""
    WORKLOAD = "threads"
    ARGS = ()
    OPTS = SKID_OPTS + ("--sample=D1m:1", "--sample-ip-only", "--skid=0:0")

    def test_ip_sample_equals_exact_misses_per_thread(self):
        got, want = ip_samples(self.db), exact_misses(self.db)
        self.assertGreater(len({t for _, t in want}), 1, "misses on several threads")
        self.assertEqual(got, want)


class EveryThird(SkidRun):
    """Period 3: every 3rd miss of the run's miss sequence is a sample.
    Over the whole run M misses give floor(M / 3) samples of weight 3.  The
    walk's 20,000 misses at skid_load are consecutive in that sequence (no
    other access of the loop misses; skid_walk.c), so they hold
    floor(20000 / 3) = 6666 or 6667 of the samples, by where the walk
    starts modulo 3."""
    OPTS = SKID_OPTS + ("--sample=D1m:3", "--sample-ip-only")

    def test_counts(self):
        total = query(self.db, "SELECT SUM(D1mr + D1mw) FROM cost")[0][0]
        got = ip_samples(self.db)
        self.assertEqual(sum(got.values()), 3 * (total // 3))
        self.assertEqual(int(meta(self.db)["samples"]), total // 3)
        block, misses = self.walk()
        self.assertEqual(misses, N_WALK)
        self.assertIn(got.get((block[0], 1)), (3 * (N_WALK // 3), 3 * (N_WALK // 3 + 1)))


class SkidStraight(SkidRun):
    """Skid 5:0: instruction 5 after skid_load is the 5th addq $1; the
    instruction executed 5 before it is always skid_load (the block is
    straight-line code entered only at skid_load), so it holds exactly
    the load's samples, and no other instruction of the block has any
    (one executed 5 after an instruction of the block is in the block;
    an instruction before skid_load has no misses)."""
    OPTS = SKID_OPTS + ("--sample=D1m:1", "--sample-ip-only", "--skid=5:0")

    def test_lands_five_on(self):
        block, misses = self.walk()
        self.assertEqual(misses, N_WALK)
        got = ip_samples(self.db)
        self.assertEqual(got.get((block[5], 1)), N_WALK)
        self.assertEqual({a: got.get((a, 1)) for a in block if a != block[5] and (a, 1) in got},
                         {})


class SkidPastJump(SkidRun):
    """Skid 70:0: from skid_load, instructions 1..64 are the addq $1,
    65..67 addq $64, subq, jnz, 68 skid_load again, 70 the 2nd addq $1 of
    the next iteration: where the program went.  The last iteration's
    sample leaves the loop, so the 2nd addq holds the samples of
    iterations 1..N-1, N - 1, plus any sample whose instruction ran 70
    before the first iteration's 2nd addq (the caller's code: a call
    instruction's write, at most 2 accesses): N - 1 <= count <= N + 1."""
    OPTS = SKID_OPTS + ("--sample=D1m:1", "--sample-ip-only", "--skid=70:0")

    def test_follows_the_jump(self):
        block, _ = self.walk()
        n = ip_samples(self.db).get((block[2], 1), 0)
        self.assertTrue(N_WALK - 1 <= n <= N_WALK + 1, n)


class SkidGaussian(SkidRun):
    """Skid 20:4, seed 5: each sample of the load lands k = round(20 + 4z)
    instructions on, z standard normal; k > 64 has probability 1e-28, so
    every sample lands in the block at index k.  E k = 20 and Var k =
    16 + 1/12 (rounding adds variance 1/12, no bias; truncation at 0 is 5
    SD away).  With n = 20,000 samples the mean's standard error is
    sqrt(16.08 / n) = 0.028 and the variance's 16.08 sqrt(2 / n) = 0.16;
    bounds are 5 of them.  Samples from the caller's code landing in the
    first iteration's block (at most 2, index < 64) move the mean by at
    most 2 * 64 / n = 0.0064."""
    OPTS = SKID_OPTS + ("--sample=D1m:1", "--sample-ip-only", "--skid=20:4", "--sample-seed=5")

    def test_displacement_is_gaussian(self):
        block, _ = self.walk()
        got = ip_samples(self.db)
        hist = {k: got.get((a, 1), 0) for k, a in enumerate(block)}
        n = sum(hist.values())
        self.assertTrue(N_WALK - 2 <= n <= N_WALK + 2, n)
        mean = sum(k * c for k, c in hist.items()) / n
        var = sum(c * (k - mean) ** 2 for k, c in hist.items()) / n
        v = 16 + 1 / 12
        self.assertLess(abs(mean - 20), 5 * math.sqrt(v / n) + 2 * 64 / n, (mean, hist))
        self.assertLess(abs(var - v), 5 * v * math.sqrt(2 / n) + 0.5, (var, hist))
        self.assertEqual(meta(self.db)["sample_skid"], "20:4")

    def test_same_seed_same_samples(self):
        other = os.path.join(self.tmpdir, "same.db")
        record(other, [workload(self.WORKLOAD)] + list(self.ARGS), self.OPTS)
        self.assertEqual(ip_samples(other), ip_samples(self.db))
        seed = os.path.join(self.tmpdir, "seed.db")
        record(seed, [workload(self.WORKLOAD)] + list(self.ARGS),
               self.OPTS[:-1] + ("--sample-seed=6",))
        self.assertNotEqual(ip_samples(seed), ip_samples(self.db))


def json_report(test, db, *opts):
    """dcprof report DB --format json OPTS, parsed; it must succeed."""
    r = run([DCPROF, "report", db, "--format", "json"] + list(opts))
    test.assertEqual(r.returncode, 0, r.stderr)
    return json.loads(r.stdout)


class Errors(unittest.TestCase):
    """Bad combinations and values: one line on stderr, exit 2, no profile."""

    def check(self, opts, want):
        tmp = tempfile.mkdtemp(prefix="dcprof-skid-")
        try:
            db = os.path.join(tmp, "p.db")
            r = run([DCPROF, "record", "-q", "-o", db] + list(opts) + ["--", "/bin/true"])
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertIn(want, r.stderr)
            self.assertEqual(os.listdir(tmp), [])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_skid_without_ip_only(self):
        self.check(["--sample=D1m:10", "--skid=3:1"], "--skid needs --sample-ip-only")

    def test_ip_only_without_sample(self):
        self.check(["--sample-ip-only"], "--sample-ip-only needs --sample")

    def test_bad_skid(self):
        for v in ("3", "3:", ":1", "-1:0", "1:x", "1.2345:0", "1000001:0", "1:2:3", ""):
            with self.subTest(v=v):
                self.check(["--sample=D1m:10", "--sample-ip-only", "--skid=" + v],
                           "invalid --skid value")

    def test_report_needs_ip_samples(self):
        tmp = tempfile.mkdtemp(prefix="dcprof-skid-")
        try:
            db = os.path.join(tmp, "p.db")
            record(db, [workload("skid_walk"), "100"], SKID_OPTS + ("--sample=D1m:10",))
            r = run([DCPROF, "report", db, "--ip-samples"])
            self.assertEqual(r.returncode, 2)
            self.assertIn("has no IP-only samples; record with --sample=EVENT:N"
                          " --sample-ip-only", r.stderr)
            r = run([DCPROF, "report", db, "--ip-samples", "--by", "object"])
            self.assertEqual(r.returncode, 2)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
