#!/bin/bash
# Static checks, as TAP: checkpatch --strict on the kernel code, a warning-free W=1 module build
# for every target, the DKMS and Debian package builds, the inline-read instruction tables
# proven by disassembly (the only way to check ARM1176's c15 encodings: QEMU cannot run them),
# the public header built as pedantic C11 for every instruction set, the shared library's
# exports checked against it, a man page for every function of it, the module's names apart
# from the library's, one now_ns() in the tree, pmu-hello's includes, one rule for raw windows
# in the tools, the layout rules and the fuzzers.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../emu/env.sh"
n=0
status=0
result() { # result OK|FAIL description [details-file]
	n=$((n + 1))
	if [ "$1" = OK ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		[ -n "${3:-}" ] && sed 's/^/# /' "$3" | head -n 40
		status=1
	fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cp=$PMUSER_CACHE/ksrc/scripts/checkpatch.pl
if perl "$cp" --strict --no-tree --quiet --show-types --ignore SPDX_LICENSE_TAG \
	-f "$PMUSER_TOP"/module/*.[ch] "$PMUSER_TOP"/uapi/linux/*.h \
	"$PMUSER_TOP"/tests/kmod/*/*.c >"$tmp/cp" 2>&1; then
	result OK "checkpatch --strict: module/, uapi/, tests/kmod/"
else
	result FAIL "checkpatch --strict: module/, uapi/, tests/kmod/" "$tmp/cp"
fi

for t in $PMUSER_TARGETS; do
	pmuser_target "$t"
	out=$tmp/kbuild-$t
	rm -rf "$out"
	if make -s -C "$PMUSER_TOP" OUT="$out" KDIR="$T_KDIR" \
		KBUILD_ARGS="ARCH=$T_ARCH CROSS_COMPILE=$T_CROSS W=1" module >"$tmp/w1" 2>&1 &&
		! grep -q 'warning:' "$tmp/w1"; then
		result OK "$t: pmuser.ko builds with W=1, no warnings"
	else
		result FAIL "$t: pmuser.ko builds with W=1, no warnings" "$tmp/w1"
	fi
done

# The module source as make install leaves it for DKMS builds with dkms.conf's own MAKE line,
# sourced as dkms sources it (kernel_source_dir and dkms_tree set, the source copied to the
# build tree), for one 64-bit and one 32-bit target.
for t in arm64-6.1 armhf-6.1; do
	pmuser_target "$t"
	dk=$tmp/dkms-$t
	rm -rf "$dk"
	if make -s -C "$PMUSER_TOP" dkms-tree DESTDIR="$dk" DKMS_SRC=/src >"$tmp/dk" 2>&1 &&
		(kernel_source_dir=$T_KDIR dkms_tree=$dk/tree
		 . "$dk/src/dkms.conf"
		 build=$dkms_tree/$PACKAGE_NAME/$PACKAGE_VERSION/build
		 mkdir -p "$build" && cp -r "$dk/src/." "$build/" &&
		 [ "${BUILT_MODULE_NAME[0]}" = pmuser ] &&
		 eval "${MAKE[0]} ARCH=$T_ARCH CROSS_COMPILE=$T_CROSS" &&
		 [ -f "$build/pmuser.ko" ]) >>"$tmp/dk" 2>&1; then
		result OK "$t: the DKMS tree builds pmuser.ko with dkms.conf's MAKE"
	else
		result FAIL "$t: the DKMS tree builds pmuser.ko with dkms.conf's MAKE" "$tmp/dk"
	fi
done

# make deb: the four packages for arm64 and armhf, each holding its part.
debs=$PMUSER_TOP/build/deb
ver=$(make -s -C "$PMUSER_TOP" print-version)
rm -f "$debs"/*.deb
if make -s -C "$PMUSER_TOP" deb DEB_ARCHES="arm64 armhf" >"$tmp/deb" 2>&1; then
	for a in arm64 armhf; do
		multi=$(dpkg-architecture -a"$a" -qDEB_HOST_MULTIARCH 2>/dev/null)
		bad=
		for want in "libpmuser0_$ver-1_$a.deb ./usr/lib/$multi/libpmuser.so.0" \
			"libpmuser-dev_$ver-1_$a.deb ./usr/lib/$multi/pkgconfig/pmuser.pc" \
			"libpmuser-dev_$ver-1_$a.deb ./usr/include/linux/pmuser.h" \
			"libpmuser-dev_$ver-1_$a.deb ./usr/include/pmuser/fast.h" \
			"pmuser-tools_$ver-1_$a.deb ./usr/bin/pmu-stat" \
			"pmuser-tools_$ver-1_$a.deb ./usr/share/man/man1/pmu-stat.1.gz" \
			"pmuser-dkms_$ver-1_all.deb ./usr/src/pmuser-$ver/dkms.conf" \
			"pmuser-dkms_$ver-1_all.deb ./etc/udev/rules.d/60-pmuser.rules"; do
			set -- $want
			dpkg-deb -c "$debs/$1" 2>/dev/null | awk '{ print $6 }' | grep -qx "$2" ||
				bad="$bad $1:$2"
		done
		if [ -z "$bad" ] &&
			dpkg-deb -I "$debs/pmuser-tools_$ver-1_$a.deb" | grep -q "Architecture: $a"; then
			result OK "make deb: pmuser-dkms, libpmuser0, libpmuser-dev, pmuser-tools for $a"
		else
			echo "missing:$bad" >"$tmp/debbad"
			result FAIL "make deb: pmuser-dkms, libpmuser0, libpmuser-dev, pmuser-tools for $a" \
				"$tmp/debbad"
		fi
	done
else
	result FAIL "make deb builds for arm64 and armhf" "$tmp/deb"
fi

# disasm_check NAME CC OBJDUMP CFLAGS EXPECT_FN [PREFIX]: compile readers.c, disassemble each
# function (PREFIX0..PREFIX31, read_counter_ by default, and the cycle readers), and ask
# EXPECT_FN for the instruction that must appear in it.
disasm_check() {
	local name=$1 cc=$2 objdump=$3 cflags=$4 fn=$5 prefix=${6:-read_counter_} f want bad=0
	if ! $cc -std=gnu11 -O2 -Wall -Wextra -Werror $cflags -I"$PMUSER_TOP/uapi" \
		-I"$PMUSER_TOP/userlib" -c "$here/readers.c" -o "$tmp/$name.o" 2>"$tmp/cc"; then
		result FAIL "$name: readers.c compiles" "$tmp/cc"
		return
	fi
	$objdump -d --no-show-raw-insn "$tmp/$name.o" >"$tmp/$name.dis"
	for f in $(seq 0 31) cycles cycles_serial; do
		want=$($fn "$f")
		local fnname=$prefix$f
		case $f in cycles*) fnname=read_$f ;; esac
		awk -v f="<$fnname>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on' \
			"$tmp/$name.dis" >"$tmp/fn"
		if ! grep -Eq "$want" "$tmp/fn"; then
			echo "$fnname: expected /$want/" >>"$tmp/$name.bad"
			cat "$tmp/fn" >>"$tmp/$name.bad"
			bad=1
		fi
	done
	if [ $bad = 0 ]; then
		result OK "$name: every counter index reads its own register (disassembly)"
	else
		result FAIL "$name: every counter index reads its own register (disassembly)" \
			"$tmp/$name.bad"
	fi
}

want_a64() {
	case $1 in
	31 | cycles) echo 'mrs[[:space:]]+x[0-9]+, pmccntr_el0' ;;
	cycles_serial) echo 'isb' ;;
	*) echo "mrs[[:space:]]+x[0-9]+, pmevcntr$1_el0" ;;
	esac
}
# ARMv7: PMCCNTR is c9, c13, 0; event counters are selected (PMSELR c9, c12, 5) then read
# through PMXEVCNTR (c9, c13, 2).
want_v7() {
	case $1 in
	31 | cycles) echo 'mrc[[:space:]]+15, 0, r[0-9]+, cr9, cr13, \{0\}' ;;
	cycles_serial) echo 'isb' ;;
	*) echo 'mcr[[:space:]]+15, 0, r[0-9]+, cr9, cr12, \{5\}' ;;
	esac
}
# ARM1176: CCNT c15, c12, 1; PMN0 c15, c12, 2; PMN1 c15, c12, 3; no other event counters.
want_v6() {
	case $1 in
	31 | cycles) echo 'mrc[[:space:]]+15, 0, r[0-9]+, cr15, cr12, \{1\}' ;;
	cycles_serial) echo 'mcr[[:space:]]+15, 0, r[0-9]+, cr7, cr5, \{4\}' ;;
	0) echo 'mrc[[:space:]]+15, 0, r[0-9]+, cr15, cr12, \{2\}' ;;
	1) echo 'mrc[[:space:]]+15, 0, r[0-9]+, cr15, cr12, \{3\}' ;;
	*) echo 'mov[[:space:]]+r0, #0' ;;
	esac
}
disasm_check aarch64 aarch64-linux-gnu-gcc aarch64-linux-gnu-objdump "" want_a64
disasm_check armv7 arm-linux-gnueabihf-gcc arm-linux-gnueabihf-objdump "-marm" want_v7
# PMUv3 in AArch32: PMEVCNTR<n> is c14, c(8 + n / 8), n % 8.
want_v7v3() {
	case $1 in
	31 | cycles) echo 'mrc[[:space:]]+15, 0, r[0-9]+, cr9, cr13, \{0\}' ;;
	cycles_serial) echo 'isb' ;;
	*) echo "mrc[[:space:]]+15, 0, r[0-9]+, cr14, cr$((8 + $1 / 8)), \\{$(($1 % 8))\\}" ;;
	esac
}
disasm_check armv7-pmuv3 arm-linux-gnueabihf-gcc arm-linux-gnueabihf-objdump "-marm" want_v7v3 \
	read_pmuv3_
disasm_check armv6-1176 arm-linux-gnueabi-gcc arm-linux-gnueabi-objdump "-march=armv6 -marm" want_v6

# seq_check NAME OBJ FN WANT: between FN's first and second barrier, exactly the reads WANT
# names, in order (AArch64).
seq_check() {
	local name=$1 obj=$2 fn=$3 want=$4 got
	got=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$obj" |
		awk -v f="<$fn>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on' |
		awk '{ $1 = ""; sub(/^ /, ""); print }' |
		awk '/^isb/ { n++; print "isb"; if (n == 2) exit; next } n == 1 { print }' |
		sed 's/^mrs[[:space:]]*x[0-9]*, /mrs /' | paste -sd ' ')
	if [ "$got" = "$want" ]; then
		result OK "$name"
	else
		echo "$fn: got '$got', want '$want'" >"$tmp/seq"
		result FAIL "$name" "$tmp/seq"
	fi
}
a64cc="aarch64-linux-gnu-gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I$PMUSER_TOP/uapi -I$PMUSER_TOP/userlib"
if $a64cc -c "$here/readers.c" -o "$tmp/n.o" 2>"$tmp/cc" &&
	$a64cc -c "$PMUSER_TOP/userlib/pmuser_module_read.c" -o "$tmp/mr.o" 2>>"$tmp/cc" &&
	$a64cc -c "$PMUSER_TOP/userlib/pmuser_perf.c" -o "$tmp/pf.o" 2>>"$tmp/cc"; then
	seq_check "aarch64: pmuser_counter_read_n() of 3 constant counters is isb, 3 mrs, isb" \
		"$tmp/n.o" read_n3 "isb mrs pmccntr_el0 mrs pmevcntr0_el0 mrs pmevcntr1_el0 isb"
	seq_check "aarch64: a region's start reads cycles, event 0, 1 last to first, nothing else" \
		"$tmp/mr.o" start_c01 "isb mrs pmevcntr1_el0 mrs pmevcntr0_el0 mrs pmccntr_el0 isb"
	seq_check "aarch64: a region's stop reads cycles, event 0, 1 first to last, nothing else" \
		"$tmp/mr.o" stop_c01 "isb mrs pmccntr_el0 mrs pmevcntr0_el0 mrs pmevcntr1_el0 isb"
	seq_check "aarch64: the read of all counters of cycles, event 0, 1 reads them only" \
		"$tmp/mr.o" read_c01 "isb mrs pmccntr_el0 mrs pmevcntr0_el0 mrs pmevcntr1_el0 isb"
	seq_check "aarch64: the read of all counters of cycles, events 0 to 3 reads them only" \
		"$tmp/mr.o" read_c0123 \
		"isb mrs pmccntr_el0 mrs pmevcntr0_el0 mrs pmevcntr1_el0 mrs pmevcntr2_el0 mrs pmevcntr3_el0 isb"
	seq_check "aarch64: the read of all counters of events 0 to 2 reads them only" \
		"$tmp/mr.o" read_e012 "isb mrs pmevcntr0_el0 mrs pmevcntr1_el0 mrs pmevcntr2_el0 isb"
	# The read of all counters through the page, every check made: its instructions up to
	# the return that gives the values (the call into it adds the caller's branch, the
	# library's load and branch through the set's pointer).
	for f in read_c01:29 read_c0123:37 read_e0:21; do
		fn=${f%%:*} want=${f#*:}
		got=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$tmp/mr.o" |
			awk -v f="<$fn>:" '$2 == f { on = 1; next } on && /^$/ { exit }
				on { n++; if ($2 == "ret") { print n; exit } }')
		if [ "$got" = "$want" ]; then
			result OK "aarch64: $fn takes $want instructions up to its return"
		else
			echo "$fn: $got instructions up to ret, want $want" >"$tmp/seq"
			result FAIL "aarch64: $fn takes $want instructions up to its return" "$tmp/seq"
		fi
	done
	# The checks' chain: the record's word tested, then the CPU, the sequence and each
	# counter's reload check (32-bit event counters on w registers, 64-bit ones on x), every
	# failure leaving flags that the one branch to the general path takes.
	for f in "read_c01:w" "read_c01_x:x"; do
		fn=${f%%:*} r=${f#*:}
		want="tst x3, #0xffffffff00000001; ccmp w8, w4, #0x0, eq; ccmp w9, w3, #0x0, eq;"
		want+=" ccmn x10, #0x1, #0x0, eq; ccmn ${r}11, #0x1, #0x0, lt;"
		want+=" ccmn ${r}12, #0x1, #0x0, lt; b.ge"
		got=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$tmp/mr.o" |
			awk -v f="<$fn>:" '$2 == f { on = 1; next } on && /^$/ { exit } on' |
			awk '{ $1 = ""; sub(/^ +/, ""); sub(/[ \t]*\/\/.*/, "") }
				/^(tst|ccmp|ccmn)/ { gsub(/[ \t]+/, " "); print }
				/^b\.ge/ { print "b.ge"; exit }' | paste -sd ';' | sed 's/;/; /g')
		if [ "$got" = "$want" ]; then
			result OK "aarch64: $fn chains its checks into one branch"
		else
			printf '%s: got  %s\nwant %s\n' "$fn" "$got" "$want" >"$tmp/seq"
			result FAIL "aarch64: $fn chains its checks into one branch" "$tmp/seq"
		fi
	done
	seq_check "aarch64: a library region's stop reads cycles, event 0, 1, nothing else" \
		"$tmp/mr.o" region_stop_c01 \
		"isb mrs pmccntr_el0 mrs pmevcntr0_el0 mrs pmevcntr1_el0 isb"
	seq_check "aarch64: perf-mmap's reader of cycles and events on counters 2, 3 reads them" \
		"$tmp/pf.o" mmap_run_1_2_3 "isb mrs pmccntr_el0 mrs pmevcntr2_el0 mrs pmevcntr3_el0 isb"
	seq_check "aarch64: perf-mmap's reader of events on counters 3 to 6 reads them" \
		"$tmp/pf.o" mmap_run_0_3_4 \
		"isb mrs pmevcntr3_el0 mrs pmevcntr4_el0 mrs pmevcntr5_el0 mrs pmevcntr6_el0 isb"
	# perf-mmap's general read: entry k of its table of equal entries reads counter k.
	want="$(seq -f 'pmevcntr%g_el0' 0 30 | paste -sd ' ') pmccntr_el0"
	got=$(aarch64-linux-gnu-objdump -d --no-show-raw-insn "$tmp/pf.o" |
		awk '$2 == "<perf_read_raw>:" { on = 1; next } /^$/ { on = 0 } on' |
		awk '{ $1 = ""; sub(/^ /, ""); print }' |
		awk 'prev == "bti j" && /^mrs/ { sub(/^mrs[[:space:]]*x[0-9]*, /, ""); print } { prev = $0 }' |
		head -n 32 | paste -sd ' ')
	if [ "$got" = "$want" ]; then
		result OK "aarch64: perf-mmap's uniform table reads counter k at entry k"
	else
		echo "got '$got'" >"$tmp/seq"
		result FAIL "aarch64: perf-mmap's uniform table reads counter k at entry k" "$tmp/seq"
	fi
