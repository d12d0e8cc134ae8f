"""Bad inputs: crafted profiles and raw dumps, special files, a full stdout.
docs/robustness.md lists every case and the test that covers it.

Every bad input must give one line on stderr and exit status 2 (or, where
the input is only extreme, a correct report), never a crash, a hang or a
runaway allocation.  Each case runs with build/bin/dcprof and with
build/san-bin/dcprof, the same code built with ASan and UBSan
(-fno-sanitize-recover: any report is a crash with a multi-line stderr and
exit status 1), so signed overflow and out-of-bounds writes count as
failures even where the normal build happens to survive them.

Profiles are made with dcprof finalize from the hand-written fixtures
(test_cli_common.py derives their numbers) and edited with Python's
sqlite3, as someone handing over a profile could."""
import csv
import io
import json
import os
import resource
import shutil
import sqlite3
import subprocess

from harness import BUILD, DCPROF, RAW_VERSION, run
from test_cli_common import (REUSE, SAMPLED_EVICT, TRACE, TWO_LEVEL, CliTest, read_text,
                             run_bytes)

SAN_DCPROF = os.path.join(BUILD, "san-bin", "dcprof")
# leaks on error paths are not what these tests look for
SAN_ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1")
INT64_MAX = 2**63 - 1
TIMEOUT = 60


def edit(db, *statements):
    """Runs SQL statements on a profile, as a user with sqlite3 would."""
    con = sqlite3.connect(db)
    try:
        for s in statements:
            if isinstance(s, tuple):
                con.execute(*s)
            else:
                con.execute(s)
        con.commit()
    finally:
        con.close()


class Robust(CliTest):
    def binaries(self):
        self.assertTrue(os.path.exists(SAN_DCPROF), "build it with make (target %s)" % SAN_DCPROF)
        return ((DCPROF, None), (SAN_DCPROF, SAN_ENV))

    def dcprof(self, binary, env, args, **kw):
        return subprocess.run([binary] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, timeout=kw.pop("timeout", TIMEOUT),
                              **kw)

    def bad(self, args, message, prefix=None):
        """Both builds: exit 2 and one line on stderr that holds message."""
        prefix = prefix or "dcprof " + args[0]
        for binary, env in self.binaries():
            r = self.dcprof(binary, env, args)
            with self.subTest(binary=binary):
                self.assertError(r, prefix, message)

    def good(self, args):
        """Both builds: exit 0, stderr empty; returns the normal build's stdout."""
        out = None
        for binary, env in self.binaries():
            r = self.dcprof(binary, env, args)
            with self.subTest(binary=binary):
                self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace"))
                self.assertEqual(r.stderr, b"")
            out = out if out is not None else r.stdout
        return out


