"""dcprof annotate on a workload with a known hot line (tests/workloads/annot_hot.c
with parts/annot_fill.c, built -O2 -g like build/w/annot_hot).

The workload is built here from copies of its sources, recorded once, and
the copies are then moved (annot_hot.c to moved/, annot_fill.c to other/),
so the recorded paths no longer exist whether the profile records base
names or full paths.  Every expected number comes from the profile itself:
`report --by line --format csv` for the margin, Python's sqlite3 over the
cost table for the split over buckets."""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from harness import DCPROF, ROOT, query, run

CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"
SOURCES = {"annot_hot.c": os.path.join(ROOT, "tests", "workloads", "annot_hot.c"),
           "annot_fill.c": os.path.join(ROOT, "tests", "workloads", "parts", "annot_fill.c")}


def marked_line(path, marker):
    with open(path) as f:
        for n, text in enumerate(f, 1):
            if marker in text:
                return n, text.rstrip("\n")
    raise AssertionError("no %s in %s" % (marker, path))


def num(s):
    return 0 if s == "." else float(s.replace(",", ""))


class AnnotateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._td = tempfile.TemporaryDirectory(prefix="dcprof-annotate-")
        t = cls.tmp = cls._td.name
        os.mkdir(os.path.join(t, "src"))
        for name, path in SOURCES.items():
            shutil.copy(path, os.path.join(t, "src", name))
        subprocess.run(["gcc", "-O2", "-g", "-o", "annot_hot", "src/annot_hot.c",
                        "src/annot_fill.c"], cwd=t, check=True)
        cls.db = os.path.join(t, "p.db")
        r = run([DCPROF, "record", "-q", CACHE, "-o", cls.db, "--", os.path.join(t, "annot_hot")])
        assert r.returncode == 0, r.stderr
        cls.moved = os.path.join(t, "moved")
        cls.other = os.path.join(t, "other")
        os.mkdir(cls.moved)
        os.mkdir(cls.other)
        os.rename(os.path.join(t, "src", "annot_hot.c"), os.path.join(cls.moved, "annot_hot.c"))
        os.rename(os.path.join(t, "src", "annot_fill.c"), os.path.join(cls.other, "annot_fill.c"))
        cls.hot, cls.hot_text = marked_line(SOURCES["annot_hot.c"], "/* HOT */")
        cls.fill, cls.fill_text = marked_line(SOURCES["annot_fill.c"], "/* FILL */")
        cls.l1_latency = query(cls.db, "SELECT latency FROM level WHERE level = 1")[0][0]

    @classmethod
    def tearDownClass(cls):
        cls._td.cleanup()

    def annotate(self, *opts, dirs=True, code=0):
        args = [DCPROF, "annotate", self.db] + list(opts)
        if dirs:
            args += ["--source-dir", self.moved, "--source-dir", self.other]
        r = run(args, cwd=self.tmp)
        self.assertEqual(r.returncode, code, r.stderr)
        return r

    def report_line(self, fname, line, *opts):
        """{column: value} of report --by line --format csv for fname:line,
        summed over its functions."""
        r = run([DCPROF, "report", self.db, "--by", "line", "--format", "csv"] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        mine = [row for row in rows
                if os.path.basename(row["file"]) == fname and int(row["line"]) == line]
        self.assertTrue(mine, "no report row for %s:%d" % (fname, line))
        out = {}
        for row in mine:
            for k, v in row.items():
                if k not in ("file", "line", "function") and v != "":
                    out[k] = out.get(k, 0) + float(v)
        return out

    def bucket_split(self, fname, line, obj=None):
        """{bucket: MissLat} of the cost rows on fname:line, from the cost table."""
        sql = ("SELECT b.name, SUM(c.Lat - (c.Dr + c.Dw - c.D1mr - c.D1mw) * ?) FROM cost c"
               " JOIN bucket b ON b.id = c.bucket JOIN location l ON l.id = c.location"
               " WHERE (l.file = ? OR l.file LIKE ?) AND l.line = ?")
        params = [self.l1_latency, fname, "%/" + fname, line]
        if obj:
            sql += " AND b.name = ?"
            params.append(obj)
        rows = query(self.db, sql + " GROUP BY b.id", *params)
        return {name: v for name, v in rows if v}

    def margin(self, out, text):
        """The margin of the text output's line whose source is text:
        {column: value}, columns from the heading line above it."""
        lines = out.splitlines()
        i = next(k for k, l in enumerate(lines) if l.endswith("  " + text))
        head = next(lines[k] for k in range(i, -1, -1)
                    if lines[k].split() and lines[k].split()[0] in ("MissLat", "D1mr"))
        cols = head.split()
        return dict(zip(cols, map(num, lines[i].split()[:len(cols)]))), lines[i + 1]

    def test_hot_line_counts_equal_report(self):
        out = self.annotate().stdout
        vals, _ = self.margin(out, self.hot_text)
        want = self.report_line("annot_hot.c", self.hot)
        self.assertEqual(list(vals), ["MissLat", "Dr", "Dw", "D1mr", "D1mw", "DLmr", "DLmw"])
        for col, v in vals.items():
            self.assertEqual(v, want.get(col, 0), col)
        # The workload's own arithmetic (annot_hot.c): 3 sweeps of 65,536
        # reads of each array; every rows_a read and every other rows_b read
        # misses L1.
        self.assertEqual(vals["Dr"], 3 * 2 * 65536)
        self.assertEqual(vals["D1mr"], 3 * (65536 + 32768))
        fvals, _ = self.margin(out, self.fill_text)
        fwant = self.report_line("annot_fill.c", self.fill)
        for col, v in fvals.items():
            self.assertEqual(v, fwant.get(col, 0), col)
        self.assertIn("-- line ", out)

    def test_bucket_split_adds_up_and_matches_cost_table(self):
        split = self.bucket_split("annot_hot.c", self.hot)
        self.assertEqual(set(split), {"rows_a", "rows_b"})
        total = sum(split.values())
        doc = json.loads(self.annotate("--format", "json").stdout)
        f = next(f for f in doc["files"] if os.path.basename(f["file"]) == "annot_hot.c")
        line = next(l for l in f["lines"] if l["line"] == self.hot)
        self.assertTrue(line["hot"])
        self.assertEqual(line["text"], self.hot_text)
        self.assertAlmostEqual(sum(b["pct"] for b in line["buckets"]), 100.0, places=6)
        self.assertEqual({b["bucket"]: b["value"] for b in line["buckets"]}, split)
        for b in line["buckets"]:
            self.assertAlmostEqual(b["pct"], 100.0 * split[b["bucket"]] / total, places=6)
        self.assertEqual(line["MissLat"], total)
        # The text's split line, one decimal.
        _, after = self.margin(self.annotate().stdout, self.hot_text)
        m = re.fullmatch(r"\s+\^ MissLat by bucket: (.*)", after)
        self.assertTrue(m, after)
        shares = dict(re.fullmatch(r"(\S+) ([\d.]+) %", s).groups()
                      for s in m.group(1).split(", "))
        self.assertEqual(set(shares), {"rows_a", "rows_b"})
        for name, pct in shares.items():
            self.assertAlmostEqual(float(pct), 100.0 * split[name] / total, delta=0.05)
        self.assertAlmostEqual(sum(map(float, shares.values())), 100.0, delta=0.1)

    def test_object_filters(self):
        out = self.annotate("--object", "rows_b").stdout
        vals, after = self.margin(out, self.hot_text)
        want = self.report_line("annot_hot.c", self.hot, "--object", "rows_b")
        for col, v in vals.items():
            self.assertEqual(v, want.get(col, 0), col)
        self.assertEqual(vals["Dr"], 3 * 65536)
        self.assertEqual(vals["MissLat"], self.bucket_split("annot_hot.c", self.hot,
                                                            "rows_b")["rows_b"])
        self.assertTrue(after.endswith("^ MissLat by bucket: rows_b 100.0 %"), after)
        self.assertIn("object:   'rows_b'", out)
        r = self.annotate("--object", "nosuch", code=2)
        self.assertEqual(r.stderr, "dcprof annotate: no bucket named 'nosuch'\n")

    def test_show_and_sort(self):
        out = self.annotate("--show", "D1mr,Dr").stdout
        vals, _ = self.margin(out, self.hot_text)
        self.assertEqual(list(vals), ["D1mr", "Dr"])
        want = self.report_line("annot_hot.c", self.hot)
        self.assertEqual(vals, {"D1mr": want["D1mr"], "Dr": want["Dr"]})
        r = self.annotate("--show", "D1mr,Bogus", code=2)
        self.assertEqual(len(r.stderr.splitlines()), 1)
        self.assertIn("unknown column 'Bogus' (valid: MissLat, ", r.stderr)
        self.assertEqual(r.stdout, "")
        r = self.annotate("--sort", "Nope", code=2)
        self.assertEqual(r.stderr, "dcprof annotate: unknown sort metric 'Nope' (valid: MissLat,"
                         " MissLatPct, MissPct, LatPerMiss, Lat, Dr, Dw, D1mr, D1mw, DLmr,"
                         " DLmw)\n")
        r = self.annotate("--sort", "LatPerMiss", code=2)
        self.assertIn("'LatPerMiss' is a ratio", r.stderr)
        # Splits follow the metric: by Dr, rows_a and rows_b half each.
        doc = json.loads(self.annotate("--sort", "Dr", "--format", "json").stdout)
        f = next(f for f in doc["files"] if os.path.basename(f["file"]) == "annot_hot.c")
        line = next(l for l in f["lines"] if l["line"] == self.hot)
        self.assertEqual({b["bucket"]: b["value"] for b in line["buckets"]},
                         {"rows_a": 3 * 65536, "rows_b": 3 * 65536})

    def test_threshold_picks_hot_files(self):
        shares = {}
        for fname in SOURCES:
            shares[fname] = query(
                self.db, "SELECT SUM(c.Lat - (c.Dr + c.Dw - c.D1mr - c.D1mw) * ?) FROM cost c"
                " JOIN location l ON l.id = c.location WHERE l.file = ? OR l.file LIKE ?",
                self.l1_latency, fname, "%/" + fname)[0][0]
        total = query(self.db, "SELECT SUM(Lat - (Dr + Dw - D1mr - D1mw) * ?) FROM cost",
                      self.l1_latency)[0][0]
        hot, fill = (100.0 * shares[f] / total for f in ("annot_hot.c", "annot_fill.c"))
        self.assertGreater(hot, fill)
        both = self.annotate().stdout
        self.assertIn(self.hot_text, both)
        self.assertIn(self.fill_text, both)
        only = self.annotate("--threshold", "%.3f" % ((hot + fill) / 2)).stdout
        self.assertIn(self.hot_text, only)
        self.assertNotIn(self.fill_text, only)
        named = self.annotate("annot_fill.c").stdout
        self.assertNotIn(self.hot_text, named)
        self.assertIn(self.fill_text, named)
        for bad in ("-1", "101", "x"):
            r = self.annotate("--threshold", bad, code=2)
            self.assertIn("invalid --threshold value", r.stderr)

    def test_missing_source(self):
        r = self.annotate(dirs=False, code=2)
        msgs = r.stderr.splitlines()
        self.assertEqual(len(msgs), 2, r.stderr)
        for m, name in zip(sorted(msgs), ("annot_fill.c", "annot_hot.c")):
            self.assertRegex(m, r"^dcprof annotate: source file '([^']*/)?%s' not found;"
                             r" use --source-dir$" % re.escape(name))
        self.assertNotIn(self.hot_text, r.stdout)
        # One found, one not: the found one prints and the exit is 0.
        r = run([DCPROF, "annotate", self.db, "--source-dir", self.moved], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(self.hot_text, r.stdout)
        self.assertRegex(r.stderr, r"^dcprof annotate: source file '([^']*/)?annot_fill.c'"
                         r" not found in the --source-dir directories nor at its recorded"
                         r" path\n$")
        r = self.annotate("nosuch.c", code=2)
        self.assertIn("no accesses recorded in source file 'nosuch.c'", r.stderr)

    def test_rest_accounts_for_the_total(self):
        """What the files shown leave out is listed after them, and with
        them it adds up to the total: annot_fill.c (its source hidden) by
        its own share and its function, the other files and the code
        with no file summed.  Expected values come from the cost table."""
        lat = self.l1_latency
        miss = "SUM(c.Lat - (c.Dr + c.Dw - c.D1mr - c.D1mw) * ?)"
        total = query(self.db, "SELECT %s FROM cost c" % miss, lat)[0][0]
        per_file = dict(query(self.db, "SELECT l.file, %s FROM cost c JOIN location l"
                              " ON l.id = c.location GROUP BY l.file" % miss, lat))
        fill = next(v for f, v in per_file.items() if f and f.endswith("annot_fill.c"))
        hot = next(v for f, v in per_file.items() if f and f.endswith("annot_hot.c"))
        no_file = sum(v for f, v in per_file.items() if not f)
        others = {f: v for f, v in per_file.items()
                  if f and not f.endswith(("annot_fill.c", "annot_hot.c"))}
        r = run([DCPROF, "annotate", self.db, "--source-dir", self.moved], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        i = lines.index(next(l for l in lines if l.startswith("-- MissLat not shown above: ")))
        rest = total - hot
        self.assertEqual(lines[i], "-- MissLat not shown above: {:,} ({:.2f} % of the total)"
                         .format(rest, 100.0 * rest / total))
        rows = [re.fullmatch(r"\s*([\d,]+)\s+([\d.]+) %  (.*)", l).groups()
                for l in lines[i + 2:] if l.strip()]
        # annot_fill.c's one function is fill (noinline).
        self.assertRegex(rows[0][2], r"^([^ ]*/)?annot_fill\.c \(fill\): source not found$")
        self.assertEqual(num(rows[0][0]), fill)
        # Each other file is below the 1 % threshold: summed in one row.
        self.assertTrue(all(v < total / 100 for v in others.values()))
        want = [(sum(others.values()), "%d other files, below the threshold" % len(others))]
        if no_file:
            want.append((no_file, "code with no source file (no line debug information)"))
        self.assertEqual([(num(v), what) for v, _, what in rows[1:]], want)
        self.assertEqual(hot + sum(num(v) for v, _, _ in rows), total)
        # JSON: the files chosen, the others and the code with no file.
        doc = json.loads(self.annotate("--format", "json").stdout)
        self.assertEqual(doc["other_files"], len(others))
        self.assertEqual(doc["other_metric"], sum(others.values()))
        self.assertEqual(doc["no_file_metric"], no_file)
        self.assertEqual(sum(f["metric"] for f in doc["files"]) + doc["other_metric"]
                         + doc["no_file_metric"], total)
        # The hot line is in sweep (noinline), annot_fill.c's in fill.
        self.assertEqual({os.path.basename(f["file"]): f["function"] for f in doc["files"]},
                         {"annot_hot.c": "sweep", "annot_fill.c": "fill"})

    def test_source_text_escaped(self):
        """Control characters of the source are escaped, tabs kept; an edited
        copy newer than the profile gets a warning."""
        edited = os.path.join(self.tmp, "edited")
        os.makedirs(edited, exist_ok=True)
        with open(os.path.join(self.moved, "annot_hot.c"), "rb") as f:
            src = f.read()
        src = src.replace(b"/* HOT */", b"/* HOT \x1b[31m */")
        with open(os.path.join(edited, "annot_hot.c"), "wb") as f:
            f.write(src)
        r = run([DCPROF, "annotate", self.db, "annot_hot.c", "--source-dir", edited],
                cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("\x1b", r.stdout)
        self.assertIn("\t\t\ts += rows_a[i] * rows_b[i / 2];   /* HOT \\x1b[31m */", r.stdout)
        self.assertIn("is newer than the profile", r.stderr)

    def test_recorded_paths(self):
        """location.file may hold a base name or a path (absolute, or relative
        to the current directory): a copy of the profile with each form."""
        import sqlite3
        back = os.path.join(self.tmp, "back", "src")
        os.makedirs(back, exist_ok=True)
        shutil.copy(os.path.join(self.moved, "annot_hot.c"), back)
        for form, recorded in (("abs", os.path.join(back, "annot_hot.c")),
                               ("rel", "back/src/annot_hot.c")):
            db = os.path.join(self.tmp, "%s.db" % form)
            shutil.copy(self.db, db)
            con = sqlite3.connect(db)
            con.execute("UPDATE location SET file = ? WHERE file = 'annot_hot.c'"
                        " OR file LIKE '%/annot_hot.c'", (recorded,))
            con.commit()
            con.close()
            # Found where recorded, without --source-dir ...
            r = run([DCPROF, "annotate", db, "annot_hot.c"], cwd=self.tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(self.hot_text, r.stdout)
            # shown as recorded, or relative to the profile's source root
            # (docs/cli.md, report): a tail of the recorded path
            shown = re.search(r"^-- (\S*annot_hot\.c)  \(MissLat ", r.stdout, re.M)
            self.assertTrue(shown, r.stdout)
            self.assertTrue(recorded.endswith(shown.group(1)), shown.group(1))
            if form == "abs":
                # from any directory: the file shown relative to the source
                # root is found under the root (LULESH's sources were not
                # found when dcprof ran outside their folder)
                r = run([DCPROF, "annotate", db], cwd="/")
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("-- read from " + recorded, r.stdout)
                self.assertIn(self.hot_text, r.stdout)
            # ... and by its tail in a --source-dir, which comes first.
            r = run([DCPROF, "annotate", db, "annot_hot.c", "--source-dir", self.moved],
                    cwd=self.tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("-- read from " + os.path.join(self.moved, "annot_hot.c"), r.stdout)
            # A FILE argument may also be the recorded path itself.
            r = run([DCPROF, "annotate", db, recorded], cwd=self.tmp)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(self.hot_text, r.stdout)

    def test_help(self):
        r = run([DCPROF, "help", "annotate"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("--source-dir DIR", r.stdout)
        r = run([DCPROF, "--help"])
        self.assertIn("annotate", r.stdout)
        r = run([DCPROF, "annotate", self.db, "--format", "csv"])
        self.assertEqual(r.returncode, 2)


class AnnotateWorkloads(unittest.TestCase):
    """A threaded and a C++ workload: every line annotate reports (all of
    them, --threshold 0) has the margin of report --by line for it."""

    def check(self, name, src, *prog_args):
        with tempfile.TemporaryDirectory(prefix="dcprof-annotate-") as t:
            db = os.path.join(t, "p.db")
            r = run([DCPROF, "record", "-q", CACHE, "-o", db, "--",
                     os.path.join(ROOT, "build", "w", name)] + list(prog_args))
            self.assertEqual(r.returncode, 0, r.stderr)
            r = run([DCPROF, "annotate", db, src, "--threshold", "0", "--format", "json",
                     "--show", "Lat,Dr,Dw,D1mr,D1mw,DLmr,DLmw,MissLat",
                     "--source-dir", os.path.join(ROOT, "tests", "workloads")], cwd=t)
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = json.loads(r.stdout)
            r = run([DCPROF, "report", db, "--by", "line", "--format", "csv"])
            want = {}
            for row in csv.DictReader(io.StringIO(r.stdout)):
                if os.path.basename(row["file"]) == src:
                    acc = want.setdefault(int(row["line"]), {})
                    for c in doc["columns"]:
                        acc[c] = acc.get(c, 0) + int(row[c])
            files = [f for f in doc["files"] if os.path.basename(f["file"]) == src]
            self.assertEqual(len(files), 1)
            got = {l["line"]: {c: l[c] for c in doc["columns"]} for l in files[0]["lines"]}
            want.pop(0, None)
            self.assertEqual(got, want)
            self.assertTrue(all(l["hot"] and l["text"] is not None
                                for l in files[0]["lines"]))
            for l in files[0]["lines"]:
                if l["MissLat"]:
                    self.assertAlmostEqual(sum(b["pct"] for b in l["buckets"]), 100.0,
                                           places=6)

    def test_threads(self):
        self.check("threads", "threads.c")

    def test_cxx(self):
        self.check("cxx_new", "cxx_new.cc")


if __name__ == "__main__":
    unittest.main()
