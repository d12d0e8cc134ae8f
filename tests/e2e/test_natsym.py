"""dcprof finalize names the native engine's records (docs/raw-dump.md,
"Native engine records"): `map` records place the program's objects, `loc`
records carrying only an address get their object, function, file, line
and inlined_into from DWARF, and heap buckets named `-` get their names
from their `hpath` allocation path by the simulator engine's rule.

The dumps are written here by hand from the real call sites of the
heap-naming workloads, built -O2 -g without PIE so that a program's code is
at the same addresses natively and under the simulator:
  * the executable mappings come from `readelf -lW` (the PT_LOAD segments
    with E), page-aligned as the loader maps them;
  * the allocation call paths from `objdump -d`: every `call` of an
    allocation function (its return address) or tail `jmp` to one, then
    the return addresses of the calls of its function, up to main — the
    stack the native runtime unwinds at the allocator's entry.
Expected names and locations come from two references that share no code
with finalize: binutils' `addr2line -i -f -C` with the naming rule
re-implemented below (docs/engine.md, "Heap bucket names"), and the
simulator engine's own profile of the same binary (`dcprof record`)."""
import bisect
import os
import re
import shutil
import sqlite3
import subprocess
import unittest

from harness import DCPROF, TmpDirTest, perf_ok, run, workload

ALLOC_FNS = {"malloc", "calloc", "posix_memalign", "aligned_alloc", "memalign",
             "_Znwm", "_Znam"}


def tools_missing():
    return [t for t in ("objdump", "readelf", "addr2line") if not shutil.which(t)]