class CraftedReuse(Robust):
    """A: counts of the reuse tables that no engine writes."""

    def test_negative_first_touches(self):
        db = self.profile(REUSE)
        edit(db, "UPDATE reuse_first SET count = -5000000000 WHERE bucket = 0")
        for cmd in (["reuse", db], ["reuse", db, "--kind", "time"], ["mrc", db],
                    ["reuse", db, "--converted"], ["reuse", db, "--accuracy"]):
            self.bad(cmd, "cannot read profile '%s': reuse_first has a negative count" % db)

    def test_negative_histogram_count(self):
        db = self.profile(REUSE)
        edit(db, "UPDATE reuse_hist SET count = -7 WHERE bin = 0")
        self.bad(["reuse", db], "cannot read profile '%s': reuse_hist bin 0: a negative"
                 " count" % db)

    def test_bin_out_of_range(self):
        db = self.profile(REUSE)
        for bin_ in (-1, 64, 2**40, INT64_MAX):
            edit(db, "UPDATE reuse_hist SET bin = %d WHERE rowid IN (SELECT MIN(rowid)"
                 " FROM reuse_hist GROUP BY kind)" % bin_)
            for cmd in (["reuse", db], ["reuse", db, "--converted"], ["mrc", db]):
                self.bad(cmd, "cannot read profile '%s': reuse_hist bin %d:" % (db, bin_))

    def test_huge_counts_draw_at_most_the_bar(self):
        """Counts near 2^62: count x 40 overflowed; now every bar is at most
        40 wide and the largest count's is 40."""
        db = self.profile(REUSE)
        edit(db, "UPDATE reuse_hist SET count = %d WHERE kind = 'stack' AND bin = 1"
             % (2**62), "UPDATE reuse_hist SET count = %d WHERE kind = 'stack' AND bin = 2"
             % (2**61))
        out = self.good(["reuse", db]).decode()
        bars = [len(w) for line in out.splitlines() for w in line.split() if set(w) == {"#"}]
        self.assertTrue(bars and max(bars) == 40, out)
        self.assertLessEqual(max(bars), 40)
        self.good(["reuse", db, "--converted"])
        self.good(["mrc", db])

    def test_sum_of_counts_overflows(self):
        db = self.profile(REUSE)
        edit(db, "UPDATE reuse_first SET count = %d" % INT64_MAX)
        self.bad(["reuse", db], "cannot read profile '%s': integer overflow" % db)
        self.bad(["mrc", db], "cannot read profile '%s': integer overflow" % db)


