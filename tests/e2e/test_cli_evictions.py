"""dcprof evictions: the eviction matrix (seeds/002 Tables 13-18) and one
bucket's evictors (Tables 19-21), on fixtures/sampled_evict.raw.

Misses per bucket (test_cli_sampled.py): L1 exact A 4000, B 3000, C 2000,
EVIL 900, D 100; L1 sampled B 3500, A 3300, C 2000, EVIL 1100, D 100; L2
exact B 3000, A 1000, D 100 (C and EVIL have none).

evict records at L1 (evictor -> victim at location: count):
  victim A (2000): A@loc0 600, A@loc4 400, B@loc1 500, C@loc2 300, EVIL@loc3 150,
                   D@loc0 50
  victim B (1000): A@loc0 400, B@loc1 600
  victim C  (500): C@loc2 250, EVIL@loc3 250
  victim D   (40): A@loc4 40
  victim [stack] (10): B@loc1 10      (never among the top buckets)
  EVIL is never evicted.  Total 3550 = fill L1 evictions; the L1 misses,
  10000 = 3550 evictions + 6450 fills into empty lines.
L2: B@loc1 evicts A 700, A@loc0 evicts B 300; fill 4100 = 3100 + 1000.
sevict at L1 (period 100): victim A: A@loc0 500, B@loc1 300, C@loc2 200;
  victim B: B@loc1 400; victim C: EVIL@loc3 100.

Matrix, L1, top 5 (columns A B C EVIL D), % of the column's evictions:
  A      1000/2000 = 50   400/1000 = 40   0          -   40/40 = 100
  B       500/2000 = 25   600/1000 = 60   0          -   0
  C       300/2000 = 15   0               250/500=50 -   0
  EVIL    150/2000 = 7.5  0               250/500=50 -   0
  D        50/2000 = 2.5  0               0          -   0
  other   0               0               0          -   0
--top 3 (A B C): other = EVIL + D: column A (150 + 50)/2000 = 10, column C
  250/500 = 50.
L2 (columns B A D; D has no evictions): A evicts all of B's, B all of A's.
Sampled L1, top 5 by sampled misses (B A C EVIL D):
  column B: B 400/400 = 100; column A: A 500/1000 = 50, B 30, C 20;
  column C: EVIL 100; EVIL and D: none.
Sampled --top 2 (B A): column A: other = C 200/1000 = 20.

--object A (L1): A 1000 (50 %), B 500 (25), C 300 (15), EVIL 150 (7.5), D 50 (2.5).
--object A --by line: A a.c:10 main 600 (30 %), B a.c:11 main 500 (25),
  A a.c:30 init 400 (20), C b.c:20 walk 300 (15), EVIL ?? (unknown) 150 (7.5),
  D a.c:10 main 50 (2.5).
--object C: C 250 and EVIL 250 tie: by name, "C" < "evil...".
--object A --sampled: A 500 (50 %), B 300 (30), C 200 (20).
"""
import csv
import io
import json

from harness import DCPROF, run
from test_cli_common import (EVIL, EVIL_CSV, EVIL_JSON, EVIL_TEXT, SAMPLED_EVICT, TWO_LEVEL, CliTest,
                             downgrade_to_v1, read_text, run_bytes, text_rows)


