"""dcprof finalize: raw dump -> SQLite profile (docs/raw-dump.md,
docs/schema.md).  Expected values come from fixtures/two_level.raw and the
derivation in test_cli_common.py."""
import os
import sqlite3
import time

from harness import DCPROF, RAW_READ_VERSION, SCHEMA_VERSION, run
from test_cli_common import (EVIL, SAMPLED_EVICT, TWO_LEVEL, CliTest, makefile_version,
                             meta, query_bytes)


def fixture_lines(path=TWO_LEVEL):
    with open(path, "rb") as f:
        return f.read().split(b"\n")[:-1]


class FinalizeTables(CliTest):
    def setUp(self):
        super().setUp()
        self.db = self.profile()

    def test_pragmas(self):
        con = sqlite3.connect(self.db)
        try:
            self.assertEqual(con.execute("PRAGMA application_id").fetchone()[0], 0x64637066)
            self.assertEqual(con.execute("PRAGMA user_version").fetchone()[0], SCHEMA_VERSION)
        finally:
            con.close()

    def test_meta(self):
        m = meta(self.db)
        # dcprof's own keys
        self.assertEqual(m["schema_version"], str(SCHEMA_VERSION))
        self.assertEqual(m["dcprof_version"], makefile_version())
        self.assertEqual(m["complete"], "1")
        self.assertNotIn("incomplete_reason", m)
        self.assertEqual(m["exit_status"], "exit 0")   # from meta exit_code 0
        self.assertEqual(m["levels"], "2")
        self.assertEqual(m["memory_latency"], "200")
        # the engine's keys, unescaped
        self.assertEqual(m["program"], "/opt/demo/bin/demo")
        self.assertEqual(m["command"], "demo --size 100")
        self.assertEqual(m["cache_reason"], "given with --cache=L1=32K:8:64,L2=1M:16:64")
        self.assertEqual(m["pid"], "4242")

    def test_levels(self):
        rows = query_bytes(self.db, "SELECT * FROM level ORDER BY level")
        self.assertEqual(rows, [(1, b"L1", 32768, 8, 64, 4), (2, b"L2", 1048576, 16, 64, 14)])

    def test_buckets_and_stats(self):
        rows = query_bytes(self.db, "SELECT * FROM bucket ORDER BY id")
        self.assertEqual(rows, [
            (0, b"arr_a", b"global", 1, 1, 4096, 4096, 4096, 4096),
            (1, b"list-main", b"heap", 10, 5, 500, 1000, 50, 200),
            (2, EVIL, b"user", 2, 1, 64, 96, 32, 64),
            (3, b"[stack]", b"stack", None, None, None, None, None, None),
            (4, b"grid 100%", b"heap", 1, 1, 64, 64, 64, 64),
        ])

    def test_locations(self):
        rows = query_bytes(self.db, "SELECT * FROM location ORDER BY id")
        self.assertEqual(rows, [
            # a version 1 dump: nothing is inlined (inlined_into empty,
            # no outer function, file and line)
            (0, 0x401000, b"/opt/demo/bin/demo", b"main", b"a.c", 10, b"", None, None, None),
            (1, 0x401010, b"/opt/demo/bin/demo", b"main", b"a.c", 11, b"", None, None, None),
            (2, 0x402000, b"/opt/demo/bin/demo", b"walk", b"b.c", 20, b"", None, None, None),
        ])

    def test_costs(self):
        rows = query_bytes(self.db, "SELECT * FROM cost ORDER BY bucket, location, thread")
        # levels 3 and 4 do not exist: their columns are 0
        self.assertEqual(rows, [
            (0, 0, 1, 1000, 0, 100, 0, 10, 0, 0, 0, 0, 0, 6860),
            (0, 1, 1, 0, 500, 0, 50, 0, 50, 0, 0, 0, 0, 11800),
            (1, 2, 1, 2000, 1000, 200, 100, 0, 0, 0, 0, 0, 0, 15000),
            (1, 2, 2, 100, 0, 100, 0, 100, 0, 0, 0, 0, 0, 20000),
            (2, 0, 1, 10, 10, 0, 0, 0, 0, 0, 0, 0, 0, 80),
        ])

    def test_blocks(self):
        rows = query_bytes(self.db, "SELECT bucket, address, size, alloc_seq, free_seq"
                           " FROM block ORDER BY id")
        # free 0 = live at exit = NULL
        self.assertEqual(rows, [(1, 0x10000, 50, 1, 2), (1, 0x20000, 200, 3, None),
                                (4, 0x30000, 64, 4, 5)])

    def test_indexes(self):
        rows = query_bytes(self.db, "SELECT tbl_name, sql FROM sqlite_master WHERE type='index'"
                           " AND sql IS NOT NULL")
        got = {(t.decode(), s.decode().split("ON ")[1].replace(" ", "")) for t, s in rows}
        self.assertEqual(got, {("cost", "cost(location)"), ("block", "block(bucket)")})

    def test_summary_line(self):
        # two_level.raw declares 5 buckets; cost records name 0, 1 and 2
        r, _ = self.finalize(TWO_LEVEL, "q.db")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "dcprof: wrote %s (3 buckets accessed, Dr=3,110, Dw=1,510,"
                         " D1 misses=550, LL misses=160)\n" % self.path("q.db"))
        r, _ = self.finalize(TWO_LEVEL, "q2.db", "-q")
        self.assertEqual((r.returncode, r.stderr), (0, ""))


