#!/bin/bash
# Counts TAP results on stdin. Prints "LABEL: N passed, N failed, N skipped" and, with -q,
# only "N N N" (pass fail skip). Exits 1 if anything failed or nothing ran.
# Top-level and nested (indented, kselftest-style) result lines both count; "ok ... # SKIP" is a skip.
quiet=
[ "${1:-}" = -q ] && { quiet=1; shift; }
label=${1:-tests}
awk -v label="$label" -v quiet="$quiet" '
	/^[ \t]*(not )?ok [0-9]+/ {
		line = $0
		sub(/^[ \t]+/, "", line)
		if (line ~ /^ok [0-9]+.*# *[Ss][Kk][Ii][Pp]/) skip++
		else if (line ~ /^ok /) pass++
		else fail++
	}
	END {
		if (quiet) printf "%d %d %d\n", pass, fail, skip
		else printf "%s: %d passed, %d failed, %d skipped\n", label, pass, fail, skip
		exit (fail > 0 || pass + fail + skip == 0)
	}'
