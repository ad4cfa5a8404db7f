#!/bin/bash
# The whole test suite: host unit tests, static checks, the guest runner's own test, and the
# in-guest suite on every emulated target. Prints per-part TAP summaries and ends with one
# line "N passed, N failed, N skipped"; exits non-zero if anything failed.
#
# usage: emu/check.sh all | quick | PART...      (quick: host, static, arm64-6.12)
# env:   PMUSER_JOBS (guest targets run at once, default 2: with -icount QEMU runs a guest in
#        one host thread, so two guests share a 2-core host without slowing each other)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

case "${1:-all}" in
all)
	read -r -a targets <<<"$PMUSER_TARGETS"
	parts=(host static runner "${targets[@]}")
	;;
quick) parts=(host static arm64-6.12) ;;
*) parts=("$@") ;;
esac

# Fetch what the parts need up front, so a network problem fails once and clearly: without the
# host tools or the kernel source nothing runs; a target whose kernel cannot be fetched fails
# alone (one line naming the cause), and the others still run.
if ! bash "$here/setup.sh" --ksrc-only; then
	echo "setup failed"
	echo "0 passed, 1 failed"
	exit 1
fi
declare -A setup_failed=()
fetch=()
for part in "${parts[@]}"; do
	case "$part" in
	host) ;;
	static) read -r -a all <<<"$PMUSER_TARGETS"; fetch+=("${all[@]}") ;;
	runner) fetch+=(arm64-6.1) ;;
	*) fetch+=("$part") ;;
	esac
done
mkdir -p "$PMUSER_BUILD"
for t in $(printf '%s\n' ${fetch[@]+"${fetch[@]}"} | awk '!seen[$0]++'); do
	if ! bash "$here/setup.sh" "$t" 2>"$PMUSER_BUILD/setup-$t.log"; then
		setup_failed[$t]=$(grep -v '^setup: \(updating\|downloading\)' "$PMUSER_BUILD/setup-$t.log" |
			tail -n1)
		: "${setup_failed[$t]:=emu/setup.sh $t failed}"
	fi
	cat "$PMUSER_BUILD/setup-$t.log" >&2
done

logdir=$PMUSER_BUILD/check
mkdir -p "$logdir"
total_pass=0 total_fail=0 total_skip=0
summary=()

# guest_suite TARGET: builds for it and runs the in-guest suite.
guest_suite() {
	local job rc
	bash "$here/build.sh" "$1" || return 1
	job=$(mktemp)
	echo 'sh /etc/pmuser/run-tests' >"$job"
	bash "$here/run-guest.sh" "$1" "$job"
	rc=$?
	rm -f "$job"
	return $rc
}

# run_part NAME: runs it into $logdir/NAME.out, its status into NAME.rc, its seconds into
# NAME.time.
run_part() {
	local name=$1 start rc
	start=$(date +%s)
	case "$name" in
	host) make -s -C "$PMUSER_TOP" check-host ;;
	static) bash "$PMUSER_TOP/tests/static/run.sh" ;;
	runner)
		if [ -n "${setup_failed[arm64-6.1]:-}" ]; then
			echo "not ok 1 runner: setup failed: ${setup_failed[arm64-6.1]}"
			false
		else
			bash "$PMUSER_TOP/tests/runner/run.sh"
		fi
		;;
	*)
		if [ -n "${setup_failed[$name]:-}" ]; then
			echo "not ok 1 $name: setup failed: ${setup_failed[$name]}"
			false
		else
			guest_suite "$name"
		fi
		;;
	esac >"$logdir/$name.out" 2>&1
	rc=$?
	echo $(($(date +%s) - start)) >"$logdir/$name.time"
	echo "$rc" >"$logdir/$name.rc"
}

# report_part NAME: prints its output, counts its TAP.
report_part() {
	local name=$1 rc pass fail skip extra= kern secs
	rc=$(cat "$logdir/$name.rc")
	secs=$(cat "$logdir/$name.time")
	echo "=== $name"
	cat "$logdir/$name.out"
	read -r pass fail skip < <(bash "$PMUSER_TOP/tests/tap-summary.sh" -q "$name" \
		<"$logdir/$name.out")
	if [ "$rc" != 0 ] && [ "$fail" = 0 ]; then
		# A part that failed without a failing TAP line still counts as one failure.
		echo "not ok 1 $name: exit status $rc"
		fail=1
	elif [ $((pass + fail + skip)) = 0 ]; then
		echo "not ok 1 $name: no test ran"
		fail=1
	fi
	if pmuser_target "$name" 2>/dev/null; then
		kern=$(sed -n 's/^# guest kernel: \([^ ]*\).*/\1/p' "$logdir/$name.out" | head -n1)
		extra=" [kernel ${kern:-$T_KREL (did not report)}, package $T_KPKG, QEMU $T_MACHINE"
		extra+=" ${T_CPU:-(machine default CPU)} x$T_SMP]"
	fi
	summary+=("$name: $pass passed, $fail failed, $skip skipped in $((secs / 60))m$((secs % 60))s$extra")
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	total_skip=$((total_skip + skip))
}

jobs_max=${PMUSER_JOBS:-2}
started=0
pids=()
solo() { case "$1" in host | static | runner) return 0 ;; esac; return 1; }
# Starts parts in order while fewer than jobs_max run. host, static and runner run alone: they
# build for every target or boot guests of their own.
launch() {
	local running=0 alone=0 i p
	for ((i = 0; i < started; i++)); do
		[ -f "$logdir/${parts[i]}.rc" ] && continue
		running=$((running + 1))
		! solo "${parts[i]}" || alone=1
	done
	while [ "$alone" = 0 ] && [ "$started" -lt ${#parts[@]} ] && [ "$running" -lt "$jobs_max" ]; do
		p=${parts[started]}
		! solo "$p" || [ "$running" = 0 ] || return 0
		rm -f "$logdir/$p.rc" "$logdir/$p.out" "$logdir/$p.time"
		run_part "$p" &
		pids+=($!)
		started=$((started + 1))
		running=$((running + 1))
		! solo "$p" || alone=1
	done
}
trap 'kill "${pids[@]}" 2>/dev/null; exit 130' INT TERM

check_start=$(date +%s)
for part in "${parts[@]}"; do rm -f "$logdir/$part.rc"; done
for part in "${parts[@]}"; do
	launch
	while [ ! -f "$logdir/$part.rc" ]; do
		sleep 1
		launch
	done
	report_part "$part"
done
wait

secs=$(($(date +%s) - check_start))
echo "=== summary"
printf '%s\n' "${summary[@]}"
echo "wall time $((secs / 60))m$((secs % 60))s"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" = 0 ]