class FinalizeIncomplete(CliTest):
    """complete=0 and a reason when the dump has no end record, ends with
    `end 0`, or the process was killed (--exit-status signal:N)."""

    def dump(self, lines, tail=b"\n"):
        return self.write("d.raw", b"\n".join(lines) + tail)

    def test_complete_exit_status_from_option(self):
        r, db = self.finalize(TWO_LEVEL, "p.db", "--exit-status", "exit:3")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = meta(db)
        self.assertEqual((m["complete"], m["exit_status"]), ("1", "exit 3"))

    def test_killed_by_signal(self):
        r, db = self.finalize(TWO_LEVEL, "p.db", "--exit-status", "signal:15")
        self.assertEqual(r.returncode, 0, r.stderr)
        m = meta(db)
        self.assertEqual(m["complete"], "0")
        self.assertEqual(m["incomplete_reason"], "killed by signal 15 (SIGTERM)")
        self.assertEqual(m["exit_status"], "signal 15")

    def test_no_end_record(self):
        db = self.profile(self.dump(fixture_lines()[:-1]))
        m = meta(db)
        self.assertEqual(m["complete"], "0")
        self.assertEqual(m["incomplete_reason"], "the raw dump was cut short (no end record)")
        self.assertEqual(len(query_bytes(db, "SELECT * FROM cost")), 5)

    def test_end_zero(self):
        db = self.profile(self.dump(fixture_lines()[:-1] + [b"end 0"]))
        m = meta(db)
        self.assertEqual(m["complete"], "0")
        self.assertEqual(m["incomplete_reason"], "the raw dump was written at a fatal signal")

    def test_checkpoint(self):
        # a checkpoint (docs/engine.md): meta checkpoint_ms and end 0
        db = self.profile(self.dump(fixture_lines()[:-1] + [b"meta checkpoint_ms 2049",
                                                             b"end 0"]))
        m = meta(db)
        self.assertEqual(m["complete"], "0")
        self.assertEqual(m["incomplete_reason"],
                         "profile of the run up to the checkpoint at 2.0 s")
        self.assertEqual(m["checkpoint_ms"], "2049")
        r, db = self.finalize(self.dump(fixture_lines()[:-1] + [b"meta checkpoint_ms 61500",
                                                                b"end 0"]),
                              "k.db", "--exit-status", "signal:9")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(meta(db)["incomplete_reason"], "killed by signal 9 (SIGKILL); profile"
                         " of the run up to the checkpoint at 61.5 s")

    def test_bad_checkpoint_meta(self):
        r, _ = self.finalize(self.dump(fixture_lines()[:-1] + [b"meta checkpoint_ms soon",
                                                               b"end 0"]))
        self.assertError(r, "dcprof finalize", "field 2: 'soon' is not an unsigned decimal number")

    def test_partial_last_line_is_dropped(self):
        # cut in the middle of the last cost line: that line is lost, the
        # four before it are kept, and the profile says it is incomplete
        lines = fixture_lines()[:-2] + [b"cost 2 0 1 10 1"]
        db = self.profile(self.dump(lines, tail=b""))
        self.assertEqual(meta(db)["complete"], "0")
        self.assertEqual(len(query_bytes(db, "SELECT * FROM cost")), 4)

    def test_bad_exit_status_option(self):
        for bad in ("exit", "exit:256", "signal:0", "signal:x", "killed:9"):
            r, db = self.finalize(TWO_LEVEL, "p.db", "--exit-status", bad)
            self.assertError(r, "dcprof finalize", "invalid --exit-status '%s'" % bad)
            self.assertFalse(os.path.exists(db))


