"""dcprof accuracy: sampled shares against the exact ones (seeds/002 Tables 1
and 11), with every figure derived by hand below.

fixtures/sampled_evict.raw (see test_cli_sampled.py): event D1m, 100 samples.
Exact D1 misses (D1mr + D1mw over cost) and the estimates (over cost_sampled):

  bucket  exact  actual %  rank | sampled  sampled %  rank | stderr_pp
  A        4000     40        1 |   3300      33         2 | 100*sqrt(.40*.60/100) = 4.90
  B        3000     30        2 |   3500      35         1 | 100*sqrt(.30*.70/100) = 4.58
  C        2000     20        3 |   2000      20         3 | 100*sqrt(.20*.80/100) = 4.00
  EVIL      900      9        4 |   1100      11         4 | 100*sqrt(.09*.91/100) = 2.86
  D         100      1        5 |    100       1         5 | 100*sqrt(.01*.99/100) = 0.99
  total   10000                 |  10000

  standard error at most 50/sqrt(100) = 5 percentage points.
  max error (actual >= 1 %: all five, D exactly 1 %): A |33 - 40| = 7.
  Spearman, top 10 = all five: d = A -1, B +1, others 0; sum d^2 = 2;
    1 - 6*2 / (5*(25 - 1)) = 1 - 12/120 = 0.9.  Overlap 5 of 5.
  --top 2: actual {A, B}, sampled {B, A}: overlap 2; within {A, B} the
    sampled order is reversed: rho = -1.
  --top 1: actual {A}, sampled {B}: rows A, B (actual order), overlap 0 of
    1, rho null (one bucket).

TIES, a one-level dump written by the test: event Da (count = Dr + Dw),
period 10, 100 samples; exact total 1000, estimated total 1000:
  bucket  exact (Dr+Dw)   actual %  rank | sampled  sampled %  rank
  X       395 (395+0)       39.5       1 |   400       40        1  (X < Z by name)
  Y       300 (100+200)     30         2 |   200       20        3
  Z       300 (300+0)       30         3 |   400       40        2
  W         5                0.5       4 |     0        0        -  (no samples)
  max error over X, Y, Z (W is below 1 %): |20 - 30| = |40 - 30| = 10.
  Top 10 = X Y Z W; average ranks by exact X 1, Y 2.5, Z 2.5, W 4; by
    estimate X 1.5, Z 1.5, Y 3, W 4; mean 2.5.  Deviations: exact
    (-1.5, 0, 0, 1.5), estimate (-1, .5, -1, 1.5) for (X, Y, Z, W):
    sxy = 1.5 + 0 + 0 + 2.25 = 3.75, sxx = 4.5, syy = 1 + .25 + 1 + 2.25 = 4.5,
    rho = 3.75 / 4.5 = 0.8333.  Sampled top 10 = X Z Y: overlap 3 of 4.
  --top 3: {X, Y, Z}; exact ranks 1, 2.5, 2.5; estimate 1.5, 3, 1.5; mean 2;
    deviations (-1, .5, .5) and (-.5, 1, -.5): sxy = .5 + .5 - .25 = .75,
    sxx = syy = 1.5: rho = 0.5.  Overlap 3 of 3.
  --top 2: actual {X, Y}, sampled {X, Z}: rows X, Y, Z; overlap 1 of 2; X is
    first in both orders: rho = 1.
  stderr of W: 100*sqrt(.005*.995/100) = 0.71.
"""
import csv
import io
import json

from harness import DCPROF, RAW_VERSION, SCHEMA_VERSION, run
from test_cli_common import (EVIL, EVIL_CSV, EVIL_JSON, EVIL_TEXT, SAMPLED_EVICT, TWO_LEVEL, CliTest,
                             downgrade_to_v1, run_bytes, text_rows)

TIES = """dcprof-raw 2
meta sample_event Da
meta sample_period 10
meta sample_seed 1
meta samples %d
level 1 L1 32768 8 64 4
memory 200
bucket 0 global X
bucket 1 global Y
bucket 2 global Z
bucket 3 global W
loc 0 0x1000 %%- f f.c 1
cost 0 0 1 395 0 0 0 1580
cost 1 0 1 100 200 0 0 1200
cost 2 0 1 300 0 0 0 1200
cost 3 0 1 5 0 0 0 20
%send 1
"""
TIES_SCOST = """scost 0 0 1 400 0 0 0 1600
scost 1 0 1 0 200 0 0 800
scost 2 0 1 400 0 0 0 1600
"""


