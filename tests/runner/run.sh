#!/bin/bash
# The guest runner's own test, as TAP: a module that WARNs on load must fail the in-guest
# suite (dmesg scan), a clean run must pass and report its host and guest time, the job's
# status must reach the host, a test that outruns its guest time must be stopped and named,
# the host's backstops (guest clock standing still, host time) must stop a hung job, and make
# vm-run must pass its command verbatim and bring results back. Uses the arm64-6.1 target.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../emu/env.sh"
pmuser_target arm64-6.1
out=$PMUSER_BUILD/runner
rm -rf "$out" && mkdir -p "$out/kmod"
cp "$here/broken/Kbuild" "$here/broken/broken.c" "$out/kmod/"
bash "$PMUSER_TOP/emu/build.sh" arm64-6.1 >/dev/null || { echo "not ok 1 build arm64-6.1"; exit 1; }
if ! make -s -C "$T_KDIR" M="$out/kmod" ARCH=arm64 CROSS_COMPILE="$T_CROSS" modules \
	>"$out/build.log" 2>&1; then
	echo "not ok 1 build the warning module"
	sed 's/^/# /' "$out/build.log" | tail -n 20
	exit 1
fi
status=0
# The broken module is loaded before a trivially passing test: only the dmesg scan fails it.
cat >"$out/job-broken" <<'JOB'
insmod /lib/modules/pmuser_broken.ko
PMUSER_TESTS=/bin/true sh /etc/pmuser/run-tests
JOB
PMUSER_EXTRA_MODULES="$out/kmod/pmuser_broken.ko" \
	bash "$PMUSER_TOP/emu/run-guest.sh" arm64-6.1 "$out/job-broken" >"$out/broken.out" 2>&1
rc=$?
if [ $rc != 0 ] && grep -q '^not ok 1 setup: kernel log clean' "$out/broken.out" &&
	grep -q 'deliberate warning' "$out/broken.out"; then
	echo "ok 1 a module that WARNs fails the suite (exit $rc, dmesg shown)"
else
	echo "not ok 1 a module that WARNs fails the suite (exit $rc)"
	sed 's/^/# /' "$out/broken.out" | tail -n 20
	status=1
fi
echo 'PMUSER_TESTS=/bin/true sh /etc/pmuser/run-tests' >"$out/job-clean"
bash "$PMUSER_TOP/emu/run-guest.sh" arm64-6.1 "$out/job-clean" >"$out/clean.out" 2>&1
rc=$?
if [ $rc = 0 ] && grep -q '^ok 1 true: kernel log clean' "$out/clean.out" &&
	grep -Eq '^# time: true [0-9.]+ s host, [0-9.]+ s guest$' "$out/clean.out" &&
	grep -Eq '^# time: whole job [0-9.]+ s host, [0-9.]+ s guest ' "$out/clean.out"; then
	echo "ok 2 a clean run passes"
else
	echo "not ok 2 a clean run passes (exit $rc)"
	sed 's/^/# /' "$out/clean.out" | tail -n 20
	status=1
fi
echo 'exit 7' >"$out/job-status"
bash "$PMUSER_TOP/emu/run-guest.sh" arm64-6.1 "$out/job-status" >/dev/null 2>&1
rc=$?
if [ $rc = 7 ]; then
	echo "ok 3 the guest job's exit status reaches the host"
else
	echo "not ok 3 the guest job's exit status reaches the host (got $rc)"
	status=1
fi
# Test binaries that never end, with a 2 s budget of guest time: a busy one the guest stops
# and the suite goes on; one that ignores the guest's stop (SIGTERM), which the host stops once
# it used 2 + 10 s of guest time, naming it, the limit and the time it had used.
cat >"$out/job-hang" <<'JOB'
printf '#!/bin/sh\nwhile :; do :; done\n' >/tmp/spin-forever
printf '#!/bin/sh\ntrap "" TERM\nwhile :; do sleep 1; done\n' >/tmp/stubborn
chmod +x /tmp/spin-forever /tmp/stubborn
PMUSER_TESTS='/tmp/spin-forever /tmp/stubborn' sh /etc/pmuser/run-tests
JOB
PMUSER_TEST_TIMEOUT=2 \
	bash "$PMUSER_TOP/emu/run-guest.sh" arm64-6.1 "$out/job-hang" >"$out/hang.out" 2>"$out/hang.err"