class DumpErrors(CliTest):
    """A malformed dump: one line naming the file and line, exit 2, and no
    profile (nor its temporary) left behind.  Holds no tests."""

    def check(self, data, message, line=None):
        raw = self.write("bad.raw", data)
        r, db = self.finalize(raw)
        where = "cannot read raw dump '%s': " % raw
        if line is not None:
            where += "line %d: " % line
        self.assertError(r, "dcprof finalize", where + message)
        self.assertFalse(os.path.exists(db), "profile left behind")
        self.assertFalse(os.path.exists(db + ".tmp"), "temporary profile left behind")

    def replace(self, index, new):
        lines = list(self.GOOD)
        lines[index] = new
        return b"\n".join(lines) + b"\n"


def native_blocks(extra, version=b"9"):
    """fixtures/two_level.raw as a dump of VERSION with EXTRA lines after
    its block records (line 21, the last one, is block 4 0x30000 64 4 5;
    the extra lines start at line 22); its loc records get the INLINED
    field of version 6 (empty)."""
    lines = [l + b" %-" if l.startswith(b"loc ") else l for l in fixture_lines()]
    lines[0] = b"dcprof-raw " + version
    return b"\n".join(lines[:21] + extra + lines[21:]) + b"\n"


class FinalizeSymbolVersions(CliTest):
    """Valgrind names a function by its versioned symbol
    (fopen@@GLIBC_2.2.5); the location table names it as the program
    calls it, the function and the one it was inlined into (version 6's
    INLINED field) alike."""

    def test_function_names_without_versions(self):
        lines = [l.replace(b"dcprof-raw 1", b"dcprof-raw 6") for l in fixture_lines()]
        i = next(k for k, l in enumerate(lines) if l.startswith(b"loc 2 "))
        lines = [l + b" %-" if l.startswith(b"loc ") else l for l in lines]
        lines[i] = b"loc 2 0x402000 /lib/libc.so.6 fopen@@GLIBC_2.2.5 b.c 20 _IO_x@GLIBC_2.2.5"
        db = self.profile(self.write("v.raw", b"\n".join(lines) + b"\n"))
        rows = query_bytes(db, "SELECT function, inlined_into FROM location WHERE id = 2")
        self.assertEqual(rows, [(b"fopen", b"_IO_x")])
        self.assertEqual(query_bytes(db, "SELECT COUNT(*) FROM location WHERE function"
                                     " LIKE '%@%'"), [(0,)])


class FinalizeOuter(CliTest):
    """Version 10: a loc record ends with OUTFN OUTFILE OUTLINE, the outer
    line of inlined code, stored as location.outer_function, outer_file
    and outer_line (NULL for %- %- 0: not inlined)."""

    def dump(self, loc2):
        lines = [l.replace(b"dcprof-raw 1", b"dcprof-raw 10") for l in fixture_lines()]
        lines = [l + b" %- %- %- 0" if l.startswith(b"loc ") else l for l in lines]
        i = next(k for k, l in enumerate(lines) if l.startswith(b"loc 2 "))
        lines[i] = loc2
        return b"\n".join(lines) + b"\n"

    def test_outer_columns(self):
        db = self.profile(self.write("o.raw", self.dump(
            b"loc 2 0x402000 /opt/demo/bin/demo operator[] /usr/include/v.h 1123 walk"
            b" walk(int)@@V1 /src/my%20dir/b.c 20")))
        self.assertEqual(query_bytes(db, "SELECT id, function, inlined_into, outer_function,"
                                     " outer_file, outer_line FROM location ORDER BY id"),
                         [(0, b"main", b"", None, None, None), (1, b"main", b"", None, None, None),
                          (2, b"operator[]", b"walk", b"walk(int)", b"/src/my dir/b.c", 20)])

    def test_field_count(self):
        # line 6 is loc 2 (fixtures/two_level.raw): 10 fields from version 10
        r, _ = self.finalize(self.write("o.raw", self.dump(
            b"loc 2 0x402000 /opt/demo/bin/demo walk b.c 20 %-")))
        self.assertEqual(r.returncode, 2)
        self.assertIn("loc record has 7 fields, expected 10", r.stderr)


