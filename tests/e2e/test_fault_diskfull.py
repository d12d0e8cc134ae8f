"""A full disk at each write of finalize, export and record, and two writers
of one output (base/outfile.h; docs/robustness.md).

The disk fills through RLIMIT_FSIZE with SIGXFSZ ignored: a write past the
limit fails with EFBIG, as a write to a full file system fails with ENOSPC.
The limit walks over every 64 KiB of a profile (SQLite's page size in
store/profile.c, so each step fails a different page write) and every few
hundred bytes of an export (three write calls), and each time:
  * the command says why on one line and exits 2 (record: the program's
    own exit status, and the raw dump is kept with the command that
    finalizes it);
  * the target holds what it held before ("previous" bytes), byte for byte;
  * nothing else is left in the output's directory (no temporary file).
With the limit lifted, the same command succeeds: the walk reached the end.
"""
import os
import re
import resource
import shlex
import signal
import stat
import subprocess
import threading

from harness import DCPROF, ROOT, TmpDirTest, query, workload

FIXTURES = os.path.join(ROOT, "tests", "e2e", "fixtures")
PAGE = 65536
PREVIOUS = b"previous contents, not a profile\n"
CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"


def run_limited(args, limit, env=None):
    """Run args with files limited to `limit` bytes; SIGXFSZ ignored (and
    kept ignored in the child: restore_signals would reset it)."""
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          preexec_fn=pre, restore_signals=False, env=env)


