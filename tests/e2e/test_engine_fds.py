"""The engine's files live outside the program's descriptors: a program that
closes what it inherited and opens a log file of its own gets that file to
itself, and the profile is still written (tests/workloads/fd_close.c derives
the numbers)."""
import os
import shutil
import tempfile
import unittest

from test_engine_common import CACHE_2, LAT, meta, run, totals, workload
from harness import DCPROF

LOG_LINE = b"fd_close log line\n"


class ClosesInheritedDescriptors(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-fds-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def check(self, first, opts=()):
        db, log = os.path.join(self.tmp, "p.db"), os.path.join(self.tmp, "app.log")
        r = run([DCPROF, "record", "-q", "-o", db, CACHE_2, LAT] + list(opts) +
                ["--", workload("fd_close"), str(first), log])
        with open(log, "rb") as f:
            self.assertEqual(f.read(), LOG_LINE, "the log holds more than its line")
        self.assertEqual(r.returncode, 7, r.stderr)
        self.assertEqual(r.stderr, "")
        m = meta(db)
        self.assertEqual((m["complete"], m["exit_status"]), ("1", "exit 7"))
        got = totals(db, bucket="fd_arr")
        self.assertEqual((got["Dr"], got["Dw"]), (1024, 0))
        return db

    def test_closes_3_to_1023(self):
        # the log gets descriptor 3, where the dump was opened
        self.check(3)

    def test_closes_0_to_1023(self):
        # stdin, stdout and stderr too: the log gets descriptor 0
        self.check(0)

    def test_trace_file_too(self):
        trace = os.path.join(self.tmp, "t.trace")
        self.check(3, ["--trace-window=16", "--trace-out=" + trace])
        with open(trace) as f:
            self.assertEqual(f.readline(), "dcprof-trace 1\n")


if __name__ == "__main__":
    unittest.main()