class CraftedShape(Robust):
    """B: a profile whose tables are not dcprof's."""

    def test_recursive_view_in_place_of_a_table(self):
        db = self.profile()
        edit(db, "ALTER TABLE bucket RENAME TO b0",
             "CREATE VIEW bucket AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL"
             " SELECT i + 1 FROM n) SELECT b0.* FROM b0, n")
        for cmd in ("report", "reuse", "mrc", "footprint", "evictions", "accuracy"):
            self.bad([cmd, db], "cannot read profile '%s': view bucket is not a table" % db)

    def test_view_inflating_names(self):
        db = self.profile()
        edit(db, "ALTER TABLE location RENAME TO l0",
             "CREATE VIEW location AS SELECT id, ip, object, printf('%.*c', 100000000, 'x')"
             " AS function, file, line FROM l0")
        self.bad(["report", db, "--by", "function"],
                 "cannot read profile '%s': view location is not a table" % db)

    def test_generated_column(self):
        db = self.profile()
        edit(db, "CREATE TABLE b1(id INTEGER PRIMARY KEY, n0 TEXT, kind TEXT, blocks INTEGER,"
             " max_live_blocks INTEGER, max_live_bytes INTEGER, total_bytes INTEGER,"
             " min_size INTEGER, max_size INTEGER,"
             " name TEXT AS (printf('%.*c', 100000000, 'x')))",
             "INSERT INTO b1(id, n0, kind) SELECT id, name, kind FROM bucket",
             "DROP TABLE bucket", "ALTER TABLE b1 RENAME TO bucket")
        self.bad(["report", db], "cannot read profile '%s': table bucket: column name is"
                 " missing or not as written by dcprof" % db)

    def test_table_without_its_key(self):
        """Without its primary key, every lookup into cache_use would scan it."""
        db = self.profile()
        edit(db, "DROP TABLE cache_use",
             "CREATE TABLE cache_use(bucket, location, thread, level, SpLoss, AcCost, Evicted)")
        self.bad(["report", db], "cannot read profile '%s': table cache_use: column bucket is"
                 " missing or not as written by dcprof" % db)

    def test_missing_column(self):
        db = self.profile()
        edit(db, "ALTER TABLE cost DROP COLUMN Lat")
        self.bad(["report", db], "cannot read profile '%s': table cost: column Lat is missing"
                 % db)

    def test_string_longer_than_the_limit(self):
        db = self.profile()
        edit(db, ("UPDATE bucket SET name = ? WHERE name = 'arr_a'", ("a" * (17 << 20),)))
        self.bad(["report", db], "cannot read profile '%s': a string or value is longer than"
                 " 16777216 bytes" % db)

    def test_work_limit(self):
        """A query that runs away is stopped; DCPROF_MAX_SQL_STEPS lowers the
        limit so a report on 20,000 cost rows needs more."""
        db = self.profile()
        edit(db, "INSERT INTO location(id, ip, object, function, file, line)"
             " WITH RECURSIVE n(i) AS (SELECT 100 UNION ALL SELECT i + 1 FROM n WHERE i < 20099)"
             " SELECT i, i, 'o', 'f' || i, 'g.c', i FROM n",
             "INSERT INTO cost SELECT 0, id, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4 FROM location"
             " WHERE id >= 100")
        for binary, env in self.binaries():
            env = dict(env or os.environ, DCPROF_MAX_SQL_STEPS="20000")
            self.assertError(self.dcprof(binary, env, ["report", db]), "dcprof report",
                             "cannot read profile '%s': a query took more than 20000 steps"
                             % db)
        self.good(["report", db])   # the default limit is far above a report's needs

    def test_location_id_near_int32_max(self):
        """footprint indexed an array by location id: 2^31 - 1 allocated
        8 GiB.  Under a 1 GiB address-space limit the report must equal the
        one with the original ids."""
        db = self.profile(TRACE)
        want = run([DCPROF, "footprint", db, "--format", "json"])
        self.assertEqual(want.returncode, 0, want.stderr)
        edit(db, "UPDATE location SET id = 2147483646 WHERE id = 2",
             "UPDATE trace_access SET location = 2147483646 WHERE location = 2",
             "UPDATE cost SET location = 2147483646 WHERE location = 2")

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        r = subprocess.run([DCPROF, "footprint", db, "--format", "json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, preexec_fn=limit,
                           timeout=TIMEOUT)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout), json.loads(want.stdout))
        self.good(["footprint", db, "--zoom"])

    def test_trace_window_out_of_range(self):
        db = self.profile(TRACE)
        edit(db, "UPDATE trace_window SET start = %d WHERE id = 0" % INT64_MAX)
        self.bad(["footprint", db], "cannot read profile '%s': trace_window 0: a value out of"
                 " range" % db)

    def test_wal_mode_profile(self):
        """Readable, and no -wal or -shm file left behind."""
        db = self.profile()
        want = self.run_dcprof("report", db, "--format", "json")
        con = sqlite3.connect(db)
        self.assertEqual(con.execute("PRAGMA journal_mode=WAL").fetchone()[0], "wal")
        con.close()
        self.assertEqual(sorted(os.listdir(self.tmp)), ["p.db"])
        for cmd in (["report", db, "--format", "json"], ["report", db, "--stats"],
                    ["export", db, "--format", "callgrind", "-o", self.path("cg.out")]):
            out = self.good(cmd)
            if cmd[-1] == "json":
                self.assertEqual(json.loads(out), json.loads(want))
            self.assertFalse([f for f in os.listdir(self.tmp) if f.endswith(("-wal", "-shm"))],
                             os.listdir(self.tmp))

    def test_paths_with_uri_characters(self):
        """The profile is opened as a URI; '?', '#', '%' and spaces in its
        path are escaped, absolute or relative."""
        db = self.profile()
        want = self.run_dcprof("report", db)
        d = self.path("a?b#c%41 d")
        os.mkdir(d)
        odd = os.path.join(d, "x?immutable=0#.db")
        shutil.copy(db, odd)
        got = self.run_dcprof("report", odd)
        self.assertEqual(got.replace(odd, db), want)
        r = run([DCPROF, "report", "x?immutable=0#.db"], cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(d)), ["x?immutable=0#.db"])