class DiskFull(TmpDirTest):

    def out_dir(self):
        d = self.path("out")
        os.makedirs(d, exist_ok=True)
        return d

    def previous(self, target):
        with open(target, "wb") as f:
            f.write(PREVIOUS)

    def assert_untouched(self, target, r, what):
        with open(target, "rb") as f:
            self.assertEqual(f.read(), PREVIOUS, "%s: target changed" % what)
        self.assertEqual(sorted(os.listdir(os.path.dirname(target))),
                         [os.path.basename(target)], "%s: files left behind" % what)

    def one_line_error(self, r, what, errno_text=None):
        """SQLite reports a failed write as "disk I/O error" without the
        system's reason (its errno is not kept); export's own writes say
        it."""
        lines = [l for l in r.stderr.splitlines() if l.startswith("dcprof")]
        self.assertTrue(lines, "%s: no message: %r" % (what, r.stderr))
        self.assertRegex(lines[0], r"^dcprof \w+: cannot write", what)
        if errno_text:
            self.assertIn(errno_text, lines[0], what)

    def test_finalize_each_page(self):
        raw = os.path.join(FIXTURES, "sampled_evict.raw")
        target = os.path.join(self.out_dir(), "p.db")
        full = self.path("full.db")
        r = subprocess.run([DCPROF, "finalize", "-q", raw, "-o", full])
        self.assertEqual(r.returncode, 0)
        size = os.path.getsize(full)
        self.assertEqual(size % PAGE, 0, "profile pages are 64 KiB")
        for limit in list(range(0, size, PAGE)) + [size - 1]:
            self.previous(target)
            r = run_limited([DCPROF, "finalize", raw, "-o", target], limit)
            what = "finalize, limit %d of %d" % (limit, size)
            self.assertEqual(r.returncode, 2, what + ": " + r.stderr)
            self.one_line_error(r, what)
            self.assertEqual(len(r.stderr.splitlines()), 1, what + ": " + r.stderr)
            self.assert_untouched(target, r, what)
        r = run_limited([DCPROF, "finalize", "-q", raw, "-o", target], size)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(query(target, "SELECT COUNT(*) FROM bucket"),
                         query(full, "SELECT COUNT(*) FROM bucket"))

    def test_export_each_write(self):
        db = self.path("p.db")
        subprocess.run([DCPROF, "finalize", "-q", os.path.join(FIXTURES, "two_level.raw"),
                        "-o", db], check=True)
        full = self.path("full.out")
        subprocess.run([DCPROF, "export", db, "--format=callgrind", "-o", full], check=True)
        size = os.path.getsize(full)
        self.assertGreater(size, 200)
        target = os.path.join(self.out_dir(), "cg.out")
        # Steps of 64 bytes cut the header, the body and the totals lines.
        for limit in list(range(0, size, 64)) + [size - 1]:
            self.previous(target)
            r = run_limited([DCPROF, "export", db, "--format=callgrind", "-o", target], limit)
            what = "export, limit %d of %d" % (limit, size)
            self.assertEqual(r.returncode, 2, what + ": " + r.stderr)
            self.one_line_error(r, what, "File too large")
            self.assertEqual(len(r.stderr.splitlines()), 1, what + ": " + r.stderr)
            self.assert_untouched(target, r, what)
        r = run_limited([DCPROF, "export", db, "--format=callgrind", "-o", target], size)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(target, "rb") as f, open(full, "rb") as g:
            self.assertEqual(f.read(), g.read())

    def test_merge_each_page(self):
        """dcprof merge of two profiles (two finalizes of one dump), the disk
        filling at each 64 KiB page of the merged profile."""
        ins = []
        for k in range(2):
            db = self.path("in%d.db" % k)
            subprocess.run([DCPROF, "finalize", "-q", os.path.join(FIXTURES, "sampled_evict.raw"),
                            "-o", db], check=True)
            ins.append(db)
        full = self.path("full.db")
        r = subprocess.run([DCPROF, "merge", "-q", "--force"] + ins + ["-o", full])
        self.assertEqual(r.returncode, 0)
        size = os.path.getsize(full)
        target = os.path.join(self.out_dir(), "m.db")
        for limit in list(range(0, size, PAGE)) + [size - 1]:
            self.previous(target)
            r = run_limited([DCPROF, "merge", "--force"] + ins + ["-o", target], limit)
            what = "merge, limit %d of %d" % (limit, size)
            self.assertEqual(r.returncode, 2, what + ": " + r.stderr)
            self.one_line_error(r, what)
            self.assertEqual(len(r.stderr.splitlines()), 1, what + ": " + r.stderr)
            self.assert_untouched(target, r, what)
        r = run_limited([DCPROF, "merge", "-q", "--force"] + ins + ["-o", target], size)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(query(target, "SELECT SUM(Dr) FROM cost"),
                         query(full, "SELECT SUM(Dr) FROM cost"))

    def test_record_keeps_the_run(self):
        """The program ran to its end: its exit status is passed through,
        the raw dump is kept, and the printed finalize command writes the
        profile once the disk has room again."""
        tmpdir = self.path("rawtmp")
        os.makedirs(tmpdir)
        env = dict(os.environ, TMPDIR=tmpdir)
        target = os.path.join(self.out_dir(), "p.db")
        full = self.path("full.db")
        prog = workload("startstop")
        # The same environment as the limited runs: the program's start-up
        # reads depend on it.
        r = subprocess.run([DCPROF, "record", "-q", "-o", full, CACHE, "--", prog],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        size = os.path.getsize(full)
        # The engine's raw dump (about 0.6 MB) must fit under the limit; the
        # profile is larger (its pages are 64 KiB).
        for limit in range(size // 2, size, 4 * PAGE):
            self.previous(target)
            r = run_limited([DCPROF, "record", "-o", target, CACHE, "--", prog], limit, env=env)
            what = "record, limit %d of %d" % (limit, size)
            self.assertEqual(r.returncode, 0, what + ": the program's exit status: " + r.stderr)
            self.one_line_error(r, what)
            self.assert_untouched(target, r, what)
            m = re.search(r"write the profile with '(dcprof finalize [^']*)'", r.stderr)
            self.assertTrue(m, what + ": no finalize command: " + r.stderr)
            self.assertIn("--exit-status=exit:0", m.group(1))
            cmd = shlex.split(m.group(1))
            self.assertEqual(cmd[-1], target)
            fin = subprocess.run([DCPROF] + cmd[1:], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            self.assertEqual(fin.returncode, 0, what + ": " + fin.stderr)
            self.assertEqual(query(target, "SELECT value FROM meta WHERE key='complete'"),
                             [("1",)], what)
            self.assertEqual(query(target, "SELECT SUM(Dr), SUM(Dw) FROM cost"),
                             query(full, "SELECT SUM(Dr), SUM(Dw) FROM cost"), what)
            os.remove(target)
            for d in os.listdir(tmpdir):
                subprocess.run(["rm", "-rf", os.path.join(tmpdir, d)])


class Outputs(TmpDirTest):
    """What -o may name, checked before anything is written."""

    def test_export_refuses_its_input(self):
        db = self.path("p.db")
        subprocess.run([DCPROF, "finalize", "-q", os.path.join(FIXTURES, "two_level.raw"),
                        "-o", db], check=True)
        with open(db, "rb") as f:
            before = f.read()
        link = self.path("link.db")
        os.symlink(db, link)
        for out in (db, link):
            r = subprocess.run([DCPROF, "export", link, "--format=callgrind", "-o", out],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("it is the input file", r.stderr)
            with open(db, "rb") as f:
                self.assertEqual(f.read(), before, "the profile was harmed")

    def test_export_never_removes_a_device(self):
        """A write error on a device must not remove it (it did: remove(path)
        deleted /dev/full).  The test makes its own node of the same device
        (char 1,7: every write fails with ENOSPC), so a regression harms
        nothing outside its directory."""
        db = self.path("p.db")
        subprocess.run([DCPROF, "finalize", "-q", os.path.join(FIXTURES, "two_level.raw"),
                        "-o", db], check=True)
        full = self.path("full")
        try:
            os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        except OSError as e:
            self.skipTest("cannot make a device node here (%s)" % e)
        r = subprocess.run([DCPROF, "export", db, "--format=callgrind", "-o", full],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("No space left on device", r.stderr)
        self.assertTrue(stat.S_ISCHR(os.stat(full).st_mode), "the device node was removed")
        r = subprocess.run([DCPROF, "export", db, "--format=callgrind", "-o", "/dev/stdout"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("# callgrind format\n"))

    def test_bad_outputs_before_the_run(self):
        """-o naming a directory, '' or a missing directory, and --trace-out
        in a missing directory, are refused before the program runs (the
        program would print its line)."""
        prog = workload("startstop")
        cases = [(["-o", self.tmp], "it is a directory"),
                 (["-o", ""], "empty file name"),
                 (["-o", self.path("none/p.db")], "No such file or directory"),
                 (["-o", self.path("p.db"), "--trace-window=100",
                   "--trace-out=" + self.path("none/t.txt")], "No such file or directory")]
        for opts, why in cases:
            r = subprocess.run([DCPROF, "record"] + opts + ["--", prog],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertEqual(r.stdout, "", "the program ran: %s" % opts)
            self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
            self.assertIn(why, r.stderr)

    def test_quiet_keep_raw_says_where(self):
        tmpdir = self.path("rawtmp")
        os.makedirs(tmpdir)
        r = subprocess.run([DCPROF, "record", "-q", "--keep-raw", "-o", self.path("p.db"),
                            CACHE, "--", workload("startstop")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, TMPDIR=tmpdir))
        self.assertEqual(r.returncode, 0, r.stderr)
        kept = os.listdir(tmpdir)
        self.assertEqual(len(kept), 1)
        self.assertIn(os.path.join(tmpdir, kept[0]), r.stderr)

    def test_two_writers_of_one_output(self):
        """Two finalize runs into one -o at the same time: each writes its own
        temporary file, so both succeed and the result is one of the two
        whole profiles (by its bucket count: 2 against 3 here), never a mix,
        and no temporary file is left.  With one fixed OUT.tmp, one process
        renamed the other's half-written file."""
        a = os.path.join(FIXTURES, "two_level.raw")
        b = os.path.join(FIXTURES, "sampled_evict.raw")
        expect = set()
        for raw in (a, b):
            subprocess.run([DCPROF, "finalize", "-q", raw, "-o", self.path("one.db")], check=True)
            expect.add(query(self.path("one.db"), "SELECT COUNT(*) FROM bucket")[0][0])
        self.assertEqual(len(expect), 2, "the two dumps must be told apart")
        out_dir = self.path("out")
        os.makedirs(out_dir)
        target = os.path.join(out_dir, "cc.db")
        for trial in range(8):
            results = {}

            def go(raw):
                results[raw] = subprocess.run([DCPROF, "finalize", raw, "-o", target],
                                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                              text=True)
            ts = [threading.Thread(target=go, args=(raw,)) for raw in (a, b)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            for raw, r in results.items():
                self.assertEqual(r.returncode, 0, "trial %d: %s" % (trial, r.stderr))
            self.assertIn(query(target, "SELECT COUNT(*) FROM bucket")[0][0], expect)
            self.assertEqual(query(target, "PRAGMA integrity_check"), [("ok",)])
            self.assertEqual(os.listdir(out_dir), ["cc.db"])
