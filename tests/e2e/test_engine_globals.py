"""End-to-end tests of globals wherever the loader puts them (a .bss alone in
a segment without file bytes, .data.rel.ro, .rodata, a shared library's
.bss; PIE and not; workload globals_aligned.c) and of thread-local variables
(__thread of the program, of a library and of libc, C++ thread_local, in
two threads; workloads tls_threads.c and tls_cxx.cc).  The expected numbers
are derived in the workloads' header comments."""
import csv
import io
import re
import subprocess
import unittest

from harness import DCPROF
from test_engine_common import CACHE_2, Recorded, buckets, query, run, totals, workload


def global_stats(size, blocks=1):
    """Object statistics of BLOCKS copies of SIZE bytes, all alive at once."""
    return {"kind": "global", "blocks": blocks, "max_live_blocks": blocks,
            "max_live_bytes": blocks * size, "total_bytes": blocks * size,
            "min_size": size, "max_size": size}


def object_totals(db, bucket, obj, thread=None):
    """Dr, Dw of BUCKET made by instructions of the ELF object OBJ (a path):
    what the program's own code did, without ld.so relocating or libc
    filling."""
    sql = ("SELECT COALESCE(SUM(c.Dr), 0), COALESCE(SUM(c.Dw), 0) FROM cost c"
           " JOIN bucket b ON b.id = c.bucket JOIN location l ON l.id = c.location"
           " WHERE b.name = ? AND l.object = ?")
    args = [bucket, obj]
    if thread is not None:
        sql += " AND c.thread = ?"
        args.append(thread)
    dr, dw = query(db, sql, *args)[0]
    return {"Dr": dr, "Dw": dw}


def section_of(path, symbol):
    """The name of the section holding SYMBOL in the ELF file PATH."""
    names = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", run(["readelf", "-SW", path]).stdout, re.M):
        names[m.group(1)] = m.group(2)
    m = re.search(r"^\s*\d+:\s+[0-9a-f]+\s+\d+\s+\S+\s+\S+\s+\S+\s+(\d+)\s+%s$" % re.escape(symbol),
                  run(["readelf", "-sW", path]).stdout, re.M)
    return names.get(m.group(1)) if m else None


def bss_alone(path):
    """Is .bss in a PT_LOAD segment without file bytes?"""
    m = re.search(r"\.bss\s+NOBITS\s+([0-9a-f]+)", run(["readelf", "-SW", path]).stdout)
    bss = int(m.group(1), 16)
    for seg in re.finditer(r"^\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+"
                           r"(0x[0-9a-f]+)\s+(0x[0-9a-f]+)",
                           run(["readelf", "-lW", path]).stdout, re.M):
        vaddr, filesz, memsz = (int(seg.group(i), 16) for i in (2, 3, 4))
        if vaddr <= bss < vaddr + memsz:
            return filesz == 0
    return False


class GlobalsAligned(Recorded):
    """globals_aligned.c as a PIE: ptrs is in .data.rel.ro."""
    WORKLOAD = "globals_aligned"
    OPTS = (CACHE_2,)
    PTRS_SECTION = ".data.rel.ro"
    BIG = ["big%d" % k for k in range(9)]
    LIB = "lib_big@libglobals_aligned.so"

    def test_aligned_bss_arrays_are_named(self):
        # the workload is laid out as its comment says, and ran as derived
        exe = workload(self.WORKLOAD)
        self.assertTrue(bss_alone(exe), "the program's .bss should be a segment of its own")
        self.assertEqual(section_of(exe, "big0"), ".bss")
        self.assertIn("3981120", self.rec.stdout)
        b = buckets(self.db)
        for name in self.BIG:
            self.assertIn(name, b, sorted(n for n in b if "@" not in n))
            self.assertEqual(b[name], global_stats(4096), name)
            self.assertCounts(totals(self.db, bucket=name), {"Dw": 512, "Dr": 1536}, name)

    def test_program_touches_nothing_unknown(self):
        t = object_totals(self.db, "<unknown>", workload(self.WORKLOAD))
        self.assertEqual(t, {"Dr": 0, "Dw": 0})

    def test_constant_tables(self):
        exe = workload(self.WORKLOAD)
        self.assertEqual(section_of(exe, "ptrs"), self.PTRS_SECTION)
        self.assertEqual(section_of(exe, "table"), ".rodata")
        b = buckets(self.db)
        self.assertEqual(b.get("table"), global_stats(512))
        self.assertEqual(b.get("ptrs"), global_stats(72))
        self.assertCounts(totals(self.db, bucket="table"), {"Dr": 192, "Dw": 0}, "table")
        # (ld.so writes ptrs' relocated values in a PIE: only the program's
        # own accesses are derived)
        self.assertEqual(object_totals(self.db, "ptrs", workload(self.WORKLOAD)),
                         {"Dr": 36, "Dw": 0})

    def test_copy_of_a_versioned_symbol(self):
        """The program's copy of libc's stdout: .symtab names it
        stdout@GLIBC_2.2.5, the bucket is named as the source names it."""
        exe = workload(self.WORKLOAD)
        syms = subprocess.run(["readelf", "-sW", exe], capture_output=True, text=True).stdout
        self.assertRegex(syms, r" stdout@@?GLIBC_[\d.]+\n")
        b = buckets(self.db)
        self.assertEqual(b.get("stdout"), global_stats(8), sorted(n for n in b if "stdout" in n))
        self.assertFalse([n for n in b if "@GLIBC" in n])
        self.assertEqual(object_totals(self.db, "stdout", exe), {"Dr": 1, "Dw": 0})

    def test_library_bss_global(self):
        lib = workload("libglobals_aligned.so")
        self.assertTrue(bss_alone(lib), "the library's .bss should be a segment of its own")
        self.assertEqual(section_of(lib, "lib_big"), ".bss")
        b = buckets(self.db)
        self.assertIn(self.LIB, b, sorted(n for n in b if "libglobals" in n))
        self.assertEqual(b[self.LIB], global_stats(4096))
        self.assertCounts(totals(self.db, bucket=self.LIB), {"Dw": 512, "Dr": 1536}, self.LIB)


