#!/usr/bin/env python3
"""shrink-raw.py — cut a raw dump (docs/raw-dump.md) down to a fuzzing seed.

A recorded dump names every global of libc and every location that ever
touched memory: hundreds of buckets and locations, a 100 KB file and a
1 MB profile.  A seed should be a few KB yet keep every record type the
dump has, so this keeps the buckets and locations that carry the most
accesses, renumbers them densely (the reader requires dense IDs), drops
every record that names something dropped, and keeps the first few trace
windows.  The result is still a dump the reader accepts: the totals
change, the structure does not.

Usage: shrink-raw.py IN OUT [--buckets N] [--locs N] [--windows N] [--blocks N]
"""
import argparse
import collections
import sys

# Record type -> the field indexes (after the type) that name a bucket or a
# location; '-' (a call root) is kept as it is.
BUCKET_FIELDS = {
    "bucket": [0], "bstat": [0], "block": [0], "cost": [0], "scost": [0],
    "evict": [1, 2], "sevict": [1, 2], "resid": [0], "rhist": [1],
    "rfirst": [0], "runseen": [0], "use": [1], "trec": [1],
}
LOC_FIELDS = {
    "loc": [0], "cost": [1], "scost": [1], "evict": [3], "sevict": [3],
    "rpair": [0, 1], "srpair": [0, 1], "use": [2], "call": [1, 2],
    "calluse": [1, 2], "trec": [0],
}


def num(s):
    try:
        return int(s)
    except ValueError:
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--buckets", type=int, default=6)
    ap.add_argument("--locs", type=int, default=12)
    ap.add_argument("--windows", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--calls", type=int, default=8)
    ap.add_argument("--tfn", type=int, default=4)
    a = ap.parse_args()

    with open(a.inp, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    recs = [ln.decode("utf-8", "surrogateescape").split(" ") for ln in lines]

    bscore = collections.Counter()
    lscore = collections.Counter()
    for r in recs:
        t, f = r[0], r[1:]
        if t in ("cost", "scost"):
            w = num(f[3]) + num(f[4]) + 1
            bscore[f[0]] += w
            lscore[(f[1], "cost")] += w
        elif t in ("rhist", "rfirst"):
            bscore[f[1] if t == "rhist" else f[0]] += 1
        elif t == "trec":
            bscore[f[1]] += 1
    keep_b = {b for b, _ in bscore.most_common(a.buckets)}

    lw = collections.Counter()
    for r in recs:
        t, f = r[0], r[1:]
        if t in ("cost", "scost") and f[0] in keep_b:
            lw[f[1]] += num(f[3]) + num(f[4]) + 1
    keep_l = {l for l, _ in lw.most_common(a.locs)}
    # The heaviest call arcs bring their sites and callees along, so the
    # inclusive reports have a tree to walk.
    calls = [r for r in recs if r[0] == "call" and r[1] == "call"]
    calls.sort(key=lambda r: -(num(r[6]) + num(r[7])))
    for r in calls[:a.calls]:
        keep_l.update((r[2], r[3]))
    trec_l = collections.Counter(r[1] for r in recs if r[0] == "trec" and r[2] in keep_b)
    keep_l.update(l for l, _ in trec_l.most_common(4))

    bmap, lmap = {}, {}
    for r in recs:
        if r[0] == "bucket" and r[1] in keep_b:
            bmap[r[1]] = str(len(bmap))
        elif r[0] == "loc" and r[1] in keep_l:
            lmap[r[1]] = str(len(lmap))

    tfns = sorted((r for r in recs if r[0] == "tfn"), key=lambda r: -num(r[2]))
    keep_tfn = {r[1] for r in tfns[:a.tfn]}
    blocks = collections.Counter()
    window = -1
    out = []
    for r in recs:
        t, f = r[0], list(r[1:])
        ok = True
        for i in BUCKET_FIELDS.get(t, []):
            if i < len(f):
                if f[i] not in bmap:
                    ok = False
                else:
                    f[i] = bmap[f[i]]
        for i in LOC_FIELDS.get(t, []):
            if i < len(f) and f[i] != "-":
                if f[i] not in lmap:
                    ok = False
                else:
                    f[i] = lmap[f[i]]
        if t == "twin":
            window = num(f[0])
            ok = window < a.windows
        elif t in ("tper", "tref"):
            ok = num(f[0]) < a.windows
        elif t == "trec":
            ok = ok and 0 <= window < a.windows
        elif t == "block" and ok:
            blocks[f[0]] += 1
            ok = blocks[f[0]] <= a.blocks
        elif t == "tfn":
            ok = f[0] in keep_tfn
        if ok:
            out.append(" ".join([t] + f))
    text = "\n".join(out) + "\n"
    with open(a.out, "wb") as f:
        f.write(text.encode("utf-8", "surrogateescape"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
