"""End-to-end tests of heap and user buckets: naming by allocation path,
--heap-names, --alloc-fn, realloc, freed blocks, block statistics, the
dcprof.h client requests (workloads heap_names.c and user_named.c)."""
import os
import unittest

from test_engine_common import (CACHE_2, Recorded, buckets, json_row, marker_line,
                                query, report_json, run, totals, workload)


def heap_names(db):
    """Buckets of heap blocks (not <malloc>, the allocator's own accesses)."""
    return {n for n, b in buckets(db).items() if b["kind"] == "heap" and n != "<malloc>"}


def site(fn, tag, *callers, src="heap_names.c"):
    """The default name of a heap bucket (docs/engine.md): the first frame
    with the file and line of the call marked /* TAG */, then its callers."""
    return "%s (%s:%d)" % (fn, src, marker_line(src, tag)) + "".join(" < " + c for c in callers)


class HeapDefault(Recorded):
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2,)

    def names(self):
        return {
            "recs1": site("mem_init", "SITE:mem_init", "main"),
            "recs2": site("mem_init", "SITE:recs2", "main"),
            "big": site("mem_init", "SITE:bigblock", "main"),
            "c": site("c", "SITE:c", "b", "a"),
            "list": site("safe_malloc", "SITE:safe_malloc", "build_list", "main"),
            "zeroed": site("make_zeroed", "SITE:zeroed", "main"),
            "reuse_a": site("reuse_a", "SITE:reuse_a", "main"),
            "reuse_b": site("reuse_b", "SITE:reuse_b", "main"),
        }

    def test_bucket_names(self):
        names = heap_names(self.db)
        for n in self.names().values():
            self.assertIn(n, names, sorted(names))
        for i in (1, 2, 3):
            self.assertIn(site("aligned_blocks", "SITE:align%d" % i, "main"), names)
        # no name is a bare function: realloc keeps the bucket, and
        # nothing is named after realloc's caller alone
        self.assertNotIn("main", names)
        self.assertFalse([n for n in names if " (" not in n], sorted(names))
        # never past main
        self.assertFalse([n for n in names if "__libc_start" in n or "_start" in n], names)

    def test_mem_init_stats(self):
        # one bucket per allocation line of mem_init (heap_names.c header)
        b = buckets(self.db)
        n = self.names()
        self.assertEqual(b[n["recs1"]], {"kind": "heap", "blocks": 60, "max_live_blocks": 60,
                                         "max_live_bytes": 1440, "total_bytes": 1440,
                                         "min_size": 24, "max_size": 24})
        self.assertEqual(b[n["recs2"]], {"kind": "heap", "blocks": 40, "max_live_blocks": 40,
                                         "max_live_bytes": 960, "total_bytes": 960,
                                         "min_size": 24, "max_size": 24})
        self.assertEqual(b[n["big"]], {"kind": "heap", "blocks": 1, "max_live_blocks": 1,
                                       "max_live_bytes": 1000, "total_bytes": 1000,
                                       "min_size": 1000, "max_size": 1000})

    def test_mem_init_accesses(self):
        n = self.names()
        for key, dw, dr in (("recs1", 180, 90), ("recs2", 120, 120), ("big", 125, 0)):
            t = totals(self.db, bucket=n[key], function="mem_init")
            self.assertCounts(t, {"Dw": dw, "Dr": 0}, "mem_init -> " + n[key])
            t = totals(self.db, bucket=n[key], function="walk")
            self.assertCounts(t, {"Dr": dr, "Dw": 0}, "walk -> " + n[key])

    def test_realloc_keeps_bucket(self):
        c = self.names()["c"]
        self.assertEqual(totals(self.db, bucket=c, function="c")["Dw"], 8)
        # 8192 stores over the 64 KiB block that realloc returned
        self.assertEqual(totals(self.db, bucket=c, function="fill_block")["Dw"], 8192)
        self.assertEqual(totals(self.db, function="fill_block")["Dw"], 8192)

    def test_wrapper_stats(self):
        lst = self.names()["list"]
        b = buckets(self.db)[lst]
        self.assertEqual(b, {"kind": "heap", "blocks": 50, "max_live_blocks": 50,
                             "max_live_bytes": 800, "total_bytes": 800,
                             "min_size": 16, "max_size": 16})
        self.assertEqual(totals(self.db, bucket=lst, function="build_list")["Dw"], 100)

    def test_calloc_and_aligned(self):
        b = buckets(self.db)
        z = self.names()["zeroed"]
        self.assertEqual((b[z]["blocks"], b[z]["total_bytes"]), (1, 1000))
        for i, size in ((1, 256), (2, 512), (3, 100)):
            name = site("aligned_blocks", "SITE:align%d" % i, "main")
            self.assertEqual((b[name]["blocks"], b[name]["total_bytes"]), (1, size), name)
            self.assertEqual(totals(self.db, bucket=name)["Dw"], 1, name)

    def test_freed_block_stops_matching(self):
        n = self.names()
        self.assertEqual(totals(self.db, bucket=n["reuse_a"], function="reuse_a")["Dw"], 512)
        self.assertEqual(totals(self.db, bucket=n["reuse_b"], function="reuse_b")["Dw"], 512)
        self.assertEqual(totals(self.db, bucket=n["reuse_a"], function="reuse_b")["Dw"], 0)

    def test_block_records(self):
        # one block row per allocation; the 30 freed ones have a free_seq
        rows = query(self.db, "SELECT COUNT(*), COUNT(free_seq) FROM block k"
                     " JOIN bucket b ON b.id = k.bucket WHERE b.name = ?",
                     self.names()["recs1"])
        self.assertEqual(rows, [(60, 30)])

    def test_report_stats_json(self):
        doc = report_json(self.db, "--stats")
        row = json_row(doc, self.names()["recs2"], "blocks")
        self.assertEqual(int(row["blocks"]), 40, row)


