"""dcprof reuse (exact histograms and location pairs) and finalize of the raw
dump version 3 reuse records, on fixtures/reuse.raw.

The dump describes this trace (one L1 of 4 fully-associative 64-byte lines,
reuse_block 64, reuse_bins 1:2: bin 0 [0,1), bin 1 [1,2), bin 2 [2,4),
bin 3 [4,8)):

  t1..t4   a0 a1 a2 a3   arr, loc 0 (main a.c:10)        4 first touches
  t5..t8   a0 a1 a2 a3   arr, loc 1 x3 and loc 4 x1 (both main a.c:20):
                         stack distance 3 (bin 2), time 4 (bin 3) each
  t9       e0            EVIL, loc 3 (unknown)           first touch
  t10..t12 l0 l0 l0      list, loc 2 (w LF lk b.c:30):   first touch, then
                         twice stack 0 (bin 0), time 1 (bin 1)
  t13      e0            EVIL, loc 3: stack 1 (l0 in between; bin 1),
                         time 13 - 9 = 4 (bin 3)

Whole program: 13 accesses, 6 first touches (= 6 distinct blocks), 7 reuses.
  stack: bin 0: 2 (2/13 = 15.38 %, cum 15.38), bin 1: 1 (7.69 %, cum 3/13 =
         23.08), bin 2: 4 (30.77 %, cum 7/13 = 53.85), first touch 6 (46.15 %,
         cum 100)
  time:  bin 1: 2 (15.38 %, cum 15.38), bin 3: 5 (38.46 %, cum 53.85),
         first touch 6 (46.15 %, cum 100)
  Bars (40 # for the largest row, 6 = first touches; rounded): 2 -> 13,
  1 -> 7 (6.67), 4 -> 27 (26.67), 6 -> 40.
--object arr, stack: bin 2: 4 (50 %, cum 50), first touch 4 (50 %, cum 100).
--object EVIL, stack: bin 1: 1 (50 %), first touch 1 (50 %, cum 100).
--object list, time: bin 1: 2 (66.67 %), first touch 1 (33.33 %).

Bin bounds in bytes (x 64): bin 0 [0 B, 64 B), bin 1 [64 B, 128 B),
bin 2 [128 B, 256 B); lo_bytes/hi_bytes 0/64, 64/128, 128/256.

rpair (use -> reuse: count, sums of stack and time distances):
  0 -> 1: 3, 9, 12;  0 -> 4: 1, 3, 4;  2 -> 2: 2, 0, 2;  3 -> 3: 1, 1, 4.
Stored means: 3/4 (0->1: 9/3, 12/3), 3/4 (0->4), 0/1, 1/4.
By source line (7 reuses): main a.c:10 -> main a.c:20: 3 + 1 = 4 (4/7 =
57.14 %), mean stack 12/4 = 3, mean time 16/4 = 4; w LF lk b.c:30 -> itself:
2 (28.57 %), 0, 1; ?? ?? -> ?? ??: 1 (14.29 %), 1, 4.
"""
import csv
import io
import json

from harness import DCPROF, RAW_VERSION, SCHEMA_VERSION, run
from test_cli_common import (EVIL, EVIL_JSON, EVIL_TEXT, REUSE, SAMPLED_EVICT, TWO_LEVEL,
                             CliTest, downgrade_to_v1, downgrade_to_v2, query_bytes,
                             run_bytes, text_rows)
from test_cli_finalize import DumpErrors, fixture_lines


def pct(n, d):
    return 100.0 * n / d


