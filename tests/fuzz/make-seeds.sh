#!/bin/sh
# make-seeds.sh — regenerate the recorded seeds of the fuzz corpora
# (docs/fuzzing.md): for each line of the list below, record a bundled
# workload (build/w/) with the options given, keep its raw dump, cut the
# dump down (shrink-raw.py: the heaviest buckets and locations, the first
# trace windows) and write
#     tests/fuzz/corpus/raw/NAME.raw      the cut dump
#     tests/fuzz/corpus/profile/NAME.db   its profile, vacuumed to 512-byte
#                                         pages (dcprof writes 64 KiB pages:
#                                         a 3 MB file of mostly zeros)
# Paths of this checkout are replaced by /opt/dcprof so seeds do not depend
# on where the repository lives.  Hand-made seeds (edge-*, crash-*, the
# e2e fixtures, the command lines in corpus/opts/) are left alone.
#
# usage: tests/fuzz/make-seeds.sh        (after make; needs sqlite3, python3)
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DCPROF=$ROOT/build/bin/dcprof
W=$ROOT/build/w
OUT=$ROOT/tests/fuzz/corpus
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

[ -x "$DCPROF" ] || { echo "make-seeds.sh: build first (make)" >&2; exit 1; }
mkdir -p "$OUT/raw" "$OUT/profile"

C2="--cache=L1=4K:2:64,L2=32K:4:64"

# seed NAME SHRINK-OPTIONS WORKLOAD-AND-ARGS -- RECORD-OPTIONS
seed() {
	name=$1 shrink=$2 prog=$3
	shift 3
	[ "$1" = "--" ] && shift
	rm -rf "$TMP/rec" "$TMP/x.db"*
	mkdir "$TMP/rec"
	# The program's exit status is record's: a crashing workload is wanted.
	# shellcheck disable=SC2086  # prog is a command line
	TMPDIR=$TMP/rec "$DCPROF" record -q --keep-raw -o "$TMP/x.db" "$@" -- $prog || true
	raw=$(ls "$TMP"/rec/dcprof-*/raw.* | head -n 1)
	sed "s|$ROOT/build/w|/opt/dcprof/w|g; s|$ROOT|/opt/dcprof|g" "$raw" >"$TMP/full.raw"
	# shellcheck disable=SC2086  # shrink is a list of options
	python3 "$ROOT/tests/fuzz/shrink-raw.py" $shrink "$TMP/full.raw" "$OUT/raw/$name.raw"
	rm -f "$TMP/$name.db"
	"$DCPROF" finalize -q "$OUT/raw/$name.raw" -o "$TMP/$name.db"
	sqlite3 "$TMP/$name.db" "PRAGMA page_size=512; VACUUM;"
	cp "$TMP/$name.db" "$OUT/profile/$name.db"
	echo "seed $name: $(wc -c <"$OUT/raw/$name.raw") bytes raw, $(wc -c <"$OUT/profile/$name.db") bytes profile"
}

# Every feature at once: the fixture the options target runs commands on.
seed all "--windows 2" "$W/startstop" -- --collect-atstart=no $C2 --evictions=yes \
	--sample=D1m:100 --reuse=yes --reuse-sample=100 --cache-use --calls \
	--trace-window=32 --trace-full
seed sample "" "$W/sample_mix 20000" -- --cache=L1=32K:8:64,L2=1M:16:64 --sample=D1m:1000
seed evict "" "$W/evict_ring" -- --cache=L1=8K:8:64,L2=1M:16:64 --evictions=yes \
	--sample=D1m:1000
seed evict_sampled_dr "" "$W/evict_ring" -- --cache=L1=8K:8:64,L2=1M:16:64 \
	--evictions=yes --sample=Dr:50 --sample-seed=3
seed reuse "" "$W/reuse_mix 64" -- --collect-atstart=no --reuse=yes
seed reuse_bins "" "$W/reuse_sweep" -- --collect-atstart=no --reuse=yes --reuse-bins=4:4 \
	--reuse-block=256
seed reuse_sampled "" "$W/reuse_random" -- --collect-atstart=no --reuse=yes --reuse-sample=100
seed rdx_block "" "$W/rdx_listing" -- --collect-atstart=no --reuse-sample=50 --reuse-watch=block \
	--reuse-replace=oldest --reuse-attrib=none --reuse-watchpoints=2
seed cacheuse_calls "--calls 12" "$W/calls_tree" -- --cache-use --calls $C2
seed cacheuse_evict "" "$W/cu_hydro" -- --cache-use --evictions=yes \
	--cache-use-granularity=callgrind
