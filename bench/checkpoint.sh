#!/bin/sh
# bench/checkpoint.sh — what checkpoints cost (docs/engine.md, "Robustness").
#
#   sh bench/checkpoint.sh [-n RUNS] [WORKLOAD[:ARG,ARG...]]...
#
# For each workload in bench/workloads/ (or those named, with arguments
# after a colon: bench_chase:1048576,16) it runs, alternately, RUNS times
# each (default 3), `dcprof record -q -o OUT.db -- W ARGS` with
#   off      --checkpoint=0
#   default  no option: every 5 s at most, within a 2 % budget
#   forced   --checkpoint=0.25 --checkpoint-budget=100: every 0.25 s, or
#            as soon as the last checkpoint's estimated cost has passed
# and prints the median wall and CPU seconds (user + system, the copies
# that write the checkpoints included) of each, their ratios to off, the
# median number of checkpoints taken (meta.checkpoints) and, for forced,
# the wall time each checkpoint cost.  Nothing here is a test.
set -eu

cd "$(dirname "$0")/.."
ROOT=$(pwd)
RUNS=3
case "${1:-}" in
-n) RUNS=$2; shift 2 ;;
-h|--help) sed -n '2,17p' "$0"; exit 0 ;;
esac
ONLY="$*"
[ -n "$ONLY" ] || for f in bench/workloads/*.c; do ONLY="$ONLY $(basename "$f" .c)"; done
command -v sqlite3 >/dev/null 2>&1 || { echo "bench/checkpoint.sh: sqlite3 not found" >&2; exit 2; }

make -s all >&2
DCPROF="$ROOT/build/bin/dcprof"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcprof-ckpt.XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# shellcheck source=bench/stats.sh
. "$ROOT/bench/stats.sh"

mode_opts() {
	case "$1" in
	off) echo "--checkpoint=0" ;;
	default) ;;
	forced) echo "--checkpoint=0.25 --checkpoint-budget=100" ;;
	esac
}

# one run: appends "WALL CPU CHECKPOINTS" to $TMP/MODE
run() {
	mode=$1
	# shellcheck disable=SC2046,SC2086 # options and arguments are words
	/usr/bin/time -f '%e %U %S' -o "$TMP/time" "$DCPROF" record -q $(mode_opts "$mode") \
		-o "$TMP/p.db" -- "$prog" $args >/dev/null 2>"$TMP/err" ||
		{ echo "bench/checkpoint.sh: $mode run of $prog failed:" >&2; tail -3 "$TMP/err" >&2; exit 1; }
	n=$(sqlite3 "$TMP/p.db" "SELECT value FROM meta WHERE key = 'checkpoints'")
	tail -1 "$TMP/time" | awk -v n="$n" '{ printf "%.3f %.3f %s\n", $1, $2 + $3, n }' >>"$TMP/$mode"
	rm -f "$TMP/p.db"
}

col() { awk -v c="$1" '{ print $c }' "$2" | median; }

echo "$("$DCPROF" --version | head -1), $(nproc) CPUs, $RUNS run(s) each, medians"
echo
echo "| workload | off wall s | off CPU s | default wall | default CPU | default checkpoints | forced wall | forced CPU | forced checkpoints | ms per forced checkpoint |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for spec in $ONLY; do
	w=${spec%%:*}
	args=""
	[ "$w" = "$spec" ] || args=$(echo "${spec#*:}" | tr ',' ' ')
	prog="$ROOT/build/w/$w"
	[ -x "$prog" ] || { echo "bench/checkpoint.sh: no workload build/w/$w" >&2; exit 2; }
	for m in off default forced; do : >"$TMP/$m"; done
	i=0
	while [ $i -lt "$RUNS" ]; do
		for m in off default forced; do run $m; done
		i=$((i + 1))
	done
	ow=$(col 1 "$TMP/off") oc=$(col 2 "$TMP/off")
	line="| $spec | $ow | $oc |"
	for m in default forced; do
		mw=$(col 1 "$TMP/$m") mc=$(col 2 "$TMP/$m") mn=$(col 3 "$TMP/$m")
		line="$line $(echo "$mw $ow $mc $oc $mn" |
			awk '{ printf "%.2f (%.2fx) | %.2f (%.2fx) | %d", $1, $1 / $2, $3, $3 / $4, $5 }') |"
	done
	line="$line $(echo "$mw $ow $mn" | awk '{ if ($3 > 0) printf "%.0f", 1000 * ($1 - $2) / $3; else printf "-" }') |"
	echo "$line"
done
echo
echo "commands: $DCPROF record -q [--checkpoint=0 | (none) | --checkpoint=0.25 --checkpoint-budget=100] -o OUT.db -- build/w/WORKLOAD [ARGS]"
