"""Call arcs and inclusive costs (--calls; seeds/001 §2, method 3) on
calls_tree (see its header): a three-level call tree with known traffic,
recursion, a tail call, a longjmp, a signal handler and a second thread.

Every check compares two independent accountings of the engine: the cost
table (each access charged to its instruction's location, hence function)
and the call arcs (differences of a per-thread counter taken at call and
return).  Known traffic: level_k reads its array t_k of 4096 ints once, so
4096 of the reads charged to level_k are of bucket t_k, and nothing else
reads t_k."""
import unittest

from test_engine_common import (CACHE_2, LAT, Recorded, marker_line, query, totals,
                                use_totals)

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
        rows = query(self.db, "SELECT a.Dr FROM call_arc a JOIN location sl"
                     " ON sl.id = a.site WHERE a.kind = 'call' AND sl.function = 'main'"
                     " AND sl.line = ?", marker_line("calls_tree.c", "LINE:raise"))
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

    def use(self, kind="call", caller=None, callee=None, thread=None, level=1):
        """(SpLoss, AcCost) of call_use rows that match."""
        where, args = ["a.kind = ?", "a.level = ?"], [kind, level]
        for col, v in (("sl.function", caller), ("cl.function", callee),
                       ("a.thread", thread)):
            if v is not None:
                where.append(col + " = ?")
                args.append(v)
        return query(self.db, "SELECT COALESCE(SUM(a.SpLoss), 0), COALESCE(SUM(a.AcCost), 0)"
                     " FROM call_use a LEFT JOIN location sl ON sl.id = a.site"
                     " LEFT JOIN location cl ON cl.id = a.callee WHERE " +
                     " AND ".join(where), *args)[0]

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

    def test_tree_statistics(self):
        m = dict(query(self.db, "SELECT key, value FROM meta WHERE key LIKE 'bdtree%'"))
        # main -> level1 -> level2 -> level3 below the root and libc's frames
        self.assertGreaterEqual(int(m["bdtree_nodes_max"]), 5)
        self.assertLessEqual(float(m["bdtree_nodes_avg"]), int(m["bdtree_nodes_max"]))


if __name__ == "__main__":
    unittest.main()