def exec_maps(binary):
    """(start, end, offset) of each executable PT_LOAD, page-aligned."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True,
                         check=True).stdout
    maps = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0] == "LOAD" and "E" in f[6:-1]:
            off, vaddr, memsz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
            start = vaddr & ~0xfff
            end = (vaddr + memsz + 0xfff) & ~0xfff
            maps.append((start, end, off & ~0xfff))
    return maps


def calls(binary):
    """function -> [(mnemonic, target symbol, return address)] from objdump."""
    out = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", binary],
                         capture_output=True, text=True, check=True).stdout
    fns, fn, prev = {}, None, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            fn, prev = m.group(1), None
            fns[fn] = []
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not m or fn is None:
            continue
        addr = int(m.group(1), 16)
        if prev:                       # the next instruction: the return address
            fns[fn].append(prev + (addr,))
            prev = None
        t = re.search(r"<([^>+]+)>$", m.group(3))
        if m.group(2) in ("call", "jmp") and t:
            prev = (m.group(2), t.group(1).replace("@plt", ""))
    return fns


def alloc_paths(binary):
    """Every allocation call path: return addresses innermost first."""
    fns = calls(binary)
    callers = {}
    for g, insns in fns.items():
        for mn, target, ret in insns:
            callers.setdefault(target, []).append((g, mn, ret))

    def up(fn, path, depth):
        if fn == "main" or depth > 8 or fn not in callers:
            yield path
            return
        for g, mn, ret in callers[fn]:
            yield from up(g, path + ([ret] if mn == "call" else []), depth + 1)

    paths = []
    for f, insns in fns.items():
        for mn, target, ret in insns:
            if target in ALLOC_FNS and not f.endswith("@plt"):
                paths.extend(up(f, [ret] if mn == "call" else [], 0))
    return paths


def one_self_frame(frames):
    """A frame of a function directly inside a frame of the same function is
    one frame, the inner: GCC's partial inlining leaves functions inlined
    into themselves, called from their own declaration line, which
    addr2line -i prints as two frames (docs/engine.md, "Code locations")."""
    out = frames[:1]
    for f in frames[1:]:
        if not (f[0] and f[0] == out[-1][0]):
            out.append(f)
    return out


def symbol_names(binary, ips):
    """The function symbol at each ip as finalize names a frame: without a
    symbol version (svc_register@GLIBC_2.2.5 is svc_register); of several
    symbols at one address a global one, then a weak one, then the
    shortest name, then the first in byte order (dwsym.h)."""
    out = subprocess.run(["readelf", "-sW", binary], capture_output=True, text=True).stdout
    best = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in ("FUNC", "IFUNC") and f[6] != "UND" and f[1].isalnum():
            size = int(f[2], 0) if f[2].isdigit() else int(f[2], 16)
            name = f[7][:f[7].find("@", 1)] if "@" in f[7][1:] else f[7]
            key = ({"GLOBAL": 0, "WEAK": 1}.get(f[4], 2), len(name), name.encode())
            a = int(f[1], 16)
            if size and (a not in best or key < best[a][0]):
                best[a] = (key, size, name)
    starts = sorted(best)
    names = []
    for ip in ips:
        i = bisect.bisect_right(starts, ip) - 1
        ok = i >= 0 and ip < starts[i] + best[starts[i]][1]
        names.append(best[starts[i]][2] if ok else "")
    return names


def one_self_frame(frames, symbol):
    """A frame of a function directly inside a frame of the same function is
    one frame, the inner (docs/engine.md, "Code locations"): GCC's partial
    inlining leaves functions inlined into themselves, which addr2line -i
    prints as two frames.  The outermost frame is named by its SYMBOL, as
    finalize names it (addr2line gives its DWARF name)."""
    out = frames[:1]
    for k, f in enumerate(frames[1:], 1):
        fn = symbol if k == len(frames) - 1 else f[0]
        if not (fn and fn == out[-1][0]):
            out.append(f)
    return out


def addr2line_frames(binary, ip):
    """The inline chain at ip, innermost first: [(function, file, line)]."""
    out = subprocess.run(["addr2line", "-i", "-f", "-C", "-e", binary, "%#x" % ip],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    frames = []
    for fn, src in zip(out[0::2], out[1::2]):
        file, _, line = src.rpartition(":")
        line = re.match(r"\d*", line).group(0)
        frames.append((fn if fn != "??" else "", file if file != "??" else "",
                       int(line) if line else 0))
    return frames


def bare(fn):
    """A function as bucket names show it: no parameter list."""
    return re.sub(r"\(.*\)( const)?$", "", fn)


def reference_name(binary, path, depth=3, alloc_fns=()):
    """The heap-naming rule (docs/engine.md), written again from addr2line's
    frames: every return address looked up at the call instruction."""
    frames = [f for ret in path for f in addr2line_frames(binary, ret - 1)]
    while frames and bare(frames[0][0]) in alloc_fns:
        frames = frames[1:]
    parts = []
    for k, (fn, file, line) in enumerate(frames[:depth]):
        parts.append(bare(fn) + (" (%s:%d)" % (os.path.basename(file), line) if k == 0 else ""))
        if bare(fn) == "main":
            break
    return " < ".join(parts) or "<heap>"


def esc(s):
    """A raw-dump string field (docs/raw-dump.md, "Lexical rules")."""
    return "".join("%%%02X" % b if b <= 0x20 or b in (0x25, 0x7f) else chr(b)
                   for b in s.encode()) or "%-"


def native_dump(path, binary, paths=(), locs=(), meta=(), extra=()):
    """A version 8 raw dump as the native engine writes one."""
    lines = ["dcprof-raw 8", "meta program " + esc(binary)]
    lines += ["meta %s %s" % (esc(k), esc(v)) for k, v in meta]
    lines += ["level 1 L1 32768 8 64 4", "memory 200"]
    lines += ["map %#x %#x %#x %s" % (s, e, o, esc(binary)) for s, e, o in exec_maps(binary)]
    for i, p in enumerate(paths):
        lines.append("bucket %d heap -" % i)
        lines.append(" ".join(["hpath", str(i)] + ["%#x" % ip for ip in p]))
    for i, ip in enumerate(locs):
        lines.append("loc %d %#x %%- %%- %%- 0 %%-" % (i, ip))
    lines += list(extra)
    lines.append("end 1")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def finalize(test, raw):
    db = raw + ".db"
    r = run([DCPROF, "finalize", raw, "-o", db])
    test.assertEqual(r.returncode, 0, r.stderr)
    return db


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


class NativeNames(TmpDirTest):
    """Bucket names and locations of real call sites."""
    BINARIES = ("heap_names_nopie", "inl_alloc_nopie", "cxx_new_nopie")

    def setUp(self):
        super().setUp()
        missing = tools_missing()
        if missing:
            self.skipTest("binutils missing: %s" % ", ".join(missing))

    def names(self, binary, paths, meta=()):
        raw = self.path("n.raw")
        native_dump(raw, binary, paths=paths, meta=meta)
        db = finalize(self, raw)
        return [n for (n,) in rows(db, "SELECT name FROM bucket ORDER BY id")]

    def test_against_addr2line(self):
        for name in self.BINARIES:
            binary = workload(name)
            paths = alloc_paths(binary)
            self.assertTrue(paths, name)
            got = self.names(binary, paths)
            want = sorted(set(reference_name(binary, p) for p in paths))
            # buckets named alike are one (merged)
            self.assertEqual(sorted(got), want, name)

    def test_alloc_fn_and_depth(self):
        binary = workload("inl_alloc_nopie")
        paths = alloc_paths(binary)
        got = self.names(binary, paths, meta=[("alloc_fns", "safe_malloc"),
                                              ("alloc_depth", "1")])
        want = sorted(set(reference_name(binary, p, 1, {"safe_malloc"}) for p in paths))
        self.assertEqual(sorted(got), want)
        self.assertFalse([n for n in got if "safe_malloc" in n], got)


class SimulatorAgreement(TmpDirTest):
    """The same binaries under the simulator engine: its bucket names and
    its locations for the program's instructions (the simulator runs
    them at the same addresses: no PIE) are what finalize gives."""

    def compare(self, name):
        binary = workload(name)
        r, sim = self.record([binary])
        self.assertEqual(r.returncode, 0, r.stderr)
        simnames = set(n for (n,) in rows(sim, "SELECT name FROM bucket WHERE kind = 'heap'"))
        locs = [l for l in rows(sim, "SELECT ip, object, function, file, line, inlined_into"
                                " FROM location ORDER BY id") if l[1] == binary]
        raw = self.path("n.raw")
        native_dump(raw, binary, paths=alloc_paths(binary), locs=[l[0] for l in locs])
        db = finalize(self, raw)
        native = set(n for (n,) in rows(db, "SELECT name FROM bucket"))
        got = rows(db, "SELECT ip, object, function, file, line, inlined_into FROM location"
                   " ORDER BY id")
        self.assertTrue(native)
        self.assertLessEqual(native, simnames, sorted(simnames))
        self.assertGreater(len(locs), 30)
        self.assertEqual(got, locs)
        return simnames - native - {"<malloc>"}

    def test_heap_names(self):
        # every heap bucket of the program comes from a direct call
        self.assertEqual(self.compare("heap_names_nopie"), set())

    def test_inlined(self):
        # printf's buffer (line 64) is allocated inside libc: not a call
        # site objdump shows in the program
        src = os.path.join(os.path.dirname(DCPROF), "..", "..", "tests", "workloads",
                           "inl_alloc.c")
        with open(src) as f:
            printf_line = [i for i, l in enumerate(f, 1) if "printf" in l][0]
        self.assertEqual(self.compare("inl_alloc_nopie"),
                         {"main (inl_alloc.c:%d)" % printf_line})

    def test_cxx(self):
        # and libstdc++'s own start-up allocation
        self.assertEqual([n for n in self.compare("cxx_new_nopie") if "cxx_new" in n], [])


class NativeMerge(TmpDirTest):
    """Two buckets whose paths name alike are one, as in the simulator.

    Buckets 0 and 1 have the same path.  Blocks (alloc, free sequence):
    bucket 0: A 24 bytes (1, 3); bucket 1: B 24 bytes (2, 4), C 100 bytes
    (5, live).  Merged: 3 blocks, 148 bytes, sizes 24..100; live after
    each event: +A 1/24, +B 2/48, -A 1/24, -B 0/0, +C 1/100, so the peak
    is 2 blocks and 100 bytes (the parts' own peaks are 1 block each).
    Costs at one location add up: (10, 5, 1, 0, 100) + (20, 0, 2, 1, 300);
    so do first-touch pages (5 + 7) and unused bytes of equal offset
    ranges ([0, 8): 3 + 4; [8, 16): 2 from bucket 1 alone)."""

    def dump(self, blocks=("A", "B", "C")):
        binary = workload("heap_names_nopie")
        path = alloc_paths(binary)[0]
        raw = self.path("m.raw")
        rec = {"A": "block 0 0x1000 24 1 3", "B": "block 1 0x2000 24 2 4",
               "C": "block 1 0x3000 100 5 0"}
        native_dump(raw, binary, paths=[path, path], locs=[path[0] - 1], extra=[
            "bstat 0 1 1 24 24 24 24", "bstat 1 2 1 100 124 24 100",
            "cost 0 0 1 10 5 1 0 100", "cost 1 0 1 20 0 2 1 300",
            "ftouch 0 0 1 5", "ftouch 1 0 1 7",
            "offu 0 0 8 3", "offu 1 0 8 4", "offu 1 8 16 2"] +
            [rec[b] for b in blocks])
        return finalize(self, raw), reference_name(binary, path)

    def test_merged(self):
        db, name = self.dump()
        self.assertEqual(rows(db, "SELECT * FROM bucket"),
                         [(0, name, "heap", 3, 2, 100, 148, 24, 100)])
        self.assertEqual(rows(db, "SELECT bucket, Dr, Dw, D1mr, D1mw, Lat FROM cost"),
                         [(0, 30, 5, 3, 1, 400)])
        self.assertEqual(rows(db, "SELECT DISTINCT bucket FROM block"), [(0,)])
        self.assertEqual(rows(db, "SELECT * FROM first_touch"), [(0, 0, 1, 12)])
        self.assertEqual(rows(db, "SELECT bucket, offset, end_offset, Unused1 FROM offset_unused"
                              " ORDER BY offset"), [(0, 0, 8, 7), (0, 8, 16, 2)])

    def test_block_dropped(self):
        # without C's row the blocks do not cover the bucket: the peak is
        # the largest of the parts' (a lower bound)
        db, name = self.dump(blocks=("A", "B"))
        self.assertEqual(rows(db, "SELECT blocks, max_live_blocks, max_live_bytes FROM bucket"),
                         [(3, 1, 100)])


class NativeBadInput(TmpDirTest):
    """Objects that are gone or stripped are names, never errors; corrupt
    records are one line on stderr and exit status 2."""

    def finalize_raw(self, lines):
        raw = self.path("b.raw")
        with open(raw, "w") as f:
            f.write("\n".join(lines) + "\n")
        return run([DCPROF, "finalize", raw, "-o", self.path("b.db")])

    def test_object_gone(self):
        raw = self.path("g.raw")
        with open(raw, "w") as f:
            f.write("dcprof-raw 8\nlevel 1 L1 32768 8 64 4\nmemory 200\n"
                    "map 0x7f0000000000 0x7f0000010000 0x0 /nonexistent/libgone.so\n"
                    "bucket 0 heap -\nhpath 0 0x7f0000000100 0x7f0000000200\n"
                    "loc 0 0x7f0000000100 %- %- %- 0 %-\nloc 1 0x500 %- %- %- 0 %-\nend 1\n")
        db = finalize(self, raw)
        # the simulator's rule for a frame without a symbol: ?(object)
        self.assertEqual(rows(db, "SELECT name FROM bucket"), [("?(libgone.so) < ?(libgone.so)",)])
        self.assertEqual(rows(db, "SELECT object, function, file, line FROM location ORDER BY id"),
                         [("/nonexistent/libgone.so", "", "", 0), ("", "", "", 0)])
        r = run([DCPROF, "report", db, "--by", "function", "--format", "csv"])
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_stripped(self):
        if tools_missing() or not shutil.which("strip"):
            self.skipTest("binutils missing")
        binary = workload("heap_names_nopie")
        copy = self.path("hn_stripped")
        subprocess.run(["strip", "-o", copy, binary], check=True)
        path = alloc_paths(binary)[0]
        raw = self.path("s.raw")
        native_dump(raw, binary, paths=[path], locs=[path[0] - 1])
        with open(raw) as f:
            text = f.read().replace(binary, copy)
        with open(raw, "w") as f:
            f.write(text)
        db = finalize(self, raw)
        # no symbols, no lines: every frame is ?(object) (path: mem_init < main)
        self.assertEqual(rows(db, "SELECT name FROM bucket"),
                         [("?(hn_stripped) < ?(hn_stripped)",)])
        self.assertEqual(rows(db, "SELECT object, function, file FROM location"), [(copy, "", "")])

    HEAD = ["dcprof-raw 8", "level 1 L1 32768 8 64 4", "memory 200"]

    def assertBad(self, lines, message):
        r = self.finalize_raw(lines)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn(message, r.stderr)
        self.assertFalse(os.path.exists(self.path("b.db")))

    def test_corrupt(self):
        H = self.HEAD
        self.assertBad(H + ["bucket 0 heap x", "hpath 0 0x401000", "end 1"],
                       "line 5: hpath names bucket 0, which is not a heap or mmap bucket named '-'")
        self.assertBad(H + ["bucket 0 heap -", "end 1"],
                       "line 4: bucket 0 is named '-' but has no hpath record")
        self.assertBad(H + ["bucket 0 heap -", "hpath 0 0x401000", "hpath 0 0x401000", "end 1"],
                       "line 6: second hpath record for bucket 0")
        self.assertBad(H + ["hpath 0 0x40zz", "end 1"], "line 4: field 2: '0x40zz' is not")
        self.assertBad(H + ["hpath 0 0x0", "end 1"], "line 4: field 2: return address 0x0")
        self.assertBad(H + ["hpath", "end 1"], "line 4: hpath record has no bucket")
        self.assertBad(H + ["hpath 0 " + " ".join(["0x401000"] * 65), "end 1"],
                       "line 4: too many fields")
        self.assertBad(H + ["map 0x2000 0x1000 0x0 /bin/true", "end 1"],
                       "line 4: map record: end 0x1000 is not above start 0x2000")
        self.assertBad(H + ["map 0x1000 0x2000 0x0 %-", "end 1"], "map record without a path")
        self.assertBad(["dcprof-raw 7"] + H[1:] + ["map 0x1000 0x2000 0x0 /bin/true", "end 1"],
                       "unknown record type 'map'")


def libc_path():
    out = run(["ldd", DCPROF]).stdout
    m = re.search(r"libc\.so\.6 => (\S+)", out)
    return m.group(1) if m else None


def debug_file(binary):
    """The separate debug file of binary under /usr/lib/debug (build ID)."""
    out = subprocess.run(["readelf", "-n", binary], capture_output=True, text=True).stdout
    m = re.search(r"Build ID: ([0-9a-f]{2})([0-9a-f]+)", out)
    path = m and "/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1), m.group(2))
    return path if path and os.path.exists(path) else None


def func_symbols(binary):
    """(address, size) of every defined function symbol with code."""
    out = subprocess.run(["readelf", "-sW", binary], capture_output=True, text=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in ("FUNC", "IFUNC") and f[6] != "UND" and f[1].isalnum():
            size = int(f[2], 0) if f[2].isdigit() else int(f[2], 16)
            if size > 1:
                syms.add((int(f[1], 16), size))
    return sorted(syms)


def line_table_files(debug, ips):
    """The file of each ip's line-table row (binutils' readelf -wL)."""
    out = subprocess.run(["readelf", "-wL", debug], capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 3 and re.match(r"^0x[0-9a-f]+$", f[2]) and f[1].isdigit():
            rows.append((int(f[2], 16), f[0]))
    rows.sort()
    addrs = [a for a, _ in rows]
    found = {}
    for ip in ips:
        k = bisect.bisect_right(addrs, ip) - 1
        found[ip] = rows[k][1] if k >= 0 else ""
    return found


def addr2line_many(binary, ips):
    """The inline chain at each ip, innermost first: [(function, file base, line)];
    glibc's internal aliases (__GI_name) are shown by their name."""
    out = subprocess.run(["addr2line", "-i", "-f", "-a", "-e", binary],
                         input="".join("%#x\n" % ip for ip in ips),
                         capture_output=True, text=True, check=True).stdout
    chains, cur = [], None
    for line in out.splitlines():
        if re.match(r"^0x[0-9a-f]+$", line):
            cur = []
            chains.append(cur)
        else:
            cur.append(line)
    frames = []
    for c in chains:
        fr = []
        for fn, src in zip(c[0::2], c[1::2]):
            file, _, line = re.sub(r" \(discriminator \d+\)$", "", src).rpartition(":")
            fr.append((re.sub(r"^__GI_", "", fn) if fn != "??" else "",
                       os.path.basename(file) if file != "??" else "",
                       int(line) if line.isdigit() else 0))
        frames.append(fr)
    return frames


