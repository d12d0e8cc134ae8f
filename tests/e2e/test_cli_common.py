"""Helpers shared by the front-end tests (test_cli_*.py).  This module holds
no tests.

fixtures/two_level.raw is a hand-written raw dump whose report values are
derived here by hand; the tests compare dcprof's output with these numbers.

Hierarchy: L1 latency 4, L2 latency 14, memory 200.  Every cost line obeys
Lat = (L1 hits)*4 + (L1 misses that hit L2)*14 + (L2 misses)*200.

  line  bucket     loc (function file:line)  thr    Dr    Dw D1mr D1mw D2mr D2mw    Lat
  A     arr_a      0 (main a.c:10)           1    1000     0  100    0   10    0   6860 = 900*4 + 90*14 + 10*200
  B     arr_a      1 (main a.c:11)           1       0   500    0   50    0   50  11800 = 450*4 + 50*200
  C     list-main  2 (walk b.c:20)           1    2000  1000  200  100    0    0  15000 = 2700*4 + 300*14
  D     list-main  2 (walk b.c:20)           2     100     0  100    0  100    0  20000 = 100*200
  E     EVIL       0 (main a.c:10)           1      10    10    0    0    0    0     80 = 20*4

MissLat = Lat - (Dr + Dw - D1mr - D1mw) * 4:
  A 6860-3600=3260  B 11800-1800=10000  C 15000-10800=4200  D 20000-0=20000  E 80-80=0

By object (sum over lines):
  list-main  C+D  Dr 2100 Dw 1000 D1mr 300 D1mw 100 DLmr 100 DLmw  0 Lat 35000 MissLat 24200
  arr_a      A+B  Dr 1000 Dw  500 D1mr 100 D1mw  50 DLmr  10 DLmw 50 Lat 18660 MissLat 13260
  EVIL       E    Dr   10 Dw   10 all misses 0                        Lat    80 MissLat     0
  total           Dr 3110 Dw 1510 D1mr 400 D1mw 150 DLmr 110 DLmw 50 Lat 53740 MissLat 37460
MissLatPct: list-main 24200/37460 = 64.60%, arr_a 13260/37460 = 35.40%, EVIL 0
MissPct (of 550 L1 misses): list-main 400/550 = 72.73%, arr_a 150/550 = 27.27%
LatPerMiss: list-main 24200/400 = 60.5, arr_a 13260/150 = 88.4, EVIL none (no misses)
Whole profile: L1 accesses 4620, misses 550 (hit 88.10%); L2 accesses 550,
misses 160 (hit 70.91%); memory accesses 160; MissLat per L1 miss 37460/550 = 68.11.

By function: walk b.c = C+D (MissLat 24200); main a.c = A+B+E (Lat 18740,
  Dr 1010, Dw 510, D1 150: MissLat 18740 - 1370*4 = 13260).
By line: b.c:20 walk 24200; a.c:11 main = B 10000; a.c:10 main = A+E
  (Lat 6940, Dr 1010, Dw 10, D1mr 100: 6940 - 920*4 = 3260).
--object arr_a (by line): a.c:11 10000 (75.41% of 13260, Miss% 50/150 = 33.33),
  a.c:10 3260 (24.59%, Miss% 66.67).
--thread (by object): list-main/2 20000, arr_a/1 13260, list-main/1 4200, EVIL/1 0.

Stats (bstat lines): arr_a 1 block 4096 B; list-main 10 blocks, max live 5 /
500 B, total 1000 B, sizes 50..200, avg 100; EVIL 2 blocks, max live 1 / 64 B,
total 96, sizes 32..64, avg 48; "grid 100%" 1 block of 64; [stack] none.
Totals: 14 blocks, 5256 bytes.

EVIL is the bucket named  evil,"q" LF ESC [31m 0xFF é  (escaped in the dump as
evil,"q"%0A%1B[31m%FFé).

fixtures/sampled_evict.raw is a hand-written version 2 dump with sampled costs,
evictions, fills and residency; its numbers are derived in test_cli_sampled.py
(report --sampled, --stats), test_cli_accuracy.py and test_cli_evictions.py.

fixtures/reuse.raw is a hand-written version 3 dump with exact reuse
histograms; its trace and numbers are derived in test_cli_reuse.py (reuse,
finalize of the reuse records) and test_cli_mrc.py.
"""
import os
import re
import sqlite3
import subprocess

from harness import DCPROF, ROOT, TmpDirTest, run

FIXTURES = os.path.join(ROOT, "tests", "e2e", "fixtures")
TWO_LEVEL = os.path.join(FIXTURES, "two_level.raw")
SAMPLED_EVICT = os.path.join(FIXTURES, "sampled_evict.raw")
REUSE = os.path.join(FIXTURES, "reuse.raw")
TRACE = os.path.join(FIXTURES, "trace.raw")
EVIL = b'evil,"q"\n\x1b[31m\xff\xc3\xa9'
EVIL_TEXT = 'evil,"q"\\x0a\\x1b[31m\\xffé'          # as text output shows it
EVIL_JSON = EVIL_TEXT                               # JSON value after parsing
EVIL_CSV = EVIL_TEXT                                # CSV cell after parsing

