# shellcheck shell=sh
# bench/stats.sh — statistics of the numbers on standard input, one per
# line, and a timer, for the bench scripts (sourced).

# median ("nan" for none)
median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "nan"; exit }
		if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# minimum
minimum() {
	sort -n | head -1
}

# CPU seconds (user + system) of one run of "$@", its output discarded;
# the run's stderr is shown if it fails.  Needs $TMP.
cpu() {
	/usr/bin/time -f '%U %S' -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" ||
		{ tail -5 "$TMP/err" >&2; exit 1; }
	awk '{ print $1 + $2 }' "$TMP/t"
}