def allocator_like(fn):
    """Names the heap-naming rule skips at the start of a path (a superset:
    such addresses are left out of the bucket comparison)."""
    return bool(re.match(r"(__libc_|_vgr|operator (new|delete)|_Z[nd]|dcprof_|__builtin_)", fn)
                or re.sub(r"@.*", "", fn) in ALLOC_FNS | {"realloc", "reallocarray", "valloc",
                                                        "pvalloc", "free", "cfree"})


def masked(name):
    """A bucket name with its outermost function left out: the symbol table
    names it for finalize (an alias of several), the DWARF for addr2line."""
    parts = name.split(" < ")
    parts[-1] = "*" + re.match(r"^.*?((?: \([^()]*\))?)$", parts[-1]).group(1)
    return " < ".join(parts)


class LibcAgainstAddr2line(TmpDirTest):
    """The C library's code, where one compilation unit holds thousands of
    scopes: finalize's names (each unit's scopes indexed once, dwscope.h)
    against binutils' addr2line -i at a few thousand addresses spread over
    every function of its symbol table (libc6-dbg), never a symbol's first
    byte (there the symbol's own name wins, dc_names.c).

    * Locations: the line is addr2line's; the file's name is addr2line's or
      the line table's row's as readelf -wL decodes it (addr2line 2.40 names
      the unit's main file for some code from headers: plural_eval's rows
      are eval-plural.h's, it says dcigettext.c); inlined code names the
      inlined function and, from the third frame on, the function it was
      inlined into (the second frame's function is the symbol's for
      finalize, the DWARF name for addr2line).
    * No line at all is right only where no DWARF scope covers the address
      (a function's DIE without code ranges, as _IO_default_showmanyc's in
      Debian 12's libc): addr2line then has one frame from the line table
      alone; such addresses are few.
    * Heap buckets named with every frame's site (heap_names site), one per
      address as a return address after it, give the whole inline chain
      with each call site's file and line: equal to addr2line's chain, the
      first frame's file as its location's, the outermost function left
      out (masked())."""
    BASE = 0x7f0000000000
    N = 3000

    def setUp(self):
        super().setUp()
        if tools_missing():
            self.skipTest("binutils missing")
        self.libc = libc_path()
        self.debug = self.libc and debug_file(self.libc)
        if not self.debug:
            self.skipTest("no separate debug information for the C library (libc6-dbg)")

    def test_locations_and_chains(self):
        syms = func_symbols(self.debug)
        starts = set(a for a, _ in syms)
        ips = []
        for i in range(self.N):
            addr, size = syms[i * len(syms) // self.N]
            ip = addr + 1 + (i * 7919) % (size - 1)
            if ip not in starts:
                ips.append(ip)
        want = [one_self_frame(fr, sym) for fr, sym in
                zip(addr2line_many(self.libc, ips), symbol_names(self.debug, ips))]
        maps = ["map %#x %#x %#x %s" % (self.BASE + s, self.BASE + e, o, esc(self.libc))
                for s, e, o in exec_maps(self.libc)]
        raw = self.path("libc.raw")
        with open(raw, "w") as f:
            f.write("\n".join(["dcprof-raw 8", "level 1 L1 32768 8 64 4", "memory 200"] + maps +
                              ["loc %d %#x %%- %%- %%- 0 %%-" % (i, self.BASE + ip)
                               for i, ip in enumerate(ips)] + ["end 1"]) + "\n")
        got = rows(finalize(self, raw), "SELECT function, file, line, inlined_into FROM location"
                   " ORDER BY id")
        table = line_table_files(self.debug, ips)
        bad, unscoped = [], 0
        for ip, (fn, file, line, into), fr in zip(ips, got, want):
            if not line and not file:
                unscoped += 1
                ok = len(fr) == 1 and into == ""
            else:
                ok = line == fr[0][2] and os.path.basename(file) in (fr[0][1], table[ip])
                if len(fr) > 1:
                    ok = ok and fn == fr[0][0] and (len(fr) == 2 or into == fr[1][0])
                else:
                    ok = ok and into == ""
            if not ok:
                bad.append((hex(ip), fn, file, line, into, fr))
        self.assertEqual(bad, [])
        self.assertLess(unscoped, len(ips) // 100)

        # the chains, as bucket names
        obj = os.path.basename(self.libc)
        paths, names = [], set()
        for ip, (fn, file, line, into), fr in zip(ips, got, want):
            if not line or allocator_like(fn) or allocator_like(fr[0][0]):
                continue
            parts = []
            for k, (f, base, ln) in enumerate(fr):
                if k == 0:
                    base = os.path.basename(file)
                src = " (%s:%d)" % (base, ln) if ln and base else " (%s)" % obj if f else ""
                parts.append((f or "?(%s)" % obj) + src)
            paths.append(ip + 1)
            names.add(masked(" < ".join(parts)))
        lines = ["dcprof-raw 8", "meta heap_names site", "level 1 L1 32768 8 64 4",
                 "memory 200"] + maps
        for b, ret in enumerate(paths):
            lines += ["bucket %d heap -" % b, "hpath %d %#x" % (b, self.BASE + ret)]
        raw = self.path("paths.raw")
        with open(raw, "w") as f:
            f.write("\n".join(lines + ["end 1"]) + "\n")
        got_names = set(masked(n) for (n,) in rows(finalize(self, raw), "SELECT name FROM bucket"))
        self.assertGreater(len(paths), len(ips) // 2)
        self.assertEqual(sorted(got_names - names), [])
        self.assertEqual(sorted(names - got_names), [])


def load_segments(binary):
    """(file offset, address, file size) of each PT_LOAD segment."""
    out = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True,
                         check=True).stdout
    return [(int(f[1], 16), int(f[2], 16), int(f[4], 16))
            for f in (line.split() for line in out.splitlines())
            if len(f) >= 8 and f[0] == "LOAD"]


def instructions(binary, names):
    """The address of every instruction inside the function symbols whose
    (mangled) names names() accepts, alignment padding after them left out."""
    out = subprocess.run(["readelf", "-sW", binary], capture_output=True, text=True,
                         check=True).stdout
    funcs = set()
    for f in (line.split() for line in out.splitlines()):
        if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND" and names(f[7]):
            funcs.add((int(f[1], 16), int(f[2], 0)))
    ips = []
    for addr, size in sorted(funcs):
        out = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn",
                              "--start-address=%#x" % addr, "--stop-address=%#x" % (addr + size),
                              binary], capture_output=True, text=True, check=True).stdout
        ips += [int(m.group(1), 16) for m in re.finditer(r"^\s+([0-9a-f]+):\s", out, re.M)]
    return ips


