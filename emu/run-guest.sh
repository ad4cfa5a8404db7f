#!/bin/bash
# Boots a target's Debian kernel in QEMU with an initramfs holding pmuser.ko, the samples, the
# tests and a job script; prints what the job printed and exits with the job's status.
#
# usage: emu/run-guest.sh TARGET JOB_SCRIPT [FILE...]      (FILEs land in the guest's /root)
# env:   PMUSER_TEST_TIMEOUT (guest seconds per test binary, default 300), PMUSER_TIMEOUT
#        (guest seconds for the whole job, default 1200), PMUSER_HOST_TIMEOUT (host seconds for
#        the whole job, default 10800), PMUSER_STALL_TIMEOUT (host seconds the guest's clock may
#        stand still, default 300), PMUSER_SMP (CPUs, default per target),
#        PMUSER_ICOUNT (default 1: -icount shift=0, deterministic instruction counts),
#        PMUSER_EXTRA_MODULES (more .ko files for /lib/modules), PMUSER_GUEST_ENV (lines for
#        the guest's environment), PMUSER_STREAM (1: show the job's output as it comes)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
pmuser_target "$1"
job=$2
shift 2

smp=${PMUSER_SMP:-$T_SMP}
# The budgets count in guest seconds: under -icount the guest's clock runs on the instructions
# executed, so a test's cost there is the same on an idle host and a busy one (a busy host only
# runs it slower). One test binary may take PMUSER_TEST_TIMEOUT of them (the guest stops it and
# runs the next), the job PMUSER_TIMEOUT. Host-time backstops catch hangs that stop the guest's
# clock (PMUSER_STALL_TIMEOUT) or crawl (PMUSER_HOST_TIMEOUT; guest-console.pl). A guest that
# deadlocks idles, and idle guest time runs ahead to the guest budgets; so the host limit only
# bounds a crawl and is set far beyond the slowest job on a host shared four ways (the longest
# takes under 25 min of host time beside one other guest). Without -icount the guest's clock
# is the host's.
test_limit=${PMUSER_TEST_TIMEOUT:-300}
limit=${PMUSER_TIMEOUT:-1200}
host_limit=${PMUSER_HOST_TIMEOUT:-10800}
stall_limit=${PMUSER_STALL_TIMEOUT:-300}
work=$T_BUILD/guest
stage=$work/initramfs.d
rm -rf "$stage"
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,root,tests,etc/pmuser,lib/modules}