seed trace "--windows 3" "$W/fp_micro irr 1" -- --collect-atstart=no --trace-window=16 \
	--trace-period=64 --trace-full
seed trace_str "--windows 2" "$W/fp_micro cond 1" -- --collect-atstart=no --trace-window=8 \
	--trace-block=8
seed threads "" "$W/threads" -- --sample=Da:200 --calls
seed heap_site "" "$W/heap_names" -- --heap-names=site
seed user_named "" "$W/user_named" -- --heap-names=fn:1
seed cxx "" "$W/cxx_new" -- --stack-frames=yes
seed four_levels "" "$W/conflict" -- \
	--cache=L1=1K:2:64,L2=4K:4:64,L3=16K:8:64,L4=64K:16:64 \
	--latency=L1=1,L2=5,L3=20,L4=50,MEM=300 --sample=D4m:10
seed compat "" "$W/cg_copy" -- --cachegrind-compat
seed segv "" "$W/segv" -- --evictions=yes

# ---- hand-made edge cases --------------------------------------------------
R=$OUT/raw
printf '' >"$R/edge-empty.raw"
printf 'dcprof-raw 5\n' >"$R/edge-header-only.raw"
printf 'dcprof-raw 5\nmeta program x\nlevel 1 L1 32768 8 64 4\nmemory 200\nbucket 0 global a\nloc 0 0x1 %%- %%- %%- 0\ncost 0 0 1 1 2 3 4 5\nend 1\n' \
	>"$R/edge-one-level.raw"
# Version 1: no sampling, reuse or trace records.
printf 'dcprof-raw 1\nlevel 1 L1 32768 8 64 4\nlevel 2 L2 1048576 16 64 14\nmemory 200\nbucket 0 heap h\nbucket 1 stack %%5Bstack%%5D\nblock 0 0x1000 64 1 0\nbstat 0 1 1 64 64 64 64\nloc 0 0x401000 /bin/x main x.c 1\ncost 0 0 1 10 0 1 0 1 0 300\ncost 1 0 1 0 5 0 0 0 0 20\nend 1\n' \
	>"$R/edge-version1.raw"
# Cut short: no end record, and a last line without its newline.
printf 'dcprof-raw 5\nlevel 1 L1 32768 8 64 4\nmemory 200\nbucket 0 global a\nloc 0 0x1 o f s 3\ncost 0 0 1 1 0 1 0 204\ncost 0 0 2 1' \
	>"$R/edge-cut.raw"
# Escapes: empty strings, control bytes, a %, UTF-8 and invalid UTF-8.
printf 'dcprof-raw 5\nmeta command a%%20b%%25c\nlevel 1 L1 32768 8 64 4\nmemory 200\nbucket 0 user %%-\nbucket 1 user %%0A%%1B[31m%%7F\xc3\xa9\xff\nloc 0 0x0 %%- %%- %%- 0\nloc 1 0x7fffffffffffffff %%20 %%25 %%09 4294967295\ncost 0 1 1 1 1 1 1 9\ncost 1 0 1 1000000000000 0 0 0 0\nend 0\n' \
	>"$R/edge-escapes.raw"
# A trace cut short: accesses naming a location declared only at exit,
# a window without its period, the last window's records dropped.
printf 'dcprof-raw 5\nmeta trace_window 2\nmeta trace_period 4\nmeta trace_block 64\nmeta trace_full yes\nlevel 1 L1 32768 8 64 4\nmemory 200\ntwin 0 0\ntrec 0 0 0x1000 i 0\ntrec 0 0 0x1040 s 2\ntper 0 4\ntref 0 2 1 1\ntwin 1 4\ntrec 1 0 0x1080 c 0\nbucket 0 global g\nloc 0 0x10 o f s 1\ncost 0 0 1 3 0 2 0 500\ntfn f 2 2 2 1 1\n' \
	>"$R/edge-trace-cut.raw"
# Reuse histograms whose bins reach past 2^63, meta after the records.
printf 'dcprof-raw 5\nlevel 1 L1 32768 8 64 4\nmemory 200\nbucket 0 heap h\nloc 0 0x1 o f s 1\nloc 1 0x2 o g s 2\ncost 0 0 1 5 0 1 0 204\nrhist stack 0 0 1 0\nrhist stack 0 63 1 9223372036854775807\nrhist time 0 1 2 3\nrfirst 0 1\nrpair 0 1 3 6 9\nmeta reuse_bins 1:2\nmeta reuse_block 64\nend 1\n' \
	>"$R/edge-reuse-wide.raw"
