"""dcprof html: one self-contained page, checked as a file and in a real
browser (Debian's headless Chromium driven by playwright-core through
tests/browser/probe.js, which prints what the page shows as JSON).

Two profiles:
  fixtures/two_level.raw, whose report values are derived in
    test_cli_common.py: by object list-main MissLat 24200 (Lat 35000,
    LatPerMiss 60.5), arr_a 13260 (Lat 18660, LatPerMiss 88.4), EVIL 0
    (Lat 80, no misses: LatPerMiss empty).  arr_a's lines: a.c:11 main
    MissLat 10000 (line B), a.c:10 main 3260 (line A; EVIL's accesses on that
    line belong to EVIL); its one function main a.c 13260.
  examples/demo.c recorded with --cache=L1=32K:8:64,L2=1M:16:64
    --evictions=yes --reuse=yes --trace-window=1000: every plot is drawn; the
    expected values come from the profile through Python's sqlite3 and from
    dcprof mrc.
The browser tests skip only where Chromium, Node.js or playwright-core is
missing (scripts/install-deps.sh installs them).
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from harness import BUILD, DCPROF, ROOT, TmpDirTest, query, run, workload
from test_cli_common import EVIL_JSON, REUSE, TWO_LEVEL, CliTest, downgrade_to_v1

CHROMIUM = os.environ.get("DCPROF_CHROMIUM", "/usr/bin/chromium")
BROWSER_DIR = os.path.join(ROOT, "tests", "browser")
PROBE = os.path.join(BROWSER_DIR, "probe.js")
CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"
EXAMPLES = os.path.join(ROOT, "examples")
SCREENSHOT = os.path.join(BUILD, "html-report.png")   # docs/html-report.png is a copy
XSS = "<script>alert(1)</script>"


def browser_missing():
    """Why the browser tests cannot run here, or None."""
    if not shutil.which("node"):
        return "node is not installed"
    if not os.path.exists(CHROMIUM):
        return "%s is not installed (scripts/install-deps.sh installs chromium)" % CHROMIUM
    if not os.path.isdir(os.path.join(BROWSER_DIR, "node_modules", "playwright-core")):
        return "playwright-core is not installed (scripts/install-deps.sh runs npm ci in tests/browser)"
    return None


def probe(page, *args):
    r = subprocess.run(["node", PROBE, page] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=180)
    if r.returncode:
        raise AssertionError("probe.js failed: " + r.stderr)
    return json.loads(r.stdout)


def page_data(html):
    """The JSON document embedded in the page."""
    m = re.search(r'<script type="application/json" id="dcprof-data">(.*?)</script>', html, re.S)
    return json.loads(m.group(1))


def misslat_by_bucket(db):
    """{bucket: MissLat} from the cost table: Lat - L1 hits * L1 latency."""
    l1 = query(db, "SELECT latency FROM level WHERE level = 1")[0][0]
    rows = query(db, "SELECT b.name, SUM(c.Lat) - (SUM(c.Dr) + SUM(c.Dw) - SUM(c.D1mr)"
                 " - SUM(c.D1mw)) * ? FROM cost c JOIN bucket b ON b.id = c.bucket"
                 " GROUP BY b.id", l1)
    return dict(rows)


class HtmlCli(CliTest):
    """The command and the file, without a browser."""

    def test_help_and_bad_input(self):
        r = run([DCPROF, "help", "html"])
        self.assertEqual(r.returncode, 0)
        for opt in ("-o, --output FILE", "--source-dir DIR", "--top N", "--hot-lines N",
                    "--context N"):
            self.assertIn(opt, r.stdout)
        db = self.profile()
        self.assertError(run([DCPROF, "html", db]), "dcprof html", "-o FILE is required")
        self.assertError(run([DCPROF, "html", self.path("nope.db"), "-o", self.path("x.html")]),
                         "dcprof html", "cannot open profile")
        self.assertError(run([DCPROF, "html", db, "-o", self.path("x.html"), "--top", "-1"]),
                         "dcprof html", "invalid --top value '-1'")
        self.assertError(run([DCPROF, "html", db, "-o", self.path("x.html"), "--context", "21"]),
                         "dcprof html", "invalid --context value '21'")
        self.assertError(run([DCPROF, "html", db, "-o", self.path("no/dir/x.html")]),
                         "dcprof html", "cannot write")
        self.assertError(run([DCPROF, "html", db, "-o", db]), "dcprof html", "")
        self.assertFalse(os.path.exists(self.path("x.html")))
        self.assertEqual(os.listdir(self.tmp), ["p.db"])     # no temporary file left

    def test_self_contained_and_data(self):
        db = self.profile()
        out = self.path("r.html")
        self.run_dcprof("html", db, "-o", out)
        html = open(out, encoding="utf-8").read()
        # Nothing to load: no external script, style sheet, image or font.
        self.assertEqual(len(re.findall(r"<script\b", html)), 2)
        # (The SVG namespace is a name, not an address.)
        m = re.search(r"<script[^>]*\bsrc=|<link\b|<img\b|@import|url\(|"
                      r"https?://(?!www\.w3\.org/2000/svg')", html)
        self.assertIsNone(m, m and html[m.start() - 80:m.end() + 80])
        self.assertIn("default-src 'none'", html)
        # Sources are cited so a reader can find them, never by file name.
        self.assertNotIn("seeds/", html)
        # The data are report --format json's rows, in its order (MissLat).
        doc = page_data(html)
        rep = json.loads(self.run_dcprof("report", db, "--format", "json"))
        self.assertEqual(doc["buckets"]["rows"], rep["rows"])
        self.assertEqual([r["bucket"] for r in doc["buckets"]["rows"]],
                         ["list-main", "arr_a", EVIL_JSON])
        # arr_a's details: its function and its lines by MissLat.
        arr = doc["details"][1]
        self.assertEqual([(f["function"], f["file"], f["MissLat"]) for f in arr["functions"]],
                         [("main", "a.c", 13260)])
        self.assertEqual([(l["file"], l["line"], l["MissLat"], l["Lat"]) for l in arr["lines"]],
                         [("a.c", 11, 10000, 11800), ("a.c", 10, 3260, 6860)])
        self.assertIsNone(arr["fields"])
        self.assertEqual((doc["reuse"], doc["evictions"], doc["footprint"]), (None, None, None))
        # The fixture's sources do not exist: marked, with no lines.
        self.assertEqual({s["file"]: (s["path"], s["lines"]) for s in doc["sources"]},
                         {"a.c": (None, {}), "b.c": (None, {})})
        self.assertTrue(all(s["error"].startswith("not found in '.'") for s in doc["sources"]))

    def test_source_lines_embedded(self):
        """A source file found below --source-dir: the hot lines and their
        context; a line beyond the end of the file is told by nlines."""
        db = self.profile()
        src = os.path.join(self.tmp, "src")
        os.mkdir(src)
        with open(os.path.join(src, "a.c"), "w") as f:
            f.write("".join("line %d </script><b>&amp;\n" % i for i in range(1, 15)))
        with open(os.path.join(src, "b.c"), "w") as f:
            f.write("one\ntwo\n")
        out = self.path("r.html")
        self.run_dcprof("html", db, "-o", out, "--source-dir", src, "--context", "2")
        html = open(out, encoding="utf-8").read()
        doc = page_data(html)
        a = [s for s in doc["sources"] if s["file"] == "a.c"][0]
        self.assertEqual(a["path"], os.path.join(src, "a.c"))
        self.assertEqual(sorted(map(int, a["lines"])), list(range(8, 14)))   # 10, 11 +- 2
        self.assertEqual(a["lines"]["11"], "line 11 </script><b>&amp;")
        self.assertEqual(a["nlines"], 14)
        self.assertNotIn("</script><b>", html.split('id="dcprof-data">')[1].split("</script>")[0])
        b = [s for s in doc["sources"] if s["file"] == "b.c"][0]
        self.assertEqual((b["lines"], b["nlines"], b["error"]), ({}, 2, None))


    def test_old_and_empty_profiles(self):
        """A version 1 profile has none of the optional data; a profile
        without accesses has no rows; both make a page."""
        db = self.profile()
        downgrade_to_v1(db)
        self.run_dcprof("html", db, "-o", self.path("v1.html"))
        doc = page_data(open(self.path("v1.html"), encoding="utf-8").read())
        self.assertEqual((doc["schema_version"], doc["reuse"], doc["evictions"],
                          doc["footprint"]), (1, None, None, None))
        self.assertEqual(len(doc["buckets"]["rows"]), 3)
        _, db = self.finalize(TWO_LEVEL, "empty.db")
        con = sqlite3.connect(db)
        with con:
            con.execute("DELETE FROM cost")
        con.close()
        self.run_dcprof("html", db, "-o", self.path("empty.html"))
        doc = page_data(open(self.path("empty.html"), encoding="utf-8").read())
        self.assertEqual((doc["buckets"]["rows"], doc["details"], doc["hot"], doc["sources"]),
                         ([], [], [], []))

    def test_reuse_data(self):
        """fixtures/reuse.raw (test_cli_mrc.py): the whole program's stack
        bins 0 [0,1): 2, 1 [1,2): 1, 2 [2,4): 4, 6 first touches; the curve
        C = 1, 2, 4, 8: 11, 10, 6, 6 misses."""
        db = self.profile(REUSE)
        self.run_dcprof("html", db, "-o", self.path("r.html"))
        r = page_data(open(self.path("r.html"), encoding="utf-8").read())["reuse"]
        self.assertEqual((r["block"], r["bins"], r["source"], r["kind"]), (64, "1:2", "exact", "stack"))
        self.assertEqual(r["hist"], {"reuses": 7, "first": 6,
                                     "bins": [[0, 1, 2], [1, 2, 1], [2, 4, 4]]})
        self.assertEqual(r["mrc"], [[1, 11, True], [2, 10, True], [4, 6, True], [8, 6, True]])


class BrowserTest(TmpDirTest):
    @classmethod
    def setUpClass(cls):
        why = browser_missing()
        if why:
            raise unittest.SkipTest(why)


class HtmlTwoLevel(BrowserTest, CliTest):
    """The bucket table, sorting and details on the fixture's known values."""

    def test_table_sort_details(self):
        db = self.profile(TWO_LEVEL)
        out = self.path("r.html")
        self.run_dcprof("html", db, "-o", out)
        p = probe(out, "--sort", "LatPerMiss", "--click", "arr_a")
        self.assertEqual((p["console_errors"], p["page_errors"], p["dialogs"], p["requests"]),
                         ([], [], [], []))
        self.assertTrue(p["ready"])
        names = lambda rows: [r["cells"][0] for r in rows]
        # The table as loaded: by MissLat, with the report's values.
        self.assertEqual(names(p["rows"]), ["list-main", "arr_a", EVIL_JSON])
        col = p["columns"]
        self.assertEqual(col[:4], ["bucket", "kind", "MissLat", "MissLatPct"])
        self.assertEqual([r["cells"][col.index("MissLat")] for r in p["rows"]],
                         ["24,200", "13,260", "0"])
        self.assertEqual([r["cells"][col.index("Lat")] for r in p["rows"]],
                         ["35,000", "18,660", "80"])
        self.assertEqual(p["detail_initial"], "list-main")
        # LatPerMiss: arr_a 88.4 > list-main 60.5, EVIL has none (last).
        self.assertEqual(p["sort1"]["aria"], "descending")
        self.assertEqual(names(p["sort1"]["rows"]), ["arr_a", "list-main", EVIL_JSON])
        self.assertEqual([r["cells"][col.index("LatPerMiss")] for r in p["sort1"]["rows"]],
                         ["88.40", "60.50", "-"])
        self.assertEqual(p["sort2"]["aria"], "ascending")
        self.assertEqual(names(p["sort2"]["rows"]), ["list-main", "arr_a", EVIL_JSON])
        # Clicking arr_a shows its function and lines.
        d = p["detail"]
        self.assertEqual(d["bucket"], "arr_a")
        self.assertEqual(p["selected_rows"], ["arr_a"])
        self.assertEqual([r[:3] for r in d["functions"]], [["main", "a.c", "13,260"]])
        self.assertEqual([r[:4] for r in d["lines"]],
                         [["a.c:11", "main", "10,000", "75.41"],
                          ["a.c:10", "main", "3,260", "24.59"]])
        # Latency plot: list-main and arr_a (EVIL has no MissLat).
        plots = {x["name"]: x for x in p["plots"]}
        self.assertEqual(plots["latency"]["labels"], ["list-main", "arr_a"])
        self.assertAlmostEqual(plots["latency"]["values"][0], 64.60, places=2)
        self.assertEqual(len(plots["levels"]["values"]), 2)
        self.assertAlmostEqual(plots["levels"]["values"][0], 88.10, places=2)   # 1 - 550/4620
        self.assertAlmostEqual(plots["levels"]["values"][1], 70.91, places=2)   # 1 - 160/550
        self.assertNotIn("reuse", plots)
        self.assertEqual(p["sections"], ["summary", "overview", "buckets", "source"])
        # The sources are missing: every hot line is listed as such.
        self.assertEqual(sorted((m["file"], m["line"]) for m in p["missing_sources"]),
                         [("a.c", 10), ("a.c", 11), ("b.c", 20)])


