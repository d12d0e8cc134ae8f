"""dcprof record's progress line: on a terminal (a pseudo-terminal here),
rewritten with \\r once a second with the program's name and the time it
has run, and cleared before the profile's summary; nothing with -q or when
stderr is not a terminal.  The program is sleep(1): 2.5 s of run time for
almost no simulation."""
import os
import pty
import re
import shutil
import subprocess
import unittest

from harness import DCPROF, TmpDirTest, run

CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"
SLEEP = shutil.which("sleep")


def record_on_pty(args):
    """Runs dcprof with stderr on a pseudo-terminal; returns (exit status,
    bytes the terminal got, stdout)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([DCPROF] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=slave)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:          # EIO: every slave descriptor is closed
            break
        if not chunk:
            break
        data += chunk
    out = p.stdout.read()
    p.wait()
    os.close(master)
    return p.returncode, data, out


@unittest.skipUnless(SLEEP, "no sleep program")
class Progress(TmpDirTest):
    def test_progress_on_terminal(self):
        db = self.path("p.db")
        rc, data, _ = record_on_pty(["record", CACHE, "-o", db, "--", SLEEP, "2.5"])
        self.assertEqual(rc, 0, data)
        lines = re.findall(rb"\rdcprof: running sleep, (\d+):(\d\d) elapsed", data)
        # sleep 2.5 runs at least 2 whole seconds: the lines of 0:01 and 0:02.
        self.assertGreaterEqual(len(lines), 2, data)
        secs = [int(m) * 60 + int(s) for m, s in lines]
        self.assertEqual(secs, sorted(secs))
        self.assertIn(1, secs)
        self.assertIn(2, secs)
        # The last line is blanked out (\r, as many spaces, \r) before the
        # summary line, which starts at the left margin.
        last = data.rindex(b"\rdcprof: running")
        shown = data[last + 1:].split(b"\r", 1)[0]
        clear = b"\r" + b" " * len(shown) + b"\r"
        self.assertEqual(data[last + 1 + len(shown):].find(clear), 0, data)
        summary = data.index(b"dcprof: wrote ")
        self.assertEqual(summary, last + 1 + len(shown) + len(clear))

    def test_quiet_and_not_a_terminal(self):
        rc, data, _ = record_on_pty(["record", "-q", CACHE, "-o", self.path("q.db"), "--",
                                     SLEEP, "1.5"])
        self.assertEqual(rc, 0)
        self.assertEqual(data, b"")
        r = run([DCPROF, "record", CACHE, "-o", self.path("n.db"), "--", SLEEP, "1.5"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("running", r.stderr)
        self.assertNotIn("\r", r.stderr)
        self.assertTrue(r.stderr.startswith("dcprof: wrote "), r.stderr)


if __name__ == "__main__":
    unittest.main()
