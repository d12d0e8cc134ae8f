"""End-to-end tests of stack buckets (workload stack.c): one <stack> bucket
by default, one per owning function with --stack-frames=yes."""
import unittest

from test_engine_common import CACHE_2, Recorded, buckets, marker_line, meta, totals

WORDS = 8192
LINES = WORDS * 8 // 64


class StackDefault(Recorded):
    WORKLOAD = "stack"
    OPTS = (CACHE_2,)

    def test_bucket(self):
        b = buckets(self.db)
        self.assertIn("<stack>", b)
        self.assertEqual(b["<stack>"]["kind"], "stack")
        self.assertFalse([n for n in b if n.startswith("<stack:")], sorted(b))
        self.assertEqual(meta(self.db).get("stack_frames"), "no")

    def test_write_pass(self):
        line = marker_line("stack.c", "LINE:stack_write")
        t = totals(self.db, bucket="<stack>", function="stack_stream", line=line)
        self.assertCounts(t, {"Dw": WORDS, "Dr": 0}, "stack.c:%d" % line)

    def test_read_pass(self):
        line = marker_line("stack.c", "LINE:stack_read")
        t = totals(self.db, bucket="<stack>", function="stack_stream", line=line)
        self.assertCounts(t, {"Dr": WORDS, "Dw": 0, "D1mr": LINES, "D2mr": 0},
                          "stack.c:%d" % line)

    def test_local_array_is_not_unknown(self):
        t = totals(self.db, bucket="<unknown>", function="stack_stream")
        self.assertEqual(t["Dr"] + t["Dw"], 0, t)


class StackFrames(Recorded):
    WORKLOAD = "stack"
    OPTS = (CACHE_2, "--stack-frames=yes")

    def test_buckets(self):
        b = buckets(self.db)
        self.assertIn("<stack:stack_stream>", b, sorted(b))
        self.assertEqual(b["<stack:stack_stream>"]["kind"], "stack")
        self.assertEqual(meta(self.db).get("stack_frames"), "yes")

    def test_frame_counts(self):
        wl = marker_line("stack.c", "LINE:stack_write")
        rl = marker_line("stack.c", "LINE:stack_read")
        self.assertCounts(totals(self.db, bucket="<stack:stack_stream>", line=wl),
                          {"Dw": WORDS}, "writes")
        self.assertCounts(totals(self.db, bucket="<stack:stack_stream>", line=rl),
                          {"Dr": WORDS, "D1mr": LINES, "D2mr": 0}, "reads")
        # nothing of that frame lands in another frame's bucket
        rows = totals(self.db, function="stack_stream", line=rl)
        self.assertEqual(rows["Dr"], WORDS)


if __name__ == "__main__":
    unittest.main()
