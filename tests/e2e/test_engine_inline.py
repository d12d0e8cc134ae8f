"""Inline-aware attribution and full source paths, on workloads built -O2 -g
as users build them (docs/engine.md "Data objects and buckets", "Code
locations"; docs/cli.md "Inlined code", "Source files"): heap buckets
named through inlined frames, --alloc-fn on an inlined wrapper, a C++
constructor's vectors in buckets of their own, an inlined hot function
charged to itself in reports and in the Callgrind export, and two util.c
in different folders kept apart.  Expected counts are derived in the
workloads' header comments."""
import os
import re
import subprocess
import tempfile
import unittest

from harness import DCPROF, run
from test_engine_common import (CACHE_2, WORKLOAD_SRC, Recorded, buckets, marker_line, query,
                                report_json, workload)

N, R = 2000, 50          # inl_alloc.c


def heap(db):
    return {n: b for n, b in buckets(db).items() if b["kind"] == "heap"}


def site(src, fn, tag):
    return "%s (%s:%d)" % (fn, src, marker_line(src, tag))


def dr_by(db, bucket, function):
    """Dr of BUCKET by FUNCTION's own code, and by its inlined copies."""
    return query(db, "SELECT COALESCE(SUM(c.Dr), 0) FROM cost c JOIN bucket b"
                 " ON b.id = c.bucket JOIN location l ON l.id = c.location"
                 " WHERE b.name = ? AND l.function = ?", bucket, function)[0][0]


class InlineAlloc(Recorded):
    """inl_alloc.c: mem_init() and safe_malloc() inlined into main."""
    WORKLOAD = "inl_alloc"
    OPTS = (CACHE_2,)

    def test_really_inlined(self):
        # the test is only meaningful if GCC inlined them (as it does at -O2)
        syms = subprocess.run(["nm", workload("inl_alloc")], capture_output=True,
                              text=True).stdout
        for fn in ("mem_init", "safe_malloc", "smvp"):
            self.assertNotRegex(syms, r"\s[tT] %s\n" % fn, "%s was not inlined" % fn)

    def test_named_by_inlined_function(self):
        h = heap(self.db)
        ptrs = site("inl_alloc.c", "mem_init", "SITE:ptrs") + " < main"
        rows = site("inl_alloc.c", "safe_malloc", "SITE:wrap") + " < mem_init < main"
        self.assertIn(ptrs, h, sorted(h))
        self.assertIn(rows, h, sorted(h))
        self.assertEqual((h[ptrs]["blocks"], h[ptrs]["total_bytes"]), (1, 8 * N))
        self.assertEqual((h[rows]["blocks"], h[rows]["total_bytes"]), (N, 24 * N))
        # no heap bucket reads like a function: none is called main
        self.assertFalse([n for n in h if n == "main" or n.startswith("main-")], sorted(h))

    def test_accesses_by_inlined_function(self):
        ptrs = site("inl_alloc.c", "mem_init", "SITE:ptrs") + " < main"
        rows = site("inl_alloc.c", "safe_malloc", "SITE:wrap") + " < mem_init < main"
        self.assertEqual(dr_by(self.db, rows, "smvp"), 3 * R * N)
        self.assertEqual(dr_by(self.db, ptrs, "smvp"), R * N)
        self.assertEqual(dr_by(self.db, rows, "main"), 0)
        # the location says what smvp's code was inlined into (schema 6)
        got = query(self.db, "SELECT DISTINCT inlined_into FROM location WHERE function = 'smvp'")
        self.assertEqual(got, [("main",)])


class InlineAllocSite(Recorded):
    """--heap-names=site: every frame, inlined ones too, with file:line."""
    WORKLOAD = "inl_alloc"
    OPTS = (CACHE_2, "--heap-names=site")

    def test_site_names(self):
        h = heap(self.db)
        main = site("inl_alloc.c", "main", "SITE:main")
        ptrs = site("inl_alloc.c", "mem_init", "SITE:ptrs") + " < " + main
        rows = (site("inl_alloc.c", "safe_malloc", "SITE:wrap") + " < " +
                site("inl_alloc.c", "mem_init", "SITE:rows") + " < " + main)
        self.assertIn(ptrs, h, sorted(h))
        self.assertIn(rows, h, sorted(h))
        self.assertEqual(h[rows]["blocks"], N)


class InlineAllocFn(Recorded):
    """--alloc-fn=safe_malloc skips the wrapper although it is inlined."""
    WORKLOAD = "inl_alloc"
    OPTS = (CACHE_2, "--alloc-fn=safe_malloc")

    def test_wrapper_skipped(self):
        h = heap(self.db)
        rows = site("inl_alloc.c", "mem_init", "SITE:rows") + " < main"
        self.assertIn(rows, h, sorted(h))
        self.assertEqual((h[rows]["blocks"], h[rows]["total_bytes"]), (N, 24 * N))
        self.assertFalse([n for n in h if "safe_malloc" in n], sorted(h))