class ReuseTest(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile(REUSE)

    def json(self, *opts):
        return json.loads(self.run_dcprof("reuse", self.db, "--format", "json", *opts))

    def assertRows(self, got, want):
        """want: [(bin, lo, hi, count, pct, cum_pct)]"""
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            self.assertEqual((g["bin"], g["lo"], g["hi"], g["count"]), w[:4])
            self.assertAlmostEqual(g["pct"], w[4], places=6)
            self.assertAlmostEqual(g["cum_pct"], w[5], places=6)


class FinalizeReuse(ReuseTest):
    def test_tables(self):
        # a version 3 dump has no sums of distances: mean is NULL
        self.assertEqual(query_bytes(self.db, "SELECT * FROM reuse_hist ORDER BY bucket, kind"), [
            (0, b"stack", 2, 2, 4, 4, None), (0, b"time", 3, 4, 8, 4, None),
            (1, b"stack", 0, 0, 1, 2, None), (1, b"time", 1, 1, 2, 2, None),
            (2, b"stack", 1, 1, 2, 1, None), (2, b"time", 3, 4, 8, 1, None)])
        self.assertEqual(query_bytes(self.db, "SELECT * FROM reuse_first ORDER BY bucket"),
                         [(0, 4), (1, 1), (2, 1)])
        self.assertEqual(query_bytes(self.db, "SELECT * FROM reuse_pair ORDER BY 1, 2"), [
            (0, 1, 3, 3.0, 4.0), (0, 4, 1, 3.0, 4.0), (2, 2, 2, 0.0, 1.0),
            (3, 3, 1, 1.0, 4.0)])

    def test_meta(self):
        m = dict(query_bytes(self.db, "SELECT key, value FROM meta"))
        self.assertEqual((m[b"schema_version"], m[b"reuse_block"], m[b"reuse_bins"]),
                         (str(SCHEMA_VERSION).encode(), b"64", b"1:2"))

    def fixture_with(self, old, new, name="v.raw"):
        lines = [new if l == old else l for l in fixture_lines(REUSE)]
        return self.write(name, b"\n".join(lines) + b"\n")

    def test_other_bins(self):
        # 3:2: bin 0 [0,3), bin 1 [3,6), bin 2 [6,12), bin 3 [12,24)
        raw = self.fixture_with(b"meta reuse_bins 1:2", b"meta reuse_bins 3:2")
        r, db = self.finalize(raw, "b.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(query_bytes(db, "SELECT DISTINCT bin, lo, hi FROM reuse_hist"
                                     " ORDER BY bin"),
                         [(0, 0, 3), (1, 3, 6), (2, 6, 12), (3, 12, 24)])

    def test_meta_after_rhist_and_unbounded_bin(self):
        # meta may come anywhere before end; bin 63 of 1:2 is [2^62, 2^63):
        # hi does not fit a signed 64-bit integer, so it is NULL
        lines = [l for l in fixture_lines(REUSE) if l != b"meta reuse_bins 1:2"]
        lines = [b"rhist stack 0 63 4" if l == b"rhist stack 0 2 4" else l for l in lines]
        lines.insert(-1, b"meta reuse_bins 1:2")
        r, db = self.finalize(self.write("u.raw", b"\n".join(lines) + b"\n"), "u.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(query_bytes(db, "SELECT lo, hi FROM reuse_hist WHERE bin = 63"),
                         [(2 ** 62, None)])
        out = self.run_dcprof("reuse", db, "--object", "arr")
        # 2^62 blocks of 64 bytes = 2^68 B = 256 EiB
        self.assertIn("\n[4611686018427387904, inf) blocks  [256 EiB, inf)", out)
        doc = json.loads(self.run_dcprof("reuse", db, "--object", "arr", "--format", "json"))
        self.assertEqual(doc["rows"][0]["hi"], None)
        self.assertEqual(doc["rows"][0]["lo_bytes"], None)    # 2^68 does not fit


