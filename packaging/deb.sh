#!/bin/bash
# make deb: the Debian packages pmuser-dkms, libpmuser0, libpmuser-dev and pmuser-tools for
# each ARCH (default arm64 armhf), cross-built with dpkg-buildpackage from a copy of the tree
# with packaging/debian as its debian/. The .deb files land in build/deb/.
#
# usage: packaging/deb.sh [ARCH...]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
version=$(make -s -C "$top" --no-print-directory print-version)
out=$top/build/deb
mkdir -p "$out"
for arch in "${@:-arm64 armhf}"; do
	for a in $arch; do
		src=$out/$a/pmuser-$version
		rm -rf "$out/$a"
		mkdir -p "$src"
		# The tree as git has it (the build directory and the cache stay out).
		(cd "$top" && git ls-files -z --cached --others --exclude-standard -- Kbuild Makefile \
			module uapi userlib samples man packaging | xargs -0 cp --parents -t "$src")
		cp -r "$top/packaging/debian" "$src/debian"
		(cd "$src" && dpkg-buildpackage -a"$a" -b -us -uc -d >"$out/$a/build.log" 2>&1) || {
			echo "make deb: $a failed; the end of $out/$a/build.log:" >&2
			tail -n 30 "$out/$a/build.log" >&2
			exit 1
		}
		mv "$out/$a"/*.deb "$out/"
		echo "make deb: $a: $(cd "$out" && ls -- *_"$a".deb *_all.deb | tr '\n' ' ')"
	done
done