class EvictionsTest(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile(SAMPLED_EVICT)

    def json(self, *opts):
        return json.loads(self.run_dcprof("evictions", self.db, "--format", "json", *opts))

    def matrix(self, doc):
        """{evictor: [pct per victim]} with the other row as None."""
        m = {r["evictor"]: r["pct"] for r in doc["rows"]}
        m[None] = doc["other"]["pct"]
        return m


class Matrix(EvictionsTest):
    def test_level_one(self):
        doc = self.json()
        self.assertEqual(doc["victims"], [
            {"bucket": "A", "kind": "global", "misses": 4000, "evictions": 2000},
            {"bucket": "B", "kind": "global", "misses": 3000, "evictions": 1000},
            {"bucket": "C", "kind": "heap", "misses": 2000, "evictions": 500},
            {"bucket": EVIL_JSON, "kind": "user", "misses": 900, "evictions": 0},
            {"bucket": "D", "kind": "global", "misses": 100, "evictions": 40}])
        self.assertEqual(self.matrix(doc), {
            "A": [50, 40, 0, None, 100],
            "B": [25, 60, 0, None, 0],
            "C": [15, 0, 50, None, 0],
            EVIL_JSON: [7.5, 0, 50, None, 0],
            "D": [2.5, 0, 0, None, 0],
            None: [0, 0, 0, None, 0]})
        self.assertEqual(doc["rows"][0]["count"], [1000, 400, 0, 0, 40])
        self.assertEqual(doc["fill"], {"fills": 10000, "empty_fills": 6450, "evictions": 3550})
        self.assertEqual((doc["level"], doc["sampled"], doc["sample"]), (1, False, None))

    def test_columns_sum_to_100(self):
        doc = self.json()
        for j, victim in enumerate(doc["victims"]):
            column = [r["pct"][j] for r in doc["rows"]] + [doc["other"]["pct"][j]]
            if victim["evictions"]:
                self.assertAlmostEqual(sum(column), 100, places=9)
            else:
                self.assertEqual(set(column), {None})

    def test_top_three(self):
        doc = self.json("--top", "3")
        self.assertEqual([v["bucket"] for v in doc["victims"]], ["A", "B", "C"])
        self.assertEqual(self.matrix(doc), {"A": [50, 40, 0], "B": [25, 60, 0],
                                            "C": [15, 0, 50], None: [10, 0, 50]})
        self.assertEqual(doc["other"]["count"], [200, 0, 250])

    def test_level_two(self):
        doc = self.json("--level", "2")
        self.assertEqual([(v["bucket"], v["misses"], v["evictions"]) for v in doc["victims"]],
                         [("B", 3000, 300), ("A", 1000, 700), ("D", 100, 0)])
        self.assertEqual(self.matrix(doc), {"B": [0, 100, None], "A": [100, 0, None],
                                            "D": [0, 0, None], None: [0, 0, None]})
        self.assertEqual(doc["fill"], {"fills": 4100, "empty_fills": 3100, "evictions": 1000})

    def test_sampled(self):
        doc = self.json("--sampled")
        self.assertEqual((doc["level"], doc["sampled"]), (1, True))
        self.assertEqual(doc["sample"]["samples"], 100)
        self.assertEqual([(v["bucket"], v["misses"], v["evictions"]) for v in doc["victims"]],
                         [("B", 3500, 400), ("A", 3300, 1000), ("C", 2000, 100),
                          (EVIL_JSON, 1100, 0), ("D", 100, 0)])
        self.assertEqual(self.matrix(doc), {
            "B": [100, 30, 0, None, None], "A": [0, 50, 0, None, None],
            "C": [0, 20, 0, None, None], EVIL_JSON: [0, 0, 100, None, None],
            "D": [0, 0, 0, None, None], None: [0, 0, 0, None, None]})
        doc = self.json("--sampled", "--top", "2", "--level", "1")
        self.assertEqual(self.matrix(doc), {"B": [100, 30], "A": [0, 50], None: [0, 20]})

    def test_text(self):
        out = self.run_dcprof("evictions", self.db, "--top", "3")
        self.assertIn("\nlevel:    1 (L1), exact counts\n"
                      "fills:    10,000 lines filled: 6,450 into empty lines, 3,550 evictions\n",
                      out)
        victims = text_rows(out, "bucket")
        self.assertEqual(victims["A"], ["A", "global", "4,000", "2,000"])
        rows = text_rows(out, "evicted")
        self.assertEqual(rows, {"A": ["A", "global", "50.00", "40.00", "0.00"],
                                "B": ["B", "global", "25.00", "60.00", "0.00"],
                                "C": ["C", "heap", "15.00", "0.00", "50.00"],
                                "other": ["other", "-", "10.00", "0.00", "50.00"]})
        header = [l for l in out.splitlines() if l.startswith("evicted by")][0]
        self.assertEqual(header.split(), ["evicted", "by", "kind", "A", "B", "C"])

    def test_text_long_names_labelled_by_place(self):
        """A column whose bucket name is longer than 24 bytes is labelled by
        its place (#k: the k-th row's bucket) and named under the table,
        shortened and escaped as rows are; short names stay headers; CSV
        keeps every name whole."""
        long_b = b"Allocate<double> (lulesh.h:113) < CalcHourglassControlForElems"
        long_c = b"Allocate<double> (lulesh.h:113) < IntegrateStress%1BForElems"
        with open(SAMPLED_EVICT, "rb") as f:
            raw = f.read().replace(b"bucket 1 global B\n",
                                   b"bucket 1 global " + long_b.replace(b" ", b"%20") + b"\n")
        raw = raw.replace(b"bucket 2 heap C\n",
                          b"bucket 2 heap " + long_c.replace(b" ", b"%20") + b"\n")
        db = self.profile(self.write("long.raw", raw))
        out = self.run_dcprof("evictions", db, "--top", "3")
        header = [l for l in out.splitlines() if l.startswith("evicted by")][0]
        self.assertEqual(header.split(), ["evicted", "by", "kind", "A", "#2", "#3"])
        legend = out[out.index("\ncolumns: "):].splitlines()[1:]
        self.assertEqual(legend, [
            "columns: #2  Allocate<double> (lulesh.h:113) < CalcHourglassControlForElems",
            "         #3  Allocate<double> (lulesh.h:113) < IntegrateStress\\x1bForElems"])
        # the rows are the matrix above (test_text) under the new names
        rows = text_rows(out, "evicted")
        self.assertEqual(rows["A"], ["A", "global", "50.00", "40.00", "0.00"])
        self.assertEqual(len(rows), 4)
        r = run_bytes([DCPROF, "evictions", db, "--format", "csv", "--top", "3"])
        self.assertEqual(r.stdout.splitlines()[0],
                         b"evictor,kind,A," + long_b + b"," +
                         long_c.replace(b"%1B", b"\\x1b"))

    def test_text_empty_column_and_sampled(self):
        out = self.run_dcprof("evictions", self.db, "--sampled")
        self.assertIn("\nlevel:    1 (L1), sampled estimates from 100 samples of D1m,"
                      " period 100, seed 7\nfills:    10,000 lines filled: 6,450 into empty"
                      " lines, 3,550 evictions (exact)\n", out)
        rows = text_rows(out, "evicted")
        self.assertEqual(rows["B"], ["B", "global", "100.00", "30.00", "0.00", "-", "-"])

    def test_csv(self):
        r = run_bytes([DCPROF, "evictions", self.db, "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.reader(io.StringIO(r.stdout.decode("utf-8", "surrogateescape"),
                                           newline="")))
        self.assertEqual([c.encode("utf-8", "surrogateescape") for c in rows[0]],
                         [b"evictor", b"kind", b"A", b"B", b"C", EVIL_CSV.encode(), b"D"])
        self.assertEqual(rows[1], ["A", "global", "50", "40", "0", "", "100"])
        self.assertEqual(rows[6], ["other", "", "0", "0", "0", "", "0"])
        self.assertEqual(len(rows), 7)

    def test_escaping(self):
        text = run_bytes([DCPROF, "evictions", self.db]).stdout
        self.assertNotIn(b"\x1b", text)
        self.assertNotIn(b"\xff", text)
        # the row label and the column heading
        self.assertEqual(text.count(EVIL_TEXT.encode()), 3)
        js = run_bytes([DCPROF, "evictions", self.db, "--format", "json"]).stdout
        js.decode("utf-8")
        self.assertIn(b'{"evictor":"evil,\\"q\\"\\\\x0a\\\\x1b[31m\\\\xff\xc3\xa9","kind":"user"',
                      js)
        csv_out = run_bytes([DCPROF, "evictions", self.db, "--format", "csv"]).stdout
        self.assertIn(b',"' + EVIL_CSV.encode().replace(b'"', b'""') + b'",D\n', csv_out)


