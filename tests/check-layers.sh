#!/bin/sh
# check-layers.sh [SRC] — the tree shows the pipeline (STYLE.md rule 11,
# src/README.md): a file includes project headers only from its own folder
# and the folders below it.  Bottom up:
#
#   core                      freestanding models (nothing else)
#   host                      core's libc port
#   base                      errors, allocation, sbuf, escaping, numbers
#   dwarf                     code addresses named from debug information
#   store < analysis < report < cli   the front end, each above the last
#   engine/valgrind           the simulator engine: core only
#   engine/native             the native engine's runtime: core only
#
# Prints every include that points up or sideways and exits 1; 0 when none.
set -eu
src=${1:-src}

allowed() {
	case $1 in
	core) echo "core" ;;
	host) echo "core host" ;;
	base) echo "base" ;;
	dwarf) echo "base dwarf" ;;
	store) echo "core host base dwarf store" ;;
	analysis) echo "core host base dwarf store analysis" ;;
	report) echo "core host base dwarf store analysis report" ;;
	cli) echo "core host base dwarf store analysis report cli" ;;
	engine/valgrind) echo "core engine/valgrind" ;;
	engine/native) echo "core engine/native" ;;
	*) echo "" ;;
	esac
}

bad=0
for f in "$src"/*/*.[ch] "$src"/engine/*/*.[ch]; do
	[ -e "$f" ] || continue
	dir=${f#"$src"/}
	dir=${dir%/*}
	ok=$(allowed "$dir")
	if [ -z "$ok" ]; then
		echo "layer check: $f: folder '$dir' has no place in the layer list" >&2
		bad=1
		continue
	fi
	for inc in $(sed -n 's/^#include "\(.*\)\/[^/]*\.h".*/\1/p' "$f"); do
		case " $ok " in
		*" $inc "*) ;;
		*) echo "layer check: $f includes a header of '$inc', above or beside '$dir'" >&2
		   bad=1 ;;
		esac
	done
done
[ $bad -eq 0 ] && echo "layer check: ok"
exit $bad
