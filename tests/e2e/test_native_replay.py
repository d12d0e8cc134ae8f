"""The native engine's replay and cpu-clock sampling (docs/engine-native.md,
"Replay" and "Events").

Replay: a simulator run of tests/workloads/replay_mix.c with --sample=D1m:17
--sample-log writes every emulated sample (object-relative address, IP,
period, read/write, serving level, thread, allocation clock).  The same
file, its kind line set to pebs, ibs and spe, is replayed into a native run
of the same program: every line becomes that kind's hardware record and
goes through its decoder and the attribution the live events use.  Each
sample carries its weight (the period, 17), its op and its serving level
to the object it hit in the simulator run, so the native profile's
cost_sampled summed per bucket must equal the simulator's cost_sampled
exactly, column by column (the latency column included: the replayed
record's latency is the serving level's, from the same --latency).  The
samples the simulator charged to buckets a native run has no object for
(the allocator's own accesses <malloc>, mappings, <valgrind>, <unknown>)
are written as "-" and land in the native <unknown>: their sum is its
expected count.  Heap buckets are matched through their blocks' allocation
sequence numbers (the block tables of both runs must agree, which is also
what makes the allocation clock the same).

cpu-clock: tests/workloads/cpu_hot.c spends 19/20 of its CPU time in hot()
(derived in its header).  Replay needs no PMU; cpu-clock needs software
sampling (perf_event_paranoid <= 2) and skips without it."""
import json
import os
import re
import resource
import subprocess
import unittest

from test_engine_common import query, record, run, workload, COLS
from harness import DCPROF, TmpDirTest, perf_ok

CACHE = "--cache=L1=32K:8:64,L2=256K:8:64,L3=2M:16:64"
LAT = "--latency=L1=4,L2=14,L3=40,MEM=200"
SUMS = ", ".join("COALESCE(SUM(c.%s), 0)" % c for c in COLS)


def meta(db, key):
    rows = query(db, "SELECT value FROM meta WHERE key = ?", key)
    return rows[0][0] if rows else None


def blocks(db):
    return query(db, "SELECT alloc_seq, size, free_seq FROM block ORDER BY alloc_seq")


def per_bucket(db, names):
    """cost_sampled summed per bucket key; names maps bucket id -> key."""
    out = {}
    for row in query(db, "SELECT c.bucket, " + SUMS + " FROM cost_sampled c GROUP BY c.bucket"):
        key = names[row[0]]
        acc = out.setdefault(key, [0] * len(COLS))
        for i, v in enumerate(row[1:]):
            acc[i] += v
    return out


def sim_keys(db):
    """Simulator bucket id -> the key its samples have in a native replay:
    its name for globals, <stack> and heap buckets with blocks, else
    <unknown>."""
    with_blocks = {r[0] for r in query(db, "SELECT DISTINCT bucket FROM block")}
    keys = {}
    for bid, name, kind in query(db, "SELECT id, name, kind FROM bucket"):
        placed = kind == "global" or name == "<stack>" or bid in with_blocks
        keys[bid] = name if placed else "<unknown>"
    return keys


def native_keys(db, sim_db):
    """Native bucket id -> key: heap buckets by the simulator name of their
    blocks (same allocation sequence numbers), others by name."""
    sim_name = dict(query(sim_db, "SELECT k.alloc_seq, b.name FROM block k"
                          " JOIN bucket b ON b.id = k.bucket"))
    keys = {bid: name for bid, name in query(db, "SELECT id, name FROM bucket")}
    for bid, seq in query(db, "SELECT bucket, alloc_seq FROM block"):
        keys[bid] = sim_name[seq]
    return keys