else
	result FAIL "aarch64: readers.c, pmuser_module_read.c and pmuser_perf.c compile" "$tmp/cc"
fi

# The version is written once, in module/pmuser_drv.h; every other place that names it agrees.
ver=$(make -s -C "$PMUSER_TOP" print-version)
{
	[[ $ver =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || echo "make print-version: '$ver'"
	head -n1 "$PMUSER_TOP/packaging/debian/changelog" | grep -q "^pmuser ($ver-[0-9]*) " ||
		echo "packaging/debian/changelog: $(head -n1 "$PMUSER_TOP/packaging/debian/changelog")"
	for f in "$PMUSER_TOP"/man/*.[37]; do
		grep -q '^\.so ' "$f" && continue
		grep -q "^\.TH .* \"pmuser $ver\" " "$f" || echo "$f: $(grep '^\.TH' "$f")"
	done
	grep -o 'pmuser-[0-9][0-9.]*[0-9]' "$PMUSER_TOP/README.md" | grep -vx "pmuser-$ver" |
		sed 's/^/README.md: /'
} >"$tmp/ver"
if [ -n "$ver" ] && [ ! -s "$tmp/ver" ]; then
	result OK "the version $ver is the same wherever it is written"
else
	result FAIL "the version $ver is the same wherever it is written" "$tmp/ver"
fi

# Namesakes. What module/ defines is named pmuser_drv_ (PMUSER_DRV_ for macros), so none of its
# names is one of the library's; the names both sides use are the uapi header's. A name is a
# pmuser_ or PMUSER_ word outside comments and strings: a tag after struct, enum or union, an
# ordinary name otherwise (the uapi's struct pmuser_page_cpu frees neither side's function of
# that name).
pmuser_names() { # FILE...: "NAME tag|name FILE" for each name and file it is in
	perl -0777 -ne 's{/\*.*?\*/}{ }gs; s{//[^\n]*}{}g; s{"(?:\\.|[^"\\\n])*"}{""}g;
		my %seen;
		while (/(\b(?:struct|enum|union)\s+)?\b((?:pmuser|PMUSER)_\w*)/g) {
			my $k = "$2 " . (defined $1 ? "tag" : "name");
			print "$k $ARGV\n" unless $seen{$k}++;
		}' "$@" | sed "s| $PMUSER_TOP/| |"
}
pmuser_names "$PMUSER_TOP"/uapi/linux/*.h >"$tmp/names-uapi"
for part in module userlib; do
	mapfile -d '' srcs < <(find "$PMUSER_TOP/$part" -name '*.[ch]' -print0 | sort -z)
	pmuser_names "${srcs[@]}" |
		awk 'NR == FNR { uapi[$1 " " $2] = 1; next } !uapi[$1 " " $2]' "$tmp/names-uapi" - |
		sort >"$tmp/names-$part"
done
# NAME: module/'s files and userlib/'s, each "FILE (tag)" where NAME is a tag there.
join "$tmp/names-module" "$tmp/names-userlib" | awk '{
	m = $3 ($2 == "tag" ? " (tag)" : ""); u = $5 ($4 == "tag" ? " (tag)" : "")
	if (!seen[$1, m]++) mod[$1] = mod[$1] (mod[$1] == "" ? "" : ", ") m
	if (!seen[$1, u]++) lib[$1] = lib[$1] (lib[$1] == "" ? "" : ", ") u
} END { for (k in mod) print k ": " mod[k] "; " lib[k] }' | sort >"$tmp/names"
if [ -s "$tmp/names-module" ] && [ -s "$tmp/names-userlib" ] && [ ! -s "$tmp/names" ]; then
	result OK "names: module/ and userlib/ share no name but the uapi header's"
else
	result FAIL "names: module/ and userlib/ share no name but the uapi header's" "$tmp/names"
fi
awk '$1 !~ /^(pmuser_drv_|PMUSER_DRV_|PMUSER_VERSION_(MAJOR|MINOR|PATCH)$)/ {
	files[$1] = files[$1] " " $3 } END { for (k in files) print k ":" files[k] }' \
	"$tmp/names-module" | sort >"$tmp/names"
if [ -s "$tmp/names-module" ] && [ ! -s "$tmp/names" ]; then
	result OK "names: module/'s own names start pmuser_drv_ or PMUSER_DRV_"
else
	result FAIL "names: module/'s own names start pmuser_drv_ or PMUSER_DRV_" "$tmp/names"
fi
# <linux/pmuser.h> and <pmuser.h> are the only headers of that name (the module's is
# pmuser_drv.h), among the files git has or would add.
git -C "$PMUSER_TOP" ls-files --cached --others --exclude-standard |
	grep -E '(^|/)pmuser\.h$' | grep -vxE 'uapi/linux/pmuser\.h|userlib/pmuser\.h' >"$tmp/names"
if [ "${PIPESTATUS[0]}" = 0 ] && [ ! -s "$tmp/names" ]; then
	result OK "names: only uapi/linux/pmuser.h and userlib/pmuser.h are called pmuser.h"
else
	result FAIL "names: only uapi/linux/pmuser.h and userlib/pmuser.h are called pmuser.h" \
		"$tmp/names"
fi

# The emulated targets are listed once, as PMUSER_TARGETS in emu/targets.sh: the Makefile's
# check-TARGET and build-TARGET are those, in that order.
mk=$(make -s -C "$PMUSER_TOP" --no-print-directory \
	--eval 'pmuser-targets: ; @echo $(TARGETS)' pmuser-targets 2>&1)
if [ -n "$PMUSER_TARGETS" ] && [ "$mk" = "$PMUSER_TARGETS" ]; then
	result OK "the Makefile's targets are emu/targets.sh's PMUSER_TARGETS"
else
	printf 'Makefile:        %s\nemu/targets.sh:  %s\n' "$mk" "$PMUSER_TARGETS" >"$tmp/tg"
	result FAIL "the Makefile's targets are emu/targets.sh's PMUSER_TARGETS" "$tmp/tg"
fi

# ARMv7 (armhf): pmuser_module_read.c as the armhf targets build it (Thumb-2, the compiler's
# default), and in ARM state too. v7_pass FN: FN's instructions from its first barrier to the
# last before its first branch or return, PMU accesses named: pmccntr, pmevcntrN (PMUv3's
# PMEVCNTR<n>), pmselr=N (a PMUv2 selection of counter N, set by a mov; a register's name
# where no mov set it: read_*'s r0 is the record's word tested zero), pmxevcntr and pmselr?
# (its read and the selection's read back); any other instruction by its mnemonic.
v7_pass() {
	arm-linux-gnueabihf-objdump -d --no-show-raw-insn "$tmp/v7.o" |
		awk -v f="<$1>:" '$2 == f { on = 1; next } /^$/ { on = 0 } on' |
		awk '{ $1 = ""; sub(/^ +/, ""); ins = $0 }
		first && (ins ~ /^(b|bne|beq|cbnz|cbz|bx)(\.[nw])?[ \t]/ || ins ~ /pc\}$/) { exit }
		ins ~ /^mov(s|\.w)?[ \t]+[a-z0-9]+, #[0-9]+$/ { split(ins, f, /[ \t,#]+/); val[f[2]] = f[3] }
		{
			out = ins
			if (ins ~ /^isb/) out = "isb"
			else if (ins ~ /^mrc.*cr9, cr13, \{0\}/) out = "pmccntr"
			else if (ins ~ /^mrc.*cr9, cr13, \{2\}/) out = "pmxevcntr"
			else if (ins ~ /^mrc.*cr9, cr12, \{5\}/) out = "pmselr?"
			else if (ins ~ /^mrc.*cr14, cr8, \{[0-7]\}/) {
				match(ins, /\{[0-7]\}/); out = "pmevcntr" substr(ins, RSTART + 1, 1)
			} else if (ins ~ /^mcr.*cr9, cr12, \{5\}/) {
				split(ins, f, /[ \t,]+/); out = "pmselr=" (f[4] in val ? val[f[4]] : f[4])
			} else sub(/[ \t].*/, "", out)
			seq[++n] = out
			if (out == "isb") { if (!first) first = n; last = n }
		}
		END { for (i = first; first && i <= last; i++) printf "%s%s", seq[i], i < last ? " " : "\n" }'
}
v7cc="arm-linux-gnueabihf-gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I$PMUSER_TOP/uapi -I$PMUSER_TOP/userlib"
if $v7cc -c "$PMUSER_TOP/userlib/pmuser_module_read.c" -o "$tmp/v7.o" 2>"$tmp/cc" &&
	$v7cc -marm -c "$PMUSER_TOP/userlib/pmuser_module_read.c" -o "$tmp/v7a.o" 2>>"$tmp/cc"; then
	result OK "armhf: pmuser_module_read.c builds in Thumb-2 and in ARM state"
	while IFS='|' read -r fn want what; do
		got=$(v7_pass "$fn")
		if [ "$got" = "$want" ]; then
			result OK "armhf: $what"
		else
			echo "$fn: got '$got', want '$want'" >"$tmp/seq"
			result FAIL "armhf: $what" "$tmp/seq"
		fi
	done <<'PASSES'
