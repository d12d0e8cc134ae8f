"""Agreement with Cachegrind: `dcprof record --cachegrind-compat` simulates
the same I1, D1 and LL that `valgrind --tool=cachegrind --cache-sim=yes`
uses on this host, so the profile's totals of data reads, data writes, D1
misses and LL misses must equal Cachegrind's summary line for the same
binary (and the engine's meta Ir its instruction count).

They must be exactly equal.  Two things make that possible:
  * --cachegrind-compat runs from build/lib/dcprof-compat, which lacks the
    malloc-replacement preload, so the program's own malloc runs, as under
    Cachegrind, and ld.so maps no extra object.
  * Cachegrind is run here with VALGRIND_LIB pointing at that same
    directory (it holds links to every file of Valgrind's, cachegrind's
    tool included), so both programs start with byte-identical
    environments: the same VALGRIND_LIB and LD_PRELOAD strings, hence the
    same ld.so start-up work and the same initial stack.
Run without that, Cachegrind's numbers differ by a constant ~200 reads and
~16 writes of ld.so start-up; that is the only known source of difference.
The cg_* workloads make millions of reads and writes and hundreds of
thousands of misses of their own."""
import os
import shutil
import tempfile
import unittest

from test_engine_common import grand_totals, meta, query, record, run, workload

# dcprof record sets OMP_WAIT_POLICY=passive unless it is set; setting it
# for both runs keeps the program's environment the same under both tools.
SAME_ENV = dict(os.environ, OMP_WAIT_POLICY="passive")
COMPAT_LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "build", "lib", "dcprof-compat")
WORKLOADS = ["cg_stream", "cg_transpose", "cg_chase", "cg_matmul", "cg_histogram",
             "cg_copy"]


def cachegrind(prog, out):
    """Run Cachegrind; return ({event: total}, {'D1': (size, assoc, line),
    'LL': ...}) from its output file."""
    r = run(["valgrind", "--tool=cachegrind", "--cache-sim=yes",
             "--cachegrind-out-file=" + out, prog],
            env=dict(SAME_ENV, VALGRIND_LIB=os.path.realpath(COMPAT_LIB)))
    if r.returncode != 0:
        raise AssertionError("cachegrind failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    events, summary, desc = None, None, {}
    with open(out) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("summary:"):
                summary = [int(x) for x in line.split()[1:]]
            elif line.startswith("desc:"):
                # desc: D1 cache:         49152 B, 64 B, 12-way associative
                parts = line.split(":", 2)
                name = parts[1].strip().split()[0]
                f3 = parts[2].replace(",", " ").split()
                size, lsz = int(f3[0]), int(f3[2])
                # "8-way associative", "direct-mapped" or "fully associative"
                if "fully" in line:
                    assoc = 0
                elif "direct-mapped" in line:
                    assoc = 1
                else:
                    assoc = int(f3[4].split("-")[0])
                desc[name] = (size, assoc, lsz)
    if not events or summary is None:
        raise AssertionError("no events/summary line in %s" % out)
    return dict(zip(events, summary)), desc


def parse_level(text):
    """'32K:8:64' -> (32768, 8, 64)"""
    size, assoc, line = text.split(":")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(size[-1:].upper(), 1)
    return (int(size.rstrip("KkMmGg")) * mult, int(assoc), int(line))


class Agreement(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-cg-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def compare(self, name):
        prog = workload(name)
        cg, desc = cachegrind(prog, os.path.join(self.tmp, "cg.out"))
        db = os.path.join(self.tmp, "p.db")
        r = record(db, [prog], ["--cachegrind-compat"], env=SAME_ENV)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = meta(db)
        self.assertEqual(m.get("cache_source"), "cachegrind-compat", m)
        levels = query(db, "SELECT level, size, assoc, line_size FROM level ORDER BY level")
        self.assertEqual(len(levels), 2, "compat hierarchy must be D1 + LL: %s" % levels)
        self.assertEqual(tuple(levels[0][1:]), desc["D1"], "D1: profile vs cachegrind")
        self.assertEqual(tuple(levels[1][1:]), desc["LL"], "LL: profile vs cachegrind")

        self.assertIn("compat_I1", m)
        self.assertEqual(parse_level(m["compat_I1"]), desc["I1"], "I1: profile vs cachegrind")

        t = grand_totals(db)
        ours = {"Dr": t["Dr"], "Dw": t["Dw"], "D1m": t["D1mr"] + t["D1mw"],
                "DLm": t["D2mr"] + t["D2mw"]}
        theirs = {"Dr": cg["Dr"], "Dw": cg["Dw"], "D1m": cg["D1mr"] + cg["D1mw"],
                  "DLm": cg["DLmr"] + cg["DLmw"]}
        if "Ir" in m:
            ours["Ir"] = int(m["Ir"])
            theirs["Ir"] = cg["Ir"]
        self.assertEqual(ours, theirs, "dcprof vs cachegrind totals for " + name)
        # the workload's own code makes the bulk of the accesses
        self.assertGreater(theirs["Dr"] + theirs["Dw"], 1000000)

    def test_stream(self):
        self.compare("cg_stream")

    def test_transpose(self):
        self.compare("cg_transpose")

    def test_chase(self):
        self.compare("cg_chase")

    def test_matmul(self):
        self.compare("cg_matmul")

    def test_histogram_modify(self):
        self.compare("cg_histogram")

    def test_libc_copy_wide_accesses(self):
        self.compare("cg_copy")


if __name__ == "__main__":
    unittest.main()