class HeapAllocFn(Recorded):
    """--alloc-fn=safe_malloc skips the wrapper."""
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--alloc-fn=safe_malloc")

    def test_wrapper_skipped(self):
        names = heap_names(self.db)
        lst = site("build_list", "SITE:list", "main")
        self.assertIn(lst, names, sorted(names))
        self.assertFalse([n for n in names if n.startswith("safe_malloc")], sorted(names))
        self.assertEqual(buckets(self.db)[lst]["blocks"], 50)
        # other buckets unchanged
        self.assertIn(site("mem_init", "SITE:mem_init", "main"), names)
        self.assertIn(site("c", "SITE:c", "b", "a"), names)


class HeapDepth1(Recorded):
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--heap-names=fn:1")

    def test_names(self):
        names = heap_names(self.db)
        for n in (site("mem_init", "SITE:mem_init"), site("c", "SITE:c"),
                  site("safe_malloc", "SITE:safe_malloc")):
            self.assertIn(n, names, sorted(names))
        self.assertEqual(buckets(self.db)[site("mem_init", "SITE:mem_init")]["blocks"], 60)


class HeapDepth2(Recorded):
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--heap-names=fn:2")

    def test_names(self):
        names = heap_names(self.db)
        self.assertIn(site("mem_init", "SITE:mem_init", "main"), names, sorted(names))
        self.assertIn(site("c", "SITE:c", "b"), names)
        self.assertIn(site("safe_malloc", "SITE:safe_malloc", "build_list"), names)


class HeapDepth5(Recorded):
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--heap-names=fn:5")

    def test_stops_at_main(self):
        names = heap_names(self.db)
        self.assertIn(site("c", "SITE:c", "b", "a", "main"), names, sorted(names))
        self.assertIn(site("mem_init", "SITE:mem_init", "main"), names)


def paths_site(*callers):
    """A bucket of heap_paths.c: node_new's allocation line, then callers."""
    return site("node_new", "SITE:node_new", *callers, src="heap_paths.c")


def paths_blocks(db):
    """{name: blocks} of heap_paths.c's buckets (32-byte blocks, none freed)."""
    out = {}
    for n, b in buckets(db).items():
        if b["kind"] == "heap" and n.startswith("node_new"):
            stats = (b["max_live_blocks"], b["total_bytes"], b["min_size"], b["max_size"])
            if stats != (b["blocks"], 32 * b["blocks"], 32, 32):
                raise AssertionError("%s: %s" % (n, b))
            out[n] = b["blocks"]
    return out


class HeapPaths(Recorded):
    """One allocation line reached through two callers at the same depth
    (heap_paths.c header): a cache of names by part of the path must keep
    them apart."""
    WORKLOAD = "heap_paths"
    OPTS = (CACHE_2,)

    def test_buckets(self):
        self.assertEqual(paths_blocks(self.db), {paths_site("main"): 7,
                                                 paths_site("mid", "left"): 300,
                                                 paths_site("mid", "right"): 200})


