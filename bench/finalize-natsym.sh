#!/bin/sh
# bench/finalize-natsym.sh — time `dcprof finalize` naming a native
# engine's dump (docs/raw-dump.md, "Native engine records"): N distinct
# address-only locations (default 100,000) spread over the C library's
# code, and N/10 heap buckets with 4-frame allocation paths, all named
# from libc's symbols and DWARF (libc6-dbg).
#
#   sh bench/finalize-natsym.sh [-n N] [-r RUNS]
#
# Prints the wall and CPU (user + system) time of finalize on the dump with
# its map record (names looked up) and without it (nothing to look up),
# RUNS times each (default 3), and their medians (CPU time is the steadier
# on a shared machine; docs/performance.md, "Finalize naming native
# records").  Nothing here is a test: timings are never
# asserted anywhere.
set -eu

cd "$(dirname "$0")/.."
N=100000
RUNS=3
while [ $# -gt 0 ]; do
	case "$1" in
	-n) shift; N=$1 ;;
	-r) shift; RUNS=$1 ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	*) echo "bench/finalize-natsym.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done

make -s build/bin/dcprof >&2
DCPROF="$(pwd)/build/bin/dcprof"
LIBC=$(ldd "$DCPROF" | awk '/libc\.so/ { print $3 }')
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dcprof-bench-XXXXXX")
trap 'rm -rf "$TMP"' EXIT INT TERM

# libc's executable segment, mapped at 0x40000000 + its address (mawk prints 32-bit hex)
set -- $(readelf -lW "$LIBC" | awk '$1 == "LOAD" && / E / { print $2, $3, $6; exit }')
OFF=$(($1)) START=$((0x40000000 + $2)) SIZE=$(($3))
awk -v n="$N" -v off="$OFF" -v start="$START" -v size="$SIZE" -v lib="$LIBC" 'BEGIN {
	step = int(size / n); if (step < 1) step = 1
	print "dcprof-raw 8"
	print "level 1 L1 32768 8 64 4"
	print "memory 200"
	printf "map 0x%x 0x%x 0x%x %s\n", start, start + size, off, lib
	for (i = 0; i < n; i++)
		printf "loc %d 0x%x %%- %%- %%- 0 %%-\n", i, start + i * step
	for (b = 0; b < n / 10; b++) {
		printf "bucket %d heap -\n", b
		printf "hpath %d 0x%x 0x%x 0x%x 0x%x\n", b, start + (b * 37 % n) * step + 1,
			start + (b * 101 % n) * step + 1, start + (b * 7 % n) * step + 1, start + 1
	}
	print "end 1"
}' > "$TMP/with.raw"
sed '/^map /d' "$TMP/with.raw" > "$TMP/without.raw"

median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for dump in with without; do
	times="" cpus=""
	i=0
	while [ $i -lt "$RUNS" ]; do
		rm -f "$TMP/out.db"
		set -- $( { /usr/bin/time -f "%e %U %S" "$DCPROF" finalize -q "$TMP/$dump.raw" -o "$TMP/out.db"; } 2>&1 )
		times="$times $1"
		cpus="$cpus $(echo "$2 $3" | awk '{ printf "%.2f", $1 + $2 }')"
		i=$((i + 1))
	done
	echo "$dump map record: $N locations, $((N / 10)) buckets: wall$times s (median $(echo "$times" | median) s), CPU$cpus s (median $(echo "$cpus" | median) s)"
done
