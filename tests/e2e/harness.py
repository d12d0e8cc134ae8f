"""Shared helpers for the end-to-end tests: paths, running dcprof, reading
profiles with Python's own sqlite3 module (independent of dcprof report)."""
import json
import os
import sqlite3
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(ROOT, "build")
DCPROF = os.path.join(BUILD, "bin", "dcprof")

# What this dcprof writes (docs/schema.md, docs/raw-dump.md).
SCHEMA_VERSION = 9
RAW_VERSION = 10
# What finalize reads.
RAW_READ_VERSION = 10
WORKLOADS = os.path.join(BUILD, "w")


def perf_ok():
    """Software perf events (page faults, cpu-clock) are allowed here:
    perf_event_paranoid <= 2 lets a process sample its own threads'
    user-space events."""
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            return int(f.read()) <= 2
    except (OSError, ValueError):
        return False


def workload(name):
    return os.path.join(WORKLOADS, name)


def run(args, **kw):
    """Run a command, capture text output; never raises on non-zero exit."""
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, **kw)


class TmpDirTest(unittest.TestCase):
    """A test case with a private temporary directory in self.tmp."""

    def setUp(self):
        self._td = tempfile.TemporaryDirectory(prefix="dcprof-test-")
        self.tmp = self._td.name

    def tearDown(self):
        self._td.cleanup()

    def path(self, name):
        return os.path.join(self.tmp, name)

    def record(self, prog_args, opts=(), out="p.db", check=True):
        """dcprof record OPTS -o OUT -- PROG_ARGS; returns (CompletedProcess, db path)."""
        db = self.path(out)
        r = run([DCPROF, "record", "-q", "-o", db] + list(opts) + ["--"] + list(prog_args))
        if check:
            self.assertTrue(os.path.exists(db), "no profile written: %s" % r.stderr)
        return r, db

    def report_json(self, db, *opts):
        r = run([DCPROF, "report", db, "--format", "json"] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)


def query(db, sql, *params):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def bucket_totals(db):
    """{bucket name: {column: sum}} straight from the profile's cost table."""
    cols = ["Dr", "Dw", "D1mr", "D1mw", "D2mr", "D2mw", "D3mr", "D3mw", "D4mr", "D4mw", "Lat"]
    rows = query(db, "SELECT b.name, " + ", ".join("SUM(c.%s)" % c for c in cols) +
                 " FROM cost c JOIN bucket b ON b.id = c.bucket GROUP BY b.id")
    return {r[0]: dict(zip(cols, r[1:])) for r in rows}
