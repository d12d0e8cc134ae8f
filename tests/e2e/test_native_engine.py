"""The native engine (dcprof record --engine=native, docs/engine-native.md):
first touches by page faults, heap blocks, threads, fork, a crash, the
"no PMU" line.  Expected numbers are derived in the workloads' comments and
below; software page faults work on any Linux, so only the PMU line and
the comparison with the simulator engine probe and skip."""
import glob
import os
import shutil
import signal
import tempfile
import unittest

from test_engine_common import (query, record, record_killed, run, two_checkpoints_later,
                                workload)
from harness import DCPROF, perf_ok

PAGE = 4096


def native(db, prog_args, opts=("--event=pagefault",)):
    return record(db, prog_args, ["--engine=native"] + list(opts))


def pages(db, name, thread=None):
    sql = ("SELECT COALESCE(SUM(f.pages), 0) FROM first_touch f JOIN bucket b"
           " ON b.id = f.bucket WHERE b.name = ?")
    params = [name]
    if thread is not None:
        sql += " AND f.thread = ?"
        params.append(thread)
    return query(db, sql, *params)[0][0]


def threads_of(db, name):
    return [r[0] for r in query(db, "SELECT DISTINCT f.thread FROM first_touch f JOIN bucket b"
                                " ON b.id = f.bucket WHERE b.name = ?", name)]


def meta(db, key):
    rows = query(db, "SELECT value FROM meta WHERE key = ?", key)
    return rows[0][0] if rows else None


@unittest.skipUnless(perf_ok(), "perf_event_paranoid > 2: no software sampling")
class NativeCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dcprof-native-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def db(self, name="p.db"):
        return os.path.join(self.tmp, name)


