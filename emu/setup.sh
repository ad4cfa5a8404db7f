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

APT_DIR=$PMUSER_CACHE/apt
apt_opts() {
	local a
	printf '%s\n' -o "Dir::Etc::SourceList=$APT_DIR/sources.list" \
		-o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d" \
		-o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR/cache" \
		-o "Dir::State::status=$APT_DIR/status" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root
	for a in amd64 arm64 armhf armel; do
		printf '%s\n' -o "APT::Architectures::=$a"
	done
}

# The archive's addresses come from the host's own apt configuration.
archive_uri() {
	apt-get indextargets --format '$(SITE) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
		awk -v r="$1" '$2 == r { print $1; exit }'
}

private_apt() {
	local stamp=$APT_DIR/updated main sec keyring
	mkdir -p "$APT_DIR"/{lists/partial,cache/archives/partial,sources.list.d}
	touch "$APT_DIR/status"
	if [ -f "$stamp" ] && [ -n "$(find "$stamp" -mmin -1440)" ]; then
		return 0
	fi
	main=$(archive_uri bookworm)
	sec=$(archive_uri bookworm-security)
	[ -n "$main" ] || { log "no Debian bookworm source in the host's apt configuration"; exit 1; }
	[ -n "$sec" ] || sec=${main%/debian}/debian-security
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	cat >"$APT_DIR/sources.list" <<-EOF
		deb [arch=amd64,arm64,armhf,armel signed-by=$keyring] $main bookworm main
		deb [arch=amd64,arm64 signed-by=$keyring] $sec bookworm-security main
		deb [arch=amd64,arm64 signed-by=$keyring] $main bookworm-backports main
	EOF
	log "updating the private package lists"
	# shellcheck disable=SC2046
	retry apt-get $(apt_opts) -q update >&2
	touch "$stamp"
}

# download PKG=VERSION...: into the cache's deb store, once.
download() {
	local spec name ver file
	mkdir -p "$PMUSER_CACHE/debs"
	for spec in "$@"; do
		name=${spec%%=*}
		ver=${spec#*=}
		file=$(deb_file "$name" "$ver")
		[ -n "$file" ] && continue
		log "downloading $spec"
		# shellcheck disable=SC2046
		(cd "$PMUSER_CACHE/debs" && retry apt-get $(apt_opts) -q download "$spec" >&2)
	done
}

# deb_file NAME[:ARCH] VERSION: the downloaded file (apt writes an epoch "1:" as "1%3a").
deb_file() {
	local ver=${2//:/%3a} arch=${1#*:}
	[ "$arch" = "$1" ] && arch=
	find "$PMUSER_CACHE/debs" -maxdepth 1 -name "${1%%:*}_${ver}_${arch:-*}.deb" | head -n1
}

fetch_target() {
	local t=$1 stamp pkgs p kb common
	pmuser_target "$t"
	stamp=$PMUSER_CACHE/targets/$t/ready-$T_KPKG-${BUSYBOX_PKG#*:}
	[ -f "$stamp" ] && return 0
	private_apt
	kb=$T_KBUILD:amd64=$T_KPKG
	common=linux-headers-$T_KABI-common=$T_KPKG
	pkgs=("linux-image-$T_KREL:$T_DEBARCH=$T_KPKG" "linux-headers-$T_KREL:$T_DEBARCH=$T_KPKG"
		"$common" "$kb" "busybox-static:$T_DEBARCH=$BUSYBOX_PKG")
	download "${pkgs[@]}"
	rm -rf "$PMUSER_CACHE/targets/$t"
	mkdir -p "$T_ROOT"
	for p in "${pkgs[@]}"; do
		dpkg-deb -x "$(deb_file "${p%%=*}" "${p#*=}")" "$T_ROOT"
	done
	# Debian's headers tree names its siblings by absolute /usr/src and /usr/lib paths.
	sed -i "s|/usr/src/|$T_ROOT/usr/src/|g" "$T_KDIR/Makefile"
	for p in scripts tools; do
		if [ -L "$T_KDIR/$p" ]; then
			ln -sfn "$T_ROOT/usr/lib/$T_KBUILD/$p" "$T_KDIR/$p"
		fi
	done
	[ -f "$T_KERNEL" ] || { log "$t: no kernel at $T_KERNEL"; exit 1; }
	touch "$stamp"
	log "$t: kernel $T_KREL ready"
}

# checkpatch.pl, the kselftest harness and the pmu-events JSON from the Debian kernel source.
fetch_ksrc() {
	local stamp=$PMUSER_CACHE/ksrc/ready-$KSRC_PKG ver=${KSRC_NAME#linux-source-} tmp
	[ -f "$stamp" ] && return 0
	private_apt
	download "$KSRC_NAME=$KSRC_PKG"
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
		"linux-source-$ver/tools/perf/pmu-events/arch/arm64"
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
	done
}

main "$@"
