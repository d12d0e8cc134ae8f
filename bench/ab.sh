#!/bin/sh
# bench/ab.sh — two builds of the engine compared on one workload.
#
#   sh bench/ab.sh [-n PAIRS] LIB_A LIB_B WORKLOAD [OPTION...]
#
# LIB_A and LIB_B are copies of build/lib/dcprof made before and after a
# change (cp -r build/lib/dcprof /tmp/lib_a).  Each pair runs A and B at
# the same time, one on each of CPUs 0 and 1 (swapped every pair), as
# `valgrind --tool=dcprof OPTION... build/w/WORKLOAD`, and compares their
# CPU times (user + system).  Runs made together see the same load from
# the rest of the host, and the swap cancels a steady difference between
# the two CPUs, so the geometric mean of A/B over an even number of pairs
# (default 6) is steadier than times taken minutes apart; on a shared VM
# single pairs of identical builds still differ by up to 25 %.  The two
# runs share the host's caches and memory bandwidth, so a change that
# saves memory traffic shows a larger ratio here than in runs made one
# at a time.  Prints each pair's A/B and their geometric mean.  Nothing
# here is a test.
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
PAIRS=6
case "${1:-}" in
-n) PAIRS=$2; shift 2 ;;
-h|--help) sed -n '2,18p' "$0"; exit 0 ;;
esac
if [ $# -lt 3 ]; then
	echo "usage: sh bench/ab.sh [-n PAIRS] LIB_A LIB_B WORKLOAD [OPTION...]" >&2
	exit 2
fi
A=$1 B=$2 W=$3
shift 3
for lib in "$A" "$B"; do
	[ -d "$lib" ] || { echo "bench/ab.sh: no engine directory '$lib'" >&2; exit 2; }
done
[ -x "$ROOT/build/w/$W" ] || { echo "bench/ab.sh: no workload build/w/$W (make all)" >&2; exit 2; }
command -v taskset >/dev/null 2>&1 || { echo "bench/ab.sh: taskset not found" >&2; exit 2; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcprof-ab.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# one run in the background: LIB CPU TAG OPTION...
start() {
	lib=$1 cpu=$2 tag=$3
	shift 3
	VALGRIND_LIB="$lib" taskset -c "$cpu" /usr/bin/time -f '%U %S' -o "$TMP/$tag" \
		valgrind -q --tool=dcprof --dcprof-out="$TMP/$tag.raw" "$@" "$ROOT/build/w/$W" \
		>/dev/null 2>"$TMP/$tag.err" &
}

cpu_seconds() {
	tail -1 "$1" | awk '{ print $1 + $2 }'
}

i=0
: >"$TMP/ratios"
while [ $i -lt "$PAIRS" ]; do
	start "$A" $((i % 2)) a "$@"
	pa=$!
	start "$B" $((1 - i % 2)) b "$@"
	pb=$!
	wait $pa || { echo "bench/ab.sh: A failed:" >&2; tail -3 "$TMP/a.err" >&2; exit 1; }
	wait $pb || { echo "bench/ab.sh: B failed:" >&2; tail -3 "$TMP/b.err" >&2; exit 1; }
	ta=$(cpu_seconds "$TMP/a")
	tb=$(cpu_seconds "$TMP/b")
	echo "pair $((i + 1)): A on CPU $((i % 2)) $ta s, B $tb s, A/B $(echo "$ta $tb" | awk '{ printf "%.3f", $1 / $2 }')"
	echo "$ta $tb" >>"$TMP/ratios"
	i=$((i + 1))
done
awk '{ s += log($1 / $2) } END { printf "A/B geometric mean over %d pairs: %.3f\n", NR, exp(s / NR) }' "$TMP/ratios"
