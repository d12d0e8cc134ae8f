"""Sampled windowed traces (issue 6, seeds/004 §4): load classes, trace
compression, the windows of the emulated trace unit, the full-trace
reference counts and the trace file, on tests/workloads/fp_micro.c, whose
header derives every expected number.  Profiles are read with SQL,
independently of `dcprof footprint`."""
import os
import shutil
import tempfile

from test_engine_common import Recorded, meta, query, record, workload
from test_engine_fork import ForkRecorded

W, P = 1000, 100000
N = 1 << 20
TRACE = ("--collect-atstart=no", "--trace-window=%d" % W, "--trace-period=%d" % P,
         "--trace-full")


def fn_ref(db, fn):
    """(accesses, const_loads, f, f_str, f_irr) of a function."""
    rows = query(db, "SELECT accesses, const_loads, f, f_str, f_irr FROM trace_function_ref"
                 " WHERE function = ?", fn)
    if not rows:
        raise AssertionError("no trace_function_ref row for %r" % fn)
    return rows[0]


def classes(db, fn):
    """{class letter: sampled records} of a function."""
    return dict(query(db, "SELECT a.class, COUNT(*) FROM trace_access a JOIN location l"
                      " ON l.id = a.location WHERE l.function = ? GROUP BY a.class", fn))