class Fixture(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile(SAMPLED_EVICT)

    def json(self, *opts):
        return json.loads(self.run_dcprof("accuracy", self.db, "--format", "json", *opts))

    def test_rows(self):
        doc = self.json()
        got = [(r["bucket"], r["kind"], r["actual_rank"], r["actual_pct"], r["sampled_rank"],
                r["sampled_pct"], round(r["stderr_pp"], 2)) for r in doc["rows"]]
        self.assertEqual(got, [("A", "global", 1, 40, 2, 33, 4.90),
                               ("B", "global", 2, 30, 1, 35, 4.58),
                               ("C", "heap", 3, 20, 3, 20, 4.00),
                               (EVIL_JSON, "user", 4, 9, 4, 11, 2.86),
                               ("D", "global", 5, 1, 5, 1, 0.99)])

    def test_figures(self):
        doc = self.json()
        self.assertEqual(doc["sample"], {"event": "D1m", "period": 100, "seed": 7,
                                         "samples": 100})
        self.assertEqual((doc["actual_events"], doc["sampled_events"]), (10000, 10000))
        self.assertEqual(doc["stderr_max_pp"], 5)
        self.assertAlmostEqual(doc["max_abs_error_pp"], 7, places=9)
        self.assertAlmostEqual(doc["spearman"], 0.9, places=9)
        self.assertEqual((doc["top"], doc["top_actual"], doc["top_overlap"]), (10, 5, 5))
        self.assertEqual(doc["schema_version"], SCHEMA_VERSION)
        self.assertEqual(doc["program"], "/opt/demo/bin/stencil")

    def test_top_two(self):
        doc = self.json("--top", "2")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["A", "B"])
        self.assertEqual((doc["top_actual"], doc["top_overlap"]), (2, 2))
        self.assertAlmostEqual(doc["spearman"], -1, places=9)
        self.assertAlmostEqual(doc["max_abs_error_pp"], 7, places=9)   # over all buckets

    def test_top_one(self):
        doc = self.json("--top", "1")
        self.assertEqual([(r["bucket"], r["actual_rank"], r["sampled_rank"])
                          for r in doc["rows"]], [("A", 1, 2), ("B", 2, 1)])
        self.assertEqual((doc["top_actual"], doc["top_overlap"]), (1, 0))
        self.assertIsNone(doc["spearman"])

    def test_text(self):
        out = self.run_dcprof("accuracy", self.db)
        self.assertIn("\nsampled:  100 samples of D1m, period 100, seed 7\n"
                      "events:   10,000 D1m (exact), 10,000 estimated from the samples\n", out)
        rows = text_rows(out, "bucket")
        self.assertEqual(rows["A"], ["A", "global", "1", "40.00", "2", "33.00", "4.90"])
        self.assertEqual(rows[EVIL_TEXT], [EVIL_TEXT, "user", "4", "9.00", "4", "11.00", "2.86"])
        self.assertIn("\nstandard error:  5.00 percentage points at most", out)
        self.assertIn("\nmax error:       7.00 percentage points (buckets with at least 1% of"
                      " the D1m events)\n", out)
        self.assertIn("\nSpearman:        0.9000 (rank correlation over the actual top 10)\n",
                      out)
        self.assertTrue(out.endswith("\ntop-10 overlap:  5 of 5\n"), out)
        self.assertIn("\nSpearman:        - (", self.run_dcprof("accuracy", self.db, "--top", "1"))

    def test_csv(self):
        r = run_bytes([DCPROF, "accuracy", self.db, "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.reader(io.StringIO(r.stdout.decode("utf-8", "surrogateescape"),
                                           newline="")))
        self.assertEqual(rows[0], ["bucket", "kind", "actual_rank", "actual_pct",
                                   "sampled_rank", "sampled_pct", "stderr_pp"])
        self.assertEqual(rows[1][:6], ["A", "global", "1", "40", "2", "33"])
        self.assertEqual(len(rows), 6)     # the rows only
        self.assertEqual(rows[4][0], EVIL_CSV)

    def test_escaping(self):
        text = run_bytes([DCPROF, "accuracy", self.db]).stdout
        self.assertNotIn(b"\x1b", text)
        self.assertIn(EVIL_TEXT.encode(), text)
        js = run_bytes([DCPROF, "accuracy", self.db, "--format", "json"]).stdout
        self.assertIn(b'"evil,\\"q\\"\\\\x0a\\\\x1b[31m\\\\xff\xc3\xa9"', js)
        js.decode("utf-8")
        csv_out = run_bytes([DCPROF, "accuracy", self.db, "--format", "csv"]).stdout
        self.assertIn(b'\n"' + EVIL_CSV.encode().replace(b'"', b'""') + b'",user,4,', csv_out)


