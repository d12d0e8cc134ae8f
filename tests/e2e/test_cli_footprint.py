"""dcprof footprint (issue 6, seeds/004 §5-§7) and finalize of the raw dump
version 4 trace records, on fixtures/trace.raw, whose figures are derived
here; then the accuracy targets on recorded microbenchmarks
(tests/workloads/fp_micro.c).

The dump, in the order the engine writes it (a window's twin, its accesses
with implicit times, its period and reference when the next window starts;
names, the last period and the function references at exit), holds 2
windows of w = 4 records, each with a period of 8 records
(rho = 2 for both, no leading gap), 64-byte blocks:

  window 0  t0 main 0x1000 s implied 1   block 0x40
            t1 main 0x1008 s             block 0x40: intra reuse, D = 0
            t2 walk 0x9000 i             block 0x240
            t3 main 0x1040 s             block 0x41
  window 1  t8 w LF lk 0x9000 i          block 0x240, last seen at t2 in
                                         window 0: inter reuse, 6 records
            t9 walk 0x9040 i             block 0x241
            t10 w LF lk 0x9000 i impl 2  block 0x240: intra, D = 1 (0x241)
            t11 main 0x2000 c            a Constant record

Window 0: A 4, A_const 1, F 3 (F_str 2, F_irr 1), D 0.  Window 1: A 3,
A_const 2 + 1 = 3, F 2 (F_irr 2), D 1.
Run (x rho 2): A 14, A_const 8, F 10, F_str 4, F_irr 6; dF = 10/22 = 0.4545,
A_const % = 8/22 = 36.36, kappa = 1 + 8/14 = 1.571, F_str % 40, F_irr % 60,
D = (0 + 1)/2 = 0.5, D inter = dF x 6 = 2.727; rho = 16/8 = 2.
Functions (distinct blocks per window per function, x 2):
  main:    A 6, A_const 4 (t0's implied, t11), F 4 (F_str 4), dF 0.4,
           A_const % 40, D 0, records 4
  walk:    A 4, F 4 (F_irr 4), dF 1.0, records 2
  w LF lk: A 4, A_const 4, F 2 (block 0x240 once in window 1), dF 0.25,
           A_const % 50, D 1, D inter 2.727, records 2
  order by A, ties by name (bytes): main, w LF lk, walk.
Interval tree: root = run (start 0, end 16); level 1 = window 0 (A 8,
A_const 2, F 6, dF 0.6, F_str 66.67 %) and window 1 (A 6, A_const 6, F 4,
dF 0.333, F_irr 100 %).
Trace-window histograms (MemGaze §7.1, Figure 8; w = 4: tile sizes 2 and
4, each window cut from its first record): window 0 in tiles of 2: {0x40}
(F 1, Strided), {0x240, 0x41} (F 2: 1 Irregular, 1 Strided); of 4: F 3
(2 Strided, 1 Irregular).  Window 1 in tiles of 2: {0x240, 0x241} (F 2
Irregular), {0x240} + the Constant record (F 1 Irregular); of 4: F 2
Irregular.  Sampled means: size 2 over 4 tiles F 6/4 = 1.5, F_str 0.5,
F_irr 1.0; size 4 over 2 tiles F 2.5, F_str 1.0, F_irr 1.5.  The fixture's
full-trace bins (meta trace_hist 2:8:10:4:6,4:4:12:4:8): size 2 F 1.25,
F_str 0.5, F_irr 0.75; size 4 F 3, F_str 1, F_irr 2.  Errors: size 2 F 20 %,
F_str 0 %, F_irr 33.33 %; size 4 F 16.67 %, F_str 0 %, F_irr 25 %: MAPE F
18.33 %, F_str 0 %, F_irr 29.17 %.
Period estimates: each window estimates rho F_i: window 0: F 6 vs 5 (20 %), F_str
4 vs 4 (0 %), F_irr 2 vs 1 (100 %); window 1: F 4 vs 4, F_str 0 vs 0 (not
compared), F_irr 4 vs 4: MAPE F 10 %, F_str 0 %, F_irr 50 %.  Code windows
(exact from tfn): idle A 100 F 10 F_str 10 (never sampled: 100 % errors,
F_irr exact 0: no error); main A 6 vs 6 (0 %), F 4 vs 5 (20 %), F_str 4 vs 5
(20 %); walk A 4 vs 5 (20 %), F 4 vs 4, F_irr 4 vs 4; w LF lk all exact.
Zoom (tau 5, 4 KiB pages): 7 non-Constant accesses; pages 0x1000 (3) and
0x9000 (4) are separate runs, both hot; the first is all arr (one bucket:
final), the second is split down to 4 KiB pages:
  0x9000-0xa000: 4 accesses (57.14 %), blocks 2, A/block 2, D 1 (t10),
    functions w LF lk and walk (2 each; ties by name), bucket list (2, tied
    with EVIL's 2: the lower id)
  0x1000-0x2000: 3 (42.86 %), blocks 2, A/block 1.5, D 0, main, arr.
"""
import csv
import io
import json

