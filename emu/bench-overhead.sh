#!/bin/bash
# make bench-overhead: the read and context-switch costs of docs/design.md. Boots each target
# with pmuser.ko loaded and prints pmu-overhead's table there (every read method, its peers
# where linked in, and the context-switch rows), under -icount shift=0 as every guest runs:
# counted instructions are exact and the guest's clock advances one ns per instruction.
#
# env: PMUSER_OVERHEAD_TARGETS (default "arm64-6.1 armhf-6.1 armhf-6.12-v8": AArch64, ARMv7
#      PMUv2, and an ARMv8 core in AArch32), PMUSER_OVERHEAD_ARGS (more pmu-overhead options,
#      default none)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
read -r -a targets <<<"${PMUSER_OVERHEAD_TARGETS:-arm64-6.1 armhf-6.1 armhf-6.12-v8}"
args=${PMUSER_OVERHEAD_ARGS:-}
commit=$(git -C "$PMUSER_TOP" describe --always --dirty 2>/dev/null || echo unknown)
job=$(mktemp)
trap 'rm -f "$job"' EXIT
status=0
for t in "${targets[@]}"; do
	bash "$here/build.sh" "$t" >&2
	(
		pmuser_target "$t"
		icount=
		[ "${PMUSER_ICOUNT:-1}" = 1 ] && icount=" -icount shift=0"
		echo "# $t: $T_QEMU -M $T_MACHINE${T_CPU:+ -cpu $T_CPU}$icount," \
			"${PMUSER_SMP:-$T_SMP} CPU(s), kernel $T_KREL; pmuser $commit"
	)
	printf '%s\n' 'insmod /lib/modules/pmuser.ko $PMUSER_MODPARAMS || exit 126' \
		"echo '\$ pmu-overhead${args:+ $args}'" "pmu-overhead $args" >"$job"
	# The job's own lines; run-guest.sh's closing "# time:" line is the boot's, not a result.
	if out=$(bash "$here/run-guest.sh" "$t" "$job" 2>&1); then
		grep -v '^# time:' <<<"$out" || true
	else
		printf '%s\n# %s: the job failed\n' "$out" "$t"
		status=1
	fi
	echo
done
exit $status
