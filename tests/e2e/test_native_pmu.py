"""Live PMU events of the native engine (docs/engine-native.md, "Live PMU
events"): the perf_event_attr dcprof record builds from a PMU's sysfs
description, on fake /sys/bus/event_source/devices trees of an Intel hybrid,
an Intel non-hybrid, an AMD and an Arm machine (DCPROF_TEST_SYSFS points
record at the tree and makes it print each attr it tries).

The expected attrs are derived from the kernel's documented encodings, not
from a dcprof run: sysfs format files say which bits of config/config1 a
term fills (Documentation/ABI/testing/sysfs-bus-event_source-devices-format);
the sample_type bits are linux/perf_event.h's (IP 1, TID 2, TIME 4, ADDR 8,
PERIOD 0x100, RAW 0x400, WEIGHT 0x4000, DATA_SRC 0x8000).  The PMU types
are made up (65531..65534): no kernel has such a PMU, so perf_event_open
fails with ENOENT on every machine, real PMU or not, and the test checks
the one error line that names the event and the errno."""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

from harness import BUILD, DCPROF, perf_ok
from test_engine_common import query, record, run, workload
from test_native_rdx import WHY_NOT

ENOENT = "No such file or directory"
PEBS_TYPE = 0x1 | 0x2 | 0x4 | 0x8 | 0x100 | 0x4000 | 0x8000     # 0xc10f
IBS_TYPE = 0x1 | 0x2 | 0x4 | 0x100 | 0x400                       # 0x507
SPE_TYPE = 0x1 | 0x2 | 0x4


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text + "\n")


def intel_formats(pmu):
    # Intel core PMUs' format directory (arch/x86/events/intel/core.c:
    # event config:0-7, umask config:8-15, ldlat config1:0-15)
    return {pmu + "/format/event": "config:0-7", pmu + "/format/umask": "config:8-15",
            pmu + "/format/ldlat": "config1:0-15"}


# Alder Lake: P-cores (cpu_core) and E-cores (cpu_atom), each with its own
# mem-loads encoding (MEM_TRANS_RETIRED.LOAD_LATENCY 0xcd/0x1 on the
# P-core, MEM_UOPS_RETIRED.LOAD_LATENCY 0xd0/0x5 on the E-core) and the
# P-core's mem-loads-aux (0x03/0x82).
HYBRID = dict(intel_formats("cpu_core"), **intel_formats("cpu_atom"))
HYBRID.update({
    "cpu_core/type": "65534", "cpu_atom/type": "65533",
    "cpu_core/events/mem-loads": "event=0xcd,umask=0x1,ldlat=3",
    "cpu_core/events/mem-loads-aux": "event=0x03,umask=0x82",
    "cpu_core/events/mem-stores": "event=0xcd,umask=0x2",
    "cpu_atom/events/mem-loads": "event=0xd0,umask=0x5,ldlat=3",
    "cpu_atom/events/mem-stores": "event=0xd0,umask=0x6",
})

# Skylake: one PMU, cpu
SKYLAKE = dict(intel_formats("cpu"))
SKYLAKE.update({"cpu/type": "65534", "cpu/events/mem-loads": "event=0xcd,umask=0x1,ldlat=3",
                "cpu/events/mem-stores": "event=0xd0,umask=0x82"})

# AMD: the ibs_op PMU (arch/x86/events/amd/ibs.c: cnt_ctl config:19)
AMD = {"ibs_op/type": "65532", "ibs_op/format/cnt_ctl": "config:19"}

# Arm: arm_spe_0 (drivers/perf/arm_spe_pmu.c's formats)
ARM = {"arm_spe_0/type": "65531",
       "arm_spe_0/format/ts_enable": "config:0", "arm_spe_0/format/pa_enable": "config:1",
       "arm_spe_0/format/pct_enable": "config:2", "arm_spe_0/format/jitter": "config:16",
       "arm_spe_0/format/branch_filter": "config:32",
       "arm_spe_0/format/load_filter": "config:33",
       "arm_spe_0/format/store_filter": "config:34",
       "arm_spe_0/format/event_filter": "config1:0-63",
       "arm_spe_0/format/min_latency": "config2:0-11"}