read_c01|isb pmccntr pmselr=r0 isb pmxevcntr pmselr? pmselr=1 isb pmxevcntr pmselr? isb|PMUv2's read of all counters of cycles, event 0, 1 reads them only
start_c01|isb pmselr=1 isb pmxevcntr pmselr? pmselr=0 isb pmxevcntr pmselr? pmccntr isb|PMUv2's region start reads event 1, 0, cycles, nothing else
region_stop_c01|isb pmccntr pmselr=0 isb pmxevcntr pmselr? pmselr=1 isb pmxevcntr pmselr? isb|PMUv2's region stop reads cycles, event 0, 1, nothing else
raw_c01|isb pmccntr pmselr=0 isb pmxevcntr pmselr? pmselr=1 isb pmxevcntr pmselr? isb|PMUv2's raw read of cycles, event 0, 1 reads them only
read_e012|isb pmselr=r0 isb pmxevcntr pmselr? pmselr=1 isb pmxevcntr pmselr? eor.w orr.w mov.w pmselr=2 isb pmxevcntr pmselr? isb|PMUv2's read of all counters of events 0 to 2 reads and checks them
read_c01_v3|isb pmccntr pmevcntr0 pmevcntr1 isb|PMUv3's read of all counters of cycles, event 0, 1 reads them only
start_c01_v3|isb pmevcntr1 pmevcntr0 pmccntr isb|PMUv3's region start reads event 1, 0, cycles, nothing else
region_stop_c01_v3|isb pmccntr pmevcntr0 pmevcntr1 isb|PMUv3's region stop reads cycles, event 0, 1, nothing else
raw_c01_v3|isb pmccntr pmevcntr0 pmevcntr1 isb|PMUv3's raw read of cycles, event 0, 1 reads them only
PASSES
	# Instructions up to the return (a region stop's: to its branch into pmuser__region_end),
	# every check made; the read of all counters is called through the set's pointer, as on
	# AArch64. A library region's bias is the start's instructions after its first read and
	# the stop's before its last.
	for f in read_c01:42 read_c01_v3:33 read_c:25 read_e0:28 read_e012:48 read_e012_v3:33 \
		start_c01:19 start_c01_v3:11 region_stop_c01:22 region_stop_c01_v3:14 raw_c01:20 \
		raw_c01_v3:10; do
		fn=${f%%:*} want=${f#*:}
		got=$(arm-linux-gnueabihf-objdump -d --no-show-raw-insn "$tmp/v7.o" |
			awk -v f="<$fn>:" '$2 == f { on = 1; next } on && /^$/ { exit }
				on { n++; if ($2 == "bx" || $NF ~ /pc}$/ || /<pmuser__region_end>/) {
					print n; exit } }')
		if [ "$got" = "$want" ]; then
			result OK "armhf: $fn takes $want instructions up to its return"
		else
			echo "$fn: $got instructions up to its return, want $want" >"$tmp/seq"
			result FAIL "armhf: $fn takes $want instructions up to its return" "$tmp/seq"
		fi
	done
else
	result FAIL "armhf: pmuser_module_read.c builds in Thumb-2 and in ARM state" "$tmp/cc"
fi

# <pmuser.h> is ISO C11 for every instruction set of its fast path: pedantic.c, the header
# alone with each inline function called once (-O0 compiles only those called), builds
# without a warning under -std=c11 -pedantic -Wall -Wextra, at -O0 and -O2, for AArch64,
# ARMv7 in ARM and in Thumb-2 state, ARMv6 with the armel target's flags, and the host (no
# fast path). The compiler's -aux-info names the header's inline functions: pedantic.c calls
# every one this instruction set has.
pmuser_target armel-6.1
: >"$tmp/ped"
for cc in aarch64-linux-gnu-gcc "arm-linux-gnueabihf-gcc -marm" "arm-linux-gnueabihf-gcc -mthumb" \
	"arm-linux-gnueabi-gcc $T_CFLAGS" gcc; do
	for opt in -O0 -O2; do
		if ! $cc $opt -std=c11 -pedantic -Wall -Wextra -Werror -I"$PMUSER_TOP/uapi" \
			-I"$PMUSER_TOP/userlib" -aux-info "$tmp/ped-aux" -c "$here/pedantic.c" \
			-o "$tmp/ped.o" >"$tmp/ped1" 2>&1; then
			echo "$cc $opt:" >>"$tmp/ped"
			grep -E 'error|warning' "$tmp/ped1" | sort | uniq -c | sort -rn >>"$tmp/ped"
			continue
		fi
		awk '(index($2, "userlib/pmuser.h:") || index($2, "userlib/pmuser/fast.h:")) &&
			$2 ~ /F$/ && $4 == "static" {
			print substr($0, 1, index($0, " (") - 1) }' "$tmp/ped-aux" |
			awk '{ sub(/.*[ *]/, ""); if ($0 !~ /^pmuser__/) print }' |
			while read -r f; do
				grep -q "\<$f(" "$here/pedantic.c" ||
					echo "$cc $opt: pedantic.c does not call $f()" >>"$tmp/ped"
			done
	done
done
what="<pmuser.h> builds under -std=c11 -pedantic -Wall -Wextra -Werror at -O0 and -O2"
if [ ! -s "$tmp/ped" ]; then
	result OK "$what: aarch64, armhf in ARM and Thumb-2 state, armel, the host"
else
	result FAIL "$what" "$tmp/ped"
fi

# The shared library's exports are <pmuser.h>'s API, both ways, on a 64-bit and a 32-bit build:
# every function the header declares (its static inline functions are not symbols), and of
# the library's internal pmuser__ functions only those the header's inline functions call.
# The compiler names both: -aux-info lists the declarations ("NC") and definitions ("NF") of
# pmuser.h and of pmuser/fast.h, which it includes, and an object that keeps every inline
# function needs exactly their callees. pmuser.h declares the whole API: every function
# pmuser/fast.h names outside its pmuser__ helpers is one pmuser.h declares static inline
# (the library's -Wall -Werror build refuses such a declaration without its definition).
: >"$tmp/inline-all"
: >"$tmp/api-all"
for build in aarch64:aarch64-linux-gnu- armhf:arm-linux-gnueabihf-; do
	arch=${build%%:*} cross=${build#*:}
	if ! make -s -C "$PMUSER_TOP" OUT="$tmp/shlib-$arch" CROSS_COMPILE="$cross" CFLAGS='-O2' \
		shlib >"$tmp/so" 2>&1 ||
		! echo '#include <pmuser.h>' | "${cross}gcc" -std=gnu11 -O2 -D_GNU_SOURCE \
			-I"$PMUSER_TOP/uapi" -I"$PMUSER_TOP/userlib" -fkeep-inline-functions \
			-aux-info "$tmp/aux-$arch" -x c -c - -o "$tmp/inline-$arch.o" >>"$tmp/so" 2>&1; then
		result FAIL "$arch: libpmuser.so exports <pmuser.h>'s API, nothing else" "$tmp/so"
		continue
	fi
	# "/* DIR/userlib/pmuser.h:LINE:NC */ extern int name (args);": kind C or F, the name, its
	# storage class (extern or static) and the header (pmuser.h or pmuser/fast.h).
	awk 'index($2, "userlib/pmuser.h:") || index($2, "userlib/pmuser/fast.h:") {
		kind = substr($2, length($2)); rest = $0
		sub(/^\/\* [^*]*\*\/ /, "", rest)
		n = split(substr(rest, 1, index(rest, " (") - 1), w, /[ *]+/)
		print kind, w[n], w[1], (index($2, "userlib/pmuser/") ? "fast.h" : "pmuser.h")
	}' "$tmp/aux-$arch" >"$tmp/decl-$arch"
	awk '$1 == "F" && $2 !~ /^pmuser__/ { print $2 }' "$tmp/decl-$arch" >>"$tmp/inline-all"
	awk '$1 == "C" && $3 == "static" && $4 == "pmuser.h" { print $2 }' "$tmp/decl-$arch" |
		sort -u >"$tmp/inline-decl-$arch"
	awk '$4 == "fast.h" && $2 !~ /^pmuser__/ { print $2 }' "$tmp/decl-$arch" |
		sort -u >"$tmp/fast-$arch"
	{
		awk '$1 == "C" && $3 == "extern" && $2 !~ /^pmuser__/ { print $2 }' "$tmp/decl-$arch"
		"${cross}nm" -u "$tmp/inline-$arch.o" | awk '$2 ~ /^pmuser/ { print $2 }'
	} | sort -u >"$tmp/want-$arch"
	"${cross}nm" -D --defined-only "$tmp/shlib-$arch"/libpmuser.so.* |
		awk '$2 != "A" { sub(/@.*/, "", $3); print $2, $3 }' | sort -k2 >"$tmp/got-$arch"
	{
		awk '$1 == "T" { print $2 }' "$tmp/got-$arch"
		cat "$tmp/want-$arch"
	} | grep -v '^pmuser__' >>"$tmp/api-all"
	{
		awk '$1 != "T" { print "exported, not a function: " $2 }' "$tmp/got-$arch"
		awk '{ print $2 }' "$tmp/got-$arch" | comm -23 - "$tmp/want-$arch" |
			sed 's/^/exported, neither declared in pmuser.h nor called by its inline functions: /'
		awk '{ print $2 }' "$tmp/got-$arch" | comm -13 - "$tmp/want-$arch" |
			sed 's/^/declared in pmuser.h (or called by its inline functions), not exported: /'
		comm -23 "$tmp/fast-$arch" "$tmp/inline-decl-$arch" |
			sed 's/^/in pmuser\/fast.h, not declared static inline in pmuser.h: /'
	} >"$tmp/api-$arch"
	nr=$(wc -l <"$tmp/want-$arch") ni=$(wc -l <"$tmp/inline-decl-$arch")
	if [ "$nr" -gt 0 ] && [ "$ni" -gt 0 ] && [ ! -s "$tmp/api-$arch" ]; then
		what="$arch: libpmuser.so exports <pmuser.h>'s $nr functions, nothing else"
		result OK "$what; pmuser/fast.h defines its $ni inline ones"
	else
		result FAIL "$arch: libpmuser.so exports <pmuser.h>'s API, nothing else" "$tmp/api-$arch"
	fi
done

# Every function <pmuser.h> declares or libpmuser.so exports, and every inline one of the
# header (the pmuser__ helpers aside), has its man page, man/NAME.3: a page whose NAME section
# names it, or a ".so man3/PAGE.3" link to one.
: >"$tmp/manbad"
for f in $(sort -u "$tmp/api-all" "$tmp/inline-all"); do
	page=$PMUSER_TOP/man/$f.3
	if [ ! -f "$page" ]; then
		echo "$f: no man/$f.3" >>"$tmp/manbad"
		continue
	fi
	target=$(sed -n '1s|^\.so man3/\(.*\)$|\1|p' "$page")
	if [ -n "$target" ]; then
		page=$PMUSER_TOP/man/$target
		if [ ! -f "$page" ] || head -n1 "$page" | grep -q '^\.so'; then
			echo "$f: man/$f.3 links to man3/$target, which is not a page" >>"$tmp/manbad"
			continue
		fi
	fi
	if ! awk '/^\.SH/ { on = ($0 ~ /^\.SH "?NAME"?$/); next } on { sub(/\\-.*/, ""); print }' \
		"$page" | tr -s ', ' '\n\n' | grep -qx "$f"; then
		echo "$f: the NAME section of man/${page##*/} does not name it" >>"$tmp/manbad"
	fi
done
if [ -s "$tmp/api-all" ] && [ ! -s "$tmp/manbad" ]; then
	result OK "man: every function of <pmuser.h>, inline or exported, has its page ($(sort -u \
		"$tmp/api-all" "$tmp/inline-all" | wc -l) names)"
else
	result FAIL "man: every function of <pmuser.h>, inline or exported, has its page" \
		"$tmp/manbad"
fi

# Every page renders without a groff warning, links through the man3/ paths they name.
mkdir -p "$tmp/mantree"
ln -sfn "$PMUSER_TOP/man" "$tmp/mantree/man3"
ln -sfn "$PMUSER_TOP/man" "$tmp/mantree/man7"
: >"$tmp/groff"
for page in "$PMUSER_TOP"/man/*.[37]; do
	sec=${page##*.}
	(cd "$tmp/mantree" && groff -man -Tutf8 -ww -z "man$sec/${page##*/}") >"$tmp/g1" 2>&1 ||
		echo "groff failed" >>"$tmp/g1"
	[ -s "$tmp/g1" ] && sed "s|^|${page##*/}: |" "$tmp/g1" >>"$tmp/groff"
