"""End-to-end tests of heap and user buckets: naming by allocation path,
--heap-names, --alloc-fn, realloc, freed blocks, block statistics, the
dcprof.h client requests (workloads heap_names.c and user_named.c)."""
import os
import unittest

from test_engine_common import (CACHE_2, Recorded, buckets, json_row, marker_line,
                                query, report_json, run, totals, workload)


def heap_names(db):
    return {n for n, b in buckets(db).items() if b["kind"] == "heap"}


class HeapDefault(Recorded):
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2,)

    def test_bucket_names(self):
        names = heap_names(self.db)
        for n in ("mem_init-main", "c-b-a", "safe_malloc-build_list-main",
                  "make_zeroed-main", "aligned_blocks-main", "reuse_a-main",
                  "reuse_b-main"):
            self.assertIn(n, names)
        # realloc keeps the bucket: no bucket named after realloc's caller
        self.assertNotIn("main", names)
        # never past main
        self.assertFalse([n for n in names if "__libc_start" in n or "_start" in n], names)

    def test_mem_init_stats(self):
        b = buckets(self.db)["mem_init-main"]
        self.assertEqual(b, {"kind": "heap", "blocks": 101, "max_live_blocks": 71,
                             "max_live_bytes": 2680, "total_bytes": 3400,
                             "min_size": 24, "max_size": 1000})

    def test_mem_init_accesses(self):
        t = totals(self.db, bucket="mem_init-main", function="mem_init")
        self.assertCounts(t, {"Dw": 425, "Dr": 0}, "mem_init -> mem_init-main")
        t = totals(self.db, bucket="mem_init-main", function="walk")
        self.assertCounts(t, {"Dr": 210, "Dw": 0}, "walk -> mem_init-main")

    def test_realloc_keeps_bucket(self):
        self.assertEqual(totals(self.db, bucket="c-b-a", function="c")["Dw"], 8)
        # 8192 stores over the 64 KiB block that realloc returned
        self.assertEqual(totals(self.db, bucket="c-b-a", function="fill_block")["Dw"], 8192)
        self.assertEqual(totals(self.db, function="fill_block")["Dw"], 8192)

    def test_wrapper_stats(self):
        b = buckets(self.db)["safe_malloc-build_list-main"]
        self.assertEqual(b, {"kind": "heap", "blocks": 50, "max_live_blocks": 50,
                             "max_live_bytes": 800, "total_bytes": 800,
                             "min_size": 16, "max_size": 16})
        self.assertEqual(totals(self.db, bucket="safe_malloc-build_list-main",
                                function="build_list")["Dw"], 100)

    def test_calloc_and_aligned(self):
        b = buckets(self.db)
        self.assertEqual((b["make_zeroed-main"]["blocks"], b["make_zeroed-main"]["total_bytes"]),
                         (1, 1000))
        a = b["aligned_blocks-main"]
        self.assertEqual((a["blocks"], a["total_bytes"], a["min_size"], a["max_size"]),
                         (3, 868, 100, 512), a)
        self.assertEqual(totals(self.db, bucket="aligned_blocks-main")["Dw"], 3)

    def test_freed_block_stops_matching(self):
        self.assertEqual(totals(self.db, bucket="reuse_a-main", function="reuse_a")["Dw"], 512)
        self.assertEqual(totals(self.db, bucket="reuse_b-main", function="reuse_b")["Dw"], 512)
        self.assertEqual(totals(self.db, bucket="reuse_a-main", function="reuse_b")["Dw"], 0)

    def test_block_records(self):
        # one block row per allocation; the 30 freed ones have a free_seq
        rows = query(self.db, "SELECT COUNT(*), COUNT(free_seq) FROM block k"
                     " JOIN bucket b ON b.id = k.bucket WHERE b.name = 'mem_init-main'")
        self.assertEqual(rows, [(101, 30)])

    def test_report_stats_json(self):
        doc = report_json(self.db, "--stats")
        row = json_row(doc, "mem_init-main", "blocks")
        self.assertEqual(int(row["blocks"]), 101, row)


class HeapAllocFn(Recorded):
    """--alloc-fn=safe_malloc skips the wrapper."""
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--alloc-fn=safe_malloc")

    def test_wrapper_skipped(self):
        names = heap_names(self.db)
        self.assertIn("build_list-main", names)
        self.assertNotIn("safe_malloc-build_list-main", names)
        self.assertEqual(buckets(self.db)["build_list-main"]["blocks"], 50)
        # other buckets unchanged
        self.assertIn("mem_init-main", names)
        self.assertIn("c-b-a", names)


class HeapDepth1(Recorded):
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--heap-names=fn:1")

    def test_names(self):
        names = heap_names(self.db)
        for n in ("mem_init", "c", "safe_malloc"):
            self.assertIn(n, names)
        self.assertEqual(buckets(self.db)["mem_init"]["blocks"], 101)


