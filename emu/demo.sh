#!/bin/bash
# The main job: boot Debian's arm64 kernel in QEMU, load pmuser, and show counters being read:
# pmu-info, pmu-hello, a load-latency histogram, a counted command, a known-good kernel and
# the cost of a read against perf_event_open.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${TARGET:-arm64-6.1}
echo "== booting emulated $target (QEMU, Debian's own kernel), loading pmuser.ko" >&2
exec bash "$here/vm-run.sh" "$target" '
echo "\$ uname -r -m"; uname -r -m
echo "\$ lsmod | grep pmuser"; lsmod | grep pmuser
echo "\$ pmu-info"; pmu-info
echo "\$ pmu-hello"; pmu-hello
echo "\$ pmu-lat -s 16K --samples 2000"; pmu-lat -s 16K --samples 2000
echo "\$ pmu-stat --pin-cpus 0 -- pmu-spin 1000000"; pmu-stat --pin-cpus 0 -- pmu-spin 1000000
echo "\$ pmu-matrix --order 32"; pmu-matrix --order 32
echo "\$ pmu-overhead"; pmu-overhead'
