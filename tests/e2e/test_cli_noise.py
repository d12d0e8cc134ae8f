"""Noise and blanks (docs/engine.md "Data objects and buckets", docs/cli.md
"Code locations"): the tool's own preloads are one bucket, <valgrind> of
kind tool, never <file:vgpreload_*>; code without a symbol is "??? (object)"
in every code view, never an empty name; code without a line is its
function's "file:?" row (line null), never "file.c:0".

Expected numbers come from the profile itself, read with Python's sqlite3
(the cost table), never from dcprof report.
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess

from harness import DCPROF, TmpDirTest, query, run, workload

CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"
METRICS = ["Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw", "Lat"]
COST_SUMS = "SUM(Dr), SUM(Dw), SUM(D1mr), SUM(D1mw), SUM(D2mr), SUM(D2mw), SUM(Lat)"


class Noise(TmpDirTest):

    def report(self, db, *opts):
        r = run([DCPROF, "report", db, "--top", "0"] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def assert_totals(self, db, js):
        """The view's totals are the cost table's sums: nothing dropped."""
        want, = query(db, "SELECT %s FROM cost" % COST_SUMS)
        self.assertEqual(tuple(js["totals"][m] for m in METRICS), want)
        for m in METRICS:
            self.assertEqual(sum(r[m] for r in js["rows"]), js["totals"][m], m)

    def test_preloads_are_one_valgrind_bucket(self):
        """demo: the dynamic linker reads and relocates vgpreload_core at
        start-up, and the preload's own code reads its data; those accesses
        are kept, in the bucket <valgrind> (kind tool), and only ld.so's and
        the preload's code make them."""
        _, db = self.record([workload("demo")], [CACHE])
        names = [n for n, in query(db, "SELECT name FROM bucket")]
        self.assertFalse([n for n in names if "vgpreload" in n])
        self.assertEqual(query(db, "SELECT kind FROM bucket WHERE name = '<valgrind>'"),
                         [("tool",)])
        js = self.report_json(db)
        self.assertFalse([r for r in js["rows"] if "vgpreload" in r["bucket"]])
        row, = [r for r in js["rows"] if r["bucket"] == "<valgrind>"]
        self.assertEqual(row["kind"], "tool")
        (dr, dw), = query(db, "SELECT SUM(Dr), SUM(Dw) FROM cost c JOIN bucket b"
                              " ON b.id = c.bucket WHERE b.name = '<valgrind>'")
        self.assertGreater(dr + dw, 0)
        self.assertEqual((row["Dr"], row["Dw"]), (dr, dw))
        objs = {os.path.basename(o) for o, in query(
            db, "SELECT DISTINCT l.object FROM cost c JOIN bucket b ON b.id = c.bucket"
                " JOIN location l ON l.id = c.location WHERE b.name = '<valgrind>'")}
        self.assertIn("ld-linux-x86-64.so.2", objs)
        self.assertLessEqual(objs, {"ld-linux-x86-64.so.2", "vgpreload_core-amd64-linux.so"})
        self.assert_totals(db, js)
        self.assertNotIn("vgpreload", self.report(db))

    def nosym(self, opts=()):
        """nosym with a stripped copy of its library: the 4 x 4096 reads of
        `data` are made by a static function that no symbol names."""
        shutil.copy(workload("nosym"), self.path("nosym"))
        subprocess.run(["strip", "-o", self.path("libnosym.so"), workload("libnosym.so")],
                       check=True)
        _, db = self.record([self.path("nosym")], [CACHE] + list(opts))
        return db

    def test_unnamed_code_is_named_by_its_object(self):
        db = self.nosym(["--calls=yes"])
        lib = "??? (libnosym.so)"
        # the reads of data by code without a symbol, from the cost table
        want, = query(db, "SELECT %s FROM cost c JOIN location l ON l.id = c.location"
                          " WHERE l.function = '' AND l.object LIKE '%%/libnosym.so'"
                          % COST_SUMS.replace("SUM(", "SUM(c."))
        (reads,), = query(db, "SELECT SUM(c.Dr) FROM cost c JOIN location l"
                              " ON l.id = c.location JOIN bucket b ON b.id = c.bucket"
                              " WHERE l.function = '' AND b.name = 'data'")
        self.assertEqual(reads, 4 * 4096)
        fn = self.report_json(db, "--by", "function")
        self.assertFalse([r for r in fn["rows"] if r["function"] == ""])
        row, = [r for r in fn["rows"] if r["function"] == lib]
        self.assertEqual(tuple(row[m] for m in METRICS), want)
        # every object's unnamed code is its own row
        for r in fn["rows"]:
            if r["function"].startswith("???"):
                self.assertRegex(r["function"], r"^\?\?\? \([^/()]+\)$")
        self.assert_totals(db, fn)
        # the line view and --function with the name shown
        ln = self.report_json(db, "--by", "line", "--function", lib)
        self.assertEqual({r["function"] for r in ln["rows"]}, {lib})
        self.assertEqual(ln["totals"]["Dr"], want[0])
        self.assertIn(lib, self.report(db, "--by", "line"))
        # the inclusive view: a row, called from nosym_sum
        inc = self.report_json(db, "--inclusive")
        self.assertFalse([r for r in inc["rows"] if r["function"] == ""])
        row, = [r for r in inc["rows"] if r["function"] == lib]
        self.assertEqual(row["Dr"], want[0])
        self.assertGreaterEqual(row["InclDr"], want[0])
        # nosym_sum's 4 calls, and ld.so's of its init and fini code
        (calls,), = query(db, "SELECT SUM(a.count) FROM call_arc a JOIN location l"
                              " ON l.id = a.callee WHERE a.kind = 'call'"
                              " AND l.function = '' AND l.object LIKE '%/libnosym.so'")
        self.assertGreaterEqual(calls, 4)
        self.assertEqual(row["calls"], calls)
        # the export: one function per object, and callgrind_annotate agrees
        cg = self.path("out.cg")
        r = run([DCPROF, "export", db, "--format=callgrind", "-o", cg])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(cg) as f:
            text = f.read()
        self.assertRegex(text, r"\nfn=\(\d+\) \?\?\? \(libnosym\.so\)\n")
        self.assertNotRegex(text, r"\nc?fn=\(\d+\) \?\?\?\n")
        if shutil.which("callgrind_annotate"):
            ca = run(["callgrind_annotate", cg])
            self.assertEqual(ca.returncode, 0, ca.stderr)
            line = [l for l in ca.stdout.splitlines() if ":" + lib + " [" in l]
            self.assertEqual(len(line), 1, ca.stdout)
            self.assertEqual(int(line[0].split()[0].replace(",", "")), want[0])

    def test_preload_code_carries_its_object(self):
        """The functions of Valgrind's preload (vgpreload_core: the exit
        hooks; dcprof preloads nothing of its own) are call arcs of --calls
        profiles; they read as "NAME (vgpreload_...)" -- "??? (...)" where
        the object has no symbols -- never as the program's functions."""
        _, db = self.record([workload("omp_spin")], [CACHE, "--calls=yes"])
        fns = query(db, "SELECT DISTINCT function FROM location"
                        " WHERE object LIKE '%/vgpreload_%'")
        self.assertTrue(fns)
        inc = self.report_json(db, "--inclusive")
        for r in inc["rows"]:
            self.assertNotEqual(r["function"], "")
        shown = {r["function"] for r in inc["rows"] if "vgpreload" in r["function"]}
        self.assertTrue(shown)
        for f in shown:
            self.assertRegex(f, r"^\S+ \(vgpreload_core-amd64-linux\.so\)$")
        # every preload function called is shown with its object
        want = {"%s (%s)" % (f or "???", os.path.basename(o)) for f, o in query(
            db, "SELECT DISTINCT l.function, l.object FROM call_arc a JOIN location l"
                " ON l.id = a.callee WHERE l.object LIKE '%/vgpreload_%'")}
        self.assertTrue(want)
        self.assertLessEqual(want, shown)
        # and a name only the preloads have never shows plain
        only = {f for f, in fns if f} - {f for f, in query(
            db, "SELECT function FROM location WHERE object NOT LIKE '%/vgpreload_%'")}
        self.assertFalse(only & {r["function"] for r in inc["rows"]})

    def line0_profile(self):
        """A copy of demo's profile in which make_particles' lines 63 and 64
        and one unnamed location lost their line (line 0)."""
        _, db = self.record([workload("demo")], [CACHE])
        con = sqlite3.connect(db)
        con.execute("UPDATE location SET line = 0 WHERE function = 'make_particles'"
                    " AND line IN (63, 64)")
        con.commit()
        con.close()
        return db

    def test_line_zero_folds_into_its_function(self):
        db = self.line0_profile()
        want, = query(db, "SELECT %s FROM cost c JOIN location l ON l.id = c.location"
                          " WHERE l.function = 'make_particles' AND l.line = 0"
                          % COST_SUMS.replace("SUM(", "SUM(c."))
        self.assertGreater(want[1], 0)
        js = self.report_json(db, "--by", "line")
        rows = [r for r in js["rows"] if r["function"] == "make_particles" and r["line"] is None]
        self.assertEqual(len(rows), 1)
        self.assertTrue(rows[0]["file"].endswith("demo.c"))
        self.assertEqual(tuple(rows[0][m] for m in METRICS), want)
        self.assertFalse([r for r in js["rows"] if r["line"] == 0])
        self.assert_totals(db, js)
        # text: "demo.c:?", never ":0"
        text = self.report(db, "--by", "line")
        self.assertNotRegex(text, r":0\s")
        self.assertRegex(text, r"demo\.c:\?\s+make_particles\s")
        # csv: an empty line field
        csv = self.report(db, "--by", "line", "--format", "csv").splitlines()
        hits = [l for l in csv if re.match(r"^[^,]*demo\.c,,make_particles,", l)]
        self.assertEqual(len(hits), 1, csv[:5])
        # annotate: no line 0 (or null) in the margins; totals unchanged
        r = run([DCPROF, "annotate", db, "demo.c", "--format", "json", "--threshold", "0"])
        self.assertEqual(r.returncode, 0, r.stderr)
        an = json.loads(r.stdout)
        for f in an["files"]:
            for l in f["lines"]:
                self.assertGreater(l["line"], 0)
        self.assertEqual(an["totals"]["Dr"], js["totals"]["Dr"])
        # export: Callgrind's own "unknown line" 0, costs kept
        cg = self.path("l0.cg")
        r = run([DCPROF, "export", db, "--format=callgrind", "-o", cg])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(cg) as f:
            body = f.read()
        tot, = [l for l in body.splitlines() if l.startswith("totals:")]
        self.assertEqual([int(x) for x in tot.split()[1:3]],
                         [js["totals"]["Dr"], js["totals"]["Dw"]])
        self.assertRegex(body, r"\n0 \d+")
