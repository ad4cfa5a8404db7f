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
# pmu-overhead's peers where setup.sh prepared them (arm64): libperf and PAPI. Static glibc
# warns that PAPI's dlopen() needs shared libraries at run time; the perf_event component it
# uses does not.
peer_cflags= peer_libs=
papi=$PMUSER_CACHE/peers-arm64/papi libperf=$PMUSER_CACHE/peers-arm64/libperf-O2
if [ "$T_DEBARCH" = arm64 ] && compgen -G "$libperf/ready-*" >/dev/null; then
	peer_cflags="-DPMUSER_HAVE_LIBPERF -isystem $libperf/include"
	peer_libs="-L$libperf/lib -lperf -lapi"
fi
if [ "$T_DEBARCH" = arm64 ] && [ -f "$papi/ready" ]; then
	peer_cflags="$peer_cflags -DPMUSER_HAVE_PAPI -isystem $papi/usr/include"
	peer_libs="$peer_libs -L$papi/usr/lib/aarch64-linux-gnu -lpapi -lpfm -ldl"
fi
peers=(OVH_PEER_CFLAGS="$peer_cflags" OVH_PEER_LIBS="$peer_libs")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
"${mk[@]}" user guest-tests CROSS_COMPILE="$T_CROSS" LDFLAGS=-static \
	CFLAGS="-O2 -g $T_CFLAGS" "${peers[@]}" >"$log" 2>&1 || status=$?
# What make install puts on a board, and a program built against it from outside the tree
# (pkg-config pmuser, static like everything in the guest), which tests/guest/test_install
# runs as a member of the pmuser group.
inst=$T_BUILD/install
if [ "$status" = 0 ]; then
	rm -rf "$inst"
	"${mk[@]}" install CROSS_COMPILE="$T_CROSS" LDFLAGS=-static CFLAGS="-O2 -g $T_CFLAGS" \
		PREFIX=/usr DESTDIR="$inst" >>"$log" 2>&1 &&
	PKG_CONFIG_SYSROOT_DIR=$inst PKG_CONFIG_LIBDIR=$inst/usr/lib/pkgconfig \
		"${T_CROSS}gcc" -O2 $T_CFLAGS -static -o "$T_BUILD/bin/pmuser-oot" \
		"$PMUSER_TOP/tests/install/pmuser-oot.c" \
		$(PKG_CONFIG_SYSROOT_DIR=$inst PKG_CONFIG_LIBDIR=$inst/usr/lib/pkgconfig \
			pkg-config --static --cflags --libs pmuser) >>"$log" 2>&1 || status=$?
fi
grep -v -e "statically linked applications requires at runtime" -e "in function \`" "$log" >&2 ||
	true
exit "$status"
