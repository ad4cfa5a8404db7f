#!/bin/bash
# Runs one command in an emulated target with pmuser loaded and the samples on PATH; prints its
# output and exits with its status. FILES are copied to the guest's working directory (/root).
#
# usage: emu/vm-run.sh TARGET 'COMMAND' ['FILE...']     e.g. emu/vm-run.sh arm64-6.1 'pmu-info'
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
[ $# -ge 2 ] && [ -n "$2" ] || { echo "usage: $0 TARGET 'COMMAND' ['FILE...']" >&2; exit 2; }
target=$1 cmd=$2
read -r -a files <<<"${3:-}"
pmuser_target "$target" >/dev/null
bash "$here/build.sh" "$target" >&2
job=$(mktemp)
trap 'rm -f "$job"' EXIT
cat >"$job" <<JOB
insmod /lib/modules/pmuser.ko \$PMUSER_MODPARAMS || exit 126
$cmd
JOB
bash "$here/run-guest.sh" "$target" "$job" ${files[@]+"${files[@]}"}