class FinalizeBfree(CliTest):
    """Version 9: the native engine writes a block's record at its
    allocation (FREE 0) and bfree ADDR FREE at its end; finalize pairs
    the bfree with the block live at ADDR (docs/raw-dump.md)."""

    def test_pairs_with_the_block_live_at_its_address(self):
        # two_level.raw's blocks: 0x10000 (freed 2), 0x20000 (live), 0x30000
        # (freed 5).  bfree 0x20000 7 ends the live one; a new block at
        # 0x20000 (alloc 8) is then live at exit; a block live at 0x40000
        # (alloc 9) ended by bfree 10.
        raw = self.write("b.raw", native_blocks([b"bfree 0x20000 7", b"block 2 0x20000 16 8 0",
                                                 b"block 1 0x40000 8 9 0",
                                                 b"bfree 0x40000 10"]))
        db = self.profile(raw)
        rows = query_bytes(db, "SELECT bucket, address, size, alloc_seq, free_seq"
                           " FROM block ORDER BY id")
        self.assertEqual(rows, [(1, 0x10000, 50, 1, 2), (1, 0x20000, 200, 3, 7),
                                (4, 0x30000, 64, 4, 5), (2, 0x20000, 16, 8, None),
                                (1, 0x40000, 8, 9, 10)])


class FinalizeBfreeErrors(DumpErrors):
    GOOD = ()

    def test_no_block_live_there(self):
        # 0x10000's block ended in its own record (FREE 2): nothing is live
        self.check(native_blocks([b"bfree 0x10000 6"]),
                   "bfree at 0x10000, where no block record is live", 22)

    def test_twice(self):
        self.check(native_blocks([b"bfree 0x20000 6", b"bfree 0x20000 7"]),
                   "bfree at 0x20000, where no block record is live", 23)

    def test_free_zero(self):
        self.check(native_blocks([b"bfree 0x20000 0"]),
                   "bfree with free sequence number 0", 22)

    def test_fields(self):
        self.check(native_blocks([b"bfree 0x20000"]), "bfree record has 1 fields, expected 2",
                   22)

    def test_unknown_before_version_9(self):
        self.check(native_blocks([b"bfree 0x20000 6"], b"8"), "unknown record type 'bfree'",
                   22)


class FinalizeErrors(DumpErrors):
    GOOD = fixture_lines()

    def test_missing_file(self):
        r, db = self.finalize(self.path("nonexistent.raw"))
        self.assertError(r, "dcprof finalize", "cannot read raw dump '%s': No such file"
                         % self.path("nonexistent.raw"))

    def test_empty(self):
        self.check(b"", "empty file")

    def test_garbage_text(self):
        self.check(b"hello world\n", "not a dcprof raw dump", 1)

    def test_binary_garbage(self):
        self.check(bytes(range(256)) * 4, "NUL byte in line", 1)

    def test_newer_version(self):
        newer = RAW_READ_VERSION + 1
        self.check(b"dcprof-raw %d\n" % newer, "raw dump version %d is not supported (this"
                   " dcprof reads 1 to %d)" % (newer, RAW_READ_VERSION), 1)

    def test_truncated_before_levels(self):
        self.check(b"\n".join(self.GOOD[:4]) + b"\n", "no level records")

    def test_cost_with_too_few_fields(self):
        # line 27 is the first cost line; with two levels a cost record has
        # 10 fields after its type: bucket loc thread Dr Dw 2x2 misses Lat
        self.assertTrue(self.GOOD[26].startswith(b"cost "))
        self.check(self.replace(26, b"cost 0 0 1 1000 0 100 0 6860"),
                   "cost record has 8 fields, expected 10", 27)

    def test_bad_escape(self):
        self.check(self.replace(13, b"bucket 2 user bad%G1name"),
                   "field 3: '%' not followed by two hex digits", 14)

    def test_unknown_record(self):
        self.check(self.replace(10, b"frobnicate 1"), "unknown record type 'frobnicate'", 11)

    def test_unknown_bucket_kind(self):
        self.check(self.replace(11, b"bucket 0 weird arr_a"), "unknown bucket kind 'weird'", 12)

    def test_undeclared_bucket(self):
        self.check(self.replace(26, b"cost 9 0 1 1000 0 100 0 10 0 6860"),
                   "bucket 9 is not declared", 27)

    def test_duplicate_bucket(self):
        self.check(self.replace(12, b"bucket 0 heap again"), "duplicate bucket ID 0", 13)

    def test_duplicate_cost(self):
        self.check(self.replace(27, self.GOOD[26]), "duplicate cost record", 28)

    def test_number_out_of_range(self):
        self.check(self.replace(26, b"cost 0 0 1 99999999999999999999 0 100 0 10 0 6860"),
                   "field 4: number out of range", 27)

    def test_not_a_number(self):
        self.check(self.replace(26, b"cost 0 0 1 1e3 0 100 0 10 0 6860"),
                   "field 4: '1e3' is not an unsigned decimal number", 27)

    def test_double_space(self):
        self.check(self.replace(26, b"cost 0 0 1  1000 0 100 0 10 0 6860"), "empty field", 27)

    def test_record_after_end(self):
        self.check(b"\n".join(self.GOOD) + b"\nend 1\n", "record after the end record",
                   len(self.GOOD) + 1)

    def test_level_gap(self):
        self.check(self.replace(8, b"level 3 L3 1048576 16 64 14"), "level 3 out of order", 9)

    def test_existing_profile_untouched(self):
        raw = self.write("bad.raw", b"garbage\n")
        db = self.write("p.db", b"previous contents")
        r = run([DCPROF, "finalize", raw, "-o", db])
        self.assertEqual(r.returncode, 2)
        with open(db, "rb") as f:
            self.assertEqual(f.read(), b"previous contents")


