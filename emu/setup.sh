#!/bin/bash
# Installs the host tools and fetches the pinned foreign-arch kernels, headers and busybox into
# the cache. Idempotent: a warm cache costs a few dpkg queries.
#
# usage: emu/setup.sh [--host-only | --ksrc-only] [TARGET...]      (no TARGET: every target)
#
# Foreign-arch packages are only ever downloaded and unpacked (apt-get download + dpkg-deb -x)
# through a private apt state under the cache, never installed: installing one can replace host
# binaries. The private state also keeps the host's dpkg architectures and apt lists untouched,
# and asks each suite only for the architectures pmuser needs from it, so a broken index of an
# unused architecture cannot hide the ones we need.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"

log() { printf 'setup: %s\n' "$*" >&2; }

as_root() {
	if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

retry() {
	local n
	for n in 1 2 3 4; do
		"$@" && return 0
		log "attempt $n of: $* failed; retrying"
		sleep $((n * 5))
	done
	return 1
}

host_packages() {
	local missing=() p
	for p in $HOST_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing host packages: ${missing[*]}"
		retry as_root apt-get update -q || true
		retry as_root env DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends "${missing[@]}"
	fi
	# The report tests print counts with a real locale's thousands separators.
	locale -a 2>/dev/null | grep -qix 'en_US.utf8' ||
		as_root localedef -i en_US -f UTF-8 en_US.UTF-8
}

# Private apt states, one per group of suites and architectures. apt commits a suite's indexes
# all or nothing, so an architecture whose index the mirror serves inconsistently ("File has
# unexpected size ... Mirror sync in progress?") gets a state of its own and cannot hide the
# others. bookworm: the 6.1 and bookworm 6.12 kernels, busybox; trixie: trixie(-security,
# -backports) amd64/arm64 and every arch-independent package; trixie-armhf: trixie armhf.
apt_dir() {
	case "$1" in
	bookworm) echo "$PMUSER_CACHE/apt" ;;
	*) echo "$PMUSER_CACHE/apt-$1" ;;
	esac
}

apt_opts() {
	local dir a
	dir=$(apt_dir "$1")
	printf '%s\n' -o "Dir::Etc::SourceList=$dir/sources.list" \
		-o "Dir::Etc::SourceParts=$dir/sources.list.d" \
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" \
		-o "Dir::State::status=$dir/status" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root -o Acquire::http::Timeout=30 -o Acquire::Retries=2
	for a in amd64 arm64 armhf armel; do
		printf '%s\n' -o "APT::Architectures::=$a"
	done
}

# The archive's addresses come from the host's own apt configuration.
archive_uri() {
	apt-get indextargets --format '$(SITE) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
		awk -v r="$1" '$2 == r { print $1; exit }'
}

archive_main() {
	local main
	main=$(archive_uri bookworm)
	[ -n "$main" ] || { log "no Debian bookworm source in the host's apt configuration"; exit 1; }
	echo "$main"
}

apt_sources() {
	local main sec keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	main=$(archive_main)
	sec=$(archive_uri bookworm-security)
	[ -n "$sec" ] || sec=${main%/debian}/debian-security
	case "$1" in
	bookworm)
		cat <<-EOF
			deb [arch=amd64,arm64,armhf,armel signed-by=$keyring] $main bookworm main
			deb [arch=amd64,arm64 signed-by=$keyring] $sec bookworm-security main
			deb [arch=amd64,arm64 signed-by=$keyring] $main bookworm-backports main
		EOF
		;;
	trixie)
		cat <<-EOF
			deb [arch=amd64,arm64 signed-by=$keyring] $main trixie main
			deb [arch=amd64,arm64 signed-by=$keyring] $sec trixie-security main
			deb [arch=amd64,arm64 signed-by=$keyring] $main trixie-backports main
		EOF
		;;
	trixie-armhf)
		cat <<-EOF
			deb [arch=armhf signed-by=$keyring] $main trixie main
			deb [arch=armhf signed-by=$keyring] $sec trixie-security main
		EOF
		;;
	esac
}

