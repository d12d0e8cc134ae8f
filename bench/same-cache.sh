#!/bin/sh
# bench/same-cache.sh — dcprof record against Cachegrind with the same D1
# and LL, in CPU seconds (user + system) of the whole run, median of RUNS
# alternating runs each (issue "one exact mode"):
#
#   sh bench/same-cache.sh [-n RUNS] [--compat] [WORKLOAD...]
#
# default: dcprof record --cache=L1=32K:8:64,L2=8M:16:64 against
#   valgrind --tool=cachegrind --cache-sim=yes --D1=32768,8,64 --LL=8388608,16,64
# --compat: dcprof record --cachegrind-compat --cache=L1=32K:8:64,L2=32M:32:64
#   against Cachegrind's --D1=32768,8,64 --LL=33554432,32,64 (a 32-way LL)
# Both run the same binary with the same I1 (the host's); the totals are
# equal (tests/e2e/test_cachegrind_agreement.py).  Prints a Markdown table
# (workload | cachegrind s | dcprof s | ratio).  Timings are never asserted.
set -eu
cd "$(dirname "$0")/.."
RUNS=3
DC_CACHE="--cache=L1=32K:8:64,L2=8M:16:64"
CG_CACHE="--D1=32768,8,64 --LL=8388608,16,64"
COMPAT=""
ONLY=""
while [ $# -gt 0 ]; do
	case "$1" in
	-n) shift; RUNS=$1 ;;
	--compat) COMPAT=--cachegrind-compat; DC_CACHE="--cache=L1=32K:8:64,L2=32M:32:64"
		CG_CACHE="--D1=32768,8,64 --LL=33554432,32,64" ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	-*) echo "bench/same-cache.sh: unknown option '$1'" >&2; exit 2 ;;
	*) ONLY="$ONLY $1" ;;
	esac
	shift
done
make -s all >&2
[ -n "$ONLY" ] || for f in bench/workloads/*.c; do ONLY="$ONLY $(basename "$f" .c)"; done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcprof-same.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM
. bench/stats.sh
echo "| workload | cachegrind s | dcprof s | ratio |"
echo "| --- | ---: | ---: | ---: |"
for w in $ONLY; do
	: >"$TMP/cg"; : >"$TMP/dc"; i=0
	while [ $i -lt "$RUNS" ]; do
		# shellcheck disable=SC2086
		cpu valgrind --tool=cachegrind --cache-sim=yes $CG_CACHE \
			--cachegrind-out-file="$TMP/cg.out" "build/w/$w" >>"$TMP/cg"
		# shellcheck disable=SC2086
		cpu build/bin/dcprof record -q -o "$TMP/p.db" $COMPAT $DC_CACHE -- "build/w/$w" >>"$TMP/dc"
		rm -f "$TMP/p.db" "$TMP/cg.out"; i=$((i + 1))
	done
	a=$(median <"$TMP/cg"); b=$(median <"$TMP/dc")
	awk -v w="$w" -v a="$a" -v b="$b" 'BEGIN { printf "| %s | %.2f | %.2f | %.2f |\n", w, a, b, b / a }'
done
