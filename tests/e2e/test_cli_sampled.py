"""dcprof report --sampled and the residency columns of --stats, on the
version 2 dump fixtures/sampled_evict.raw; version 1 profiles and profiles
recorded without the options.

The fixture: L1 latency 4, L2 latency 14, memory 200; sampled event D1m,
period 100, 100 samples.  Buckets A, B (globals), C (heap), EVIL (user, the
hostile name of test_cli_common), D (global), [stack] (no accesses).

Exact cost (Lat = L1 hits*4 + L2 hits*14 + memory*200):
  A  loc 0  Dr 6000  D1mr 2500  D2mr  600  Lat 3500*4 + 1900*14 + 600*200 = 160600
  A  loc 4  Dr 4000  D1mr 1500  D2mr  400  Lat 2500*4 + 1100*14 + 400*200 = 105400
  B  loc 1  Dw 5000  D1mw 3000  D2mw 3000  Lat 2000*4 + 3000*200        = 608000
  C  loc 2  Dr 4000  D1mr 2000             Lat 2000*4 + 2000*14         =  36000
  EVIL loc 3 Dr 1000 D1mr  900             Lat  100*4 +  900*14         =  13000
  D  loc 0  Dr  200  D1mr  100  D2mr  100  Lat  100*4 +  100*200        =  20400

Sampled cost: every sample of a D1m event adds the period (100) to Dr or Dw
and to D1m, to D2m when memory served it, and 100 * the serving latency to Lat:
  A  loc 0  20 samples, 5 from memory: Dr 2000 D1mr 2000 D2mr 500
            Lat 100*(15*14 + 5*200) = 121000
  A  loc 4  13 samples, 3 from memory: Dr 1300 D1mr 1300 D2mr 300
            Lat 100*(10*14 + 3*200) = 74000
  B  loc 1  35 samples, all memory: Dw 3500 D1mw 3500 D2mw 3500 Lat 700000
  C  loc 2  20 samples, all L2: Dr 2000 D1mr 2000 Lat 28000
  EVIL loc 3 11 samples, all L2: Dr 1100 D1mr 1100 Lat 15400
  D  loc 0   1 sample, memory: Dr 100 D1mr 100 D2mr 100 Lat 20000

report --sampled, by object: every sampled access missed L1, so
MissLat = Lat - (Dr + Dw - D1) * 4 = Lat.  Total MissLat 958400, D1 10000.
  B    MissLat 700000  73.04%  Miss% 35  Lat/Miss 200.00  DLmr 0   DLmw 3500
  A    MissLat 195000  20.35%  Miss% 33  Lat/Miss 195000/3300 = 59.09  DLmr 800
  C    MissLat  28000   2.92%  Miss% 20  Lat/Miss 14.00
  D    MissLat  20000   2.09%  Miss%  1  Lat/Miss 200.00  DLmr 100
  EVIL MissLat  15400   1.61%  Miss% 11  Lat/Miss 14.00
  (700000/958400 = .73038, 195000/958400 = .20346, 28000/958400 = .02922,
   20000/958400 = .02087, 15400/958400 = .01607)
Levels (estimates): L1 accesses 10000, misses 10000, hit 0.00; L2 accesses
10000, misses 800 + 3500 + 100 = 4400, hit 56.00; memory 4400.
By function: main a.c = A loc 0 + B + D = 121000 + 700000 + 20000 = 841000,
init a.c = 74000, walk b.c = 28000, "" = 15400.

Residency (resid MILLILINES / 1000; pct = lines * 64 / max_live_bytes * 100):
  A     L1 256 lines * 64 / 65536 = 25.00 %   L2 1024 lines = 100.00 %
  B     L1 128.5 * 64 / 32768 = 25.10 %        L2 no row: 0 lines, 0.00 %
  C     L1 64 * 64 / 8192 = 50.00 %            L2 128 * 64 / 8192 = 100.00 %
  EVIL  L1 15.5 * 64 / 1000 = 99.20 %          L2 0
  D     L1 2 * 64 / 800 = 16.00 %              L2 0
  [stack] L1 3 lines, no max_live_bytes: pct empty
"""
import json

