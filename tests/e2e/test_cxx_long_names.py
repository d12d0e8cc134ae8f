"""C++ names longer than 255 bytes, and C++ globals, read as the demangler
writes them (docs/engine.md, "Data objects and buckets", "Code
locations"): a kd-tree library's member functions of a class template
instantiated with templates are that long, and were cut at 255 bytes in
inlined_into and in heap bucket names; globals kept their mangled symbol
names ("_ZSt4cout").  Expected names come from binutils (nm, c++filt) on
the workload, counts from tests/workloads/cxx_long_names.cc."""
import subprocess

from harness import DCPROF, run
from test_engine_common import (WORKLOAD_SRC, Recorded, buckets, marker_line, query, totals,
                                workload)


def demangled(prog, member):
    """c++filt's name of the one symbol of prog whose mangled name has
    member (a length-prefixed identifier, "4grow")."""
    syms = subprocess.run(["nm", prog], capture_output=True, text=True, check=True).stdout
    mangled = [l.split()[-1] for l in syms.splitlines() if member in l.split()[-1]]
    assert len(mangled) == 1, mangled
    return subprocess.run(["c++filt", mangled[0]], capture_output=True, text=True,
                          check=True).stdout.strip()


class CxxLongNames(Recorded):
    WORKLOAD = "cxx_long_names"

    def test_inlined_into_whole(self):
        # sum_row is inlined into Tree::sum(int), whose name is ~350 bytes
        want = demangled(workload(self.WORKLOAD), "3sumEi")
        self.assertGreater(len(want), 255)
        got = query(self.db, "SELECT DISTINCT inlined_into FROM location"
                    " WHERE function = 'sum_row'")
        self.assertEqual(got, [(want,)])

    def test_heap_bucket_whole(self):
        # grow's block: the bare name (no "(int)") with new[]'s line, < main
        fn = demangled(workload(self.WORKLOAD), "4growEi")
        self.assertTrue(fn.endswith("::grow(int)"), fn)
        src = WORKLOAD_SRC + "/cxx_long_names.cc"
        name = "%s (cxx_long_names.cc:%d) < main" % (fn[:-len("(int)")],
                                                     marker_line(src, "SITE:grow"))
        h = {n: b for n, b in buckets(self.db).items() if b["kind"] == "heap"}
        self.assertIn(name, set(h), "heap buckets")
        # one block of 64 doubles
        self.assertEqual((h[name]["blocks"], h[name]["total_bytes"]), (1, 64 * 8))

    def test_globals_demangled(self):
        b = buckets(self.db)
        calls = demangled(workload(self.WORKLOAD), "5callsE")
        for name in ("geo::table", calls):
            self.assertIn(name, {n for n in b if "::" in n})
            self.assertEqual(b[name]["kind"], "global")
        self.assertFalse([n for n in b if n.startswith("_Z")][:5], "mangled globals left")
        # sum_row reads table[i] once for i < 512 (an in-order FP sum)
        self.assertEqual(totals(self.db, bucket="geo::table", function="sum_row")["Dr"], 512)
        # --object takes the demangled name
        r = run([DCPROF, "report", self.db, "--object", "geo::table", "--by", "function"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("sum_row", r.stdout)
