"""dcprof mrc: miss-ratio curves of fully-associative LRU caches from the
exact stack histogram of fixtures/reuse.raw (trace in test_cli_reuse.py).

misses(C) = first touches + accesses with stack distance >= C; sizes C = 1,
2, 4, ... up to the first power of two >= the program's 6 distinct blocks: 8.

Whole program (13 accesses, 6 first touches; stack bins 0 [0,1): 2,
1 [1,2): 1, 2 [2,4): 4):
  C=1: 6 + 1 + 4 = 11 (11/13)   bin 0 hits
  C=2: 6 + 4     = 10 (10/13)   bins 0, 1 hit
  C=4: 6              (6/13)    all reuses hit
  C=8: 6              (6/13)
  Cross-check: the fixture's L1 is 4 fully-associative lines and the cost
  records say 6 L1 misses, the C=4 row.
--object arr (8 accesses, 4 first touches, bin 2: 4): C=1, 2: 8/8 = 1;
  C=4, 8: 4/8 = 0.5.  Sizes still go to 8: distances are global.
Bins 3:2 (bin 0 [0,3): 2, bin 1 [3,6): 1, bin 2 [6,12): 4), every row a lower
bound because a non-empty bin straddles each size:
  C=1: bin 0 straddles (counted as hits), bins 1, 2 miss: 6 + 5 = 11
  C=2: the same: 11
  C=4: bin 0 hits, bin 1 [3,6) straddles, bin 2 misses: 6 + 4 = 10
  C=8: bins 0, 1 hit, bin 2 [6,12) straddles: 6
"""
import csv
import io
import json

from harness import DCPROF, run
from test_cli_common import (EVIL, REUSE, TWO_LEVEL, CliTest, downgrade_to_v2, run_bytes,
                             text_rows)
from test_cli_finalize import fixture_lines


class MrcTest(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile(REUSE)

    def json(self, *opts, db=None):
        return json.loads(self.run_dcprof("mrc", db or self.db, "--format", "json", *opts))

    def assertCurve(self, doc, want):
        """want: [(size_blocks, size_bytes, misses, miss_ratio, exact)]"""
        got = [(r["size_blocks"], r["size_bytes"], r["misses"], r["exact"])
               for r in doc["rows"]]
        self.assertEqual(got, [(w[0], w[1], w[2], w[4]) for w in want])
        for r, w in zip(doc["rows"], want):
            self.assertAlmostEqual(r["miss_ratio"], w[3], places=9)


class Curve(MrcTest):
    def test_whole_program(self):
        doc = self.json()
        self.assertEqual((doc["schema_version"], doc["object"], doc["block"], doc["accesses"],
                          doc["first_touches"], doc["distinct_blocks"], doc["exact"]),
                         (4, None, 64, 13, 6, 6, True))
        self.assertCurve(doc, [(1, 64, 11, 11 / 13, True), (2, 128, 10, 10 / 13, True),
                               (4, 256, 6, 6 / 13, True), (8, 512, 6, 6 / 13, True)])

    def test_object(self):
        doc = self.json("--object", "arr")
        self.assertEqual((doc["object"], doc["accesses"], doc["first_touches"],
                          doc["distinct_blocks"]), ("arr", 8, 4, 6))
        self.assertCurve(doc, [(1, 64, 8, 1, True), (2, 128, 8, 1, True),
                               (4, 256, 4, 0.5, True), (8, 512, 4, 0.5, True)])

    def test_straddling_bins(self):
        lines = [b"meta reuse_bins 3:2" if l == b"meta reuse_bins 1:2" else l
                 for l in fixture_lines(REUSE)]
        r, db = self.finalize(self.write("b.raw", b"\n".join(lines) + b"\n"), "b.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = self.json(db=db)
        self.assertIs(doc["exact"], False)
        self.assertCurve(doc, [(1, 64, 11, 11 / 13, False), (2, 128, 11, 11 / 13, False),
                               (4, 256, 10, 10 / 13, False), (8, 512, 6, 6 / 13, False)])
        out = self.run_dcprof("mrc", db)
        self.assertIn("\n(exact = no: a histogram bin straddles the cache size; its accesses"
                      " count as hits, so the misses are a lower bound)\n", out)
        self.assertEqual(text_rows(out, "size")["4"], ["4", "256 B", "10", "76.92", "no"])

    def test_text(self):
        out = self.run_dcprof("mrc", self.db)
        self.assertIn("\nreuse:    exact, blocks of 64 B, bins 1:2\nobject:   whole program\n"
                      "accesses: 13 (6 first touches); the program touched 6 distinct"
                      " blocks\n\n", out)
        self.assertEqual(text_rows(out, "size"), {
            "1": ["1", "64 B", "11", "84.62", "yes"],
            "2": ["2", "128 B", "10", "76.92", "yes"],
            "4": ["4", "256 B", "6", "46.15", "yes"],
            "8": ["8", "512 B", "6", "46.15", "yes"]})
        self.assertNotIn("lower bound", out)

    def test_hostile_object(self):
        r = run_bytes([DCPROF, "mrc", self.db, "--object", EVIL])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn(b"\x1b", r.stdout)
        # EVIL: 2 accesses, 1 first touch, one reuse at distance 1 (bin 1):
        # C=1: 2/2, C=2 and on: 1/2
        doc = self.json("--object", EVIL.decode("utf-8", "surrogateescape"))
        self.assertCurve(doc, [(1, 64, 2, 1, True), (2, 128, 1, 0.5, True),
                               (4, 256, 1, 0.5, True), (8, 512, 1, 0.5, True)])

    def test_csv(self):
        r = run([DCPROF, "mrc", self.db, "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.reader(io.StringIO(r.stdout)))
        self.assertEqual(rows[0], ["size_blocks", "size_bytes", "misses", "miss_ratio", "exact"])
        self.assertEqual(rows[3], ["4", "256", "6", "%.10g" % (6 / 13), "true"])
        self.assertEqual(len(rows), 5)


class Errors(CliTest):
    def bad(self, args, message):
        self.assertError(run([DCPROF, "mrc"] + args), "dcprof mrc", message)

    def test_errors(self):
        db = self.profile(TWO_LEVEL)
        self.bad([db], "profile '%s' has no reuse data; record with --reuse=yes" % db)
        r, db = self.finalize(REUSE, "r.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.bad([db, "--object", "nope"], "no bucket named 'nope'")
        self.bad([db, "--kind", "stack"], "unknown option '--kind'; see 'dcprof help mrc'")
        self.bad([db, "--format", "xml"], "invalid --format value 'xml'")
        self.bad([], "no profile given; see 'dcprof help mrc'")
        self.bad([db, db], "unexpected argument")
        downgrade_to_v2(db)
        self.bad([db], "profile '%s' has no reuse data; record with --reuse=yes" % db)
