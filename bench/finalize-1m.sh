#!/bin/sh
# bench/finalize-1m.sh — time `dcprof finalize` on a synthetic raw dump with
# 1,000,000 heap-block lines (plus a handful of other records).
#
#   sh bench/finalize-1m.sh [-n RUNS]
#
# Generates the dump once in a temporary directory, runs
# `dcprof finalize -q DUMP -o OUT.db` RUNS times (default 5) and prints each
# wall time and the median in seconds.  Target: well under 2 s.  Nothing
# here is a test: timings are never asserted anywhere.
set -eu

cd "$(dirname "$0")/.."
RUNS=5
while [ $# -gt 0 ]; do
	case "$1" in
	-n) shift; RUNS=$1 ;;
	-h|--help) sed -n '2,10p' "$0"; exit 0 ;;
	*) echo "bench/finalize-1m.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

make -s build/bin/dcprof >&2
DCPROF="$(pwd)/build/bin/dcprof"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcprof-bench-XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

awk 'BEGIN {
	print "dcprof-raw 1"
	print "meta program /bin/synthetic"
	print "level 1 L1 32768 8 64 4"
	print "level 2 L2 1048576 16 64 14"
	print "memory 200"
	print "bucket 0 heap blocks"
	print "loc 0 0x401000 /bin/synthetic main synthetic.c 1"
	for (i = 0; i < 1000000; i++)
		printf "block 0 0x%x 64 %d %d\n", 268435456 + 64 * i, 2 * i + 1, (i % 2) ? 2 * i + 2 : 0
	print "bstat 0 1000000 500000 32000000 64000000 64 64"
	print "cost 0 0 1 1000 1000 100 100 10 10 12345"
	print "end 1"
}' > "$TMP/dump.raw"
echo "dump: $(wc -l < "$TMP/dump.raw") lines, $(wc -c < "$TMP/dump.raw") bytes"

i=0
: > "$TMP/times"
while [ "$i" -lt "$RUNS" ]; do
	start=$(date +%s.%N)
	"$DCPROF" finalize -q "$TMP/dump.raw" -o "$TMP/out.db"
	end=$(date +%s.%N)
	t=$(echo "$end $start" | awk '{ printf "%.3f", $1 - $2 }')
	echo "run $((i + 1)): $t s"
	echo "$t" >> "$TMP/times"
	i=$((i + 1))
done
sort -n "$TMP/times" | awk '{ t[NR] = $1 } END { printf "median: %.3f s (%d runs)\n", t[int((NR + 1) / 2)], NR }'
