"""dcprof approx: data-centric misses approximated from instruction-address
samples and the sources (N. Rutar, J. K. Hollingsworth, "Software Analysis
Techniques to Approximate Data Centric Direct Measurements", §3.3).

Figure 2's tests give the paper's own input, one miss per line, by filling
ip_sample of a recorded profile; they count the local scalars a and b, and
split a line over its locations, as the paper does (--register-scalars
count --loop-scalars count --split locations).  The rank tests record real
IP-only samples (record --sample=D1m:37 --sample-ip-only --skid=MEAN:SD,
fixed --sample-seed) and compare with the exact misses of the same run.

Figure 2 (tests/workloads/approx_fig2.c; paper line L is file line 17 + L):
the paper's tables, typed from the paper, are the oracle.  Raw (§3.3.1),
one miss per body line, reads only (the paper counts reads):
  line 2: x .25  y .25  a .25  b .25     (x[a], y[b], a, b)
  line 3: x 0    y .5   a .25  b .25     (y[a], y[b], a, b)
  line 4: x .5   y 0    a 0    b .5      (x[b] once, b once)
LA (§3.3.2): final weights x[a] = x[b] = y[a] = 1.46, y[b] 1.17, a .44,
b 0 (test_approx.c checks the weights); value = raw x weight:
  line 2: x .25*1.4638 = .37  y .25*1.1711 = .29  a .25*.4375 = .11  b 0
  line 3: y .25*1.4638 + .25*1.1711 = .66  a .11  b 0
  line 4: x .5*1.4638 = .73  b 0
  The paper prints x .37/.73 (sum 1.10), y .29 and b 0 as here; its a .10
  on every line (also line 4, where a is not read and raw is 0) and y .60
  on line 3 do not follow from its equations (y[a] and y[b] on line 3 have
  the weights 1.46 and 1.17 of its own table): typos, tested as derived.
SA (§3.3.3), one miss on line 4, skid mean 1 line, p = .25 .5 .25 on lines
4, 3, 2 (sd 1/sqrt(2 ln 2)), loop compensation off: every read on lines
2-4 gets its line's p (eq. 6), normalised by the sum 4*.25 + 4*.5 + 2*.25
= 3.5 (eq. 7-8):
  line 2: x y a b .25/3.5 = .07 each
  line 3: y[a], y[b] .5/3.5 = .14 each (y .29), a .14, b .14
  line 4: x[b] .07, b .07
  sums x .14, y .36, a .21, b .29.  The paper's a .21, b .28 and lines 2
  and 4 are these; its line 3 puts one .14 under x, which line 3 does not
  read (its normaliser 3.5 counts y[a] and y[b]): a typo, tested as derived.

approx_arrays: exact D1 misses about passes x 2048 per array (see the
workload), g0 > g1 > ... > h11.  Skid 0 (precise IP): every sample is on
the array's body line, whose only counted location is the array element
(the index and pass counters are register scalars, not counted), so each
array gets its own samples: the estimate of passes x 2048 (period 37, the
sampler's estimate within a period or so of the count), the exact order,
Spearman 1 and overlap 10 of 10 by every method; h11's misses are in
sweep(), whose parameter a is bound to h11 at the one call.
Skid of a few instructions: the samples land up to about 5 instructions
after the miss.  The loops are 4 to 6 instructions (the body's load or
store, then the index increment, compare and branch of the for line), so
a large part lands on the for line, which has no counted location: raw
and LA lose those samples, in proportions that differ between loops with
a load at the top (g: the load's skid stays on the body line for k <= 3)
and with a store at the end (h: one instruction on lands on the for line).
Walking back over the instructions finds the body's memory instruction
whatever the loop's layout, so SA keeps the order (Spearman >= 0.9, the
issue's target being 0.8) and its largest share error is below raw's.
"""
import json
import os
import shutil
import sqlite3

from harness import DCPROF, ROOT, TmpDirTest, perf_ok, run, workload

