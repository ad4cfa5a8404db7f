#!/bin/bash
# Runs one command in an emulated target with pmuser loaded and the samples on PATH; prints its
# output and exits with its status. FILES are copied to the guest's working directory (/root).
# With PMUSER_RESULTS=DIR, what the command leaves in the guest's /root/out comes back into
# DIR on the host.
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
out=$(mktemp)
trap 'rm -f "$job" "$out"' EXIT
results=${PMUSER_RESULTS:-}
if [ -n "$results" ]; then
	mkdir -p "$results" || { echo "vm-run: cannot create $results" >&2; exit 2; }
fi
# The command runs as written, in a subshell (an exit in it ends only the command);
# /root/out travels back on the console as a base64 tar between markers.
want_results=$([ -n "$results" ] && echo 1 || echo 0)
cat >"$job" <<JOB
insmod /lib/modules/pmuser.ko \$PMUSER_MODPARAMS || exit 126
mkdir -p /root/out
(
$cmd
)
rc=\$?
if [ $want_results = 1 ]; then
	echo "@@PMUSER-RESULTS-BEGIN"
	tar -C /root/out -cf - . | gzip -c | base64
	echo "@@PMUSER-RESULTS-END"
fi
exit \$rc
JOB
# The output is shown as it comes, without the results block.
set +e
PMUSER_STREAM=1 bash "$here/run-guest.sh" "$target" "$job" ${files[@]+"${files[@]}"} | tee "$out" |
	tr -d '\r' | awk '/^@@PMUSER-RESULTS-BEGIN/ { skip = 1; next }
		/^@@PMUSER-RESULTS-END/ { skip = 0; next } !skip { print; fflush() }'
rc=${PIPESTATUS[0]}
set -e
if [ -n "$results" ]; then
	if ! tr -d '\r' <"$out" |
		awk '/^@@PMUSER-RESULTS-END/ { exit } on; /^@@PMUSER-RESULTS-BEGIN/ { on = 1 }' |
		base64 -d -i | tar -C "$results" -xzf -; then
		echo "vm-run: the guest's /root/out did not come back" >&2
		[ "$rc" != 0 ] || rc=1
	fi
fi
exit "$rc"
