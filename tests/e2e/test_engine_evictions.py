"""End-to-end tests of eviction tracking (`--evictions=yes`, seeds/002
chapter 5): the eviction matrix of a set-conflict workload derived by hand
(tests/workloads/evict_ring.c, whose header comment derives every number
asserted here), the fill invariants of every level and the residency
estimate.  The profile is read with SQL (tables eviction, level_fill,
residency; docs/schema.md)."""
import json
import unittest

from test_engine_common import (LAT, Recorded, marker_line, meta, query, run, totals)
from harness import DCPROF

# L1: 8 KiB, 8 ways, 64-byte lines = 16 sets, so addresses 1 KiB apart share
# a set.  L2: 1 MiB, 16 ways, holds the whole ring (9 KiB).
RING_CACHE = "--cache=L1=8K:8:64,L2=1M:16:64"
L1_LINES = 8192 // 64           # ways of L1 in all: at most this many empty fills
P = 1000                        # passes of ring_walk
LINES = 16                      # lines per ring array (1 KiB)
RING = ["ring_%d" % k for k in range(9)]


def successor(k):
    """The array ring_k evicts: the one accessed 8 accesses earlier in the
    set, i.e. the next one in the 9-cycle (evict_ring.c)."""
    return RING[(k + 1) % 9]


def stored_bucket(test, db, n):
    """The one bucket touch_then_stream stores to, after checking that it
    made n stores."""
    stored = query(db, "SELECT b.name, SUM(c.Dw) FROM cost c JOIN bucket b"
                   " ON b.id = c.bucket JOIN location l ON l.id = c.location"
                   " WHERE l.function LIKE 'touch_then_stream%' AND c.Dw > 0"
                   " GROUP BY b.name")
    test.assertEqual(len(stored), 1, "touch_then_stream's stores: %s" % stored)
    test.assertEqual(stored[0][1], n)
    return stored[0][0]


def matrix(db, level, sampled=0):
    """{(evictor name, victim name): count} at LEVEL, summed over locations."""
    rows = query(db, "SELECT e.name, v.name, SUM(x.count) FROM eviction x"
                 " JOIN bucket e ON e.id = x.evictor JOIN bucket v ON v.id = x.victim"
                 " WHERE x.level = ? AND x.sampled = ? GROUP BY x.evictor, x.victim",
                 level, sampled)
    return {(e, v): n for e, v, n in rows}


def level_fill(db):
    """{level: (fills, empty_fills, evictions)}."""
    return {r[0]: tuple(r[1:]) for r in
            query(db, "SELECT level, fills, empty_fills, evictions FROM level_fill")}


def level_misses(db, level):
    c = "D%d" % level
    return query(db, "SELECT COALESCE(SUM(%smr + %smw), 0) FROM cost" % (c, c))[0][0]


def non_ring(db, col_sql):
    """Sum of COL_SQL over cost rows of buckets outside the ring."""
    return query(db, "SELECT COALESCE(SUM(%s), 0) FROM cost c JOIN bucket b"
                 " ON b.id = c.bucket WHERE b.name NOT LIKE 'ring\\_%%' ESCAPE '\\'"
                 % col_sql)[0][0]


