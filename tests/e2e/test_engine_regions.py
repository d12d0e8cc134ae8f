"""End-to-end tests of memory the program maps itself (mmap_region.c) and of
per-thread costs (threads.c)."""
import unittest

from test_engine_common import Recorded, buckets, query, totals

WORDS = (1 << 20) // 8
LINES = (1 << 20) // 64
SMALL = "--cache=L1=32K:8:64,L2=256K:8:64"


class MmapRegion(Recorded):
    WORKLOAD = "mmap_region"
    OPTS = (SMALL,)

    def test_bucket(self):
        b = buckets(self.db)
        mm = sorted(n for n, v in b.items() if v["kind"] == "mmap")
        self.assertIn("<mmap:map_region-main>", mm, "mmap buckets: %s" % mm)

    def test_counts(self):
        name = "<mmap:map_region-main>"
        self.assertCounts(totals(self.db, bucket=name, function="fill"),
                          {"Dw": WORDS, "D1mw": LINES, "D2mw": LINES, "Dr": 0}, "fill")
        self.assertCounts(totals(self.db, bucket=name, function="sum"),
                          {"Dr": WORDS, "D1mr": LINES, "D2mr": LINES, "Dw": 0}, "sum")

    def test_unmapped_region_stops_matching(self):
        self.assertEqual(totals(self.db, bucket="<mmap:drop_region-main>")["Dw"], 1)
        # every access of fill and sum is in the live region's bucket
        self.assertEqual(totals(self.db, function="fill")["Dw"], WORDS)
        self.assertEqual(totals(self.db, bucket="<unknown>", function="fill")["Dw"], 0)


class Threads(Recorded):
    WORKLOAD = "threads"
    OPTS = (SMALL,)

    def threads_of(self, name):
        return query(self.db, "SELECT c.thread, SUM(c.Dr), SUM(c.D1mr), SUM(c.D2mr)"
                     " FROM cost c JOIN bucket b ON b.id = c.bucket WHERE b.name = ?"
                     " GROUP BY c.thread", name)

    def test_split_by_thread(self):
        a, b = self.threads_of("thr_a"), self.threads_of("thr_b")
        self.assertEqual(len(a), 1, "thr_a on threads %s" % a)
        self.assertEqual(len(b), 1, "thr_b on threads %s" % b)
        self.assertNotEqual(a[0][0], 1, "thr_a counted on the main thread")
        self.assertNotEqual(b[0][0], 1, "thr_b counted on the main thread")
        self.assertNotEqual(a[0][0], b[0][0])

    def test_counts(self):
        for name in ("thr_a", "thr_b"):
            (_, dr, d1, d2), = self.threads_of(name)
            self.assertEqual((dr, d1, d2), (2 * WORDS, 2 * LINES, 2 * LINES), name)

    def test_main_thread_present(self):
        threads = {r[0] for r in query(self.db, "SELECT DISTINCT thread FROM cost")}
        self.assertIn(1, threads)
        self.assertGreaterEqual(len(threads), 3, threads)


if __name__ == "__main__":
    unittest.main()
