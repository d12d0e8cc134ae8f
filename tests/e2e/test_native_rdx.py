"""Sampled reuse distances (RDX) with hardware watchpoints in the native
engine (dcprof record --engine=native --event=pagefault --reuse-sample=N,
docs/engine-native.md "Reuse distances").  Watchpoints work on some
machines and virtual machines and not on others: the tests that need them
probe with perf_event_open here (not through dcprof) and skip with the
reason; the "unavailable" line is tested with the hidden
--test-no-watchpoints, which makes record's own probe fail."""
import ctypes
import os
import platform
import shutil
import tempfile
import unittest

from test_engine_common import query, record, run, workload
from harness import DCPROF

SYS_PERF_EVENT_OPEN = 298        # x86-64
PERF_EVENT_IOC_ENABLE = 0x2400
PERF_EVENT_IOC_DISABLE = 0x2401


def watchpoints_fire():
    """None when a PERF_TYPE_BREAKPOINT read/write watchpoint on a variable
    of this process counts the writes made to it, else why not."""
    if platform.machine() != "x86_64":
        return "not x86-64"
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            if int(f.read()) > 2:
                return "perf_event_paranoid > 2"
    except OSError as e:
        return str(e)
    libc = ctypes.CDLL(None, use_errno=True)
    var = ctypes.c_uint64(0)
    # struct perf_event_attr, PERF_ATTR_SIZE_VER1 (72 bytes): type
    # PERF_TYPE_BREAKPOINT (5), size, flags at 40 (disabled bit 0,
    # exclude_kernel bit 5, exclude_hv bit 6), bp_type at 52 (HW_BREAKPOINT_RW
    # = 3), bp_addr at 56, bp_len at 64 (8)
    attr = (ctypes.c_uint8 * 72)()
    ctypes.memmove(ctypes.addressof(attr), ctypes.byref(ctypes.c_uint32(5)), 4)
    ctypes.memmove(ctypes.addressof(attr) + 4, ctypes.byref(ctypes.c_uint32(72)), 4)
    ctypes.memmove(ctypes.addressof(attr) + 40,
                   ctypes.byref(ctypes.c_uint64(1 | 1 << 5 | 1 << 6)), 8)
    ctypes.memmove(ctypes.addressof(attr) + 52, ctypes.byref(ctypes.c_uint32(3)), 4)
    ctypes.memmove(ctypes.addressof(attr) + 56,
                   ctypes.byref(ctypes.c_uint64(ctypes.addressof(var))), 8)
    ctypes.memmove(ctypes.addressof(attr) + 64, ctypes.byref(ctypes.c_uint64(8)), 8)
    libc.syscall.restype = ctypes.c_long
    fd = libc.syscall(ctypes.c_long(SYS_PERF_EVENT_OPEN), attr, ctypes.c_int(0),
                      ctypes.c_int(-1), ctypes.c_int(-1), ctypes.c_ulong(0))
    if fd < 0:
        return "perf_event_open of a breakpoint: %s" % os.strerror(ctypes.get_errno())
    try:
        libc.ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)
        for i in range(10):
            var.value = i
        libc.ioctl(fd, PERF_EVENT_IOC_DISABLE, 0)
        count = int.from_bytes(os.read(fd, 8), "little")
    finally:
        os.close(fd)
    return None if count > 0 else "a watchpoint on a written variable never fired"


WHY_NOT = watchpoints_fire()


def meta(db, key):
    rows = query(db, "SELECT value FROM meta WHERE key = ?", key)
    return rows[0][0] if rows else None


def sampled_bins(db, name):
    return {r[0]: r[1] for r in query(
        db, "SELECT h.bin, h.count FROM reuse_hist h JOIN bucket b ON b.id = h.bucket"
        " WHERE h.kind = 'sampled' AND b.name = ?", name)}


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-natrdx-")
        self.db = os.path.join(self.tmp, "p.db")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


