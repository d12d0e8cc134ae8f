#!/bin/sh
# bench/run.sh — compare `dcprof record` with `valgrind --tool=cachegrind
# --cache-sim=yes` on the workloads in bench/workloads/.
#
#   sh bench/run.sh [--quick] [-n RUNS] [WORKLOAD...]
#
# For each workload it runs Cachegrind and dcprof record (default settings)
# alternately, RUNS times each (default 5; --quick: 1), and prints the median
# wall time and the median peak resident memory (GNU time's %e and %M; the
# peak covers the whole process tree, i.e. Valgrind) as a Markdown table:
#   workload | cachegrind s | dcprof s | ratio | mem ratio
# ratio = dcprof s / cachegrind s, mem ratio = dcprof peak RSS / cachegrind's.
# The exact commands are printed below the table.  Nothing here is a test:
# timings are never asserted anywhere.
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=5
ONLY=""
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) RUNS=1 ;;
	-n) shift; RUNS=$1 ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	-*) echo "bench/run.sh: unknown option '$1'" >&2; exit 2 ;;
	*) ONLY="$ONLY $1" ;;
	esac
	shift
done

TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
	echo "bench/run.sh: $TIME not found (install package 'time': sh scripts/install-deps.sh)" >&2
	exit 2
fi
command -v valgrind >/dev/null 2>&1 || { echo "bench/run.sh: valgrind not found" >&2; exit 2; }

make -s all >&2
DCPROF="$ROOT/build/bin/dcprof"

if [ -z "$ONLY" ]; then
	for f in bench/workloads/*.c; do
		ONLY="$ONLY $(basename "$f" .c)"
	done
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcprof-bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# shellcheck source=bench/stats.sh
. "$ROOT/bench/stats.sh"

# timed OUTFILE CMD...: run CMD, append "seconds kilobytes" to OUTFILE
timed() {
	out=$1
	shift
	if ! "$TIME" -f '%e %M' -o "$TMP/time" "$@" >/dev/null 2>"$TMP/stderr"; then
		echo "bench/run.sh: command failed: $*" >&2
		tail -5 "$TMP/stderr" >&2
		exit 1
	fi
	tail -1 "$TMP/time" >>"$out"
}

echo "$("$DCPROF" --version 2>/dev/null | head -1), $(valgrind --version), $(uname -m)," \
	"$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs, $RUNS run(s) each"
echo
echo "| workload | cachegrind s | dcprof s | ratio | mem ratio |"
echo "| --- | ---: | ---: | ---: | ---: |"
for w in $ONLY; do
	prog="$ROOT/build/w/$w"
	[ -x "$prog" ] || { echo "bench/run.sh: no workload '$w' ($prog)" >&2; exit 2; }
	: >"$TMP/cg.$w"
	: >"$TMP/dc.$w"
	i=0
	while [ $i -lt "$RUNS" ]; do
		timed "$TMP/cg.$w" valgrind --tool=cachegrind --cache-sim=yes \
			--cachegrind-out-file="$TMP/cg.out" "$prog"
		timed "$TMP/dc.$w" "$DCPROF" record -q -o "$TMP/p.db" -- "$prog"
		rm -f "$TMP/cg.out" "$TMP/p.db"
		i=$((i + 1))
	done
	cgs=$(awk '{ print $1 }' "$TMP/cg.$w" | median)
	dcs=$(awk '{ print $1 }' "$TMP/dc.$w" | median)
	cgm=$(awk '{ print $2 }' "$TMP/cg.$w" | median)
	dcm=$(awk '{ print $2 }' "$TMP/dc.$w" | median)
	awk -v w="$w" -v a="$cgs" -v b="$dcs" -v ma="$cgm" -v mb="$dcm" 'BEGIN {
		printf "| %s | %.2f | %.2f | %.2f | %.2f |\n", w, a, b, (a > 0 ? b / a : 0), (ma > 0 ? mb / ma : 0) }'
done
echo
echo "Commands (median of $RUNS alternating runs each, timed with $TIME -f '%e %M'):"
echo "  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=OUT build/w/WORKLOAD"
echo "  build/bin/dcprof record -q -o OUT.db -- build/w/WORKLOAD"