class HtmlEmpty(BrowserTest, CliTest):
    def test_no_accesses(self):
        _, db = self.finalize(TWO_LEVEL)
        con = sqlite3.connect(db)
        with con:
            con.execute("DELETE FROM cost")
        con.close()
        out = self.path("e.html")
        self.run_dcprof("html", db, "-o", out)
        p = probe(out)
        self.assertEqual((p["console_errors"], p["page_errors"], p["rows"]), ([], [], []))
        self.assertTrue(p["ready"])
        self.assertEqual(p["sections"], ["summary", "overview", "buckets"])


class HtmlDemo(BrowserTest):
    """examples/demo.c with every kind of data: each plot is drawn from it."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls._td = tempfile.TemporaryDirectory(prefix="dcprof-html-")
        cls.db = os.path.join(cls._td.name, "demo.db")
        r = run([DCPROF, "record", "-q", "-o", cls.db, CACHE, "--evictions=yes", "--reuse=yes",
                 "--trace-window=1000", "--", workload("demo")])
        assert r.returncode == 0, r.stderr
        # The particles, allocated at demo.c:60 (engine.md, "Heap bucket
        # names"); make_particles' pointer array at :56 is a bucket of its own.
        (cls.part,), = query(cls.db, "SELECT name FROM bucket"
                                     " WHERE name LIKE 'make_particles (demo.c:60)%'")
        cls.page = os.path.join(cls._td.name, "demo.html")
        r = run([DCPROF, "html", cls.db, "-o", cls.page, "--source-dir", EXAMPLES])
        assert r.returncode == 0, r.stderr
        os.makedirs(BUILD, exist_ok=True)
        cls.p = probe(cls.page, "--sort", "Lat", "--click", cls.part,
                      "--screenshot", SCREENSHOT)
        cls.plots = {x["name"]: x for x in cls.p["plots"]}

    @classmethod
    def tearDownClass(cls):
        cls._td.cleanup()

    def test_loads_cleanly(self):
        p = self.p
        self.assertEqual((p["console_errors"], p["page_errors"], p["dialogs"], p["requests"]),
                         ([], [], [], []))
        self.assertEqual(p["sections"], ["summary", "overview", "buckets", "source", "reuse",
                                         "evictions", "footprint"])
        self.assertIn("L1 32K:8:64 (4 cycles), L2 1M:16:64 (14 cycles), memory 200 cycles",
                      p["summary"])
        with open(SCREENSHOT, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_bucket_rows_are_the_profile(self):
        want = misslat_by_bucket(self.db)
        rows = self.p["rows"]
        col = self.p["columns"].index("MissLat")
        got = {r["cells"][0]: int(r["cells"][col].replace(",", "")) for r in rows}
        self.assertEqual(got, want)
        self.assertEqual([r["cells"][0] for r in rows][:2], ["grid", self.part])
        # Sorted by Lat: descending, then ascending.
        lat = dict(query(self.db, "SELECT b.name, SUM(c.Lat) FROM cost c JOIN bucket b"
                         " ON b.id = c.bucket GROUP BY b.id"))
        for key, rev in (("sort1", True), ("sort2", False)):
            order = [lat[r["cells"][0]] for r in self.p[key]["rows"]]
            self.assertEqual(order, sorted(order, reverse=rev))

    def test_click_shows_lines_and_source(self):
        d = self.p["detail"]
        self.assertEqual(d["bucket"], self.part)
        self.assertTrue(d["title"].startswith("bucket " + self.part))
        l1 = query(self.db, "SELECT latency FROM level WHERE level = 1")[0][0]
        want = query(self.db, "SELECT l.file || ':' || l.line, SUM(c.Lat) - (SUM(c.Dr) + SUM(c.Dw)"
                     " - SUM(c.D1mr) - SUM(c.D1mw)) * ? AS m FROM cost c JOIN bucket b"
                     " ON b.id = c.bucket JOIN location l ON l.id = c.location"
                     " WHERE b.name = ? GROUP BY l.file, l.line, l.function"
                     " ORDER BY m DESC", l1, self.part)
        got = [(r[0], int(r[2].replace(",", ""))) for r in d["lines"]]
        self.assertEqual(got, [(w[0], w[1]) for w in want[:len(got)]])
        # step(): p->x += ... (the profile records the full path)
        self.assertTrue(got[0][0].endswith("/demo.c:85"), got[0][0])
        with open(os.path.join(EXAMPLES, "demo.c")) as f:
            line85 = f.read().split("\n")[84]
        self.assertEqual(d["lines"][0][-1], line85.strip())
        self.assertEqual({r[0] for r in d["functions"]}, {"step", "make_particles"})
        self.assertIn("bucket-reuse", d["plots"])
        # The annotated source: demo.c with column_sums' line 50 hot and its
        # text; libc's and the loader's files marked missing.
        demo = [s for s in self.p["sources"] if s["file"].endswith("demo.c")][0]
        self.assertIn(50, demo["hot"])
        text = dict(demo["text"])
        self.assertEqual(text[50].strip(), "total += grid[i][j] * weights[i % 64];")
        self.assertTrue(self.p["missing_sources"])
        self.assertTrue(all(m["file"] != "demo.c" for m in self.p["missing_sources"]))
        self.assertIn("not found", self.p["missing_sources"][0]["why"])

    def test_every_plot_has_data(self):
        for name in ("latency", "levels", "reuse", "mrc", "evictions-L1", "evictions-L2",
                     "footprint"):
            x = self.plots[name]
            self.assertEqual(x["svgs"], 1, name)
            self.assertGreater(x["rects"] + x["paths"] + x["circles"], 0, name)

    def test_plot_values(self):
        # Latency: the top 12 buckets by MissLat, then the rest.
        m = misslat_by_bucket(self.db)
        total = sum(m.values())
        top = sorted((v for v in m.values() if v > 0), reverse=True)
        lat = self.plots["latency"]["values"]
        self.assertEqual(len(lat), 13 if len(top) > 12 else len(top))
        for got, want in zip(lat, top[:12]):
            self.assertAlmostEqual(got, 100 * want / total, places=6)
        # Hit ratio per level, from the cost table.
        acc, d1, d2 = query(self.db, "SELECT SUM(Dr + Dw), SUM(D1mr + D1mw), SUM(D2mr + D2mw)"
                            " FROM cost")[0]
        lv = self.plots["levels"]["values"]
        self.assertAlmostEqual(lv[0], 100 - 100 * d1 / acc, places=6)
        self.assertAlmostEqual(lv[1], 100 - 100 * d2 / d1, places=6)
        # Reuse histogram: one bar per non-empty bin and one for the first touches.
        bins = query(self.db, "SELECT bin, SUM(count) FROM reuse_hist WHERE kind = 'stack'"
                     " GROUP BY bin HAVING SUM(count) > 0 ORDER BY bin")
        first = query(self.db, "SELECT SUM(count) FROM reuse_first")[0][0]
        all_ = sum(c for _, c in bins) + first
        self.assertEqual(self.plots["reuse"]["rects"], len(bins) + 1)
        for got, (_, c) in zip(self.plots["reuse"]["values"], bins + [(None, first)]):
            self.assertAlmostEqual(got, 100 * c / all_, places=6)
        # Miss-ratio curve: dcprof mrc's points (the path, then one circle each).
        mrc = json.loads(run([DCPROF, "mrc", self.db, "--format", "json"]).stdout)["rows"]
        self.assertEqual(self.plots["mrc"]["circles"], len(mrc))
        self.assertEqual(self.plots["mrc"]["values"][1:], [r["misses"] for r in mrc])
        # Eviction heatmaps: n victims x (n evictors + other), cells are counts.
        for level in (1, 2):
            ev = self.plots["evictions-L%d" % level]
            n = query(self.db, "SELECT COUNT(*) FROM (SELECT bucket FROM cost GROUP BY bucket"
                      " HAVING SUM(D%dmr + D%dmw) > 0)" % (level, level))[0][0]
            n = min(n, 10)
            self.assertEqual(ev["rects"], n * (n + 1))
        grid = query(self.db, "SELECT SUM(count) FROM eviction e JOIN bucket v ON v.id = e.victim"
                     " JOIN bucket r ON r.id = e.evictor WHERE e.level = 1 AND e.sampled = 0"
                     " AND v.name = 'grid' AND r.name = 'grid'")[0][0]
        self.assertEqual(self.plots["evictions-L1"]["values"][0], grid)   # grid evicts grid
        # Footprint: at most F_str and F_irr per window, with data.
        windows = query(self.db, "SELECT COUNT(*) FROM trace_window")[0][0]
        fp = self.plots["footprint"]
        self.assertGreater(windows, 0)
        self.assertTrue(windows <= fp["rects"] <= 2 * windows, (windows, fp["rects"]))


class HtmlFields(BrowserTest):
    """Per-field heat bars: tests/workloads/fields_array.c's recs (struct rec:
    id 8 bytes, val 8, pad[48] 48), recorded with --offsets --cache-use.
    Its header derives the shares: val has every L1 miss; of the 56 bytes
    of a line left unused at each L1 residency, id holds 8 (8 / 56 =
    14.29 %) and pad[48] 48 (85.71 %).  --offset-bucket-cells=4096: every
    run boundary has its cell (test_engine_fields.UnusedBytes)."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls._td = tempfile.TemporaryDirectory(prefix="dcprof-html-")
        cls.db = os.path.join(cls._td.name, "fields.db")
        r = run([DCPROF, "record", "-q", "-o", cls.db, CACHE, "--offsets", "--cache-use",
                 "--offset-bucket-cells=4096", "--", workload("fields_array")])
        assert r.returncode == 0, r.stderr
        src = os.path.join(ROOT, "tests", "workloads", "fields_array.c")
        with open(src) as f:
            line = next(i for i, t in enumerate(f, 1) if "SITE:recs" in t)
        (cls.recs,), = query(cls.db, "SELECT name FROM bucket WHERE name LIKE ?",
                             "%% (fields_array.c:%d)%%" % line)
        cls.page = os.path.join(cls._td.name, "fields.html")
        r = run([DCPROF, "html", cls.db, "-o", cls.page])
        assert r.returncode == 0, r.stderr
        cls.p = probe(cls.page, "--click", cls.recs)

    @classmethod
    def tearDownClass(cls):
        cls._td.cleanup()

    def test_heat_bars_of_misses_and_unused_bytes(self):
        p = self.p
        self.assertEqual((p["console_errors"], p["page_errors"], p["requests"]), ([], [], []))
        self.assertIn("field-heat", p["detail"]["plots"])
        heat, = [x for x in p["plots"] if x["name"] == "field-heat"]
        self.assertEqual(heat["svgs"], 1)
        got = {lab: round(v, 2) for lab, v in zip(heat["labels"], heat["values"])}
        self.assertEqual(got, {"L1 misses: id": 0, "L1 misses: val": 100,
                               "L1 misses: pad[48]": 0, "L1 unused bytes: id": 14.29,
                               "L1 unused bytes: val": 0, "L1 unused bytes: pad[48]": 85.71})