class CraftedSums(Robust):
    """C: values whose sums or products overflow 64 bits."""

    def test_report_totals(self):
        db = self.profile()
        # one row in each of two buckets: SQL sums per bucket fit, the total not
        edit(db, "UPDATE cost SET Lat = %d WHERE rowid IN (SELECT MIN(rowid) FROM cost"
             " GROUP BY bucket)" % INT64_MAX)
        for by in ("object", "function", "line"):
            self.bad(["report", db, "--by", by], "cannot read profile '%s': integer overflow"
                     % db)
        self.bad(["export", db, "--format", "callgrind", "-o", self.path("cg")],
                 "cannot read profile '%s': integer overflow" % db)

    def test_sql_sum_overflow(self):
        """SQLite's own "integer overflow" becomes the same one-line error."""
        db = self.profile()
        edit(db, "UPDATE cost SET Dr = %d" % INT64_MAX)
        self.bad(["report", db], "cannot read profile '%s': integer overflow (a sum of its"
                 " counts does not fit 64 bits)" % db)

    def test_misslat_products(self):
        """MissLat = Lat - (Dr + Dw - D1) x L1 latency saturates instead."""
        db = self.profile()
        edit(db, "UPDATE cost SET Dr = %d, Dw = %d WHERE rowid = (SELECT MIN(rowid) FROM cost)"
             % (2**62, 2**62))
        doc = json.loads(self.good(["report", db, "--format", "json"]))
        row = next(r for r in doc["rows"] if r["bucket"] == "arr_a")
        # (Dr + Dw - D1) x 4 saturates at 2^63 - 1; Lat is arr_a's 18660
        self.assertEqual(row["MissLat"], 18660 - INT64_MAX)

    def test_stats_totals(self):
        db = self.profile()
        edit(db, "UPDATE bucket SET total_bytes = %d, blocks = %d" % (INT64_MAX, INT64_MAX))
        self.bad(["report", db, "--stats"], "cannot read profile '%s': integer overflow" % db)

    def test_accuracy_totals(self):
        db = self.profile(SAMPLED_EVICT)
        edit(db, "UPDATE cost SET D1mr = %d WHERE rowid IN (SELECT MIN(rowid) FROM cost"
             " GROUP BY bucket)" % INT64_MAX)
        self.bad(["accuracy", db], "cannot read profile '%s': integer overflow" % db)

    def test_eviction_counts(self):
        db = self.profile(SAMPLED_EVICT)
        edit(db, "UPDATE eviction SET count = %d" % (INT64_MAX // 2))
        self.good(["evictions", db])
        self.good(["evictions", db, "--format", "json"])

    def test_diff_of_extremes(self):
        base, new = self.profile(), self.path("new.db")
        shutil.copy(base, new)
        one = " WHERE rowid = (SELECT MIN(rowid) FROM cost)"
        edit(base, "UPDATE cost SET Lat = %d" % (-2**62) + one)
        edit(new, "UPDATE cost SET Lat = %d" % (2**62) + one)
        self.good(["diff", base, new])
        self.good(["diff", base, new, "--format", "json"])

    def test_converted_histogram(self):
        db = self.profile(REUSE)
        edit(db, "UPDATE reuse_hist SET count = %d WHERE kind = 'time'" % (2**59))
        self.good(["reuse", db, "--converted"])
        self.good(["reuse", db, "--accuracy"])


class CraftedInclusive(Robust):
    """incl.c: the call arcs' sums (a profile recorded with --calls)."""

    @classmethod
    def setUpClass(cls):
        import tempfile
        from test_engine_common import CACHE_2, LAT
        cls.dir = tempfile.mkdtemp(prefix="dcprof-rob-")
        cls.db = os.path.join(cls.dir, "calls.db")
        r = run([DCPROF, "record", "-q", "-o", cls.db, CACHE_2, LAT, "--calls", "--cache-use",
                 "--", os.path.join(BUILD, "w", "calls_tree")])
        assert os.path.exists(cls.db), r.stderr

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir)

    def test_arc_sums(self):
        db = self.path("c.db")
        shutil.copy(self.db, db)
        self.good(["report", db, "--inclusive"])
        edit(db, "UPDATE call_arc SET Lat = %d WHERE rowid IN (SELECT MIN(rowid) FROM call_arc"
             " GROUP BY site)" % INT64_MAX)
        self.bad(["report", db, "--inclusive"], "cannot read profile '%s': integer overflow"
                 % db)


class SpecialFiles(Robust):
    """C: inputs that are not regular files."""

    def fifo(self):
        path = self.path("fifo")
        os.mkfifo(path)
        return path

    def test_profile_commands_refuse_a_fifo(self):
        f = self.fifo()
        db = self.profile()
        for args in (["report", f], ["accuracy", f], ["evictions", f], ["reuse", f],
                     ["footprint", f], ["mrc", f],
                     ["export", f, "--format", "callgrind", "-o", self.path("x")],
                     ["diff", db, f], ["diff", f, db]):
            self.bad(args, "cannot open profile '%s': not a regular file" % f)

    def test_finalize_refuses_a_fifo(self):
        f = self.fifo()
        self.bad(["finalize", f, "-o", self.path("p2.db")],
                 "cannot read raw dump '%s': not a regular file" % f)

    def test_finalize_dev_zero(self):
        """Not a regular file; it would never end."""
        self.bad(["finalize", "/dev/zero", "-o", self.path("z.db")],
                 "cannot read raw dump '/dev/zero': not a regular file")
        self.assertFalse(os.path.exists(self.path("z.db")))

    def test_finalize_line_too_long(self):
        raw = self.path("long.raw")
        with open(raw, "wb") as f:
            f.write(b"dcprof-raw %d\nmeta command " % RAW_VERSION)
            f.write(b"x" * (16 << 20))
        self.bad(["finalize", raw, "-o", self.path("l.db")],
                 "cannot read raw dump '%s': line 2: line longer than 16777216 bytes" % raw)

    def test_finalize_longest_line(self):
        """A line of exactly 16 MiB, its newline included, is read."""
        lines = read_text(TWO_LEVEL).splitlines(True)
        value = "y" * ((16 << 20) - len("meta long_note \n"))
        raw = self.write("ok.raw", "".join(lines[:1] + ["meta long_note %s\n" % value] + lines[1:]))
        db = self.path("ok.db")
        r = run([DCPROF, "finalize", "-q", raw, "-o", db])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(sqlite3.connect(db).execute(
            "SELECT value FROM meta WHERE key = 'long_note'").fetchone()[0]), len(value))