class FinalizeReuseErrors(DumpErrors):
    GOOD = fixture_lines(REUSE)

    def line(self, prefix):
        return next(i for i, l in enumerate(self.GOOD) if l.startswith(prefix))

    def test_version_3_records_in_a_version_2_dump(self):
        lines = list(self.GOOD)
        lines[0] = b"dcprof-raw 2"
        self.check(b"\n".join(lines) + b"\n", "unknown record type 'rhist'",
                   self.line(b"rhist ") + 1)

    def test_bad_records(self):
        i = self.line(b"rhist stack 0 ")
        self.check(self.replace(i, b"rhist space 0 2 4"),
                   "unknown reuse distance kind 'space' (stack or time)", i + 1)
        self.check(self.replace(i, b"rhist stack 9 2 4"), "bucket 9 is not declared", i + 1)
        self.check(self.replace(i, b"rhist stack 0 2"), "rhist record has 3 fields, expected 4",
                   i + 1)
        self.check(self.replace(i + 1, self.GOOD[i + 1].replace(b"time", b"stack")
                                .replace(b" 3 ", b" 2 ")),
                   "duplicate rhist record (same kind, bucket and bin)", i + 2)
        # 1:2: bin 64 would start at 2^63
        self.check(self.replace(i, b"rhist stack 0 64 4"),
                   "rhist bin 64 is beyond the last there can be (63)", i + 1)
        i = self.line(b"rfirst 1 ")
        self.check(self.replace(i, b"rfirst 0 1"), "duplicate rfirst record", i + 1)
        i = self.line(b"rpair 2 ")
        self.check(self.replace(i, b"rpair 2 7 2 0 2"), "location 7 is not declared", i + 1)
        self.check(self.replace(i, b"rpair 2 2 0 0 0"), "rpair record with count 0", i + 1)
        self.check(self.replace(i, b"rpair 0 1 3 9 12"), "duplicate rpair record", i + 1)

    def test_bad_meta(self):
        i = self.line(b"meta reuse_bins")
        for v in (b"1:1", b"0:2", b"2", b"a:b"):
            self.check(self.replace(i, b"meta reuse_bins " + v),
                       "meta reuse_bins '%s' is not FIRST:GROWTH (FIRST >= 1, GROWTH >= 2)"
                       % v.decode(), i + 1)
        i = self.line(b"meta reuse_block")
        self.check(self.replace(i, b"meta reuse_block 0"),
                   "meta reuse_block must be a number of bytes >= 1", i + 1)

    def test_rhist_without_bins(self):
        lines = [l for l in self.GOOD if not l.startswith(b"meta reuse_bins")]
        self.check(b"\n".join(lines) + b"\n", "rhist records without meta reuse_bins")


