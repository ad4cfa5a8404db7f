# Target matrix: one name per (architecture, kernel) pair the project builds and boots.
# Sourced by the emu scripts; pmuser_target NAME sets the variables below or fails.
# shellcheck shell=bash

# The one list of targets: the Makefile reads it for check-TARGET and build-TARGET. make check
# starts them in this order, two at a time: the longest jobs first.
PMUSER_TARGETS="armhf-6.12 armhf-6.1 armhf-6.12-v8 arm64-6.1 arm64-7.3-rt arm64-7.3-max arm64-6.12 arm64-7.3-bl arm64-7.3 armel-6.1"

pmuser_target() {
	T_NAME=$1
	# T_APPEND: words the target adds to the guest kernel's command line.
	T_APPEND=
	case "$1" in
	arm64-6.1 | arm64-6.12 | arm64-7.3 | arm64-7.3-rt | arm64-7.3-max | arm64-7.3-bl)
		T_ARCH=arm64 T_DEBARCH=arm64 T_FLAVOUR=arm64
		# The PREEMPT_RT flavour; like the others it has KVM, hence preempt notifiers.
		[ "$1" = arm64-7.3-rt ] && T_FLAVOUR=rt-arm64
		T_CROSS=aarch64-linux-gnu-
		T_QEMU=qemu-system-aarch64 T_MACHINE=virt T_CPU=cortex-a72
		# QEMU's "max": a PMUv3p5 core (64-bit event counters, PMCR.LP), as Neoverse V1/V2/N2,
		# Ampere One and the Cortex-A710/X cores are. Its pointer authentication uses QEMU's
		# cheap IMP DEF algorithm: QEMU computes the architected QARMA5 one slowly, at every
		# signed return of the kernel.
		[ "$1" = arm64-7.3-max ] && T_CPU=max,pauth-impdef=on
		T_CONSOLE=ttyAMA0 T_SMP=2 T_MEM=512
		T_MODPARAMS= T_CFLAGS=
		# QEMU gives the Debian kernel a KASLR seed, and a randomised Cortex-A72 kernel
		# unmaps itself from EL0 (KPTI): an ASID switch at every kernel entry and exit, at
		# each of which QEMU flushes its whole TLB (docs/design.md, "Emulated targets").
		# arm64-6.1 keeps KASLR and KPTI, as a board whose firmware seeds KASLR runs; the
		# other Cortex-A72 targets boot without. The max core has E0PD, which KASLR takes
		# instead of KPTI.
		case "$1" in
		arm64-6.1 | arm64-7.3-max) ;;
		*) T_APPEND=nokaslr ;;
		esac
		;;
	armhf-6.1 | armhf-6.12)
		# icount with -smp 2 hangs 32-bit guests in QEMU 7.2: one CPU here.
		T_ARCH=arm T_DEBARCH=armhf T_FLAVOUR=armmp
		T_CROSS=arm-linux-gnueabihf-
		T_QEMU=qemu-system-arm T_MACHINE=virt T_CPU=cortex-a15
		T_CONSOLE=ttyAMA0 T_SMP=1 T_MEM=512
		T_MODPARAMS= T_CFLAGS=
		;;
	armhf-6.12-v8)
		# An ARMv8 core in AArch32, as a Raspberry Pi 3/4 on a 32-bit OS: PMUv3 registers
		# (read-only user enable) run by perf's ARMv7 driver (run-guest.sh names the PMU
		# node for it). QEMU's "max" is such a core (Cortex-A57 MIDR).
		T_ARCH=arm T_DEBARCH=armhf T_FLAVOUR=armmp
		T_CROSS=arm-linux-gnueabihf-
		T_QEMU=qemu-system-arm T_MACHINE=virt T_CPU=max
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
	# T_APT: the private apt state the kernel comes from (setup.sh). T_KSRC: the kernel source
	# package whose host programs replace the kbuild package's (built for a newer glibc than
	# the host's). T_KSHA256: pinned hashes of the image and headers for a mirror whose index
	# for the architecture is unusable. T_KRESOLVE: the newest kernel of this series replaces
	# the pin at setup (backports keep only the newest few).
	T_APT=bookworm T_KSRC= T_KSHA256= T_KRESOLVE=
	case "$1" in
	arm64-6.12) T_KABI=$K612_ABI T_KPKG=$K612_PKG T_KBUILD=$K612_KBUILD ;;
	armhf-6.12 | armhf-6.12-v8)
		T_APT=trixie-armhf T_KABI=$K612T_ABI T_KPKG=$K612T_PKG
		T_KBUILD=linux-kbuild-$K612T_ABI T_KSRC=linux-source-6.12
		T_KSHA256="$K612T_SHA256"
		;;
	arm64-7.3*)
		T_APT=trixie T_KABI=$K7_ABI T_KPKG=$K7_PKG T_KRESOLVE=$K7_SERIES
		# A resolved kernel (setup.sh writes it) overrides the pin.
		if [ -f "$PMUSER_CACHE/targets/$1/kernel.env" ]; then
			. "$PMUSER_CACHE/targets/$1/kernel.env"
		fi
		T_KBUILD=linux-kbuild-$T_KABI T_KSRC=${T_KABI%%+*}
		T_KSRC=linux-source-${T_KSRC%.*}
		;;
	*) T_KABI=$K61_ABI T_KPKG=$K61_PKG T_KBUILD=$K61_KBUILD ;;
	esac
	# Targets that boot one kernel on different machines share its unpacked packages.
	T_KTARGET=${1%-v8}
	T_KTARGET=${T_KTARGET%-max}
	T_KTARGET=${T_KTARGET%-bl}
	T_ROOT=$PMUSER_CACHE/targets/$T_KTARGET/root
	T_KREL=$T_KABI-$T_FLAVOUR
	T_KDIR=$T_ROOT/usr/src/linux-headers-$T_KREL
	T_KERNEL=$T_ROOT/boot/vmlinuz-$T_KREL
	T_BUSYBOX=$T_ROOT/bin/busybox
	T_BUILD=$PMUSER_BUILD/$1
}