FIG2 = os.path.join(ROOT, "tests", "workloads", "approx_fig2.c")
ARRAYS = os.path.join(ROOT, "tests", "workloads", "approx_arrays.c")
SD_PAPER = "0.8493218"          # 1 / sqrt(2 ln 2): p(±1) = p(0) / 2
# The paper's counting rules where dcprof's defaults deviate (docs/approx.md).
PAPER = ["--register-scalars", "count", "--loop-scalars", "count", "--split", "locations"]


def add_samples(db, event="D1m", per_line=None, path=None):
    """ip_sample and the sample_* meta keys: per_line {line: count} at new
    locations of file path (the paper's input, one miss per line)."""
    con = sqlite3.connect(db)
    for n, (line, count) in enumerate(sorted((per_line or {}).items())):
        lid = 10 ** 7 + n
        con.execute("INSERT INTO location VALUES (?, 0, '', 'figure2', ?, ?, '', NULL, NULL, NULL)",
                    (lid, path, line))
        con.execute("INSERT INTO ip_sample VALUES (?, 1, ?)", (lid, count))
    total = con.execute("SELECT SUM(count) FROM ip_sample").fetchone()[0]
    con.executemany("INSERT INTO meta VALUES (?, ?)", [
        ("sample_event", event), ("sample_period", "1"), ("sample_seed", "1"),
        ("samples", str(total)), ("sample_ip_only", "1"), ("sample_skid", "0:0")])
    con.commit()
    con.close()


def by_line_var(rows, method):
    """{(line, variable): value} summed over a line's locations of a variable."""
    out = {}
    for r in rows:
        k = (r["line"], r["variable"])
        out[k] = out.get(k, 0.0) + r[method]
    return out