class HtmlEscaping(BrowserTest, CliTest):
    """Names from the program that look like HTML stay text; nothing runs."""

    def test_script_names_are_text(self):
        _, db = self.record([workload("demo")], [CACHE])
        con = sqlite3.connect(db)
        with con:
            con.execute("UPDATE bucket SET name = ? WHERE name = 'grid'", (XSS,))
            con.execute("UPDATE meta SET value = ? WHERE key = 'program'",
                        ("<img src=x onerror=alert(2)>",))
            con.execute("UPDATE location SET function = ? WHERE function = 'column_sums'",
                        ("</script><script>alert(3)</script>\u2028",))
        con.close()
        out = self.path("x.html")
        r = run([DCPROF, "html", db, "-o", out, "--source-dir", EXAMPLES])
        self.assertEqual(r.returncode, 0, r.stderr)
        html = open(out, encoding="utf-8").read()
        for raw in ("<script>alert", "<img", "\u2028"):
            self.assertFalse(raw in html, "%r is in the page" % raw)
        self.assertTrue("&lt;img src=x onerror=alert(2)&gt;" in html)
        p = probe(out, "--click", XSS)
        self.assertEqual((p["dialogs"], p["page_errors"], p["console_errors"], p["requests"]),
                         ([], [], [], []))
        self.assertEqual(p["script_count"], 2)
        self.assertEqual(p["rows"][0]["cells"][0], XSS)          # still the top bucket
        self.assertEqual(p["detail"]["bucket"], XSS)
        self.assertEqual(p["detail"]["functions"][0][0],
                         "</script><script>alert(3)</script>\u2028")
        self.assertIn(XSS, self.plots_labels(p, "latency"))
        self.assertEqual(p["title"], "dcprof: <img src=x onerror=alert(2)>")

    @staticmethod
    def plots_labels(p, name):
        return [x for x in p["plots"] if x["name"] == name][0]["labels"]


if __name__ == "__main__":
    unittest.main()