class Stride1(Recorded):
    """str1 twice: 2N loads of a[i], all Strided but the first two and the
    first after the restart; ret is a Constant load, its own proxy.  The
    first iteration of each call runs in the superblock that starts at the
    function's entry, where VEX has folded `lea a(%rip)` into a constant
    address: that one load is Constant (a documented limit), so 2N + 2 loads
    split as A = 2N - 2 and A_const = 4."""
    WORKLOAD = "fp_micro"
    ARGS = ("str1", "2")
    OPTS = TRACE

    def test_reference_counts(self):
        a, aconst, f, fstr, firr = fn_ref(self.db, "str1")
        self.assertEqual((a, aconst), (2 * N - 2, 4))
        # 8 loads per 64-byte block; tiles of W records not aligned to the
        # array add at most one block each (plus the restart).
        tiles = -(-int(meta(self.db)["trace_records"]) // W)
        self.assertGreaterEqual(f, 2 * N // 8)
        self.assertLessEqual(f, 2 * N // 8 + tiles + 2)
        self.assertLessEqual(firr, 3)
        self.assertEqual(fstr + firr, f)

    def test_windows(self):
        wins = query(self.db, "SELECT id, start, period FROM trace_window ORDER BY id")
        records = int(meta(self.db)["trace_records"])
        # periods uniform on [P - P/4, P + P/4]; they tile the run from the
        # first window on; the first starts after a gap P_0 - W.
        self.assertGreater(len(wins), records // P - 8)
        self.assertLess(len(wins), records // P + 8)
        self.assertLessEqual(wins[0][1], P + P // 4 - W)
        for (i, s, p), nxt in zip(wins, wins[1:] + [None]):
            if nxt:
                self.assertTrue(P - P // 4 <= p <= P + P // 4, (i, p))
                self.assertEqual(s + p, nxt[1])
            else:
                self.assertEqual(s + p, records)
        counts = query(self.db, "SELECT window, COUNT(*), MIN(time), MAX(time) FROM"
                       " trace_access GROUP BY window ORDER BY window")
        for (win, n, lo, hi), (_, s, p) in zip(counts, wins):
            if s + W <= records:
                self.assertEqual((n, lo, hi), (W, s, s + W - 1))

    def test_period_reference(self):
        # A period's exact footprint: P_i/8 blocks of a (P_i < N, so no block
        # is seen twice even across the restart), up to 2 partial blocks.
        rows = query(self.db, "SELECT period, ref_f, ref_f_str, ref_f_irr FROM trace_window")
        for p, f, fstr, firr in rows[:-1]:
            self.assertLessEqual(abs(f - p / 8), 2, (p, f))
            self.assertEqual(fstr + firr, f)
            self.assertLessEqual(firr, 2)

    def test_sampled_classes(self):
        c = classes(self.db, "str1")
        self.assertGreater(c.get("s", 0), 0)
        self.assertLessEqual(c.get("i", 0), 2)

    def test_meta(self):
        m = meta(self.db)
        self.assertEqual((m["trace_window"], m["trace_period"], m["trace_block"],
                          m["trace_seed"], m["trace_full"]), (str(W), str(P), "64", "1", "yes"))
        # every load (data read) is a record or implied by one
        self.assertEqual(int(m["trace_loads"]), query(self.db, "SELECT SUM(Dr) FROM cost")[0][0])
        self.assertGreaterEqual(int(m["trace_loads"]), int(m["trace_records"]))
        self.assertGreaterEqual(int(m["trace_records"]), 2 * N)


class ConstantLoads(Recorded):
    """with_const: per iteration a[i] (Strided) and g (RIP-relative:
    Constant, implied by a[i]'s record); the ret and the first a[i] (see
    Stride1) are Constant too: A = N - 1, A_const = N + 2."""
    WORKLOAD = "fp_micro"
    ARGS = ("const", "1")
    OPTS = TRACE

    def test_compression(self):
        a, aconst, f, fstr, firr = fn_ref(self.db, "with_const")
        self.assertEqual((a, aconst), (N - 1, N + 2))
        # kappa = 1 + A_const / A = 2 (equation 2)
        self.assertAlmostEqual(1 + aconst / a, 2.0, places=5)

    def test_records_carry_implied(self):
        rows = query(self.db, "SELECT a.class, a.implied, COUNT(*) FROM trace_access a"
                     " JOIN location l ON l.id = a.location WHERE l.function = 'with_const'"
                     " GROUP BY 1, 2")
        self.assertTrue(rows)
        for cls, implied, n in rows:
            self.assertEqual(implied, 1 if cls != "c" else 0, rows)


class StackConstant(Recorded):
    """with_local: x is read through %rsp - 8 every iteration: Constant by
    the stack-pointer rule, implied by a[i]'s record; with the ret and the
    folded first a[i]: A = N - 1, A_const = N + 2."""
    WORKLOAD = "fp_micro"
    ARGS = ("stack", "1")
    OPTS = TRACE

    def test_compression(self):
        self.assertEqual(fn_ref(self.db, "with_local")[:2], (N - 1, N + 2))


class StoresNotTraced(Recorded):
    """store: a[i] = i writes N times and reads nothing but its return
    address: the ret is its only record (a Constant proxy)."""
    WORKLOAD = "fp_micro"
    ARGS = ("store", "1")
    OPTS = TRACE

    def test_only_the_ret(self):
        self.assertEqual(fn_ref(self.db, "store")[:3], (0, 1, 0))


class Irregular(Recorded):
    """irr: idx[i] Strided (16 per block), b[idx[i]] Irregular (a new block
    nearly always): F_str% = 1/17 = 5.9 per tile.  The first idx[i] has a
    folded constant address (see Stride1): A = 2N - 1."""
    WORKLOAD = "fp_micro"
    ARGS = ("irr", "1")
    OPTS = TRACE

    def test_reference_shares(self):
        a, aconst, f, fstr, firr = fn_ref(self.db, "irr")
        self.assertEqual((a, aconst), (2 * N - 1, 2))
        self.assertAlmostEqual(100 * fstr / f, 100 / 17, delta=0.3)
        # per tile: W/2 irregular loads over 2^19 blocks collide W^2/8/2^19
        # = 0.24 times: F_irr = A/2 within 0.1 %
        self.assertAlmostEqual(firr / (a / 2), 1.0, delta=0.001)

    def test_sampled_classes(self):
        c = classes(self.db, "irr")
        self.assertAlmostEqual(c["s"] / (c["s"] + c["i"]), 0.5, delta=0.01)


class TraceFile(Recorded):
    """--trace-out writes the sampled records: a 4-line header, then one
    line per record of trace_access, with the instruction address."""
    WORKLOAD = "fp_micro"
    ARGS = ("str4", "1")

    @classmethod
    def setUpClass(cls):
        cls.trace_dir = tempfile.mkdtemp(prefix="dcprof-trace-")
        cls.trace = os.path.join(cls.trace_dir, "t.txt")
        cls.OPTS = ("--collect-atstart=no", "--trace-window=200", "--trace-out=" + cls.trace)
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.trace_dir, ignore_errors=True)
        super().tearDownClass()

    def test_file_matches_profile(self):
        with open(self.trace) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[:4], ["dcprof-trace 1", "window 200", "period 20000",
                                     "block 64"])
        rows = query(self.db, "SELECT a.window, a.time, l.ip, a.address, a.class, a.implied"
                     " FROM trace_access a JOIN location l ON l.id = a.location"
                     " ORDER BY a.time")
        got = [l.split() for l in lines[4:]]
        self.assertEqual(len(got), len(rows))
        self.assertGreater(len(rows), 0)
        for g, r in zip(got, rows):
            self.assertEqual(g, ["a", str(r[0]), str(r[1]), hex(r[2]), hex(r[3]), r[4],
                                 str(r[5])])

    def test_no_reference_without_full(self):
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM trace_function_ref")[0][0], 0)
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM trace_window WHERE ref_f"
                               " IS NOT NULL")[0][0], 0)


class OptionErrors(Recorded):
    WORKLOAD = "fp_micro"
    ARGS = ("str4", "1")
    OPTS = ("--collect-atstart=no",)

    def check(self, opts, message):
        r = record(self.db + ".x", [workload("fp_micro"), "str4", "0"], opts)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(r.stderr.count("\n"), 1, r.stderr)
        self.assertIn(message, r.stderr)

    def test_period_too_short(self):
        self.check(("--trace-window=100", "--trace-period=150"),
                   "--trace-period 150 is less than twice --trace-window 100")

    def test_needs_window(self):
        self.check(("--trace-full",), "--trace-full needs --trace-window")
        self.check(("--trace-block=128",), "--trace-block needs --trace-window")

    def test_bad_values(self):
        self.check(("--trace-window=0",), "invalid --trace-window value '0'")
        self.check(("--trace-window=10", "--trace-block=48"), "invalid --trace-block value")

    def test_no_trace_tables_without_window(self):
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM trace_window")[0][0], 0)


class TracedFork(ForkRecorded):
    """A forked child traces from the fork with a fresh unit into its own
    profile (tests/workloads/fork_counts.c: the parent reads 1024 words of
    parent_data in main, the child 512 of child_data).  Windows of 1 record
    every 2 (periods are exactly 2: P/4 = 0)."""
    OPTS = ("--trace-window=1", "--trace-period=2", "--trace-full")

    def test_child_counts_from_the_fork(self):
        # main's loads in the child: the 512 reads of child_data, plus at most
        # a few around the fork's return
        a, aconst = fn_ref(self.child, "main")[:2]
        self.assertTrue(512 <= a + aconst <= 520, (a, aconst))
        a, aconst = fn_ref(self.db, "main")[:2]
        self.assertTrue(1024 <= a + aconst < 1024 + 512, (a, aconst))

    def test_child_windows_start_at_zero(self):
        # the fresh unit's first gap is P_0 - w = 1 record
        wins = query(self.child, "SELECT id, start, period FROM trace_window ORDER BY id"
                     " LIMIT 3")
        self.assertEqual(wins, [(0, 1, 2), (1, 3, 2), (2, 5, 2)])
        records = int(meta(self.child)["trace_records"])
        self.assertLess(records, int(meta(self.db)["trace_records"]))
        self.assertEqual(query(self.child, "SELECT COUNT(*) FROM trace_access")[0][0],
                         records // 2)
