#!/bin/bash
# make bench-scale: what the module's calls cost against the CPU count. Boots one arm64 target
# with each CPU count in turn and prints pmu-scale's line for each (means of repeated calls,
# timed on the guest's clock), then the 32-CPU guest's hotplug and unload tests.
#
# env: PMUSER_SCALE_TARGET (default arm64-7.3), PMUSER_SCALE_CPUS (default "1 4 8 16 32"),
#      PMUSER_SCALE_REPEAT (calls of each kind, default 20)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
target=${PMUSER_SCALE_TARGET:-arm64-7.3}
read -r -a sizes <<<"${PMUSER_SCALE_CPUS:-1 4 8 16 32}"
bash "$here/build.sh" "$target" >&2
job=$(mktemp)
trap 'rm -f "$job"' EXIT
largest=0
for n in "${sizes[@]}"; do
	[ "$n" -gt "$largest" ] && largest=$n
	echo "insmod /lib/modules/pmuser.ko \$PMUSER_MODPARAMS && pmu-scale -r ${PMUSER_SCALE_REPEAT:-20}" >"$job"
	line=$(PMUSER_SMP=$n bash "$here/run-guest.sh" "$target" "$job" 2>&1 | grep '^cpus=' || true)
	echo "${line:-cpus=$n: pmu-scale printed nothing (run emu/run-guest.sh by hand to see why)}"
done
echo "# hotplug and unload on $largest CPUs:"
echo 'PMUSER_TESTS="/tests/test_hotplug /tests/test_unload" sh /etc/pmuser/run-tests' >"$job"
PMUSER_SMP=$largest bash "$here/run-guest.sh" "$target" "$job" | grep -E '^(not )?ok |^# time:'
