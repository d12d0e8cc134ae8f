"""Long C++ names in text reports (src/report/shorten.h): text shows
std::vector<…> and drops clone suffixes; what is still too long keeps its
ends around "…"; CSV and JSON keep the full name."""
import csv
import io
import json
import os
import sqlite3
import subprocess

from harness import DCPROF, ROOT, TmpDirTest

FIXTURE = os.path.join(ROOT, "tests", "e2e", "fixtures", "two_level.raw")
VEC = ("std::vector<double, std::allocator<double> >::_M_default_append"
       "-Domain::Domain(int, int, int, int, int, int, int, int)-main")
CLONE = "std::_Hashtable<int, std::pair<int const, double>, std::allocator<std::pair<int const," \
        " double> > >::_M_rehash_aux_for_unique_keys(unsigned long, std::integral_constant<bool," \
        " true>).constprop.0.isra.0"
LONG = "a_" + "very_" * 30 + "long_name"


class LongNames(TmpDirTest):

    def profile(self):
        db = self.path("p.db")
        subprocess.run([DCPROF, "finalize", "-q", FIXTURE, "-o", db], check=True)
        con = sqlite3.connect(db)
        ids = [r[0] for r in con.execute("SELECT id FROM bucket ORDER BY id")]
        self.assertGreaterEqual(len(ids), 2)
        con.execute("UPDATE bucket SET name = ? WHERE id = ?", (VEC, ids[0]))
        con.execute("UPDATE bucket SET name = ? WHERE id = ?", (LONG, ids[1]))
        con.execute("UPDATE location SET function = ?", (CLONE,))
        con.commit()
        con.close()
        return db

    def report(self, db, *opts):
        r = subprocess.run([DCPROF, "report", db] + list(opts), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, errors="surrogateescape")
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def test_text_shortened(self):
        db = self.profile()
        out = self.report(db)
        # Without template arguments and parameter lists VEC fits in 72
        # bytes (shorten.h).
        self.assertIn("std::vector<…>::_M_default_append-Domain::Domain(…)-main ", out)
        # LONG (162 bytes, none of those): the first 34, "…", the last 37.
        self.assertIn(LONG[:34] + "…" + LONG[-37:], out)
        self.assertNotIn(LONG, out)
        fn = self.report(db, "--by", "function")
        # 73 bytes without template arguments and parameters, 54 without
        # the clone suffixes
        self.assertIn("std::_Hashtable<…>::_M_rehash_aux_for_unique_keys(…) ", fn)
        self.assertNotIn("constprop", fn)
        for line in out.splitlines() + fn.splitlines():
            self.assertLess(len(line), 300, line)

    def test_machine_formats_full(self):
        db = self.profile()
        rows = list(csv.DictReader(io.StringIO(self.report(db, "--format", "csv"))))
        self.assertEqual({VEC, LONG} & {r["bucket"] for r in rows}, {VEC, LONG})
        js = json.loads(self.report(db, "--by", "function", "--format", "json"))
        self.assertIn(CLONE, {r["function"] for r in js["rows"]})

    def test_demangler_clones(self):
        """" [clone .part.0]" goes whole once the name is too long; an OpenMP
        region's "[clone ._omp_fn.0]" stays (shorten.h)."""
        db = self.profile()
        part = "Domain::SetupThreadSupportStructures_for_a_long_while_more() [clone .part.0]"
        omp = "CalcFBHourglassForceForElems_long(Domain&, double*, double, int)" \
              " [clone ._omp_fn.0]"
        self.assertGreater(len(part), 72)
        con = sqlite3.connect(db)
        ids = [r[0] for r in con.execute("SELECT id FROM location ORDER BY id")]
        con.execute("UPDATE location SET function = ? WHERE id = ?", (part, ids[0]))
        con.execute("UPDATE location SET function = ? WHERE id != ?", (omp, ids[0]))
        con.commit()
        con.close()
        fn = self.report(db, "--by", "function")
        # an empty "()" is no parameter list; 76 bytes, 61 without the note
        self.assertIn("Domain::SetupThreadSupportStructures_for_a_long_while_more() ", fn)
        self.assertNotIn("[clone .part.0]", fn)
        # 83 bytes; 59 with its parameters collapsed
        self.assertIn("CalcFBHourglassForceForElems_long(…) [clone ._omp_fn.0] ", fn)
