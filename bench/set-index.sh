#!/bin/sh
# bench/set-index.sh — a server-like LL whose set count is not a power of
# two (30 MiB 20-way: 24,576 sets, indexed by a division) against one
# that is (40 MiB 20-way: 32,768 sets, indexed by a mask), in CPU seconds
# (user + system), median of RUNS alternating runs (issue "one exact
# mode": the host's hierarchy whatever its geometry):
#
#   sh bench/set-index.sh [-n RUNS] [WORKLOAD...]
#
#   cachegrind   valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64
#                --LL=41943040,20,64   (Cachegrind takes only powers of two)
#   dcprof 40M   dcprof record --cache=L1=32K:8:64,L2=40M:20:64
#   dcprof 30M   dcprof record --cache=L1=32K:8:64,L2=30M:20:64
# Prints a Markdown table with both dcprof runs over Cachegrind's.
# Timings are never asserted.
set -eu
cd "$(dirname "$0")/.."
RUNS=3
ONLY=""
while [ $# -gt 0 ]; do
	case "$1" in
	-n) shift; RUNS=$1 ;;
	-h|--help) sed -n '2,16p' "$0"; exit 0 ;;
	-*) echo "bench/set-index.sh: unknown option '$1'" >&2; exit 2 ;;
	*) ONLY="$ONLY $1" ;;
	esac
	shift
done
make -s all >&2
[ -n "$ONLY" ] || for f in bench/workloads/*.c; do ONLY="$ONLY $(basename "$f" .c)"; done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcprof-setidx.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
. bench/stats.sh
echo "| workload | cachegrind 40M s | dcprof 40M s | ratio | dcprof 30M s | ratio |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
for w in $ONLY; do
	: >"$TMP/cg"; : >"$TMP/p2"; : >"$TMP/mod"; i=0
	while [ $i -lt "$RUNS" ]; do
		cpu valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=41943040,20,64 \
			--cachegrind-out-file="$TMP/cg.out" "build/w/$w" >>"$TMP/cg"
		cpu build/bin/dcprof record -q -o "$TMP/p.db" --cache=L1=32K:8:64,L2=40M:20:64 \
			-- "build/w/$w" >>"$TMP/p2"
		rm -f "$TMP/p.db"
		cpu build/bin/dcprof record -q -o "$TMP/p.db" --cache=L1=32K:8:64,L2=30M:20:64 \
			-- "build/w/$w" >>"$TMP/mod"
		rm -f "$TMP/p.db" "$TMP/cg.out"; i=$((i + 1))
	done
	a=$(median <"$TMP/cg"); b=$(median <"$TMP/p2"); c=$(median <"$TMP/mod")
	awk -v w="$w" -v a="$a" -v b="$b" -v c="$c" \
		'BEGIN { printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n", w, a, b, b / a, c, c / a }'
done
