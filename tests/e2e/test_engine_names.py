"""End-to-end tests of bucket naming cases: globals (file-statics with the
same name in two files, unique globals, globals of libc; workload globals.c
with parts/globals_b.c), C++ new/new[]/delete[] (workload cxx_new.cc) and a
block allocated by a library's constructor (ctor_alloc.c).
The expected numbers are derived in the workloads' header comments."""
import os
import re
import tempfile
import unittest

from test_engine_common import (CACHE_2, Recorded, buckets, json_row, marker_line, query,
                                record, report_json, totals, workload)


def global_stats(size):
    """Object statistics of a global of SIZE bytes: one block."""
    return {"kind": "global", "blocks": 1, "max_live_blocks": 1, "max_live_bytes": size,
            "total_bytes": size, "min_size": size, "max_size": size}


class Globals(Recorded):
    WORKLOAD = "globals"
    OPTS = (CACHE_2,)

    SIZES = {"counts (globals.c)": 8000, "counts (globals_b.c)": 2400, "only_here": 128,
             "a_table": 1024, "b_table": 512}

    def test_bucket_names(self):
        b = buckets(self.db)
        for name in self.SIZES:
            self.assertIn(name, b, sorted(n for n in b if "@" not in n))
            self.assertEqual(b[name]["kind"], "global", name)
        # the non-unique file-static never appears without its file
        self.assertNotIn("counts", b)

    def test_global_stats(self):
        b = buckets(self.db)
        for name, size in self.SIZES.items():
            self.assertEqual(b[name], global_stats(size), name)

    def test_same_name_statics_apart(self):
        t = totals(self.db, bucket="counts (globals.c)", function="fill_a")
        self.assertCounts(t, {"Dw": 1000, "Dr": 0}, "fill_a -> counts (globals.c)")
        t = totals(self.db, bucket="counts (globals.c)", function="sum_a")
        self.assertCounts(t, {"Dr": 3000, "Dw": 0}, "sum_a -> counts (globals.c)")
        t = totals(self.db, bucket="counts (globals_b.c)", function="fill_b")
        self.assertCounts(t, {"Dw": 300, "Dr": 0}, "fill_b -> counts (globals_b.c)")
        t = totals(self.db, bucket="counts (globals_b.c)", function="sum_b")
        self.assertCounts(t, {"Dr": 900, "Dw": 0}, "sum_b -> counts (globals_b.c)")
        # no access of one file lands in the other file's array
        self.assertCounts(totals(self.db, bucket="counts (globals.c)"),
                          {"Dr": 3000, "Dw": 1000}, "counts (globals.c), all functions")
        self.assertCounts(totals(self.db, bucket="counts (globals_b.c)"),
                          {"Dr": 900, "Dw": 300}, "counts (globals_b.c), all functions")

    def test_unique_names(self):
        self.assertCounts(totals(self.db, bucket="only_here", function="fill_only"),
                          {"Dw": 16, "Dr": 0}, "fill_only -> only_here")
        self.assertCounts(totals(self.db, bucket="a_table", function="touch_a_table"),
                          {"Dw": 128, "Dr": 128}, "touch_a_table -> a_table")
        self.assertCounts(totals(self.db, bucket="b_table", function="touch_b_table"),
                          {"Dw": 64, "Dr": 0}, "touch_b_table -> b_table")

    def test_libc_global(self):
        b = buckets(self.db)
        self.assertIn("optind@libc.so.6", b, sorted(n for n in b if "libc" in n))
        self.assertEqual(b["optind@libc.so.6"], global_stats(4))
        # the program has no copy of its own (it took the address with dlsym)
        self.assertNotIn("optind", b)
        self.assertCounts(totals(self.db, bucket="optind@libc.so.6", function="read_optind"),
                          {"Dr": 3, "Dw": 0}, "read_optind -> optind@libc.so.6")

    def test_libc_global_read_by_libc(self):
        b = buckets(self.db)
        self.assertIn("environ@libc.so.6", b, sorted(n for n in b if "libc" in n))
        self.assertEqual(b["environ@libc.so.6"]["kind"], "global")
        self.assertGreaterEqual(totals(self.db, bucket="environ@libc.so.6",
                                       function="getenv")["Dr"], 1)
        # the aliases of the same 8 bytes get nothing
        for alias in ("_environ@libc.so.6", "__environ@libc.so.6"):
            t = totals(self.db, bucket=alias)
            self.assertEqual(t["Dr"] + t["Dw"], 0, (alias, t))

    def test_report_stats_json(self):
        doc = report_json(self.db, "--stats")
        row = json_row(doc, "counts (globals_b.c)", "blocks")
        self.assertEqual((int(row["blocks"]), int(row["total_bytes"])), (1, 2400), row)


