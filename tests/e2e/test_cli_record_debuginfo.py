"""dcprof record's hint for debug information Valgrind 3.19 reads only in
part (src/cli/debuginfo.h): clang 14's default DWARF 5 uses DW_FORM_strx*
and DW_FORM_addrx*, which 3.19 reports as "unhandled dwarf2 abbrev form".
The same program built with -gdwarf-4, or by GCC 12 (DWARF 5 without those
forms), gets no hint."""
import os
import shutil
import subprocess

from harness import DCPROF, ROOT, TmpDirTest

DEMO = os.path.join(ROOT, "examples", "demo.c")
HINT = "DWARF 5 debug information in forms Valgrind 3.19 reads only in part"


class DebugInfoHint(TmpDirTest):

    def build(self, cc, flags, name):
        if not shutil.which(cc):
            self.skipTest("%s is not installed (scripts/install-deps.sh installs it)" % cc)
        exe = self.path(name)
        subprocess.run([cc] + flags + ["-I" + os.path.join(ROOT, "include"), DEMO, "-o", exe],
                       check=True)
        return exe

    def record(self, exe, *opts):
        r = subprocess.run([DCPROF, "record", "-o", self.path("p.db"),
                            "--cache=L1=32K:8:64,L2=1M:16:64"] + list(opts) + ["--", exe],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stderr

    def test_clang_dwarf5_hinted(self):
        err = self.record(self.build("clang", ["-O2", "-g"], "c5"))
        hints = [l for l in err.splitlines() if HINT in l]
        self.assertEqual(len(hints), 1, err)
        self.assertIn("-gdwarf-4", hints[0])
        self.assertNotIn(HINT, self.record(self.build("clang", ["-O2", "-g"], "c5q"), "-q"))

    def test_readable_debug_info_not_hinted(self):
        self.assertNotIn(HINT, self.record(self.build("clang", ["-O2", "-gdwarf-4"], "c4")))
        self.assertNotIn(HINT, self.record(self.build("gcc", ["-O2", "-g"], "g5")))

    def test_not_elf_or_cut_short(self):
        """A script, and an ELF file cut after its headers (run through a
        script so the kernel need not load it): no hint, no crash."""
        exe = self.build("clang", ["-O2", "-g"], "c5")
        with open(exe, "rb") as f:
            head = f.read(4096)
        cut = self.path("cut")
        with open(cut, "wb") as f:
            f.write(head)
        os.chmod(cut, 0o755)
        script = self.path("run.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\nexit 0\n")
        os.chmod(script, 0o755)
        self.assertNotIn(HINT, self.record(script))
        r = subprocess.run([DCPROF, "record", "-o", self.path("x.db"), "--", cut],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertNotIn(HINT, r.stderr)
        self.assertNotIn("AddressSanitizer", r.stderr)
        self.assertGreaterEqual(r.returncode, 0)
