#!/bin/bash
# Builds pmuser.ko, the test probe module, libpmuser, the samples and the in-guest tests for
# one target into build/TARGET. usage: emu/build.sh TARGET
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
pmuser_target "$1"
bash "$here/setup.sh" "$1"
mk=(make -s -C "$PMUSER_TOP" OUT="$T_BUILD")
"${mk[@]}" module KDIR="$T_KDIR" KBUILD_ARGS="ARCH=$T_ARCH CROSS_COMPILE=$T_CROSS W=1"
# The probe module (tests/kmod/pmuser_probe) reads the user-enable register for the unload test.
probe=$T_BUILD/kmod-probe
mkdir -p "$probe"
cp -u "$PMUSER_TOP"/tests/kmod/pmuser_probe/{Kbuild,pmuser_probe.c} "$probe/"
make -s -C "$T_KDIR" M="$probe" ARCH="$T_ARCH" CROSS_COMPILE="$T_CROSS" W=1 modules
cp "$probe/pmuser_probe.ko" "$T_BUILD/"
"${mk[@]}" user guest-tests CROSS_COMPILE="$T_CROSS" LDFLAGS=-static \
	CFLAGS="-O2 -g $T_CFLAGS"
