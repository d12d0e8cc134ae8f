"""The outer line of inlined code (docs/cli.md, "Inlined code"; schema.md,
`location.outer_file`): on inl_outer.cc, built -O2 -g as users build, the
loads of std::vector's inlined size() and operator[] and of an
always_inline helper count on the caller's marked line with
`report --by line --outer` and `annotate --outer`.  Expected counts are
derived in the workload's header comment; the outer file and line of every
location are checked against binutils' `addr2line -i` (its last frame),
and the native engine's naming (natsym) against the simulator's."""
import json
import os
import shutil
import unittest

from harness import DCPROF, TmpDirTest, run
from test_cli_common import downgrade_to_v8
from test_engine_common import CACHE_2, WORKLOAD_SRC, Recorded, marker_line, query, workload
from test_natsym import addr2line_frames, finalize, native_dump, rows, tools_missing

SRC = "inl_outer.cc"
N, REPS = 1000, 10


def line(tag):
    return marker_line(SRC, tag)


def csv_rows(db, *opts):
    """`report --by line --format csv --top 0 OPTS` as {(file, line, function): row}."""
    r = run([DCPROF, "report", db, "--by", "line", "--format", "json", "--top", "0"]
            + list(opts))
    if r.returncode != 0:
        raise AssertionError("dcprof report failed (%d): %s" % (r.returncode, r.stderr))
    return {(row["file"], row["line"], row["function"]): row
            for row in json.loads(r.stdout)["rows"]}


def at(rows_, file, ln, col="Dr"):
    """The sum of COL over the rows of file:ln (any function)."""
    return sum(r[col] for (f, l, _), r in rows_.items() if f == file and l == ln)


def bucket(db, tag):
    """The heap bucket allocated at the marked line (named by main's line)."""
    name = "main (%s:%d)" % (SRC, line(tag))
    got = query(db, "SELECT name FROM bucket WHERE name = ?", name)
    if not got:
        raise AssertionError("no bucket %r: %s" % (name, query(db, "SELECT name FROM bucket")))
    return name


