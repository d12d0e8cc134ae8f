"""dcprof diff: what changed from one profile to another.

BASE is fixtures/two_level.raw (its numbers are derived in test_cli_common.py,
lines A to E).  NEW is the same dump with four changes, each derived here
with the fixture's rule Lat = (L1 hits)*4 + (L1 misses that hit L2)*14 +
(L2 misses)*200 and MissLat = Lat - (L1 hits)*4:

  A  arr_a (main a.c:10): D1mr 100 -> 25, D2mr 10 as before:
     Lat = 975*4 + 15*14 + 10*200 = 6110, MissLat 6110 - 3900 = 2210
     arr_a (A+B): MissLat 13260 -> 12210 (-1050, -7.92 %), Lat 18660 -> 17910,
     D1mr 100 -> 25
  D  removed: list-main keeps line C only: MissLat 24200 -> 4200 (-20000),
     Dr 2100 -> 2000, D1mr 300 -> 200, DLmr 100 -> 0, Lat 35000 -> 15000
  E  removed: EVIL is in BASE only (MissLat 0 -> 0, Dr 10 -> 0, Dw 10 -> 0)
  F  added: bucket "fresh" (global), main a.c:11, 20 writes that all miss
     both levels: Lat 20*200 = 4000 = MissLat; in NEW only

Sorted by the size of the MissLat change: list-main (-20000), fresh (+4000),
arr_a (-1050), EVIL (0).  Totals: MissLat 37460 -> 12210 + 4200 + 4000 =
20410 (-17050, -45.52 %); Lat 53740 -> 17910 + 15000 + 4000 = 36910.
By function, Dr: walk b.c 2100 -> 2000 (-100); main a.c 1010 -> 1000
(A 1000, B 0, F 0; E's 10 gone: -10).

The end-to-end test at the bottom diffs two runs of reuse_mix.c."""
import csv
import io
import json
import os
import unittest

from harness import BUILD, DCPROF, run
from test_cli_common import (EVIL_JSON, EVIL_TEXT, SAMPLED_EVICT, TWO_LEVEL, CliTest,
                             text_rows)

LINE_A = b"cost 0 0 1 1000 0 100 0 10 0 6860"
LINE_D = b"cost 1 2 2 100 0 100 0 100 0 20000"
LINE_E = b"cost 2 0 1 10 10 0 0 0 0 80"


def new_dump():
    with open(TWO_LEVEL, "rb") as f:
        lines = f.read().split(b"\n")[:-1]
    out = []
    for l in lines:
        if l == LINE_A:
            out.append(b"cost 0 0 1 1000 0 25 0 10 0 6110")
        elif l in (LINE_D, LINE_E):
            continue
        elif l == b"end 1":
            out += [b"bucket 5 global fresh", b"cost 5 1 1 0 20 0 20 0 20 4000", l]
        else:
            out.append(l)
    assert len(out) == len(lines) + 1 - 2 + 1 - 1 + 1, "the fixture changed"
    return b"\n".join(out) + b"\n"