class FinalizeVersion2(CliTest):
    """The records of raw dump version 2 (fixtures/sampled_evict.raw) and
    their tables (docs/schema.md, version 2)."""

    def setUp(self):
        super().setUp()
        self.db = self.profile(SAMPLED_EVICT)

    def test_cost_sampled(self):
        rows = query_bytes(self.db, "SELECT * FROM cost_sampled ORDER BY bucket, location")
        self.assertEqual(len(rows), 6)
        self.assertEqual(rows[0], (0, 0, 1, 2000, 0, 2000, 0, 500, 0, 0, 0, 0, 0, 121000))
        self.assertEqual(rows[2], (1, 1, 1, 0, 3500, 0, 3500, 0, 3500, 0, 0, 0, 0, 700000))

    def test_eviction(self):
        rows = query_bytes(self.db, "SELECT * FROM eviction ORDER BY sampled, level, victim,"
                           " evictor, location")
        self.assertEqual(len(rows), 19)    # 12 + 2 exact, 5 sampled
        self.assertEqual(rows[0], (1, 0, 0, 0, 600, 0))
        self.assertEqual(rows[-1], (1, 3, 2, 3, 100, 1))
        self.assertEqual(query_bytes(self.db, "SELECT level, SUM(count) FROM eviction"
                                     " WHERE sampled = 0 GROUP BY level"), [(1, 3550), (2, 1000)])

    def test_level_fill_and_residency(self):
        self.assertEqual(query_bytes(self.db, "SELECT * FROM level_fill ORDER BY level"),
                         [(1, 10000, 6450, 3550), (2, 4100, 3100, 1000)])
        rows = dict(((b, l), a) for b, l, a in
                    query_bytes(self.db, "SELECT * FROM residency"))
        # MILLILINES / 1000
        self.assertEqual(rows[(0, 2)], 1024.0)
        self.assertEqual(rows[(1, 1)], 128.5)
        self.assertEqual(rows[(3, 1)], 15.5)
        self.assertEqual(len(rows), 8)

    def test_meta_and_summary(self):
        m = meta(self.db)
        self.assertEqual((m["schema_version"], m["evictions"], m["sample_event"],
                          m["sample_period"], m["sample_seed"], m["samples"]),
                         (str(SCHEMA_VERSION), "yes", "D1m", "100", "7", "100"))
        # the summary counts the exact costs only (their 5 buckets)
        r, _ = self.finalize(SAMPLED_EVICT, "q.db")
        self.assertEqual(r.stderr, "dcprof: wrote %s (5 buckets accessed, Dr=15,200, Dw=5,000,"
                         " D1 misses=10,000, LL misses=4,100)\n" % self.path("q.db"))

    def test_version_1_profile_has_no_new_tables(self):
        # a version 1 dump still gives a current profile, with empty tables
        db = self.profile(TWO_LEVEL)
        for table in ("cost_sampled", "eviction", "level_fill", "residency", "reuse_hist",
                      "reuse_first", "reuse_pair", "cache_use"):
            self.assertEqual(query_bytes(db, "SELECT COUNT(*) FROM %s" % table), [(0,)])