class OuterLine(Recorded):
    """The simulator engine's profile of inl_outer (PIE, -O2 -g)."""
    WORKLOAD = "inl_outer"
    OPTS = (CACHE_2,)

    def test_helper_on_caller_line(self):
        # load2's two loads per call: 2 * (N / 2) * REPS reads of pairs,
        # on load2's line without --outer, on sum_pairs' line with it
        helper, pairs = line("LINE:helper"), line("LINE:pairs")
        inner = csv_rows(self.db, "--object", "pairs")
        outer = csv_rows(self.db, "--object", "pairs", "--outer")
        self.assertGreater(at(inner, SRC, helper), 0)
        self.assertEqual(at(inner, SRC, helper) + at(inner, SRC, pairs), N * REPS)
        self.assertEqual(at(outer, SRC, pairs), N * REPS)
        self.assertEqual(at(outer, SRC, helper), 0)
        fns = [fn for (f, l, fn) in outer if l == pairs]
        self.assertEqual(fns, ["sum_pairs(long const*, int)"])
        self.assertTrue([fn for (f, l, fn) in inner if l == helper and
                         fn == "load2 [inlined into sum_pairs(long const*, int)]"], inner)

    def test_vector_on_loop_line(self):
        # add_one's loop: each src byte read and each dst byte written once
        # per repetition, all on LINE:vec once inlined code is on its caller
        vec = line("LINE:vec")
        src = csv_rows(self.db, "--object", bucket(self.db, "SITE:src"), "--outer")
        dst = csv_rows(self.db, "--object", bucket(self.db, "SITE:dst"), "--outer")
        self.assertEqual(at(src, SRC, vec), N * REPS)
        self.assertEqual(at(dst, SRC, vec, "Dw"), N * REPS)

    def test_outer_row_is_sum_of_inner_rows(self):
        # the loop's line with --outer = its own rows + the rows of the
        # header lines inlined into it (stl_vector.h's size()), each
        # location counted where its outer_file:outer_line says
        vec = line("LINE:vec")
        path = os.path.join(WORKLOAD_SRC, SRC)
        inlined = query(self.db, "SELECT DISTINCT file FROM location WHERE outer_file = ?"
                        " AND outer_line = ?", path, vec)
        self.assertTrue([f for (f,) in inlined if f.endswith("/stl_vector.h")], inlined)
        want = query(self.db, "SELECT SUM(c.Dr), SUM(c.Dw), SUM(c.Lat) FROM cost c JOIN"
                     " location l ON l.id = c.location WHERE (l.outer_line IS NULL AND"
                     " l.file = ?1 AND l.line = ?2) OR (l.outer_file = ?1 AND"
                     " l.outer_line = ?2)", path, vec)[0]
        outer = csv_rows(self.db, "--outer")
        inner = csv_rows(self.db)
        self.assertEqual(tuple(at(outer, SRC, vec, c) for c in ("Dr", "Dw", "Lat")), want)
        self.assertGreater(at(outer, SRC, vec), at(inner, SRC, vec))
        # nothing is lost: the totals and the sum of all rows are unchanged
        for col in ("Dr", "Dw", "Lat"):
            self.assertEqual(sum(r[col] for r in outer.values()),
                             sum(r[col] for r in inner.values()))

    def test_not_inlined_has_no_outer(self):
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM location WHERE"
                               " COALESCE(inlined_into, '') = '' AND (outer_function IS NOT NULL"
                               " OR outer_file IS NOT NULL OR outer_line IS NOT NULL)"), [(0,)])
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM location WHERE inlined_into <> ''"
                               " AND outer_line IS NULL"), [(0,)])

    def test_annotate_outer(self):
        # annotate's margin for the loop's line is report --outer's row
        vec, pairs = line("LINE:vec"), line("LINE:pairs")
        r = run([DCPROF, "annotate", self.db, SRC, "--outer", "--threshold", "0",
                 "--sort", "Dr", "--format", "json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout.splitlines()[0])
        lines = {l["line"]: l for f in doc["files"] for l in f["lines"]}
        outer = csv_rows(self.db, "--outer")
        self.assertEqual(lines[vec]["Dr"], at(outer, SRC, vec))
        self.assertEqual(lines[pairs]["Dr"], N * REPS)
        self.assertNotIn(line("LINE:helper"), lines)

    def test_older_profile(self):
        # a version 8 profile (no outer columns) reads; --outer shows what
        # --by line shows
        db = os.path.join(self.tmpdir, "v8.db")
        shutil.copy(self.db, db)
        downgrade_to_v8(db)
        self.assertEqual(csv_rows(db, "--outer"), csv_rows(db))
        self.assertEqual(csv_rows(db), csv_rows(self.db))
        r = run([DCPROF, "annotate", db, "--outer"])
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_merge_keeps_outer(self):
        merged = os.path.join(self.tmpdir, "m.db")
        r = run([DCPROF, "merge", "--force", "-q", "-o", merged, self.db, self.db])
        self.assertEqual(r.returncode, 0, r.stderr)
        cols = ("object, function, file, line, outer_function, outer_file, outer_line")
        self.assertEqual(set(query(merged, "SELECT %s FROM location" % cols)),
                         set(query(self.db, "SELECT %s FROM location" % cols)))
        outer = csv_rows(merged, "--object", "pairs", "--outer")
        self.assertEqual(at(outer, SRC, line("LINE:pairs")), 2 * N * REPS)

    def test_outer_needs_line_view(self):
        for opts in (["--by", "function"], ["--by", "object"], ["--stats"]):
            r = run([DCPROF, "report", self.db, "--outer"] + opts)
            self.assertEqual(r.returncode, 2, opts)
            self.assertEqual(r.stderr, "dcprof report: --outer is per source line: it needs"
                             " --by line\n")


class OuterAgainstAddr2line(TmpDirTest):
    """inl_outer_nopie: the simulator runs the program's code at its link
    addresses, so each location's ip is addr2line's address."""

    def setUp(self):
        super().setUp()
        missing = tools_missing()
        if missing:
            self.skipTest("binutils missing: %s" % ", ".join(missing))
        self.binary = workload("inl_outer_nopie")
        r, self.db = self.record([self.binary], opts=[CACHE_2])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.locs = [l for l in rows(self.db, "SELECT ip, object, function, file, line,"
                                     " inlined_into, outer_function, outer_file, outer_line"
                                     " FROM location ORDER BY id") if l[1] == self.binary]

    def test_outer_is_addr2line_last_frame(self):
        # inlined code: outer file and line are addr2line -i's outermost
        # frame (no function of this program is inlined into itself;
        # addr2line 2.40 names some inlined frames after the function
        # they are in, so its names are not compared)
        checked = 0
        for ip, _, fn, file, ln, into, ofn, ofile, oline in self.locs:
            if not into:
                continue
            frames = addr2line_frames(self.binary, ip)
            self.assertGreater(len(frames), 1, hex(ip))
            self.assertEqual((ofile, oline), frames[-1][1:], hex(ip))
            checked += 1
        self.assertGreaterEqual(checked, 5)
        outer = set((os.path.basename(f), l) for *_, f, l in self.locs if l)
        self.assertIn((SRC, line("LINE:vec")), outer)
        self.assertIn((SRC, line("LINE:pairs")), outer)

    def test_native_naming_agrees(self):
        # finalize names the native engine's address-only locations of
        # the same instructions with the same outer lines (natsym, dwsym)
        raw = self.path("n.raw")
        native_dump(raw, self.binary, locs=[l[0] for l in self.locs])
        got = rows(finalize(self, raw), "SELECT ip, object, function, file, line,"
                   " inlined_into, outer_function, outer_file, outer_line FROM location"
                   " ORDER BY id")
        self.assertEqual(got, self.locs)
        self.assertTrue([l for l in got if l[8] == line("LINE:pairs")])


if __name__ == "__main__":
    unittest.main()
