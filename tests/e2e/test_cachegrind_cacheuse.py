"""Cache use against Callgrind: `dcprof record --cachegrind-compat
--cache=L1=32K:8:64,L2=1M:8:64 --cache-use --cache-use-granularity=callgrind`
and `valgrind --tool=callgrind --cache-sim=yes --cacheuse=yes --D1=32768,8,64
--LL=1048576,8,64` simulate the same I1 (the host's), D1 and LL, started from
the same VALGRIND_LIB as in test_cachegrind_agreement (byte-identical
environments).  Per-level totals of SpLoss and AcCost must agree within
bounds derived from the two known differences:

  * Callgrind charges instruction-cache lines too: its SpLoss1/AcCost1 add
    the I1 residencies, its SpLoss2/AcCost2 the LL residencies that
    instruction fetches loaded; dcprof measures data only.  Every such
    residency began with a fetch miss that filled at most two lines, lost
    at most 62 bytes (a fetch touches at least one 2-byte unit) and costs at
    most 1000 / 1.  So Callgrind exceeds dcprof by
        0 <= I-part <= 2 * 62 * I1mr (SpLoss1),  2 * 1000 * I1mr (AcCost1),
    and the same with ILmr at LL.
  * Callgrind's instrumentation sees |dA| = |(Dr+Dw) - (Dr+Dw)| data
    accesses more or fewer (2 on these workloads, start-up code).  With the
    miss counts equal (checked), the residencies are the same lines and the
    extra accesses can only change hit counts and masks: at most 64 bytes
    and 1000/n - 1000/(n+1) <= 500 each.
LL is compared only with an explicit 1 MiB LL: Callgrind 3.19's cache-use
LL starts empty slots with tag 0 and masks tags in 32 bits, so with the
host's 512 MiB LL every address below 256 MiB hits a cold cache (see
Defect below).  The LL comparison also uses workloads on which LL does not
evict lines that L1 still holds: there Callgrind's LL use misses the level-1
accesses not passed on yet (docs/engine.md, Cache use), a third difference
(cg_chase, cg_copy, cg_histogram, cg_matmul show it, up to 0.05 %).
"""
import os
import shutil
import tempfile
import unittest

from test_cachegrind_agreement import ENGINE_LIB, SAME_ENV
from test_engine_common import meta, query, record, run, workload

CACHE = "--cache=L1=32K:8:64,L2=1M:8:64"
CG_CACHE = ["--D1=32768,8,64", "--LL=1048576,8,64"]


def callgrind(prog, out, extra):
    """Run Callgrind; return {event: total} from its output file."""
    r = run(["valgrind", "-q", "--tool=callgrind", "--cache-sim=yes",
             "--callgrind-out-file=" + out] + extra + [prog],
            env=dict(SAME_ENV, VALGRIND_LIB=os.path.realpath(ENGINE_LIB)))
    if r.returncode != 0:
        raise AssertionError("callgrind failed (%d): %s" % (r.returncode, r.stderr[-2000:]))
    events = totals = None
    with open(out) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:"):
                totals = [int(x) for x in line.split()[1:]]
    if not events or totals is None:
        raise AssertionError("no events/totals line in %s" % out)
    return dict(zip(events, totals))


def dcprof_totals(db):
    """Accesses, misses per level and (SpLoss, AcCost) per level."""
    acc, m1, m2 = query(db, "SELECT SUM(Dr) + SUM(Dw), SUM(D1mr) + SUM(D1mw),"
                        " SUM(D2mr) + SUM(D2mw) FROM cost")[0]
    use = {lv: (sp, ac) for lv, sp, ac in
           query(db, "SELECT level, SUM(SpLoss), SUM(AcCost) FROM cache_use GROUP BY level")}
    return acc, m1, m2, use


