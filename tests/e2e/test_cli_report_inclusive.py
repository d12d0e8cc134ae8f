"""dcprof report --inclusive: inclusive costs per function from the call
arcs (src/analysis/incl.h) on calls_tree (see its header): main -> level1 ->
level2 -> level3, recursion, a tail call, a longjmp, a signal handler and
a second thread, recorded with --calls --cache-use --evictions=yes.

A function's inclusive cost is its self cost plus the inclusive costs of
the arcs called from it; <root> has the roots' arcs.  The engine's
accountings it is checked against: the cost table (the program's totals)
and the arcs into a function (counter differences, seeds/001 §2)."""
import csv
import io
import os
import re
import shutil
import subprocess

from harness import DCPROF, run
from test_cli_common import CliTest, downgrade_to_v4
from test_engine_common import CACHE_2, LAT, Recorded, query, report_json

LEVELS = (1, 2)
COST = ["Lat", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw"]
USE = ["%s%d" % (m, k) for k in LEVELS for m in ("SpLoss", "AcCost", "Evicted")]
METRICS = ["MissLat"] + COST + USE


def annotate_inclusive(path):
    """{file:function: {event: inclusive cost}} of every function, from
    callgrind_annotate --inclusive=yes (an event it leaves empty, '.',
    is 0)."""
    r = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                       capture_output=True, text=True)
    if r.returncode != 0 or "WARNING" in r.stdout + r.stderr:
        raise AssertionError("callgrind_annotate: %s %s" % (r.stdout[-2000:], r.stderr))
    events = re.search(r"^Events shown:\s+(.*)$", r.stdout, re.M).group(1).split()
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"^\s*((?:(?:[\d,]+(?: \(\s*[\d.]+%\))?|\.)\s+)+)(\S.*)$", line)
        if not m:
            continue
        costs = [0 if v == "." else int(v.replace(",", "")) for v in
                 re.findall(r"(?<!\S)([\d,]+|\.)(?=\s|$)", m.group(1))]
        if len(costs) == len(events):
            # the export's full paths without their directory
            out[re.sub(r"^[^:]*/", "", m.group(2).split(" [")[0])] = dict(zip(events, costs))
    return out


def rows_by_function(doc):
    """{function: row} of the workload's own functions (calls_tree.c) and
    <root>, which must each have one row."""
    out = {}
    for r in doc["rows"]:
        if r["file"] == "calls_tree.c" or r["function"] == "<root>":
            assert r["function"] not in out, r["function"]
            out[r["function"]] = r
    return out