class Histogram(ReuseTest):
    def test_whole_program_json(self):
        doc = self.json()
        self.assertEqual((doc["schema_version"], doc["kind"], doc["object"], doc["block"],
                          doc["bin_first"], doc["bin_growth"], doc["source"]),
                         (SCHEMA_VERSION, "stack", None, 64, 1, 2, "exact"))
        self.assertEqual((doc["accesses"], doc["reuses"], doc["first_touches"]), (13, 7, 6))
        self.assertRows(doc["rows"], [(0, 0, 1, 2, pct(2, 13), pct(2, 13)),
                                      (1, 1, 2, 1, pct(1, 13), pct(3, 13)),
                                      (2, 2, 4, 4, pct(4, 13), pct(7, 13))])
        self.assertEqual([(r["lo_bytes"], r["hi_bytes"]) for r in doc["rows"]],
                         [(0, 64), (64, 128), (128, 256)])
        self.assertEqual(doc["first_touch"]["count"], 6)
        self.assertAlmostEqual(doc["first_touch"]["pct"], pct(6, 13), places=6)
        self.assertEqual(doc["first_touch"]["cum_pct"], 100)

    def test_time(self):
        doc = self.json("--kind", "time")
        self.assertEqual(doc["kind"], "time")
        self.assertRows(doc["rows"], [(1, 1, 2, 2, pct(2, 13), pct(2, 13)),
                                      (3, 4, 8, 5, pct(5, 13), pct(7, 13))])
        # time distances are in accesses: no byte bounds
        self.assertEqual({(r["lo_bytes"], r["hi_bytes"]) for r in doc["rows"]}, {(None, None)})
        doc = self.json("--kind", "time", "--object", "list")
        self.assertRows(doc["rows"], [(1, 1, 2, 2, pct(2, 3), pct(2, 3))])
        self.assertAlmostEqual(doc["first_touch"]["pct"], pct(1, 3), places=6)

    def test_object(self):
        doc = self.json("--object", "arr")
        self.assertEqual((doc["object"], doc["accesses"], doc["first_touches"]), ("arr", 8, 4))
        self.assertRows(doc["rows"], [(2, 2, 4, 4, 50, 50)])
        self.assertEqual((doc["first_touch"]["pct"], doc["first_touch"]["cum_pct"]), (50, 100))

    def test_hostile_object_name(self):
        doc = self.json("--object", EVIL.decode("utf-8", "surrogateescape"))
        self.assertEqual(doc["object"], EVIL_JSON)
        self.assertRows(doc["rows"], [(1, 1, 2, 1, 50, 50)])
        r = run_bytes([DCPROF, "reuse", self.db, "--object", EVIL])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(("\nobject:   bucket '%s'\n" % EVIL_TEXT).encode(), r.stdout)
        self.assertNotIn(b"\x1b", r.stdout)

    def test_text(self):
        out = self.run_dcprof("reuse", self.db)
        self.assertIn("\nreuse:    exact, blocks of 64 B, bins 1:2\n"
                      "object:   whole program\n"
                      "accesses: 13 (7 reuses, 6 first touches); stack distances\n\n", out)
        rows = text_rows(out, "stack")
        self.assertEqual(rows, {
            "[0, 1) blocks": ["[0, 1) blocks", "[0 B, 64 B)", "2", "15.38", "15.38", "#" * 13],
            "[1, 2) blocks": ["[1, 2) blocks", "[64 B, 128 B)", "1", "7.69", "23.08", "#" * 7],
            "[2, 4) blocks": ["[2, 4) blocks", "[128 B, 256 B)", "4", "30.77", "53.85",
                              "#" * 27],
            "first touch": ["first touch", "6", "46.15", "100.00", "#" * 40]})
        header = [l for l in out.splitlines() if l.startswith("stack distance")][0]
        self.assertEqual(header.split(), ["stack", "distance", "bytes", "count", "%", "cum",
                                          "%"])

    def test_text_time(self):
        rows = text_rows(self.run_dcprof("reuse", self.db, "--kind=time"), "time")
        self.assertEqual(rows["[4, 8) accesses"],
                         ["[4, 8) accesses", "5", "38.46", "53.85", "#" * 33])   # 5*40/6

    def test_csv(self):
        r = run([DCPROF, "reuse", self.db, "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.reader(io.StringIO(r.stdout)))
        self.assertEqual(rows[0], ["bin", "lo", "hi", "lo_bytes", "hi_bytes", "count", "pct",
                                   "cum_pct"])
        self.assertEqual([r[:6] for r in rows[1:]], [
            ["0", "0", "1", "0", "64", "2"], ["1", "1", "2", "64", "128", "1"],
            ["2", "2", "4", "128", "256", "4"], ["", "", "", "", "", "6"]])
        self.assertEqual(rows[-1][7], "100")

    def test_bucket_without_reuses(self):
        # a bucket that only has first touches: no bin rows
        raw = self.write("f.raw", b"\n".join(
            [l for l in fixture_lines(REUSE) if not l.startswith(b"rhist stack 2 ")]) + b"\n")
        r, db = self.finalize(raw, "f.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(self.run_dcprof("reuse", db, "--object", EVIL.decode(
            "utf-8", "surrogateescape"), "--format", "json"))
        self.assertEqual((doc["rows"], doc["first_touch"]), ([], {"count": 1, "pct": 100,
                                                                  "cum_pct": 100}))