def attr(what, type_, config, config1, precise, sample_type, period, config2=0, excl=1):
    return ("dcprof record: pmu %s type=%d config=%#x config1=%#x config2=%#x precise_ip=%d"
            " sample_type=%#x sample_period=%d exclude_kernel=%d"
            % (what, type_, config, config1, config2, precise, sample_type, period, excl))


class PmuAttr(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-pmu-")
        self.sys = os.path.join(self.tmp, "devices")
        os.makedirs(self.sys)
        self.db = os.path.join(self.tmp, "p.db")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def rec(self, tree, opts):
        write_tree(self.sys, tree)
        env = dict(os.environ, DCPROF_TEST_SYSFS=self.sys)
        r = record(self.db, [workload("first_touch")], ["--engine=native"] + opts, env=env)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertFalse(os.path.exists(self.db))
        return r.stderr.splitlines()

    def test_hybrid_mem_loads_leader_first(self):
        # the P-core's mem-loads needs the mem-loads-aux leader: it is
        # opened first, counting (no sampling, no precise_ip);
        # config 0x03 | 0x82 << 8
        lines = self.rec(HYBRID, ["--event=mem-loads"])
        self.assertEqual(lines, [
            attr("cpu_core/mem-loads-aux/", 65534, 0x8203, 0, 0, 0, 0),
            "dcprof record: cannot sample --event=mem-loads on this machine"
            " (cpu_core/mem-loads-aux/: %s); try --event=pagefault or the simulator"
            " engine" % ENOENT])

    def test_hybrid_mem_stores(self):
        # 0xcd | 0x2 << 8; precise_ip 3 first (only EINVAL lowers it)
        lines = self.rec(HYBRID, ["--event=mem-stores", "--period=5003"])
        self.assertEqual(lines[0], attr("cpu_core/mem-stores/", 65534, 0x2cd, 0, 3,
                                        PEBS_TYPE, 5003))
        self.assertIn("(cpu_core/mem-stores/: %s)" % ENOENT, lines[1])
        self.assertEqual(len(lines), 2)

    def test_mem_loads_ldlat(self):
        # ldlat 30 replaces the event's 3 in config1:0-15; default period 10007
        lines = self.rec(SKYLAKE, ["--event=mem-loads", "--ldlat=30"])
        self.assertEqual(lines[0], attr("cpu/mem-loads,ldlat=30/", 65534, 0x1cd, 30, 3,
                                        PEBS_TYPE, 10007))
        self.assertEqual(lines[1], "dcprof record: cannot sample --event=mem-loads on this"
                         " machine (cpu/mem-loads,ldlat=30/: %s); try --event=pagefault"
                         " or the simulator engine" % ENOENT)

    def test_default_ldlat_is_3(self):
        lines = self.rec(SKYLAKE, ["--event=mem-loads"])
        self.assertEqual(lines[0], attr("cpu/mem-loads,ldlat=3/", 65534, 0x1cd, 3, 3,
                                        PEBS_TYPE, 10007))

    def test_amd_ibs_op(self):
        # cnt_ctl (config:19) = 1 -> 0x80000; the period rounded down to a
        # multiple of 16: 100007 = 0x186a7, & ~0xf = 0x186a0 = 100000
        lines = self.rec(AMD, ["--event=ibs-op", "--period=100007"])
        self.assertEqual(lines[0], attr("ibs_op/cnt_ctl=1/", 65532, 0x80000, 0, 0,
                                        IBS_TYPE, 100000))
        self.assertIn("(ibs_op/cnt_ctl=1/: %s)" % ENOENT, lines[1])

    def test_arm_spe(self):
        # ts_enable 0, jitter 16, load_filter 33, store_filter 34:
        # 1 + 2^16 + 2^33 + 2^34 = 0x600010001; period 4096 ops
        lines = self.rec(ARM, ["--event=spe"])
        self.assertEqual(lines[0], attr("arm_spe_0/ts_enable=1,load_filter=1,store_filter=1,"
                                        "jitter=1/", 65531, 0x600010001, 0, 0, SPE_TYPE,
                                        4096))
        self.assertEqual(len(lines), 2)

    def test_reuse_sample_with_ibs_and_spe_gets_past_the_arguments(self):
        # --reuse-sample takes its use points from IBS and SPE samples too:
        # record no longer refuses the pair before probing the event, which
        # then fails at perf_event_open (the made-up types: ENOENT) with the
        # one error line after the attr tried
        for tree, event, what in ((AMD, "ibs-op", "ibs_op/cnt_ctl=1/"),
                                  (ARM, "spe", "arm_spe_0/ts_enable=1,load_filter=1,"
                                   "store_filter=1,jitter=1/")):
            lines = self.rec(tree, ["--event=" + event, "--reuse-sample=4"])
            self.assertEqual(len(lines), 2, lines)
            self.assertTrue(lines[0].startswith("dcprof record: pmu " + what), lines[0])
            self.assertEqual(lines[1], "dcprof record: cannot sample --event=%s on this"
                             " machine (%s: %s); try --event=pagefault or the simulator"
                             " engine" % (event, what, ENOENT))

    def test_default_event_tries_in_order(self):
        # no Intel PMU: mem-loads is skipped, ibs-op tried, spe tried; the
        # line names the first PMU that exists
        tree = dict(AMD, **ARM)
        lines = self.rec(tree, [])
        self.assertEqual(len(lines), 3)
        self.assertTrue(lines[0].startswith("dcprof record: pmu ibs_op/"), lines[0])
        self.assertTrue(lines[1].startswith("dcprof record: pmu arm_spe_0/"), lines[1])
        self.assertEqual(lines[2], "dcprof record: no PMU with data-address sampling on this"
                         " machine (perf_event_open: ibs_op/cnt_ctl=1/: %s); try"
                         " --event=pagefault or the simulator engine" % ENOENT)

    def test_no_pmu_in_tree(self):
        lines = self.rec({"software/type": "1"}, [])
        self.assertEqual(lines, ["dcprof record: no PMU with data-address sampling on this"
                                 " machine (perf_event_open: %s); try --event=pagefault or"
                                 " the simulator engine" % ENOENT])

    def test_malformed_format(self):
        tree = dict(SKYLAKE)
        tree["cpu/format/ldlat"] = "config1:banana"
        lines = self.rec(tree, ["--event=mem-loads"])
        self.assertEqual(lines, ["dcprof record: cannot sample --event=mem-loads on this"
                                 " machine (PMU cpu: malformed format/ldlat 'config1:banana');"
                                 " try --event=pagefault or the simulator engine"])

    def test_value_too_wide(self):
        # event is 8 bits wide in config:0-7; 0x1cd (461) needs 9
        tree = dict(SKYLAKE)
        tree["cpu/events/mem-loads"] = "event=0x1cd,umask=0x1,ldlat=3"
        lines = self.rec(tree, ["--event=mem-loads"])
        self.assertEqual(len(lines), 1)
        self.assertIn("event=461 does not fit format/event 'config:0-7'", lines[0])

    def test_ldlat_only_for_mem_loads(self):
        lines = self.rec(AMD, ["--event=ibs-op", "--ldlat=30"])
        self.assertEqual(lines, ["dcprof record: --ldlat is for --event=mem-loads"
                                 " (Intel PEBS load latency)"])

    def test_ldlat_range(self):
        lines = self.rec(SKYLAKE, ["--ldlat=0"])
        self.assertEqual(lines, ["dcprof record: invalid --ldlat value '0' (1 to 65535"
                                 " cycles)"])


def raw_meta(path):
    meta = {}
    with open(path, "rb") as f:
        for line in f.read().decode("utf-8", "replace").splitlines():
            parts = line.split(" ", 2)
            if parts[0] == "meta" and len(parts) == 3:
                meta[parts[1]] = parts[2]
    return meta


@unittest.skipUnless(perf_ok(), "perf_event_paranoid > 2: no software sampling")
class LivePlumbing(unittest.TestCase):
    """The runtime's live PMU path on a machine without the PMU: the
    events of DCPROF_NATIVE_PMU are opened as record passes them, but with
    the software page-fault event's type and config (PERF_TYPE_SOFTWARE 1,
    PERF_COUNT_SW_PAGE_FAULTS 2) under the PEBS and IBS sample types.  The
    kernel writes the records with those sample types; their data source
    is PERF_MEM_NA (pebs) or their raw data empty (ibs), so the decoders
    take none as a load or store: each is counted in samples_other.  That
    count must be the program's page faults, which the pagefault event of
    the same runtime counts (meta samples) on the same program: ring,
    reader and decoder lose nothing.  Run directly under the preloaded
    runtime (record would probe the real PMU)."""

    def run_rt(self, tmp, name, env, prog="first_touch"):
        env = dict(os.environ, LD_PRELOAD=os.path.join(BUILD, "lib", "dcprof",
                                                       "dcprof-native.so"),
                   DCPROF_NATIVE_OUT=os.path.join(tmp, name + ".%p"), **env)
        subprocess.run([workload(prog)], env=env, check=True,
                       stdout=subprocess.DEVNULL, timeout=120)
        dumps = glob.glob(os.path.join(tmp, name + ".*"))
        self.assertEqual(len(dumps), 1, dumps)
        return raw_meta(dumps[0])

    def test_software_event_through_pebs_and_ibs_paths(self):
        tmp = tempfile.mkdtemp(prefix="dcprof-pmu-")
        try:
            faults = int(self.run_rt(tmp, "pf", {"DCPROF_NATIVE_EVENT": "pagefault"})
                         ["samples"])
            # the two 8 MiB arrays: 2 x 2048 pages (tests/workloads/first_touch.c)
            self.assertGreaterEqual(faults, 4096)
            for kind in ("pebs", "ibs"):
                m = self.run_rt(tmp, kind, {"DCPROF_NATIVE_EVENT": "mem-loads",
                                            "DCPROF_NATIVE_PERIOD": "1",
                                            "DCPROF_NATIVE_PMU": kind + ":1:2:0:0:0:1:-"})
                self.assertEqual(m["sample_event"], "Dr")
                self.assertEqual(m["pmu_event"], "mem-loads")
                self.assertEqual(m["samples"], "0")
                self.assertEqual(m["samples_lost"], "0")
                # the runtime's own faults differ a little between the runs
                self.assertAlmostEqual(int(m["samples_other"]), faults, delta=faults // 50)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @unittest.skipIf(WHY_NOT, "hardware watchpoints unavailable: %s" % WHY_NOT)
    def test_rdx_use_points_from_the_pmu_event(self):
        # --reuse-sample with a PMU event takes its use points from that
        # event (here the software page faults under the PEBS route, every
        # one a use: N = 1).  Under this route a use's instruction is taken
        # as retired (PEBS), so the faulting load re-executing after the
        # handler traps its watchpoint: at least one reuse is caught.  The
        # distance counter: MEM_INST_RETIRED needs an Intel PMU (the use
        # event's type here is the software PMU's), instructions a hardware
        # PMU; without, ns of CPU time.
        tmp = tempfile.mkdtemp(prefix="dcprof-pmu-")
        try:
            m = self.run_rt(tmp, "rdx", {"DCPROF_NATIVE_EVENT": "mem-loads",
                                         "DCPROF_NATIVE_PERIOD": "1",
                                         "DCPROF_NATIVE_PMU": "pebs:1:2:0:0:0:1:-",
                                         "DCPROF_NATIVE_REUSE_SAMPLE": "1"}, "rdx_reuse")
            self.assertEqual(m["reuse_use_event"], "mem-loads")
            self.assertIn(m["reuse_distance_unit"], ("ns", "instructions"))
            self.assertEqual(m["reuse_threads_unwatched"], "0")
            self.assertGreaterEqual(int(m["reuse_samples"]), 1)
            self.assertGreaterEqual(int(m["reuse_traps"]), 1)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    @unittest.skipIf(WHY_NOT, "hardware watchpoints unavailable: %s" % WHY_NOT)
    def test_rdx_with_ibs_through_record(self):
        # A fake ibs_op PMU whose type is the software PMU's (1) and whose
        # cnt_ctl is config bit 1, so record's cnt_ctl=1 is config 2, the
        # page-fault counter: it opens, record takes --reuse-sample with
        # --event=ibs-op, and the runtime makes the thread's sampling event
        # the use event (its records read by the RDX handler first, then by
        # the reader up to where the handler read).  The records are page
        # faults with an empty RAW: no IBS op with a data address, so no
        # use; every thread's watchpoints open; a use would stand for N x
        # period = 2 x 16 ops; and the reader, held behind the handler,
        # still gets every record: samples_other is the program's page
        # faults, as the pagefault event counts them (as above).
        tmp = tempfile.mkdtemp(prefix="dcprof-pmu-")
        try:
            sysfs = os.path.join(tmp, "devices")
            write_tree(sysfs, {"ibs_op/type": "1", "ibs_op/format/cnt_ctl": "config:1"})
            db = os.path.join(tmp, "p.db")
            r = record(db, [workload("first_touch")],
                       ["--engine=native", "--event=ibs-op", "--period=16",
                        "--reuse-sample=2"], env=dict(os.environ, DCPROF_TEST_SYSFS=sysfs))
            self.assertEqual(r.returncode, 0, r.stderr)
            meta = dict(query(db, "SELECT key, value FROM meta"))
            self.assertEqual(meta["pmu_event"], "ibs-op")
            self.assertEqual(meta["reuse_use_event"], "ibs-op")
            self.assertEqual(meta["reuse_sample_period"], "32")
            self.assertEqual(meta["reuse_threads_unwatched"], "0")
            self.assertEqual(meta["reuse_samples"], "0")
            self.assert_every_fault_once(tmp, int(meta["samples_other"]))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def assert_every_fault_once(self, tmp, other):
        """OTHER, the PMU records of a run of first_touch that were no load
        or store, against the program's page faults counted by the
        pagefault event in another run: none lost (at least the faults, less
        2 % for the runs' differences), none read twice (a stream read by
        both the RDX handler and the reader would give twice the faults).
        The runtime's own faults are PMU records too, and the pagefault
        event leaves them out: a run slowed by a loaded machine took 303
        more than 4,102 (its reader thread and checkpoints), so the upper
        bound is not the lower one's 2 %."""
        faults = int(self.run_rt(tmp, "pf", {"DCPROF_NATIVE_EVENT": "pagefault"})["samples"])
        self.assertGreaterEqual(other, faults - faults // 50)
        self.assertLess(other, faults + faults // 2)

    def test_record_to_report(self):
        # The whole path through dcprof record: a fake "cpu" PMU whose type
        # is the software PMU's (1) and whose mem-stores is config 2, the
        # page-fault counter.  It opens (precise_ip 3 is not refused by the
        # software PMU), so record runs the program with that event as a
        # PEBS event, and the profile says so; every record is a page fault
        # (data source "not available"): samples_other counts them, as many
        # as the pagefault event's samples on the same program (above).
        tmp = tempfile.mkdtemp(prefix="dcprof-pmu-")
        try:
            sysfs = os.path.join(tmp, "devices")
            write_tree(sysfs, {"cpu/type": "1", "cpu/format/event": "config:0-7",
                               "cpu/events/mem-stores": "event=0x2"})
            db = os.path.join(tmp, "p.db")
            r = record(db, [workload("first_touch")],
                       ["--engine=native", "--event=mem-stores", "--period=1"],
                       env=dict(os.environ, DCPROF_TEST_SYSFS=sysfs))
            self.assertEqual(r.returncode, 0, r.stderr)
            meta = dict(query(db, "SELECT key, value FROM meta"))
            self.assertEqual(meta["pmu_event"], "mem-stores")
            self.assertEqual(meta["sample_event"], "Dw")
            self.assertEqual(meta["sample_period"], "1")
            self.assert_every_fault_once(tmp, int(meta["samples_other"]))
            out = run([DCPROF, "report", db])
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("engine:   native, event mem-stores (Dw), period 1", out.stdout)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