def strip_params(name):
    """make_nodes()-main -> make_nodes-main, fill(long*, long) -> fill."""
    return re.sub(r"\([^()]*\)", "", name)


class CxxNew(Recorded):
    WORKLOAD = "cxx_new"
    OPTS = (CACHE_2,)

    def heap(self):
        """Heap buckets of blocks (not <malloc>, the allocator's own)."""
        return {n: v for n, v in buckets(self.db).items()
                if v["kind"] == "heap" and n != "<malloc>"}

    def bucket_name(self, want):
        """The heap bucket named WANT.  The name itself is checked by
        test_bucket_names; the other tests look past C++ parameter lists in
        names so that they check the statistics and accesses on their own."""
        h = self.heap()
        if want in h:
            return want
        hits = [n for n in h if strip_params(n) == want]
        self.assertEqual(len(hits), 1, "no heap bucket %s: %s" % (want, sorted(h)))
        return hits[0]

    def fn_totals(self, bucket, fn):
        """Dr, Dw of BUCKET from function FN (C++ parameter lists ignored)."""
        rows = query(self.db, "SELECT l.function, SUM(c.Dr), SUM(c.Dw) FROM cost c"
                     " JOIN bucket b ON b.id = c.bucket JOIN location l ON l.id = c.location"
                     " WHERE b.name = ? GROUP BY l.function", bucket)
        dr = sum(r[1] for r in rows if strip_params(r[0] or "") == fn)
        dw = sum(r[2] for r in rows if strip_params(r[0] or "") == fn)
        return {"Dr": dr, "Dw": dw}

    def site(self, fn, tag, *callers):
        return "%s (cxx_new.cc:%d)" % (fn, marker_line("cxx_new.cc", tag)) + \
            "".join(" < " + c for c in callers)

    def test_bucket_names(self):
        # docs/engine.md: from the first frame above the allocator, with
        # the file and line of its call, joined by " < "
        names = set(self.heap())
        for tag in ("SITE:nodes", "SITE:tmp", "SITE:table50"):
            self.assertIn(self.site("make_nodes", tag, "main"), names, sorted(names))
        self.assertIn(self.site("make_table", "SITE:big", "main"), names, sorted(names))

    def test_allocator_frames_skipped(self):
        for n in self.heap():
            for frame in ("operator new", "_Znwm", "_Znam", "malloc"):
                self.assertNotIn(frame, n)
        # free_nodes() allocates nothing
        self.assertFalse([n for n in self.heap() if "free_nodes" in n])

    def test_make_nodes_stats(self):
        b = buckets(self.db)
        self.assertEqual(b[self.site("make_nodes", "SITE:nodes", "main")],
                         {"kind": "heap", "blocks": 20, "max_live_blocks": 20,
                          "max_live_bytes": 320, "total_bytes": 320,
                          "min_size": 16, "max_size": 16})
        for tag, size in (("SITE:tmp", 800), ("SITE:table50", 400)):
            self.assertEqual(b[self.site("make_nodes", tag, "main")],
                             {"kind": "heap", "blocks": 1, "max_live_blocks": 1,
                              "max_live_bytes": size, "total_bytes": size,
                              "min_size": size, "max_size": size})

    def test_const_member_function(self):
        # "Maker::make() const" names its blocks without parameters or const
        hits = [n for n in self.heap() if n.startswith("Maker::make (cxx_new.cc:")]
        self.assertEqual(len(hits), 1, sorted(self.heap()))
        self.assertTrue(hits[0].endswith(") < main"), hits[0])
        b = buckets(self.db)[hits[0]]
        self.assertEqual((b["blocks"], b["total_bytes"]), (1, 32))

    def test_make_table_stats(self):
        b = buckets(self.db)[self.site("make_table", "SITE:big", "main")]
        self.assertEqual(b, {"kind": "heap", "blocks": 1, "max_live_blocks": 1,
                             "max_live_bytes": 2048, "total_bytes": 2048,
                             "min_size": 2048, "max_size": 2048})

    def test_accesses(self):
        nodes = self.site("make_nodes", "SITE:nodes", "main")
        self.assertEqual(self.fn_totals(nodes, "make_nodes"), {"Dr": 0, "Dw": 40})
        # free_nodes() reads each node's next before deleting it
        self.assertEqual(self.fn_totals(nodes, "free_nodes"), {"Dr": 20, "Dw": 0})
        tmp = self.site("make_nodes", "SITE:tmp", "main")
        self.assertEqual(self.fn_totals(tmp, "fill"), {"Dr": 0, "Dw": 100})
        self.assertEqual(self.fn_totals(tmp, "sum"), {"Dr": 100, "Dw": 0})
        t50 = self.site("make_nodes", "SITE:table50", "main")
        self.assertEqual(self.fn_totals(t50, "fill"), {"Dr": 0, "Dw": 50})
        table = self.site("make_table", "SITE:big", "main")
        self.assertEqual(self.fn_totals(table, "fill"), {"Dr": 0, "Dw": 256})

    def test_block_records(self):
        # the 20 nodes (delete) and the 800-byte array (delete[]) are freed
        rows = query(self.db, "SELECT COUNT(*), COUNT(free_seq) FROM block k"
                     " JOIN bucket b ON b.id = k.bucket WHERE b.name = ?",
                     self.site("make_nodes", "SITE:nodes", "main"))
        self.assertEqual(rows, [(20, 20)])
        rows = query(self.db, "SELECT COUNT(*), COUNT(free_seq) FROM block k"
                     " JOIN bucket b ON b.id = k.bucket WHERE b.name = ?",
                     self.site("make_nodes", "SITE:tmp", "main"))
        self.assertEqual(rows, [(1, 1)])
        rows = query(self.db, "SELECT k.size, k.free_seq FROM block k JOIN bucket b"
                     " ON b.id = k.bucket WHERE b.name = ?",
                     self.site("make_nodes", "SITE:table50", "main"))
        self.assertEqual(rows, [(400, None)])



