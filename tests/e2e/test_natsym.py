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
import os
import re
import shutil
import sqlite3
import subprocess
import unittest

from harness import DCPROF, TmpDirTest, run, workload

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


def native_dump(path, binary, paths=(), locs=(), meta=(), extra=()):
    """A version 8 raw dump as the native engine writes one."""
    lines = ["dcprof-raw 8", "meta program " + binary]
    lines += ["meta %s %s" % kv for kv in meta]
    lines += ["level 1 L1 32768 8 64 4", "memory 200"]
    lines += ["map %#x %#x %#x %s" % (s, e, o, binary) for s, e, o in exec_maps(binary)]
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
