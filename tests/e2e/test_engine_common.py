"""Helpers shared by the engine tests (test_engine_*.py,
test_cachegrind_*.py).  This module holds no tests.

The engine tests run a workload from tests/workloads once per class under
`dcprof record` with an explicit cache hierarchy (so results do not depend on
the host), then compare the profile's tables with the numbers derived in the
workload's header comment."""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest

import harness
from harness import DCPROF, ROOT, query, run, workload

WORKLOAD_SRC = os.path.join(ROOT, "tests", "workloads")

# Two levels, both smaller than the streamed arrays of the workloads.
CACHE_2 = "--cache=L1=32K:8:64,L2=1M:16:64"
LAT = "--latency=L1=4,L2=14,MEM=200"
L1_LAT, L2_LAT, MEM_LAT = 4, 14, 200

COLS = ["Dr", "Dw", "D1mr", "D1mw", "D2mr", "D2mw", "D3mr", "D3mw", "D4mr", "D4mw", "Lat"]


def marker_line(src, tag):
    """Line number (1-based) of the line of tests/workloads/SRC that ends in
    the comment /* TAG */ (e.g. 'LINE:stack_read' or 'SITE:mem_init')."""
    path = os.path.join(WORKLOAD_SRC, src)
    with open(path) as f:
        for n, text in enumerate(f, 1):
            if re.search(r"/\*\s*%s\s*\*/" % re.escape(tag), text):
                return n
    raise AssertionError("marker %s not found in %s" % (tag, path))


def zero():
    return dict.fromkeys(COLS, 0)


def totals(db, bucket=None, function=None, line=None, thread=None):
    """Sum of the cost columns over the rows that match: bucket name,
    location function, location line, thread (any of them may be None).
    Missing rows give zeros."""
    where, params = [], []
    if bucket is not None:
        where.append("b.name = ?")
        params.append(bucket)
    if function is not None:
        where.append("l.function = ?")
        params.append(function)
    if line is not None:
        where.append("l.line = ?")
        params.append(line)
    if thread is not None:
        where.append("c.thread = ?")
        params.append(thread)
    sql = ("SELECT " + ", ".join("COALESCE(SUM(c.%s), 0)" % c for c in COLS) +
           " FROM cost c JOIN bucket b ON b.id = c.bucket"
           " JOIN location l ON l.id = c.location")
    if where:
        sql += " WHERE " + " AND ".join(where)
    row = query(db, sql, *params)[0]
    return dict(zip(COLS, row))


def use_totals(db, bucket=None, function=None, line=None, level=1):
    """(SpLoss, AcCost) summed over the cache_use rows of LEVEL that match
    bucket name, location function and line (any may be None)."""
    where, params = ["u.level = ?"], [level]
    for col, v in (("b.name", bucket), ("l.function", function), ("l.line", line)):
        if v is not None:
            where.append(col + " = ?")
            params.append(v)
    return tuple(query(db, "SELECT COALESCE(SUM(u.SpLoss), 0), COALESCE(SUM(u.AcCost), 0)"
                       " FROM cache_use u JOIN bucket b ON b.id = u.bucket"
                       " JOIN location l ON l.id = u.location WHERE " + " AND ".join(where),
                       *params)[0])


def grand_totals(db):
    return totals(db)


def buckets(db):
    """{name: {kind, blocks, max_live_blocks, ...}} from the bucket table."""
    cols = ["kind", "blocks", "max_live_blocks", "max_live_bytes", "total_bytes",
            "min_size", "max_size"]
    rows = query(db, "SELECT name, " + ", ".join(cols) + " FROM bucket")
    out = {}
    for r in rows:
        out[r[0]] = dict(zip(cols, r[1:]))
    return out


def meta(db):
    return dict(query(db, "SELECT key, value FROM meta"))


