"""dcprof report on hand-made profiles: every view, option and format, with
the values derived by hand in test_cli_common.py."""
import csv
import io
import json
import os
import sqlite3

from harness import DCPROF, RAW_VERSION, SCHEMA_VERSION, run
from test_cli_common import (EVIL, EVIL_CSV, EVIL_JSON, EVIL_TEXT, METRICS, OBJECT_ROWS, TOTALS,
                             TWO_LEVEL, CliTest, run_bytes, text_rows)


def num(s):
    return float(s.replace(",", ""))


class ReportTest(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile()

    def report(self, *opts):
        r = run([DCPROF, "report", self.db] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def json(self, *opts):
        return json.loads(self.report("--format", "json", *opts))

    def csv(self, *opts):
        r = run_bytes([DCPROF, "report", self.db, "--format", "csv"] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        text = r.stdout.decode("utf-8", "surrogateescape")
        return list(csv.reader(io.StringIO(text, newline="")))

    def assertRow(self, row, expected):
        """row: {metric: value}; expected: the tuple of OBJECT_ROWS order."""
        for name, want in zip(METRICS, expected):
            if want is None or isinstance(want, int):
                self.assertEqual(row[name], want, name)
            else:
                self.assertAlmostEqual(row[name], want, delta=0.005, msg=name)


class ObjectView(ReportTest):
    def test_json_rows_and_order(self):
        doc = self.json()
        self.assertEqual(doc["view"], "object")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["list-main", "arr_a", EVIL_JSON])
        self.assertEqual([r["kind"] for r in doc["rows"]], ["heap", "global", "user"])
        for row in doc["rows"]:
            self.assertRow(row, OBJECT_ROWS[row["bucket"]])
        for name, want in TOTALS.items():
            self.assertAlmostEqual(doc["totals"][name], want, delta=0.005, msg=name)

    def test_json_header(self):
        doc = self.json()
        self.assertEqual(doc["schema_version"], SCHEMA_VERSION)
        self.assertEqual(doc["program"], "/opt/demo/bin/demo")
        self.assertEqual(doc["command"], "demo --size 100")
        self.assertIs(doc["complete"], True)
        self.assertIsNone(doc["incomplete_reason"])
        self.assertEqual(doc["exit_status"], "exit 0")
        self.assertEqual(doc["memory_latency"], 200)
        self.assertEqual(doc["levels"], [
            {"level": 1, "name": "L1", "size": 32768, "assoc": 8, "line_size": 64,
             "latency": 4, "accesses": 4620, "misses": 550},
            {"level": 2, "name": "L2", "size": 1048576, "assoc": 16, "line_size": 64,
             "latency": 14, "accesses": 550, "misses": 160}])
        self.assertEqual(doc["memory_accesses"], 160)

    def test_csv(self):
        rows = self.csv()
        self.assertEqual(rows[0], ["bucket", "kind", "MissLat", "MissLatPct", "MissPct",
                                   "LatPerMiss", "Lat", "Dr", "Dw", "D1mr", "D1mw",
                                   "DLmr", "DLmw"])
        self.assertEqual(len(rows), 4)    # header + 3 buckets, no totals line
        self.assertEqual(rows[1][:2], ["list-main", "heap"])
        self.assertEqual(rows[2][:2], ["arr_a", "global"])
        for row in rows[1:3]:
            vals = [None if v == "" else float(v) for v in row[2:]]
            self.assertRow(dict(zip(METRICS, vals)), OBJECT_ROWS[row[0]])
        self.assertEqual(rows[3][5], "")   # LatPerMiss of a bucket without misses

    def test_text(self):
        out = self.report()
        rows = text_rows(out, "bucket")
        self.assertEqual(rows["list-main"], ["list-main", "heap", "24,200", "64.60", "72.73",
                                             "60.50", "35,000", "2,100", "1,000", "300",
                                             "100", "100", "0"])
        self.assertEqual(rows["arr_a"], ["arr_a", "global", "13,260", "35.40", "27.27",
                                         "88.40", "18,660", "1,000", "500", "100", "50",
                                         "10", "50"])
        self.assertEqual(rows["total"], ["total", "37,460", "100.00", "100.00", "68.11",
                                         "53,740", "3,110", "1,510", "400", "150", "110",
                                         "50"])
        self.assertEqual(list(rows)[:3], ["list-main", "arr_a", EVIL_TEXT])
        header = out.splitlines()[[l.split()[:1] for l in out.splitlines()].index(["bucket"])]
        self.assertEqual(header.split(), ["bucket", "kind", "MissLat", "MissLat%", "Miss%",
                                          "Lat/Miss", "Lat", "Dr", "Dw", "D1mr", "D1mw",
                                          "DLmr", "DLmw"])

    def test_text_summary(self):
        out = self.report()
        self.assertIn("program:  /opt/demo/bin/demo\n", out)
        self.assertIn("status:   complete, exit 0\n", out)
        self.assertIn("L1 32K:8:64 (4 cycles), L2 1M:16:64 (14 cycles), memory 200 cycles", out)
        self.assertIn("option: given with --cache=L1=32K:8:64,L2=1M:16:64", out)
        self.assertIn("53,740 cycles, 37,460 in L1 misses, 68.11 per L1 miss", out)
        levels = text_rows(out, "level")
        self.assertEqual(levels["L1"], ["L1", "4,620", "550", "88.10"])
        self.assertEqual(levels["L2"], ["L2", "550", "160", "70.91"])
        self.assertEqual(levels["memory"][:2], ["memory", "160"])

    def test_text_columns_aligned(self):
        lines = [l for l in self.report().splitlines()]
        start = [l.split()[:1] for l in lines].index(["bucket"])
        table = lines[start:start + 5]     # header, 3 rows, total
        # numbers are right-aligned: every line ends at the same column
        self.assertEqual(len({len(l) for l in table}), 1, "\n".join(table))


class OtherViews(ReportTest):
    def test_by_function(self):
        doc = self.json("--by", "function")
        self.assertEqual(doc["view"], "function")
        got = [(r["function"], r["file"], r["MissLat"], r["Lat"], r["Dr"]) for r in doc["rows"]]
        self.assertEqual(got, [("walk", "b.c", 24200, 35000, 2100),
                               ("main", "a.c", 13260, 18740, 1010)])

    def test_by_line(self):
        doc = self.json("--by", "line")
        got = [(r["file"], r["line"], r["function"], r["MissLat"]) for r in doc["rows"]]
        self.assertEqual(got, [("b.c", 20, "walk", 24200), ("a.c", 11, "main", 10000),
                               ("a.c", 10, "main", 3260)])
        self.assertNotIn("location", doc["rows"][0])     # text-only column

    def test_by_line_text(self):
        rows = text_rows(self.report("--by", "line"), "file:line")
        self.assertEqual(list(rows)[:4], ["b.c:20", "a.c:11", "a.c:10", "total"])
        self.assertEqual(rows["a.c:10"][1:3], ["main", "3,260"])

    def test_by_line_csv_columns(self):
        rows = self.csv("--by", "line")
        self.assertEqual(rows[0][:3], ["file", "line", "function"])
        self.assertEqual(rows[1][:4], ["b.c", "20", "walk", "24200"])

    def test_object_filter(self):
        doc = self.json("--object", "arr_a")
        self.assertEqual(doc["view"], "line")
        self.assertEqual(doc["object"], "arr_a")
        got = [(r["file"], r["line"], r["MissLat"], round(r["MissLatPct"], 2),
                round(r["MissPct"], 2)) for r in doc["rows"]]
        self.assertEqual(got, [("a.c", 11, 10000, 75.41, 33.33), ("a.c", 10, 3260, 24.59, 66.67)])
        self.assertEqual(doc["totals"]["MissLat"], 13260)

    def test_object_by_function(self):
        doc = self.json("--object", "arr_a", "--by", "function")
        self.assertEqual([(r["function"], r["MissLat"]) for r in doc["rows"]], [("main", 13260)])

    def test_function_filter(self):
        doc = self.json("--function", "walk")
        self.assertEqual(doc["view"], "object")
        self.assertEqual([(r["bucket"], r["MissLat"], r["MissLatPct"]) for r in doc["rows"]],
                         [("list-main", 24200, 100)])

    def test_thread(self):
        doc = self.json("--thread")
        got = [(r["bucket"], r["thread"], r["MissLat"]) for r in doc["rows"]]
        self.assertEqual(got, [("list-main", 2, 20000), ("arr_a", 1, 13260),
                               ("list-main", 1, 4200), (EVIL_JSON, 1, 0)])

    def test_stats(self):
        doc = self.json("--stats")
        self.assertEqual(doc["view"], "stats")
        got = [(r["bucket"], r["kind"], r["blocks"], r["max_live_blocks"], r["max_live_bytes"],
                r["total_bytes"], r["min_size"], r["avg_size"], r["max_size"])
               for r in doc["rows"]]
        # sorted by total_bytes; [stack] has no statistics and comes last
        self.assertEqual(got, [
            ("arr_a", "global", 1, 1, 4096, 4096, 4096, 4096.0, 4096),
            ("list-main", "heap", 10, 5, 500, 1000, 50, 100.0, 200),
            (EVIL_JSON, "user", 2, 1, 64, 96, 32, 48.0, 64),
            ("grid 100%", "heap", 1, 1, 64, 64, 64, 64.0, 64),
            ("[stack]", "stack", None, None, None, None, None, None, None)])
        self.assertEqual(doc["totals"]["blocks"], 14)
        self.assertEqual(doc["totals"]["total_bytes"], 5256)

    def test_stats_text(self):
        rows = text_rows(self.report("--stats"), "bucket")
        self.assertEqual(rows["list-main"], ["list-main", "heap", "10", "5", "500", "1,000",
                                             "50", "100.00", "200"])
        self.assertEqual(rows["[stack]"][2:], ["-"] * 7)

    def test_stats_one_object(self):
        doc = self.json("--stats", "--object", "grid 100%")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["grid 100%"])


class SortAndTop(ReportTest):
    def test_sort_lat_per_miss(self):
        # arr_a 88.4 > list-main 60.5; EVIL has none and sorts last
        doc = self.json("--sort", "LatPerMiss")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["arr_a", "list-main", EVIL_JSON])

    def test_sort_case_insensitive_ties_by_name(self):
        # DLmw: arr_a 50, EVIL 0 and list-main 0 tie -> by name ("evil" < "list")
        doc = self.json("--sort", "dlmw")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["arr_a", EVIL_JSON, "list-main"])

    def test_sort_stats_column(self):
        doc = self.json("--stats", "--sort", "max_size")
        self.assertEqual([r["bucket"] for r in doc["rows"]][:3], ["arr_a", "list-main", EVIL_JSON])

    def test_unknown_sort(self):
        r = run([DCPROF, "report", self.db, "--sort", "bogus"])
        self.assertError(r, "dcprof report", "unknown sort metric 'bogus' (valid: MissLat, "
                         "MissLatPct, MissPct, LatPerMiss, Lat, Dr, Dw, D1mr, D1mw, DLmr, DLmw)")

    def test_top(self):
        doc = self.json("--top", "1")
        self.assertEqual([r["bucket"] for r in doc["rows"]], ["list-main"])
        self.assertEqual(doc["total_rows"], 3)
        self.assertEqual(doc["totals"]["MissLat"], 37460)    # totals cover every row
        out = self.report("--top", "1")
        rows = text_rows(out, "bucket")
        self.assertEqual(list(rows), ["list-main", "total"])
        self.assertIn("(1 of 3 rows shown; --top 0 shows all)", out)
        self.assertEqual(len(self.csv("--top", "2")), 3)

    def test_default_top_depends_on_format(self):
        # 25 buckets: text shows 20 by default, csv and json all; --top 0 = all
        lines = ["dcprof-raw 1", "level 1 L1 32768 8 64 4", "memory 200",
                 "loc 0 0x1000 %- f f.c 1"]
        lines += ["bucket %d global g%02d" % (i, i) for i in range(25)]
        lines += ["cost %d 0 1 %d 0 1 0 %d" % (i, i + 1, 200 + 4 * i) for i in range(25)]
        self.db = self.profile(self.write("many.raw", "\n".join(lines + ["end 1"]) + "\n"))
        self.assertEqual(len(text_rows(self.report(), "bucket")), 21)   # + total
        self.assertEqual(len(text_rows(self.report("--top", "0"), "bucket")), 26)
        self.assertEqual(len(self.json()["rows"]), 25)
        self.assertEqual(len(self.csv()), 26)