[ -f "$T_BUILD/pmuser.ko" ] || { echo "run-guest: $T_BUILD/pmuser.ko missing (build first)" >&2; exit 2; }
cp "$T_BUSYBOX" "$stage/bin/busybox"
cp "$here/guest/init" "$stage/init"
cp "$here/guest/run-tests" "$stage/etc/pmuser/run-tests"
cp "$job" "$stage/etc/pmuser/job"
cp "$T_BUILD/pmuser.ko" "$stage/lib/modules/"
# The test probe module (built by build.sh) goes along whenever it exists.
[ -f "$T_BUILD/pmuser_probe.ko" ] && cp "$T_BUILD/pmuser_probe.ko" "$stage/lib/modules/"
for m in ${PMUSER_EXTRA_MODULES:-}; do cp "$m" "$stage/lib/modules/"; done
[ -d "$T_BUILD/bin" ] && cp "$T_BUILD"/bin/* "$stage/bin/" 2>/dev/null || true
find "$T_BUILD/tests" -maxdepth 1 -type f -perm -u+x -exec cp {} "$stage/tests/" \; 2>/dev/null || true
for f in "$@"; do cp -r "$f" "$stage/root/"; done
# The boot-time files make install wrote (build.sh), as a package would leave them.
[ -d "$T_BUILD/install/etc" ] && cp -r "$T_BUILD/install/etc/." "$stage/etc/"
# Debian's perf (setup.sh fetch_perf) with the shared libraries it needs, as /bin/perf.
perf_root=$PMUSER_CACHE/perf-arm64/root
if [ "$T_DEBARCH" = arm64 ] && compgen -G "$PMUSER_CACHE/perf-arm64/ready-*" >/dev/null; then
	mkdir -p "$stage/perf"
	cp "$perf_root/usr/bin/perf" "$stage/perf/perf"
	cp -L "$perf_root/lib/ld-linux-aarch64.so.1" "$stage/perf/"
	todo=("$perf_root/usr/bin/perf")
	declare -A have=()
	while [ ${#todo[@]} -gt 0 ]; do
		elf=${todo[0]}
		todo=("${todo[@]:1}")
		for lib in $(aarch64-linux-gnu-readelf -d "$elf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -z "${have[$lib]:-}" ] || continue
			have[$lib]=1
			path=$(find "$perf_root/lib/aarch64-linux-gnu" "$perf_root/usr/lib/aarch64-linux-gnu" \
				-maxdepth 1 -name "$lib" 2>/dev/null | head -n1)
			if [ -z "$path" ]; then
				echo "run-guest: perf needs $lib, which setup.sh did not unpack" >&2
				continue
			fi
			cp -L "$path" "$stage/perf/$lib"
			todo+=("$path")
		done
	done
	printf '#!/bin/sh\nexec /perf/ld-linux-aarch64.so.1 --library-path /perf /perf/perf "$@"\n' \
		>"$stage/bin/perf"
	chmod +x "$stage/bin/perf"
fi
{
	echo "export PMUSER_TARGET=$T_NAME"
	echo "export PMUSER_MODPARAMS='$T_MODPARAMS'"
	echo "export PMUSER_SMP=$smp"
	echo "export PMUSER_TEST_TIMEOUT=$test_limit"
	[ "${PMUSER_ICOUNT:-1}" = 1 ] && echo "export PMUSER_ICOUNT_EXACT=1"
	# bookworm's libpfm4 (PAPI's event tables) knows no Cortex-A72; the A57's table names
	# the same architectural events pmu-overhead's PAPI peer reads.
	[ "$T_DEBARCH" = arm64 ] && echo "export LIBPFM_FORCE_PMU=arm_ac57"
	printf '%s\n' "${PMUSER_GUEST_ENV:-}"
} >"$stage/etc/pmuser/env"
(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initramfs.cpio.gz"

qemu=("$T_QEMU" -M "$T_MACHINE" -m "$T_MEM" -nographic -no-reboot -nic none
	-kernel "$T_KERNEL" -initrd "$work/initramfs.cpio.gz")
[ -n "$T_CPU" ] && qemu+=(-cpu "$T_CPU")
[ "${PMUSER_ICOUNT:-1}" = 1 ] && qemu+=(-icount shift=0)
append="console=$T_CONSOLE loglevel=1 panic=-1 rdinit=/init${T_APPEND:+ $T_APPEND}"

case "$T_NAME" in
*-v8)
	# QEMU describes the "max" CPU's PMU as "arm,armv8-pmuv3", a driver Debian's armmp
	# kernels leave out (CONFIG_ARM_PMUV3 is off). Name it as the Raspberry Pi's 32-bit DT
	# names the Cortex-A53's, "arm,cortex-a7-pmu", so perf's ARMv7 driver runs it.
	qemu[2]=virt,highmem=off
	qemu+=(-smp "$smp")
	"${qemu[@]}" -machine dumpdtb="$work/virt.dtb" >/dev/null 2>&1
	dtc -q -I dtb -O dts "$work/virt.dtb" |
		sed '/^\tpmu {/,/^\t};/s/"arm,armv8-pmuv3"/"arm,cortex-a7-pmu"/' >"$work/virt.dts"
	dtc -q -I dts -O dtb -o "$work/virt-pmu.dtb" "$work/virt.dts"
	qemu+=(-dtb "$work/virt-pmu.dtb")
	;;
armhf-*)
	# QEMU writes an empty PMU node into the 32-bit virt DTB: describe the A15 PMU (PPI 7,
	# level high, routed to every CPU) so the guest kernel registers it.
	qemu[2]=virt,highmem=off
	qemu+=(-smp "$smp")
	"${qemu[@]}" -machine dumpdtb="$work/virt.dtb" >/dev/null 2>&1
	dtc -q -I dtb -O dts "$work/virt.dtb" |
		awk -v mask=$(((1 << smp) - 1)) '
			/^\tpmu \{/ { print; getline
				print "\t\tcompatible = \"arm,cortex-a15-pmu\";"
				printf "\t\tinterrupts = <0x01 0x07 0x%x>;\n", mask * 256 + 4 }
			{ print }' >"$work/virt.dts"
	dtc -q -I dts -O dtb -o "$work/virt-pmu.dtb" "$work/virt.dts"
	qemu+=(-dtb "$work/virt-pmu.dtb")
	;;
armel-*)
	# QEMU's raspi0 models one watchdog register block; the DT's second one makes the
	# kernel's probe fail, so keep only the first.
	dtc -q -I dtb -O dts "$T_ROOT/usr/lib/linux-image-$T_KREL/bcm2835-rpi-zero.dtb" |
		awk '/watchdog@7e100000 \{/ { wd = 1 }
			wd && /reg = </ { sub(/reg = <[^>]*>/, "reg = <0x7e100000 0x114>"); wd = 0 }
			{ print }' >"$work/rpi0.dts"
	dtc -q -I dts -O dtb -o "$work/rpi0.dtb" "$work/rpi0.dts"
	qemu+=(-dtb "$work/rpi0.dtb")
	;;
*-bl)
	# big.LITTLE as perf sees it: two CPU PMUs of different compatibles over disjoint CPUs
	# (GICv3 PPI partitions, emu/bl-dts.py), so perf registers one PMU per cluster.
	qemu[2]=$T_MACHINE,gic-version=3
	qemu+=(-smp "$smp")
	"${qemu[@]}" -machine dumpdtb="$work/virt.dtb" >/dev/null 2>&1
	dtc -q -I dtb -O dts "$work/virt.dtb" | python3 "$here/bl-dts.py" >"$work/virt.dts"
	dtc -q -I dts -O dtb -o "$work/virt-bl.dtb" "$work/virt.dts"
	qemu+=(-dtb "$work/virt-bl.dtb")
	;;
*)
	# GICv2 serves at most 8 CPUs; GICv3 up to 512.
	[ "$smp" -gt 8 ] && qemu[2]=$T_MACHINE,gic-version=3
	qemu+=(-smp "$smp")
	;;
esac
qemu+=(-append "$append")

log=$work/console.log
# Console lines are stamped with host seconds (guest-console.pl), which asks QEMU's monitor for
# the guest's clock and keeps the limits.
qmp_dir=$(mktemp -d)
trap 'rm -rf "$qmp_dir"' EXIT
qemu+=(-qmp "unix:$qmp_dir/qmp.sock,server=on,wait=off")
watch=(--qmp "$qmp_dir/qmp.sock" --test "$test_limit" --job "$limit" --stall "$stall_limit"
	--host "$host_limit")
[ "${PMUSER_ICOUNT:-1}" = 1 ] && watch+=(--icount)
# PMUSER_STREAM=1 (make vm-run): the job's output is also shown as the guest prints it, and
# not again at the end.
stream=${PMUSER_STREAM:-0}
set +e
if [ "$stream" = 1 ]; then
	perl "$here/guest-console.pl" "${watch[@]}" "${qemu[@]}" </dev/null | tee "$log" |
		awk '{ sub(/^[^ ]* /, "") } /^@@PMUSER-BEGIN/ { on = 1; next }
			/^@@PMUSER-(EXIT|STOP|CLOCK)/ { on = 0; next } on { print; fflush() }'
	qemu_rc=${PIPESTATUS[0]}
else
	perl "$here/guest-console.pl" "${watch[@]}" "${qemu[@]}" </dev/null >"$log"
	qemu_rc=$?
fi
set -e
cut -d' ' -f2- "$log" >"$log.txt"
# report_times: "# time: TEST H s host, G s guest" for each test the job started (the one stopped
# with what it had used), and the job's total.
report_times() {
	awk '$2 == "#" && $3 == "guest" && $4 == "test:" && $6 == "(uptime" { name = $5; t = $1 }
		$2 == "#" && $3 == "guest" && $4 == "test:" && $6 == "took" && $5 == name {
			printf "# time: %s %.1f s host, %s s guest\n", name, $1 - t, $7; name = "" }
		$2 == "@@PMUSER-STOP" && $5 == name {
			printf "# time: %s %.1f s host, %s s guest (stopped)\n", name, $7, $6; name = "" }
		$2 == "@@PMUSER-CLOCK" { guest = $3 }
		{ end = $1 }
		END { if (name != "") printf "# time: %s %.1f s host (still running)\n", name, end - t
			printf "# time: whole job %.1f s host, %s s guest (limits: %d s guest, %d s host)\n",
			end, guest == "" ? "?" : guest, limit, host_limit }' \
		limit="$limit" host_limit="$host_limit" "$log"
}
if ! grep -q '^@@PMUSER-EXIT ' "$log.txt"; then
	# What the job printed so far, then one failing line naming the test that was running and
	# the limit that ran out.
	[ "$stream" = 1 ] ||
		awk '/^@@PMUSER-BEGIN/ { on = 1; next } /^@@PMUSER-(STOP|CLOCK)/ { next } on' "$log.txt"
	report_times
	last=$(grep '^# guest test: .*(uptime ' "$log.txt" | tail -n1)
	last=${last#\# guest test: }
	last=${last%% (uptime *}
	stop=$(grep '^@@PMUSER-STOP ' "$log.txt" | tail -n1)
	if [ -n "$stop" ]; then
		read -r _ kind lim test tguest thost jguest <<<"$stop"
		case "$kind" in
		test)
			why="the test used more than its $lim s of guest time (PMUSER_TEST_TIMEOUT)"
			why+=" and the guest did not stop it"
			;;
		job) why="the job used its $lim s of guest time (PMUSER_TIMEOUT)" ;;
		stall)
			why="the guest's clock stood still (or could not be read) for $lim s of host"
			why+=" time (PMUSER_STALL_TIMEOUT)"
			;;
		*) why="the job used its $lim s of host time (PMUSER_HOST_TIMEOUT)" ;;
		esac
		used_test="the test had used $tguest s of guest time, $thost s of host time"
		used_job="the job had used $jguest s of guest time"
		if [ "$jguest" = '?' ]; then
			used_test="the test had run $thost s of host time; the guest's clock was never read"
			used_job="the guest's clock was never read"
		fi
		if [ "$test" != - ]; then
			line="$test: the guest job was stopped during this test: $why; $used_test"
		elif [ -n "$last" ]; then
			line="$T_NAME: the guest job was stopped after $last ended: $why; $used_job"
		else
			line="$T_NAME: the guest job was stopped before any test started: $why; $used_job"
		fi
		why="was stopped: $why"
	else
		why="did not finish (qemu status $qemu_rc)"
		if [ -n "$last" ]; then
			line="$last: the guest job $why during this test"
		else
			line="$T_NAME: the guest job $why before any test started"
		fi
	fi
	echo "not ok 1 $line"
	echo "run-guest: $T_NAME: the job $why; console tail:" >&2
	tail -n 40 "$log.txt" >&2
	exit 125
fi
[ "$stream" = 1 ] || awk '/^@@PMUSER-BEGIN/ { on = 1; next } /^@@PMUSER-EXIT/ { exit } on' "$log.txt"
report_times
exit "$(sed -n 's/^@@PMUSER-EXIT \([0-9]*\).*/\1/p' "$log.txt" | tail -n1)"
