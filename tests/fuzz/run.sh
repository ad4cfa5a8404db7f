#!/bin/bash
# Builds the parser fuzzers (libFuzzer + ASan + UBSan: the event-spec parser and pmu-sweep's CSV
# reader) and runs each for $1 seconds (default 20). Prints one TAP line per fuzzer; exits
# non-zero if one does not build or finds a crash.
# usage: tests/fuzz/run.sh [SECONDS]
set -u
secs=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
status=0
case ${1:-20} in
'' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;;
esac
command -v clang >/dev/null || { echo "not ok 1 fuzzers: clang is missing (emu/setup.sh --host-only installs it)"; exit 1; }

# fuzz NAME SEEDS_FUNCTION DICT SOURCE...: builds and runs one fuzzer in a subshell.
fuzz() (
	name=$1 seeds=$2 dict=$3
	shift 3
	out=$top/build/fuzz/$name
	fail() {
		echo "# $name: $1"
		[ -f "$out/log" ] && tail -n 40 "$out/log" | sed 's/^/# /'
		echo "not ok 1 $name"
		exit 1
	}
	mkdir -p "$out/corpus"
	rm -f "$out/log"
	clang -std=gnu11 -g -O1 -Wall -Wextra -Werror -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=undefined -I"$top/uapi" -I"$top/userlib" \
		-I"$top/samples/common" -I"$top/samples/sweep" -o "$out/$name" "$@" -lm >"$out/log" 2>&1 ||
		fail "build failed"
	[ -z "$(ls -A "$out/corpus")" ] && "$seeds" "$out/corpus"
	printf '%s\n' "$dict" >"$out/$name.dict"
	(cd "$out" && "./$name" -max_total_time="$secs" -timeout=10 -dict="$name.dict" \
		-artifact_prefix="$out/" -print_final_stats=1 corpus) >"$out/log" 2>&1 ||
		fail "crash (reproducer in $out/crash-* or $out/timeout-*)"
	grep -m1 '^stat::number_of_executed_units' "$out/log" | sed 's/^/# /'
	echo "ok 1 $name"
)

# Event specs: byte 0 picks the core, byte 1 the limits (see fuzz_evspec.c), then the spec.
evspec_seeds() {
	local i=0 spec
	for spec in 'inst_retired,cpu_cycles:u,0x11,l1d_cache_refill:k,r1b' \
		'l1d_cache_refill_rd:uk,0x4004:k,R1B' 'instr_exec,dcache_miss:ku' \
		'0x10000' 'a,,b' 'cpu_cycles:uu' '17' 'instructions:u,cycles,stalled-cycles-backend' \
		'armv8_pmuv3_0/inst_retired/uk,armv8_cortex_a72/event=0x8/:k' 'a/event=1,b=2/' \
		'L1-dcache-load-misses:k,l1d-misses,LLC-stores,iTLB-prefetches,dTLB--x'; do
		printf '\002\377%s' "$spec" >"$1/seed$i"
		i=$((i + 1))
	done
}

sweepcsv_seeds() {
	cp "$top"/tests/host/data/*.csv "$1/" 2>/dev/null
	printf '# pmu-sweep v1 unit=ns\nsize_bytes,latency\n1024,1\n2048,1\n4096,3\n' >"$1/small.csv"
}

fuzz fuzz_evspec evspec_seeds '"0x"
"r"
":u"
":k"
":uk"
","
"inst_retired"
"cpu_cycles"
"l1d_cache_refill_rd"
"instructions"
"branch-misses"
"/"
"armv8_pmuv3_0/"
"event="
"L1-dcache"
"-load"
"-misses"
"-speculative-read"' \
	"$here/fuzz_evspec.c" "$top/userlib/pmuser_events.c" "$top/userlib/pmuser_evspec.c" \
	"$top/userlib/pmuser_perfnames.c" ||
	status=1
fuzz fuzz_sweepcsv sweepcsv_seeds '"# pmu-sweep v1 unit=cycles\x0A"
"# pmu-sweep v1 unit=ns\x0A"
"size_bytes,latency\x0A"
","
"\x0A"
"#"
"e+308"
"nan"
"0x"' \
	"$here/fuzz_sweepcsv.c" "$top/samples/sweep/sweepcsv.c" "$top/samples/sweep/tiers.c" ||
	status=1
exit $status
