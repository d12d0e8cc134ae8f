"""dcprof export --format=callgrind: callgrind_annotate (Valgrind's own
reader of the format) must read the export without a warning, and its
totals and top functions must be those of dcprof report."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import DCPROF, run
from test_cli_common import (EVIL, SAMPLED_EVICT, CliTest, downgrade_to_v1,
                             downgrade_to_v3, downgrade_to_v4)
from test_engine_common import CACHE_2, LAT, WORKLOAD_SRC, Recorded, query, report_json

EVENTS = ["Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw", "Lat", "SpLoss1", "AcCost1",
          "SpLoss2", "AcCost2"]


def annotate(path, *opts):
    """callgrind_annotate's (events, totals, [(costs, 'file:function [ob]')]);
    the export's files are full paths (cli.md), shown here without their
    directory."""
    r = subprocess.run(["callgrind_annotate"] + list(opts) + [path], capture_output=True,
                       text=True, errors="surrogateescape")
    if r.returncode != 0 or "WARNING" in r.stdout + r.stderr:
        raise AssertionError("callgrind_annotate: %s %s" % (r.stdout[-2000:], r.stderr))
    events = re.search(r"^Events shown:\s+(.*)$", r.stdout, re.M).group(1).split()
    totals, fns = None, []
    for line in r.stdout.splitlines():
        if not re.match(r"^\s*\d", line):
            continue
        name = re.split(r"\s{2,}|\) ", line.strip())[-1].strip()
        costs = [int(n.replace(",", "")) for n in
                 re.findall(r"([\d,]+)(?: \(\s*[\d.]+%\))?", line[:len(line) - len(name)])]
        if name == "PROGRAM TOTALS":
            totals = costs
        elif totals is not None:
            fns.append((costs, re.sub(r"^[^:]*/", "", name)))
    return events, totals, fns


class Export(Recorded):
    WORKLOAD = "cu_hydro"
    OPTS = (CACHE_2, LAT, "--cache-use")

    def export(self, *opts):
        out = os.path.join(self.tmpdir, "cg.%d.out" % len(opts))
        r = run([DCPROF, "export", self.db, "--format=callgrind", "-o", out] + list(opts))
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        return out

    def test_totals_and_top_functions(self):
        out = self.export()
        for opts in ((), ("--inclusive=yes",)):
            events, totals, fns = annotate(out, *opts)
            self.assertEqual(events, EVENTS)
            doc = report_json(self.db, "--by", "function", "--sort", "Dr")
            self.assertEqual(totals, [doc["totals"][e] for e in EVENTS])
            # callgrind_annotate sorts by the first event, Dr, like --sort Dr
            top = [(r["file"] + ":" + r["function"]) for r in doc["rows"][:2]]
            self.assertEqual(top, ["cu_hydro.c:column_sum", "cu_hydro.c:copy"])
            self.assertEqual([f.split(" [")[0] for _, f in fns[:2]], top)
            # every event of the two functions
            for (costs, _), row in zip(fns[:2], doc["rows"][:2]):
                self.assertEqual(costs, [row[e] for e in EVENTS])

    def test_format(self):
        with open(self.export()) as f:
            text = f.read()
        self.assertTrue(text.startswith("# callgrind format\nversion: 1\n"))
        self.assertIn("\nevents: " + " ".join(EVENTS) + "\n", text)
        # full source paths, so annotation works from any directory
        self.assertRegex(text, r"\nfl=\(\d+\) %s\n" % re.escape(os.path.join(WORKLOAD_SRC,
                                                                       "cu_hydro.c")))
        # name compression: each name once, by id, then the id alone
        self.assertEqual(text.count(") column_sum\n"), 1)
        self.assertEqual(len(re.findall(r"^fn=\(\d+\) column_sum$", text, re.M)), 1)

    def test_by_object(self):
        out = self.export("--by-object")
        _, totals, _ = annotate(out)
        doc = report_json(self.db)
        self.assertEqual(totals, [doc["totals"][e] for e in EVENTS])
        # hydro_m's pseudo object holds exactly the function that read it
        with open(out) as f:
            blocks = re.split(r"^ob=", f.read(), flags=re.M)[1:]
        hydro = [b for b in blocks if b.split("\n", 1)[0].endswith(" hydro_m [global]")]
        self.assertEqual(len(hydro), 1)
        self.assertEqual(re.findall(r"^fn=\(\d+\) ?(.*)$", hydro[0], re.M), ["column_sum"])


class ExportCalls(Recorded):
    """calls= lines carry the inclusive costs of call arcs: with
    --inclusive=yes, callgrind_annotate's inclusive cost of a function is
    its own plus that of its calls, which must be the profile's inclusive
    cost of the arc that called it (calls_tree: main -> level1 -> level2 ->
    level3, each called once)."""
    WORKLOAD = "calls_tree"
    OPTS = (CACHE_2, LAT, "--calls", "--cache-use")
    USE = ["SpLoss", "AcCost"]

    def test_inclusive(self):
        out = os.path.join(self.tmpdir, "calls.out")
        r = run([DCPROF, "export", self.db, "--format=callgrind", "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            text = f.read()
        self.assertIn("\ncalls=1 ", text)
        events, totals, fns = annotate(out, "--inclusive=yes")
        self.assertEqual(events[:2], ["Dr", "Dw"])
        self.assertEqual(events[7:], ["%s%d" % (m, k) for k in (1, 2) for m in self.USE])
        got = {name.split(" [")[0]: costs for costs, name in fns}
        for f in ("level1", "level2", "level3"):
            row = query(self.db, "SELECT SUM(a.Dr), SUM(a.Dw), SUM(a.Lat) FROM call_arc a"
                        " JOIN location cl ON cl.id = a.callee WHERE cl.function = ?", f)[0]
            costs = got["calls_tree.c:" + f]
            self.assertEqual((costs[0], costs[1], costs[events.index("Lat")]), row, f)
            # back-dated inclusive costs (seeds/001 §3) the same way
            use = query(self.db, "SELECT " + ", ".join("SUM(a.%s)" % m for m in self.USE) +
                        " FROM call_use a JOIN location cl ON cl.id = a.callee"
                        " WHERE cl.function = ? AND a.level = 1", f)[0]
            self.assertEqual(tuple(costs[events.index(m + "1")] for m in self.USE), use, f)
        # the program's total is the root's: nothing counted twice
        self.assertEqual(totals[0], query(self.db, "SELECT SUM(Dr) FROM cost")[0][0])


class ExportCallsEvictions(ExportCalls):
    """With --evictions=yes the lines each call's subtree lost (Evicted<k>,
    back-dated like SpLoss/AcCost) are events too, after AcCost<k>."""
    OPTS = ExportCalls.OPTS + ("--evictions",)
    USE = ["SpLoss", "AcCost", "Evicted"]

    def test_version_4_profile(self):
        # a version 4 profile has no Evicted columns: neither has its export
        db = os.path.join(self.tmpdir, "v4.db")
        shutil.copy(self.db, db)
        downgrade_to_v4(db)
        out = os.path.join(self.tmpdir, "v4.out")
        r = run([DCPROF, "export", db, "--format=callgrind", "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        events, _, _ = annotate(out, "--inclusive=yes")
        self.assertEqual(events[7:], ["SpLoss1", "AcCost1", "SpLoss2", "AcCost2"])
        self.assertNotIn("Evicted1", report_json(db, "--top", "1")["rows"][0])


class ExportNames(CliTest):
    """Program-supplied names cannot break the file: the fixture's bucket
    name holds a newline, an escape sequence, a quote and invalid UTF-8."""

    def test_evil_bucket_name(self):
        db = self.profile(SAMPLED_EVICT)
        out = self.path("e.out")
        self.run_dcprof("export", db, "--format=callgrind", "-o", out, "--by-object")
        with open(out, "rb") as f:
            data = f.read()
        self.assertNotIn(EVIL, data)
        self.assertIn(b"ob=(", data)
        self.assertIn(b'evil,"q"\\x0a\\x1b[31m\\xff\xc3\xa9 [user]', data)
        self.assertFalse(re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", data))
        annotate(out)

    def test_older_profiles(self):
        # version 1 and 3 profiles lack cache_use and call_arc: plain events
        for downgrade in (downgrade_to_v3, downgrade_to_v1):
            db = self.profile(SAMPLED_EVICT)
            downgrade(db)
            out = self.path("old.out")
            self.run_dcprof("export", db, "--format=callgrind", "-o", out)
            events, totals, _ = annotate(out)
            self.assertEqual(events, ["Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw", "Lat"])
            os.remove(db)

    def test_errors(self):
        db = self.profile(SAMPLED_EVICT)
        out = self.path("x.out")
        for args, msg in (([db, "-o", out], "--format is required (callgrind)"),
                          ([db, "--format=kcachegrind", "-o", out],
                           "invalid --format value 'kcachegrind' (callgrind)"),
                          ([db, "--format=callgrind"], "-o FILE is required"),
                          ([self.path("none.db"), "--format=callgrind", "-o", out],
                           "cannot open profile"),
                          ([db, "--format=callgrind", "-o", self.path("no/dir/x")],
                           "cannot write '%s'" % self.path("no/dir/x"))):
            self.assertError(run([DCPROF, "export"] + args), "dcprof export", msg)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