def tables_missing(db):
    names = {r[0] for r in query(db, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    return {"eviction", "level_fill", "residency", "cost_sampled"} - names


def cli_lists(command):
    """True when `dcprof help` lists COMMAND."""
    r = run([DCPROF, "help"])
    return any(line.split()[:1] == [command] for line in (r.stdout + r.stderr).splitlines())


class RingBase(Recorded):
    WORKLOAD = "evict_ring"
    ARGS = (str(P),)

    def setUp(self):
        super().setUp()
        missing = tables_missing(self.db)
        self.assertFalse(missing, "profile lacks the version-2 tables %s" % sorted(missing))

    # -- the matrix rows of the ring, as derived in evict_ring.c
    def check_ring_rows(self):
        m = matrix(self.db, 1)
        fill = level_fill(self.db)
        for k, name in enumerate(RING):
            row = {v: n for (e, v), n in m.items() if e == name}
            total = sum(row.values())
            succ = successor(k)
            ring_victims = {v: n for v, n in row.items() if v in RING}
            outside = total - sum(ring_victims.values())
            if k < 8:
                # passes 2..P evict the successor; pass 1 evicts start-up's lines
                self.assertEqual(ring_victims, {succ: LINES * (P - 1)},
                                 "ring victims of %s (observed row: %s)" % (name, row))
                self.assertEqual(outside, LINES,
                                 "%s: pass 1 replaces the 16 lines start-up left in"
                                 " its sets (L1 empty fills: %s); row %s" %
                                 (name, fill.get(1), row))
            else:
                # ring_8 evicts ring_0 from pass 1 on
                self.assertEqual(row, {succ: LINES * P}, "row of ring_8")
            # "~100 %": every evictor's evictions hit exactly one victim
            share = row.get(succ, 0) / total
            self.assertGreaterEqual(share, 1 - 1 / P, "%s -> %s: %.4f of %s's evictions"
                                    % (name, succ, share, name))
        return m


class RingCollected(RingBase):
    """evict_ring.c measured between DCPROF_START and DCPROF_STOP only: the
    walk plus a few stack words of ring_walk's prologue/epilogue and of the
    stop request."""
    OPTS = (RING_CACHE, LAT, "--evictions=yes", "--collect-atstart=no")

    def test_workload_ran_with_the_layout(self):
        # main() exits 2 when an array is not 1 KiB aligned
        self.assertEqual(self.rec.returncode, 0, self.rec.stderr[-2000:])
        m = meta(self.db)
        self.assertEqual(m.get("evictions"), "yes")
        self.assertEqual(m.get("exit_status"), "exit 0")

    def test_ring_counts(self):
        for name in RING:
            self.assertCounts(totals(self.db, bucket=name),
                              {"Dr": LINES * P, "Dw": 0, "D1mr": LINES * P, "D1mw": 0,
                               "D2mr": LINES, "D2mw": 0}, name)

    def test_walk_loop_touches_only_the_ring(self):
        # ring_walk's other accesses are its prologue and epilogue (saved
        # registers, return address): a constant, nothing per pass
        n = query(self.db, "SELECT COALESCE(SUM(c.Dr + c.Dw), 0) FROM cost c"
                  " JOIN bucket b ON b.id = c.bucket JOIN location l ON l.id = c.location"
                  " WHERE l.function = 'ring_walk' AND b.name NOT LIKE 'ring%'")[0][0]
        self.assertLess(n, 20, "non-ring accesses from ring_walk")

    def test_l1_full_when_the_walk_starts(self):
        # start-up touched far more than 128 lines: no empty way is left
        self.assertEqual(level_fill(self.db)[1][1], 0, level_fill(self.db))

    def test_eviction_matrix_exact(self):
        self.check_ring_rows()

    def test_victim_columns(self):
        # Column ring_v: evicted by ring_{v-1} as derived, plus at most the
        # misses of non-ring buckets (each one fills one line: aligned stack
        # words do not straddle); nothing else.
        m = matrix(self.db, 1)
        other_misses = non_ring(self.db, "c.D1mr + c.D1mw")
        self.assertLessEqual(other_misses, 20, "misses outside the ring while collecting")
        for k, name in enumerate(RING):
            col = {e: n for (e, v), n in m.items() if v == name}
            pred = RING[(k - 1) % 9]
            expected = LINES * P if k == 0 else LINES * (P - 1)
            self.assertEqual(col.get(pred), expected, "column %s: %s" % (name, col))
            stray = {e: n for e, n in col.items() if e != pred}
            self.assertFalse(set(stray) & set(RING), "ring evictors of %s: %s" % (name, col))
            self.assertLessEqual(sum(stray.values()), other_misses, col)
            self.assertGreaterEqual(expected / sum(col.values()),
                                    1 - other_misses / expected, col)

    def test_fill_invariant_every_level(self):
        fill = level_fill(self.db)
        self.assertEqual(sorted(fill), [1, 2])
        for level, (fills, empty, ev) in fill.items():
            self.assertEqual(fills, empty + ev, "level %d: %s" % (level, fill[level]))
            # the matrix accounts for every eviction of the level
            self.assertEqual(sum(matrix(self.db, level).values()), ev, "level %d" % level)

    def test_fills_equal_misses(self):
        # no access straddles lines while collecting: one fill per miss
        fill = level_fill(self.db)
        for level in (1, 2):
            self.assertEqual(fill[level][0], level_misses(self.db, level),
                             "level %d fills vs D%dmr+D%dmw" % (level, level, level))

    def test_level2_cold_fills_only(self):
        # 144 cold misses of the ring into a 16-way L2 far from full
        m2 = matrix(self.db, 2)
        self.assertFalse({k: n for k, n in m2.items() if k[0] in RING},
                         "L2 evictions by the ring: %s" % m2)
        self.assertEqual(sum(totals(self.db, bucket=b)["D2mr"] for b in RING), 9 * LINES)

    def test_residency(self):
        # Per set, the walk is a burst of 9 accesses r0..r8 every 144
        # accesses.  ring_k (k >= 1) is absent only between r_{k-1} evicting
        # it and r_k refilling it (1 access), ring_0 from r8 to the next
        # burst's r0 (136 of 144 accesses): 16 * 143/144 and 16 * 8/144
        # lines on average.  Pass 1 (lines not yet filled) and the non-ring
        # accesses move the average by at most 16 lines over 144 + those
        # accesses of the T-access clock.  In L2 all 16 lines stay after
        # their first fill (at most 144 accesses into the run).
        rows = dict(((b, l), a) for b, l, a in query(
            self.db, "SELECT b.name, r.level, r.avg_lines FROM residency r"
            " JOIN bucket b ON b.id = r.bucket"))
        t = query(self.db, "SELECT SUM(Dr + Dw) FROM cost")[0][0]
        tol = LINES * (144 + non_ring(self.db, "c.Dr + c.Dw")) / t + 0.001  # 3 decimals stored
        for k, name in enumerate(RING):
            l1 = LINES * (143 if k else 8) / 144
            self.assertAlmostEqual(rows.get((name, 1), 0), l1, delta=tol, msg="%s L1" % name)
            self.assertAlmostEqual(rows.get((name, 2), 0), LINES, delta=tol, msg="%s L2" % name)

    def test_evictions_cli(self):
        if not cli_lists("evictions"):
            self.skipTest("`dcprof help` does not list an evictions command (not implemented yet)")
        r = run([DCPROF, "evictions", self.db, "--format", "json"])
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertTrue(doc, "empty document")
        # all nine arrays, equally ranked by misses
        r = run([DCPROF, "evictions", self.db, "--format", "json", "--top", "9"])
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        for name in RING:
            self.assertIn('"%s"' % name, r.stdout, "ring array missing from the matrix")
        # Where the document has the matrix layout (victim columns, evictor
        # rows of per-column percentages), the derived cells: ring_{k-1}
        # makes all but the non-ring evictions of column ring_k.
        if not (isinstance(doc, dict) and "victims" in doc and "rows" in doc):
            return
        cols = [v.get("bucket") for v in doc["victims"]]
        other_misses = non_ring(self.db, "c.D1mr + c.D1mw")
        checked = 0
        for row in doc["rows"]:
            e = row.get("evictor")
            if e not in RING:
                continue
            succ = successor(RING.index(e))
            if succ in cols and "pct" in row:
                expected = LINES * P if succ == "ring_0" else LINES * (P - 1)
                lo = 100.0 * expected / (expected + other_misses)
                self.assertGreaterEqual(row["pct"][cols.index(succ)], lo - 1e-6,
                                        "%s -> %s in %s" % (e, succ, row))
                checked += 1
        self.assertEqual(checked, 9, doc)


class RingWholeProgram(RingBase):
    """evict_ring.c measured from the start (start-up + walk; the program's
    DCPROF_STOP still ends collection after the walk)."""
    OPTS = (RING_CACHE, LAT, "--evictions=yes")

    def test_eviction_matrix_exact(self):
        # the ring is touched only inside ring_walk: the same rows
        self.check_ring_rows()

    def test_fill_invariant_every_level(self):
        fill = level_fill(self.db)
        self.assertEqual(sorted(fill), [1, 2])
        for level, (fills, empty, ev) in fill.items():
            self.assertEqual(fills, empty + ev, "level %d: %s" % (level, fill[level]))
            self.assertEqual(sum(matrix(self.db, level).values()), ev, "level %d" % level)
            # a straddling start-up access is one miss but two fills
            self.assertGreaterEqual(fills, level_misses(self.db, level), "level %d" % level)

    def test_empty_fills_bounded_by_the_cache(self):
        # lines are never invalidated: each of L1's 128 ways is filled empty
        # once, by start-up (which touches far more than 8 KiB)
        self.assertEqual(level_fill(self.db)[1][1], L1_LINES)

    def test_ring_misses_equal_ring_fills(self):
        # restricted to the ring (no straddles, L1 already full): every miss
        # of a ring array is exactly one fill that replaced a valid line
        m = matrix(self.db, 1)
        for name in RING:
            ev = sum(n for (e, v), n in m.items() if e == name)
            t = totals(self.db, bucket=name)
            self.assertEqual(ev, t["D1mr"] + t["D1mw"], name)


class OtherThreadsStack(Recorded):
    """evict_threads.c: a thread streams a 1 MiB array after the main thread
    wrote a 64 KiB buffer on its stack.  The victim of an eviction is the
    bucket of the evicted line's address (docs/schema.md): the main
    thread's stack is <stack> also when another thread evicts it."""
    WORKLOAD = "evict_threads"
    OPTS = ("--cache=L1=32K:8:64,L2=256K:8:64", LAT, "--evictions=yes",
            "--collect-atstart=no")

    def test_stack_victims_of_the_other_thread(self):
        self.assertEqual(self.rec.returncode, 0, self.rec.stderr[-2000:])
        fill = level_fill(self.db)
        buf_line = marker_line("evict_threads.c", "LINE:buf_fill")
        for level, lines in ((1, 512), (2, 1024)):
            c = "D%d" % level
            stream = totals(self.db, bucket="evt_big")
            buf = totals(self.db, bucket="<stack>", function="main", line=buf_line)
            self.assertEqual((stream["Dr"], buf["Dw"]), (16384, 1024))
            r = fill[level][0] - stream[c + "mr"] - buf[c + "mw"]
            m = matrix(self.db, level)
            got = m.get(("evt_big", "<stack>"), 0)
            row = sorted(((n, v) for (e, v), n in m.items() if e == "evt_big"), reverse=True)
            self.assertGreaterEqual(
                got, lines - r,
                "level %d: evt_big (thread 2) evicted %d lines of <stack> (the main thread's"
                " buffer); expected >= %d - %d other fills.  evt_big's victims: %s" %
                (level, got, lines, r, row[:5]))


class FreedThenReused(Recorded):
    """evict_freed.c: a block's lines evicted after its free, then the lines
    of the block allocated at the same address.  The victim is the bucket
    of the line's address when it is evicted; the engine answers victims
    in memory no object holds page by page, and the new block must end
    that.  The row of evictor ev_second at level 1 is derived in
    evict_freed.c: {the new block's bucket: 128, ev_second: 128}."""
    WORKLOAD = "evict_freed"
    OPTS = (RING_CACHE, LAT, "--evictions=yes")

    def test_new_block_lines_are_its_own(self):
        self.assertEqual(self.rec.returncode, 0,
                         "evict_freed exits 3 when the second block is not at the first's"
                         " address: %s" % self.rec.stderr[-2000:])
        # the new block's bucket: where touch_then_stream's 256 stores went
        block = stored_bucket(self, self.db, 256)
        self.assertNotEqual(block, "<malloc>")
        row = {v: n for (e, v), n in matrix(self.db, 1).items() if e == "ev_second"}
        self.assertEqual(row, {block: 128, "ev_second": 128},
                         "ev_second's victims at level 1 (expected the new block's 128"
                         " lines and 128 of its own)")

    def test_freed_block_lines_are_the_allocators(self):
        """Phase 1 filled the engine's page table with the freed block's
        pages: ev_first evicts lines of <malloc> (the 128 lines of `first`
        in L1 after touch(), less those free() itself evicted)."""
        row = {v: n for (e, v), n in matrix(self.db, 1).items() if e == "ev_first"}
        self.assertGreaterEqual(row.get("<malloc>", 0), 64, "ev_first's victims: %s" % row)


class SmallBlocks(Recorded):
    """evict_small.c: lines of 9-byte blocks, each line beginning with a
    chunk header that no block holds.  The victim is the bucket of the
    first block in the line; the row of evictor ev_stream at level 1 is
    derived in evict_small.c: {alloc_small's bucket: 128, ev_stream: 128}."""
    WORKLOAD = "evict_small"
    OPTS = (RING_CACHE, LAT, "--evictions=yes")

    def test_lines_of_small_blocks_are_theirs(self):
        self.assertEqual(self.rec.returncode, 0,
                         "evict_small exits 3 when glibc's chunks are not laid out as it"
                         " expects: %s" % self.rec.stderr[-2000:])
        # the blocks' bucket: where touch_then_stream's 256 stores went
        block = stored_bucket(self, self.db, 256)
        # alloc_small only calls malloc: the name is its caller's line
        self.assertRegex(block, r"^main \(evict_small\.c:\d+\)")
        row = {v: n for (e, v), n in matrix(self.db, 1).items() if e == "ev_stream"}
        self.assertEqual(row, {block: 128, "ev_stream": 128},
                         "ev_stream's victims at level 1 (expected the blocks' 128 lines"
                         " and 128 of its own)")


class NoEvictionsOption(Recorded):
    """Without --evictions the new tables stay empty."""
    WORKLOAD = "evict_ring"
    ARGS = ("10",)
    OPTS = (RING_CACHE,)

    def test_tables_empty(self):
        missing = tables_missing(self.db)
        self.assertFalse(missing, "profile lacks the version-2 tables %s" % sorted(missing))
        self.assertEqual(meta(self.db).get("evictions"), "no")
        for table in ("eviction", "level_fill", "residency", "cost_sampled"):
            self.assertEqual(query(self.db, "SELECT COUNT(*) FROM %s" % table)[0][0], 0, table)


if __name__ == "__main__":
    unittest.main()