# private_apt STATE: refreshes the state's lists once a day. Mirrors in mid-sync get retries
# with backoff; what could not be refreshed keeps its previous lists and is reported in one line
# (status 1), and the package downloads decide whether that matters.
private_apt() {
	local dir stamp n
	dir=$(apt_dir "$1")
	stamp=$dir/updated
	mkdir -p "$dir"/{lists/partial,cache/archives/partial,sources.list.d}
	touch "$dir/status"
	if [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440)" ]; then
		return 0
	fi
	apt_sources "$1" >"$dir/sources.list"
	log "updating the private package lists ($1)"
	for n in 1 2 3 4; do
		# shellcheck disable=SC2046
		if timeout 120 apt-get $(apt_opts "$1") -q update >"$dir/update.log" 2>&1 &&
			! grep -q '^[EW]: Failed to fetch' "$dir/update.log"; then
			touch "$stamp"
			return 0
		fi
		[ $n = 4 ] || sleep $((n * n * 5))
	done
	log "$1: package lists not refreshed after 4 tries: $(grep -m1 -E '^(E|Err)' "$dir/update.log")"
	return 1
}

# download STATE PKG=VERSION[@SHA256]...: into the cache's deb store, once. A package with a
# pinned SHA256 that apt cannot get (its index unusable) is fetched from the pool and checked.
download() {
	local state=$1 spec name ver file sha
	shift
	mkdir -p "$PMUSER_CACHE/debs"
	for spec in "$@"; do
		sha=
		case "$spec" in *@*) sha=${spec#*@} spec=${spec%@*} ;; esac
		name=${spec%%=*}
		ver=${spec#*=}
		file=$(deb_file "$name" "$ver")
		[ -n "$file" ] && continue
		log "downloading $spec"
		# shellcheck disable=SC2046
		(cd "$PMUSER_CACHE/debs" && timeout 900 apt-get $(apt_opts "$state") -q download "$spec" \
			>"$PMUSER_CACHE/debs/download.log" 2>&1) && continue
		if [ -n "$sha" ] && download_pool "$name" "$ver" "$sha"; then
			continue
		fi
		log "could not download $spec ($state): $(grep -m1 -E '^(E|Err)' "$PMUSER_CACHE/debs/download.log")"
		exit 1
	done
}

# download_pool NAME:ARCH VERSION SHA256: a kernel package straight from the archive's pool.
download_pool() {
	local deb n part
	deb=${1%%:*}_${2}_${1#*:}.deb
	part=$PMUSER_CACHE/debs/$deb.part
	for n in 1 2 3; do
		if curl -fsS --retry 2 --max-time 900 -o "$part" \
			"$(archive_main)/pool/main/l/linux/$deb" &&
			echo "$3  $part" | sha256sum -c --quiet - 2>/dev/null; then
			mv "$part" "$PMUSER_CACHE/debs/$deb"
			log "$deb: from the pool, SHA256 as pinned"
			return 0
		fi
		sleep $((n * 10))
	done
	rm -f "$part"
	return 1
}

# deb_file NAME[:ARCH] VERSION: the downloaded file (apt writes an epoch "1:" as "1%3a").
deb_file() {
	local ver=${2//:/%3a} arch=${1#*:}
	[ "$arch" = "$1" ] && arch=
	find "$PMUSER_CACHE/debs" -maxdepth 1 -name "${1%%:*}_${ver}_${arch:-*}.deb" | head -n1
}

# resolve_kernel: the newest T_KRESOLVE.x kernel of the target's flavour in its apt state,
# recorded in the target's kernel.env (read by pmuser_target). Without fresh lists the last
# resolution, or else the pin, stays.
resolve_kernel() {
	local t=$1 env=$PMUSER_CACHE/targets/$1/kernel.env best= v pkg abi
	private_apt "$T_APT" || true
	# shellcheck disable=SC2046
	while read -r pkg v; do
		pkg=${pkg%%:*}
		abi=${pkg#linux-headers-}
		abi=${abi%-"$T_FLAVOUR"}
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "${best#* }"; then
			best="$abi $v"
		fi
	done < <(apt-cache $(apt_opts "$T_APT") pkgnames "linux-headers-$T_KRESOLVE." 2>/dev/null |
		grep -E "^linux-headers-$T_KRESOLVE\.[0-9.]+\+deb[0-9.]+-$T_FLAVOUR\$" |
		xargs -r apt-cache $(apt_opts "$T_APT") madison 2>/dev/null |
		awk -F' *[|] *' '{ print $1, $2 }')
	if [ -z "$best" ]; then
		[ -f "$env" ] || log "$t: no $T_KRESOLVE.x kernel in the package lists; using the pin $T_KPKG"
		return 0
	fi
	mkdir -p "${env%/*}"
	printf 'T_KABI=%s\nT_KPKG=%s\n' "${best% *}" "${best#* }" >"$env.tmp"
	mv "$env.tmp" "$env"
	pmuser_target "$t"
}
fetch_target() {
	local t=$1 stamp pkgs=() p all kpkgs=() sha
	pmuser_target "$t"
	[ -n "$T_KRESOLVE" ] && resolve_kernel "$t"
	stamp=$PMUSER_CACHE/targets/$T_KTARGET/ready-$T_KPKG-${BUSYBOX_PKG#*:}
	# Targets that share a kernel tree may be set up at once (parallel builds): one unpacks.
	mkdir -p "$PMUSER_CACHE/targets"
	exec 9>"$PMUSER_CACHE/targets/$T_KTARGET.lock"
	flock 9
	if [ -f "$stamp" ]; then
		[ -z "$T_KRESOLVE" ] || log "$t: kernel $T_KREL ($T_KPKG)"
		return 0
	fi
	# Architecture-independent and amd64 packages come from the suite's main state.
	all=${T_APT%-armhf}
	private_apt "$T_APT" || true
	[ "$all" = "$T_APT" ] || private_apt "$all" || true
	[ "$all" = bookworm ] || private_apt bookworm || true
	kpkgs=("linux-headers-$T_KREL:$T_DEBARCH=$T_KPKG")
	if [ -n "$T_KRESOLVE" ]; then
		# 7.x splits the image: the vmlinuz is in linux-binary-*.
		kpkgs+=("linux-binary-$T_KREL:$T_DEBARCH=$T_KPKG")
	else
		kpkgs+=("linux-image-$T_KREL:$T_DEBARCH=$T_KPKG")
	fi
	for p in "${kpkgs[@]}"; do
		# shellcheck disable=SC2086
		sha=$(printf '%s\n' $T_KSHA256 | sed -n "s/^${p%%:*}://p")
		download "$T_APT" "$p${sha:+@$sha}"
	done
	pkgs=("linux-headers-$T_KABI-common=$T_KPKG" "$T_KBUILD:amd64=$T_KPKG")
	[ -z "$T_KSRC" ] || pkgs+=("$T_KSRC=$T_KPKG")
	download "$all" "${pkgs[@]}"
	download bookworm "busybox-static:$T_DEBARCH=$BUSYBOX_PKG"
	pkgs+=("${kpkgs[@]}" "busybox-static:$T_DEBARCH=$BUSYBOX_PKG")
	rm -rf "$T_ROOT" "$PMUSER_CACHE/targets/$T_KTARGET"/ready-*
	mkdir -p "$T_ROOT"
	for p in "${pkgs[@]}"; do
		case "$p" in linux-source-*) continue ;; esac
		dpkg-deb -x "$(deb_file "${p%%=*}" "${p#*=}")" "$T_ROOT"
	done
	# Debian's headers tree names its siblings by absolute /usr/src and /usr/lib paths.
	sed -i "s|/usr/src/|$T_ROOT/usr/src/|g" "$T_KDIR/Makefile"
	for p in scripts tools; do
		if [ -L "$T_KDIR/$p" ]; then
			ln -sfn "$T_ROOT/usr/lib/$T_KBUILD/$p" "$T_KDIR/$p"
		fi
	done
	if [ ! -f "$T_KERNEL" ] && [ -f "$T_ROOT/usr/lib/modules/$T_KREL/vmlinuz" ]; then
		mkdir -p "$T_ROOT/boot"
		ln -s "../usr/lib/modules/$T_KREL/vmlinuz" "$T_KERNEL"
	fi
	[ -f "$T_KERNEL" ] || { log "$t: no kernel at $T_KERNEL"; exit 1; }
	[ -z "$T_KSRC" ] || kbuild_from_source "$t"
	touch "$stamp"
	log "$t: kernel $T_KREL ($T_KPKG) ready"
}

# kbuild_from_source TARGET: the kbuild package's host programs need a newer glibc than the
# host's, so they are rebuilt from the same version's kernel source with the host compiler,
# configured like the target kernel. The kernel itself was built with a newer gcc than the
# host's cross compiler: the headers tree is pointed at the host's, and only its toolchain
# symbols (compiler, assembler and linker capabilities and versions, which select flags and
# code generation, never a structure's layout) are set to what that toolchain has.
kbuild_from_source() {
	local t=$1 tmp src out kb f n=0 sym old new v kmake
	tmp=$(mktemp -d "$PMUSER_CACHE/tmp.XXXXXX")
	log "$t: building the kbuild host programs from $T_KSRC"
	dpkg-deb --fsys-tarfile "$(deb_file "$T_KSRC" "$T_KPKG")" |
		tar -x -C "$tmp" --wildcards './usr/src/linux-source-*.tar.xz'
	tar -xJf "$tmp"/usr/src/linux-source-*.tar.xz -C "$tmp"
	src=$(echo "$tmp"/linux-source-*/)
	out=$tmp/out
	mkdir -p "$out"
	cp "$T_KDIR/.config" "$out/.config"
	# BTF would need a newer pahole for resolve_btfids, signing needs keys; neither changes
	# the host programs built here.
	"$src/scripts/config" --file "$out/.config" -d DEBUG_INFO_BTF -d MODULE_SIG
	kmake=(make -s -C "$src" O="$out" ARCH="$T_ARCH" CROSS_COMPILE="$T_CROSS")
	if ! "${kmake[@]}" olddefconfig >"$tmp/build.log" 2>&1 ||
		! "${kmake[@]}" -j"$(nproc)" modules_prepare >>"$tmp/build.log" 2>&1; then
		log "$t: building the host programs failed:"
		tail -n 20 "$tmp/build.log" >&2
		rm -rf "$tmp"
		exit 1
	fi
	kb=$T_ROOT/usr/lib/$T_KBUILD
	while read -r f; do
		file -b "$kb/$f" | grep -q '^ELF' || continue
		if [ -f "$out/$f" ]; then
			cp "$out/$f" "$kb/$f"
			n=$((n + 1))
		fi
	done < <(cd "$kb" && find . -type f)
	# Debian's modpost is a wrapper choosing modpost.real-*; the rebuilt one is the target's.
	cp "$out/scripts/mod/modpost" "$kb/scripts/mod/modpost"
	log "$t: $n host programs rebuilt"
	# shellcheck disable=SC2016
	sed -i 's/^CC = .*/CC = $(CROSS_COMPILE)gcc/' "$T_KDIR/.kernelvariables"
	# Module BTF needs a pahole as new as the kernel's: without the base vmlinux (BTF only)
	# kbuild leaves it out, and the kernel loads modules without BTF.
	rm -f "$T_KDIR/vmlinux"
	for sym in $(grep -hoE '^(# )?CONFIG_((CC_HAS|CC_OPT|CC_CAN|CC_IS|AS_HAS|AS_IS|LD_IS|LD_CAN|GCC_ASM_GOTO|TOOLS_SUPPORT)_[A-Z0-9_]+|(GCC|AS|LD|PAHOLE)_VERSION|CC_VERSION_TEXT)' \
		"$T_KDIR/include/config/auto.conf" "$out/.config" | sed 's/^# //' | sort -u); do
		old=$(sed -n "s/^$sym=//p" "$T_KDIR/include/config/auto.conf")
		new=$(sed -n "s/^$sym=//p" "$out/.config")
		v=$new
		# auto.conf holds strings unquoted, autoconf.h quoted.
		case "$new" in \"*) new=${new#\"} new=${new%\"} ;; esac
		[ "$old" = "$new" ] && continue
		sed -i "/^$sym=/d" "$T_KDIR/include/config/auto.conf"
		sed -i "/^#define $sym /d" "$T_KDIR/include/generated/autoconf.h"
		[ -n "$new" ] || continue
		echo "$sym=$new" >>"$T_KDIR/include/config/auto.conf"
		[ "$v" = y ] && v=1
		echo "#define $sym $v" >>"$T_KDIR/include/generated/autoconf.h"
	done
	rm -rf "$tmp"
}

# Debian's own perf for arm64 and the libraries perf_6.1 loads, unpacked once: the real perf
# user the arm64 guests run beside pmuser (run-guest.sh installs it as /bin/perf). A failure
# is logged and leaves the guests without it; the tests that need it then skip and say why.
PERF_LIBS="libbabeltrace1 libbz2-1.0 libc6 libcap2 libcrypt1 libdb5.3 libdw1 libelf1
	libexpat1 libffi8 libgcc-s1 libgdbm-compat4 libgdbm6 libglib2.0-0 liblzma5 libnuma1
	libopencsd1 libpcre2-8-0 libperl5.36 libpython3.11 libslang2 libstdc++6 libunwind8
	libzstd1 zlib1g libmount1 libblkid1 libselinux1 libuuid1"
fetch_perf() {
	unpack_arm64 perf "$PMUSER_CACHE/perf-arm64" "ready-$K61_PKG" root \
		"linux-perf=$K61_PKG" $PERF_LIBS
}

# PAPI for arm64 (static libpapi.a and libpfm.a with papi.h), unpacked once: pmu-overhead's
# PAPI_read() peer in the arm64 guests (build.sh links it in when present). A failure is logged
# and leaves pmu-overhead without the peer, which then says so.
fetch_papi() {
	unpack_arm64 PAPI "$PMUSER_CACHE/peers-arm64/papi" ready . libpapi-dev libpfm4-dev
}

# unpack_arm64 WHAT DIR STAMP SUBDIR PACKAGE...: bookworm's arm64 PACKAGEs (NAME=VERSION, or
# NAME for the candidate) unpacked into DIR/SUBDIR once, DIR/STAMP marking it done. A failure
# is logged and leaves the guests without WHAT; setup goes on.
unpack_arm64() {
	local what=$1 dir=$2 stamp=$3 sub=$4 specs=() p v
	shift 4
	[ -f "$dir/$stamp" ] && return 0
	private_apt bookworm || true
	for p in "$@"; do
		case $p in
		*=*) specs+=("${p%%=*}:arm64=${p#*=}") && continue ;;
		esac
		# shellcheck disable=SC2046
		v=$(apt-cache $(apt_opts bookworm) policy "$p:arm64" 2>/dev/null |
			awk '$1 == "Candidate:" { print $2 }') || v=
		if [ -z "$v" ] || [ "$v" = "(none)" ]; then
			log "$what for the arm64 guests: no candidate for $p:arm64; going without"
			return 0
		fi
		specs+=("$p:arm64=$v")
	done
	if ! (download bookworm "${specs[@]}"); then
		log "$what for the arm64 guests: download failed; going without"
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir/$sub"
	for p in "${specs[@]}"; do
		if ! dpkg-deb -x "$(deb_file "${p%%=*}" "${p#*=}")" "$dir/$sub"; then
			log "$what for the arm64 guests: unpacking $p failed; going without"
			rm -rf "$dir"
			return 0
		fi
	done
	touch "$dir/$stamp"
	log "$what for the arm64 guests: ${specs[0]} ready"
}

# Linux's libperf (tools/lib/perf of the kernel source fetch_ksrc uses), cross-built once for
# arm64 as static libperf.a and libapi.a with its headers: pmu-overhead's perf_evsel__read()
# peer in the arm64 guests. Its Makefile adds no optimisation of its own (perf's build passes
# one in), so it is built at -O2, as a distribution builds it: the peer's cost is then its
# code's, not an unoptimised build's. A failure is logged and leaves pmu-overhead without it.
fetch_libperf() {
	local dir=$PMUSER_CACHE/peers-arm64/libperf-O2 ver=${KSRC_NAME#linux-source-} tmp
	[ -f "$dir/ready-$KSRC_PKG" ] && return 0
	download bookworm "$KSRC_NAME=$KSRC_PKG"
	tmp=$(mktemp -d)
	rm -rf "$dir"
	mkdir -p "$dir/lib" "$tmp/out"
	log "building libperf for arm64 from $KSRC_NAME"
	if dpkg-deb --fsys-tarfile "$(deb_file "$KSRC_NAME" "$KSRC_PKG")" |
		tar -x -C "$tmp" "./usr/src/linux-source-$ver.tar.xz" &&
		tar -xJf "$tmp/usr/src/linux-source-$ver.tar.xz" -C "$tmp" \
			"linux-source-$ver/tools" "linux-source-$ver/include/uapi" \
			"linux-source-$ver/arch/arm64/include/uapi" "linux-source-$ver/scripts" \
			"linux-source-$ver/Makefile" &&
		make -s -C "$tmp/linux-source-$ver/tools/lib/perf" ARCH=arm64 \
			CROSS_COMPILE=aarch64-linux-gnu- EXTRA_CFLAGS=-O2 O="$tmp/out" \
			>"$tmp/log" 2>&1 &&
		cp "$tmp/out/libperf.a" "$tmp/out/libapi.a" "$dir/lib/" &&
		cp -r "$tmp/linux-source-$ver/tools/lib/perf/include" "$dir/include"; then
		touch "$dir/ready-$KSRC_PKG"
		log "libperf for the arm64 guests: ready"
	else
		log "libperf for the arm64 guests: build failed; going without ($(tail -n 1 "$tmp/log" 2>/dev/null))"
		rm -rf "$dir"
	fi
	rm -rf "$tmp"
}

# checkpatch.pl, the kselftest harness, the pmu-events JSON and the ioctl number registry
# from the Debian kernel source. The stamp names what it holds.
fetch_ksrc() {
	local stamp=$PMUSER_CACHE/ksrc/ready-ioctl-$KSRC_PKG ver=${KSRC_NAME#linux-source-} tmp
	[ -f "$stamp" ] && return 0
	private_apt bookworm || true
	download bookworm "$KSRC_NAME=$KSRC_PKG"
	rm -rf "$PMUSER_CACHE/ksrc"
	tmp=$(mktemp -d)
	mkdir -p "$PMUSER_CACHE/ksrc"
	log "unpacking $KSRC_NAME (checkpatch, kselftest harness, pmu-events)"
	dpkg-deb --fsys-tarfile "$(deb_file "$KSRC_NAME" "$KSRC_PKG")" |
		tar -x -C "$tmp" "./usr/src/linux-source-$ver.tar.xz"
	tar -xJf "$tmp/usr/src/linux-source-$ver.tar.xz" -C "$PMUSER_CACHE/ksrc" \
		--strip-components=1 \
		"linux-source-$ver/scripts/checkpatch.pl" \
		"linux-source-$ver/scripts/spelling.txt" \
		"linux-source-$ver/scripts/const_structs.checkpatch" \
		"linux-source-$ver/tools/testing/selftests/kselftest_harness.h" \
		"linux-source-$ver/tools/testing/selftests/kselftest.h" \
		"linux-source-$ver/tools/perf/pmu-events/arch/arm64" \
		"linux-source-$ver/Documentation/userspace-api/ioctl/ioctl-number.rst"
	rm -rf "$tmp"
	touch "$stamp"
}

main() {
	local only= targets=() t
	for t in "$@"; do
		case "$t" in
		--host-only | --ksrc-only) only=$t ;;
		*) targets+=("$t") ;;
		esac
	done
	[ ${#targets[@]} -gt 0 ] || read -r -a targets <<<"$PMUSER_TARGETS"
	host_packages
	[ "$only" = --host-only ] && return 0
	fetch_ksrc
	[ "$only" = --ksrc-only ] && return 0
	for t in "${targets[@]}"; do
		fetch_target "$t"
		pmuser_target "$t"
		[ "$T_DEBARCH" != arm64 ] || { fetch_perf; fetch_papi; fetch_libperf; }
	done
}

main "$@"