class ShowHide(ReportTest):
    """--show/--hide choose metric columns in every format; the values are
    those of OBJECT_ROWS (derived by hand in test_cli_common.py)."""

    def test_show_csv_in_given_order(self):
        rows = self.csv("--show", "dlmr,MissLat,Dr")
        self.assertEqual(rows[0], ["bucket", "kind", "DLmr", "MissLat", "Dr"])
        for row in rows[1:3]:
            want = dict(zip(METRICS, OBJECT_ROWS[row[0]]))
            self.assertEqual([int(v) for v in row[2:]], [want["DLmr"], want["MissLat"],
                                                        want["Dr"]])

    def test_show_json_rows_and_totals(self):
        doc = self.json("--show", "Lat,D1mw,Lat")
        self.assertEqual(list(doc["totals"]), ["Lat", "D1mw"])
        self.assertEqual(doc["totals"], {"Lat": TOTALS["Lat"], "D1mw": TOTALS["D1mw"]})
        for row in doc["rows"]:
            self.assertEqual(list(row), ["bucket", "kind", "Lat", "D1mw"])
        first = doc["rows"][0]
        self.assertEqual(first["Lat"], OBJECT_ROWS["list-main"][METRICS.index("Lat")])

    def test_show_text_and_line_view_keys(self):
        out = self.report("--show", "Dw", "--by", "line")
        header = next(l for l in out.splitlines() if l.startswith("file:line"))
        self.assertEqual(header.split(), ["file:line", "function", "Dw"])
        rows = self.csv("--show", "Dw", "--by", "line", "--thread")
        self.assertEqual(rows[0], ["file", "line", "function", "thread", "Dw"])

    def test_hide(self):
        rows = self.csv("--hide", "MissLatPct,misspct,LatPerMiss")
        self.assertEqual(rows[0], ["bucket", "kind", "MissLat", "Lat", "Dr", "Dw", "D1mr",
                                   "D1mw", "DLmr", "DLmw"])
        doc = self.json("--hide", "Lat")
        self.assertNotIn("Lat", doc["totals"])
        self.assertEqual(len(doc["totals"]), len(METRICS) - 1)

    def test_sort_by_hidden_column(self):
        doc = self.json("--sort", "Dw", "--show", "Dr")
        dw = [OBJECT_ROWS[r["bucket"]][METRICS.index("Dw")] for r in doc["rows"]]
        self.assertEqual(dw, sorted(dw, reverse=True))

    def test_errors(self):
        for opts, msg in ((["--show", "D1mr,Nope"], "--show: unknown column 'Nope' (valid: "
                           "MissLat, MissLatPct, MissPct, LatPerMiss, Lat, Dr, Dw, D1mr, D1mw,"
                           " DLmr, DLmw)"),
                          (["--hide", "bucket"], "--hide: unknown column 'bucket' (valid: "),
                          (["--show", "Dr,"], "--show: empty column name in 'Dr,'"),
                          (["--show", "Dr", "--hide", "Dw"],
                           "--show and --hide cannot be combined")):
            r = run([DCPROF, "report", self.db] + opts)
            self.assertEqual(r.returncode, 2, opts)
            self.assertEqual(r.stdout, "")
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertIn("dcprof report: " + msg, r.stderr)