class FinalizeVersion2Errors(DumpErrors):
    GOOD = fixture_lines(SAMPLED_EVICT)

    def line(self, prefix):
        """Index of the first line starting with prefix."""
        return next(i for i, l in enumerate(self.GOOD) if l.startswith(prefix))

    def test_version_2_records_in_a_version_1_dump(self):
        lines = list(self.GOOD)
        lines[0] = b"dcprof-raw 1"
        i = self.line(b"scost ")
        self.check(b"\n".join(lines) + b"\n", "unknown record type 'scost'", i + 1)

    def test_fill_does_not_add_up(self):
        i = self.line(b"fill 1 ")
        self.check(self.replace(i, b"fill 1 10000 6450 3551"),
                   "fill record: 10000 fills are not 6450 empty + 3551 evictions", i + 1)

    def test_undeclared_references(self):
        i = self.line(b"evict 1 0 0 0 ")
        self.check(self.replace(i, b"evict 1 9 0 0 600"), "bucket 9 is not declared", i + 1)
        self.check(self.replace(i, b"evict 1 0 0 7 600"), "location 7 is not declared", i + 1)
        self.check(self.replace(i, b"evict 3 0 0 0 600"), "level 3 does not exist (2 levels)",
                   i + 1)
        i = self.line(b"resid 1 1 ")
        self.check(self.replace(i, b"resid 1 0 128500"), "level 0 does not exist", i + 1)

    def test_duplicates(self):
        for prefix, what in ((b"evict 1 0 0 0 ", "duplicate evict record"),
                             (b"sevict 1 0 0 0 ", "duplicate sevict record"),
                             (b"fill 1 ", "duplicate fill record"),
                             (b"resid 1 1 ", "duplicate resid record"),
                             (b"scost 0 0 ", "duplicate scost record")):
            i = self.line(prefix)
            lines = list(self.GOOD)
            lines.insert(i, lines[i])
            self.check(b"\n".join(lines) + b"\n", what, i + 2)

    def test_field_counts(self):
        i = self.line(b"scost ")
        self.check(self.replace(i, b"scost 0 0 1 2000 0 2000 0 121000"),
                   "scost record has 8 fields, expected 10", i + 1)
        i = self.line(b"evict ")
        self.check(self.replace(i, b"evict 1 0 0 0"), "evict record has 4 fields, expected 5",
                   i + 1)

    def test_level_after_records_that_use_levels(self):
        lines = list(self.GOOD)
        i = self.line(b"fill 1 ")
        lines.insert(i + 1, b"level 3 L3 33554432 16 64 40")
        self.check(b"\n".join(lines) + b"\n", "level record after records that use the levels",
                   i + 2)


class FinalizeOptions(CliTest):
    def test_unknown_option(self):
        r = run([DCPROF, "finalize", TWO_LEVEL, "-o", self.path("p.db"), "--frob"])
        self.assertError(r, "dcprof finalize", "unknown option '--frob'; "
                         "see 'dcprof help finalize'")

    def test_missing_output(self):
        r = run([DCPROF, "finalize", TWO_LEVEL])
        self.assertError(r, "dcprof finalize", "no output profile given")

    def test_missing_raw(self):
        r = run([DCPROF, "finalize", "-o", self.path("p.db")])
        self.assertError(r, "dcprof finalize", "no raw dump given")

    def test_output_in_missing_directory(self):
        r, db = self.finalize(TWO_LEVEL, "no/such/dir/p.db")
        self.assertError(r, "dcprof finalize", "cannot write profile '%s'" % db)


class FinalizeMillionBlocks(CliTest):
    """A dump with 1,000,000 block lines finalizes (the time is printed, not
    asserted: bench/finalize-1m.sh measures it)."""

    def test_million_blocks(self):
        raw = self.path("big.raw")
        with open(raw, "w") as f:
            f.write("dcprof-raw 1\nlevel 1 L1 32768 8 64 4\nmemory 200\n"
                    "bucket 0 heap big\nloc 0 0x400000 /bin/x main x.c 1\n")
            f.writelines("block 0 0x%x 64 %d %d\n" % (0x10000000 + 64 * i, 2 * i + 1,
                                                      2 * i + 2 if i % 2 else 0)
                         for i in range(1000000))
            f.write("bstat 0 1000000 500000 32000000 64000000 64 64\n"
                    "cost 0 0 1 10 10 1 1 100\nend 1\n")
        start = time.monotonic()
        r, db = self.finalize(raw, "big.db", "-q")
        elapsed = time.monotonic() - start
        self.assertEqual(r.returncode, 0, r.stderr)
        print("\n    finalize of 1,000,000 block lines: %.2f s" % elapsed)
        rows = query_bytes(db, "SELECT COUNT(*), COUNT(free_seq), SUM(size) FROM block")
        # every other block is still live (free_seq NULL)
        self.assertEqual(rows, [(1000000, 500000, 64000000)])