class CacheUseAgreement(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-cgu-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def compare(self, name):
        prog = workload(name)
        cg = callgrind(prog, os.path.join(self.tmp, "cg.out"), ["--cacheuse=yes"] + CG_CACHE)
        db = os.path.join(self.tmp, "p.db")
        r = record(db, [prog], ["--cachegrind-compat", CACHE, "--cache-use",
                                "--cache-use-granularity=callgrind"], env=SAME_ENV)
        self.assertEqual(r.returncode, 0, r.stderr)
        acc, m1, m2, use = dcprof_totals(db)
        # the same residencies: equal miss counts at both levels
        self.assertEqual((m1, m2), (cg["D1mr"] + cg["D1mw"], cg["DLmr"] + cg["DLmw"]))
        da = abs(cg["Dr"] + cg["Dw"] - acc)
        self.assertLessEqual(da, 16, "instrumentation differs more than expected")
        for level, fetch_misses in ((1, cg["I1mr"]), (2, cg["ILmr"])):
            for i, ev, per_fill in ((0, "SpLoss", 62), (1, "AcCost", 1000)):
                per_access = 64 if i == 0 else 500
                diff = cg["%s%d" % (ev, level)] - use[level][i]
                lo, hi = -per_access * da, 2 * per_fill * fetch_misses + per_access * da
                self.assertTrue(lo <= diff <= hi, "%s %s%d: callgrind %d, dcprof %d: "
                                "difference %d outside [%d, %d]" %
                                (name, ev, level, cg["%s%d" % (ev, level)], use[level][i],
                                 diff, lo, hi))
        # the AcCost bounds are small against what is compared (2 % for
        # cg_stream; its SpLoss is mostly the I-part: streams use every byte)
        self.assertLess(2 * 1000 * cg["I1mr"], 0.05 * use[1][1])

    def test_hydro(self):
        self.compare("cu_hydro")

    def test_transpose(self):
        self.compare("cg_transpose")

    def test_stream(self):
        self.compare("cg_stream")


class Defect(unittest.TestCase):
    """With a large LL (512 MiB, 2-way: 2^22 sets, so the tag is the address
    above bit 28), Callgrind 3.19 --cacheuse=yes misses LL almost never:
    cold slots hold tag 0, which every address below 256 MiB matches.  Its
    plain simulation (no --cacheuse) and Cachegrind agree on the true LL
    misses; dcprof with --cache-use gets those, and sane SpLoss2/AcCost2
    (every LL line loaded is charged).  The hierarchy is given to both
    tools, so the test does not depend on what the host reports."""

    GEOMETRY = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=536870912,2,64"]

    def test_large_ll(self):
        tmp = tempfile.mkdtemp(prefix="dcprof-cgd-")
        self.addCleanup(shutil.rmtree, tmp, True)
        prog = workload("cu_hydro")
        plain = callgrind(prog, os.path.join(tmp, "p.out"), self.GEOMETRY)
        used = callgrind(prog, os.path.join(tmp, "u.out"), self.GEOMETRY + ["--cacheuse=yes"])
        db = os.path.join(tmp, "p.db")
        r = record(db, [prog], ["--cachegrind-compat", "--cache=L1=32K:8:64,L2=512M:2:64",
                                "--cache-use"], env=SAME_ENV)
        self.assertEqual(r.returncode, 0, r.stderr)
        acc, m1, m2, use = dcprof_totals(db)
        true_ll = plain["DLmr"] + plain["DLmw"]
        # hydro_m alone is 2 MiB = 32768 lines, each loaded into LL once
        self.assertGreater(true_ll, 32768)
        self.assertLess(used["DLmr"] + used["DLmw"], true_ll / 100, "defect gone?")
        da = abs(plain["Dr"] + plain["Dw"] - acc)
        self.assertLessEqual(abs(m2 - true_ll), da)
        # every LL residency is charged once: at least 1000 / (8 accesses) each
        self.assertGreaterEqual(use[2][1], 32768 * 125)
        self.assertGreater(use[2][1], 100 * used["AcCost2"])


if __name__ == "__main__":
    unittest.main()