class Escaping(ReportTest):
    """The bucket named  evil,"q" LF ESC [31m 0xFF é  in every format."""

    def test_text(self):
        r = run_bytes([DCPROF, "report", self.db])
        self.assertEqual(r.returncode, 0)
        self.assertNotIn(b"\x1b", r.stdout)
        self.assertNotIn(b"\xff", r.stdout)
        self.assertIn(EVIL_TEXT.encode(), r.stdout)

    def test_csv(self):
        r = run_bytes([DCPROF, "report", self.db, "--format", "csv"])
        # escaped as in text, then quoted with inner quotes doubled
        self.assertIn(b'\n"' + EVIL_CSV.encode().replace(b'"', b'""') + b'",user,0,', r.stdout)
        rows = self.csv()
        self.assertEqual(rows[3][0], EVIL_CSV)

    def test_json(self):
        r = run_bytes([DCPROF, "report", self.db, "--format", "json"])
        self.assertIn(b'"evil,\\"q\\"\\\\x0a\\\\x1b[31m\\\\xff\xc3\xa9"', r.stdout)
        r.stdout.decode("utf-8")     # valid UTF-8 throughout
        self.assertEqual(json.loads(r.stdout)["rows"][2]["bucket"], EVIL_JSON)

    def test_error_message(self):
        r = run_bytes([DCPROF, "report", self.db, "--object", "x\x1b]0;y\n"])
        self.assertError(r, "dcprof report", "no bucket named 'x\\x1b]0;y\\x0a'")


