"""Cache-use metrics (--cache-use, seeds/001 §1 and §4) on workloads with a
known layout.

cu_hydro (L1=32K:8:64 = 64 sets, L2=1M:16:64 = 1024 sets, 64-byte lines):

column_sum reads hydro_m[i][j], a 512 x 512 row-major matrix of doubles, by
columns (j outer, i inner).  Rows are 4096 bytes = 64 lines apart, so the
512 elements of one column are in 512 lines of one L1 set (row i's line is
in set (64 i + j / 8) mod 64 = j / 8 mod 64) and of only 16 L2 sets
((64 i + j / 8) mod 1024 takes 16 values), 32 lines each.  An 8-way L1 set
cycling 512 lines and a 16-way L2 set cycling 32 lines, both LRU, hit never:
the eighth column that shares a line finds it long gone.  So every one of
the 512 * 512 = 262144 reads misses both levels, loads one line at each,
and that residency sees exactly that one 8-byte read before it is evicted
(or is still resident at exit, charged the same way):
    SpLoss1 = SpLoss2 = 262144 * (64 - 8) = 14680064  = 7/8 of the 262144 * 64
                                                      bytes loaded
    AcCost1 = AcCost2 = 262144 * 1000 / 1 = 262144000
all charged to the column-read line (LINE:column_read) and bucket hydro_m.

copy reads copy_src[i] and writes copy_dst[i] for 65536 doubles: each line
(8 doubles) is loaded by the access to its first double, then 7 more
accesses hit it; at eviction (or exit) all 64 bytes were touched by 8
accesses, at L1 and L2 alike (L2 gets the L1 residency's use):
    SpLoss = 0,  AcCost = 8192 lines * 1000 / 8 = 1024000  per array and level.
"""
import unittest

from test_engine_common import (CACHE_2, LAT, Recorded, marker_line, meta, query,
                                report_json, json_row, use_totals)

N2 = 512 * 512
LINES = 65536 // 8


def use(db, bucket, line=None):
    """{level: (SpLoss, AcCost)} of BUCKET (and LINE), levels with rows."""
    return {lv: use_totals(db, bucket, line=line, level=lv) for lv in (1, 2)
            if query(db, "SELECT 1 FROM cache_use WHERE level = ? LIMIT 1", lv)}


class Hydro(Recorded):
    WORKLOAD = "cu_hydro"
    OPTS = (CACHE_2, LAT, "--cache-use")

    def test_column_read_loses_seven_eighths(self):
        line = marker_line("cu_hydro.c", "LINE:column_read")
        expected = (N2 * 56, N2 * 1000)
        self.assertEqual(use(self.db, "hydro_m", line), {1: expected, 2: expected})
        # nothing else loaded hydro_m's lines
        self.assertEqual(use(self.db, "hydro_m"), {1: expected, 2: expected})
        # spatial loss over bytes loaded, from the miss counts
        misses = query(self.db, "SELECT SUM(D1mr) FROM cost c JOIN bucket b"
                       " ON b.id = c.bucket WHERE b.name = 'hydro_m'")[0][0]
        self.assertEqual(misses, N2)
        self.assertEqual(expected[0] / (misses * 64), 7 / 8)

    def test_contiguous_copy_loses_nothing(self):
        line = marker_line("cu_hydro.c", "LINE:copy")
        for name in ("copy_src", "copy_dst"):
            self.assertEqual(use(self.db, name, line),
                             {1: (0, LINES * 125), 2: (0, LINES * 125)}, name)

    def test_meta(self):
        m = meta(self.db)
        self.assertEqual((m["cache_use"], m["cache_use_granularity"]), ("yes", "exact"))

    def test_report_columns(self):
        doc = report_json(self.db, "--sort", "spLoss1")
        row = json_row(doc, "hydro_m")
        self.assertEqual((row["SpLoss1"], row["AcCost1"], row["SpLoss2"], row["AcCost2"]),
                         (N2 * 56, N2 * 1000, N2 * 56, N2 * 1000))
        self.assertEqual(json_row(doc, "copy_src")["SpLoss1"], 0)
        # by line: the column read is the top spatial loss
        doc = report_json(self.db, "--by", "line", "--sort", "SpLoss1", "--top", "1")
        row = json_row(doc, "column_sum", key="SpLoss1")
        self.assertEqual(row["line"], marker_line("cu_hydro.c", "LINE:column_read"))


class HydroWithout(Recorded):
    """Without --cache-use: no rows, no columns."""
    WORKLOAD = "cu_hydro"
    OPTS = (CACHE_2, LAT)

    def test_no_cache_use(self):
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM cache_use"), [(0,)])
        self.assertEqual(meta(self.db)["cache_use"], "no")
        row = json_row(report_json(self.db), "hydro_m")
        self.assertNotIn("SpLoss1", row)


if __name__ == "__main__":
    unittest.main()