class TemplateAllocFn(Recorded):
    """--alloc-fn=Allocate names LULESH's template wrapper in every form:
    inlined (DWARF: Allocate<double>, Allocate<int>) and out of line
    (the demangled symbol "double* AllocateOut<double>(unsigned long)"),
    so each array is a bucket of its own (tmpl_alloc.cc)."""
    WORKLOAD = "tmpl_alloc"
    OPTS = (CACHE_2, "--alloc-fn=Allocate", "--alloc-fn=AllocateOut")

    def test_each_array_its_bucket(self):
        h = heap(self.db)
        want = {site("tmpl_alloc.cc", "setup", t) + " < main": size
                for t, size in (("SITE:a", 8000), ("SITE:b", 8000), ("SITE:idx", 4000),
                                ("SITE:out", 8000))}
        for name, size in want.items():
            self.assertIn(name, h, sorted(h))
            self.assertEqual((h[name]["blocks"], h[name]["total_bytes"]), (1, size), name)
        self.assertFalse([n for n in h if "Allocate" in n], sorted(h))


class InlineHot(Recorded):
    """smvp() inlined into main: charged to itself by report and export."""
    WORKLOAD = "inl_alloc"
    OPTS = (CACHE_2,)
    SMVP = "smvp [inlined into main]"

    def test_report_by_function(self):
        rows = {r["function"]: r for r in report_json(self.db, "--by", "function",
                                                        "--top", "0")["rows"]}
        self.assertIn(self.SMVP, rows, sorted(rows))
        self.assertEqual(rows[self.SMVP]["file"], "inl_alloc.c")
        # 4 loads per (round, row), plus whatever the loop reloads
        self.assertGreaterEqual(rows[self.SMVP]["Dr"], 4 * R * N)
        self.assertLess(rows["main"]["Dr"], R * N)

    def test_report_by_line(self):
        line = marker_line("inl_alloc.c", "LINE:smvp")
        rows = [r for r in report_json(self.db, "--by", "line", "--top", "0")["rows"]
                if r["file"] == "inl_alloc.c" and r["line"] == line]
        self.assertEqual([r["function"] for r in rows], [self.SMVP])
        self.assertGreaterEqual(rows[0]["Dr"], 4 * R * N)

    def test_callgrind_export(self):
        with tempfile.TemporaryDirectory() as td:
            out = os.path.join(td, "cg.out")
            r = run([DCPROF, "export", self.db, "--format=callgrind", "-o", out])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                text = f.read()
        # fn=(id) name defines a name, fn=(id) reuses it; cost lines are
        # "LINE Dr Dw ..." (no --calls: no calls= lines)
        events = re.search(r"^events: (.*)$", text, re.M).group(1).split()
        names, fn, dr = {}, None, {}
        for line in text.splitlines():
            m = re.match(r"^fn=\((\d+)\)(?: (.*))?$", line)
            if m:
                if m.group(2) is not None:
                    names[m.group(1)] = m.group(2)
                fn = names[m.group(1)]
            elif fn and re.match(r"^\d", line):
                v = [int(x) for x in line.split()[1:]]
                dr[fn] = dr.get(fn, 0) + (v[events.index("Dr")] if len(v) > events.index("Dr")
                                          else 0)
        rows = {r["function"]: r for r in report_json(self.db, "--by", "function",
                                                        "--top", "0")["rows"]}
        self.assertIn(self.SMVP, dr, sorted(dr))
        self.assertEqual(dr[self.SMVP], rows[self.SMVP]["Dr"])
        self.assertGreaterEqual(dr[self.SMVP], 4 * R * N)
        self.assertLess(dr["main"], R * N)


class SelfInlined(Recorded):
    """self_inline.c: gen's body inlined back into gen by GCC's partial
    inlining; DWARF says gen is inlined into itself."""
    WORKLOAD = "self_inline"
    OPTS = (CACHE_2,)

    def setUp(self):
        super().setUp()
        # meaningful only where the compiler made the artefact: addr2line
        # gives two frames of gen at the calloc call
        binary = workload("self_inline")
        dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary],
                             capture_output=True, text=True).stdout
        m = re.search(r"<gen>:\n(?:.*\n)*?\s+([0-9a-f]+):\s+call\s+\S+ <calloc@plt>", dis)
        if not m:
            self.skipTest("gen calls no calloc itself here (objdump)")
        fr = subprocess.run(["addr2line", "-i", "-f", "-e", binary, "0x" + m.group(1)],
                            capture_output=True, text=True).stdout.splitlines()[0::2]
        if fr[:2] != ["gen", "gen"]:
            self.skipTest("this compiler did not inline gen into itself: %s" % fr)

    def test_one_frame(self):
        h = heap(self.db)
        name = site("self_inline.c", "gen", "SITE:gen") + " < main"
        self.assertIn(name, h, sorted(h))
        self.assertEqual((h[name]["blocks"], h[name]["total_bytes"]), (1, 4096))
        self.assertFalse([n for n in h if "gen < gen" in n], sorted(h))

    def test_one_function(self):
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM location"
                               " WHERE function = 'gen' AND inlined_into = 'gen'")[0][0], 0)
        name = site("self_inline.c", "gen", "SITE:gen") + " < main"
        # the 512 loads of the loop at SITE:sum, gen's own code
        self.assertEqual(dr_by(self.db, name, "gen"), 512)
        rows = [r["function"] for r in report_json(self.db, "--by", "function",
                                                   "--function", "gen")["rows"]]
        self.assertEqual(rows, ["gen"])