class Object(EvictionsTest):
    def test_by_bucket(self):
        doc = self.json("--object", "A")
        self.assertEqual([(r["evictor"], r["kind"], r["evictions"], r["pct"])
                          for r in doc["rows"]],
                         [("A", "global", 1000, 50), ("B", "global", 500, 25),
                          ("C", "heap", 300, 15), (EVIL_JSON, "user", 150, 7.5),
                          ("D", "global", 50, 2.5)])
        self.assertEqual(doc["totals"], {"evictions": 2000, "pct": 100})
        self.assertEqual((doc["object"], doc["by"], doc["total_rows"]), ("A", "object", 5))

    def test_by_line(self):
        doc = self.json("--object", "A", "--by", "line")
        self.assertEqual([(r["evictor"], r["file"], r["line"], r["function"], r["evictions"],
                           r["pct"]) for r in doc["rows"]],
                         [("A", "a.c", 10, "main", 600, 30), ("B", "a.c", 11, "main", 500, 25),
                          ("A", "a.c", 30, "init", 400, 20), ("C", "b.c", 20, "walk", 300, 15),
                          (EVIL_JSON, "", None, "???", 150, 7.5),
                          ("D", "a.c", 10, "main", 50, 2.5)])
        self.assertEqual(doc["by"], "line")

    def test_by_function(self):
        doc = self.json("--object", "A", "--by", "function")
        self.assertEqual([(r["evictor"], r["function"], r["file"], r["evictions"])
                          for r in doc["rows"]],
                         [("A", "main", "a.c", 600), ("B", "main", "a.c", 500),
                          ("A", "init", "a.c", 400), ("C", "walk", "b.c", 300),
                          (EVIL_JSON, "???", "", 150), ("D", "main", "a.c", 50)])

    def test_tie_by_name(self):
        doc = self.json("--object", "C")
        self.assertEqual([(r["evictor"], r["pct"]) for r in doc["rows"]],
                         [("C", 50), (EVIL_JSON, 50)])

    def test_sampled(self):
        doc = self.json("--object", "A", "--sampled")
        self.assertEqual([(r["evictor"], r["evictions"], r["pct"]) for r in doc["rows"]],
                         [("A", 500, 50), ("B", 300, 30), ("C", 200, 20)])

    def test_never_evicted(self):
        doc = self.json("--object", EVIL.decode("utf-8", "surrogateescape"))
        self.assertEqual((doc["rows"], doc["totals"]), ([], {"evictions": 0, "pct": None}))

    def test_text(self):
        out = self.run_dcprof("evictions", self.db, "--object", "A", "--by", "line")
        self.assertIn("\nvictim:   bucket 'A'\n", out)
        rows = text_rows(out, "evicted")
        # unknown code: no file ("??"), no symbol nor object ("???", cli.md)
        self.assertEqual(rows[EVIL_TEXT], [EVIL_TEXT, "user", "??", "???", "150", "7.50"])
        self.assertEqual(rows["total"], ["total", "2,000", "100.00"])
        self.assertEqual(list(rows)[:2], ["A", "B"])

    def test_top(self):
        out = self.run_dcprof("evictions", self.db, "--object", "A", "--top", "2")
        self.assertIn("(2 of 5 rows shown; --top 0 shows all)", out)
        self.assertEqual(len(self.json("--object", "A")["rows"]), 5)
        self.assertEqual(len(self.json("--object", "A", "--top", "1")["rows"]), 1)

    def test_csv(self):
        out = self.run_dcprof("evictions", self.db, "--object", "A", "--by", "line",
                              "--format", "csv")
        lines = out.splitlines()
        self.assertEqual(lines[0], "evictor,kind,file,line,function,evictions,pct")
        self.assertEqual(lines[1], "A,global,a.c,10,main,600,30")