from harness import DCPROF, run
from test_cli_common import (EVIL_JSON, EVIL_TEXT, SAMPLED_EVICT, TWO_LEVEL, CliTest,
                             downgrade_to_v1, text_rows)

SAMPLED_ROWS = {
    # bucket: (MissLat, MissLatPct, MissPct, LatPerMiss, Dr, Dw, D1mr, D1mw, DLmr, DLmw)
    "B": (700000, 73.04, 35.0, 200.0, 0, 3500, 0, 3500, 0, 3500),
    "A": (195000, 20.35, 33.0, 59.09, 3300, 0, 3300, 0, 800, 0),
    "C": (28000, 2.92, 20.0, 14.0, 2000, 0, 2000, 0, 0, 0),
    "D": (20000, 2.09, 1.0, 200.0, 100, 0, 100, 0, 100, 0),
    EVIL_JSON: (15400, 1.61, 11.0, 14.0, 1100, 0, 1100, 0, 0, 0),
}
COLUMNS = ["MissLat", "MissLatPct", "MissPct", "LatPerMiss", "Dr", "Dw", "D1mr", "D1mw",
           "DLmr", "DLmw"]


class Sampled(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile(SAMPLED_EVICT)

    def json(self, *opts):
        return json.loads(self.run_dcprof("report", self.db, "--format", "json", *opts))

    def test_object_rows(self):
        doc = self.json("--sampled")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["B", "A", "C", "D", EVIL_JSON])
        for row in doc["rows"]:
            for name, want in zip(COLUMNS, SAMPLED_ROWS[row["bucket"]]):
                self.assertAlmostEqual(row[name], want, delta=0.005, msg=name)
        self.assertEqual(doc["totals"]["MissLat"], 958400)
        self.assertEqual(doc["totals"]["D1mr"] + doc["totals"]["D1mw"], 10000)

    def test_json_sample_and_levels(self):
        doc = self.json("--sampled")
        self.assertIs(doc["sampled"], True)
        self.assertEqual(doc["sample"], {"event": "D1m", "period": 100, "seed": 7,
                                         "samples": 100})
        self.assertEqual([(l["accesses"], l["misses"]) for l in doc["levels"]],
                         [(10000, 10000), (10000, 4400)])
        self.assertEqual(doc["memory_accesses"], 4400)
        exact = self.json()
        self.assertIs(exact["sampled"], False)
        self.assertIsNone(exact["sample"])
        self.assertEqual(exact["totals"]["D1mr"] + exact["totals"]["D1mw"], 10000)
        self.assertEqual(exact["totals"]["MissLat"], 902600)   # not the estimate

    def test_by_function(self):
        doc = self.json("--sampled", "--by", "function")
        self.assertEqual([(r["function"], r["file"], r["MissLat"]) for r in doc["rows"]],
                         [("main", "a.c", 841000), ("init", "a.c", 74000),
                          ("walk", "b.c", 28000), ("???", "", 15400)])

    def test_text(self):
        out = self.run_dcprof("report", self.db, "--sampled")
        self.assertIn("\nsampled:  estimates from 100 samples of D1m, period 100, seed 7;"
                      " every number below is an estimate\n", out)
        levels = text_rows(out, "level")
        self.assertEqual(levels["L1"], ["L1", "10,000", "10,000", "0.00"])
        self.assertEqual(levels["L2"], ["L2", "10,000", "4,400", "56.00"])
        rows = text_rows(out, "bucket")
        self.assertEqual(rows["A"], ["A", "global", "195,000", "20.35", "33.00", "59.09",
                                     "195,000", "3,300", "0", "3,300", "0", "800", "0"])
        self.assertEqual(rows[EVIL_TEXT][:3], [EVIL_TEXT, "user", "15,400"])
        self.assertNotIn("sampled:", self.run_dcprof("report", self.db))

    def test_csv_has_the_exact_columns(self):
        exact = self.run_dcprof("report", self.db, "--format", "csv").splitlines()
        sampled = self.run_dcprof("report", self.db, "--format", "csv", "--sampled")
        self.assertEqual(sampled.splitlines()[0], exact[0])
        self.assertEqual(sampled.splitlines()[1], "B,global,700000,73.03839733,35,200,700000,"
                         "0,3500,0,3500,0,3500")

    def test_not_with_stats(self):
        self.assertError(run([DCPROF, "report", self.db, "--sampled", "--stats"]),
                         "dcprof report", "--stats cannot be combined with --by, --function,"
                         " --thread or --sampled")


