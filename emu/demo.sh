#!/bin/bash
# The main job: boot Debian's arm64 kernel in QEMU, load pmuser, and show counters being read.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${TARGET:-arm64-6.1}
echo "== booting emulated $target (QEMU, Debian's own kernel), loading pmuser.ko" >&2
exec bash "$here/vm-run.sh" "$target" '
echo "\$ uname -r -m"; uname -r -m
echo "\$ lsmod | grep pmuser"; lsmod | grep pmuser
echo "\$ pmu-info"; pmu-info
echo "\$ pmu-hello"; pmu-hello'
