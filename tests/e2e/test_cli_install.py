"""make install: the installed dcprof finds its engine (PREFIX/bin/dcprof and
PREFIX/lib/dcprof), the man pages are the help texts and render; help texts
cite their sources by author and title, never by the seeds/ file names."""
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import unittest

from harness import DCPROF, ROOT, perf_ok, run, workload

CACHE = "--cache=L1=32K:8:64,L2=1M:16:64"


def commands():
    r = run([DCPROF, "help", "--commands"])
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls._td = tempfile.TemporaryDirectory(prefix="dcprof-install-")
        cls.prefix = os.path.join(cls._td.name, "usr")
        r = subprocess.run(["make", "-s", "-C", ROOT, "install", "PREFIX=" + cls.prefix],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert r.returncode == 0, r.stdout
        cls.env = {k: v for k, v in os.environ.items() if k != "DCPROF_LIB"}

    @classmethod
    def tearDownClass(cls):
        cls._td.cleanup()

    def test_layout(self):
        p = self.prefix
        for f in ("bin/dcprof", "lib/dcprof/dcprof-amd64-linux", "lib/dcprof/dcprof-native.so",
                  "include/dcprof.h",
                  "share/man/man1/dcprof.1", "share/doc/dcprof/cli.md"):
            self.assertTrue(os.path.exists(os.path.join(p, f)), f)
        # the engine observes the program's malloc: no preload object, so
        # the program starts as under Cachegrind; one directory for all modes
        self.assertFalse(os.path.exists(os.path.join(p, "lib/dcprof",
                                                     "vgpreload_dcprof-amd64-linux.so")))
        self.assertFalse(os.path.exists(os.path.join(p, "lib/dcprof-compat")))
        for c in commands():
            self.assertTrue(os.path.exists(os.path.join(p, "share/man/man1",
                                                        "dcprof-%s.1" % c)), c)

    def test_installed_record(self):
        """The installed binary runs the installed engine, the compat one too."""
        for opts in ([], ["--cachegrind-compat"]):
            db = os.path.join(self._td.name, "p%d.db" % len(opts))
            r = subprocess.run([os.path.join(self.prefix, "bin", "dcprof"), "record", "-q",
                                CACHE, "-o", db] + opts + ["--", workload("annot_hot")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=self.env, cwd=self._td.name)
            self.assertEqual(r.returncode, 0, r.stderr)
            con = sqlite3.connect(db)
            dr = con.execute("SELECT SUM(c.Dr) FROM cost c JOIN bucket b ON b.id = c.bucket"
                             " WHERE b.name = 'rows_a'").fetchone()[0]
            con.close()
            # annot_hot.c: 3 sweeps of 65,536 reads; fill() only writes.
            self.assertEqual(dr, 3 * 65536)

    def test_installed_native(self):
        """The installed binary preloads the installed native runtime."""
        if not perf_ok():
            self.skipTest("perf_event_paranoid > 2: no software sampling")
        db = os.path.join(self._td.name, "native.db")
        r = subprocess.run([os.path.join(self.prefix, "bin", "dcprof"), "record", "-q",
                            "--engine=native", "--event=pagefault", "-o", db, "--",
                            workload("first_touch")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=self.env, cwd=self._td.name)
        self.assertEqual(r.returncode, 0, r.stderr)
        con = sqlite3.connect(db)
        pages = con.execute("SELECT SUM(f.pages) FROM first_touch f JOIN bucket b"
                            " ON b.id = f.bucket WHERE b.name = 'a'").fetchone()[0]
        con.close()
        # first_touch.c: a is a page-aligned 8 MiB global, 2048 pages
        self.assertEqual(pages, 2048)

    def page(self, name):
        return os.path.join(self.prefix, "share", "man", "man1", name + ".1")

    def test_man_pages_render(self):
        for c in [None] + commands():
            name = "dcprof" if c is None else "dcprof-" + c
            with open(self.page(name)) as f:
                roff = f.read()
            self.assertTrue(roff.startswith(".TH %s 1 " % name.upper()), name)
            if shutil.which("man"):
                r = subprocess.run(["man", "-l", self.page(name)], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True,
                                   env=dict(os.environ, MANWIDTH="100", MAN_KEEP_FORMATTING=""))
                self.assertEqual(r.returncode, 0, r.stderr)
                text = re.sub(r".\x08", "", r.stdout)
                self.assertIn("NAME", text)
                self.assertRegex(text, r"\n\s+%s - \S" % re.escape(name))
                self.assertIn("SYNOPSIS", text)
            if shutil.which("groff"):
                r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", self.page(name)],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.assertEqual(r.stderr, "", name)

    def test_man_page_is_the_help(self):
        """Every option line of 'dcprof help report' is in the rendered page."""
        if not shutil.which("man"):
            self.skipTest("man is not installed; the roff text is checked in"
                          " test_man_pages_render")
        r = subprocess.run(["man", "-l", self.page("dcprof-report")], stdout=subprocess.PIPE,
                           text=True, env=dict(os.environ, MANWIDTH="120"))
        text = re.sub(r".\x08", "", r.stdout)
        help_text = run([DCPROF, "help", "report"]).stdout
        for line in help_text.splitlines():
            if line.startswith("  -"):
                self.assertIn(line.strip(), text)
        self.assertIn("--show COLUMNS", text)

    def test_uninstall(self):
        prefix = os.path.join(self._td.name, "other")
        for target in ("install", "uninstall"):
            r = subprocess.run(["make", "-s", "-C", ROOT, target, "PREFIX=" + prefix],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            self.assertEqual(r.returncode, 0, r.stdout)
        left = [os.path.join(d, f) for d, _, fs in os.walk(prefix) for f in fs]
        self.assertEqual(left, [])


class HelpTexts(unittest.TestCase):
    def test_no_seed_paths(self):
        for c in commands():
            r = run([DCPROF, "help", c])
            self.assertEqual(r.returncode, 0, c)
            self.assertNotIn("seeds/", r.stdout, c)

    def test_footprint_symbols_explained(self):
        out = run([DCPROF, "help", "footprint"]).stdout
        # Each symbol footprint prints starts a line of the explanation and is
        # followed by words.
        for sym in ("rho", "A", "A_const %", "F", "dF", "F_str %,", "D", "D inter",
                    "records", "MAPE"):
            self.assertRegex(out, r"\n  %s +[A-Za-z]" % re.escape(sym), sym)
        self.assertIn("Fixing Amdahl's Law within the Limits of Accelerated Systems", out)

    def test_hidden_man_mode(self):
        r = run([DCPROF, "help", "--man", "nosuch"])
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "dcprof: unknown command 'nosuch'; see 'dcprof --help'\n")
        r = run([DCPROF, "help", "--man", "report"])
        self.assertIn("\\-\\-show COLUMNS", r.stdout)


if __name__ == "__main__":
    unittest.main()