class Figure2(TmpDirTest):
    def setUp(self):
        super().setUp()
        self.src = self.path("src")
        os.mkdir(self.src)
        shutil.copy(FIG2, self.src)
        _, self.db = self.record([workload("approx_fig2")])

    def approx(self, *opts, check=True):
        r = run([DCPROF, "approx", self.db, "--sources", self.src, "--writes", "no"] +
                PAPER + ["--by", "line", "--format", "json"] + list(opts))
        if check:
            self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def table(self, method, *opts):
        rows = json.loads(self.approx(*opts).stdout)["rows"]
        return {k: round(v, 2) for k, v in by_line_var(rows, method).items() if round(v, 2)}

    def test_raw_and_la_tables(self):
        add_samples(self.db, per_line={19: 1, 20: 1, 21: 1}, path=FIG2)
        # Paper line L = file line 17 + L.
        raw = {(19, "x"): .25, (19, "y"): .25, (19, "a"): .25, (19, "b"): .25,
               (20, "y"): .5, (20, "a"): .25, (20, "b"): .25,
               (21, "x"): .5, (21, "b"): .5}
        self.assertEqual(self.table("raw"), raw)
        la = {(19, "x"): .37, (19, "y"): .29, (19, "a"): .11,
              (20, "y"): .66, (20, "a"): .11,
              (21, "x"): .73}
        self.assertEqual(self.table("LA"), la)
        # The paper's sum for x (1.10) and its b column (0) exactly.
        self.assertAlmostEqual(la[(19, "x")] + la[(21, "x")], 1.10, places=2)

    def test_sa_table(self):
        add_samples(self.db, per_line={21: 1}, path=FIG2)
        sa = self.table("SA", "--skid-lines", "1:" + SD_PAPER, "--loop-threshold", "off")
        self.assertEqual(sa, {(19, "x"): .07, (19, "y"): .07, (19, "a"): .07, (19, "b"): .07,
                              (20, "y"): .29, (20, "a"): .14, (20, "b"): .14,
                              (21, "x"): .07, (21, "b"): .07})

    def test_compile_commands(self):
        add_samples(self.db, per_line={19: 1, 20: 1, 21: 1}, path=FIG2)
        with open(os.path.join(self.src, "compile_commands.json"), "w") as f:
            json.dump([{"directory": self.src, "file": "approx_fig2.c",
                        "arguments": ["cc", "-O2", "-c", "approx_fig2.c", "-o", "f.o"]}], f)
        r = run([DCPROF, "approx", self.db, "--compile-commands",
                 os.path.join(self.src, "compile_commands.json"), "--writes", "no"] + PAPER +
                ["--by", "line", "--format", "json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        raw = by_line_var(json.loads(r.stdout)["rows"], "raw")
        self.assertAlmostEqual(raw[(20, "y")], .5)
        self.assertAlmostEqual(raw[(21, "b")], .5)

    def test_wrong_source_file(self):
        # A file of the same name that is not the one built: its lines hold
        # no variables where the samples are.
        add_samples(self.db, per_line={19: 1, 20: 1, 21: 1}, path=FIG2)
        with open(os.path.join(self.src, "approx_fig2.c"), "w") as f:
            f.write("int z;\n\n\n\n\n\n\n\nint main(void)\n{\n\treturn z;\n}\n")
        r = self.approx()
        self.assertIn("is it the source the program was built from?", r.stderr)
        self.assertEqual(json.loads(r.stdout)["methods"]["raw"]["unattributed"], 3)

    def test_missing_header_and_cxx(self):
        add_samples(self.db, per_line={19: 1, 20: 1, 21: 1}, path=FIG2)
        with open(os.path.join(self.src, "other.c"), "w") as f:
            f.write('#include "no_such_header.h"\nint f(void) { return NOPE; }\n')
        with open(os.path.join(self.src, "k.cc"), "w") as f:
            f.write("int g() { return 1; }\n")
        r = self.approx()
        self.assertIn("no_such_header.h", r.stderr)
        self.assertIn("skipping '%s': C++ is not analysed" % os.path.join(self.src, "k.cc"),
                      r.stderr)
        self.assertAlmostEqual(by_line_var(json.loads(r.stdout)["rows"], "raw")[(21, "x")], .5)

    def test_errors(self):
        r = self.approx(check=False)       # no ip_sample yet
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no IP-only samples", r.stderr)
        add_samples(self.db, per_line={19: 1}, path=FIG2)
        for opts in (["--skid", "x"], ["--loop-threshold", "2"], ["--by", "nothing"],
                     ["--skid-over", "paths"], ["--register-scalars", "maybe"],
                     ["--rank", "all"], ["--split", "lines"], ["--loop-scalars", "no"],
                     ["--skid", "1:1", "--skid-lines", "1:1"]):
            r = self.approx(*opts, check=False)
            self.assertEqual(r.returncode, 2, opts)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        r = run([DCPROF, "approx", self.db])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--sources DIR or --compile-commands FILE", r.stderr)
        r = run([DCPROF, "approx", self.db, "--sources", self.path("none")])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)


class Arrays(TmpDirTest):
    def approx(self, skid, *opts):
        src = self.path("src")
        if not os.path.isdir(src):
            os.mkdir(src)
            shutil.copy(ARRAYS, src)
        _, db = self.record([workload("approx_arrays")],
                            ["--sample=D1m:37", "--sample-seed=1", "--sample-ip-only",
                             "--skid=" + skid], out="p%s.db" % skid.replace(":", "_"))
        r = run([DCPROF, "approx", db, "--sources", src, "--format", "json"] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_precise_ip_rank_order(self):
        out = self.approx("0:0")
        self.assertEqual(out["skid_instructions"], None)
        for m in ("raw", "LA", "SA"):
            self.assertEqual(out["methods"][m]["spearman"], 1.0, m)
            self.assertEqual(out["methods"][m]["top_overlap"], 10, m)
        rows = {row["object"]: row for row in out["rows"]}
        names = ["g0", "g1", "g2", "g3", "g4", "g5"] + ["h%d (main)" % k for k in (6, 7, 8, 9)]
        self.assertEqual([rows[n]["exact_rank"] for n in names], list(range(1, 11)))
        self.assertEqual([rows[n]["LA_rank"] for n in names], list(range(1, 11)))
        # Each array's estimate within 5 % of its exact misses (the sampler
        # counts every 37th miss: one period of error, 37 of >= 6,000).
        for n in names:
            self.assertAlmostEqual(rows[n]["LA"] / rows[n]["exact"], 1.0, delta=0.05)
        # h11 (12th, out of the rows) through sweep()'s parameter: its
        # 2,050 misses within 5 %.
        out = self.approx("0:0", "--top", "12")
        h11 = [r for r in out["rows"] if r["object"] == "h11 (main)"][0]
        self.assertAlmostEqual(h11["LA"] / h11["exact"], 1.0, delta=0.05)
        # The text header counts events as every other report does.
        db = self.path("p0_0.db")
        r = run([DCPROF, "approx", db, "--sources", self.path("src")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\nunattributed: +[0-9][0-9,]* of [0-9]{1,3}(,[0-9]{3})+"
                         r" sampled events \([0-9,]+ in files not analysed, [0-9,]+ on lines")

    def test_native_cpu_clock_has_no_exact_side(self):
        # the native engine's cpu-clock samples carry CPU time, which no
        # exact count measures: approx attributes them and says there is
        # nothing to compare with, instead of ranking zeros
        if not perf_ok():
            self.skipTest("perf_event_paranoid > 2: no software sampling")
        src = self.path("nsrc")
        os.mkdir(src)
        shutil.copy(ARRAYS, src)
        db = self.path("native.db")
        r = run([DCPROF, "record", "-q", "--engine=native", "--event=cpu-clock", "-o", db,
                 "--", workload("approx_arrays")])
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run([DCPROF, "approx", db, "--sources", src])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("no exact cpu-clock counts in this profile to compare with", r.stdout)
        self.assertNotIn("Spearman", r.stdout)

    def test_universe(self):
        # The twelve arrays are globals and heap blocks of main's variables:
        # ranked among variables, the exact top 10 are g0..g5, h6..h9 as
        # among all buckets (library data has fewer misses), and no library
        # or loader bucket is a row; both figures are reported.
        out = self.approx("0:0")
        self.assertEqual(out["rank"], "variables")
        for u in ("variables", "buckets"):
            fig = out["universes"][u]
            self.assertEqual(fig["top_exact"], 10, u)
            self.assertEqual(fig["methods"]["SA"]["spearman"], 1.0, u)
        self.assertLessEqual(out["universes"]["variables"]["exact_events"],
                             out["universes"]["buckets"]["exact_events"])
        for row in out["rows"]:
            self.assertFalse(row["object"].startswith("<file:") or
                             row["object"] == "<malloc>", row["object"])
        out = self.approx("0:0", "--rank", "buckets")
        self.assertEqual(out["rank"], "buckets")

    def test_skid_negation_over_instructions(self):
        for skid in ("3:1", "5:2"):
            out = self.approx(skid)
            self.assertEqual(out["skid_instructions"]["mean"], float(skid.split(":")[0]))
            raw, sa = out["methods"]["raw"], out["methods"]["SA"]
            self.assertGreaterEqual(sa["spearman"], 0.9, skid)
            self.assertEqual(sa["top_overlap"], 10, skid)
            self.assertLess(sa["max_abs_error_pp"], raw["max_abs_error_pp"], skid)
            # Raw loses the samples that landed on for lines; SA places
            # them on the body's memory instruction.
            self.assertGreater(raw["unattributed"], 2 * sa["unattributed"], skid)

    def test_skid_over_lines(self):
        # The paper's first mapping steps back in source order: from a for
        # line (the loop's end in the binary) to the line above the loop,
        # not to the body.  Here it must run and report the conversion;
        # that it is worse than the walk over instructions is measured in
        # docs/approx.md.
        out = self.approx("5:2", "--skid-over", "lines")
        self.assertIsNone(out["skid_instructions"])
        self.assertGreater(out["skid_lines"]["mean"], 0)


class Demo(TmpDirTest):
    def test_named_block_and_parameters(self):
        # examples/demo.c: hist = dcprof_calloc_named(..., "histogram") is
        # the user bucket "histogram"; step(list, hist) binds its
        # parameter hist to main's hist.
        src = self.path("src")
        os.mkdir(src)
        shutil.copy(os.path.join(ROOT, "examples", "demo.c"), src)
        _, db = self.record([workload("demo")],
                            ["--sample=D1m:37", "--sample-seed=1", "--sample-ip-only"])
        r = run([DCPROF, "approx", db, "--sources", src, "--cflags",
                 "-I" + os.path.join(ROOT, "include"), "--by", "variable", "--format", "json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {(v["variable"], v["function"]): v for v in json.loads(r.stdout)["rows"]}
        self.assertEqual(rows[("hist", "main")]["object"], "hist (main)")
        self.assertNotIn(("hist", "step"), rows)
        r = run([DCPROF, "approx", db, "--sources", src, "--cflags",
                 "-I" + os.path.join(ROOT, "include"), "--format", "json", "--top", "20"])
        objs = {o["object"]: o for o in json.loads(r.stdout)["rows"]}
        self.assertEqual(objs["hist (main)"]["kind"], "user")
        self.assertGreater(objs["hist (main)"]["exact"], 0)
        # step()'s p: bound to main's list, assigned make_particles()'s
        # result, which returns head = all[0]; all owns the particles
        # (all[i] = malloc(...)).  all[j] = t stores a pointer into all's
        # block and does not make all point elsewhere.  So p's accesses
        # count for all, and nothing is unresolved.
        self.assertNotIn("(unresolved)", objs)
        self.assertGreater(objs["all (make_particles)"]["raw"], 0)
        self.assertGreater(objs["all (make_particles)"]["exact"], 0)


# Aliases and the split of a line (docs/approx.md, "Static analysis" and
# "Attribution").  main.c's sweep swaps its two pointers, so in and out
# may each point into a or b (points-to: in <- a by the call, in <- out by
# the copy; out <- b, out <- t, t <- in); work() is defined in work.c and
# its p is bound by name to main's c.  unused() is called by no analysed
# code: its q points into nothing known, and gives way to a and b.
ALIAS_MAIN = """#include <stdlib.h>
void work(double *p, int n);
double g;
static void sweep(double *in, double *out, int n)
{
	for (int it = 0; it < 2; it++) {
		for (int i = 1; i < n; i++)
			out[i] = in[i] + in[i - 1] * g;
		double *t = in;
		in = out;
		out = t;
	}
}
int main(void)
{
	double *a = calloc(100, sizeof *a), *b = calloc(100, sizeof *b);
	double *c = calloc(100, sizeof *c);
	sweep(a, b, 100);
	work(c, 100);
	return 0;
}
void unused(double *q)
{
	sweep(q, q, 1);
}
"""
ALIAS_WORK = """void work(double *p, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = p[i] * 2;
}
"""
SWEEP_LINE, WORK_LINE = 8, 4


class AllocFns(TmpDirTest):
    def test_simulator_writes_alloc_fns(self):
        # approx reads the --alloc-fn names from meta alloc_fns (as the
        # native engine writes them): the simulator writes them too.
        _, db = self.record([workload("approx_fig2")],
                            ["--alloc-fn=figwrap", "--alloc-fn=other"])
        con = sqlite3.connect(db)
        v = con.execute("SELECT value FROM meta WHERE key = 'alloc_fns'").fetchone()
        con.close()
        self.assertEqual(v, ("figwrap,other",))


class Aliases(TmpDirTest):
    def setUp(self):
        super().setUp()
        self.src = self.path("src")
        os.mkdir(self.src)
        for name, text in (("main.c", ALIAS_MAIN), ("work.c", ALIAS_WORK)):
            with open(os.path.join(self.src, name), "w") as f:
                f.write(text)
        _, self.db = self.record([workload("approx_fig2")])
        add_samples(self.db, per_line={SWEEP_LINE: 60}, path=os.path.join(self.src, "main.c"))
        con = sqlite3.connect(self.db)
        con.execute("INSERT INTO location VALUES (?, 0, '', 'work', ?, ?, '', NULL, NULL, NULL)",
                    (10 ** 7 + 99, os.path.join(self.src, "work.c"), WORK_LINE))
        con.execute("INSERT INTO ip_sample VALUES (?, 1, 10)", (10 ** 7 + 99,))
        con.commit()
        con.close()

    def approx(self, by, *opts):
        r = run([DCPROF, "approx", self.db, "--sources", self.src, "--by", by,
                 "--format", "json"] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)["rows"]

    def test_points_to_and_split(self):
        # Line 8's counted locations (D1m counts writes): out[i], in[i],
        # in[i - 1]; g is a loop scalar next to them (demoted), i and n are
        # register scalars.  Split by variable: out 60/2 = 30, in 30 (15 per
        # location); each of in and out splits equally over a and b:
        # a = b = 30.  work.c's line 4: p[i], read and written, one
        # location: all 10 to c, whose alias p is (not a row of its own).
        v = {(r["variable"], r["function"]): r for r in self.approx("variable")}
        self.assertEqual(v[("in", "sweep")]["object"], "a (main) | b (main)")
        self.assertEqual(v[("out", "sweep")]["object"], "a (main) | b (main)")
        self.assertAlmostEqual(v[("in", "sweep")]["raw"], 30)
        self.assertAlmostEqual(v[("out", "sweep")]["raw"], 30)
        self.assertNotIn(("p", "work"), v)
        self.assertEqual(v[("c", "main")]["object"], "c (main)")
        self.assertAlmostEqual(v[("c", "main")]["raw"], 10)
        self.assertNotIn(("g", ""), v)
        o = {r["object"]: r for r in self.approx("object")}
        self.assertAlmostEqual(o["a (main)"]["raw"], 30)
        self.assertAlmostEqual(o["b (main)"]["raw"], 30)
        self.assertAlmostEqual(o["c (main)"]["raw"], 10)
        lines = {r["location"]: r["raw"] for r in self.approx("line")
                 if r["line"] == SWEEP_LINE}
        self.assertEqual(lines, {"out[i]": 30, "in[i]": 15, "in[i-1]": 15})

    def test_paper_rules(self):
        # Per location, g and the register scalar i counted: out[i], in[i],
        # in[i - 1], g, i: 60 / 5 = 12 each; a = b = 3 * 12 / 2 = 18, g 12.
        lines = {r["location"]: r["raw"] for r in self.approx("line", *PAPER)
                 if r["line"] == SWEEP_LINE}
        self.assertEqual(lines, {"out[i]": 12, "in[i]": 12, "in[i-1]": 12, "g": 12, "i": 12})
        o = {r["object"]: r for r in self.approx("object", *PAPER)}
        self.assertAlmostEqual(o["a (main)"]["raw"], 18)
        self.assertAlmostEqual(o["g"]["raw"], 12)


MACRO_SRC = """double garr[100], harr[100];
#define G(i) garr[(i)]
int main(void)
{
	double s = 0;
	for (int i = 0; i < 100; i++)
		s += G(i) + harr[i];
	return (int)s;
}
"""


class Macros(TmpDirTest):
    def test_global_through_macro(self):
        # G(i) expands to garr[(i)] on line 7: an access of garr there,
        # keyed by the macro's use.  Line 7, 30 samples: garr and harr (s
        # and i are register scalars), 15 each.
        src = self.path("src")
        os.mkdir(src)
        with open(os.path.join(src, "m.c"), "w") as f:
            f.write(MACRO_SRC)
        _, db = self.record([workload("approx_fig2")])
        add_samples(db, per_line={7: 30}, path=os.path.join(src, "m.c"))
        r = run([DCPROF, "approx", db, "--sources", src, "--by", "line", "--format", "json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = {(x["variable"], x["location"]): x["raw"] for x in json.loads(r.stdout)["rows"]}
        self.assertEqual(rows, {("garr", "G(i)"): 15, ("harr", "harr[i]"): 15})