class FinalizeCacheUse(DumpErrors):
    """The version-4 use record: rows of cache_use, and its errors."""
    GOOD = [b"dcprof-raw 4"] + fixture_lines(SAMPLED_EVICT)[1:]

    def with_use(self, *records):
        i = next(i for i, l in enumerate(self.GOOD) if l.startswith(b"end "))
        lines = self.GOOD[:i] + list(records) + self.GOOD[i:]
        return b"\n".join(lines) + b"\n", i + 1

    def test_rows(self):
        data, _ = self.with_use(b"use 1 0 0 1 4480 125000", b"use 2 0 0 1 0 1000")
        r, db = self.finalize(self.write("u.raw", data))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(query_bytes(db, "SELECT bucket, location, thread, level, SpLoss,"
                                     " AcCost FROM cache_use ORDER BY level"),
                         [(0, 0, 1, 1, 4480, 125000), (0, 0, 1, 2, 0, 1000)])

    def test_errors(self):
        data, n = self.with_use(b"use 3 0 0 1 1 1")
        self.check(data, "use record for level 3, which is not declared", n)
        data, n = self.with_use(b"use 1 9 0 1 1 1")
        self.check(data, "bucket 9 is not declared", n)
        data, n = self.with_use(b"use 1 0 0 1 1")
        self.check(data, "use record", n)
        data, n = self.with_use(b"use 1 0 0 1 1 1", b"use 1 0 0 1 2 2")
        self.check(data, "duplicate use record", n + 1)

    def test_use_in_a_version_3_dump(self):
        data, n = self.with_use(b"use 1 0 0 1 1 1")
        self.check(data.replace(b"dcprof-raw 4", b"dcprof-raw 3", 1),
                   "unknown record type 'use'", n)


class FinalizeEvicted(FinalizeCacheUse):
    """Version 5: use and calluse end in EVICTED, a count or "-" (not
    counted: NULL); version 4 records have no such field."""
    GOOD = [b"dcprof-raw 5"] + fixture_lines(SAMPLED_EVICT)[1:]

    def test_rows(self):
        data, _ = self.with_use(b"use 1 0 0 1 4480 125000 70", b"use 2 0 0 1 0 1000 -",
                                b"calluse thread - - 1 1 4480 125000 70",
                                b"calluse thread - - 1 2 0 1000 -")
        r, db = self.finalize(self.write("u.raw", data))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(query_bytes(db, "SELECT level, SpLoss, AcCost, Evicted FROM cache_use"
                                     " ORDER BY level"),
                         [(1, 4480, 125000, 70), (2, 0, 1000, None)])
        self.assertEqual(query_bytes(db, "SELECT kind, site, level, SpLoss, AcCost, Evicted"
                                     " FROM call_use ORDER BY level"),
                         [(b"thread", None, 1, 4480, 125000, 70),
                          (b"thread", None, 2, 0, 1000, None)])

    def test_errors(self):
        data, n = self.with_use(b"use 1 0 0 1 1 1")
        self.check(data, "use record", n)
        data, n = self.with_use(b"use 1 0 0 1 1 1 x")
        self.check(data, "field 7: 'x' is not an unsigned decimal number", n)
        data, n = self.with_use(b"calluse thread - - 1 1 1 1")
        self.check(data, "calluse record", n)
        data, n = self.with_use(b"use 1 0 0 1 1 1 1 1")
        self.check(data.replace(b"dcprof-raw 5", b"dcprof-raw 4", 1), "use record", n)

    def test_use_in_a_version_3_dump(self):
        data, n = self.with_use(b"use 1 0 0 1 1 1")
        self.check(data.replace(b"dcprof-raw 5", b"dcprof-raw 3", 1),
                   "unknown record type 'use'", n)
