"""dcprof record follows exec: every image a process runs gets a profile of
its own, written whole when it execs, and a failed exec loses nothing
(docs/engine.md, "Exec"; docs/cli.md, "Profiles").  The numbers are derived
in tests/workloads/exec_work.c and exec_fail.c."""
import glob
import os
import re
import shutil
import stat
import subprocess
import tempfile
import unittest

from test_engine_common import CACHE_2, LAT, meta, query, run, totals, workload
from harness import DCPROF

WORK = workload("exec_work")


def counts(db, bucket):
    t = totals(db, bucket=bucket)
    return (t["Dr"], t["Dw"])


class ExecTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-exec-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def record(self, prog, opts=()):
        """dcprof record -o TMP/p.db (not quiet: its notes are checked)."""
        return run([DCPROF, "record", "-o", self.path("p.db"), CACHE_2, LAT] + list(opts) +
                   ["--"] + prog)

    def profiles(self):
        return sorted(glob.glob(self.path("*.db")))

    def assertNothingKilled(self, r):
        self.assertNotIn("killed", r.stderr)
        for db in self.profiles():
            self.assertEqual(meta(db)["complete"], "1", db)


class ExecThroughEnv(ExecTest):
    def test_profile_is_the_execd_program(self):
        trace = self.path("t.%p")
        r = self.record(["env", "FOO=1", WORK, "a", "5", "FOO"],
                        ["--trace-window=16", "--trace-out=" + trace])
        # exec_work exits 99 when FOO=1 did not reach it
        self.assertEqual(r.returncode, 5, r.stderr)
        self.assertNothingKilled(r)
        db = self.path("p.db")
        m = meta(db)
        self.assertEqual((m["program"], m["command"]), (WORK, WORK + " a 5 FOO"))
        self.assertEqual(m["exit_status"], "exit 5")
        self.assertEqual(counts(db, "work_a"), (1024, 0))
        self.assertEqual(counts(db, "work_b"), (0, 0))
        # the report's header names the command of that image
        rep = run([DCPROF, "report", db])
        self.assertIn("command:  %s a 5 FOO\n" % WORK, rep.stdout)
        # env's own image, written whole before its exec
        pid = int(m["pid"])
        env_db = self.path("p.%d.1-env.db" % pid)
        self.assertEqual(self.profiles(), sorted([db, env_db]))
        em = meta(env_db)
        self.assertEqual((em["complete"], em["exec"]), ("1", WORK))
        self.assertNotIn("exit_status", em)
        self.assertEqual(counts(env_db, "work_a"), (0, 0))
        # each image's sampled trace: the one before the exec set aside
        for f in (trace.replace("%p", str(pid)), trace.replace("%p", str(pid)) + ".1"):
            with open(f) as t:
                self.assertEqual(t.readline(), "dcprof-trace 1\n", f)


class ExecFromShell(ExecTest):
    def test_both_programs_complete(self):
        r = self.record(["sh", "-c", "%s a 0 && %s b 0" % (WORK, WORK)])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNothingKilled(r)
        by_command = {meta(db)["command"]: db for db in self.profiles()}
        a, b = by_command[WORK + " a 0"], by_command[WORK + " b 0"]
        self.assertEqual((counts(a, "work_a"), counts(a, "work_b")), ((1024, 0), (0, 0)))
        self.assertEqual((counts(b, "work_a"), counts(b, "work_b")), ((0, 0), (512, 0)))
        for db in (a, b):
            self.assertEqual(meta(db)["exit_status"], "exit 0")
        # a forked child that exec'd: its images are named after their programs
        self.assertRegex(os.path.basename(a), r"^p\.\d+\.2-exec_work\.db$")


