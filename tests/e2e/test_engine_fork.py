"""A forked child gets its own profile whose counts start at the fork, for
the exact costs and for sampling, evictions and reuse alike
(tests/workloads/fork_counts.c derives the numbers)."""
import glob
import os
import shutil
import tempfile
import unittest

from test_engine_common import query, record, workload


def first(db, name):
    rows = query(db, "SELECT f.count FROM reuse_first f JOIN bucket b ON b.id = f.bucket"
                 " WHERE b.name = ?", name)
    return rows[0][0] if rows else 0


def cost(db, table, name, col):
    rows = query(db, "SELECT COALESCE(SUM(c.%s), 0) FROM %s c JOIN bucket b ON b.id = c.bucket"
                 " WHERE b.name = ?" % (col, table), name)
    return rows[0][0]


class ForkRecorded(unittest.TestCase):
    """Records fork_counts with OPTS once for the class: cls.db is the
    parent's profile, cls.child the child's.  Holds no tests."""
    OPTS = ()

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dcprof-fork-")
        cls.db = os.path.join(cls.tmp, "p.db")
        cls.rec = record(cls.db, [workload("fork_counts")], list(cls.OPTS))
        children = glob.glob(os.path.join(cls.tmp, "p.*.db"))
        cls.child = children[0] if len(children) == 1 else None

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.assertEqual(self.rec.returncode, 0, self.rec.stderr)
        self.assertIsNotNone(self.child, "expected one child profile: %s" % os.listdir(self.tmp))


class ForkedChild(ForkRecorded):
    OPTS = ("--reuse=yes", "--evictions=yes", "--sample=D1m:1")

    def test_parent(self):
        self.assertEqual(first(self.db, "parent_data"), 1024)
        self.assertEqual(first(self.db, "child_data"), 0)
        self.assertEqual(cost(self.db, "cost", "child_data", "Dr"), 0)
        self.assertEqual(cost(self.db, "cost_sampled", "child_data", "Dr"), 0)

    def test_child_counts_from_the_fork(self):
        self.assertEqual(first(self.child, "child_data"), 512)
        self.assertEqual(first(self.child, "parent_data"), 0)
        self.assertEqual(cost(self.child, "cost", "parent_data", "Dr"), 0)
        self.assertEqual(cost(self.child, "cost", "child_data", "Dr"), 512)
        self.assertEqual(cost(self.child, "cost_sampled", "child_data", "D1mr"), 512)
        self.assertEqual(cost(self.child, "cost_sampled", "parent_data", "D1mr"), 0)
        # the child's fills are its own: at most what its few thousand
        # accesses can fill, far below the parent's start-up
        parent_fills = query(self.db, "SELECT fills FROM level_fill WHERE level = 1")[0][0]
        child_fills = query(self.child, "SELECT fills FROM level_fill WHERE level = 1")[0][0]
        self.assertGreaterEqual(child_fills, 512)
        self.assertLess(child_fills, parent_fills)


if __name__ == "__main__":
    unittest.main()


class ForkedChildCalls(unittest.TestCase):
    """With --calls --cache-use the child's call arcs and back-dating tree
    count from the fork too: in each profile the roots add up to its own
    totals (the child inherits the parent's stack and resident lines; its
    snapshots and tree costs start at zero)."""

    def test_roots_add_up_in_both(self):
        tmp = tempfile.mkdtemp(prefix="dcprof-forkc-")
        self.addCleanup(shutil.rmtree, tmp, True)
        db = os.path.join(tmp, "p.db")
        r = record(db, [workload("fork_counts")], ["--calls", "--cache-use"])
        self.assertEqual(r.returncode, 0, r.stderr)
        children = glob.glob(os.path.join(tmp, "p.*.db"))
        self.assertEqual(len(children), 1)
        for p in (db, children[0]):
            roots = query(p, "SELECT SUM(Dr), SUM(Dw), SUM(Lat) FROM call_arc"
                          " WHERE kind != 'call'")[0]
            self.assertEqual(roots, query(p, "SELECT SUM(Dr), SUM(Dw), SUM(Lat) FROM cost")[0])
            broots = query(p, "SELECT level, SUM(SpLoss), SUM(AcCost) FROM call_use"
                           " WHERE kind != 'call' GROUP BY level")
            self.assertEqual(broots, query(p, "SELECT level, SUM(SpLoss), SUM(AcCost)"
                                              " FROM cache_use GROUP BY level"))
        self.assertEqual(cost(children[0], "cost", "child_data", "Dr"), 512)