from harness import DCPROF, run, workload
from test_cli_common import (EVIL_TEXT, TRACE, TWO_LEVEL, CliTest, query_bytes,
                             downgrade_to_v2)

LF_NAME = "w\\x0alk"          # "w" LF "lk", escaped in every format


class FootprintTest(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile(TRACE)

    def json(self, *opts):
        return json.loads(self.run_dcprof("footprint", self.db, "--format", "json", *opts))

    def check_row(self, row, want):
        for k, v in want.items():
            if v is None:
                self.assertIsNone(row[k], k)
            elif isinstance(v, float):
                self.assertAlmostEqual(row[k], v, places=3, msg=k)
            else:
                self.assertEqual(row[k], v, k)


class Functions(FootprintTest):
    def test_summary(self):
        t = self.json()["trace"]
        self.check_row(t, {"window": 4, "period": 8, "block": 64, "windows": 2, "records": 16,
                           "sampled_records": 8, "rho": 2.0, "kappa": 1 + 8 / 14, "A": 14.0,
                           "A_const_pct": 800 / 22, "F": 10.0, "dF": 10 / 22,
                           "F_str_pct": 40.0, "F_irr_pct": 60.0, "D": 0.5,
                           "D_inter": 60 / 22})

    def test_rows(self):
        doc = self.json()
        rows = doc["rows"]
        self.assertEqual([r["function"] for r in rows], ["main", LF_NAME, "walk"])
        self.check_row(rows[0], {"A": 6, "A_const_pct": 40.0, "F": 4, "dF": 0.4,
                                 "F_str_pct": 100.0, "F_irr_pct": 0.0, "D": 0.0,
                                 "D_inter": None, "records": 4})
        self.check_row(rows[1], {"A": 4, "A_const_pct": 50.0, "F": 2, "dF": 0.25,
                                 "F_irr_pct": 100.0, "D": 1.0, "D_inter": 60 / 22,
                                 "records": 2})
        self.check_row(rows[2], {"A": 4, "A_const_pct": 0.0, "F": 4, "dF": 1.0,
                                 "F_irr_pct": 100.0, "D": None, "records": 2})
        self.check_row(doc["totals"], {"A": 14, "F": 10, "dF": 10 / 22, "records": 8})

    def test_text(self):
        out = self.run_dcprof("footprint", self.db)
        self.assertIn("rho 2.0", out)
        self.assertIn("dF 0.455, F_str 40.00 %, F_irr 60.00 %, D 0.50, D inter 2.73", out)
        self.assertIn("w\\x0alk", out)          # the program's name, escaped
        self.assertNotIn("w\nlk", out)
        self.assertRegex(out, r"main\s+6\s+40\.00\s+4\s+0\.400\s+100\.00\s+0\.00\s+0\.00\s+-\s+4")

    def test_csv(self):
        rows = list(csv.reader(io.StringIO(self.run_dcprof("footprint", self.db, "--format",
                                                           "csv"))))
        self.assertEqual(rows[0], ["function", "A", "A_const_pct", "F", "dF", "F_str_pct",
                                   "F_irr_pct", "D", "D_inter", "records"])
        self.assertEqual(rows[2][0], LF_NAME)
        self.assertEqual(len(rows), 4)

    def test_top(self):
        self.assertEqual(len(self.json("--top", "1")["rows"]), 1)


class Interval(FootprintTest):
    def test_tree(self):
        rows = self.json("--by", "interval")["rows"]
        self.assertEqual([(r["level"], r["node"], r["first_window"], r["last_window"],
                           r["start"], r["end"], r["worst"]) for r in rows],
                         [(0, 0, 0, 1, 0, 16, True), (1, 0, 0, 0, 0, 8, True),
                          (1, 1, 1, 1, 8, 16, False)])
        self.check_row(rows[0], {"A": 14, "F": 10, "dF": 10 / 22})
        self.check_row(rows[1], {"A": 8, "A_const_pct": 20.0, "F": 6, "dF": 0.6,
                                 "F_str_pct": 200 / 3, "D": 0.0, "D_inter": None})
        self.check_row(rows[2], {"A": 6, "A_const_pct": 50.0, "F": 4, "dF": 4 / 12,
                                 "F_irr_pct": 100.0, "D": 1.0, "D_inter": 60 / 22})

    def test_levels(self):
        self.assertEqual(len(self.json("--by", "interval", "--levels", "1")["rows"]), 1)


class Zoom(FootprintTest):
    def test_regions(self):
        rows = self.json("--zoom")["rows"]
        self.assertEqual([(r["lo"], r["hi"], r["size"], r["accesses"], r["blocks"])
                          for r in rows],
                         [(0x9000, 0xa000, 4096, 4, 2), (0x1000, 0x2000, 4096, 3, 2)])
        self.check_row(rows[0], {"pct": 400 / 7, "A_per_block": 2.0, "D": 1.0,
                                 "functions": LF_NAME + ", walk", "bucket": "list"})
        self.check_row(rows[1], {"pct": 300 / 7, "A_per_block": 1.5, "D": 0.0,
                                 "functions": "main", "bucket": "arr"})

    def test_tau_keeps_one_region(self):
        # tau 50: only the 0x9000 page holds half the accesses; the 0x1000
        # run (3 of 7 = 42.9 %) is cold and dropped.
        rows = self.json("--zoom", "--tau", "50")["rows"]
        self.assertEqual([(r["lo"], r["hi"]) for r in rows], [(0x9000, 0xa000)])

    def test_one_bucket_is_one_region(self):
        # t3 moved to 0x3040: arr's accesses are on pages 0x1000 and 0x3000,
        # not contiguous, but one bucket: one final region with their
        # bounds in 4 KiB pages (without the bucket rule, two regions)
        with open(TRACE, "rb") as f:
            data = f.read().replace(b"trec 0 0 0x1040 s 0", b"trec 0 0 0x3040 s 0")
        r, db = self.finalize(self.write("gap.raw", data), "gap.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = json.loads(self.run_dcprof("footprint", db, "--zoom", "--format",
                                          "json"))["rows"]
        self.assertEqual([(r["lo"], r["hi"], r["accesses"], r["blocks"], r["bucket"])
                          for r in rows],
                         [(0x9000, 0xa000, 4, 2, "list"), (0x1000, 0x4000, 3, 2, "arr")])

    def test_text_escapes(self):
        out = self.run_dcprof("footprint", self.db, "--zoom")
        self.assertIn("0x9000-0xa000", out)
        self.assertIn("w\\x0alk, walk", out)


