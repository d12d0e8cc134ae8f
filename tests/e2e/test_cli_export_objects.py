"""dcprof export --by-object read as KCachegrind reads it (Callgrind format,
"Name compression"): a compressed fn id names one function, which belongs
to the object it first appeared in.  So an id must never be used under two
ob= objects, or KCachegrind merges a function's costs over all buckets
into one entry under the first (column_sums: 67.77 % under <stack> instead
of 61.58 % under grid and 6.19 % under weights).

The parser below is the test's own: it follows ob=, fl=/fi=/fe=, fn= and
cost lines, keys each function by its id as KCachegrind does, and checks
the costs against the profile's cost table read with Python's sqlite3."""
import collections
import os
import re
import subprocess

from harness import DCPROF, TmpDirTest, query, workload

CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"
NAME = re.compile(r"^(ob|fl|fi|fe|fn|cob|cfi|cfl|cfn)=\((\d+)\)(?: (.*))?$")


def parse(path):
    """{fn id: set of object names it appears under}, {(object, function
    name): [Dr, Dw]}, events."""
    names = collections.defaultdict(dict)   # kind -> id -> name
    objects_of = collections.defaultdict(set)
    costs = collections.defaultdict(lambda: [0, 0])
    ob = fn = None
    events = None
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            m = NAME.match(line)
            if m:
                kind, i, name = m.group(1), int(m.group(2)), m.group(3)
                table = {"cob": "ob", "cfi": "fl", "cfl": "fl", "fi": "fl", "fe": "fl",
                         "cfn": "fn"}.get(kind, kind)
                if name is not None:
                    assert names[table].get(i, name) == name, \
                        "%s id %d names %r and %r" % (table, i, names[table][i], name)
                    names[table][i] = name
                assert i in names[table], "%s=(%d) used before it was named" % (kind, i)
                if kind == "ob":
                    ob = i
                elif kind == "fn":
                    fn = i
                    objects_of[i].add(names["ob"][ob])
                continue
            if line and line[0].isdigit() and fn is not None:
                v = [int(x) for x in line.split()[1:]]
                key = (names["ob"][ob], names["fn"][fn])
                for k in (0, 1):
                    costs[key][k] += v[k] if len(v) > k else 0
    return objects_of, costs, events


class ByObjectIds(TmpDirTest):

    def test_no_fn_id_in_two_objects(self):
        """demo.c's column_sums reads grid and weights: one function, two
        buckets, so two fn ids."""
        db = self.path("p.db")
        subprocess.run([DCPROF, "record", "-q", "-o", db, CACHE, "--", workload("demo")],
                       check=True, stdout=subprocess.DEVNULL)
        out = self.path("d.out")
        subprocess.run([DCPROF, "export", db, "--format=callgrind", "--by-object", "-o", out],
                       check=True)
        objects_of, costs, events = parse(out)
        self.assertEqual(events[:2], ["Dr", "Dw"])
        shared = {i: o for i, o in objects_of.items() if len(o) > 1}
        self.assertEqual(shared, {}, "fn ids used under several objects")
        # column_sums appears under both global buckets, with the profile's
        # own per-bucket costs.
        for bucket in ("grid", "weights"):
            ob = "%s [global]" % bucket
            want = query(db, "SELECT SUM(c.Dr), SUM(c.Dw) FROM cost c JOIN bucket b"
                             " ON b.id = c.bucket JOIN location l ON l.id = c.location"
                             " WHERE b.name = ? AND l.function = 'column_sums'", bucket)[0]
            self.assertGreater(want[0], 0, bucket)
            self.assertEqual(tuple(costs[(ob, "column_sums")]), want, bucket)
        # and every (bucket, function) pair adds up to the profile's cost
        total = query(db, "SELECT SUM(Dr), SUM(Dw) FROM cost")[0]
        self.assertEqual((sum(v[0] for v in costs.values()), sum(v[1] for v in costs.values())),
                         total)