done
if [ ! -s "$tmp/groff" ]; then
	result OK "man: every section 3 and 7 page renders without groff warnings"
else
	result FAIL "man: every section 3 and 7 page renders without groff warnings" "$tmp/groff"
fi

# The ioctl magic is one Linux's registry of ioctl numbers gives to nobody.
reg=$PMUSER_CACHE/ksrc/Documentation/userspace-api/ioctl/ioctl-number.rst
magic=$(sed -n 's/^#define PMUSER_IOC_MAGIC[[:space:]]*0x\([0-9A-Fa-f]*\).*/\1/p' \
	"$PMUSER_TOP/uapi/linux/pmuser.h")
if [ -n "$magic" ] && [ -s "$reg" ] && grep -q '^0xB6 ' "$reg" &&
	! grep -iE "^0x$magic[[:space:]]" "$reg" >"$tmp/magic"; then
	result OK "ioctl magic 0x$magic is free in Linux's ioctl-number.rst"
else
	echo "magic '0x$magic'; registry $reg; its entries for it:" >>"$tmp/magic"
	result FAIL "ioctl magic 0x$magic is free in Linux's ioctl-number.rst" "$tmp/magic"
fi

# One clock reading in nanoseconds for the library, the tools and the tests: a function or
# macro named now_ns (or ending so, as a library-internal copy would) is defined once, in
# userlib/pmuser_now.h. A definition starts at column 0 and is not a declaration's ';'.
grep -rnE --include='*.[ch]' --exclude-dir=.git --exclude-dir=build \
	-e '^[A-Za-z_].*now_ns[[:space:]]*\(' -e '^#[[:space:]]*define[[:space:]]+[A-Za-z0-9_]*now_ns' \
	"$PMUSER_TOP" | grep -v ';[[:space:]]*$' | sed "s|^$PMUSER_TOP/||" >"$tmp/now"