class ConstructorBlock(unittest.TestCase):
    """A block a library's constructor allocates before main (ctor_alloc.c):
    its call path ends at ld.so's entry, whatever the program's arguments.
    Valgrind's unwinder read argc - 1 and argv's pointers below the entry
    as return addresses, and the name grew "< 0x3 < 0x1fff00096a ..."
    (Open MPI's and LULESH's start-up blocks, different per rank)."""

    def names(self, args):
        with tempfile.TemporaryDirectory(prefix="dcprof-ctor-") as d:
            db = os.path.join(d, "p.db")
            r = record(db, [workload("ctor_alloc")] + args, ("--heap-names=site",))
            self.assertEqual(r.returncode, 0, r.stderr)
            b = buckets(db)
        return {n: s for n, s in b.items() if s["kind"] == "heap" and n != "<malloc>"}

    def test_path_ends_at_the_entry(self):
        start = "ctor_init (ctor_alloc_lib.c:%d)" % marker_line("parts/ctor_alloc_lib.c",
                                                                 "SITE:ctor")
        few, many = self.names([]), self.names(["x", "yy", "zzz", "a" * 200])
        # the same buckets with two argument lists: no frame from argc/argv
        self.assertEqual(sorted(few), sorted(many))
        ctor = [n for n in many if n.startswith(start + " < ")]
        self.assertEqual(len(ctor), 1, sorted(many))
        self.assertEqual((many[ctor[0]]["blocks"], many[ctor[0]]["total_bytes"]), (1, 3000))
        # no frame of any heap name is a bare address (code in no object)
        for n in many:
            self.assertNotRegex(n, r"(^| < )0x[0-9a-f]+( |$)", n)


if __name__ == "__main__":
    unittest.main()
