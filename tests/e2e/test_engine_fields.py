"""Per-offset and per-field views (record --offsets, report --by offset|field):
the engine's offsets within objects, their bound, and the DWARF types the
front end folds and names them by.  Expected values are derived in the
headers of tests/workloads/fields_array.c, fields_list.cc (C++),
fields_vector.cc (C++: std::vector buffers),
fields_global.c (two threads) and fields_grain.c, all built -O2 -g."""
import os

from test_engine_common import (CACHE_2, LAT, Recorded, marker_line, meta, query,
                                report_json)
from harness import DCPROF, run

N, R, M, R2, W = 1024, 8, 256, 4, 32768


def heap_bucket(db, src, tag):
    """The heap bucket allocated at the line of SRC marked /* TAG */."""
    line = marker_line(src, tag)
    rows = query(db, "SELECT name FROM bucket WHERE kind = 'heap' AND name LIKE ?",
                 "%% (%s:%d)%%" % (src, line))
    assert len(rows) == 1, rows
    return rows[0][0]


def cells(db, bucket):
    """{offset: (size, Dr, Dw, D1m, D2m)} of BUCKET's offset_cost rows (offset
    None: the beyond cell)."""
    rows = query(db, "SELECT o.offset, o.size, o.Dr, o.Dw, o.D1m, o.D2m FROM offset_cost o"
                 " JOIN bucket b ON b.id = o.bucket WHERE b.name = ?", bucket)
    return {(None if r[0] < 0 else r[0]): tuple(r[1:]) for r in rows}


def fields(db, bucket, by="field"):
    doc = report_json(db, "--object", bucket, "--by", by)
    return doc, {r["field" if by == "field" else "offset"]: r for r in doc["rows"]}