class Pairs(ReuseTest):
    def test_json(self):
        doc = self.json("--pairs")
        self.assertEqual((doc["reuses"], doc["total_rows"]), (7, 3))
        keys = ["use_function", "use_file", "use_line", "reuse_function", "reuse_file",
                "reuse_line", "count", "mean_stack", "mean_time"]
        self.assertEqual([[r[k] for k in keys] for r in doc["rows"]], [
            ["main", "a.c", 10, "main", "a.c", 20, 4, 3, 4],
            ["w\\x0alk", "b.c", 30, "w\\x0alk", "b.c", 30, 2, 0, 1],
            ["", "", 0, "", "", 0, 1, 1, 4]])
        for r, n in zip(doc["rows"], (4, 2, 1)):
            self.assertAlmostEqual(r["pct"], pct(n, 7), places=6)

    def test_text_and_top(self):
        out = self.run_dcprof("reuse", self.db, "--pairs")
        self.assertIn("\npairs:    7 reuses by 3 pairs of source lines", out)
        rows = text_rows(out, "use")
        self.assertEqual(rows, {
            "main a.c:10": ["main a.c:10", "main a.c:20", "4", "57.14", "3.00", "4.00"],
            "w\\x0alk b.c:30": ["w\\x0alk b.c:30", "w\\x0alk b.c:30", "2", "28.57", "0.00",
                                "1.00"],
            "?? ??": ["?? ??", "?? ??", "1", "14.29", "1.00", "4.00"],
            "total": ["total", "7", "100.00"]})
        out = self.run_dcprof("reuse", self.db, "--pairs", "--top", "1")
        self.assertEqual(len(text_rows(out, "use")), 2)     # one pair and the total
        self.assertIn("(1 of 3 rows shown; --top 0 shows all)\n", out)
        self.assertEqual(len(self.json("--pairs", "--top", "2")["rows"]), 2)
        self.assertEqual(len(self.json("--pairs", "--top", "0")["rows"]), 3)

    def test_csv(self):
        r = run_bytes([DCPROF, "reuse", self.db, "--pairs", "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.split(b"\n")
        self.assertEqual(lines[0], b"use_function,use_file,use_line,reuse_function,reuse_file,"
                         b"reuse_line,count,pct,mean_stack,mean_time")
        self.assertTrue(lines[1].startswith(b"main,a.c,10,main,a.c,20,4,57.14285714,3,4"))
        # the function name with a line feed is quoted
        self.assertEqual(r.stdout.count(b'w\\x0alk,b.c,30,w\\x0alk,b.c,30,2,'), 1)


class Errors(CliTest):
    def bad(self, args, message):
        self.assertError(run([DCPROF, "reuse"] + args), "dcprof reuse", message)

    def test_no_reuse_data(self):
        db = self.profile(TWO_LEVEL)        # version 3, recorded without --reuse
        self.bad([db], "profile '%s' has no reuse data; record with --reuse=yes" % db)
        self.bad([db, "--pairs"], "profile '%s' has no reuse data" % db)

    def test_older_profiles(self):
        for name, raw, down in (("v2.db", SAMPLED_EVICT, downgrade_to_v2),
                                ("v1.db", TWO_LEVEL, downgrade_to_v1)):
            r, db = self.finalize(raw, name)
            self.assertEqual(r.returncode, 0, r.stderr)
            down(db)
            self.bad([db], "profile '%s' has no reuse data; record with --reuse=yes" % db)
            # the other commands still read them
            self.assertEqual(run([DCPROF, "report", db]).returncode, 0)

    def test_reuse_profile_downgraded(self):
        db = self.profile(REUSE)
        downgrade_to_v2(db)
        self.bad([db], "profile '%s' has no reuse data; record with --reuse=yes" % db)

    def test_unknown_bucket(self):
        db = self.profile(REUSE)
        self.bad([db, "--object", "nope"], "no bucket named 'nope'")
        self.bad([db, "--object", "x\x1by"], "no bucket named 'x\\x1by'")

    def test_bad_options(self):
        db = self.profile(REUSE)
        self.bad([db, "--sampled"], "has no sampled reuse data; record with --reuse-sample=N")
        self.bad([db, "--sampled", "--accuracy"], "--sampled, --converted and --accuracy"
                 " exclude each other, and --pairs goes only with --sampled")
        self.bad([db, "--pairs", "--sampled"], "has no sampled reuse data; record with"
                 " --reuse-sample=N")
        self.bad([db, "--converted", "--kind", "time"], "--converted makes stack distances")
        self.bad([db, "--accuracy", "--kind", "time"], "--kind does not apply to --accuracy")
        self.bad([db, "--kind", "space"], "invalid --kind value 'space' (stack or time)")
        self.bad([db, "--pairs", "--object", "arr"], "--pairs cannot be combined with --object")
        self.bad([db, "--pairs", "--kind", "time"], "--kind does not apply to --pairs")
        self.bad([db, "--top", "3"], "--top needs --pairs")
        self.bad([db, "--pairs", "--top", "x"], "invalid --top value 'x'")
        self.bad([db, "--format", "xml"], "invalid --format value 'xml'")
        self.bad([], "no profile given; see 'dcprof help reuse'")
        self.bad([db, db], "unexpected argument")
        self.bad([db, "--frob"], "unknown option '--frob'; see 'dcprof help reuse'")
        self.bad([self.path("missing.db")], "cannot open profile")
