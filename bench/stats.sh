# shellcheck shell=sh
# bench/stats.sh — statistics of the numbers on standard input, one per
# line, for the bench scripts (sourced).

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