def json_rows(obj):
    """Every dict inside a parsed JSON document, depth first."""
    if isinstance(obj, dict):
        yield obj
        for v in obj.values():
            yield from json_rows(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from json_rows(v)


def json_row(doc, name, key="Dr"):
    """The row of `dcprof report --format json` that names bucket NAME and
    carries column KEY, whatever the document's nesting is."""
    for row in json_rows(doc):
        if key in row and name in row.values():
            return row
    raise AssertionError("no row for %r with %r in report: %s" %
                         (name, key, json.dumps(doc)[:2000]))


class Recorded(unittest.TestCase):
    """Records WORKLOAD ARGS with OPTS once for the class; tests read
    cls.db, cls.rec (the CompletedProcess of dcprof record)."""
    WORKLOAD = None
    ARGS = ()
    OPTS = (CACHE_2, LAT)

    @classmethod
    def setUpClass(cls):
        cls.tmpdir = tempfile.mkdtemp(prefix="dcprof-eng-")
        cls.db = os.path.join(cls.tmpdir, "p.db")
        cls.rec = record(cls.db, [workload(cls.WORKLOAD)] + list(cls.ARGS), cls.OPTS)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmpdir, ignore_errors=True)

    def setUp(self):
        if not os.path.exists(self.db):
            self.fail("dcprof record wrote no profile (exit %d): %s" %
                      (self.rec.returncode, self.rec.stderr.strip()[-2000:]))

    # -- assertions that say what was expected and why
    def assertCounts(self, got, expected, what):
        """EXPECTED: {column: exact value}."""
        diff = {k: (got[k], v) for k, v in expected.items() if got[k] != v}
        self.assertFalse(diff, "%s: (observed, expected) %s; all: %s" % (what, diff, got))


def record(db, prog_args, opts=(), env=None):
    """dcprof record -q -o DB OPTS -- PROG_ARGS."""
    return run([DCPROF, "record", "-q", "-o", db] + list(opts) + ["--"] + list(prog_args),
               env=env)


def report_json(db, *opts):
    r = run([DCPROF, "report", db, "--format", "json"] + list(opts))
    if r.returncode != 0:
        raise AssertionError("dcprof report failed (%d): %s" % (r.returncode, r.stderr))
    return json.loads(r.stdout)


__all__ = ["harness", "marker_line", "totals", "use_totals", "grand_totals", "buckets", "meta",
           "json_row", "Recorded", "record", "report_json", "CACHE_2", "LAT",
           "L1_LAT", "L2_LAT", "MEM_LAT", "zero", "query", "run", "workload"]


def checkpoint_of(tmpdir, pid):
    """(inode, mtime) of the engine's checkpoint of pid in record's
    temporary directory under tmpdir, or None."""
    for path in glob.glob(os.path.join(tmpdir, "dcprof-*", "raw.%d.ckpt" % pid)):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            continue
        return st.st_ino, st.st_mtime_ns
    return None


def record_killed(db, opts, prog_args, sig, tmpdir, before_kill=None):
    """dcprof record -q -o DB OPTS -- PROG_ARGS (sigterm.c, which prints
    "ready PID" once its work is done), with raw dumps under tmpdir; once
    before_kill(pid) has returned, SIG to the program.  Returns record's
    exit status and stderr."""
    p = subprocess.Popen([DCPROF, "record", "-q", "-o", db] + list(opts) + ["--"]
                         + list(prog_args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=dict(os.environ, TMPDIR=tmpdir))
    try:
        line = p.stdout.readline().split()
        if line[:1] != ["ready"]:
            raise AssertionError("program did not start: %r" % line)
        if before_kill:
            before_kill(int(line[1]))
        os.kill(int(line[1]), sig)
        p.wait(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        p.stdout.close()
        err = p.stderr.read()
        p.stderr.close()
    return p.returncode, err


def two_checkpoints_later(tmpdir, pid):
    """Waits (60 s at most) until pid's checkpoint has been replaced twice
    and returns the (inode, mtime) pairs seen: three when it was.  The
    engines start a checkpoint only once the last one has ended, so the
    second one to appear was started after the wait began."""
    seen = [checkpoint_of(tmpdir, pid)]
    deadline = time.monotonic() + 60
    while len(seen) < 3 and time.monotonic() < deadline:
        now = checkpoint_of(tmpdir, pid)
        if now is not None and now != seen[-1]:
            seen.append(now)
        time.sleep(0.01)
    return seen