if [ "$(wc -l <"$tmp/now")" = 1 ] && grep -q '^userlib/pmuser_now.h:' "$tmp/now"; then
	result OK "now_ns() is defined once, in userlib/pmuser_now.h"
else
	result FAIL "now_ns() is defined once, in userlib/pmuser_now.h" "$tmp/now"
fi

# pmu-hello is the program to copy: it includes <pmuser.h> and system headers, nothing of the
# tree's own (tests/host/test_install.c builds it against an installed pmuser).
: >"$tmp/hello"
while read -r inc; do
	name=${inc#*[<\"]} name=${name%[>\"]*}
	case $inc in
	*'<pmuser.h>'*) ;;
	*'"'*) echo "quoted: $inc" >>"$tmp/hello" ;;
	*) for d in userlib uapi samples samples/common tests; do
		[ -e "$PMUSER_TOP/$d/$name" ] && echo "the tree's own: $inc" >>"$tmp/hello"
	   done ;;
	esac
done < <(grep -E '^[[:space:]]*#[[:space:]]*include' "$PMUSER_TOP/samples/pmu-hello.c")
if grep -qE '^#include <pmuser.h>' "$PMUSER_TOP/samples/pmu-hello.c" && [ ! -s "$tmp/hello" ]; then
	result OK "pmu-hello includes <pmuser.h> and system headers only"