class OutlinedOpenMP(TmpDirTest):
    """Code GCC outlines from OpenMP parallel loops (omp_outlined.cc): each
    outlined function's DWARF is nested in its parent function's DIE, which
    has no code (an abstract instance: scale is inlined everywhere) or code
    elsewhere (dot).  Its file, line and inline chain come from the line
    table and the DIEs under that nested one (dwscope.h), as addr2line and
    the simulator engine give them; LULESH's parallel loops lost their file
    and line here before."""

    def setUp(self):
        super().setUp()
        missing = tools_missing()
        if missing:
            self.skipTest("binutils missing: %s" % ", ".join(missing))
        self.binary = workload("omp_outlined_nopie")

    def test_against_addr2line(self):
        # every instruction of the outlined functions and of the functions
        # around them: the file's base name and the line are addr2line's
        # innermost frame's, and inlined code is inlined into a function
        # where addr2line has more than one frame (addr2line 2.40 names
        # some of these frames after the function they are in, scale's
        # in main "main": the names are the simulator's, below)
        ips = instructions(self.binary, lambda n: "._omp_fn." in n or n in ("main", "_ZL3dotv"))
        raw = self.path("o.raw")
        native_dump(raw, self.binary, locs=ips)
        got = rows(finalize(self, raw), "SELECT function, file, line, inlined_into FROM location"
                   " ORDER BY id")
        want = addr2line_many(self.binary, ips)
        bad = []
        for ip, (fn, file, line, into), fr in zip(ips, got, want):
            ok = (os.path.basename(file), line) == fr[0][1:] and line > 0
            ok = ok and (into != "") == (len(fr) > 1)
            if not ok:
                bad.append((hex(ip), fn, file, line, into, fr))
        self.assertEqual(bad, [])
        outlined = [g for g in got if "[clone ._omp_fn." in g[0] + g[3]]
        self.assertGreater(len(outlined), 50)
        self.assertTrue([g for g in outlined if g[0] == "weight" and g[3].startswith("scale(")])
        self.assertTrue([g for g in outlined if g[0] == "weight" and g[3].startswith("dot(")])

    def test_simulator_agreement(self):
        # the simulator engine's locations of the program's instructions,
        # its outlined code among them, named alike
        db = self.path("s.db")
        r = run([DCPROF, "record", "-q", "-o", db, "--", self.binary],
                env=dict(os.environ, OMP_NUM_THREADS="2"))
        self.assertEqual(r.returncode, 0, r.stderr)
        locs = [l for l in rows(db, "SELECT ip, object, function, file, line, inlined_into"
                                " FROM location ORDER BY id") if l[1] == self.binary]
        self.assertGreater(len([l for l in locs if "._omp_fn." in l[2] + l[5]]), 10)
        raw = self.path("o.raw")
        native_dump(raw, self.binary, locs=[l[0] for l in locs])
        got = rows(finalize(self, raw), "SELECT ip, object, function, file, line, inlined_into"
                   " FROM location ORDER BY id")
        self.assertEqual(got, locs)

    @unittest.skipUnless(perf_ok(), "perf_event_paranoid > 2: no software sampling")
    def test_native_record(self):
        # the native engine on the program built as users build (PIE): the
        # first touches of c fault in scale's outlined loop; each location
        # of the program has addr2line's file and line at its address in
        # the file (from the dump's map record and the program headers)
        binary = workload("omp_outlined")
        db = self.path("n.db")
        r = run([DCPROF, "record", "-q", "--keep-raw", "--engine=native", "--event=pagefault",
                 "-o", db, "--", binary], env=dict(os.environ, OMP_NUM_THREADS="2"))
        kept = re.search(r"raw dumps kept in (\S+)", r.stderr)
        try:
            self.assertEqual(r.returncode, 0, r.stderr)
            maps = []
            for name in os.listdir(kept.group(1)):
                with open(os.path.join(kept.group(1), name), errors="replace") as f:
                    maps += [(int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))
                             for m in re.finditer(r"^map (0x\S+) (0x\S+) (0x\S+) (\S+)$",
                                                  f.read(), re.M) if m.group(4) == binary]
        finally:
            if kept:
                shutil.rmtree(kept.group(1), ignore_errors=True)
        locs = rows(db, "SELECT ip, function, file, line FROM location WHERE object = ?"
                    .replace("?", "'%s'" % binary.replace("'", "''")))
        segs = load_segments(binary)

        def vaddr(ip):
            start, _, off = [m for m in maps if m[0] <= ip < m[1]][0]
            fileoff = ip - start + off
            return [v + fileoff - o for o, v, sz in segs if o <= fileoff < o + sz][0]

        want = addr2line_many(binary, [vaddr(ip) for ip, _, _, _ in locs])
        got = [(os.path.basename(file), line) for _, _, file, line in locs]
        self.assertEqual(got, [fr[0][1:] for fr in want])
        self.assertTrue([l for l in locs if l[1].startswith("scale(double) [clone ._omp_fn.")
                         and l[3] > 0], locs)