class GlobalsAlignedNoPie(GlobalsAligned):
    """The same program linked -no-pie: ptrs needs no relocation, .rodata."""
    WORKLOAD = "globals_aligned_nopie"
    PTRS_SECTION = ".rodata"


class TlsThreads(Recorded):
    WORKLOAD = "tls_threads"
    OPTS = (CACHE_2,)

    def test_program_tls_per_thread(self):
        self.assertIn("658184", self.rec.stdout)
        self.assertCounts(totals(self.db, bucket="tls_arr", thread=2),
                          {"Dw": 512, "Dr": 1024}, "tls_arr, tid 2")
        self.assertCounts(totals(self.db, bucket="tls_arr", thread=3),
                          {"Dw": 512, "Dr": 1536}, "tls_arr, tid 3")
        self.assertCounts(totals(self.db, bucket="tls_arr", function="work"),
                          {"Dw": 1024, "Dr": 2560}, "tls_arr from work, both threads")
        for tid in (2, 3):
            self.assertCounts(totals(self.db, bucket="tls_seed", thread=tid),
                              {"Dw": 0, "Dr": 8}, "tls_seed, tid %d" % tid)

    def test_library_tls(self):
        for tid in (2, 3):
            self.assertCounts(totals(self.db, bucket="lib_tls@libtls_threads.so", thread=tid),
                              {"Dw": 64, "Dr": 64}, "lib_tls, tid %d" % tid)

    def test_libc_errno(self):
        for tid in (2, 3):
            self.assertCounts(totals(self.db, bucket="errno@libc.so.6", function="work",
                                     thread=tid), {"Dw": 1, "Dr": 0}, "errno, tid %d" % tid)

    def test_one_block_per_thread(self):
        b = buckets(self.db)
        self.assertEqual(b.get("tls_arr"), global_stats(4096, 3))
        self.assertEqual(b.get("tls_seed"), global_stats(64, 3))
        self.assertEqual(b.get("lib_tls@libtls_threads.so"), global_stats(512, 3))

    def test_report_thread_splits(self):
        r = run([DCPROF, "report", self.db, "--object", "tls_arr", "--by", "object",
                 "--thread", "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        got = {int(row["thread"]): (int(row["Dr"]), int(row["Dw"]))
               for row in csv.DictReader(io.StringIO(r.stdout)) if row["bucket"] == "tls_arr"}
        self.assertEqual(got.get(2), (1024, 512), got)
        self.assertEqual(got.get(3), (1536, 512), got)


class TlsCxx(Recorded):
    WORKLOAD = "tls_cxx"
    OPTS = (CACHE_2,)

    def test_thread_local_per_thread(self):
        self.assertIn("2618880", self.rec.stdout)
        self.assertCounts(totals(self.db, bucket="tl_hist", thread=2),
                          {"Dw": 1024, "Dr": 2048}, "tl_hist, tid 2")
        self.assertCounts(totals(self.db, bucket="tl_hist", thread=3),
                          {"Dw": 1024, "Dr": 3072}, "tl_hist, tid 3")
        rows = query(self.db, "SELECT l.function, SUM(c.Dr), SUM(c.Dw) FROM cost c"
                     " JOIN bucket b ON b.id = c.bucket JOIN location l ON l.id = c.location"
                     " WHERE b.name = 'tl_hist' AND l.function LIKE 'Worker::run%'"
                     " GROUP BY l.function")
        self.assertEqual([r[1:] for r in rows], [(5120, 2048)], rows)

    def test_one_block_per_thread(self):
        self.assertEqual(buckets(self.db).get("tl_hist"), global_stats(8192, 3))


if __name__ == "__main__":
    unittest.main()