class Ties(CliTest):
    def json(self, samples=100, scost=TIES_SCOST, *opts):
        db = self.profile(self.write("ties.raw", TIES % (samples, scost)))
        return json.loads(self.run_dcprof("accuracy", db, "--format", "json", *opts))

    def test_default_top(self):
        doc = self.json()
        got = [(r["bucket"], r["actual_rank"], r["actual_pct"], r["sampled_rank"],
                r["sampled_pct"]) for r in doc["rows"]]
        self.assertEqual(got, [("X", 1, 39.5, 1, 40), ("Y", 2, 30, 3, 20),
                               ("Z", 3, 30, 2, 40), ("W", 4, 0.5, None, 0)])
        self.assertAlmostEqual(doc["rows"][3]["stderr_pp"], 0.71, delta=0.005)
        self.assertAlmostEqual(doc["spearman"], 3.75 / 4.5, places=9)
        self.assertAlmostEqual(doc["max_abs_error_pp"], 10, places=9)
        self.assertEqual((doc["top_actual"], doc["top_overlap"]), (4, 3))

    def test_top_three(self):
        doc = self.json(100, TIES_SCOST, "--top", "3")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["X", "Y", "Z"])
        self.assertAlmostEqual(doc["spearman"], 0.5, places=9)
        self.assertEqual((doc["top_actual"], doc["top_overlap"]), (3, 3))

    def test_top_two(self):
        doc = self.json(100, TIES_SCOST, "--top", "2")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["X", "Y", "Z"])
        self.assertAlmostEqual(doc["spearman"], 1, places=9)
        self.assertEqual((doc["top_actual"], doc["top_overlap"]), (2, 1))

    def test_no_samples_taken(self):
        # a run too short for a single sample: every sampled figure is empty,
        # and the sampled ranking is all ties, so rho is undefined
        doc = self.json(0, "")
        self.assertEqual([(r["bucket"], r["sampled_rank"], r["sampled_pct"], r["stderr_pp"])
                          for r in doc["rows"]],
                         [("X", None, None, None), ("Y", None, None, None),
                          ("Z", None, None, None), ("W", None, None, None)])
        self.assertIsNone(doc["stderr_max_pp"])
        self.assertIsNone(doc["max_abs_error_pp"])
        self.assertIsNone(doc["spearman"])
        self.assertEqual(doc["top_overlap"], 0)


class Errors(CliTest):
    def bad(self, args, message):
        self.assertError(run([DCPROF, "accuracy"] + args), "dcprof accuracy", message)

    def test_no_samples(self):
        db = self.profile(TWO_LEVEL)
        self.bad([db], "profile '%s' has no samples; record with --sample=EVENT:N" % db)

    def test_version_1(self):
        db = self.profile(SAMPLED_EVICT)
        downgrade_to_v1(db)
        self.bad([db], "profile '%s' has no samples; record with --sample=EVENT:N" % db)

    def test_options(self):
        db = self.profile(SAMPLED_EVICT)
        self.bad([db, "--top", "0"], "invalid --top value '0' (a number of buckets, 1 or more)")
        self.bad([db, "--top", "x"], "invalid --top value 'x'")
        self.bad([db, "--format", "xml"], "invalid --format value 'xml' (text, csv or json)")
        self.bad([db, "--frob"], "unknown option '--frob'; see 'dcprof help accuracy'")
        self.bad([db, db], "unexpected argument")
        self.bad([], "no profile given")
        missing = self.path("nope.db")
        self.bad([missing], "cannot open profile '%s': No such file or directory" % missing)

    def test_bad_sample_meta(self):
        self.write("bad.raw", TIES.replace("meta samples %d", "meta samples many")
                   % ("",))
        db = self.profile(self.path("bad.raw"))
        self.bad([db], "cannot read profile '%s': meta samples is not a number" % db)
