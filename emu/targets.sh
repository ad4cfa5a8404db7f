# Target matrix: one name per (architecture, kernel) pair the project builds and boots.
# Sourced by the emu scripts; pmuser_target NAME sets the variables below or fails.
# shellcheck shell=bash

PMUSER_TARGETS="arm64-6.1 arm64-6.12 armhf-6.1 armel-6.1"

pmuser_target() {
	T_NAME=$1
	case "$1" in
	arm64-6.1 | arm64-6.12)
		T_ARCH=arm64 T_DEBARCH=arm64 T_FLAVOUR=arm64
		T_CROSS=aarch64-linux-gnu-
		T_QEMU=qemu-system-aarch64 T_MACHINE=virt T_CPU=cortex-a72
		T_CONSOLE=ttyAMA0 T_SMP=2 T_MEM=512
		T_MODPARAMS= T_CFLAGS=
		;;
	armhf-6.1)
		# icount with -smp 2 hangs 32-bit guests in QEMU 7.2: one CPU here.
		T_ARCH=arm T_DEBARCH=armhf T_FLAVOUR=armmp
		T_CROSS=arm-linux-gnueabihf-
		T_QEMU=qemu-system-arm T_MACHINE=virt T_CPU=cortex-a15
		T_CONSOLE=ttyAMA0 T_SMP=1 T_MEM=512
		T_MODPARAMS= T_CFLAGS=
		;;
	armel-6.1)
		# BCM2835 (ARM1176) as in the Raspberry Pi Zero; QEMU reads c15 counters as zero.
		T_ARCH=arm T_DEBARCH=armel T_FLAVOUR=rpi
		T_CROSS=arm-linux-gnueabi-
		T_QEMU=qemu-system-arm T_MACHINE=raspi0 T_CPU=
		T_CONSOLE=ttyAMA0 T_SMP=1 T_MEM=512
		T_MODPARAMS= T_CFLAGS="-march=armv6 -marm"
		;;
	*)
		echo "unknown target '$1' (known: $PMUSER_TARGETS)" >&2
		return 1
		;;
	esac
	case "$1" in
	*-6.12) T_KABI=$K612_ABI T_KPKG=$K612_PKG T_KBUILD=$K612_KBUILD ;;
	*) T_KABI=$K61_ABI T_KPKG=$K61_PKG T_KBUILD=$K61_KBUILD ;;
	esac
	T_KREL=$T_KABI-$T_FLAVOUR
	T_ROOT=$PMUSER_CACHE/targets/$1/root
	T_KDIR=$T_ROOT/usr/src/linux-headers-$T_KREL
	T_KERNEL=$T_ROOT/boot/vmlinuz-$T_KREL
	T_BUSYBOX=$T_ROOT/bin/busybox
	T_BUILD=$PMUSER_BUILD/$1
}