class Diff(CliTest):
    def setUp(self):
        super().setUp()
        self.base = self.profile()
        r, self.new = self.finalize(self.write("new.raw", new_dump()), "new.db")
        self.assertEqual(r.returncode, 0, r.stderr)

    def diff(self, *opts):
        return self.run_dcprof("diff", self.base, self.new, *opts)

    def json(self, *opts):
        return json.loads(self.diff("--format", "json", *opts))

    def test_rows_sorted_by_the_size_of_the_change(self):
        doc = self.json()
        self.assertEqual([r["bucket"] for r in doc["rows"]],
                         ["list-main", "fresh", "arr_a", EVIL_JSON])
        self.assertEqual([r["in"] for r in doc["rows"]], ["both", "new", "both", "base"])
        self.assertEqual([r["MissLat_delta"] for r in doc["rows"]], [-20000, 4000, -1050, 0])
        self.assertEqual(doc["sort"], "MissLat")
        self.assertEqual(doc["total_rows"], 4)

    def test_values_of_both_and_the_change(self):
        rows = {r["bucket"]: r for r in self.json()["rows"]}
        a = rows["arr_a"]
        self.assertEqual((a["MissLat_base"], a["MissLat_new"]), (13260, 12210))
        self.assertEqual((a["Lat_base"], a["Lat_new"], a["Lat_delta"]), (18660, 17910, -750))
        self.assertEqual((a["D1mr_base"], a["D1mr_new"], a["D1mr_delta"]), (100, 25, -75))
        self.assertAlmostEqual(a["delta_pct"], -1050 / 13260 * 100, places=6)
        # LatPerMiss: 13260/150 = 88.4 -> 12210/75 = 162.8
        self.assertAlmostEqual(a["LatPerMiss_delta"], 162.8 - 88.4, places=6)
        m = rows["list-main"]
        self.assertEqual((m["Dr_delta"], m["D1mr_delta"], m["DLmr_delta"], m["Lat_delta"]),
                         (-100, -100, -100, -20000))
        # a row on one side counts zero on the other; its ratio is null there
        f = rows["fresh"]
        self.assertEqual((f["MissLat_base"], f["MissLat_new"], f["Dw_delta"]), (0, 4000, 20))
        self.assertIsNone(f["LatPerMiss_base"])
        self.assertIsNone(f["LatPerMiss_delta"])
        self.assertIsNone(f["delta_pct"])       # no base to compare with
        e = rows[EVIL_JSON]
        self.assertEqual((e["Dr_base"], e["Dr_new"], e["Dr_delta"], e["Dw_delta"]),
                         (10, 0, -10, -10))

    def test_totals(self):
        doc = self.json()
        t = doc["totals"]
        self.assertEqual((t["MissLat_base"], t["MissLat_new"], t["MissLat_delta"]),
                         (37460, 20410, -17050))
        self.assertEqual((t["Lat_base"], t["Lat_new"]), (53740, 36910))
        self.assertAlmostEqual(t["delta_pct"], -17050 / 37460 * 100, places=6)
        self.assertEqual(doc["base"]["path"], self.base)
        self.assertEqual(doc["new"]["command"], "demo --size 100")

    def test_text(self):
        out = self.diff()
        self.assertIn("total:    MissLat 37,460 -> 20,410 (-45.52%)\n", out)
        self.assertIn("view:     by object; the largest changes of MissLat first\n", out)
        rows = text_rows(out, "bucket")
        self.assertEqual(list(rows)[:4], ["list-main", "fresh", "arr_a", EVIL_TEXT])
        # bucket, kind, in, MissLat base, new, change and change in percent,
        # then the other counts' changes: Lat, Dr, Dw, D1mr, ...
        self.assertEqual(rows["arr_a"][:9], ["arr_a", "global", "both", "13,260", "12,210",
                                             "-1,050", "-7.92", "-750", "0"])
        header = next(l for l in out.splitlines() if l.startswith("bucket"))
        self.assertIn("\u0394D1mr", header)
        self.assertNotIn("MissPct", header)     # shares and ratios: csv and json only

    def test_csv_has_every_column(self):
        lines = list(csv.reader(io.StringIO(self.diff("--format", "csv"))))
        cols = lines[0]
        self.assertEqual(cols[:7], ["bucket", "kind", "in", "MissLat_base", "MissLat_new",
                                    "MissLat_delta", "delta_pct"])
        self.assertIn("MissPct_delta", cols)
        self.assertEqual(cols[-3:], ["DLmw_base", "DLmw_new", "DLmw_delta"])
        self.assertEqual(lines[1][:6], ["list-main", "heap", "both", "24200", "4200", "-20000"])
        self.assertEqual(len(lines), 5)

    def test_sort_and_top(self):
        # Dr changes: list-main -100, EVIL -10, arr_a and fresh 0 (by name)
        doc = self.json("--sort", "dr", "--top", "3")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["list-main", EVIL_JSON, "arr_a"])
        self.assertEqual(doc["sort"], "Dr")
        self.assertEqual(doc["total_rows"], 4)
        out = self.diff("--top", "1")
        self.assertIn("(1 of 4 rows shown; --top 0 shows all)", out)

    def test_by_function(self):
        rows = self.json("--by", "function", "--sort", "Dr")["rows"]
        self.assertEqual([(r["function"], r["file"], r["Dr_delta"]) for r in rows],
                         [("walk", "b.c", -100), ("main", "a.c", -10)])

    def test_by_line_of_one_object(self):
        # arr_a's lines: a.c:10 (A) MissLat 3260 -> 2210, a.c:11 (B) 10000 as before
        rows = self.json("--object", "arr_a")["rows"]
        self.assertEqual([(r["file"], r["line"], r["MissLat_delta"]) for r in rows],
                         [("a.c", 10, -1050), ("a.c", 11, 0)])

    def test_object_in_one_profile_only(self):
        rows = self.json("--object", "fresh")["rows"]
        self.assertEqual([(r["line"], r["in"], r["MissLat_new"]) for r in rows],
                         [(11, "new", 4000)])

    def test_same_profile_changes_nothing(self):
        doc = json.loads(self.run_dcprof("diff", self.base, self.base, "--format", "json"))
        self.assertEqual(doc["total_rows"], 3)
        for r in doc["rows"]:
            self.assertEqual(r["in"], "both")
            deltas = {k: v for k, v in r.items() if k.endswith("_delta") and v is not None}
            self.assertGreaterEqual(len(deltas), 9)
            self.assertEqual(set(deltas.values()), {0}, r)


    def test_sampled(self):
        # the sampled estimates of both: the same rows as report --sampled,
        # with the estimates as base and new values
        r, db = self.finalize(SAMPLED_EVICT, "s.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(self.run_dcprof("report", db, "--sampled", "--format", "json"))
        doc = json.loads(self.run_dcprof("diff", db, db, "--sampled", "--format", "json"))
        self.assertTrue(doc["sampled"])
        want = {r["bucket"]: r["Dr"] for r in report["rows"]}
        self.assertEqual({r["bucket"]: r["Dr_new"] for r in doc["rows"]}, want)
        self.assertEqual({r["Dr_delta"] for r in doc["rows"]}, {0})


class DiffErrors(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile()

    def bad(self, args, message):
        self.assertError(run([DCPROF, "diff"] + args), "dcprof diff", message)

    def test_arguments(self):
        self.bad([], "no profiles given; see 'dcprof help diff'")
        self.bad([self.db], "no second profile given; see 'dcprof help diff'")
        self.bad([self.db, self.db, self.db], "unexpected argument '%s'" % self.db)
        self.bad([self.db, self.db, "--by", "bucket"], "invalid --by value 'bucket'")
        self.bad([self.db, self.db, "--top", "x"], "invalid --top value 'x'")

    def test_unknown_sort_metric(self):
        self.bad([self.db, self.db, "--sort", "bogus"], "unknown sort metric 'bogus' (valid:"
                 " MissLat, MissLatPct, MissPct, LatPerMiss, Lat, Dr, Dw, D1mr, D1mw, DLmr,"
                 " DLmw)")

    def test_object_in_neither(self):
        self.bad([self.db, self.db, "--object", "nothing"],
                 "no bucket named 'nothing' (in neither profile)")

    def test_inclusive_needs_the_function_view(self):
        for extra in (["--by", "line"], ["--object", "arr_a"], ["--sampled"]):
            self.bad([self.db, self.db, "--inclusive"] + extra, "--inclusive is per function:"
                     " it cannot be combined with --by object, --by line, --object or"
                     " --sampled")

    def test_sampled_without_samples(self):
        self.bad([self.db, self.db, "--sampled"], "profile '%s' has no samples; record with"
                 " --sample=EVENT:N" % self.db)

    def test_not_a_profile(self):
        junk = self.write("junk.db", "junk")
        self.bad([self.db, junk], "cannot open profile '%s'" % junk)


@unittest.skipUnless(os.path.exists(os.path.join(BUILD, "w", "reuse_mix")),
                     "workloads not built")
class DiffRuns(CliTest):
    """Two runs of reuse_mix.c (L lines swept twice, with 4 hot lines; only
    the loops between DCPROF_START and DCPROF_STOP are measured), L = 1024
    and 4096, default hierarchy (L1 32 KiB = 512 lines, L2 1 MiB).  From
    the workload's derivation: mix_sweep is read 2L times, and every read
    misses L1 (L > 512 lines: a line's reuse after L + 3 others has been
    evicted) while the second pass hits L2 (L lines fit): Dr and D1mr
    change by 2 * 3072 = 6144, D2mr by 3072.  mix_hot's 4 lines miss only
    when first touched: Dr changes by 6144, D1mr by 0."""

    def test_two_runs(self):
        dbs = []
        for lines in (1024, 4096):
            db = self.path("mix%d.db" % lines)
            r = run([DCPROF, "record", "-q", "-o", db, "--collect-atstart=no", "--",
                     os.path.join(BUILD, "w", "reuse_mix"), str(lines)])
            self.assertEqual(r.returncode, 0, r.stderr)
            dbs.append(db)
        rows = {r["bucket"]: r for r in json.loads(self.run_dcprof(
            "diff", dbs[0], dbs[1], "--format", "json"))["rows"]}
        s, h = rows["mix_sweep"], rows["mix_hot"]
        self.assertEqual((s["Dr_delta"], s["D1mr_delta"], s["D2mr_delta"]), (6144, 6144, 3072))
        self.assertEqual((h["Dr_delta"], h["D1mr_delta"]), (6144, 0))


@unittest.skipUnless(os.path.exists(os.path.join(BUILD, "w", "calls_tree")),
                     "workloads not built")
class DiffInclusive(CliTest):
    """--inclusive on calls_tree recorded with --calls --cache-use (see
    test_cli_report_inclusive.py): against itself, every function's base
    and new values are report --inclusive's, and nothing changes."""

    def test_against_itself(self):
        db = self.path("calls.db")
        r = run([DCPROF, "record", "-q", "-o", db, "--calls", "--cache-use", "--",
                 os.path.join(BUILD, "w", "calls_tree")])
        self.assertEqual(r.returncode, 0, r.stderr)
        report = json.loads(self.run_dcprof("report", db, "--inclusive", "--format", "json"))
        doc = json.loads(self.run_dcprof("diff", db, db, "--inclusive", "--format", "json"))
        self.assertEqual(doc["sort"], "InclMissLat")
        key = lambda r: (r["function"], r["file"])
        want = {key(r): (r["InclMissLat"], r["InclSpLoss1"]) for r in report["rows"]}
        got = {key(r): (r["InclMissLat_new"], r["InclSpLoss1_base"]) for r in doc["rows"]}
        self.assertEqual(got, want)
        self.assertIn(("<root>", ""), got)
        self.assertEqual({r["InclMissLat_delta"] for r in doc["rows"]}, {0})
        self.assertEqual({r["in"] for r in doc["rows"]}, {"both"})


if __name__ == "__main__":
    unittest.main()