rc=$?
stopped='^not ok 1 stubborn: the guest job was stopped during this test: the test used more'
stopped+=' than its 2 s of guest time .*; the test had used 1[2-9]\.[0-9] s of guest time, [0-9.]+ s'
stopped+=' of host time$'
if [ $rc = 125 ] &&
	grep -q '^not ok 1 spin-forever: stopped after its 2 s of guest time' "$out/hang.out" &&
	grep -q '^# guest test: spin-forever took 2\.[0-9] s of guest time' "$out/hang.out" &&
	grep -Eq "$stopped" "$out/hang.out" &&
	grep -q '^# time: stubborn [0-9.]* s host, 1[2-9]\.[0-9] s guest (stopped)' "$out/hang.out"; then
	echo "ok 4 a test past its guest time is stopped and named, by the guest or the host"
else
	echo "not ok 4 a test that outruns its guest time is stopped and named (exit $rc)"
	sed 's/^/# /' "$out/hang.out" "$out/hang.err" | tail -n 20
	status=1
fi
# The host's backstops, on a stand-in for QEMU that announces a test and hangs: a guest clock
# that cannot be read (no monitor) counts as standing still; the job's host time runs out.
fake=(bash -c 'echo "# guest test: hung (uptime 1.0)"; exec sleep 60')
start=$SECONDS
perl "$PMUSER_TOP/emu/guest-console.pl" --qmp "$out/none.sock" --poll 1 --stall 3 "${fake[@]}" \
	>"$out/stall.out" 2>&1
rc=$?
if [ $rc = 143 ] && [ $((SECONDS - start)) -lt 20 ] &&
	grep -Eq '^[0-9.]+ @@PMUSER-STOP stall 3 hung ' "$out/stall.out"; then
	echo "ok 5 a guest whose clock stands still is stopped and its test named"
else
	echo "not ok 5 a guest whose clock stands still is stopped and its test named (exit $rc)"
	sed 's/^/# /' "$out/stall.out" | tail -n 20
	status=1
fi
start=$SECONDS
perl "$PMUSER_TOP/emu/guest-console.pl" --qmp "$out/none.sock" --host 3 "${fake[@]}" \
	>"$out/host.out" 2>&1
rc=$?
if [ $rc = 143 ] && [ $((SECONDS - start)) -lt 20 ] &&
	grep -Eq '^[0-9.]+ @@PMUSER-STOP host 3 hung ' "$out/host.out"; then
	echo "ok 6 a job past its host time is stopped and its test named"
else
	echo "not ok 6 a job past its host time is stopped and its test named (exit $rc)"
	sed 's/^/# /' "$out/host.out" | tail -n 20
	status=1
fi
# make vm-run: CMD reaches the guest's shell as written ($X, a single quote), its status comes
# back (make reports it as Error 3), /root/out comes back into RESULTS, the output is shown
# once (as it comes), and a progress line a tool writes over with a carriage return and the
# terminal's erase-line comes out as one line per state.
rm -rf "$out/results"
cmd='X=dollar; echo "got $X it'"'"'s"; printf "step 1\r\033[Kstep 2\r\033[Kdone\n"; '
cmd+='echo made >out/made.txt; false; exit 3'
make -s -C "$PMUSER_TOP" vm-run TARGET=arm64-6.1 RESULTS="$out/results" CMD="$cmd" \
	>"$out/vm-run.out" 2>"$out/vm-run.err"
rc=$?
if [ $rc = 2 ] && grep -q 'vm-run\] Error 3' "$out/vm-run.err" &&
	[ "$(grep -c "^got dollar it's$" "$out/vm-run.out")" = 1 ] &&
	[ "$(grep -x -e 'step 1' -e 'step 2' -e done "$out/vm-run.out" | paste -sd ' ')" = \
		'step 1 step 2 done' ] &&
	[ "$(cat "$out/results/made.txt" 2>/dev/null)" = made ] &&
	! grep -q '@@PMUSER-RESULTS' "$out/vm-run.out"; then
	echo "ok 7 make vm-run passes CMD verbatim, streams its output and brings /root/out back"
else
	echo "not ok 7 make vm-run passes CMD verbatim, streams its output and brings /root/out back (exit $rc)"
	sed 's/^/# /' "$out/vm-run.out" "$out/vm-run.err" | tail -n 20
	status=1
fi
exit $status