class HeapPathsDepth2(Recorded):
    WORKLOAD = "heap_paths"
    OPTS = (CACHE_2, "--heap-names=fn:2")

    def test_buckets(self):
        self.assertEqual(paths_blocks(self.db), {paths_site("main"): 7,
                                                 paths_site("mid"): 500})


class HeapPathsSite(Recorded):
    WORKLOAD = "heap_paths"
    OPTS = (CACHE_2, "--heap-names=site")

    def test_buckets(self):
        def at(fn, tag):
            return "%s (heap_paths.c:%d)" % (fn, marker_line("heap_paths.c", tag))
        first = at("node_new", "SITE:node_new")
        self.assertEqual(paths_blocks(self.db), {
            " < ".join((first, at("main", "SITE:main"))): 7,
            " < ".join((first, at("mid", "SITE:mid"), at("left", "SITE:left"),
                        at("main", "SITE:main_left"))): 300,
            " < ".join((first, at("mid", "SITE:mid"), at("right", "SITE:right"),
                        at("main", "SITE:main_right"))): 200})


class HeapSite(Recorded):
    """--heap-names=site: every frame of the chain with its file and line."""
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2, "--heap-names=site")

    def test_site_names(self):
        # docs/engine.md: mem_init (heap_names.c:65) < main (heap_names.c:190)
        names = heap_names(self.db)
        for fn, tag, caller in (("mem_init", "SITE:mem_init", " < main (heap_names.c:"),
                                ("c", "SITE:c", " < b (heap_names.c:")):
            want = "%s (heap_names.c:%d)%s" % (fn, marker_line("heap_names.c", tag), caller)
            hits = [n for n in names if n.startswith(want)]
            self.assertEqual(len(hits), 1, "heap buckets starting %s: %s" % (want, sorted(names)))
        want = "mem_init (heap_names.c:%d) < main (" % marker_line("heap_names.c", "SITE:mem_init")
        first = [n for n in names if n.startswith(want)]
        self.assertEqual(buckets(self.db)[first[0]]["blocks"], 60)
        self.assertEqual(len([n for n in names if n.startswith("mem_init (")]), 3, sorted(names))
        # every frame has its file and line
        c = [n for n in names if n.startswith("c (")][0]
        self.assertRegex(c, r"^c \(heap_names\.c:\d+\) < b \(heap_names\.c:\d+\) < "
                         r"a \(heap_names\.c:\d+\) < main \(heap_names\.c:\d+\)$")


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
        plain = site("make_plain", "SITE:plain", "main", src="user_named.c")
        self.assertEqual(totals(self.db, bucket=plain, function="make_plain")["Dw"], 64)
        self.assertEqual(totals(self.db, bucket="moved", function="touch")["Dw"], 64)
        self.assertEqual(totals(self.db, bucket=plain, function="touch")["Dw"], 0)
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
        # the same run records 60 blocks of mem_init's first line among others (see
        # Heap.test_block_records): all of them beyond 7 are dropped and
        # counted in meta
        total = buckets(self.db)
        blocks = sum(b["blocks"] or 0 for b in total.values()
                     if b["kind"] in ("heap", "user"))
        rows = query(self.db, "SELECT COUNT(*) FROM block")[0][0]
        dropped = int(dict(query(self.db, "SELECT key, value FROM meta"))
                      ["block_records_dropped"])
        self.assertEqual(rows, 7)
        self.assertGreaterEqual(blocks, 101)   # mem_init's three lines
        # realloc counts the old block freed and a new one allocated, so every
        # block (freed or live at exit) is either recorded or dropped
        self.assertEqual(rows + dropped, blocks)
        self.assertEqual(total[site("mem_init", "SITE:mem_init", "main")]["blocks"], 60)