class Accuracy(FootprintTest):
    def test_period_estimates(self):
        t = self.json("--accuracy")["period_estimates"]
        self.check_row(t, {"windows": 2, "mape_F": 10.0, "mape_F_str": 0.0,
                           "mape_F_irr": 50.0})

    def test_trace_window_histograms(self):
        t = self.json("--accuracy")["trace_windows"]
        self.check_row(t, {"sizes": 2, "mape_F": (20 + 50 / 3) / 2, "mape_F_str": 0.0,
                           "mape_F_irr": (100 / 3 + 25) / 2})
        self.assertEqual(len(t["bins"]), 2)
        self.check_row(t["bins"][0], {"size": 2, "tiles": 4, "full_tiles": 8, "F": 1.5,
                                      "F_full": 1.25, "F_str": 0.5, "F_str_full": 0.5,
                                      "F_irr": 1.0, "F_irr_full": 0.75})
        self.check_row(t["bins"][1], {"size": 4, "tiles": 2, "full_tiles": 4, "F": 2.5,
                                      "F_full": 3.0, "F_str": 1.0, "F_irr": 1.5,
                                      "F_irr_full": 2.0})

    def test_no_full_histograms(self):
        # a profile from before meta trace_hist: no sizes compared
        with open(TRACE, "rb") as f:
            data = f.read().replace(b"meta trace_hist 2:8:10:4:6,4:4:12:4:8\n", b"")
        r, db = self.finalize(self.write("nohist.raw", data), "nohist.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(self.run_dcprof("footprint", db, "--accuracy", "--format", "json"))
        self.assertEqual(doc["trace_windows"]["sizes"], 0)
        self.assertIsNone(doc["trace_windows"]["mape_F"])
        self.assertIsNone(doc["trace_windows"]["bins"][0]["F_full"])
        self.assertIn("trace windows: no histograms to compare",
                      self.run_dcprof("footprint", db, "--accuracy"))

    def test_code_windows(self):
        rows = {r["function"]: r for r in self.json("--accuracy")["rows"]}
        self.assertEqual(sorted(rows), sorted(["idle", "main", "walk", LF_NAME]))
        self.check_row(rows["idle"], {"A": 100, "A_est": 0, "A_err_pct": 100.0,
                                      "F_err_pct": 100.0, "F_str_err_pct": 100.0,
                                      "F_irr_err_pct": None})
        self.check_row(rows["main"], {"A": 6, "A_est": 6, "A_err_pct": 0.0, "F": 5,
                                      "F_est": 4, "F_err_pct": 20.0, "F_str_err_pct": 20.0,
                                      "F_irr_err_pct": None})
        self.check_row(rows["walk"], {"A": 5, "A_est": 4, "A_err_pct": 20.0,
                                      "F_err_pct": 0.0, "F_str_err_pct": None,
                                      "F_irr_err_pct": 0.0})
        self.check_row(rows[LF_NAME], {"A_err_pct": 0.0, "F_err_pct": 0.0,
                                       "F_irr_err_pct": 0.0})

    def test_text(self):
        out = self.run_dcprof("footprint", self.db, "--accuracy")
        self.assertIn("period estimates: MAPE of 2 windows' rho_i F_i against their period's"
                      " exact F: F 10.00 %, F_str 0.00 %, F_irr 50.00 %", out)
        self.assertIn("trace windows: MAPE of the histograms over 2 window sizes (2 to 4"
                      " records) inside samples against the full trace (MemGaze, Marquez et"
                      " al., section 7.1): F 18.33 %, F_str 0.00 %, F_irr 29.17 %", out)
        self.assertNotIn("seeds/", out)


class Finalize(FootprintTest):
    def test_tables(self):
        self.assertEqual(query_bytes(self.db, "SELECT * FROM trace_window"),
                         [(0, 0, 8, 5, 4, 1), (1, 8, 8, 4, 0, 4)])
        self.assertEqual(query_bytes(self.db, "SELECT * FROM trace_access WHERE time = 10"),
                         [(1, 10, 2, 2, 0x9000, b"i", 2)])
        self.assertEqual(query_bytes(self.db, "SELECT * FROM trace_function_ref WHERE"
                                     " accesses = 4"), [(b"w\nlk", 4, 4, 2, 0, 2)])

    def dump_error(self, old, new, message):
        with open(TRACE, "rb") as f:
            data = f.read().replace(old, new)
        r, db = self.finalize(self.write("bad.raw", data), "bad.db")
        self.assertError(r, "dcprof finalize", message)

    def test_access_before_any_window(self):
        self.dump_error(b"twin 0 0\n", b"", "line 8: trec before any twin")

    def test_undeclared_location(self):
        self.dump_error(b"trec 0 0 0x2000 c 0", b"trec 3 0 0x2000 c 0",
                        "line 19: trec names location 3, which is never declared")

    def test_missing_period(self):
        self.dump_error(b"tper 1 8\n", b"", "trace window 1 has no tper record")

    def test_cut_short_keeps_what_resolves(self):
        # cut after a third window's first access: its period becomes its
        # accesses (1); it and window 1 (no tper yet) are kept; the dump is
        # incomplete.  Names and costs come at exit, so cut right after the
        # names instead to keep the accesses resolvable.
        with open(TRACE, "rb") as f:
            data = f.read()
        cut = data[:data.index(b"cost 0 0")] + b"twin 2 16\ntrec 0 0 0x3000 s 0\n"
        r, db = self.finalize(self.write("cut.raw", cut), "cut.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(query_bytes(db, "SELECT id, start, period FROM trace_window"),
                         [(0, 0, 8), (1, 8, 4), (2, 16, 1)])
        self.assertEqual(query_bytes(db, "SELECT COUNT(*), MAX(time) FROM trace_access"),
                         [(9, 16)])
        self.assertEqual(query_bytes(db, "SELECT value FROM meta WHERE key = 'complete'"),
                         [(b"0",)])

    def test_cut_before_names_drops_accesses(self):
        with open(TRACE, "rb") as f:
            data = f.read()
        cut = data[:data.index(b"bucket 0")]
        r, db = self.finalize(self.write("cut.raw", cut), "cut.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(query_bytes(db, "SELECT COUNT(*) FROM trace_access"), [(0,)])

    def test_bad_class(self):
        self.dump_error(b"0x2000 c 0", b"0x2000 x 0", "line 19: unknown load class 'x'")

    def test_windows_out_of_order(self):
        self.dump_error(b"twin 1 8", b"twin 3 8", "line 14: trace window 3 out of order")
        self.dump_error(b"twin 1 8", b"twin 1 2", "line 14: trace window 1 starts at 2,"
                        " before the last access")

    def test_reference_of_undeclared_window(self):
        self.dump_error(b"tref 1 4 0 4", b"tref 2 4 0 4", "trace window 2 is not declared")
        self.dump_error(b"tper 0 8", b"tper 1 8", "line 13: trace window 1 is not declared")
        self.dump_error(b"tper 1 8", b"tper 0 8", "period of trace window 0 out of order"
                        " (expected 1)")

    def test_version_3_has_no_trace_records(self):
        self.dump_error(b"dcprof-raw 4", b"dcprof-raw 3", "line 8: unknown record type 'twin'")


class Errors(FootprintTest):
    def fails(self, args, message, db=None):
        r = run([DCPROF, "footprint", db or self.db] + list(args))
        self.assertError(r, "dcprof footprint", message)

    def test_no_trace(self):
        other = self.profile(TWO_LEVEL)
        self.fails([], "has no sampled trace (record with --trace-window=W)", other)

    def test_old_schema(self):
        other = self.profile(TWO_LEVEL)
        downgrade_to_v2(other)
        self.fails([], "has no sampled trace", other)

    def test_no_reference(self):
        with open(TRACE, "rb") as f:
            data = f.read().replace(b"meta trace_full yes", b"meta trace_full no")
        r, db = self.finalize(self.write("nofull.raw", data), "nofull.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.fails(["--accuracy"], "has no full-trace reference (record with --trace-full)",
                   db)

    def test_malformed_histograms(self):
        for bad in (b"2:8:10:4:5", b"4:4:12:4:8", b"2:8:10:4:6,", b"2:8:10:4:6;4"):
            with self.subTest(bad=bad):
                with open(TRACE, "rb") as f:
                    data = f.read().replace(b"2:8:10:4:6,4:4:12:4:8", bad)
                r, db = self.finalize(self.write("badhist.raw", data), "badhist.db")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.fails(["--accuracy"], "malformed trace_hist meta value", db)

    def test_usage(self):
        self.fails(["--by", "line"], "invalid --by value 'line' (function or interval)")
        self.fails(["--zoom", "--accuracy"], "--accuracy cannot be combined with --zoom")
        self.fails(["--levels", "2"], "--levels needs --by interval")
        self.fails(["--tau", "5"], "--tau needs --zoom")
        self.fails(["--zoom", "--tau", "0"], "invalid --tau value '0'")
        self.fails(["--zoom", "--min-page", "100"], "invalid --min-page value '100'")


class MicroAccuracy(CliTest):
    """The issue's targets at a 1 % sample ratio (windows of 500 records,
    one per 50,000): code-window error <= 5 % and trace-window MAPE <= 25 %
    for F, F_str and F_irr (seeds/004 §7.1), on strided (stride 1 and 4),
    irregular, conditional and serial microbenchmarks (the trace-window
    figure here is dcprof's period estimates; MicroTraceWindows checks
    MemGaze's histograms).  Their F, F_str % and
    A_const % per window are derived in fp_micro.c and checked against the
    full trace here too."""
    CASES = {
        # mode, reps: (hot function, dF, F_str %)
        ("str1", "4"): ("str1", 1 / 8, 100.0),
        ("str4", "8"): ("str4", 1 / 2, 100.0),
        ("irr", "2"): ("irr", 17 / 32, 100 / 17),
        ("cond", "2"): ("cond", 1 / 24 + 1 / 48 + 1 / 3,
                        100 * (7 / 192 + 1 / 64) / (1 / 24 + 1 / 48 + 1 / 3)),
        ("serial", "2"): ("str1", 1 / 8, 100.0),
    }

    def test_targets(self):
        for (mode, reps), (fn, growth, fstr) in self.CASES.items():
            with self.subTest(mode=mode):
                _, r = self.record([workload("fp_micro"), mode, reps],
                                   ["--collect-atstart=no", "--trace-window=500",
                                    "--trace-period=50000", "--trace-full"], out=mode + ".db")
                doc = json.loads(self.run_dcprof("footprint", r, "--accuracy", "--format",
                                                 "json"))
                tw = doc["period_estimates"]
                self.assertGreaterEqual(tw["windows"], 35)
                for k in ("mape_F", "mape_F_str", "mape_F_irr"):
                    if tw[k] is not None:
                        self.assertLessEqual(tw[k], 25.0, (k, tw))
                for row in doc["rows"]:
                    for k in ("F_err_pct", "F_str_err_pct", "F_irr_err_pct"):
                        if row[k] is not None:
                            self.assertLessEqual(row[k], 5.0, (k, row))
                # the exact full-trace figures match the derivation; tiles of
                # w records cut each strided stream once, adding at most one
                # Strided block per stream per 500 records (0.5 points of F_str %)
                ref = query_bytes(r, "SELECT accesses, const_loads, f, f_str FROM"
                                  " trace_function_ref WHERE function = ?", fn)[0]
                a, aconst, f, fs = ref
                self.assertAlmostEqual(f / (a + aconst), growth, delta=0.01 * growth + 0.002)
                self.assertAlmostEqual(100 * fs / f, fstr, delta=0.6)
                self.assertLess(100 * aconst / (a + aconst), 0.01)


def window_histograms(db, w):
    """MemGaze's trace-window histograms inside samples, computed here from
    trace_access alone: each window cut from its first record into tiles of
    2, 4, ... <= w records; a complete tile's F is its distinct blocks of
    non-Constant records, split by the class of each block's first access
    in the tile.  Returns {size: (tiles, F, F_str, F_irr)} (sums)."""
    block = int(query_bytes(db, "SELECT value FROM meta WHERE key = 'trace_block'")[0][0])
    wins = {}
    for win, addr, cls in query_bytes(db, "SELECT window, address, class FROM trace_access"
                                      " ORDER BY time"):
        wins.setdefault(win, []).append((addr // block, cls.decode()))
    out = {}
    size = 2
    while size <= w:
        tiles = f = fs = fi = 0
        for recs in wins.values():
            for lo in range(0, len(recs) - size + 1, size):
                first = {}
                for b, c in recs[lo:lo + size]:
                    if c != "c" and b not in first:
                        first[b] = c
                tiles += 1
                f += len(first)
                fs += sum(1 for c in first.values() if c == "s")
                fi += sum(1 for c in first.values() if c == "i")
        out[size] = (tiles, f, fs, fi)
        size *= 2
    return out


class MicroTraceWindows(CliTest):
    """MemGaze's trace-window validation (A. Marquez et al., PNNL-33259,
    §7.1, Figure 8: "metric histograms with power-of-2 windows") on a
    strided and an irregular microbenchmark (fp_micro.c), windows of 500
    records one per 50,000: tile sizes 2 to 256.

    Expected: the paper reports MAPE < 25 % for F, higher for more
    irregular benchmarks.  str1 (one stride-8-byte record per element, 8 per
    64-byte block): a tile of s >= 8 records touches s/8 or s/8 + 1 blocks
    whatever its start, in the samples and in the full trace alike, so the
    histograms nearly agree.  irr: every other record a random block of b
    (2^19 blocks), so F_irr of a tile is s/2 minus rare collisions in both,
    but the Strided idx[i] blocks (16 records per block) are few per tile
    and where a tile cuts them matters: its F MAPE is above str1's."""

    def profile(self, mode, reps):
        _, db = self.record([workload("fp_micro"), mode, reps],
                            ["--cache=L1=32K:8:64,L2=1M:16:64", "--collect-atstart=no",
                             "--trace-window=500", "--trace-period=50000", "--trace-full"],
                            out=mode + ".db")
        doc = json.loads(self.run_dcprof("footprint", db, "--accuracy", "--format", "json"))
        return db, doc["trace_windows"]

    def test_strided_and_irregular(self):
        mape = {}
        for mode, reps in (("str1", "4"), ("irr", "2")):
            with self.subTest(mode=mode):
                db, tw = self.profile(mode, reps)
                self.assertEqual([b["size"] for b in tw["bins"]],
                                 [2, 4, 8, 16, 32, 64, 128, 256])
                self.assertEqual(tw["sizes"], 8)
                # the sampled bins against the Python computation over the
                # profile's own trace
                ref = window_histograms(db, 500)
                for b in tw["bins"]:
                    tiles, f, fs, fi = ref[b["size"]]
                    self.assertEqual(b["tiles"], tiles)
                    self.assertAlmostEqual(b["F"], f / tiles, places=6)
                    self.assertAlmostEqual(b["F_str"], fs / tiles, places=6)
                    self.assertAlmostEqual(b["F_irr"], fi / tiles, places=6)
                # the full trace: floor(records / s) tiles, and the derived
                # footprints of the text above
                records = int(query_bytes(db, "SELECT value FROM meta WHERE"
                                          " key = 'trace_records'")[0][0])
                for b in tw["bins"]:
                    s = b["size"]
                    self.assertEqual(b["full_tiles"], records // s)
                    if mode == "str1" and s >= 8:
                        self.assertGreaterEqual(b["F_full"], s / 8 - 0.01, b)
                        self.assertLessEqual(b["F_full"], s / 8 + 1, b)
                    if mode == "irr":
                        self.assertAlmostEqual(b["F_irr_full"], s / 2, delta=0.01 * s, msg=b)
                self.assertLessEqual(tw["mape_F"], 25.0, tw)
                mape[mode] = tw["mape_F"]
        self.assertGreater(mape["irr"], mape["str1"], mape)
