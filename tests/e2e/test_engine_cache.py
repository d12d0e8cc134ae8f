"""End-to-end tests of the simulated cache hierarchy and the latency model:
workloads with a known layout (tests/workloads/*.c, whose header comments
derive every number asserted here) recorded with an explicit hierarchy."""
import unittest

from test_engine_common import (CACHE_2, LAT, L1_LAT, L2_LAT, MEM_LAT, Recorded,
                                buckets, json_row, marker_line, meta, query,
                                report_json, totals)

STREAM_N = 4 << 20          # bytes of big_array
STREAM_P = 3                # passes


class StreamTwoLevels(Recorded):
    """stream.c: 4 MiB streamed 3 times, L1 32K and L2 1M both too small."""
    WORKLOAD = "stream"

    def test_array_counts_exact(self):
        t = totals(self.db, bucket="big_array")
        misses = STREAM_P * STREAM_N // 64
        self.assertCounts(t, {"Dr": STREAM_P * STREAM_N // 8, "Dw": 0,
                              "D1mr": misses, "D1mw": 0,
                              "D2mr": misses, "D2mw": 0,
                              "D3mr": 0, "D4mr": 0}, "big_array")

    def test_latency(self):
        t = totals(self.db, bucket="big_array")
        # every L1 miss also misses L2, so it is served by memory
        lat = (t["Dr"] - t["D1mr"]) * L1_LAT + t["D1mr"] * MEM_LAT
        self.assertEqual(t["Lat"], lat, "Lat of big_array: %s" % t)

    def test_all_loads_on_the_loop_line(self):
        line = marker_line("stream.c", "LINE:stream_load")
        t = totals(self.db, bucket="big_array", function="sum_pass", line=line)
        self.assertEqual(t["Dr"], STREAM_P * STREAM_N // 8,
                         "loads of big_array from sum_pass at stream.c:%d" % line)
        files = query(self.db, "SELECT DISTINCT l.file FROM cost c JOIN location l"
                      " ON l.id = c.location JOIN bucket b ON b.id = c.bucket"
                      " WHERE b.name = 'big_array'")
        self.assertEqual(len(files), 1, files)
        self.assertTrue(files[0][0].endswith("stream.c"), files)

    def test_sink_and_kind(self):
        self.assertEqual(totals(self.db, bucket="sink")["Dw"], STREAM_P)
        b = buckets(self.db)
        self.assertEqual(b["big_array"]["kind"], "global")
        # a global counts as one block of its size
        self.assertEqual(b["big_array"]["total_bytes"], STREAM_N, b["big_array"])

    def test_levels_and_meta(self):
        rows = query(self.db, "SELECT level, size, assoc, line_size, latency FROM level"
                     " ORDER BY level")
        self.assertEqual(rows, [(1, 32768, 8, 64, L1_LAT), (2, 1 << 20, 16, 64, L2_LAT)])
        m = meta(self.db)
        self.assertEqual(m.get("levels"), "2")
        self.assertEqual(m.get("memory_latency"), str(MEM_LAT))
        self.assertEqual(m.get("cache_source"), "option")
        self.assertEqual(m.get("complete"), "1")
        self.assertEqual(m.get("exit_status"), "exit 0")

    def test_miss_invariants_every_row(self):
        # A level is consulted only when the level above misses, so per row
        # misses can only shrink going down; misses never exceed accesses.
        bad = query(self.db, "SELECT * FROM cost WHERE D1mr > Dr OR D1mw > Dw"
                    " OR D2mr > D1mr OR D2mw > D1mw OR D3mr + D3mw + D4mr + D4mw > 0")
        self.assertEqual(bad, [])

    def test_report_json_agrees(self):
        doc = report_json(self.db)
        row = json_row(doc, "big_array", "Dr")
        self.assertEqual(int(row["Dr"]), STREAM_P * STREAM_N // 8, row)
        self.assertEqual(int(row["D1mr"]), STREAM_P * STREAM_N // 64, row)


class StreamThreeLevels(Recorded):
    """stream.c with an 8 MiB L3 that holds the array: L3 has only the cold
    misses of pass 1, later passes hit there."""
    WORKLOAD = "stream"
    OPTS = ("--cache=L1=32K:8:64,L2=1M:16:64,L3=8M:16:64",
            "--latency=L1=4,L2=14,L3=40,MEM=200")

    def test_counts(self):
        t = totals(self.db, bucket="big_array")
        self.assertCounts(t, {"Dr": STREAM_P * STREAM_N // 8,
                              "D1mr": STREAM_P * STREAM_N // 64,
                              "D2mr": STREAM_P * STREAM_N // 64,
                              "D3mr": STREAM_N // 64, "D3mw": 0, "D4mr": 0},
                          "big_array with L3=8M")

    def test_latency(self):
        t = totals(self.db, bucket="big_array")
        lat = ((t["Dr"] - t["D1mr"]) * 4 + (t["D1mr"] - t["D2mr"]) * 14 +
               (t["D2mr"] - t["D3mr"]) * 40 + t["D3mr"] * 200)
        self.assertEqual(t["Lat"], lat, t)

    def test_levels(self):
        rows = query(self.db, "SELECT level, size, assoc, line_size, latency FROM level"
                     " ORDER BY level")
        self.assertEqual(rows, [(1, 32768, 8, 64, 4), (2, 1 << 20, 16, 64, 14),
                                (3, 8 << 20, 16, 64, 40)])
        self.assertEqual(meta(self.db).get("levels"), "3")


class Lockstep(Recorded):
    """lockstep.c: a[i] + b[i] over two 2 MiB arrays, 2 passes."""
    WORKLOAD = "lockstep"

    def test_each_array_exact(self):
        n, p = 2 << 20, 2
        for name in ("arr_a", "arr_b"):
            self.assertCounts(totals(self.db, bucket=name),
                              {"Dr": p * n // 8, "Dw": 0, "D1mr": p * n // 64,
                               "D2mr": p * n // 64}, name)

    def test_half_of_the_misses_each(self):
        a = totals(self.db, bucket="arr_a")["D1mr"]
        b = totals(self.db, bucket="arr_b")["D1mr"]
        self.assertGreater(a + b, 0)
        self.assertEqual(a / (a + b), 0.5)

    def test_report_json_shares(self):
        doc = report_json(self.db)
        ra, rb = json_row(doc, "arr_a", "D1mr"), json_row(doc, "arr_b", "D1mr")
        self.assertEqual(int(ra["D1mr"]), int(rb["D1mr"]))


class HotTable(Recorded):
    """hot_table.c: 1 KiB written once, read 10000 times."""
    WORKLOAD = "hot_table"

    def test_counts(self):
        r = 10000
        self.assertCounts(totals(self.db, bucket="hot_table"),
                          {"Dw": 128, "D1mw": 16, "D2mw": 16,
                           "Dr": 128 * r, "D1mr": 0, "D2mr": 0}, "hot_table")

    def test_latency(self):
        r = 10000
        lat = 128 * r * L1_LAT + (128 - 16) * L1_LAT + 16 * MEM_LAT
        self.assertEqual(totals(self.db, bucket="hot_table")["Lat"], lat)


class ConflictThree(Recorded):
    """conflict.c, 3 arrays in the same sets of a 2-way L1: all accesses miss
    L1; the 64K L2 holds everything (cold misses only)."""
    WORKLOAD = "conflict"
    ARGS = ("3", "100")
    OPTS = ("--cache=L1=4K:2:64,L2=64K:8:64", "--latency=L1=4,L2=14,MEM=200")

    def test_every_access_misses(self):
        for name in ("conf_x", "conf_y", "conf_z"):
            self.assertCounts(totals(self.db, bucket=name),
                              {"Dr": 25600, "Dw": 0, "D1mr": 25600, "D2mr": 32}, name)

    def test_latency(self):
        # 32 served by memory, the other 25568 misses by L2
        lat = 32 * 200 + (25600 - 32) * 14
        for name in ("conf_x", "conf_y", "conf_z"):
            self.assertEqual(totals(self.db, bucket=name)["Lat"], lat, name)


class ConflictTwo(Recorded):
    """conflict.c, 2 arrays: they fit the 2 ways, only cold misses."""
    WORKLOAD = "conflict"
    ARGS = ("2", "100")
    OPTS = ("--cache=L1=4K:2:64,L2=64K:8:64",)

    def test_only_cold_misses(self):
        for name in ("conf_x", "conf_y"):
            self.assertCounts(totals(self.db, bucket=name),
                              {"Dr": 25600, "Dw": 0, "D1mr": 32, "D2mr": 32}, name)
        self.assertEqual(totals(self.db, bucket="conf_z")["Dr"], 0)


class Straddle(Recorded):
    """straddle.c: an access over two lines is one access and one miss per
    level if either line misses."""
    WORKLOAD = "straddle"

    def test_both_lines_missing_is_one_miss(self):
        self.assertCounts(totals(self.db, bucket="strad_a"),
                          {"Dr": 192, "Dw": 0, "D1mr": 64, "D2mr": 64}, "strad_a")

    def test_one_line_missing_is_one_miss(self):
        self.assertCounts(totals(self.db, bucket="strad_b"),
                          {"Dr": 128, "Dw": 0, "D1mr": 128, "D2mr": 128}, "strad_b")


if __name__ == "__main__":
    unittest.main()