class OwnMalloc(Recorded):
    """A program with a malloc of its own (own_malloc.c): its blocks are
    attributed, its allocator's accesses and arena are <malloc>'s."""
    WORKLOAD = "own_malloc"
    OPTS = (CACHE_2,)

    def test_block_attributed(self):
        name = site("main", "SITE:a", src="own_malloc.c")
        b = buckets(self.db)
        self.assertIn(name, b, sorted(b))
        self.assertEqual((b[name]["kind"], b[name]["blocks"], b[name]["total_bytes"]),
                         ("heap", 1, 8000))
        self.assertEqual(totals(self.db, bucket=name, function="fill")["Dw"], 1000)
        self.assertEqual(totals(self.db, bucket=name, function="sum")["Dr"], 1000)

    def test_allocator_is_malloc_bucket(self):
        # every malloc writes its size header and the bump pointer
        t = totals(self.db, bucket="<malloc>", function="malloc")
        self.assertGreaterEqual(t["Dw"], 2)
        self.assertEqual(totals(self.db, bucket="<malloc>", function="fill")["Dw"], 0)


class GlibcAllocatorObserved(Recorded):
    """The C library's own malloc runs (no replacement): the accesses of
    its code are <malloc>'s, none of them charged to the program's
    buckets, and its brk heap is a <malloc> region."""
    WORKLOAD = "heap_names"
    OPTS = (CACHE_2,)

    def test_allocator_accesses(self):
        t = totals(self.db, bucket="<malloc>")
        self.assertGreater(t["Dr"] + t["Dw"], 0)
        fns = {r[0] for r in query(self.db, "SELECT DISTINCT l.function FROM cost c"
                                   " JOIN bucket b ON b.id = c.bucket"
                                   " JOIN location l ON l.id = c.location"
                                   " WHERE b.name = '<malloc>'")}
        self.assertTrue(fns & {"malloc", "_int_malloc", "free", "_int_free", "calloc",
                               "realloc", "_int_realloc"}, sorted(fns))
        self.assertNotIn("main", fns)


def free_order_rows(db):
    """free_order.c's blocks (size 16 + i names block i) as
    {i: (row id, alloc_seq, free_seq)}, and how many other rows there are."""
    ours, others = {}, 0
    for rid, size, a, f in query(db, "SELECT id, size, alloc_seq, free_seq FROM block"):
        if 16 <= size < 16 + FREE_ORDER_N and size - 16 not in ours:
            ours[size - 16] = (rid, a, f)
        else:
            others += 1
    return ours, others


FREE_ORDER_N = 3000
FREE_ORDER = [(k * 7919) % FREE_ORDER_N for k in range(FREE_ORDER_N)]


class HeapFreeOrder(Recorded):
    """3000 blocks freed in a scattered order (free_order.c): the engine
    takes frees from its map in batches sorted by address (dc_heap.c), and
    each block's record still says when it was allocated and freed, in
    the order of the frees.  Expected values: free_order.c's header."""
    WORKLOAD = "free_order"
    OPTS = (CACHE_2,)

    def test_sequence_numbers(self):
        ours, _ = free_order_rows(self.db)
        self.assertEqual(len(ours), FREE_ORDER_N)
        a0 = ours[0][1]
        for i in range(FREE_ORDER_N):
            self.assertEqual(ours[i][1], a0 + i, i)
        for k, i in enumerate(FREE_ORDER):
            self.assertEqual(ours[i][2], a0 + FREE_ORDER_N + k, (k, i))

    def test_records_in_free_order(self):
        ours, _ = free_order_rows(self.db)
        ids = [ours[i][0] for i in FREE_ORDER]
        self.assertEqual(ids, sorted(ids))

    def test_statistics(self):
        # all 3000 blocks of one bucket, all live before the first free
        b = [v for v in buckets(self.db).values() if v["kind"] == "heap"
             and v["min_size"] == 16 and v["max_size"] == 16 + FREE_ORDER_N - 1]
        self.assertEqual(len(b), 1, b)
        self.assertEqual(b[0]["blocks"], FREE_ORDER_N)
        self.assertEqual(b[0]["max_live_blocks"], FREE_ORDER_N)
        # sum of 16 + i for i < N
        self.assertEqual(b[0]["total_bytes"], 16 * FREE_ORDER_N + FREE_ORDER_N * (FREE_ORDER_N - 1) // 2)


class HeapFreeOrderCap(Recorded):
    """With --max-block-records=1500 the records are those of the first
    1500 blocks to end: the rows of free_order.c's blocks are the first
    1500 - (rows of other blocks) of its free order, none after."""
    WORKLOAD = "free_order"
    OPTS = (CACHE_2, "--max-block-records=1500")

    def test_prefix_of_free_order(self):
        ours, others = free_order_rows(self.db)
        m = 1500 - others
        self.assertGreater(m, 1000)
        self.assertEqual(set(ours), set(FREE_ORDER[:m]))