for f in "$ROOT"/tests/e2e/fixtures/*.raw; do
	cp "$f" "$R/e2e-$(basename "$f")"
done

P=$OUT/profile
printf '' >"$P/edge-empty.db"
printf 'dcprof-raw 5\nnot a profile\n' >"$P/edge-not-sqlite.db"
# The same profile claiming each older schema version, and a newer one.
for v in 1 2 3 4 99; do
	cp "$P/all.db" "$P/edge-version$v.db"
	sqlite3 "$P/edge-version$v.db" "PRAGMA user_version=$v;"
done
cp "$P/all.db" "$P/edge-not-dcprof.db"
sqlite3 "$P/edge-not-dcprof.db" "PRAGMA application_id=1;"
# Tables but no rows: the profile of an empty dump.
rm -f "$TMP/empty.db"
printf 'dcprof-raw 5\nlevel 1 L1 32768 8 64 4\nmemory 200\nend 1\n' >"$TMP/empty.raw"
"$DCPROF" finalize -q "$TMP/empty.raw" -o "$TMP/empty.db"
sqlite3 "$TMP/empty.db" "PRAGMA page_size=512; VACUUM;"
cp "$TMP/empty.db" "$P/edge-no-rows.db"
# Values no engine writes: zero and negative sizes and latencies, NULLs.
cp "$P/all.db" "$P/edge-odd-values.db"
sqlite3 "$P/edge-odd-values.db" "UPDATE level SET size=0, assoc=0, line_size=0 WHERE level=1;
	UPDATE level SET latency=-1 WHERE level=2; UPDATE cost SET Dr=-5 WHERE rowid=1;
	UPDATE bucket SET kind='nonsense' WHERE id=0; UPDATE meta SET value='' WHERE key='reuse_bins';
	UPDATE meta SET value='-1' WHERE key='levels';"

# ---- command lines for the options target (arguments separated by NUL) ---
O=$OUT/opts
mkdir -p "$O"
n=0
while IFS= read -r line; do
	[ -z "$line" ] && continue
	n=$((n + 1))
	printf '%s' "$line" | tr ' ' '\000' >"$O/$(printf 'cmd-%02d' $n)"
done <<'LINES'
--help
--version
help report
help nosuch
report --help
report p.db
report p.db --by=function --format=csv --top 5
report p.db --by line --object mix_a --sort D1mr
report p.db -h --stats
report p.db --sampled --thread --format=json --top=0
report p.db --inclusive --function main
report --format=xml p.db
diff p.db q.db --by=function --sort=Lat
diff p.db q.db --inclusive --format=json
diff p.db --sampled
accuracy q.db --top 3 --format=csv
evictions p.db --level 2 --top 20
evictions p.db --object inside_arr --by=line --sampled
reuse p.db --kind=time --object warm_arr
reuse p.db --pairs --top=0 --sampled
reuse p.db --accuracy --converted
mrc p.db --object inside_arr --format=csv
footprint p.db --by=interval --levels=0
footprint p.db --zoom --tau=50 --min-page=128 --format=json
footprint p.db --accuracy --top 1
export p.db --format=callgrind -o out.cg --by-object
export p.db --format=callgrind --output=out.cg
finalize r.raw -o out.db --exit-status=signal:9
finalize r.raw -oout.db -q --exit-status exit:3
record -o out.db --cache=L1=32K:8:64,L2=1M:16:64 --latency=L1=3,MEM=100 --sample=D2m:7 -- true
record --evictions --calls=no --cache-use=yes --cache-use-granularity=callgrind true
record --reuse --reuse-block=128 --reuse-bins=2:3 --reuse-sample=10 --reuse-watchpoints=16 --reuse-watch=block true
record --trace-window=8 --trace-period=16 --trace-seed=9 --trace-block=8 --trace-full=yes --trace-out=t.%p true
record --cachegrind-compat --cache=L1=8K:2:64,L2=64K:8:64 --heap-names=site --alloc-fn=xmalloc --stack-frames=yes true
record --collect-atstart=no --max-block-records=0 --checkpoint=0.5 --checkpoint-budget=none --keep-raw -q true
record --sample-seed=4 true
record --reuse-attrib=none --reuse-replace=oldest --reuse-sample=1 nosuchprogram arg
LINES
