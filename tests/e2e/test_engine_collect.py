"""End-to-end tests of DCPROF_START/DCPROF_STOP and --collect-atstart
(workload startstop.c)."""
import unittest

from test_engine_common import CACHE_2, Recorded, meta, totals

BIG_WORDS = (1 << 20) // 8
BIG_LINES = (1 << 20) // 64
WARM_WORDS = (16 << 10) // 8


class CollectFromStart(Recorded):
    """Default: collect from the start; STOP stops, START is a no-op."""
    WORKLOAD = "startstop"
    OPTS = (CACHE_2,)

    def test_counts(self):
        self.assertEqual(meta(self.db).get("collect_atstart"), "yes")
        self.assertEqual(totals(self.db, bucket="before_arr")["Dr"], BIG_WORDS)
        self.assertEqual(totals(self.db, bucket="warm_arr")["Dr"], 2 * WARM_WORDS)
        self.assertEqual(totals(self.db, bucket="inside_arr")["Dr"], BIG_WORDS)


class CollectBetweenStartStop(Recorded):
    """--collect-atstart=no: only the region between START and STOP."""
    WORKLOAD = "startstop"
    OPTS = (CACHE_2, "--collect-atstart=no")

    def test_outside_not_counted(self):
        t = totals(self.db, bucket="before_arr")
        self.assertEqual(t["Dr"] + t["Dw"], 0, t)

    def test_inside_counted(self):
        self.assertCounts(totals(self.db, bucket="inside_arr"),
                          {"Dr": BIG_WORDS, "Dw": 0, "D1mr": BIG_LINES,
                           "D2mr": BIG_LINES}, "inside_arr")

    def test_cache_warm_at_start(self):
        # simulated all the time: warm_arr was loaded just before START
        self.assertCounts(totals(self.db, bucket="warm_arr"),
                          {"Dr": WARM_WORDS, "D1mr": 0, "D2mr": 0}, "warm_arr")

    def test_only_the_region(self):
        # the loader and libc start-up run before START: nothing of theirs
        # may be counted; everything counted is main's region or sum_words
        m = meta(self.db)
        self.assertEqual(m.get("collect_atstart"), "no")
        t = totals(self.db)
        ours = (totals(self.db, function="sum_words")["Dr"] +
                totals(self.db, function="main")["Dr"])
        self.assertEqual(t["Dr"] - ours, 0,
                         "reads counted outside main/sum_words: %d" % (t["Dr"] - ours))


if __name__ == "__main__":
    unittest.main()