class RawReuseBins(Robust):
    """C: reuse bins far beyond any histogram's."""

    def raw_with_bin(self, b):
        text = read_text(REUSE)
        lines = text.splitlines(True)
        i = next(k for k, l in enumerate(lines) if l.startswith("rhist stack 0 "))
        f = lines[i].split()
        f[3] = str(b)
        lines[i] = " ".join(f) + "\n"
        return self.write("bin.raw", "".join(lines)), i + 1

    def test_huge_bin_in_a_raw_dump(self):
        for b in (64, 2**40, INT64_MAX):
            raw, line = self.raw_with_bin(b)
            self.bad(["finalize", raw, "-o", self.path("b.db")],
                     "cannot read raw dump '%s': line %d: rhist bin %d is beyond the last there"
                     " can be (63)" % (raw, line, b))

    def test_bin_whose_bound_overflows(self):
        """Bin 33 of 1:4 starts at 4^32 = 2^64: still the old message."""
        raw, line = self.raw_with_bin(33)
        text = read_text(raw).replace("meta reuse_bins 1:2", "meta reuse_bins 1:4")
        self.assertIn("meta reuse_bins 1:4", text)
        raw = self.write("bin4.raw", text)
        self.bad(["finalize", raw, "-o", self.path("b.db")],
                 "rhist bin 33 is beyond the largest distance (bins 1:4)")

    def test_reuse_bins_option(self):
        for v in ("1099511627776:2", "%d:2" % INT64_MAX, "1:%d" % INT64_MAX, "1:1099511627776"):
            r = run([DCPROF, "record", "--reuse=yes", "--reuse-bins=" + v, "--", "true"])
            self.assertError(r, "dcprof record", "invalid --reuse-bins value '%s'" % v)


