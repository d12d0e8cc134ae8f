#!/bin/sh
# bench/callgrind.sh — inclusive costs and cache use against Callgrind.
#
#   sh bench/callgrind.sh [-n RUNS] [-m] [-a] [WORKLOAD...]
#
# For each workload in bench/workloads/ (or those named) it runs,
# alternately, RUNS times each (default 3):
#   callgrind       valgrind --tool=callgrind --cache-sim=yes
#                   --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64
#   dcprof          dcprof record --cachegrind-compat
#                   --cache=L1=32K:8:64,L2=8M:16:64 --calls=yes
#   callgrind-use   the callgrind command with --cacheuse=yes
#   dcprof-use      the dcprof command with --cache-use=yes
#                   --cache-use-granularity=callgrind
#   dcprof-all      (with -a) the dcprof command with every engine feature:
#                   --cache-use=yes --evictions=yes --reuse=yes, against
#                   callgrind-use (issue 21: at most Callgrind's time)
# (the same I1, D1 and LL, inclusive costs per call, and with cache use
# Callgrind's 32-bit use mask; both write their profile) and prints the
# median (with -m, the minimum) CPU time (user + system, GNU time's %U and
# %S) of each, and dcprof's over Callgrind's, as a Markdown table.
# Nothing here is a test.
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=3
ONLY=""
STAT=median
ALL=""
while [ $# -gt 0 ]; do
	case "$1" in
	-n) shift; RUNS=$1 ;;
	-m) STAT=minimum ;;
	-a) ALL=1 ;;
	-h|--help) sed -n '2,24p' "$0"; exit 0 ;;
	-*) echo "bench/callgrind.sh: unknown option '$1'" >&2; exit 2 ;;
	*) ONLY="$ONLY $1" ;;
	esac
	shift
done

[ -x /usr/bin/time ] || { echo "bench/callgrind.sh: /usr/bin/time not found (sh scripts/install-deps.sh)" >&2; exit 2; }
command -v valgrind >/dev/null 2>&1 || { echo "bench/callgrind.sh: valgrind not found" >&2; exit 2; }

make -s all >&2
DCPROF="$ROOT/build/bin/dcprof"
[ -n "$ONLY" ] || for f in bench/workloads/*.c; do ONLY="$ONLY $(basename "$f" .c)"; done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcprof-callgrind.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

CG="valgrind --tool=callgrind --cache-sim=yes --I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64"
DC="$DCPROF record -q --cachegrind-compat --cache=L1=32K:8:64,L2=8M:16:64 --calls=yes"
cmd() {
	case "$1" in
	callgrind) echo "$CG --callgrind-out-file=$TMP/cg.out" ;;
	callgrind-use) echo "$CG --cacheuse=yes --callgrind-out-file=$TMP/cg.out" ;;
	dcprof) echo "$DC -o $TMP/p.db --" ;;
	dcprof-use) echo "$DC --cache-use=yes --cache-use-granularity=callgrind -o $TMP/p.db --" ;;
	dcprof-all) echo "$DC --cache-use=yes --evictions=yes --reuse=yes -o $TMP/p.db --" ;;
	esac
}
KINDS="callgrind dcprof callgrind-use dcprof-use${ALL:+ dcprof-all}"

# shellcheck source=bench/stats.sh
. "$ROOT/bench/stats.sh"

# CPU seconds of one run of kind $1 on $prog
run() {
	# shellcheck disable=SC2046 # the command is words
	/usr/bin/time -f '%U %S' -o "$TMP/time" $(cmd "$1") "$prog" >/dev/null 2>"$TMP/err" ||
		{ echo "bench/callgrind.sh: $1 failed:" >&2; tail -3 "$TMP/err" >&2; exit 1; }
	rm -f "$TMP/p.db" "$TMP/cg.out"
	tail -1 "$TMP/time" | awk '{ printf "%.3f\n", $1 + $2 }'
}

echo "$("$DCPROF" --version | head -1), $(valgrind --version), $(nproc) CPUs, $RUNS run(s) each, $STAT CPU seconds"
echo
if [ -n "$ALL" ]; then
	echo "| workload | callgrind s | dcprof --calls s | ratio | callgrind --cacheuse s | dcprof --cache-use --calls s | ratio | dcprof all features s | ratio |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
else
	echo "| workload | callgrind s | dcprof --calls s | ratio | callgrind --cacheuse s | dcprof --cache-use --calls s | ratio |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
fi
for w in $ONLY; do
	prog="$ROOT/build/w/$w"
	for k in $KINDS; do : >"$TMP/$k"; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		for k in $KINDS; do run "$k" >>"$TMP/$k"; done
		i=$((i + 1))
	done
	set --   # the statistics, in the order of KINDS
	for k in $KINDS; do set -- "$@" "$($STAT <"$TMP/$k")"; done
	echo "$@" | awk -v w="$w" '{
		printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |", w, $1, $2, $2 / $1, $3, $4, $4 / $3
		if (NF > 4) printf " %.2f | %.2f |", $5, $5 / $3
		printf "\n" }'
done
echo
echo "Commands (PROGRAM: build/w/WORKLOAD):"
for k in $KINDS; do echo "  $k: $(cmd "$k" | sed "s|$TMP/|OUT/|g; s|$ROOT/||g") PROGRAM"; done