OBJECT_ROWS = {
    # bucket: (MissLat, MissLatPct, MissPct, LatPerMiss, Lat, Dr, Dw, D1mr, D1mw, DLmr, DLmw)
    "list-main": (24200, 64.60, 72.73, 60.5, 35000, 2100, 1000, 300, 100, 100, 0),
    "arr_a": (13260, 35.40, 27.27, 88.4, 18660, 1000, 500, 100, 50, 10, 50),
    EVIL_JSON: (0, 0.0, 0.0, None, 80, 10, 10, 0, 0, 0, 0),
}
METRICS = ["MissLat", "MissLatPct", "MissPct", "LatPerMiss", "Lat", "Dr", "Dw",
           "D1mr", "D1mw", "DLmr", "DLmw"]
TOTALS = dict(zip(METRICS, (37460, 100.0, 100.0, 37460 / 550, 53740, 3110, 1510, 400, 150,
                            110, 50)))


def makefile_version():
    with open(os.path.join(ROOT, "Makefile")) as f:
        return re.search(r"^VERSION\s*:=\s*(\S+)", f.read(), re.M).group(1)


def run_bytes(args, **kw):
    """Like harness.run, but stdout and stderr stay bytes."""
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def query_bytes(db, sql, *params):
    """Rows with TEXT as bytes, so names that are not UTF-8 survive."""
    con = sqlite3.connect(db)
    con.text_factory = bytes
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def meta(db):
    con = sqlite3.connect(db)
    try:
        return dict(con.execute("SELECT key, value FROM meta"))
    finally:
        con.close()


def text_rows(out, first_col):
    """The table rows of a text report: {first cell: [cells]} for lines after
    the header line that starts with first_col; cells split on 2+ spaces."""
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.split()[:1] == [first_col])
    rows = {}
    for l in lines[start + 1:]:
        if not l or l.startswith("("):
            break
        cells = [c.strip() for c in l.split("  ") if c.strip()]
        rows[cells[0]] = cells
    return rows


def read_text(path):
    with open(path) as f:
        return f.read()


def downgrade(db, version, statements):
    """Runs statements on db and marks it as schema version VERSION."""
    con = sqlite3.connect(db)
    try:
        for sql in statements:
            con.execute(sql)
        con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
        con.execute("PRAGMA user_version = %d" % version)
        con.commit()
    finally:
        con.close()


def downgrade_to_v8(db):
    """Turns a profile into schema version 8: version 9 minus its columns
    (versions 7 and 8 only add tables, which older readers ignore)."""
    downgrade(db, 8, ["ALTER TABLE location DROP COLUMN %s" % col
                      for col in ("outer_function", "outer_file", "outer_line")])


def downgrade_to_v5(db):
    """Turns a profile into schema version 5: version 6 minus its column."""
    downgrade_to_v8(db)
    downgrade(db, 5, ["ALTER TABLE location DROP COLUMN inlined_into"])


def downgrade_to_v4(db):
    """Turns a profile into schema version 4: version 5 minus its columns."""
    downgrade_to_v5(db)
    downgrade(db, 4, ["ALTER TABLE %s DROP COLUMN Evicted" % table
                      for table in ("cache_use", "call_use")])


def downgrade_to_v3(db):
    """Turns a profile into schema version 3: version 4 minus its tables."""
    downgrade_to_v4(db)
    downgrade(db, 3, ["DROP TABLE %s" % table for table in ("cache_use", "call_arc", "call_use")])


def downgrade_to_v2(db):
    """Turns a profile into schema version 2: version 3 minus its tables."""
    downgrade_to_v3(db)
    downgrade(db, 2, ["DROP TABLE %s" % table
                      for table in ("reuse_hist", "reuse_first", "reuse_pair")])


def downgrade_to_v1(db):
    """Turns a profile into schema version 1: version 2 minus its tables."""
    downgrade_to_v2(db)
    downgrade(db, 1, ["DROP TABLE %s" % table
                      for table in ("cost_sampled", "eviction", "level_fill", "residency")])


class CliTest(TmpDirTest):
    def finalize(self, raw, out="p.db", *opts):
        """dcprof finalize RAW -o OUT; returns (CompletedProcess, db path)."""
        db = self.path(out)
        return run([DCPROF, "finalize", raw, "-o", db] + list(opts)), db

    def profile(self, raw=TWO_LEVEL):
        r, db = self.finalize(raw)
        self.assertEqual(r.returncode, 0, r.stderr)
        return db

    def write(self, name, data):
        path = self.path(name)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    def run_dcprof(self, *args):
        """dcprof ARGS, which must succeed; returns stdout (bytes that are not
        UTF-8 as surrogates, as in CSV)."""
        r = run([DCPROF] + list(args), errors="surrogateescape")
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def assertError(self, r, prefix, message):
        """Exit status 2 and exactly one line on stderr: PREFIX: ...MESSAGE..."""
        err = r.stderr if isinstance(r.stderr, str) else r.stderr.decode("utf-8", "replace")
        self.assertEqual(r.returncode, 2, "stderr: %r" % err)
        self.assertTrue(err.endswith("\n") and err.count("\n") == 1,
                        "not exactly one line: %r" % err)
        self.assertTrue(err.startswith(prefix + ": "), err)
        self.assertIn(message, err)