class FullOutput(Robust):
    """C: help and version text that cannot be written is an error."""

    def test_help_to_dev_full(self):
        for args in (["help"], ["--version"], ["--help"], ["help", "report"],
                     ["report", "--help"], ["finalize", "--help"]):
            with open("/dev/full", "w") as full:
                r = subprocess.run([DCPROF] + args, stdout=full, stderr=subprocess.PIPE,
                                   text=True, timeout=TIMEOUT)
            self.assertError(r, "dcprof" if args[0].startswith("-") or args[0] == "help"
                             else "dcprof " + args[0],
                             "cannot write to standard output: No space left on device")


class Escaping(Robust):
    """C: one escaping rule in text, CSV and JSON (docs/cli.md, "Names are
    data")."""

    NAMES = {
        # bucket id in two_level: name
        0: b"x\xff",                      # differ only in an invalid byte
        1: b"x\xfe",
        2: b"=HYPERLINK(\"http://e\")",   # spreadsheet formulas
        3: b"@SUM(A1)",
        4: b"-2+3",
    }
    EXPECT = {   # the value every format gives back
        0: "x\\xff", 1: "x\\xfe", 2: "=HYPERLINK(\"http://e\")", 3: "@SUM(A1)", 4: "-2+3",
    }

    def setUp(self):
        super().setUp()
        self.db = self.profile()
        edit(self.db, *[("UPDATE bucket SET name = CAST(? AS TEXT) WHERE id = ?", (n, i))
                        for i, n in self.NAMES.items()])
        self.names = {self.EXPECT[i] for i in self.NAMES
                      if query_has_cost(self.db, i)}
        self.assertGreaterEqual(len(self.names), 3)

    def test_text(self):
        out = self.good(["report", self.db, "--stats"]).decode()
        for i, want in self.EXPECT.items():
            self.assertIn(want, out)

    def test_json_names_stay_distinct(self):
        doc = json.loads(self.good(["report", self.db, "--stats", "--format", "json"]))
        got = [r["bucket"] for r in doc["rows"]]
        self.assertEqual(len(got), len(set(got)), got)
        for want in self.EXPECT.values():
            self.assertIn(want, got)

    def test_csv_names_stay_distinct_and_start_no_formula(self):
        out = self.good(["report", self.db, "--stats", "--format", "csv"]).decode()
        rows = list(csv.reader(io.StringIO(out, newline="")))
        names = [r[0] for r in rows[1:]]
        self.assertEqual(len(names), len(set(names)), names)
        for n in names:
            self.assertNotIn(n[:1], ("=", "+", "-", "@", "\t", "\r"), n)
        for i, want in self.EXPECT.items():
            self.assertIn("'" + want if want[0] in "=+-@" else want, names)

    def test_csv_numbers_stay_numbers(self):
        base, new = self.db, self.path("new.db")
        shutil.copy(base, new)
        edit(new, "UPDATE cost SET Lat = 0")
        out = self.good(["diff", base, new, "--format", "csv"]).decode()
        rows = list(csv.DictReader(io.StringIO(out, newline="")))
        deltas = [r[k] for r in rows for k in r if k.endswith("_delta") and r[k]]
        self.assertTrue(any(d.startswith("-") for d in deltas), out)
        for d in deltas:
            float(d)

    def test_callgrind_export(self):
        cg = self.path("cg.out")
        self.good(["export", self.db, "--format", "callgrind", "--by-object", "-o", cg])
        text = read_text(cg)
        self.assertIn("x\\xff [", text)
        self.assertIn("x\\xfe [", text)


def query_has_cost(db, bucket):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT 1 FROM bucket WHERE id = ?", (bucket,)).fetchone() is not None
    finally:
        con.close()