class HeapDepth2(Recorded):
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--heap-names=fn:2")

    def test_names(self):
        names = heap_names(self.db)
        self.assertIn("mem_init-main", names)
        self.assertIn("c-b", names)
        self.assertIn("safe_malloc-build_list", names)


class HeapDepth5(Recorded):
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--heap-names=fn:5")

    def test_stops_at_main(self):
        names = heap_names(self.db)
        self.assertIn("c-b-a-main", names)
        self.assertIn("mem_init-main", names)


class HeapSite(Recorded):
    """--heap-names=site: names carry the line of every call in the chain."""
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--heap-names=site")

    def test_site_names(self):
        # docs/engine.md: the whole chain with call lines, spec_init(88)-main(276)
        names = heap_names(self.db)
        for fn, tag, caller in (("mem_init", "SITE:mem_init", "-main("),
                                ("c", "SITE:c", "-b(")):
            want = "%s(%d)%s" % (fn, marker_line("heap_names.c", tag), caller)
            hits = [n for n in names if n.startswith(want)]
            self.assertEqual(len(hits), 1, "heap buckets starting %s: %s" % (want, sorted(names)))
        # the first malloc loop of mem_init and its second loop are different sites
        want = "mem_init(%d)-main(" % marker_line("heap_names.c", "SITE:mem_init")
        first = [n for n in names if n.startswith(want)]
        self.assertEqual(buckets(self.db)[first[0]]["blocks"], 60)
        self.assertEqual(len([n for n in names if n.startswith("mem_init(")]), 3, sorted(names))


class UserNamed(Recorded):
    WORKLOAD = "user_named"
    OPTS = (CACHE_2,)

    def test_particles(self):
        b = buckets(self.db)["particles"]
        self.assertEqual(b, {"kind": "user", "blocks": 20, "max_live_blocks": 20,
                             "max_live_bytes": 640, "total_bytes": 640,
                             "min_size": 32, "max_size": 32})
        self.assertEqual(totals(self.db, bucket="particles", function="make_particles")["Dw"], 80)

    def test_calloc_named_with_space(self):
        b = buckets(self.db)["zeroed table"]
        self.assertEqual((b["kind"], b["blocks"], b["total_bytes"]), ("user", 1, 1024))
        self.assertEqual(totals(self.db, bucket="zeroed table", function="fill_words")["Dw"], 128)

    def test_static_array_named(self):
        b = buckets(self.db)
        self.assertIn("grid cells 100%", b, sorted(b))
        g = b["grid cells 100%"]
        self.assertEqual((g["kind"], g["blocks"], g["total_bytes"]), ("user", 1, 8192))
        self.assertEqual(totals(self.db, bucket="grid cells 100%", function="fill_words")["Dw"],
                         1024)
        self.assertEqual(totals(self.db, bucket="user_grid")["Dw"], 0)

    def test_live_block_moved(self):
        self.assertEqual(totals(self.db, bucket="make_plain-main", function="make_plain")["Dw"], 64)
        self.assertEqual(totals(self.db, bucket="moved", function="touch")["Dw"], 64)
        self.assertEqual(totals(self.db, bucket="make_plain-main", function="touch")["Dw"], 0)
        m = buckets(self.db)["moved"]
        self.assertEqual((m["kind"], m["blocks"], m["total_bytes"]), ("user", 1, 512))

    def test_report_json_names_escaped(self):
        doc = report_json(self.db)
        row = json_row(doc, "grid cells 100%", "Dw")
        self.assertEqual(int(row["Dw"]), 1024, row)

    def test_runs_natively(self):
        # the client requests are no-ops outside dcprof
        r = run([workload("user_named")])
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()


class HeapBlockRecordCap(Recorded):
    """--max-block-records=N keeps the first N block records; statistics
    still count every block."""
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--max-block-records=7")

    def test_cap(self):
        # the same run records 101 mem_init-main blocks among others (see
        # Heap.test_block_records): all of them beyond 7 are dropped and
        # counted in meta
        total = buckets(self.db)
        blocks = sum(b["blocks"] or 0 for b in total.values()
                     if b["kind"] in ("heap", "user"))
        rows = query(self.db, "SELECT COUNT(*) FROM block")[0][0]
        dropped = int(dict(query(self.db, "SELECT key, value FROM meta"))
                      ["block_records_dropped"])
        self.assertEqual(rows, 7)
        self.assertGreaterEqual(blocks, 101)
        # realloc counts the old block freed and a new one allocated, so every
        # block (freed or live at exit) is either recorded or dropped
        self.assertEqual(rows + dropped, blocks)
        self.assertEqual(total["mem_init-main"]["blocks"], 101)
