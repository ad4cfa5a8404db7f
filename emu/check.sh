#!/bin/bash
# The whole test suite: host unit tests, static checks, the guest runner's own test, and the
# in-guest suite on every emulated target. Prints per-part TAP summaries and ends with one
# line "N passed, N failed, N skipped"; exits non-zero if anything failed.
#
# usage: emu/check.sh all | TARGET...
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

if [ "${1:-all}" = all ]; then
	read -r -a targets <<<"$PMUSER_TARGETS"
	parts=(host static runner "${targets[@]}")
else
	parts=("$@")
fi

# Fetch what the parts need up front, so a network problem fails once and clearly.
fetch=()
for part in "${parts[@]}"; do
	case "$part" in
	host) ;;
	static) read -r -a all <<<"$PMUSER_TARGETS"; fetch+=("${all[@]}") ;;
	runner) fetch+=(arm64-6.1) ;;
	*) fetch+=("$part") ;;
	esac
done
if ! bash "$here/setup.sh" --ksrc-only ||
	{ [ ${#fetch[@]} -gt 0 ] && ! bash "$here/setup.sh" "${fetch[@]}"; }; then
	echo "setup failed"
	echo "0 passed, 1 failed"
	exit 1
fi

logdir=$PMUSER_BUILD/check
mkdir -p "$logdir"
total_pass=0 total_fail=0 total_skip=0
summary=()

# run_part NAME COMMAND...: runs it, keeps its TAP, counts it.
run_part() {
	local name=$1 log=$logdir/$1.tap counts pass fail skip
	shift
	echo "=== $name"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	read -r pass fail skip < <(bash "$PMUSER_TOP/tests/tap-summary.sh" -q "$name" <"$log")
	if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then
		# A part that failed without a failing TAP line still counts as one failure.
		echo "not ok 1 $name: exit status $rc"
		fail=1
	elif [ $((pass + fail + skip)) = 0 ]; then
		echo "not ok 1 $name: no test ran"
		fail=1
	fi
	summary+=("$name: $pass passed, $fail failed, $skip skipped")
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip))
}

guest_suite() {
	local job
	bash "$here/build.sh" "$1" || return 1
	job=$(mktemp)
	echo 'sh /etc/pmuser/run-tests' >"$job"
	bash "$here/run-guest.sh" "$1" "$job"
	local rc=$?
	rm -f "$job"
	return $rc
}

for part in "${parts[@]}"; do
	case "$part" in
	host) run_part host make -s -C "$PMUSER_TOP" check-host ;;
	static) run_part static bash "$PMUSER_TOP/tests/static/run.sh" ;;
	runner) run_part runner bash "$PMUSER_TOP/tests/runner/run.sh" ;;
	*) run_part "$part" guest_suite "$part" ;;
	esac
done

echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
