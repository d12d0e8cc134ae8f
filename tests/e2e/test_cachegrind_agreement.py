"""Agreement with Cachegrind: the engine runs the program exactly as
`valgrind --tool=cachegrind --cache-sim=yes` does — no preload, the
program's own malloc — and simulates instruction fetches through an I1
(the host's, as Cachegrind's) into the last level, so with the same D1 and
LL the profile's totals of instructions (meta Ir), data reads, data
writes, D1 misses and LL misses must equal Cachegrind's summary line for
the same binary:
  * default mode, `--cache=L1=32K:8:64,L2=8M:16:64` against Cachegrind's
    `--D1=32768,8,64 --LL=8388608,16,64` (explicit, so nothing depends on
    the host but the I1, which both take from it);
  * `--cachegrind-compat` against Cachegrind's own choice on this host
    (D1, and an LL whose set count Cachegrind rounds to a power of two).

They must be exactly equal.  Cachegrind is run with VALGRIND_LIB pointing
at dcprof's engine directory (it holds links to every file of Valgrind's,
cachegrind's tool included), and both get the same environment (no `_`,
OMP_WAIT_POLICY set), so both programs start with byte-identical
environments: the same VALGRIND_LIB and LD_PRELOAD strings, hence the same
ld.so start-up work and the same initial stack.  Run without that,
Cachegrind's numbers differ by a few hundred reads of ld.so start-up.
The cg_* workloads make millions of reads and writes and hundreds of
thousands of misses of their own; cg_malloc makes 1M blocks with glibc's
malloc, cg_cxx is an optimized C++ program with containers and iostreams."""
import os
import shutil
import tempfile
import unittest

from test_engine_common import (buckets, grand_totals, meta, query, record, run, totals,
                                workload)

# dcprof record sets OMP_WAIT_POLICY=passive unless it is set; setting it
# for both runs keeps the program's environment the same under both tools.
# A shell's "_" (the last command) would differ between them.
SAME_ENV = dict({k: v for k, v in os.environ.items() if k != "_"}, OMP_WAIT_POLICY="passive")
ENGINE_LIB = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "build", "lib", "dcprof")
# Default mode's hierarchy, and the same as Cachegrind's options.
DC_CACHE = "--cache=L1=32K:8:64,L2=8M:16:64"
CG_CACHE = ["--D1=32768,8,64", "--LL=8388608,16,64"]