class ExecFails(ExecTest):
    """exec_fail's execve fails; it goes on and its profile has all of its
    run, exactly once: the dump written for the exec was put back."""
    OPTS = ["--heap-names=fn:1", "--calls", "--cache-use", "--evictions"]

    def check_image(self, db):
        self.assertEqual(counts(db, "fail_before"), (256, 0))
        self.assertEqual(counts(db, "fail_after"), (128, 0))
        # heap buckets are named by the allocating function and its line
        # (docs/engine.md, "Heap bucket names")
        (alloc,), = query(db, "SELECT name FROM bucket WHERE name LIKE 'fail_alloc (exec_fail.c:%)'")
        self.assertEqual(counts(db, alloc), (512, 512))
        self.assertEqual(query(db, "SELECT COUNT(*), SUM(size) FROM block b JOIN bucket k"
                               " ON k.id = b.bucket WHERE k.name = ?", alloc), [(1, 4096)])
        # finishing the dump for the exec charged nothing to the process:
        # the call roots still add up to its costs, once
        roots = query(db, "SELECT SUM(Dr), SUM(Dw), SUM(Lat) FROM call_arc WHERE kind != 'call'")
        self.assertEqual(roots, query(db, "SELECT SUM(Dr), SUM(Dw), SUM(Lat) FROM cost"))
        broots = query(db, "SELECT level, SUM(SpLoss), SUM(AcCost) FROM call_use"
                       " WHERE kind != 'call' GROUP BY level")
        self.assertEqual(broots, query(db, "SELECT level, SUM(SpLoss), SUM(AcCost)"
                                           " FROM cache_use GROUP BY level"))

    def test_goes_on_with_one_profile(self):
        trace = self.path("t.trace")
        r = self.record([workload("exec_fail")],
                        self.OPTS + ["--trace-window=16", "--trace-out=" + trace])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNothingKilled(r)
        db = self.path("p.db")
        self.assertEqual(self.profiles(), [db])
        m = meta(db)
        self.assertEqual(m["exit_status"], "exit 0")
        self.assertNotIn("exec", m)
        self.check_image(db)
        # the trace file was cut back too: every access once, in time order
        with open(trace) as f:
            times = [int(line.split()[2]) for line in f if line.startswith("a ")]
        self.assertEqual(times, sorted(set(times)))
        self.assertEqual(len(times), query(db, "SELECT COUNT(*) FROM trace_access")[0][0])

    def test_then_execs(self):
        r = self.record([workload("exec_fail"), WORK], self.OPTS)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNothingKilled(r)
        db = self.path("p.db")
        self.assertEqual(counts(db, "work_b"), (512, 0))
        before = self.path("p.%s.1-exec_fail.db" % meta(db)["pid"])
        self.assertEqual(self.profiles(), sorted([db, before]))
        self.assertEqual(meta(before)["exec"], WORK)
        self.check_image(before)


class ExecStatic(ExecTest):
    def test_static_program_is_followed(self):
        static = workload("exec_work_static")
        r = self.record(["sh", "-c", "%s b 3" % static])
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertNothingKilled(r)
        dbs = [db for db in self.profiles() if meta(db)["program"] == static]
        self.assertEqual(len(dbs), 1, r.stderr)
        self.assertEqual(counts(dbs[0], "work_b"), (512, 0))
        # its own malloc is observed like any program's: nothing to note
        self.assertNotIn("statically linked", r.stderr)


class ExecUnreadable(ExecTest):
    """A program that may be executed but not read: Valgrind cannot load
    it.  Run as an unprivileged user (root reads everything)."""

    def setUp(self):
        super().setUp()
        self.as_user = []
        if os.geteuid() == 0:
            if not shutil.which("setpriv"):
                self.skipTest("running as root without setpriv to drop privileges")
            self.as_user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        os.chmod(self.tmp, 0o777)
        self.prog = self.path("unreadable")
        shutil.copy(WORK, self.prog)
        os.chmod(self.prog, stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        if run(self.as_user + ["cat", self.prog]).returncode == 0:
            self.skipTest("cannot make a file unreadable here")
        if run(self.as_user + [DCPROF, "--version"]).returncode != 0:
            self.skipTest("the unprivileged user cannot run %s" % DCPROF)

    def test_program_itself(self):
        r = run(self.as_user + [DCPROF, "record", "-o", self.path("p.db"), "--",
                                self.prog, "a", "0"])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "dcprof record: cannot run program '%s' under Valgrind:"
                         " Permission denied (Valgrind must read the program)\n" % self.prog)
        self.assertEqual(self.profiles(), [])

    def test_execd_by_a_shell(self):
        r = run(self.as_user + [DCPROF, "record", "-o", self.path("p.db"), "--",
                                "sh", "-c", "%s a 0" % self.prog])
        # the shell reports the failed exec (126); the engine says why
        self.assertEqual(r.returncode, 126, r.stderr)
        self.assertRegex(r.stderr, r"dcprof: cannot exec '%s' under Valgrind: the program is"
                         r" not readable, so execve fails with EACCES\n" % re.escape(self.prog))
        self.assertNothingKilled(r)
        self.assertIn(self.path("p.db"), self.profiles())


if __name__ == "__main__":
    unittest.main()