class Errors(CliTest):
    def bad(self, args, message):
        self.assertError(run([DCPROF, "evictions"] + args), "dcprof evictions", message)

    def test_no_eviction_data(self):
        db = self.profile(TWO_LEVEL)
        self.bad([db], "profile '%s' has no eviction data; record with --evictions=yes" % db)
        self.bad([db, "--object", "arr_a"], "has no eviction data")
        self.bad([db, "--sampled"], "profile '%s' has no samples; record with"
                 " --sample=EVENT:N" % db)

    def test_version_1(self):
        db = self.profile(SAMPLED_EVICT)
        downgrade_to_v1(db)
        self.bad([db], "profile '%s' has no eviction data; record with --evictions=yes" % db)
        self.bad([db, "--sampled"], "has no samples")

    def test_evictions_no(self):
        raw = read_text(SAMPLED_EVICT).replace("meta evictions yes", "meta evictions no")
        db = self.profile(self.write("no.raw", raw))
        self.bad([db], "has no eviction data; record with --evictions=yes")

    def test_sampled_event_not_a_miss(self):
        raw = read_text(SAMPLED_EVICT).replace("meta sample_event D1m", "meta sample_event Da")
        db = self.profile(self.write("da.raw", raw))
        self.bad([db, "--sampled"], "profile '%s' has no sampled evictions: its sampled event"
                 " Da is not a miss event" % db)

    def test_levels(self):
        db = self.profile(SAMPLED_EVICT)
        self.bad([db, "--level", "3"], "profile '%s' has no level 3 (it has 2 levels)" % db)
        self.bad([db, "--level", "2", "--sampled"], "profile '%s' has sampled evictions only"
                 " at level 1 (the sampled event is D1m)" % db)
        self.bad([db, "--level", "0"], "invalid --level value '0' (1 to 4)")
        self.bad([db, "--level", "L1"], "invalid --level value 'L1'")

    def test_options(self):
        db = self.profile(SAMPLED_EVICT)
        self.bad([db, "--object", "nope"], "no bucket named 'nope'")
        self.bad([db, "--object", "x\x1b]0;y\n"], "no bucket named 'x\\x1b]0;y\\x0a'")
        self.bad([db, "--by", "line"], "--by needs --object")
        self.bad([db, "--object", "A", "--by", "object"],
                 "invalid --by value 'object' (function or line)")
        self.bad([db, "--top", "0"], "invalid --top value '0' (the matrix shows 1 to 20"
                 " buckets)")
        self.bad([db, "--top", "21"], "invalid --top value '21'")
        self.bad([db, "--format", "xml"], "invalid --format value 'xml'")
        self.bad([db, "--frob"], "unknown option '--frob'; see 'dcprof help evictions'")
        self.bad([], "no profile given")
