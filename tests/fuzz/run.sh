#!/bin/bash
# Builds the event-spec fuzzer (libFuzzer + ASan + UBSan) and runs it for $1 seconds (default 20).
# Prints one TAP line; exits non-zero if it does not build or finds a crash.
# usage: tests/fuzz/run.sh [SECONDS]
set -u
secs=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/fuzz
name=fuzz_evspec

fail() {
	echo "# $name: $1"
	[ -f "$out/log" ] && tail -n 40 "$out/log" | sed 's/^/# /'
	echo "not ok 1 $name"
	exit 1
}

case $secs in
'' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac

command -v clang >/dev/null || fail "clang is missing (emu/setup.sh --host-only installs it)"

mkdir -p "$out/corpus"
rm -f "$out/log"
clang -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$top/uapi" -I"$top/userlib" -o "$out/$name" \
	"$here/fuzz_evspec.c" "$top/userlib/pmuser_events.c" "$top/userlib/pmuser_evspec.c" \
	>"$out/log" 2>&1 || fail "build failed"

# Seeds: byte 0 picks the core, byte 1 the limits (see fuzz_evspec.c), then the spec.
if [ -z "$(ls -A "$out/corpus")" ]; then
	i=0
	for spec in 'inst_retired,cpu_cycles:u,0x11,l1d_cache_refill:k,r1b' \
		'l1d_cache_refill_rd:uk,0x4004:k,R1B' 'instr_exec,dcache_miss:ku' \
		'0x10000' 'a,,b' 'cpu_cycles:uu' '17'; do
		printf '\002\377%s' "$spec" >"$out/corpus/seed$i"
		i=$((i + 1))
	done
fi
printf '"0x"\n"r"\n":u"\n":k"\n":uk"\n","\n"inst_retired"\n"cpu_cycles"\n"l1d_cache_refill_rd"\n' \
	>"$out/$name.dict"

(cd "$out" && "./$name" -max_total_time="$secs" -timeout=10 -dict="$name.dict" \
	-artifact_prefix="$out/" -print_final_stats=1 corpus) >"$out/log" 2>&1 ||
	fail "crash (reproducer in $out/crash-* or $out/timeout-*)"
grep -m1 '^stat::number_of_executed_units' "$out/log" | sed 's/^/# /'
echo "ok 1 $name"
