#!/bin/sh
# check-core-symbols.sh OBJ... — the freestanding-core rule (DESIGN.md): the
# only symbols core objects may take from outside the core are memcpy,
# memmove and memset.  Every other undefined symbol must be defined by one
# of the given objects.  Run it on plain builds: sanitizer builds reference
# __asan_* and __ubsan_* by design.
set -eu
export LC_ALL=C         # sort and join must agree on the order

if [ $# -eq 0 ]; then
	echo "usage: $0 OBJ..." >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Not piped, so that set -e sees nm fail on a missing or foreign file.
# -A prefixes each line with its object, so offenders can be named.
nm -A -u "$@" >"$tmp/nm-undef"
nm -g --defined-only "$@" >"$tmp/nm-def"
awk '{ print $NF, $1 }' "$tmp/nm-undef" | sort >"$tmp/undef"
{ awk 'NF == 3 { print $3 }' "$tmp/nm-def"
  printf '%s\n' memcpy memmove memset; } | sort -u >"$tmp/allowed"

join -v 1 "$tmp/undef" "$tmp/allowed" >"$tmp/bad"
if [ -s "$tmp/bad" ]; then
	echo "core symbol check: undefined symbols from outside the core:" >&2
	awk '{ sub(/:$/, "", $2); print "  " $1 " (" $2 ")" }' "$tmp/bad" >&2
	exit 1
fi
echo "core symbol check: ok ($# objects)"