class ReportInclusive(Recorded):
    WORKLOAD = "calls_tree"
    OPTS = (CACHE_2, LAT, "--calls", "--cache-use", "--evictions")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.doc = report_json(cls.db, "--inclusive")
        cls.fn = rows_by_function(cls.doc)

    def arc(self, caller, callee):
        """The arcs caller -> callee summed: {metric: inclusive}."""
        # the last of the two levels is D2 in the profile, DL in the report
        row = query(self.db, "SELECT " + ", ".join("SUM(a.%s)" % c.replace("DL", "D2")
                                                   for c in COST) +
                    " FROM call_arc a JOIN location sl ON sl.id = a.site"
                    " JOIN location cl ON cl.id = a.callee"
                    " WHERE sl.function = ? AND cl.function = ?", caller, callee)[0]
        out = dict(zip(COST, row))
        for k in LEVELS:
            use = query(self.db, "SELECT SUM(a.SpLoss), SUM(a.AcCost), SUM(a.Evicted)"
                        " FROM call_use a JOIN location sl ON sl.id = a.site"
                        " JOIN location cl ON cl.id = a.callee WHERE sl.function = ?"
                        " AND cl.function = ? AND a.level = ?", caller, callee, k)[0]
            for m, v in zip(("SpLoss", "AcCost", "Evicted"), use):
                out["%s%d" % (m, k)] = v or 0
        return out

    def test_root_is_the_program(self):
        # <root>: no self cost, no calls; inclusive = the program's totals,
        # every metric (the report's totals row sums the cost table)
        root, totals = self.fn["<root>"], self.doc["totals"]
        self.assertIsNone(root["calls"])
        for m in METRICS:
            self.assertEqual(root["Incl" + m], totals[m], m)
            if m != "MissLat":
                self.assertEqual(root[m], 0, m)
        self.assertEqual(root["InclMissLatPct"], 100.0)
        self.assertEqual(totals["Dr"], query(self.db, "SELECT SUM(Dr) FROM cost")[0][0])
        # the inclusive columns do not add up: no totals for them
        self.assertIsNone(totals["InclDr"])
        # top-down by default: the largest inclusive MissLat first
        self.assertEqual(self.doc["rows"][0]["function"], "<root>")
        incl = [r["InclMissLat"] for r in self.doc["rows"]]
        self.assertEqual(incl, sorted(incl, reverse=True))

    def test_inclusive_at_least_self_everywhere(self):
        for r in self.doc["rows"]:
            for m in METRICS:
                self.assertGreaterEqual(r["Incl" + m], r[m], (r["function"], r["file"], m))

    def test_known_call_tree(self):
        # level3 calls nothing: inclusive = self; level2 = self + level3;
        # level1 = self + level2; each called once
        l1, l2, l3 = (self.fn["level%d" % i] for i in (1, 2, 3))
        for m in METRICS:
            self.assertEqual(l3["Incl" + m], l3[m], m)
            self.assertEqual(l2["Incl" + m], l2[m] + l3["Incl" + m], m)
            self.assertEqual(l1["Incl" + m], l1[m] + l2["Incl" + m], m)
        self.assertEqual((l1["calls"], l2["calls"], l3["calls"]), (1, 1, 1))
        # level_k reads t_k's 4096 ints: the subtree of level1 reads all three
        self.assertGreaterEqual(l1["InclDr"], 3 * 4096)
        # the other accounting: the arcs into them (counter differences and
        # the back-dating tree), equal for functions entered only by calls
        for caller, callee in (("main", "level1"), ("level1", "level2"),
                               ("level2", "level3"), ("main", "tail1"),
                               ("main", "recurse")):
            arc = self.arc(caller, callee)
            for m in COST + USE:
                self.assertEqual(self.fn[callee]["Incl" + m], arc[m], (callee, m))
        # recurse(4): 1 call from main and 4 from itself; the self calls add
        # nothing, so its inclusive is its own cost
        rec = self.fn["recurse"]
        self.assertEqual(rec["calls"], 5)
        self.assertEqual(rec["InclDr"], rec["Dr"])

    def test_as_callgrind_annotate(self):
        # callgrind_annotate --inclusive=yes on the export shows a called
        # function's calls= costs into it: the same numbers for functions
        # whose code runs only in their own calls
        out = os.path.join(self.tmpdir, "cg.out")
        r = run([DCPROF, "export", self.db, "--format=callgrind", "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        got = annotate_inclusive(out)
        for f in ("level1", "level2", "level3", "recurse", "tail1", "deep1"):
            for m in COST + USE:
                self.assertEqual(got["calls_tree.c:" + f][m], self.fn[f]["Incl" + m], (f, m))
        # main's code between deep2's longjmp and its next call ran while
        # deep1's and deep2's frames were still on the stack: it is in
        # main's own cost and in the call of deep1, so main's row counts it
        # twice, the arc into main once; the difference is part of main's
        # own cost
        main = got["calls_tree.c:main"]
        for m in COST:
            self.assertGreaterEqual(self.fn["main"]["Incl" + m], main[m], m)
            self.assertLessEqual(self.fn["main"]["Incl" + m] - main[m], self.fn["main"][m], m)
        self.assertGreater(self.fn["main"]["InclLat"], main["Lat"])

    def test_per_thread(self):
        doc = report_json(self.db, "--inclusive", "--thread")
        roots = {r["thread"]: r for r in doc["rows"] if r["function"] == "<root>"}
        self.assertEqual(sorted(roots), [1, 2])
        for thread, root in roots.items():
            total = query(self.db, "SELECT SUM(Dr), SUM(Lat) FROM cost WHERE thread = ?",
                          thread)[0]
            self.assertEqual((root["InclDr"], root["InclLat"]), total, thread)
        for r in doc["rows"]:
            self.assertGreaterEqual(r["InclDr"], r["Dr"], r["function"])

    def test_one_function(self):
        doc = report_json(self.db, "--inclusive", "--function", "level2")
        self.assertEqual([r["function"] for r in doc["rows"]], ["level2"])
        self.assertEqual(doc["rows"][0]["InclDr"], self.fn["level2"]["InclDr"])

    def test_text_and_csv(self):
        r = run([DCPROF, "report", self.db, "--inclusive", "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        self.assertEqual(rows[0]["function"], "<root>")
        self.assertEqual(rows[0]["calls"], "")
        self.assertEqual(int(rows[0]["InclDr"]), self.doc["totals"]["Dr"])
        r = run([DCPROF, "report", self.db, "--inclusive", "--top", "2"])
        self.assertEqual(r.returncode, 0, r.stderr)
        head = next(l for l in r.stdout.splitlines() if l.startswith("function "))
        # text: what it ranks by, the calls and the self MissLat first, then
        # the other inclusive columns; the self counts only in csv (above)
        self.assertEqual(head.split()[:7], ["function", "file", "InclMissLat", "InclMissLat%",
                                            "calls", "MissLat", "MissLat%"])
        self.assertIn(" InclEvicted2", head)
        self.assertNotIn(" Dr ", head)
        self.assertIn("Dr", rows[0])
        shown = run([DCPROF, "report", self.db, "--inclusive", "--top", "2", "--show", "Dr"])
        self.assertEqual(next(l for l in shown.stdout.splitlines()
                              if l.startswith("function ")).split(), ["function", "file", "Dr"])
        self.assertIn("\n<root> ", r.stdout)
        # --sort takes the inclusive columns
        doc = report_json(self.db, "--inclusive", "--sort", "inclSpLoss1")
        self.assertEqual(doc["rows"][0]["function"], "<root>")

    def test_version_4_profile(self):
        # no Evicted columns in version 4: nor inclusive ones
        db = os.path.join(self.tmpdir, "v4.db")
        shutil.copy(self.db, db)
        downgrade_to_v4(db)
        doc = report_json(db, "--inclusive")
        root = doc["rows"][0]
        self.assertNotIn("InclEvicted1", root)
        self.assertEqual(root["InclSpLoss1"], self.fn["<root>"]["InclSpLoss1"])


class ReportInclusiveErrors(CliTest):
    """A profile without call arcs, and views that are not per function."""

    def test_errors(self):
        db = self.profile()
        r = run([DCPROF, "report", db, "--inclusive"])
        self.assertError(r, "dcprof report",
                         "profile '%s' has no call data; record with --calls=yes" % db)
        for opts in (["--by", "object"], ["--by", "line"], ["--object", "x"], ["--stats"],
                     ["--sampled"]):
            r = run([DCPROF, "report", db, "--inclusive"] + opts)
            self.assertError(r, "dcprof report", "--inclusive is per function: it cannot be"
                             " combined with --by object, --by line, --object, --stats or"
                             " --sampled")


class ReportWidest(Recorded):
    """The widest tables: four levels with cache use and evictions.  By
    line per thread: 5 keys (location, file, line, function, thread), 7
    metrics, 2 misses and 3 cache-use metrics per level: 32 columns in
    text (location counts, file and line do not: 30), 31 in csv (no
    location).  --inclusive per thread: 3 keys + 7 + 4 x 5 self, then
    calls, InclMissLat, InclMissLatPct, InclLat, InclDr, InclDw and 4 x 5:
    56 columns."""
    WORKLOAD = "calls_plt"
    OPTS = ("--cache=L1=32K:8:64,L2=256K:8:64,L3=1M:16:64,L4=8M:16:64", LAT, "--calls",
            "--cache-use", "--evictions")

    def columns(self, *opts):
        r = run([DCPROF, "report", self.db, "--format", "csv"] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout.splitlines()[0].split(",")

    def test_columns(self):
        self.assertEqual(len(self.columns("--by", "line", "--thread")), 31)
        cols = self.columns("--inclusive", "--thread")
        self.assertEqual(len(cols), 56)
        self.assertEqual(cols[-1], "InclEvicted4")
        for fmt in ("text", "json"):
            r = run([DCPROF, "report", self.db, "--inclusive", "--thread", "--format", fmt])
            self.assertEqual(r.returncode, 0, r.stderr)