class Incomplete(ReportTest):
    def setUp(self):
        super().setUp()
        r, self.db = self.finalize(TWO_LEVEL, "inc.db", "--exit-status", "signal:15")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_text(self):
        self.assertIn("status:   INCOMPLETE (killed by signal 15 (SIGTERM)), signal 15\n",
                      self.report())

    def test_json(self):
        doc = self.json()
        self.assertIs(doc["complete"], False)
        self.assertEqual(doc["incomplete_reason"], "killed by signal 15 (SIGTERM)")
        self.assertEqual(doc["exit_status"], "signal 15")


class LevelColumns(CliTest):
    """Miss columns by hierarchy depth: D1..D(N-1) and DL for the last;
    one level shows only D1."""

    def columns(self, nlevels):
        lines = ["dcprof-raw 1"]
        lines += ["level %d L%d %d 8 64 %d" % (k, k, 32768 << (4 * k), 4 * k)
                  for k in range(1, nlevels + 1)]
        lines += ["memory 200", "bucket 0 global g", "loc 0 0x1000 %- f f.c 1",
                  "cost 0 0 1 10 0 " + "1 0 " * nlevels + "300", "end 1"]
        db = self.profile(self.write("l%d.raw" % nlevels, "\n".join(lines) + "\n"))
        r = run([DCPROF, "report", db, "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.splitlines()[0].split(",")[9:]

    def test_one_level(self):
        self.assertEqual(self.columns(1), ["D1mr", "D1mw"])

    def test_three_levels(self):
        self.assertEqual(self.columns(3), ["D1mr", "D1mw", "D2mr", "D2mw", "DLmr", "DLmw"])

    def test_four_levels(self):
        self.assertEqual(self.columns(4), ["D1mr", "D1mw", "D2mr", "D2mw", "D3mr", "D3mw",
                                           "DLmr", "DLmw"])


class OpenErrors(CliTest):
    """Every bad profile: one line, exit 2, never a crash."""

    def report(self, path, *opts):
        return run([DCPROF, "report", path] + list(opts))

    def test_missing(self):
        p = self.path("nope.db")
        self.assertError(self.report(p), "dcprof report",
                         "cannot open profile '%s': No such file or directory" % p)

    def test_directory(self):
        self.assertError(self.report(self.tmp), "dcprof report",
                         "cannot open profile '%s': Is a directory" % self.tmp)

    def test_unreadable(self):
        if os.geteuid() == 0:
            self.skipTest("root reads any file")
        p = self.profile()
        os.chmod(p, 0)
        self.assertError(self.report(p), "dcprof report",
                         "cannot open profile '%s': Permission denied" % p)

    def test_text_file(self):
        p = self.write("x.db", "just some text\n" * 100)
        self.assertError(self.report(p), "dcprof report",
                         "cannot open profile '%s': not a dcprof profile" % p)

    def test_empty_file(self):
        p = self.write("x.db", b"")
        self.assertError(self.report(p), "dcprof report",
                         "cannot open profile '%s': not a dcprof profile" % p)

    def test_other_sqlite_database(self):
        p = self.path("other.db")
        con = sqlite3.connect(p)
        con.execute("CREATE TABLE t(x)")
        con.commit()
        con.close()
        self.assertError(self.report(p), "dcprof report",
                         "cannot open profile '%s': not a dcprof profile" % p)

    def test_newer_schema(self):
        p = self.profile()
        con = sqlite3.connect(p)
        con.execute("PRAGMA user_version = %d" % (SCHEMA_VERSION + 1))
        con.commit()
        con.close()
        self.assertError(self.report(p), "dcprof report", "cannot open profile '%s': schema "
                         "version %d is newer than this dcprof supports (%d)"
                         % (p, SCHEMA_VERSION + 1, SCHEMA_VERSION))

    def test_corrupt(self):
        p = self.profile()
        size = os.path.getsize(p)
        with open(p, "r+b") as f:   # keep the 100-byte header, wreck the pages
            f.seek(100)
            f.write(b"\xa5" * (size - 100))
        r = self.report(p)
        self.assertError(r, "dcprof report", "cannot read profile '%s': " % p)

    def test_missing_table(self):
        p = self.profile()
        con = sqlite3.connect(p)
        con.execute("DROP TABLE location")
        con.commit()
        con.close()
        self.assertError(self.report(p), "dcprof report",
                         "cannot read profile '%s': table location is missing" % p)


class OptionErrors(ReportTest):
    def bad(self, opts, message):
        self.assertError(run([DCPROF, "report", self.db] + opts), "dcprof report", message)

    def test_unknown_option(self):
        self.bad(["--foo"], "unknown option '--foo'; see 'dcprof help report'")

    def test_unknown_short_option(self):
        self.bad(["-x"], "unknown option '-x'")

    def test_missing_value(self):
        self.bad(["--top"], "option '--top' needs a value")

    def test_value_for_flag(self):
        self.bad(["--thread=yes"], "option '--thread' takes no value")

    def test_bad_values(self):
        self.bad(["--top", "ten"], "invalid --top value 'ten'")
        self.bad(["--top", "-1"], "invalid --top value '-1'")
        self.bad(["--by", "file"], "invalid --by value 'file' (object, function or line)")
        self.bad(["--format", "xml"], "invalid --format value 'xml' (text, csv or json)")

    def test_no_such_bucket_or_function(self):
        self.bad(["--object", "nothing"], "no bucket named 'nothing'")
        self.bad(["--function", "nothing"], "no function named 'nothing'")

    def test_stats_combinations(self):
        self.bad(["--stats", "--by", "line"], "--stats cannot be combined")
        self.bad(["--stats", "--thread"], "--stats cannot be combined")

    def test_two_profiles(self):
        self.bad([self.db], "unexpected argument '%s'" % self.db)

    def test_no_profile(self):
        self.assertError(run([DCPROF, "report"]), "dcprof report", "no profile given")

    def test_equals_forms(self):
        # --opt=value and --opt value mean the same
        self.assertEqual(self.report("--by=function", "--format=json"),
                         self.report("--by", "function", "--format", "json"))