class InlineDomain(Recorded):
    """inl_domain.cc (g++ -O2 -g): each vector member in its own bucket."""
    WORKLOAD = "inl_domain"
    OPTS = (CACHE_2,)
    FIELDS = (("SITE:x", 8000), ("SITE:y", 8000), ("SITE:z", 8000), ("SITE:e", 8000),
              ("SITE:nodelist", 32000))

    def test_fields_apart(self):
        h = heap(self.db)
        seen = set()
        for tag, size in self.FIELDS:
            at = "(inl_domain.cc:%d)" % marker_line("inl_domain.cc", tag)
            hits = [n for n in h if at in n]
            self.assertEqual(len(hits), 1, "%s: %s" % (at, sorted(h)))
            name = hits[0]
            self.assertTrue(name.endswith(" < main"), name)
            self.assertNotIn("_M_default_append", name)
            self.assertEqual((h[name]["blocks"], h[name]["total_bytes"]), (1, size), name)
            # main reads each field 1000 times
            self.assertEqual(query(self.db, "SELECT SUM(c.Dr) FROM cost c JOIN bucket b"
                                   " ON b.id = c.bucket WHERE b.name = ?", name)[0][0], 1000)
            seen.add(name)
        self.assertEqual(len(seen), 5)
        # x, y and z are allocated by alloc_nodes, inlined into the constructor
        for tag in ("SITE:x", "SITE:y", "SITE:z"):
            self.assertIn(site("inl_domain.cc", "alloc_nodes", tag) + " < ",
                          "".join(n + "\n" for n in h))


class TwoUtils(Recorded):
    """two_utils.c + parts/a/util.c + parts/b/util.c: full source paths."""
    WORKLOAD = "two_utils"
    OPTS = (CACHE_2,)

    def paths(self):
        return [os.path.join(WORKLOAD_SRC, "parts", d, "util.c") for d in ("a", "b")]

    def test_locations_have_full_paths(self):
        for fn, path in zip(("util_a_sum", "util_b_sum"), self.paths()):
            got = query(self.db, "SELECT DISTINCT file FROM location WHERE function = ?", fn)
            self.assertEqual(got, [(path,)])

    def test_report_relative_to_common_root(self):
        rows = {r["function"]: r for r in report_json(self.db, "--by", "function",
                                                        "--top", "0")["rows"]}
        self.assertEqual(rows["util_a_sum"]["file"], "parts/a/util.c")
        self.assertEqual(rows["util_b_sum"]["file"], "parts/b/util.c")
        # each reads its own array (and, by ret, one stack word a call)
        for fn, data in (("util_a_sum", "util_a_data"), ("util_b_sum", "util_b_data")):
            self.assertEqual(dr_by(self.db, data, fn), 10240)
            self.assertGreaterEqual(rows[fn]["Dr"], 10240)
        lines = {(r["file"], r["line"]) for r in
                 report_json(self.db, "--by", "line", "--top", "0")["rows"]}
        self.assertIn(("parts/a/util.c", marker_line("parts/a/util.c", "LINE:a_sum")), lines)
        self.assertIn(("parts/b/util.c", marker_line("parts/b/util.c", "LINE:b_sum")), lines)

    def test_export_annotates_from_anywhere(self):
        with tempfile.TemporaryDirectory() as td:
            out = os.path.join(td, "cg.out")
            r = run([DCPROF, "export", self.db, "--format=callgrind", "-o", out])
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                text = f.read()
            for path in self.paths():
                self.assertRegex(text, r"\nfl=\(\d+\) %s\n" % re.escape(path))
            # callgrind_annotate finds both sources from another directory
            r = subprocess.run(["callgrind_annotate", "--auto=yes", out], capture_output=True,
                               text=True, cwd="/")
            self.assertEqual(r.returncode, 0, r.stderr)
            for path, tag in zip(self.paths(), ("LINE:a_sum", "LINE:b_sum")):
                self.assertIn("Auto-annotated source: " + path, r.stdout)
                self.assertNotIn("Unannotated source: " + path, r.stdout)


if __name__ == "__main__":
    unittest.main()
