"""The engine's prefetches are in the built tool.

GCC drops a call to a function it did not inline when the function does
nothing it counts as a side effect, and `__builtin_prefetch` counts as
none: twice a prefetch the source asks for (cacheuse.h's victim record,
reuse.h's second prefetch) was missing from the binary for many sessions,
unnoticed, while docs/performance.md measured it (seventh pass of issue
21).  So this reads the tool's code with objdump and checks that the
per-access functions hold the prefetches their source asks for:

  - dc_ref_track, dc_ref_use_track (dc_instrument.c `ref` with REF_TRACK):
    the block's reuse record (reuse.h dc_reuse_prefetch);
  - dc_cacheuse_access_levels (cacheuse.c `access_line`, inlined): level
    2's set and its last way's record after a level-1 miss, and each
    deeper level's victim record (cacheuse.h dc_cacheuse_prefetch_victim).

Nothing here is timed: a prefetch's presence, not its effect."""
import os
import re
import shutil
import subprocess
import unittest

from harness import BUILD

TOOL = os.path.join(BUILD, "lib", "dcprof", "dcprof-amd64-linux")


def prefetches_by_function():
    """{function: number of prefetch instructions} of the tool's code."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", TOOL], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    counts, fn = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn = m.group(1)
        elif fn and re.search(r"\tprefetch", line):
            counts[fn] = counts.get(fn, 0) + 1
    return counts


class Prefetches(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("objdump"):
            raise unittest.SkipTest("objdump not found (binutils)")
        if not os.path.exists(TOOL):
            raise unittest.SkipTest("no tool build at %s (make all)" % TOOL)
        cls.counts = prefetches_by_function()

    def test_access_helpers_prefetch_the_reuse_record(self):
        for fn in ("dc_ref_track", "dc_ref_use_track"):
            self.assertGreaterEqual(self.counts.get(fn, 0), 1,
                                    "%s has no prefetch instruction: the reuse record's prefetch"
                                    " (reuse.h dc_reuse_prefetch) was dropped; functions with"
                                    " prefetches: %s" % (fn, self.counts))

    def test_cache_use_levels_prefetch_set_and_victims(self):
        # access_line, its loop over levels 2..4 unrolled (#pragma GCC
        # unroll 4, DC_MAX_LEVELS 4): level 2's set, level 2's victim
        # record, the victim records of levels 3 and 4, and level 2's
        # record at a level-2 hit: five prefetch instructions.  Without
        # always_inline on dc_cacheuse_prefetch_victim GCC left four.
        got = self.counts.get("dc_cacheuse_access_levels", 0)
        self.assertGreaterEqual(got, 5, "dc_cacheuse_access_levels has %d prefetch instructions;"
                                " functions with prefetches: %s" % (got, self.counts))

    def test_fill_by_fill_path_prefetches_victims(self):
        # dc_cacheuse_line (multi-line accesses, instruction fetches; GCC
        # may clone it): each deeper level's victim record
        got = sum(n for fn, n in self.counts.items() if fn.startswith("dc_cacheuse_line"))
        self.assertGreaterEqual(got, 1, "no prefetch in dc_cacheuse_line: the victim record's"
                                " prefetch was dropped; functions with prefetches: %s"
                                % self.counts)


if __name__ == "__main__":
    unittest.main()
