#!/bin/bash
# Runs every host unit test binary in BUILD/tests/host and prints their TAP, then a summary.
# usage: tests/run-host.sh BUILD_DIR
set -u
build=$1
here=$(cd "$(dirname "$0")" && pwd)
status=0
out=$(mktemp)
# Each binary runs in a scratch directory of its own, where the tests write their files, so
# that runs side by side on one machine do not share them.
scratch=$(mktemp -d)
for t in "$build"/tests/host/*; do
	[ -x "$t" ] || continue
	echo "# host: ${t##*/}"
	mkdir "$scratch/${t##*/}"
	(cd "$scratch/${t##*/}" && timeout 300 "$t") 2>&1 | tee -a "$out"
	[ "${PIPESTATUS[0]}" = 0 ] || status=1
done
bash "$here/tap-summary.sh" host <"$out" || status=1
rm -rf "$out" "$scratch"
exit $status