class ArrayOfStructs(Recorded):
    WORKLOAD = "fields_array"
    OPTS = (CACHE_2, LAT, "--offsets")

    def test_raw_offsets_are_what_the_code_touches(self):
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        got = cells(self.db, recs)
        # val of element i: offset 8 + 64 i, R reads and one write each
        self.assertEqual(sorted(got), [8 + 64 * i for i in range(N)])
        self.assertEqual({v[:3] for v in got.values()}, {(8, R, 1)})

    def test_one_field_has_every_access_and_miss(self):
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        doc, rows = fields(self.db, recs)
        self.assertEqual(doc["type"], "struct rec")
        self.assertEqual(doc["element_size"], 64)
        self.assertEqual(list(rows), ["id", "val", "pad[48]"])
        val = rows["val"]
        self.assertEqual((val["offset"], val["size"]), (8, 8))
        self.assertEqual((val["Dr"], val["Dw"], val["D1m"], val["DLm"]),
                         (R * N, N, (R + 1) * N, N))
        self.assertEqual((val["AccPct"], val["MissPct"]), (100.0, 100.0))
        for f in ("id", "pad[48]"):
            self.assertEqual((rows[f]["Dr"], rows[f]["Dw"], rows[f]["note"]),
                             (0, 0, "never accessed"))
        self.assertIn("val 100.00 % of L1 misses", doc["summary"])

    def test_offset_view_folds_by_the_element(self):
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        doc, rows = fields(self.db, recs, "offset")
        self.assertEqual(list(rows), [8])
        self.assertEqual((rows[8]["field"], rows[8]["Dr"], rows[8]["access_size"]),
                         ("val", R * N, 8))

    def test_typed_user_block(self):
        doc, rows = fields(self.db, "rec_pool")
        self.assertEqual(doc["type"], "struct rec")
        self.assertEqual((rows["id"]["Dr"], rows["id"]["Dw"], rows["id"]["AccPct"]),
                         (R2 * M, M, 100.0))
        self.assertEqual(rows["val"]["note"], "never accessed")
        self.assertEqual(query(self.db, "SELECT type FROM bucket_type t JOIN bucket b"
                               " ON b.id = t.bucket WHERE b.name = 'rec_pool'"),
                         [("struct rec",)])

    def test_offsets_add_up_to_the_bucket_costs(self):
        """Every access to a global, heap or user bucket is in exactly one
        cell (or the beyond cell) of its bucket; the allocator's own
        accesses (<malloc>) belong to no object and have no offsets."""
        bad = query(self.db, "SELECT b.name, c.r, c.w, o.r, o.w FROM bucket b"
                    " JOIN (SELECT bucket, SUM(Dr) r, SUM(Dw) w, SUM(D1mr + D1mw) m FROM cost"
                    " GROUP BY bucket) c ON c.bucket = b.id"
                    " LEFT JOIN (SELECT bucket, SUM(Dr) r, SUM(Dw) w, SUM(D1m) m FROM offset_cost"
                    " GROUP BY bucket) o ON o.bucket = b.id"
                    " WHERE b.kind IN ('global', 'heap', 'user') AND b.name != '<malloc>'"
                    " AND (o.r IS NULL OR c.r <> o.r OR c.w <> o.w OR c.m <> o.m)")
        self.assertEqual(bad, [])
        self.assertFalse(query(self.db, "SELECT 1 FROM offset_cost o JOIN bucket b"
                               " ON b.id = o.bucket WHERE b.kind NOT IN ('global', 'heap',"
                               " 'user')"))

    def test_no_field_view_without_a_type(self):
        # the program's own void * block before it was named has no decl;
        # a stack bucket has no offsets at all
        r = run([DCPROF, "report", self.db, "--object", "<stack>", "--by", "field"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("offsets are recorded for globals, heap and user buckets only",
                      r.stderr)


class Window(Recorded):
    """A block larger than the window: the rest counts as beyond."""
    WORKLOAD = "fields_array"
    OPTS = (CACHE_2, LAT, "--offsets", "--offset-window=4096")

    def test_big_block_is_cut_at_the_window(self):
        big = heap_bucket(self.db, "fields_array.c", "SITE:big")
        got = cells(self.db, big)
        inside = {k: v for k, v in got.items() if k is not None}
        self.assertEqual(sorted(inside), list(range(0, 4096, 8)))
        self.assertEqual({v[1:3] for v in inside.values()}, {(0, 1)})
        # the rest of the writes, and printf's read of big[W / 2]
        self.assertEqual(got[None][1:3], (1, W - 512))

    def test_array_beyond_the_window(self):
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        got = cells(self.db, recs)
        self.assertEqual(sorted(k for k in got if k is not None), [8 + 64 * i for i in range(64)])
        self.assertEqual(got[None][1:3], ((N - 64) * R, N - 64))
        doc, rows = fields(self.db, recs)
        self.assertEqual((doc["counted"], doc["beyond"]), (64 * (R + 1), (N - 64) * (R + 1)))
        self.assertEqual(rows["(beyond)"]["AccPct"], None)
        self.assertEqual(rows["val"]["AccPct"], 100.0)
        # most were beyond: the text says so, (N - 64) / N of them
        text = run([DCPROF, "report", self.db, "--object", recs, "--by", "field"]).stdout
        self.assertIn("note:     %.1f %% of the accesses are beyond the offsets recorded"
                      % (100.0 * (N - 64) / N), text)
        # by field, a row's size is its field's: none for the beyond row
        self.assertEqual(rows["(beyond)"]["size"], None)
        self.assertEqual(fields(self.db, recs, "offset")[1][None]["access_size"], 8)

    def test_totals_are_what_was_counted(self):
        """The total row: the sums over the rows counted by offset (the
        beyond row apart), labelled, with MissLat (additive: Lat less the
        L1 hits at L1's latency) and the shares at 100."""
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        doc, rows = fields(self.db, recs)
        tot = doc["totals"]
        counted = [r for name, r in rows.items() if name != "(beyond)"]
        for col in ("Dr", "Dw", "D1m", "Lat", "MissLat"):
            self.assertEqual(tot[col], sum(r[col] for r in counted), col)
        self.assertEqual(tot["Dr"] + tot["Dw"], doc["counted"])
        self.assertEqual((tot["AccPct"], tot["MissPct"]), (100.0, 100.0))
        text = run([DCPROF, "report", self.db, "--object", recs, "--by", "field"]).stdout
        last = [l for l in text.splitlines() if l.strip()][-1]
        self.assertTrue(last.startswith("total "), text)
        self.assertIn("{:,}".format(tot["MissLat"]), last)


class BucketShare(Recorded):
    """The default share, 1024 cells a bucket (engine.md, "Offsets within
    objects"): big (256 KiB) and recs (64 KiB) have 8-byte cells (more
    than 8 bytes a cell would be needed for 1024 to cover the window)."""
    WORKLOAD = "fields_array"
    OPTS = (CACHE_2, LAT, "--offsets")

    def test_big_block_keeps_its_first_cells(self):
        big = heap_bucket(self.db, "fields_array.c", "SITE:big")
        got = cells(self.db, big)
        inside = {k: v for k, v in got.items() if k is not None}
        # the first 1024 doubles, one 8-byte cell each, written once
        self.assertEqual(sorted(inside), list(range(0, 8 * 1024, 8)))
        self.assertEqual({v[1:3] for v in inside.values()}, {(0, 1)})
        # the other writes, and printf's read of big[W / 2]
        self.assertEqual(got[None][1:3], (1, W - 1024))

    def test_every_bucket_within_its_share(self):
        # recs: its 1024 val offsets are exactly the share: nothing beyond
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        got = cells(self.db, recs)
        self.assertEqual(sorted(got), [8 + 64 * i for i in range(N)])
        (most,), = query(self.db, "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM offset_cost"
                         " WHERE offset >= 0 GROUP BY bucket)")
        self.assertLessEqual(most, 1024)
        m = meta(self.db)
        self.assertEqual((m["offset_cells"], m["offset_bucket_cells"]), ("131072", "1024"))


class CellCap(Recorded):
    """At most --offset-cells cells: new offsets beyond it count as beyond."""
    WORKLOAD = "fields_array"
    OPTS = (CACHE_2, LAT, "--offsets", "--offset-cells=100")

    def test_memory_is_bounded_by_the_cap(self):
        m = meta(self.db)
        self.assertEqual((m["offsets"], m["offset_cells"], m["offset_cells_used"]),
                         ("yes", "100", "100"))
        self.assertEqual(query(self.db, "SELECT COUNT(*) FROM offset_cost WHERE offset >= 0"),
                         [(100,)])
        # nothing is lost: cells and beyond add up to the costs
        self.assertEqual(query(self.db, "SELECT SUM(Dr), SUM(Dw) FROM offset_cost"),
                         query(self.db, "SELECT SUM(c.Dr), SUM(c.Dw) FROM cost c JOIN bucket b"
                               " ON b.id = c.bucket WHERE b.kind IN ('global', 'heap', 'user')"
                               " AND b.name != '<malloc>'"))


class LinkedList(Recorded):
    """C++: the payload is never read."""
    WORKLOAD = "fields_list"
    OPTS = (CACHE_2, LAT, "--offsets")
    P, N = 8, 2048

    def test_next_and_key_read_payload_never(self):
        node = heap_bucket(self.db, "fields_list.cc", "SITE:node")
        doc, rows = fields(self.db, node)
        self.assertEqual(doc["type"], "struct node")
        self.assertEqual(doc["element_size"], 56)
        self.assertEqual(list(rows), ["next", "key", "payload[40]"])
        for f in ("next", "key"):
            self.assertEqual((rows[f]["Dr"], rows[f]["Dw"]), (self.P * self.N, self.N))
        self.assertEqual(rows["payload[40]"]["Dr"], 0)
        self.assertGreater(rows["payload[40]"]["Dw"], 0)
        self.assertEqual(rows["payload[40]"]["note"], "never read")
        self.assertIn("payload[40] never read", doc["summary"])
        walk = rows["next"]["D1m"] + rows["key"]["D1m"]
        total = walk + rows["payload[40]"]["D1m"]
        self.assertGreaterEqual(walk, (self.P - 1) * self.N)
        self.assertLessEqual(total, self.P * self.N + self.N + 1)
        self.assertGreaterEqual(rows["next"]["MissPct"] + rows["key"]["MissPct"], 77.7)
        self.assertLessEqual(sum(r["DLm"] for r in rows.values()), self.N + 1)

    def test_text_report_names_the_fields(self):
        node = heap_bucket(self.db, "fields_list.cc", "SITE:node")
        r = run([DCPROF, "report", self.db, "--object", node, "--by", "field"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("type:     struct node, 56 bytes", r.stdout)
        self.assertRegex(r.stdout, r"fields:   struct node: (key|next) \d+\.\d\d % of L1 misses")


class UnusedBytes(Recorded):
    """--cache-use with --offsets: bytes loaded and never used, by offset
    and field (derived in fields_array.c's header).  recs (64 KiB) has
    8-byte cells (65536 / 8192 > 8: the widest grain); it needs 2049: val
    at 64 i + 8 (where runs end too), runs starting at 64 i + 16, and 0.
    The default share (1024) holds the val cells alone, the rest of the
    runs counting as beyond (BucketShare below); 4096 holds them all."""
    WORKLOAD = "fields_array"
    OPTS = (CACHE_2, LAT, "--offsets", "--cache-use", "--offset-bucket-cells=4096")

    def test_fields_hold_the_unused_bytes(self):
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        doc, rows = fields(self.db, recs)
        self.assertEqual({f: (r["Unused1"], r["UnusedL"]) for f, r in rows.items()},
                         {"id": (8 * (R + 1) * N, 8 * N), "val": (0, 0),
                          "pad[48]": (48 * (R + 1) * N, 48 * N)})
        self.assertIn("pad[48] 85.71 % of L1 unused bytes, id 14.29 %", doc["summary"])

    def test_offsets_hold_the_unused_bytes(self):
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        doc, rows = fields(self.db, recs, "offset")
        # a row starts each unused range; its bytes run to the next row
        self.assertEqual({o: (r["field"], r["Dr"], r["Unused1"]) for o, r in rows.items()},
                         {0: ("id", 0, 8 * (R + 1) * N), 8: ("val", R * N, 0),
                          16: ("pad[48]", 0, 48 * (R + 1) * N)})

    def test_raw_ranges_per_element(self):
        recs = heap_bucket(self.db, "fields_array.c", "SITE:recs")
        got = query(self.db, "SELECT o.offset, o.end_offset, o.Unused1, o.Unused2"
                    " FROM offset_unused o JOIN bucket b ON b.id = o.bucket WHERE b.name = ?"
                    " ORDER BY o.offset", recs)
        # [0, 8), then [64 i + 16, 64 i + 72) joined with the next id
        want = [(0, 8, R + 1, 1)] + [(64 * i + 16, 64 * i + 72, R + 1, 1) for i in range(N - 1)]
        want.append((64 * (N - 1) + 16, 64 * N, R + 1, 1))
        self.assertEqual(got, want)
        # dcprof merge of the profile with itself (--force: one process
        # twice, on purpose): the same ranges, each count twice
        merged = os.path.join(self.tmpdir, "twice.db")
        r = run([DCPROF, "merge", "--force", "-o", merged, self.db, self.db])
        self.assertEqual(r.returncode, 0, r.stderr)
        got = query(merged, "SELECT o.offset, o.end_offset, o.Unused1, o.Unused2"
                    " FROM offset_unused o JOIN bucket b ON b.id = o.bucket WHERE b.name = ?"
                    " ORDER BY o.offset", recs)
        self.assertEqual(got, [(lo, hi, 2 * u1, 2 * u2) for lo, hi, u1, u2 in want])

    def test_unused_bytes_are_part_of_sploss(self):
        """Bytes found in objects are some of the bytes SpLoss counts."""
        for lv in (1, 2):
            (unused,), = query(self.db, "SELECT SUM(CASE WHEN offset < 0 THEN Unused%d ELSE"
                               " (end_offset - offset) * Unused%d END) FROM offset_unused"
                               % (lv, lv))
            (sploss,), = query(self.db, "SELECT SUM(SpLoss) FROM cache_use WHERE level = ?", lv)
            self.assertGreater(unused, 0)
            self.assertLessEqual(unused, sploss)


class UnusedPayload(Recorded):
    """C++ list: the payload is loaded with every node and never read."""
    WORKLOAD = "fields_list"
    OPTS = (CACHE_2, LAT, "--offsets", "--cache-use")
    P, N = 8, 2048

    def test_payload_is_the_unused_field(self):
        node = heap_bucket(self.db, "fields_list.cc", "SITE:node")
        doc, rows = fields(self.db, node)
        self.assertGreaterEqual(rows["payload[40]"]["Unused1"], 40 * (self.P - 1) * self.N)
        self.assertRegex(doc["summary"], r"; payload\[40\] \d+\.\d\d % of L1 unused bytes")
        self.assertGreater(rows["payload[40]"]["Unused1"],
                           rows["next"]["Unused1"] + rows["key"]["Unused1"])


class HeapTypes(Recorded):
    """Heap types from what the allocation is assigned to (C, -O2 -g): the
    expected names are the source's, listed in fields_heaptypes.c."""
    WORKLOAD = "fields_heaptypes"
    OPTS = (CACHE_2, LAT, "--offsets")
    SRC = "fields_heaptypes.c"

    def type_at(self, tag):
        doc, _ = fields(self.db, heap_bucket(self.db, self.SRC, tag))
        return doc["type"]

    def test_each_assignment_gives_the_type(self):
        want = {"SITE:assign": "struct node", "SITE:member": "struct item",
                "SITE:global": "struct particle", "SITE:cast": "struct cell",
                "SITE:memalign": "struct item", "SITE:inlined": "struct particle",
                "SITE:caller": "char"}
        self.assertEqual({tag: self.type_at(tag) for tag in want}, want)

    def test_fields_of_an_assigned_block(self):
        _, rows = fields(self.db, heap_bucket(self.db, self.SRC, "SITE:member"))
        # 64 items, each id written once by vec_init and item 3's read by main
        self.assertEqual((rows["id"]["Dw"], rows["id"]["Dr"]), (64, 1))
        self.assertEqual(rows["flags"]["note"], "never accessed")

    def test_unresolved_names_its_reason(self):
        # printf's buffer: main's printf line assigns nothing
        rows = query(self.db, "SELECT name FROM bucket WHERE kind = 'heap' AND name LIKE"
                     " 'main (fields_heaptypes.c:%' AND name NOT LIKE ?",
                     "%%:%d)%%" % marker_line(self.SRC, "SITE:caller"))
        self.assertTrue(rows)
        r = run([DCPROF, "report", self.db, "--object", rows[0][0], "--by", "field"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("assigns the block to no variable, member or cast (name its type with"
                      " DCPROF_NAME_BLOCK_TYPED)", r.stderr)


    def test_macro_site_has_no_type(self):
        """SITE:macro: pointer variables of two types are declared at the
        line (a macro's): no type, and the field view says why."""
        bucket = heap_bucket(self.db, self.SRC, "SITE:macro")
        r = run([DCPROF, "report", self.db, "--object", bucket, "--by", "field"])
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("pointer variables of different types are declared at"
                      " fields_heaptypes.c:%d in pool_new (a macro?)"
                      % marker_line(self.SRC, "SITE:macro"), r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)


class HeapTypesCxx(Recorded):
    """The same in C++: new T[n], new T, a member of this (-O2 -g)."""
    WORKLOAD = "fields_heaptypes_cxx"
    OPTS = (CACHE_2, LAT, "--offsets")
    SRC = "fields_heaptypes_cxx.cc"
    type_at = HeapTypes.type_at

    def test_each_assignment_gives_the_type(self):
        want = {"SITE:newarr": "struct Body", "SITE:member": "struct Item",
                "SITE:newobj": "class Grid", "SITE:template": "struct Item"}
        self.assertEqual({tag: self.type_at(tag) for tag in want}, want)

    def test_fields_of_an_assigned_block(self):
        _, rows = fields(self.db, heap_bucket(self.db, self.SRC, "SITE:newarr"))
        self.assertEqual((rows["mass"]["Dw"], rows["mass"]["Dr"]), (64, 1))
        self.assertEqual(rows["pos[3]"]["note"], "never accessed")


class VectorTypes(Recorded):
    """std::vector buffers (C++, -O2 -g): the element type is the vector's
    first template type parameter in DWARF, for each site listed in
    fields_vector.cc; a std::vector<bool>'s, a std::map's and a std::deque's
    blocks have none, and the field view says why."""
    WORKLOAD = "fields_vector"
    OPTS = (CACHE_2, LAT, "--offsets")
    SRC = "fields_vector.cc"
    type_at = HeapTypes.type_at

    def test_each_site_gives_the_element_type(self):
        want = {"SITE:resize": "struct Point", "SITE:reserve": "struct Point",
                "SITE:push_back": "struct Edge", "SITE:emplace_back": "struct Edge",
                "SITE:assign": "struct Cell", "SITE:insert": "struct Point",
                "SITE:declsize": "struct Particle", "SITE:declinit": "struct Cell",
                "SITE:copy": "struct Point", "SITE:string": "char"}
        self.assertEqual({tag: self.type_at(tag) for tag in want}, want)

    def test_fields_of_a_reserved_vector(self):
        doc, rows = fields(self.db, heap_bucket(self.db, self.SRC, "SITE:reserve"))
        self.assertEqual(doc["element_size"], 32)
        self.assertEqual([(f, rows[f]["offset"]) for f in ("x", "y", "z", "id")],
                         [("x", 0), ("y", 8), ("z", 16), ("id", 24)])
        # fields_vector.cc's header: sum_id reads id R = 4 times in each of
        # N = 32 elements, and nothing else reads the block
        self.assertEqual(rows["id"]["Dr"], 4 * 32)
        self.assertEqual([rows[f]["Dr"] for f in ("x", "y", "z")], [0, 0, 0])

    def assertNoType(self, tag, reason):
        bucket = heap_bucket(self.db, self.SRC, tag)
        r = run([DCPROF, "report", self.db, "--object", bucket, "--by", "field"])
        self.assertEqual(r.returncode, 2, r.stdout)
        self.assertIn("no type known for bucket '%s' (%s); --by offset shows its offsets"
                      % (bucket, reason), r.stderr)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)

    def test_map_blocks_are_its_nodes(self):
        self.assertNoType("SITE:map", "'byid' is a std::map, whose blocks are its nodes"
                          " (links, then the element), not arrays of its elements")

    def test_bit_vector_has_no_element_type(self):
        self.assertNoType("SITE:bits", "'flags' is a std::vector<bool>, which packs its"
                          " elements as bits of unsigned long words")

    def test_deque_blocks_are_of_two_types(self):
        # constructed (a variable declared at the line) and grown (a method)
        for tag in ("SITE:dequedecl", "SITE:deque"):
            self.assertNoType(tag, "'dq' is a std::deque, which allocates its map of"
                              " chunk pointers and its chunks of elements at the same"
                              " line: its blocks are not of one type")


class GlobalStruct(Recorded):
    """Two threads read a global's fields in known proportions."""
    WORKLOAD = "fields_global"
    OPTS = (CACHE_2, LAT, "--offsets")

    def test_field_shares(self):
        doc, rows = fields(self.db, "g_stats")
        self.assertEqual(doc["type"], "struct stats")
        self.assertEqual([(f, rows[f]["Dr"], rows[f]["Dw"]) for f in rows],
                         [("hits", 8000, 0), ("misses", 2000, 0), ("ratio[4]", 8000, 0),
                          ("name[16]", 0, 0)])
        self.assertAlmostEqual(rows["hits"]["AccPct"], 100 * 8000 / 18000, places=2)
        self.assertAlmostEqual(rows["misses"]["AccPct"], 100 * 2000 / 18000, places=2)
        self.assertEqual(rows["name[16]"]["note"], "never accessed")

    def test_scalar_array_has_no_fields_to_rank(self):
        # results is double[T]: one "field", the element itself; the
        # summary says so instead of "double 100.00 % of L1 misses"
        doc, rows = fields(self.db, "results")
        self.assertEqual(doc["type"], "double")
        self.assertEqual(list(rows), ["double"])
        self.assertEqual(doc["summary"], "double: elements of 8 bytes, no fields to compare;"
                         " --by offset shows which elements miss")
        # by offset it is not folded: fields_global.c's two threads each
        # write their results[t] once and main reads both in printf, so
        # element 0 (offset 0) and element 1 (offset 8) have one read and
        # one write each
        doc, rows = fields(self.db, "results", "offset")
        self.assertFalse(doc["folded"])
        self.assertEqual({o: (r["field"], r["Dr"], r["Dw"]) for o, r in rows.items()},
                         {0: ("[0]", 1, 1), 8: ("[1]", 1, 1)})

    def test_offsets_of_the_array_member(self):
        doc, rows = fields(self.db, "g_stats", "offset")
        self.assertEqual({o: (r["field"], r["Dr"]) for o, r in rows.items()},
                         {0: ("hits", 8000), 8: ("misses", 2000), 16: ("ratio[4]", 2000),
                          24: ("ratio[4]", 2000), 32: ("ratio[4]", 2000),
                          40: ("ratio[4]", 2000)})


class SharedCells(Recorded):
    """Fields narrower than the engine's cells (fields_grain.c, an 8184-byte
    struct, so 8-byte cells): their accesses are one a|b row, and no field
    is said to be never accessed when its cell was (zlib's deflate_state
    showed strstart, its hottest field, as never accessed)."""
    WORKLOAD = "fields_grain"
    OPTS = (CACHE_2, LAT, "--offsets")

    def test_fields_sharing_a_cell_are_one_row(self):
        doc, rows = fields(self.db, "g_big")
        self.assertEqual((doc["type"], doc["element_size"], doc["cell_bytes"]),
                         ("struct big", 8184, 8))
        # derivation: fields_grain.c's header
        self.assertEqual([(f, r["offset"], r["size"], r["Dr"], r["Dw"], r["note"])
                          for f, r in rows.items()],
                         [("a", 0, 4, 0, 0, "see a|b"), ("a|b", 0, 8, 3000, 0, ""),
                          ("b", 4, 4, 0, 0, "see a|b"), ("c", 8, 8, 1000, 0, ""),
                          ("d", 16, 2, 0, 0, "see d|e|f"),
                          ("d|e|f", 16, 8, 0, 2000, "never read"),
                          ("e", 18, 2, 0, 0, "see d|e|f"), ("f", 20, 4, 0, 0, "see d|e|f"),
                          ("g[1020]", 24, 8160, 500, 0, "")])
        self.assertNotIn("never accessed", doc["summary"])
        self.assertIn("d|e|f never read", doc["summary"])
        doc, rows = fields(self.db, "g_big", "offset")
        self.assertEqual({o: (r["field"], r["Dr"], r["Dw"]) for o, r in rows.items()},
                         {0: ("a|b", 3000, 0), 8: ("c", 1000, 0), 16: ("d|e|f", 0, 2000),
                          24: ("g[1020]", 500, 0)})

    def test_text_says_how_to_separate_them(self):
        r = run([DCPROF, "report", self.db, "--object", "g_big", "--by", "field"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("cells:    8 bytes wide (1024 cells a bucket cover its 8184 bytes)",
                      r.stdout)
        self.assertIn("record with --offset-bucket-cells=8184 for a cell a byte", r.stdout)


class OneByteCells(Recorded):
    """The same struct with a cell per byte: every field its own row."""
    WORKLOAD = "fields_grain"
    OPTS = (CACHE_2, LAT, "--offsets", "--offset-bucket-cells=8184")

    def test_each_field_alone(self):
        doc, rows = fields(self.db, "g_big")
        self.assertEqual(doc["cell_bytes"], 1)
        self.assertEqual([(f, r["Dr"], r["Dw"], r["note"]) for f, r in rows.items()],
                         [("a", 0, 0, "never accessed"), ("b", 3000, 0, ""),
                          ("c", 1000, 0, ""), ("d", 0, 0, "never accessed"),
                          ("e", 0, 0, "never accessed"), ("f", 0, 2000, "never read"),
                          ("g[1020]", 500, 0, "")])


class Default(Recorded):
    """Without --offsets nothing is recorded by offset, and report says so."""
    WORKLOAD = "fields_global"

    def test_no_offsets_by_default(self):
        self.assertEqual(meta(self.db)["offsets"], "no")
        self.assertFalse(query(self.db, "SELECT 1 FROM offset_cost"))
        r = run([DCPROF, "report", self.db, "--object", "g_stats", "--by", "field"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no offsets; record with --offsets=yes", r.stderr)

    def test_needs_object(self):
        r = run([DCPROF, "report", self.db, "--by", "offset"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--by offset and --by field need --object", r.stderr)
