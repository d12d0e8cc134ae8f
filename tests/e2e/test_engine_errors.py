"""End-to-end tests of programs that end badly: a crash, abort, SIGTERM,
SIGINT, SIGKILL, exit from a signal handler, a non-zero exit code.  The profile
of what ran must still be written (marked incomplete when the program was
killed; after SIGKILL, from the engine's last checkpoint) and
`dcprof record` passes the program's exit status through (128 + signal when
killed).  Workloads segv.c and sigterm.c."""
import os
import shutil
import signal
import tempfile
import unittest

from test_engine_common import (CACHE_2, DCPROF, buckets, meta, record, report_json,
                                record_killed, run, totals, two_checkpoints_later,
                                workload)

WORDS = (1 << 20) // 8
LINES = (1 << 20) // 64


class Ending(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-end-")
        self.db = os.path.join(self.tmp, "p.db")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check_profile(self, bucket, complete, status, reason_has=None):
        self.assertTrue(os.path.exists(self.db), "no profile written")
        self.assertFalse(os.path.exists(self.db + ".tmp"), "temporary profile left behind")
        m = meta(self.db)
        self.assertEqual(m.get("complete"), complete, m)
        self.assertEqual(m.get("exit_status"), status, m)
        if reason_has:
            self.assertIn(reason_has, m.get("incomplete_reason", ""), m)
        t = totals(self.db, bucket=bucket)
        self.assertEqual(t["Dr"], WORDS, "work done before the end: %s" % t)
        self.assertEqual(t["D1mr"], LINES, t)
        # readable by the front end
        report_json(self.db)

    def test_segv(self):
        r = record(self.db, [workload("segv")], [CACHE_2])
        self.assertEqual(r.returncode, 128 + signal.SIGSEGV, r.stderr)
        self.check_profile("crash_arr", "0", "signal 11", "11")

    def test_abort(self):
        r = record(self.db, [workload("segv"), "abort"], [CACHE_2])
        self.assertEqual(r.returncode, 128 + signal.SIGABRT, r.stderr)
        self.check_profile("crash_arr", "0", "signal 6", "6")

    def test_exit_code_passed_through(self):
        r = record(self.db, [workload("segv"), "exit"], [CACHE_2])
        self.assertEqual(r.returncode, 7, r.stderr)
        self.check_profile("crash_arr", "1", "exit 7")
        self.assertEqual(meta(self.db).get("exit_code"), "7")

    def test_raise_sigterm(self):
        r = record(self.db, [workload("sigterm")], [CACHE_2])
        self.assertEqual(r.returncode, 128 + signal.SIGTERM, r.stderr)
        self.check_profile("term_arr", "0", "signal 15", "15")

    def test_exit_from_handler(self):
        r = record(self.db, [workload("sigterm"), "handler"], [CACHE_2])
        self.assertEqual(r.returncode, 5, r.stderr)
        self.check_profile("term_arr", "1", "exit 5")

    def killed(self, sig, mode="wait", options=(), before_kill=None):
        """Start sigterm.c in MODE, send SIG to the program once it has done
        its work (and before_kill(pid) has returned), return dcprof record's
        exit status and stderr."""
        return record_killed(self.db, [CACHE_2] + list(options), [workload("sigterm"), mode],
                             sig, self.tmp, before_kill)

    def two_checkpoints_later(self, pid):
        """Wait until the checkpoint has been replaced twice: the second one
        to appear after "ready" was started after the program's work."""
        seen = two_checkpoints_later(self.tmp, pid)
        self.assertEqual(len(seen), 3, "fewer than two checkpoints in 60 s: %r" % seen)

    def test_killed_by_sigkill_after_checkpoints(self):
        # the engine's dump is never finished: the profile is the last
        # checkpoint, which holds all of term_arr's reads (the spin loop
        # after "ready" makes no data access)
        rc, err = self.killed(signal.SIGKILL, "spin", ["--checkpoint=0.2", "--checkpoint-budget=100"],
                              self.two_checkpoints_later)
        self.assertEqual(rc, 128 + signal.SIGKILL, err)
        self.check_profile("term_arr", "0", "signal 9")
        m = meta(self.db)
        self.assertRegex(m["incomplete_reason"], r"^killed by signal 9 \(SIGKILL\); profile of"
                         r" the run up to the checkpoint at \d+\.\d s$")
        # the checkpoint was taken at least two periods after the start
        self.assertGreaterEqual(int(m["checkpoint_ms"]), 400)
        self.assertEqual(os.listdir(self.tmp), ["p.db"], "temporary files left behind")

    def test_killed_by_sigterm(self):
        rc, err = self.killed(signal.SIGTERM)
        self.assertEqual(rc, 128 + signal.SIGTERM, err)
        self.check_profile("term_arr", "0", "signal 15", "15")

    def test_killed_by_sigint(self):
        rc, err = self.killed(signal.SIGINT)
        self.assertEqual(rc, 128 + signal.SIGINT, err)
        self.check_profile("term_arr", "0", "signal 2", "2")


class IncompleteReport(unittest.TestCase):
    """The text report of an incomplete profile says so."""

    def test_text_report_says_incomplete(self):
        tmp = tempfile.mkdtemp(prefix="dcprof-end-")
        try:
            db = os.path.join(tmp, "p.db")
            record(db, [workload("segv")], [CACHE_2])
            r = run([DCPROF, "report", db])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("incomplete", (r.stdout + r.stderr).lower())
            self.assertIn("crash_arr", r.stdout)
            self.assertIn("crash_arr", buckets(db))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
