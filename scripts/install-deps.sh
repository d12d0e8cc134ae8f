#!/bin/sh
# install-deps.sh — install the Debian packages dcprof needs to build, test
# and benchmark, and only those that are missing.  Does nothing (and needs no
# network) when everything is present.  Debian 12; run as root, or as a user
# with sudo.
#
#   gcc make binutils     build the tool, the front end and the workloads
#   g++                   the C++ workload (tests/workloads/cxx_new.cc); its
#                         libstdc++ also gives dcprof the C++ demangler
#                         (__cxa_demangle) finalize names native code with
#   valgrind              the engine runs inside Valgrind; the package also
#                         ships the headers and static libraries a tool links
#   libsqlite3-dev        the front end writes SQLite profiles
#   sqlite3               to look into profiles by hand (docs/schema.md)
#   libdw-dev             elfutils' libdw (and libelf): report --by field reads
#                         the program's DWARF types (src/analysis/dwtype.c) and
#                         finalize names the native engine's code (src/dwarf/dwsym.c)
#   libunwind-dev         the native engine's runtime unwinds allocation call
#                         paths with libunwind (src/engine/native/nat_heap.c)
#   python3               the test runner (tests/run.py)
#   libc6-dbg             symbols of libc and the dynamic loader, which
#                         Valgrind uses for its redirections and stack traces
#   time                  GNU /usr/bin/time for bench/run.sh
#   clang                 tests of clang-built programs (DWARF 5 hint), and
#   libclang-rt-14-dev    make fuzz: the fuzz targets are built with clang's
#                         libFuzzer, which this package holds (Debian 12's
#                         clang is version 14); docs/fuzzing.md
#   libclang-14-dev       dcprof approx analyses the program's C sources with
#                         libclang's C API (clang-c/Index.h; src/analysis/srcvars.c)
#   bear                  makes the compile_commands.json dcprof approx reads
#                         (bear -- make; docs/approx.md)
#   binutils              objdump: dcprof approx disassembles the sampled objects
#                         for skid negation over instructions (docs/approx.md)
#   openmpi-bin libopenmpi-dev
#                         the MPI workload and the tests of record under mpirun
#                         and merge (run as root with --allow-run-as-root)
#   chromium nodejs       the browser tests of dcprof html (headless Chromium,
#                         driven by playwright-core from tests/browser/)
#   npm                   only when no npm came with nodejs (Debian's nodejs
#                         has none; some builds of nodejs bring their own)
#
# Then `npm ci` installs tests/browser/package-lock.json's playwright-core
# into tests/browser/node_modules unless it is there; it downloads no
# browser (it drives Debian's /usr/bin/chromium).
set -eu

PKGS="gcc g++ make valgrind libsqlite3-dev sqlite3 libdw-dev libunwind-dev python3 libc6-dbg time binutils clang libclang-rt-14-dev libclang-14-dev bear openmpi-bin libopenmpi-dev chromium nodejs"
BROWSER_DIR=$(cd "$(dirname "$0")/../tests/browser" && pwd)

# playwright-core for the browser tests: only what the lock file names.
browser_tests() {
	if [ -d "$BROWSER_DIR/node_modules/playwright-core" ]; then
		return 0
	fi
	if ! command -v npm >/dev/null 2>&1; then
		echo "install-deps.sh: installing npm"
		$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm
	fi
	echo "install-deps.sh: npm ci in tests/browser (playwright-core)"
	(cd "$BROWSER_DIR" && npm ci --no-audit --no-fund)
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	echo "install-deps.sh: this script needs a Debian-like system (dpkg, apt-get); install by hand: $PKGS" >&2
	exit 1
fi

missing=""
for p in $PKGS; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$status" in
	*" ok installed") ;;
	*) missing="$missing $p" ;;
	esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
	SUDO=sudo
fi

if [ -z "$missing" ]; then
	echo "install-deps.sh: all packages present"
	browser_tests
	exit 0
fi

if [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
	echo "install-deps.sh: missing packages:$missing; run as root to install them" >&2
	exit 1
fi

echo "install-deps.sh: installing$missing"
$SUDO apt-get update
# shellcheck disable=SC2086  # word splitting of the package list is wanted
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
browser_tests