@unittest.skipIf(WHY_NOT, "hardware watchpoints unavailable: %s" % WHY_NOT)
class KnownReuse(Case):
    def test_histogram(self):
        # rdx_reuse.c, with every page fault a use point (N = 1) and the
        # oldest use replaced when the 4 watchpoints are armed, so the
        # workload's uses are watched whatever the start-up faulted:
        # * a: its first word is written (a page fault: a use), the thread
        #   spins 24 ms of its own CPU time, the word is read (the reuse).
        #   Distance: at least 24,000,000 ns (the spin ends when the same
        #   clock has advanced that much) plus the signal handling, far
        #   below 9.5 ms: bin 25 of bins 1:2 = [2^24, 2^25) = [16.8 ms,
        #   33.6 ms); weight 1 (one use of its instruction), x N = 1.
        # * b: one store in a loop writes the first word of 8 pages (8
        #   uses, one calling context); the 4 watchpoints end up on pages
        #   4..7 (pages 0..3 replaced: 4 samples of the context lost).  The
        #   thread spins 3 ms and reads pages 7, 6, 5, 4: 4 traps at
        #   3,000,000 ns plus the faults and traps (microseconds each):
        #   bin 22 = [2^21, 2^22) = [2.1 ms, 4.2 ms).  Proportional
        #   attribution: the first trap weighs 1 + the 4 lost, the others
        #   1: 8 in all.
        r = record(self.db, [workload("rdx_reuse")],
                   ["--engine=native", "--event=pagefault", "--reuse-sample=1",
                    "--reuse-replace=oldest"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sampled_bins(self.db, "a"), {25: 1})
        self.assertEqual(sampled_bins(self.db, "b"), {22: 8})
        self.assertEqual(meta(self.db, "reuse_distance_unit"), "ns")
        self.assertEqual(meta(self.db, "reuse_use_event"), "pagefault")
        self.assertEqual(meta(self.db, "reuse_watch"), "dr")
        self.assertEqual(meta(self.db, "reuse_threads_unwatched"), "0")
        self.assertEqual(meta(self.db, "reuse_queue_dropped"), "0")
        # the pairs: the use's and the reuse's functions (the trap reports
        # the next instruction; the reuse is charged to the one before)
        pairs = query(self.db, "SELECT u.function, r.function, SUM(p.count)"
                      " FROM reuse_pair_sampled p"
                      " JOIN location u ON u.id = p.use_location"
                      " JOIN location r ON r.id = p.reuse_location GROUP BY 1, 2")
        self.assertIn(("touch_a", "reuse_a", 1), pairs)
        self.assertIn(("touch_b", "reuse_b", 8), pairs)
        # the report says what the distance counts, and refuses stack
        out = run([DCPROF, "reuse", self.db, "--sampled", "--object", "a"])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("a use every 1 page faults", out.stdout)
        self.assertIn("time distances in ns of CPU time", out.stdout)
        self.assertIn("[16777216, 33554432) ns of CPU time", out.stdout)
        out = run([DCPROF, "reuse", self.db, "--sampled", "--kind", "stack"])
        self.assertEqual(out.returncode, 2)
        self.assertIn("do not convert to stack distances", out.stderr)


    def test_threads(self):
        # rdx_reuse.c "threads": two threads each write the first word of
        # their own page-aligned array (a use), spin 24 ms of their own CPU
        # time and read it again.  Each thread has its own debug registers
        # and reservoir, and CPU time is per thread, so each array gets one
        # reuse in bin 25 = [2^24, 2^25) ns, as a does above.
        r = record(self.db, [workload("rdx_reuse"), "threads"],
                   ["--engine=native", "--event=pagefault", "--reuse-sample=1",
                    "--reuse-replace=oldest"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sampled_bins(self.db, "ta"), {25: 1})
        self.assertEqual(sampled_bins(self.db, "tb"), {25: 1})
        self.assertEqual(meta(self.db, "reuse_threads_unwatched"), "0")


class Errors(Case):
    def test_unavailable(self):
        r = record(self.db, [workload("rdx_reuse")],
                   ["--engine=native", "--event=pagefault", "--reuse-sample=1",
                    "--test-no-watchpoints"])
        self.assertEqual(r.returncode, 2)
        lines = r.stderr.splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertRegex(lines[0], r"^dcprof record: hardware watchpoints are unavailable on"
                         r" this machine \(.+\); the simulator engine's --reuse-sample"
                         r" emulates them$")
        self.assertFalse(os.path.exists(self.db))

    def test_needs_a_data_address(self):
        # cpu-clock samples and a replay have no use points: refused before
        # anything is probed, one line
        for opts in (["--event=cpu-clock"], ["--replay=" + os.path.join(self.tmp, "none")]):
            r = record(self.db, [workload("rdx_reuse")],
                       ["--engine=native", "--reuse-sample=1"] + opts)
            self.assertEqual(r.returncode, 2, opts)
            self.assertEqual(r.stderr.splitlines(), [
                "dcprof record: --reuse-sample with --engine=native needs use points with a"
                " data address: --event=pagefault, mem-loads, mem-stores, ibs-op or spe"])
            self.assertFalse(os.path.exists(self.db))

    @unittest.skipIf(WHY_NOT, "the probe fails first: %s" % WHY_NOT)
    def test_hardware_limits(self):
        for opt, msg in (("--reuse-watch=block", "--reuse-watch=block is the simulator"),
                         ("--reuse-watchpoints=5", "1 to 4: the debug registers")):
            r = record(self.db, [workload("rdx_reuse")],
                       ["--engine=native", "--event=pagefault", "--reuse-sample=1", opt])
            self.assertEqual(r.returncode, 2, opt)
            self.assertIn(msg, r.stderr)
            self.assertFalse(os.path.exists(self.db))


if __name__ == "__main__":
    unittest.main()
