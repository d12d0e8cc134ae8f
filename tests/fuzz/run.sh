#!/bin/sh
# run.sh — fuzz one target with libFuzzer (docs/fuzzing.md).
#
# usage: tests/fuzz/run.sh TARGET [SECONDS [LIBFUZZER-FLAGS...]]
#   TARGET   raw, rawprof, profile or opts (build them with make fuzz)
#   SECONDS  how long (default 3600)
#
# New inputs go to build/fuzz/corpus-TARGET/ (the seeds in
# tests/fuzz/corpus/ are read, never written), crashes, timeouts, leaks and
# out-of-memory inputs to build/fuzz/artifacts-TARGET/, the log to
# build/fuzz/TARGET.log.  It keeps going after a crash (-fork=1
# -ignore_crashes=1); set FUZZ_JOBS=N to run N processes at once.  Extra
# flags go to libFuzzer as they are (later flags win).
set -eu

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=${1:?usage: run.sh TARGET [SECONDS [LIBFUZZER-FLAGS...]]}
SECS=${2:-3600}
[ $# -ge 2 ] && shift 2 || shift $#
FZ=$ROOT/build/fuzz
BIN=$FZ/fuzz-$T
[ -x "$BIN" ] || { echo "run.sh: no $BIN; run make fuzz" >&2; exit 1; }

case $T in
raw | rawprof) seeds=raw dict=raw.dict ;;
profile) seeds=profile dict= ;;
opts) seeds=opts dict=opts.dict ;;
*) echo "run.sh: unknown target '$T' (raw, rawprof, profile, opts)" >&2; exit 1 ;;
esac

# -max_len: the seed profiles are 25 to 31 KB, and edits may grow them.
mkdir -p "$FZ/corpus-$T" "$FZ/artifacts-$T"
set -- -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
	-close_fd_mask=3 -print_final_stats=1 \
	-fork="${FUZZ_JOBS:-1}" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
	-artifact_prefix="$FZ/artifacts-$T/" \
	${dict:+-dict="$ROOT/tests/fuzz/$dict"} -max_len=65536 "$@" \
	"$FZ/corpus-$T" "$ROOT/tests/fuzz/corpus/$seeds"
echo "run.sh: $BIN $*" >&2
cd "$FZ"
"$BIN" "$@" 2>&1 | tee "$FZ/$T.log"
