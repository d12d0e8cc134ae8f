#!/bin/sh
# native.sh — the native engine's cost: each bench workload run natively and
# under `dcprof record --engine=native` (--event=pagefault and
# --event=cpu-clock, and --event=pagefault with --reuse-sample=RDX_N: RDX
# with hardware watchpoints, where they work), the ratios of wall time, CPU
# time (user + system: the figure to trust on a loaded machine, where wall
# time measures the other processes) and peak RSS (GNU time's %e, %U + %S
# and %M; the profile's own finalize included in the time, not in the RSS,
# which is the program's process tree).  Targets (issue 23): <= 1.05x
# time, <= 1.1x memory; <= 1.5x on chase.  docs/performance.md, "Native
# engine".
#
#   bench/native.sh [RUNS]     best of RUNS (default 3) for each
#   RDX_N=1 bench/native.sh    a use point every RDX_N page faults (default 64)
#   EVENTS="mem-loads ibs-op" bench/native.sh
#                              the events measured (default: pagefault
#                              cpu-clock rdx); PMU events (mem-loads,
#                              mem-stores, ibs-op, spe: a machine with that
#                              PMU) run through dcprof record, which probes
#                              them, so their time includes finalize
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-3}
RDX_N=${RDX_N:-64}
EVENTS=${EVENTS:-pagefault cpu-clock rdx}
B=build
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# best wall time, its RSS and the best CPU time over RUNS runs of "$@"
best() {
	bt= brss= bc=
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f "%e %M %U %S" -o "$T/t" "$@" >/dev/null 2>"$T/err" || true
		set -- "$@"
		read -r t rss u s <<-EOT
		$(tail -1 "$T/t")
		EOT
		c=$(awk "BEGIN{print $u + $s}")
		if [ -z "$bt" ] || awk "BEGIN{exit !($t < $bt)}"; then bt=$t; brss=$rss; fi
		if [ -z "$bc" ] || awk "BEGIN{exit !($c < $bc)}"; then bc=$c; fi
	done
	echo "$bt $brss $bc"
}

printf '%-15s %-10s %8s %8s %8s %8s %8s %8s %6s %6s %6s\n' workload event native_s run_s \
	nat_cpu run_cpu nat_KiB run_KiB time cpu mem
for w in bench_stream bench_transpose bench_matmul bench_chase; do
	set -- $(best "$B/w/$w")
	nt=$1 nm=$2 nc=$3
	for ev in $EVENTS; do
		# the program alone, under the runtime (no finalize): what the run costs
		case $ev in
		rdx) e=pagefault rs=$RDX_N ;;
		*) e=$ev rs=0 ;;
		esac
		case $ev in
		mem-loads|mem-stores|ibs-op|spe)
			set -- $(best "$B/bin/dcprof" record -q --engine=native --event="$ev" \
				-o "$T/p.db" -- "$B/w/$w")
			rm -f "$T/p.db" ;;
		*)
			set -- $(best env LD_PRELOAD="$PWD/$B/lib/dcprof/dcprof-native.so" \
				DCPROF_NATIVE_OUT="$T/raw.%p" DCPROF_NATIVE_EVENT=$e \
				DCPROF_NATIVE_REUSE_SAMPLE=$rs "$B/w/$w") ;;
		esac
		printf '%-15s %-10s %8s %8s %8s %8s %8s %8s %6.2f %6.2f %6.2f\n' "$w" "$ev" "$nt" "$1" \
			"$nc" "$3" "$nm" "$2" "$(awk "BEGIN{print $1 / ($nt > 0 ? $nt : 0.01)}")" \
			"$(awk "BEGIN{print $3 / ($nc > 0 ? $nc : 0.01)}")" "$(awk "BEGIN{print $2 / $nm}")"
		rm -f "$T"/raw.*
	done
done