def cachegrind(prog, out, opts=()):
    """Run Cachegrind; return ({event: total}, {'D1': (size, assoc, line),
    'LL': ...}) from its output file."""
    r = run(["valgrind", "--tool=cachegrind", "--cache-sim=yes",
             "--cachegrind-out-file=" + out] + list(opts) + [prog],
            env=dict(SAME_ENV, VALGRIND_LIB=os.path.realpath(ENGINE_LIB)))
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

    def compare(self, name, compat=True, dc_cache=DC_CACHE, cg_cache=CG_CACHE, same_ll=True):
        """Totals of dcprof and Cachegrind on workload name: with
        --cachegrind-compat against Cachegrind's own hierarchy, or in the
        default mode with dc_cache against cg_cache."""
        prog = workload(name)
        cg, desc = cachegrind(prog, os.path.join(self.tmp, "cg.out"),
                              () if compat else cg_cache)
        db = os.path.join(self.tmp, "p.db")
        r = record(db, [prog], ["--cachegrind-compat"] if compat else [dc_cache], env=SAME_ENV)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = meta(db)
        self.assertEqual(m.get("cache_source"), "cachegrind-compat" if compat else "option", m)
        levels = query(db, "SELECT level, size, assoc, line_size FROM level ORDER BY level")
        self.assertEqual(len(levels), 2, "D1 + LL: %s" % levels)
        self.assertEqual(tuple(levels[0][1:]), desc["D1"], "D1: profile vs cachegrind")
        if same_ll:
            self.assertEqual(tuple(levels[1][1:]), desc["LL"], "LL: profile vs cachegrind")
        self.assertEqual(parse_level(m["I1"]), desc["I1"], "I1: profile vs cachegrind")

        t = grand_totals(db)
        ours = {"Ir": int(m["Ir"]), "Dr": t["Dr"], "Dw": t["Dw"], "D1m": t["D1mr"] + t["D1mw"],
                "DLm": t["D2mr"] + t["D2mw"]}
        theirs = {"Ir": cg["Ir"], "Dr": cg["Dr"], "Dw": cg["Dw"], "D1m": cg["D1mr"] + cg["D1mw"],
                  "DLm": cg["DLmr"] + cg["DLmw"]}
        self.assertEqual(ours, theirs, "dcprof vs cachegrind totals for " + name)
        # the workload's own code makes the bulk of the accesses
        self.assertGreater(theirs["Dr"] + theirs["Dw"], 1000000)
        return db

    def test_stream(self):
        self.compare("cg_stream")
        self.compare("cg_stream", compat=False)

    def test_transpose(self):
        self.compare("cg_transpose")
        self.compare("cg_transpose", compat=False)

    def test_chase(self):
        self.compare("cg_chase")
        self.compare("cg_chase", compat=False)

    def test_matmul(self):
        self.compare("cg_matmul")
        self.compare("cg_matmul", compat=False)

    def test_histogram_modify(self):
        self.compare("cg_histogram")
        self.compare("cg_histogram", compat=False)

    def test_libc_copy_wide_accesses(self):
        self.compare("cg_copy")
        self.compare("cg_copy", compat=False)

    def test_cxx(self):
        self.compare("cg_cxx", compat=False)

    def test_ll_sets_not_a_power_of_two(self):
        """A 30 MiB 20-way LL (24,576 sets, block mod sets) is simulated.
        cg_stream touches 16 MiB of contiguous lines plus a few thousand
        others: at most 11 lines of the array per set and no set overflows,
        so every LL miss is a first touch, as in Cachegrind's 32 MiB 16-way
        LL (8 lines of the array per set), whose totals it must equal."""
        db = self.compare("cg_stream", compat=False, dc_cache="--cache=L1=32K:8:64,L2=30M:20:64",
                          cg_cache=["--D1=32768,8,64", "--LL=33554432,16,64"], same_ll=False)
        self.assertEqual(query(db, "SELECT size, assoc FROM level WHERE level = 2")[0],
                         (30 << 20, 20))

    def test_malloc_heavy_equal_and_attributed(self):
        """1M blocks from glibc's malloc: equal totals, and the blocks are
        attributed (cg_malloc.c's header: the node bucket gets 2 reads per
        chase step from chase() and 2 writes per node from make_nodes());
        the allocator's own accesses are <malloc>'s."""
        db = self.compare("cg_malloc", compat=False)
        nodes = "make_nodes (cg_malloc.c:41) < main"
        b = buckets(db)
        self.assertEqual(b[nodes]["blocks"], 1 << 20)
        self.assertEqual(b[nodes]["min_size"], 24)
        self.assertEqual(b[nodes]["max_live_blocks"], 1 << 20)
        # GCC may name the function chase.constprop.0
        self.assertEqual(query(db, "SELECT SUM(c.Dr) FROM cost c JOIN bucket b ON b.id = c.bucket"
                               " JOIN location l ON l.id = c.location"
                               " WHERE b.name = ? AND l.function LIKE 'chase%'", nodes)[0][0],
                         2 << 20)
        self.assertEqual(totals(db, bucket=nodes, function="make_nodes")["Dw"], 2 << 20)
        # 1M malloc and 1M free calls: the allocator reads its bins and
        # chunk headers at every one of them
        self.assertGreater(totals(db, bucket="<malloc>")["Dr"], 2 << 20)
        self.assertEqual(b["<malloc>"]["kind"], "heap")


if __name__ == "__main__":
    unittest.main()