else
	result FAIL "pmu-hello includes <pmuser.h> and system headers only" "$tmp/hello"
fi

# Whether a window of raw reads counts is decided once, by the library's pmuser_page_delta():
# no tool under samples/ calls the parts of its rule itself (pmuser_page_unchanged(),
# pmuser_page_raw_usable(), pmuser_page_mask()), and the tools that read raw windows call it.
grep -rnE --include='*.[ch]' '\<pmuser_page_(unchanged|raw_usable|mask)[[:space:]]*\(' \
	"$PMUSER_TOP/samples" | sed "s|^$PMUSER_TOP/||" >"$tmp/window"
for f in samples/pmu-hello.c samples/pmu-overhead.c samples/lat/lat_timer.c; do
	grep -qE '\<pmuser_page_delta[[:space:]]*\(' "$PMUSER_TOP/$f" ||
		echo "$f: does not call pmuser_page_delta()" >>"$tmp/window"
done
if [ ! -s "$tmp/window" ]; then
	result OK "samples/ decide raw windows with pmuser_page_delta() alone"
else
	result FAIL "samples/ decide raw windows with pmuser_page_delta() alone" "$tmp/window"
fi

# One module client: the tools count through the library's counter sets (pmuser_counters_*,
# whose open and reconfiguration hold, grant and map), never through the device's holding
# calls themselves, the library's wrappers or the ioctls they wrap. Three tools are about
# those calls and keep them: pmu-hello shows the ABI step by step, pmu-scale times the
# ioctls, pmu-overhead times grants and what they inherit.
grep -rlE --include='*.[ch]' \
	'\<pmuser_(device_(configure|reset|release|grant|revoke)|page_map)[[:space:]]*\(|\<PMUSER_IOC_(CONFIGURE|RESET|RELEASE|GRANT|REVOKE)\>' \
	"$PMUSER_TOP/samples" | sed "s|^$PMUSER_TOP/||" | sort |
	grep -vxE 'samples/(pmu-hello|pmu-scale|pmu-overhead)\.c' >"$tmp/client"