class Replay(TmpDirTest):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls._td = tempfile.TemporaryDirectory(prefix="dcprof-replay-")
        cls.dir = cls._td.name
        cls.sim = os.path.join(cls.dir, "sim.db")
        cls.log = os.path.join(cls.dir, "samples.txt")
        r = record(cls.sim, [workload("replay_mix")],
                   [CACHE, LAT, "--sample=D1m:17", "--sample-log=" + cls.log])
        if r.returncode != 0:
            raise AssertionError(r.stderr)
        with open(cls.log) as f:
            cls.lines = f.read().splitlines()

    @classmethod
    def tearDownClass(cls):
        cls._td.cleanup()

    def replay(self, kind):
        path = self.path(kind + ".txt")
        with open(path, "w") as f:
            f.write("\n".join(["dcprof-samples %s D1m" % kind] + self.lines[1:]) + "\n")
        db = self.path(kind + ".db")
        r = record(db, [workload("replay_mix")], ["--engine=native", CACHE, LAT,
                                                   "--replay=" + path])
        self.assertEqual(r.returncode, 0, r.stderr)
        return db

    def test_log_has_every_form(self):
        # replay_mix's misses hit heap blocks, the global rm_table and the
        # stack; start-up adds allocator and mapping accesses ("-")
        self.assertEqual(self.lines[0], "dcprof-samples pebs D1m")
        forms = {re.match(r"(heap|global|stack|-)", l).group(1) for l in self.lines[1:]}
        self.assertEqual(forms, {"heap", "global", "stack", "-"})
        self.assertTrue(any(l.startswith("global:rm_table+") for l in self.lines))
        self.assertTrue(all(l.split()[2] == "17" for l in self.lines[1:]))

    def check(self, kind):
        db = self.replay(kind)
        self.assertEqual(blocks(db), blocks(self.sim))
        want = per_bucket(self.sim, sim_keys(self.sim))
        got = per_bucket(db, native_keys(db, self.sim))
        self.assertEqual(got, want)
        self.assertEqual(meta(db, "replay_kind"), kind)
        self.assertEqual(meta(db, "replay_unresolved"), "0")
        self.assertEqual(meta(db, "sample_event"), "D1m")
        self.assertEqual(int(meta(db, "samples")), len(self.lines) - 1)
        # IPs relocated into this run: as many distinct instructions per
        # bucket as in the simulator run (a failed relocation collapses them)
        q = ("SELECT b.name, COUNT(DISTINCT c.location) FROM cost_sampled c JOIN bucket b"
             " ON b.id = c.bucket WHERE b.name = 'rm_table'")
        self.assertEqual(query(db, q), query(self.sim, q))
        out = run([DCPROF, "report", db, "--sampled"])
        self.assertEqual(out.returncode, 0, out.stderr)

    def test_pebs(self):
        self.check("pebs")

    def test_ibs(self):
        self.check("ibs")

    def test_spe(self):
        self.check("spe")

    def test_bad_files(self):
        cases = [
            ("", "empty file"),
            ("dcprof-samples x86\n", "the first line"),
            ("dcprof-samples pebs D9m\n", "the first line"),
            ("dcprof-samples pebs\nheap:1+0x10 0x401000 17 r L1 1\n", "line 2: fewer fields"),
            ("dcprof-samples pebs\nheap:0+0x10 0x401000 17 r L1 1 0\n", "invalid address"),
            ("dcprof-samples pebs\nglobal:x+10 0x401000 17 r L1 1 0\n", "invalid address"),
            ("dcprof-samples pebs\n0x10 main+0x 17 r L1 1 0\n", "invalid IP"),
            ("dcprof-samples pebs\n0x10 0x401000 0 r L1 1 0\n", "invalid weight"),
            ("dcprof-samples pebs\n0x10 0x401000 1 x L1 1 0\n", "invalid op"),
            ("dcprof-samples spe\n0x10 0x401000 1 r L4 1 0\n", "invalid source 'L4'"),
            ("dcprof-samples pebs\n0x10 0x401000 1 r L1 0 0\n", "invalid thread"),
            ("dcprof-samples pebs\n0x10 0x401000 1 r L1 1 99999999999999999999\n",
             "invalid time"),
            ("dcprof-samples pebs\n0x10 0x401000 1 r L1 1 0 extra\n", "more fields"),
            ("dcprof-samples pebs\n0x10\0 0x401000 1 r L1 1 0\n", "NUL byte"),
        ]
        for i, (text, why) in enumerate(cases):
            path = self.path("bad%d.txt" % i)
            with open(path, "w") as f:
                f.write(text)
            db = self.path("bad%d.db" % i)
            r = record(db, ["/bin/true"], ["--engine=native", "--replay=" + path])
            self.assertEqual(r.returncode, 2, text)
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertIn(why, r.stderr)
            self.assertFalse(os.path.exists(db))

    def test_sample_log_needs_sample(self):
        r = record(self.path("x.db"), ["/bin/true"], ["--sample-log=x.txt"])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr.strip(), "dcprof record: --sample-log needs --sample")

    def test_sample_log_not_ip_only(self):
        r = record(self.path("x.db"), ["/bin/true"],
                   ["--sample=D1m:10", "--sample-ip-only", "--sample-log=x.txt"])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("--sample-log cannot be combined with --sample-ip-only", r.stderr)
        self.assertFalse(os.path.exists(self.path("x.db")))


def symbol(prog, name):
    """(offset, size) of function NAME in PROG's symbol table (nm -S)."""
    out = subprocess.run(["nm", "-S", prog], stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == name:
            return int(f[0], 16), int(f[1], 16)
    raise AssertionError("no symbol %s in %s" % (name, prog))


@unittest.skipUnless(perf_ok(), "perf_event_paranoid > 2: no software sampling")
class CpuClock(TmpDirTest):
    def test_hot_function(self):
        prog = workload("cpu_hot")
        db = self.path("cpu.db")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = record(db, [prog], ["--engine=native", "--event=cpu-clock"])
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.search(r"hot (0x[0-9a-f]+) cold (0x[0-9a-f]+)", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        off, size = symbol(prog, "hot")
        lo = int(m.group(1), 16)
        hi = lo + size
        rows = query(db, "SELECT l.ip, s.count FROM ip_sample s JOIN location l"
                     " ON l.id = s.location")
        total = sum(c for _, c in rows)
        in_hot = sum(c for ip, c in rows if lo <= ip < hi)
        self.assertEqual(meta(db, "sample_ip_only"), "1")
        self.assertEqual(meta(db, "sample_period"), "1000000")
        # hot() has 19/20 = 95 % of the CPU time (cpu_hot.c); a sample
        # period of 1 ms over ~0.5 s gives ~500 samples, so a majority is
        # certain unless the attribution is wrong
        self.assertGreater(in_hot, total / 2)
        self.assertGreater(in_hot, 0.8 * total)
        # COUNT is samples x period in ns: the program's CPU time.  The
        # children's rusage also holds dcprof's own (finalize, ~10 % of a
        # 0.5 s run), and the kernel starts the timer at the first tick,
        # so the sampled total lies between half and all of it.
        cpu_ns = ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e9
        self.assertLessEqual(total, cpu_ns * 1.05)
        self.assertGreaterEqual(total, cpu_ns * 0.5)
        # report --ip-samples reads it: hot() first, the header names the
        # event and its period in ns, and says the skid is the machine's
        out = run([DCPROF, "report", db, "--ip-samples", "--format", "json"])
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = json.loads(out.stdout)["rows"]
        self.assertEqual(rows[0]["function"], "hot")
        self.assertEqual(sum(r["events"] for r in rows), total)
        out = run([DCPROF, "report", db, "--ip-samples"])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"samples: +[0-9,]+ IP-only samples of cpu-clock, period"
                         r" 1,000,000 ns, skid of the hardware\n")


if __name__ == "__main__":
    unittest.main()