class NoSamples(CliTest):
    def check(self, db):
        for fmt in ("text", "csv", "json"):
            self.assertError(run([DCPROF, "report", db, "--sampled", "--format", fmt]),
                             "dcprof report", "profile '%s' has no samples; record with"
                             " --sample=EVENT:N" % db)

    def test_version_2_without_sampling(self):
        self.check(self.profile(TWO_LEVEL))

    def test_version_1(self):
        db = self.profile(SAMPLED_EVICT)
        downgrade_to_v1(db)
        self.check(db)


class Residency(CliTest):
    def stats(self, db):
        doc = json.loads(self.run_dcprof("report", db, "--stats", "--format", "json"))
        return {r["bucket"]: r for r in doc["rows"]}, doc

    def test_columns(self):
        rows, doc = self.stats(self.profile(SAMPLED_EVICT))
        got = {b: (r["L1_resident_lines"], r["L1_resident_pct"], r["L2_resident_lines"],
                   r["L2_resident_pct"]) for b, r in rows.items()}
        self.assertEqual(got, {
            "A": (256.0, 25.0, 1024.0, 100.0),
            "B": (128.5, 25.09765625, 0.0, 0.0),
            "C": (64.0, 50.0, 128.0, 100.0),
            EVIL_JSON: (15.5, 99.2, 0.0, 0.0),
            "D": (2.0, 16.0, 0.0, 0.0),
            "[stack]": (3.0, None, 0.0, None),
        })
        self.assertIsNone(doc["totals"]["L1_resident_lines"])

    def test_text_and_sort(self):
        db = self.profile(SAMPLED_EVICT)
        out = self.run_dcprof("report", db, "--stats", "--sort", "l1_resident_pct")
        rows = text_rows(out, "bucket")
        self.assertEqual(list(rows)[:6], [EVIL_TEXT, "C", "B", "A", "D", "[stack]"])
        self.assertEqual(rows["B"][-4:], ["128.50", "25.10", "0.00", "0.00"])
        self.assertEqual(rows["[stack]"][-4:], ["3.00", "-", "0.00", "-"])

    def test_absent_without_residency(self):
        rows, _ = self.stats(self.profile(TWO_LEVEL))
        self.assertNotIn("L1_resident_lines", rows["arr_a"])
        db = self.profile(SAMPLED_EVICT)
        downgrade_to_v1(db)
        rows, doc = self.stats(db)
        self.assertEqual(doc["schema_version"], 1)
        self.assertNotIn("L1_resident_pct", rows["A"])
        self.assertEqual(rows["A"]["max_live_bytes"], 65536)


class VersionOne(CliTest):
    """A version 1 profile reads as before: the exact report is unchanged."""

    def test_report(self):
        db = self.profile(SAMPLED_EVICT)
        want = json.loads(self.run_dcprof("report", db, "--format", "json", "--by", "line"))
        downgrade_to_v1(db)
        got = json.loads(self.run_dcprof("report", db, "--format", "json", "--by", "line"))
        self.assertEqual(got["schema_version"], 1)
        self.assertEqual(got["rows"], want["rows"])
        self.assertEqual(got["totals"], want["totals"])
