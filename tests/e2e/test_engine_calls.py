"""Call arcs and inclusive costs (--calls; seeds/001 §2, method 3) on
calls_tree (see its header): a three-level call tree with known traffic,
recursion, a tail call, a longjmp, a signal handler and a second thread.

Every check compares two independent accountings of the engine: the cost
table (each access charged to its instruction's location, hence function)
and the call arcs (differences of a per-thread counter taken at call and
return).  Known traffic: level_k reads its array t_k of 4096 ints once, so
4096 of the reads charged to level_k are of bucket t_k, and nothing else
reads t_k."""
import os
import re
import unittest

from harness import DCPROF, run, workload
from test_engine_common import (CACHE_2, LAT, Recorded, marker_line, query, report_json,
                                totals, use_totals)

METRICS = ["Dr", "Dw", "D1mr", "D1mw", "D2mr", "D2mw", "Lat"]
N = 4096


class CallTree(Recorded):
    WORKLOAD = "calls_tree"
    OPTS = (CACHE_2, LAT, "--calls", "--cache-use")

    def arcs(self, caller=None, callee=None, kind="call", thread=None):
        """Summed (count, metrics...) of the arcs that match."""
        where, args = ["a.kind = ?"], [kind]
        if caller is not None:
            where.append("sl.function = ?")
            args.append(caller)
        if callee is not None:
            where.append("cl.function = ?")
            args.append(callee)
        if thread is not None:
            where.append("a.thread = ?")
            args.append(thread)
        row = query(self.db, "SELECT COALESCE(SUM(count), 0), " +
                    ", ".join("COALESCE(SUM(a.%s), 0)" % m for m in METRICS) +
                    " FROM call_arc a LEFT JOIN location sl ON sl.id = a.site"
                    " LEFT JOIN location cl ON cl.id = a.callee WHERE " +
                    " AND ".join(where), *args)[0]
        return row[0], dict(zip(METRICS, row[1:]))

    def self_cost(self, function, thread=None, bucket=None):
        t = totals(self.db, bucket=bucket, function=function, thread=thread)
        return {m: t[m] for m in METRICS}

    def total(self, thread=None):
        sql = "SELECT " + ", ".join("SUM(%s)" % m for m in METRICS) + " FROM cost"
        args = []
        if thread is not None:
            sql += " WHERE thread = ?"
            args.append(thread)
        return dict(zip(METRICS, query(self.db, sql, *args)[0]))

    def add(self, *ds):
        return {m: sum(d[m] for d in ds) for m in METRICS}

    def test_roots_add_up_to_the_totals(self):
        # thread roots and signal roots, per thread and overall, every metric
        for thread in (1, 2):
            _, troot = self.arcs(kind="thread", thread=thread)
            _, sroot = self.arcs(kind="signal", thread=thread)
            self.assertEqual(self.add(troot, sroot), self.total(thread), thread)
        self.assertEqual(self.arcs(kind="thread")[0], 2)   # one root per thread

    def test_three_levels(self):
        # known traffic: each level reads its own array, 4096 ints
        for f, t in (("level1", "t1"), ("level2", "t2"), ("level3", "t3")):
            self.assertEqual(self.self_cost(f, bucket=t)["Dr"], N)
        n3, l3 = self.arcs("level2", "level3")
        n2, l2 = self.arcs("level1", "level2")
        n1, l1 = self.arcs("main", "level1")
        self.assertEqual((n1, n2, n3), (1, 1, 1))
        # inclusive = own cost + inclusive of the calls made, every metric
        self.assertEqual(l3, self.self_cost("level3"))
        self.assertEqual(l2, self.add(self.self_cost("level2"), l3))
        self.assertEqual(l1, self.add(self.self_cost("level1"), l2))
        self.assertGreaterEqual(l1["Dr"], 3 * N)
        # t1..t3 are 16 KiB each, cold: one read miss per 64-byte line
        self.assertGreaterEqual(l1["D1mr"], 3 * N // 16)

    def test_recursion_counts_once(self):
        # recurse(4) calls itself four times; only the outer call adds
        n, outer = self.arcs("main", "recurse")
        m, inner = self.arcs("recurse", "recurse")
        self.assertEqual((n, m), (1, 4))
        self.assertEqual(inner, dict.fromkeys(METRICS, 0))
        self.assertEqual(outer, self.self_cost("recurse"))

    def test_tail_call(self):
        # tail1 jumps to tail2: an arc tail1 -> tail2 whose inclusive is
        # tail2's own, inside main -> tail1's, both counted once
        n2, t2 = self.arcs("tail1", "tail2")
        n1, t1 = self.arcs("main", "tail1")
        self.assertEqual((n1, n2), (1, 1))
        self.assertEqual(self.self_cost("tail2", bucket="t_tail")["Dr"], N)
        self.assertEqual(t2, self.self_cost("tail2"))
        self.assertEqual(t1, self.add(self.self_cost("tail1"), t2))

    def test_longjmp(self):
        # deep2 never returns: its frame and deep1's are popped at main's
        # next call; each was still counted once, inclusive >= self
        for caller, callee in (("main", "deep1"), ("deep1", "deep2")):
            n, incl = self.arcs(caller, callee)
            self.assertEqual(n, 1)
            for m in METRICS:
                self.assertGreaterEqual(incl[m], self.self_cost(callee)[m], m)
        self.assertEqual(self.arcs("main", "deep1")[1],
                         self.add(self.self_cost("deep1"), self.arcs("deep1", "deep2")[1]))

    def test_signal_handler_is_a_root(self):
        n, sroot = self.arcs(kind="signal")
        self.assertEqual(n, 1)
        handler = self.add(self.self_cost("handler"), self.arcs("handler", "sum")[1])
        self.assertGreaterEqual(sroot["Dr"], N)
        self.assertLessEqual(handler["Dr"], sroot["Dr"])
        # raise() was interrupted by the handler but does not include it
        # (the call site's other arc is the dynamic linker binding raise)
        rows = query(self.db, "SELECT a.Dr FROM call_arc a JOIN location sl"
                     " ON sl.id = a.site JOIN location cl ON cl.id = a.callee"
                     " WHERE a.kind = 'call' AND sl.function = 'main' AND sl.line = ?"
                     " AND cl.function = 'raise'", marker_line("calls_tree.c", "LINE:raise"))
        self.assertEqual(len(rows), 1)
        self.assertLess(rows[0][0], N)

    def test_second_thread(self):
        n, w = self.arcs("start_thread", "worker", thread=2)
        self.assertEqual(n, 1)
        self.assertEqual(self.self_cost("sum", thread=2, bucket="t_thr")["Dr"], N)
        self.assertGreaterEqual(w["Dr"], N)
        self.assertEqual(self.arcs(caller="worker", thread=1)[0], 0)

    def test_inclusive_at_least_self(self):
        # every function of the workload that is only entered by calls
        for f in ("level1", "level2", "level3", "recurse", "deep1", "deep2", "sum",
                  "worker", "tail1", "tail2"):
            _, incl = self.arcs(callee=f)
            own = self.self_cost(f)
            for m in METRICS:
                self.assertGreaterEqual(incl[m], own[m], "%s %s" % (f, m))

    # -- back-dated inclusive costs (seeds/001 §3), --cache-use

    def call_use_sums(self, columns, kind, caller, callee, thread, level):
        """The sums of call_use columns over the rows that match."""
        where, args = ["a.kind = ?", "a.level = ?"], [kind, level]
        for col, v in (("sl.function", caller), ("cl.function", callee),
                       ("a.thread", thread)):
            if v is not None:
                where.append(col + " = ?")
                args.append(v)
        sums = ", ".join("COALESCE(SUM(a.%s), 0)" % c for c in columns)
        return query(self.db, "SELECT " + sums + " FROM call_use a"
                     " LEFT JOIN location sl ON sl.id = a.site"
                     " LEFT JOIN location cl ON cl.id = a.callee WHERE " +
                     " AND ".join(where), *args)[0]

    def use(self, kind="call", caller=None, callee=None, thread=None, level=1):
        """(SpLoss, AcCost) of call_use rows that match."""
        return self.call_use_sums(("SpLoss", "AcCost"), kind, caller, callee, thread, level)

    def own_use(self, function, level=1, bucket=None):
        return use_totals(self.db, bucket, function, level=level)

    def test_backdated_roots_add_up(self):
        for thread in (1, 2):
            for level in (1, 2):
                t = self.use("thread", thread=thread, level=level)
                s = self.use("signal", thread=thread, level=level)
                total = query(self.db, "SELECT SUM(SpLoss), SUM(AcCost) FROM cache_use"
                              " WHERE thread = ? AND level = ?", thread, level)[0]
                self.assertEqual((t[0] + s[0], t[1] + s[1]), total, (thread, level))

    def test_backdated_three_levels(self):
        # known traffic: t3's 256 lines are read whole, 16 ints each, by
        # level3 alone: no loss, 1000 / 16 = 62 per residency, at both levels
        # (t1..t3 are 48 KiB > L1, but each line is read out before eviction)
        for level in (1, 2):
            self.assertEqual(self.own_use("level3", level, "t3"), (0, 256 * 62))
        for level in (1, 2):
            l3 = self.use(caller="level2", callee="level3", level=level)
            l2 = self.use(caller="level1", callee="level2", level=level)
            l1 = self.use(caller="main", callee="level1", level=level)
            self.assertEqual(l3, self.own_use("level3", level))
            o2, o1 = self.own_use("level2", level), self.own_use("level1", level)
            self.assertEqual(l2, (o2[0] + l3[0], o2[1] + l3[1]))
            self.assertEqual(l1, (o1[0] + l2[0], o1[1] + l2[1]))
            self.assertGreaterEqual(l1[1], 3 * 256 * 62)

    def test_backdated_recursion_and_signal(self):
        self.assertEqual(self.use(caller="recurse", callee="recurse"), (0, 0))
        self.assertEqual(self.use(caller="main", callee="recurse"), self.own_use("recurse"))
        # the handler's lines (t_sig) are in the signal root, not in raise()
        sig = self.use("signal")
        self.assertGreaterEqual(sig[1], self.own_use("sum", 1, "t_sig")[1])
        self.assertEqual(self.own_use("sum", 1, "t_sig"), (0, 256 * 62))

    def test_evicted_only_with_evictions(self):
        # Evicted is counted with --evictions=yes only: NULL otherwise, and
        # the report has no Evicted columns
        evictions = "--evictions" in self.OPTS
        n = query(self.db, "SELECT COUNT(*) FROM cache_use WHERE Evicted IS NULL")[0][0]
        self.assertEqual(n == 0, evictions)
        cols = report_json(self.db, "--top", "1")["rows"][0]
        self.assertEqual("Evicted1" in cols, evictions)

    def test_tree_statistics(self):
        m = dict(query(self.db, "SELECT key, value FROM meta WHERE key LIKE 'bdtree%'"))
        # main -> level1 -> level2 -> level3 below the root and libc's frames
        self.assertGreaterEqual(int(m["bdtree_nodes_max"]), 5)
        self.assertLessEqual(float(m["bdtree_nodes_avg"]), int(m["bdtree_nodes_max"]))


class CallTreeEvictions(CallTree):
    """The same run with --evictions=yes: every test above again (the
    engine's other access path), and Evicted<k> (the lines a location
    loaded that level k evicted, charged at eviction to the loader: a
    back-dating metric of the eviction tracking, seeds/001 §3) gets exact
    inclusive costs through the back-dating tree like SpLoss and AcCost."""
    OPTS = CallTree.OPTS + ("--evictions",)

    def evicted(self, kind="call", caller=None, callee=None, thread=None, level=1):
        """Evicted of the call_use rows that match."""
        return self.call_use_sums(("Evicted",), kind, caller, callee, thread, level)[0]

    def own_evicted(self, function=None, level=1, thread=None):
        where, args = ["u.level = ?"], [level]
        for col, v in (("l.function", function), ("u.thread", thread)):
            if v is not None:
                where.append(col + " = ?")
                args.append(v)
        return query(self.db, "SELECT COALESCE(SUM(u.Evicted), 0) FROM cache_use u"
                     " JOIN location l ON l.id = u.location WHERE " + " AND ".join(where),
                     *args)[0][0]

    def test_evicted_is_the_eviction_count(self):
        # Two accountings of one thing: the eviction tracker counts each
        # fill that replaced a valid line (level_fill.evictions); cache use
        # charges each residency that ended by eviction to the access that
        # loaded it.  Every line is loaded by a data access while
        # collecting (no instruction fetches are simulated), so per level
        # the program's Evicted is the level's evictions.  L1 (32 KiB)
        # holds less than t1..t3 (48 KiB): there are evictions to count.
        for level in (1, 2):
            fills = query(self.db, "SELECT evictions FROM level_fill WHERE level = ?", level)
            self.assertEqual(self.own_evicted(level=level), fills[0][0], level)
        self.assertGreater(self.own_evicted(level=1), 3 * 256)

    def test_evicted_roots_add_up(self):
        # root inclusive == program total, per thread and level
        for thread in (1, 2):
            for level in (1, 2):
                roots = (self.evicted("thread", thread=thread, level=level) +
                         self.evicted("signal", thread=thread, level=level))
                self.assertEqual(roots, self.own_evicted(level=level, thread=thread),
                                 (thread, level))

    def test_evicted_three_levels(self):
        # a call's subtree lost what it loaded itself plus what its calls'
        # subtrees loaded (each function is called once)
        l3 = self.evicted("call", "level2", "level3")
        l2 = self.evicted("call", "level1", "level2")
        l1 = self.evicted("call", "main", "level1")
        self.assertEqual(l3, self.own_evicted("level3"))
        self.assertEqual(l2, self.own_evicted("level2") + l3)
        self.assertEqual(l1, self.own_evicted("level1") + l2)
        # t3's 256 lines, loaded by level3, all leave L1 (32 KiB, LRU):
        # t_tail, t_sig and t_thr, 48 KiB, are read after them
        self.assertGreaterEqual(l3, 256)
        # recursion counts once; inclusive >= self for every function
        self.assertEqual(self.evicted("call", "recurse", "recurse"), 0)
        for f in ("level1", "level2", "level3", "recurse", "deep1", "deep2", "sum",
                  "worker", "tail1", "tail2"):
            for level in (1, 2):
                self.assertGreaterEqual(self.evicted(callee=f, level=level),
                                        self.own_evicted(f, level), (f, level))


class PltCalls(Recorded):
    """Calls through PLT stubs are arcs to the real function (Callgrind's
    --skip-plt=yes) on calls_plt (see its header): use_lib calls lib_sum,
    in a library of the workload's own, 4 times; use_libm calls libm's cos
    100 times.  The program is bound lazily (no BIND_NOW): the first call
    of each goes stub -> first PLT entry -> the dynamic linker's resolver,
    which jumps to the function it bound."""
    WORKLOAD = "calls_plt"
    OPTS = (CACHE_2, LAT, "--calls")
    arcs = CallTree.arcs
    self_cost = CallTree.self_cost

    def test_calls_reach_the_library_function(self):
        n, incl = self.arcs("use_lib", "lib_sum")
        self.assertEqual(n, 4)
        # lib_sum reads data's 1024 ints per call and calls nothing: the
        # arc's inclusive cost is its own, every metric (the resolver's
        # work on the first call is its own arc's, below)
        self.assertEqual(self.self_cost("lib_sum", bucket="data")["Dr"], 4 * 1024)
        self.assertEqual(incl, self.self_cost("lib_sum"))
        # cos: libm picks its implementation at load time (an IFUNC), so
        # the name is that of the variant, e.g. __cos_fma
        rows = query(self.db, "SELECT cl.function, SUM(a.count) FROM call_arc a"
                     " JOIN location sl ON sl.id = a.site JOIN location cl ON cl.id = a.callee"
                     " WHERE sl.function = 'use_libm' GROUP BY 1")
        calls = dict(rows)
        self.assertEqual(sum(v for k, v in calls.items() if "cos" in k), 100, calls)

    def test_binding_is_the_resolvers_arc(self):
        # the first call of each function: one arc to the resolver per
        # call site, which then gives its frame to the bound function
        for caller in ("use_lib", "use_libm"):
            rows = query(self.db, "SELECT cl.function, a.count FROM call_arc a"
                         " JOIN location sl ON sl.id = a.site"
                         " JOIN location cl ON cl.id = a.callee WHERE sl.function = ?", caller)
            resolver = [r for r in rows if r[0].startswith("_dl_runtime_resolve")]
            self.assertEqual((len(rows), len(resolver)), (2, 1), rows)
            self.assertEqual(resolver[0][1], 1)

    def test_stub_costs_go_to_the_call_site(self):
        # charged to the call instruction's location (Callgrind charges a
        # skipped function to its caller): 4 calls push 4 return addresses;
        # each call's stub reads its GOT slot (4 reads); the first, unbound,
        # goes on: the stub pushes the relocation index (1 write), the first
        # PLT entry pushes a GOT word (1 read, 1 write) and jumps through
        # another (1 read).  Dr = 4 + 1 + 1 = 6, Dw = 4 + 1 + 1 = 6.
        rows = query(self.db, "SELECT SUM(c.Dr), SUM(c.Dw) FROM cost c WHERE c.location IN"
                     " (SELECT a.site FROM call_arc a JOIN location cl ON cl.id = a.callee"
                     " WHERE cl.function = 'lib_sum')")
        self.assertEqual(rows, [(6, 6)])

    def test_no_location_in_a_plt(self):
        # the program's .plt and .plt.got (__cxa_finalize at exit) stubs
        # have no location at all: neither a cost nor an arc end there
        exe = workload(self.WORKLOAD)
        base = query(self.db, "SELECT DISTINCT cl.ip FROM call_arc a"
                     " JOIN location cl ON cl.id = a.callee WHERE cl.function = 'use_lib'")
        self.assertEqual(len(base), 1)
        sym = re.search(r"^([0-9a-f]+) t use_lib$", run(["nm", exe]).stdout, re.M)
        base = base[0][0] - int(sym.group(1), 16)
        plt = re.findall(r"\s(\.plt(?:\.got|\.sec)?)\s+\w+\s+([0-9a-f]+)\s[0-9a-f]+\s([0-9a-f]+)",
                         run(["readelf", "-SW", exe]).stdout)
        self.assertIn(".plt.got", [p[0] for p in plt])
        for name, addr, size in plt:
            lo = base + int(addr, 16)
            hi = lo + int(size, 16)
            n = query(self.db, "SELECT COUNT(*) FROM location WHERE object = ?"
                      " AND ip >= ? AND ip < ?", exe, lo, hi)[0][0]
            self.assertEqual(n, 0, name)
        rows = query(self.db, "SELECT COUNT(*) FROM call_arc a JOIN location sl ON sl.id = a.site"
                     " JOIN location cl ON cl.id = a.callee WHERE cl.function = '__cxa_finalize'")
        self.assertGreaterEqual(rows[0][0], 1)

    def test_export_names_the_library_function(self):
        out = os.path.join(self.tmpdir, "plt.out")
        r = run([DCPROF, "export", self.db, "--format=callgrind", "-o", out])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            text = f.read()
        # use_lib's calls of lib_sum: one calls= line with the 4 calls (names
        # are compressed: use_lib's id is given where it is first named)
        fid = re.search(r"^c?fn=\((\d+)\) use_lib$", text, re.M).group(1)
        block = re.search(r"^fn=\(%s\)(?: use_lib)?\n(.*?)(?=^fn=)" % fid, text,
                          re.M | re.S).group(1)
        self.assertRegex(block, r"cfn=\(\d+\) lib_sum\ncalls=4 ")
        self.assertNotIn("???", block)


if __name__ == "__main__":
    unittest.main()