sed 's/$/: holds counters through the device itself, not a pmuser_counters set/' \
	"$tmp/client" >"$tmp/client.why"
if [ ! -s "$tmp/client.why" ]; then
	result OK "samples/ hold counters through the library's counter sets alone"
else
	result FAIL "samples/ hold counters through the library's counter sets alone" \
		"$tmp/client.why"
fi

# The layout rules: no include or call cycles between files, shared tool code and functions
# within their bounds (layout.py says which).
python3 "$here/layout.py" "$PMUSER_TOP" >"$tmp/layout" 2>&1
lay=$?
while IFS= read -r line; do
	case $line in
	"ok "*) result OK "layout: ${line#ok * }" ;;
	"not ok "*) result FAIL "layout: ${line#not ok * }" "$tmp/layout" ;;
	"# "*) echo "$line" ;;
	esac
done <"$tmp/layout"
if [ "$lay" != 0 ] && ! grep -q '^not ok ' "$tmp/layout"; then
	result FAIL "layout: layout.py runs" "$tmp/layout"
fi

bash "$here/../fuzz/run.sh" "${PMUSER_FUZZ_SECONDS:-20}" |
	awk -v n="$n" '/^(not )?ok 1 / { n++; sub(/ok 1 /, "ok " n " ") } { print }'
[ "${PIPESTATUS[0]}" = 0 ] || status=1
exit $status