class FirstTouch(NativeCase):
    def test_globals(self):
        # first_touch.c: a and b are page-aligned 8 MiB globals, 8 MiB /
        # 4 KiB = 2048 pages each, written once per page; table is one
        # page-aligned page.  Each page faults once for its first touch
        # (a read of .bss would map the zero page and the write fault again,
        # but the engine counts a page once per object).
        db = self.db()
        r = native(db, [workload("first_touch")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(pages(db, "a"), 2048)
        self.assertEqual(pages(db, "b"), 2048)
        self.assertEqual(pages(db, "table"), 1)
        self.assertEqual(meta(db, "engine"), "native")
        self.assertEqual(meta(db, "sample_event"), "pagefault")
        self.assertEqual(meta(db, "samples_lost"), "0")
        # Without -q the summary line counts pages, not the accesses the
        # native engine cannot see.
        loud = run([DCPROF, "record", "--engine=native", "--event=pagefault", "-o",
                    self.db("loud.db"), "--", workload("first_touch")])
        self.assertEqual(loud.returncode, 0, loud.stderr)
        total = query(self.db("loud.db"), "SELECT SUM(pages) FROM first_touch")[0][0]
        self.assertIn("native engine, {:,} pages first touched)".format(total), loud.stderr)
        self.assertNotIn("Dr=", loud.stderr)
        out = run([DCPROF, "report", db, "--first-touch"])
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("engine:   native, event pagefault, period 1", out.stdout)
        self.assertRegex(out.stdout, r"\na +global +2,048 ")

    def test_heap(self):
        # With "heap" the arrays are malloc'ed: 8 MiB is above glibc's mmap
        # threshold, so each is its own mapping, the block 16 bytes past its
        # page start (the chunk header): it overlaps 2049 pages.  malloc
        # writes the header, so page 0 is touched by libc at an address
        # outside the block; the init loop's last store is at offset
        # 8 MiB - 64, 48 bytes before the end of page 2047, so page 2048
        # (the block's last 16 bytes) is never touched: 2047 pages each.
        db = self.db()
        r = native(db, [workload("first_touch"), "heap"])
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = query(db, "SELECT b.id, SUM(f.pages) FROM first_touch f JOIN bucket b"
                     " ON b.id = f.bucket WHERE b.kind = 'heap' GROUP BY b.id")
        self.assertEqual(sorted(p for _, p in rows), [2047, 2047])
        self.assertEqual(pages(db, "a"), 0)

    def test_agrees_with_simulator(self):
        # The simulator engine's first touches per 4 KiB block
        # (--reuse=yes --reuse-block=4096) on the same binary: every page of
        # a, b and table is first touched by the program's own access in
        # both engines, and THP is off for the arrays (MADV_NOHUGEPAGE), so
        # the counts agree exactly.
        if not os.path.exists(os.path.join(os.path.dirname(DCPROF), "..", "lib", "dcprof",
                                           "dcprof-amd64-linux")):
            self.skipTest("the simulator engine is not built")
        nat, sim = self.db("n.db"), self.db("s.db")
        self.assertEqual(native(nat, [workload("first_touch")]).returncode, 0)
        r = record(sim, [workload("first_touch")], ["--reuse=yes", "--reuse-block=4096"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for name in ("a", "b", "table"):
            first = query(sim, "SELECT f.count FROM reuse_first f JOIN bucket b"
                          " ON b.id = f.bucket WHERE b.name = ?", name)[0][0]
            self.assertEqual(pages(nat, name), first, name)


    def test_merge_adds_pages(self):
        # Two processes' first touches are different pages: dcprof merge
        # adds them, 2 x 2048 for each array (derived in test_globals).
        for n in ("1", "2"):
            r = native(self.db(n + ".db"), [workload("first_touch")])
            self.assertEqual(r.returncode, 0, r.stderr)
        m = run([DCPROF, "merge", "-o", self.db("m.db"), self.db("1.db"), self.db("2.db")])
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertEqual(pages(self.db("m.db"), "a"), 4096)
        self.assertEqual(pages(self.db("m.db"), "b"), 4096)
        self.assertEqual(query(self.db("m.db"), "SELECT COUNT(*) FROM first_touch"
                               " WHERE bucket NOT IN (SELECT id FROM bucket)")[0][0], 0)


class Heap(NativeCase):
    def test_block_statistics_equal_the_simulators(self):
        # heap_names.c derives each bucket's statistics; the native engine
        # must find the same blocks.  Its buckets are keyed by call path
        # (named at finalize), so the statistics are compared as a multiset.
        # A thread's first 32 call paths are walked step by step, the later
        # ones by unw_backtrace (nat_heap.c): the buckets of 60, 40 and 50
        # blocks from one call site each span both, so they also check that
        # the two walks give the same path.
        db = self.db()
        r = native(db, [workload("heap_names")])
        self.assertEqual(r.returncode, 0, r.stderr)
        got = sorted(query(db, "SELECT blocks, total_bytes, max_live_blocks, max_live_bytes,"
                           " min_size, max_size FROM bucket WHERE kind = 'heap'"
                           " AND blocks > 0"))
        # from heap_names.c's header: mem_init's three lines, c's block and
        # its realloc to 64 KiB (one bucket, two blocks), safe_malloc's 50
        # nodes, make_zeroed, the three aligned blocks, reuse_a and reuse_b
        want = sorted([(60, 1440, 60, 1440, 24, 24), (40, 960, 40, 960, 24, 24),
                       (1, 1000, 1, 1000, 1000, 1000), (2, 64 + 65536, 1, 65536, 64, 65536),
                       (50, 800, 50, 800, 16, 16), (1, 1000, 1, 1000, 1000, 1000),
                       (1, 256, 1, 256, 256, 256), (1, 512, 1, 512, 512, 512),
                       (1, 100, 1, 100, 100, 100), (1, 4096, 1, 4096, 4096, 4096),
                       (1, 4096, 1, 4096, 4096, 4096)])
        self.assertEqual(got, want)
        n = query(db, "SELECT COUNT(*) FROM block b JOIN bucket k ON k.id = b.bucket"
                  " WHERE k.kind = 'heap'")[0][0]
        self.assertEqual(n, 60 + 40 + 1 + 2 + 50 + 1 + 3 + 2)


class BlockRecords(NativeCase):
    """The native engine writes the block records of the first
    --max-block-records blocks *allocated* (docs/raw-dump.md, `block` and
    `bfree`; docs/schema.md, `block`), with the free sequence number of
    their end or NULL when live at exit."""

    # block_order.c's header: (size, alloc_seq, free_seq) in allocation
    # order.  A C program allocates nothing before main (the runtime's own
    # allocations are not events), so its first malloc is event 1.
    ORDER = [(24, 1, 4), (2000, 2, 8), (40, 3, 6), (100, 5, 10), (48, 7, 12),
             (3000, 9, None), (16, 11, None), (200, 13, None)]

    def blocks(self, k):
        db = self.db("k%d.db" % k)
        r = native(db, [workload("block_order")],
                   ["--event=pagefault", "--max-block-records=%d" % k])
        self.assertEqual(r.returncode, 0, r.stderr)
        return (query(db, "SELECT size, alloc_seq, free_seq FROM block ORDER BY id"),
                int(meta(db, "block_records_dropped")))

    def test_first_k_allocated(self):
        # K = 6 < 8 blocks: a, b, c, d, c' and e, e live at exit; f and g
        # are dropped.  The simulator engine would keep the first 6 *ended*
        # (a, c, b, d, c' and one live at exit).
        self.assertEqual(self.blocks(6), (self.ORDER[:6], 2))

    def test_all_and_none(self):
        self.assertEqual(self.blocks(100), (self.ORDER, 0))
        self.assertEqual(self.blocks(0), ([], 8))

    def test_small_and_large_blocks(self):
        # the blocks up to 1 KiB are the compact block map's, 2000 and 3000
        # the object map's (blockmap.h): both write their records, at the
        # addresses the program got, one block live at an address at a time
        db = self.db()
        self.assertEqual(native(db, [workload("block_order")]).returncode, 0)
        rows = query(db, "SELECT address, alloc_seq, free_seq FROM block ORDER BY alloc_seq")
        for i, (addr, alloc, freed) in enumerate(rows):
            for other, alloc2, freed2 in rows[i + 1:]:
                if other == addr:
                    self.assertIsNotNone(freed)
                    self.assertLess(freed, alloc2)


class SameHeap(NativeCase):
    """Heap buckets named and counted as the simulator engine names and
    counts them, on the heap-naming workloads: equake-style heap_names,
    twolf-style with --alloc-fn=safe_malloc, and C++ new.  Both engines run
    the same binary with the same options; the names come from finalize's
    symbolisation (native) and from Valgrind's debug reader (simulator)."""

    def compare(self, prog, opts=(), skip=()):
        """skip: name prefixes of the simulator's buckets the native engine
        cannot see."""
        nat, sim = self.db("n.db"), self.db("s.db")
        r = native(nat, [workload(prog)], ["--event=pagefault"] + list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        r = record(sim, [workload(prog)], list(opts))
        self.assertEqual(r.returncode, 0, r.stderr)
        sql = ("SELECT name, blocks, total_bytes, max_live_blocks, max_live_bytes, min_size,"
               " max_size FROM bucket WHERE kind = 'heap' AND blocks > 0 ORDER BY name")
        want = [row for row in query(sim, sql) if not row[0].startswith(tuple(skip))]
        self.assertEqual(query(nat, sql), want)
        return want

    def test_heap_names(self):
        # heap_names.c's header: safe_malloc(SITE:safe_malloc) < build_list
        # < main by default, build_list(SITE:list) < main with --alloc-fn
        names = [row[0] for row in self.compare("heap_names")]
        self.assertTrue([n for n in names if n.startswith("safe_malloc (heap_names.c:")
                         and n.endswith(") < build_list < main")], names)

    def test_alloc_fn(self):
        names = [row[0] for row in self.compare("heap_names", ["--alloc-fn=safe_malloc"])]
        self.assertFalse([n for n in names if n.startswith("safe_malloc")], names)
        self.assertTrue([n for n in names if n.startswith("build_list (heap_names.c:")],
                        names)

    def test_cxx_new(self):
        # libstdc++'s emergency exception pool is allocated by its
        # constructor, before the runtime's (engine-native.md, "Objects")
        self.compare("cxx_new", skip=("?(libstdc++.so.6",))


class RuntimePages(NativeCase):
    """The runtime's own first touches are not the program's
    (nat_mem.c, nat_deps.c), and the brk heap's memory outside blocks is
    <malloc> as in the simulator (nat_objs.c nat_bucket_at)."""

    def location_pages(self, db, object_like):
        return query(db, "SELECT COALESCE(SUM(f.pages), 0) FROM first_touch f JOIN location l"
                     " ON l.id = f.location WHERE l.object LIKE ?", object_like)[0][0]

    def test_runtime_tables(self):
        # runtime_tables.c (its header derives the program's pages).  With
        # N = 10^6 blocks the runtime's tables are large; with N = 0 the
        # program is the same start and exit.
        big, none = self.db("big.db"), self.db("none.db")
        for db, n in ((big, "1000000"), (none, "0")):
            r = native(db, [workload("runtime_tables"), n])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(meta(db, "samples_lost"), "0")
        # <unknown>: what the program touches outside its objects does not
        # grow with the runtime's tables (before the runtime had its own
        # memset, about 11,900 pages here).  One more page is the array's
        # chunk header, which malloc writes in the array's own mapping (the
        # array is 0 bytes in the brk heap with N = 0); a loaded machine
        # adds a few single pages that libc's code touches on the runtime's
        # behalf (a checkpoint's 5 s timer firing during the longer run,
        # the reader thread's wake-ups): at most 8 pages in all, against
        # the thousands of the tables.
        self.assertLessEqual(pages(big, "<unknown>"), pages(none, "<unknown>") + 8)
        # The runtime's pages at the end of the allocation loop: the block
        # map's live segments, at least 10^6 / (4096 x 3/4) -> 326 of
        # 4096 x 8 bytes = 32 KiB, each holding at least 7 whole pages that
        # only its memset touched; and libunwind's trace cache (64 pages,
        # runtime_tables.c's header, unwind_self.c's): 326 x 7 + 64.
        runtime = int(meta(big, "samples_runtime"))
        self.assertGreaterEqual(runtime, 326 * 7 + 64)
        # libunwind and liblzma are loaded only for the runtime: none of
        # their faults are the program's.
        self.assertEqual(self.location_pages(big, "%libunwind%"), 0)
        self.assertEqual(self.location_pages(big, "%liblzma%"), 0)
        # The array: pages 1..1953 of its mapping, written by main.
        arr = query(big, "SELECT b.name, SUM(f.pages) FROM first_touch f JOIN bucket b"
                    " ON b.id = f.bucket WHERE b.kind = 'heap' AND b.name != '<malloc>'"
                    " GROUP BY b.id ORDER BY 2 DESC")
        self.assertEqual(arr[0][1], 1953, arr)
        # The 16-byte blocks' chunks: 10^6 x 32 bytes = 7812 whole pages of
        # the brk heap the program never writes.  Each is first touched by
        # the allocator (its bookkeeping outside the blocks: <malloc>; or
        # inside one: the blocks' bucket) or by the runtime, whose own
        # chunks share the heap (at most samples_runtime pages).
        blocks = sum(p for _, p in arr[1:])
        self.assertGreaterEqual(pages(big, "<malloc>") + blocks + runtime, 7812)
        self.assertGreater(pages(big, "<malloc>"), 0)
        kinds = query(big, "SELECT kind FROM bucket WHERE name = '<malloc>'")
        self.assertEqual(kinds, [("heap",)])

    def test_program_linking_libunwind_keeps_its_pages(self):
        # unwind_self.c links libunwind and calls unw_backtrace: its trace
        # cache's 64 pages are first touched by libunwind for the program.
        db = self.db()
        r = native(db, [workload("unwind_self")])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreaterEqual(self.location_pages(db, "%libunwind%"), 64)


class Processes(NativeCase):
    def test_threads(self):
        # threads.c: thr_a and thr_b (1 MiB, 64-byte aligned: 256 pages, or
        # 257 when not page-aligned) are read by one thread each; the pages
        # are first touched on that thread, not main (1), and not the same.
        # A page an array shares with a neighbour main touched first counts
        # for the neighbour: 255 to 257.
        db = self.db()
        r = native(db, [workload("threads")])
        self.assertEqual(r.returncode, 0, r.stderr)
        ta, tb = threads_of(db, "thr_a"), threads_of(db, "thr_b")
        self.assertEqual(len(ta), 1)
        self.assertEqual(len(tb), 1)
        self.assertNotIn(1, ta + tb)
        self.assertNotEqual(ta, tb)
        self.assertIn(pages(db, "thr_a"), (255, 256, 257))
        self.assertIn(pages(db, "thr_b"), (255, 256, 257))

    def test_fork(self):
        # fork_counts.c: the parent reads parent_data (64 KiB: 16 or 17
        # pages), forks; the child reads child_data (32 KiB: 8 or 9 pages)
        # and _exits.  The child's profile counts from the fork.
        db = self.db()
        r = native(db, [workload("fork_counts")])
        self.assertEqual(r.returncode, 0, r.stderr)
        children = [f for f in os.listdir(self.tmp) if f.startswith("p.") and f != "p.db"]
        self.assertEqual(len(children), 1, os.listdir(self.tmp))
        child = os.path.join(self.tmp, children[0])
        self.assertIn(pages(db, "parent_data"), (16, 17))
        self.assertEqual(pages(db, "child_data"), 0)
        self.assertIn(pages(child, "child_data"), (8, 9))
        self.assertEqual(pages(child, "parent_data"), 0)

    def test_crash(self):
        # segv.c reads crash_arr (1 MiB: 256 or 257 pages), then stores
        # through NULL: the profile is written at the signal, incomplete,
        # and record exits 128 + 11.
        db = self.db()
        r = native(db, [workload("segv")])
        self.assertEqual(r.returncode, 139, r.stderr)
        self.assertIn(pages(db, "crash_arr"), (256, 257))
        self.assertEqual(meta(db, "complete"), "0")


# Libraries the runtime itself needs (libunwind and its liblzma): not the
# program's, the simulator never sees them.
RUNTIME_LIBS = ("@libunwind.so.8", "@liblzma.so.5", "<file:libunwind.so.8>",
                "<file:liblzma.so.5>")


def bucket_rows(db, kind):
    return query(db, "SELECT name, blocks, max_live_blocks, max_live_bytes, total_bytes,"
                 " min_size, max_size FROM bucket WHERE kind = ?", kind)


class SameBuckets(NativeCase):
    """The two engines find the same objects in the same program (issue
    23): every global and thread-local variable of the program and of the
    libraries it loads, with the same names, and the program's mappings."""

    def both(self, prog):
        if not os.path.exists(os.path.join(os.path.dirname(DCPROF), "..", "lib", "dcprof",
                                           "dcprof-amd64-linux")):
            self.skipTest("the simulator engine is not built")
        nat, sim = self.db("n.db"), self.db("s.db")
        r = native(nat, prog)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = record(sim, prog, [])
        self.assertEqual(r.returncode, 0, r.stderr)
        return nat, sim

    def test_globals_and_thread_locals(self):
        # tls_threads.c: the program's, its library's and libc's
        # thread-local variables, one copy per thread (main and two
        # threads, alive at once): tls_arr 3 blocks of 4096 bytes, and so
        # on (the workload's header); the statistics of every global and
        # thread-local bucket equal the simulator's
        nat, sim = self.both([workload("tls_threads")])
        got = {row[0]: row[1:] for row in bucket_rows(nat, "global")
               if not row[0].endswith(RUNTIME_LIBS)}
        want = {row[0]: row[1:] for row in bucket_rows(sim, "global")}
        self.assertEqual(sorted(got), sorted(want))
        self.assertEqual(got, want)
        self.assertEqual(got["tls_arr"], (3, 3, 12288, 12288, 4096, 4096))
        self.assertEqual(got["lib_tls@libtls_threads.so"][0], 3)
        self.assertEqual(got["errno@libc.so.6"][0], 3)

    def test_mappings(self):
        # mmap_region.c maps two anonymous regions from two functions: two
        # buckets of kind mmap, each named after its call path in both
        # engines (the native one's by finalize, from its hpath),
        # "<mmap:map_region-main>" and "<mmap:drop_region-main>", and the
        # 1 MiB region's 256 pages are first touched by fill(); the other
        # one is touched once; the file mappings of the program and the
        # libraries it loads are <file:NAME> in both engines (the
        # simulator also sees the dynamic linker's own mappings)
        nat, sim = self.both([workload("mmap_region")])
        anon = [n for (n,) in query(sim, "SELECT name FROM bucket WHERE kind = 'mmap'"
                                    " AND name LIKE '<mmap:%-main>'")]
        self.assertEqual(sorted(anon), ["<mmap:drop_region-main>", "<mmap:map_region-main>"])
        paths = query(nat, "SELECT b.name, COALESCE(SUM(f.pages), 0) FROM bucket b LEFT JOIN"
                      " first_touch f ON f.bucket = b.id WHERE b.kind = 'mmap'"
                      " AND b.name LIKE '<mmap:%-main>' GROUP BY b.id")
        self.assertEqual(sorted(n for n, _ in paths), sorted(anon))
        self.assertEqual(sorted(p for _, p in paths), [1, 256])
        files = lambda db: {n for (n,) in query(db, "SELECT name FROM bucket WHERE kind = 'mmap'"
                                                " AND name LIKE '<file:%'")}
        self.assertEqual(files(nat) - set(RUNTIME_LIBS),
                         files(sim) - {"<file:ld.so.cache>"})


class Exec(NativeCase):
    """Every image a process runs gets its own profile, as under the
    simulator engine (test_engine_exec.py): the one before the exec is
    written whole and named p.PID.N-PROG.db.  exec_work.c reads one word of
    each 64-byte line of work_a (64 KiB, 64-byte aligned: 16 pages, 17 when
    not page-aligned); exec_list.c stores one word in each of list_data's 8
    page-aligned pages, then execs."""
    WORK = workload("exec_work")

    def profiles(self):
        return sorted(glob.glob(os.path.join(self.tmp, "*.db")))

    def check_work(self, db, status):
        self.assertEqual(meta(db, "program"), self.WORK)
        self.assertEqual(meta(db, "complete"), "1")
        self.assertEqual(meta(db, "exit_status"), status)
        self.assertIn(pages(db, "work_a"), (16, 17))

    def test_through_env(self):
        # env execs exec_work, which exits 99 unless FOO=1 reached it
        db = self.db()
        r = native(db, ["env", "FOO=1", self.WORK, "a", "5", "FOO"])
        self.assertEqual(r.returncode, 5, r.stderr)
        self.check_work(db, "exit 5")
        self.assertEqual(meta(db, "command"), self.WORK + " a 5 FOO")
        env_db = self.db("p.%s.1-env.db" % meta(db, "pid"))
        self.assertEqual(self.profiles(), sorted([db, env_db]))
        self.assertEqual(meta(env_db, "complete"), "1")
        self.assertEqual(meta(env_db, "exec"), self.WORK)
        self.assertIsNone(meta(env_db, "exit_status"))
        self.assertEqual(pages(env_db, "work_a"), 0)

    def test_argument_list_calls(self):
        # execl, execlp (by name, through PATH) and execle (an environment
        # of FOO=1 only: the runtime puts its own variables back, so the
        # next image is profiled, and FOO=1 reaches it)
        for form in ("l", "p", "e"):
            with self.subTest(form=form):
                for f in self.profiles():
                    os.unlink(f)
                db = self.db()
                r = native(db, [workload("exec_list"), form, self.WORK, "a", "5"] +
                           (["FOO"] if form == "e" else []))
                self.assertEqual(r.returncode, 5, r.stderr)
                self.check_work(db, "exit 5")
                before = self.db("p.%s.1-exec_list.db" % meta(db, "pid"))
                self.assertEqual(self.profiles(), sorted([db, before]))
                self.assertEqual(meta(before, "complete"), "1")
                self.assertEqual(os.path.basename(meta(before, "exec")), "exec_work")
                self.assertEqual(pages(before, "list_data"), 8)
                self.assertEqual(pages(db, "list_data"), 0)

    def test_exit_code_of_a_child(self):
        # the shell's child execs exec_work, which exits 3: record knows only
        # the shell's status, the child's comes from its dump (meta
        # exit_code, as the simulator engine writes it).  dash starts the
        # child with vfork: its copy of the shell runs no code of its own
        # before the exec, so the child has one image, p.PID.db (under the
        # simulator, which runs vfork as fork, p.PID.2-exec_work.db)
        db = self.db()
        r = native(db, ["sh", "-c", "%s a 3; exit 0" % self.WORK])
        self.assertEqual(r.returncode, 0, r.stderr)
        by_command = {meta(f, "command"): f for f in self.profiles()}
        child = by_command[self.WORK + " a 3"]
        self.assertRegex(os.path.basename(child), r"^p\.\d+(\.\d+-exec_work)?\.db$")
        self.check_work(child, "exit 3")
        self.assertEqual(meta(db, "exit_status"), "exit 0")


class Checkpoint(NativeCase):
    def test_sigkill_leaves_the_last_checkpoint(self):
        # sigterm.c "spin" reads term_arr (1 MiB, 64-byte aligned: 256
        # pages, 257 when not page-aligned), prints "ready PID" and spins
        # without touching data until SIGKILL.  The runtime's dump is never
        # finished: the profile is its last checkpoint, taken by the reader
        # thread every --checkpoint seconds.  The second checkpoint to
        # replace the one seen at "ready" began after the reads.
        raw = os.path.join(self.tmp, "raw")
        os.mkdir(raw)
        db = self.db()
        def after_two_checkpoints(pid):
            seen = two_checkpoints_later(raw, pid)
            self.assertEqual(len(seen), 3, "fewer than two checkpoints in 60 s: %r" % seen)

        rc, err = record_killed(db, ["--engine=native", "--event=pagefault", "--checkpoint=0.2"],
                                [workload("sigterm"), "spin"], signal.SIGKILL, raw,
                                after_two_checkpoints)
        self.assertEqual(rc, 128 + signal.SIGKILL, err)
        self.assertEqual(meta(db, "complete"), "0")
        self.assertEqual(meta(db, "exit_status"), "signal 9")
        self.assertRegex(meta(db, "incomplete_reason"), r"^killed by signal 9 \(SIGKILL\);"
                         r" profile of the run up to the checkpoint at \d+\.\d s$")
        self.assertGreaterEqual(int(meta(db, "checkpoint_ms")), 400)
        self.assertIn(pages(db, "term_arr"), (256, 257))
        self.assertEqual(os.listdir(raw), [], "temporary files left behind")


class Errors(unittest.TestCase):
    def test_no_pmu(self):
        if os.path.exists("/sys/bus/event_source/devices/cpu") or \
           os.path.exists("/sys/bus/event_source/devices/ibs_op") or \
           os.path.exists("/sys/bus/event_source/devices/arm_spe_0"):
            self.skipTest("this machine has a PMU")
        tmp = tempfile.mkdtemp(prefix="dcprof-native-")
        try:
            db = os.path.join(tmp, "p.db")
            r = record(db, [workload("first_touch")], ["--engine=native"])
            self.assertEqual(r.returncode, 2)
            lines = r.stderr.splitlines()
            self.assertEqual(len(lines), 1, r.stderr)
            self.assertRegex(lines[0], r"^dcprof record: no PMU with data-address sampling on"
                             r" this machine \(perf_event_open: .+\); try --event=pagefault"
                             r" or the simulator engine$")
            self.assertFalse(os.path.exists(db))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_simulator_options_refused(self):
        r = record("/tmp/never.db", [workload("first_touch")],
                   ["--engine=native", "--event=pagefault", "--reuse=yes"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--reuse is an option of the simulator engine", r.stderr)

    def test_event_needs_native(self):
        r = record("/tmp/never.db", [workload("first_touch")], ["--event=pagefault"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--event needs --engine=native", r.stderr)


if __name__ == "__main__":
    unittest.main()
