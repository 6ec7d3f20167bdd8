#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Test jitstat on a fake debugfs: the x86_64 demo's report after loading
# (1000 BPF programs, 100 kprobes, 20 ftrace instances), then broken trees.
#
# Usage: jitstat-selftest.sh [path/to/jitstat]

JITSTAT=${1:-./jitstat}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
n=0

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		fails=$((fails + 1))
	fi
}

# run ARGS...: stdout to $T/out, stderr to $T/err, status to $rc
run() {
	"$JITSTAT" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

D=$T/debugfs/jitalloc
mkdir -p "$D/fail_alias"	# fault injection knobs are directories
cat >"$D/api" <<EOF
refused_frees 7
refused_updates 8
refused_types 4
alias_errors 0
frees 82
text_pokes 66419
EOF
cat >"$D/page_blocks" <<EOF
block_pages 512
blocks 1
spare_blocks 1
pages_in_use 0
high_water_pages 6
allocs 37
frees 37
fallbacks 0
reclaims 0
shrinker_reclaims 0
leaked_pages 0
EOF
cat >"$D/modules+kprobes+ftrace+bpf" <<EOF
range 0xffffffffc0000000-0xffffffffff000000
huge_pages 1
spare_pages 0
fallback_pages 3
chunk_size 64
chunks_total 32768
chunks_used 2082
chunks_free 30686
largest_free_run_bytes 1963776
fragmentation_pct 1
bytes_in_use 133248
bytes_in_use_other 0
bytes_in_use_bpf 115840
bytes_in_use_kprobes 12288
bytes_in_use_ftrace 5120
bytes_in_use_modules 0
high_water_bytes 137344
allocs 1042
frees 19
fallbacks 1
reclaims 5
shrinker_reclaims 2
alias_errors 0
leaked_pages 0
mapped_checked 1
mapped_one_entry 1
mapped_writable 0
mapped_not_exec 0
aliases_protected 1
alias_writable 0
a_future_key some text
huge_page_addrs 0xffffffffc6200000
EOF

run --debugfs "$T/debugfs" --page-size 4096
ok $rc "exit status 0"
grep -Eq '^modules\+kprobes\+ftrace\+bpf +1 +2\.0M +130K +1 +1 +3\+2 +134K$' "$T/out"
ok $? "pool line"
grep -Eq '^bpf +113K$' "$T/out" && grep -Eq '^ftrace +5\.0K$' "$T/out"
ok $? "user lines"
grep -Eq '^page_blocks +1 +2\.0M +0 +1 +0 +0\+0 +24\.0K$' "$T/out"
ok $? "page blocks line"
grep -q '^Refused calls: refused_frees 7, refused_updates 8, refused_types 4$' "$T/out"
ok $? "refused calls, alias_errors 0 left out"
grep -q '^Executable bytes held: 2.0M (huge pages 2.0M, fallback pages 12.0K)$' "$T/out"
ok $? "executable bytes held"
[ ! -s "$T/err" ]
ok $? "nothing on stderr"

run -b --debugfs "$T/debugfs" --page-size 4096
grep -Eq '^modules\+kprobes\+ftrace\+bpf +1 +2097152 +133248 ' "$T/out"
ok $? "-b: sizes in bytes"

if command -v python3 >/dev/null; then
	run --json --debugfs "$T/debugfs" --page-size 4096
	python3 -m json.tool "$T/out" >/dev/null
	ok $? "--json is valid JSON"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pools"][0]
assert p["name"] == "modules+kprobes+ftrace+bpf" and p["huge_pages"] == 1
assert p["huge_page_addrs"] == ["0xffffffffc6200000"]
assert p["a_future_key"] == "some text"
assert d["users"]["bpf"] == 115840 and d["blocks"][0]["block_pages"] == 512
assert d["api"]["refused_types"] == 4
assert d["exec_bytes_held"] == 2097152 + 3 * 4096
' "$T/out"
	ok $? "--json values"
	run --json -w 0.1 -n 2 --debugfs "$T/debugfs"
	[ "$(wc -l <"$T/out")" = 2 ] &&
		head -n 1 "$T/out" | python3 -m json.tool >/dev/null
	ok $? "--json -w: one object per line"
else
	echo "# SKIP --json checks: no python3"
fi

run -w 0.1 -n 3 --debugfs "$T/debugfs"
[ $rc = 0 ] && [ "$(grep -c '^Pool ' "$T/out")" = 3 ] &&
	[ "$(grep -Ec '^[0-9]{4}-[0-9]{2}-[0-9]{2} ' "$T/out")" = 3 ]
ok $? "-w -n: three tables, each after a timestamp"

run --debugfs "$T/nonexistent"
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q 'debugfs is not mounted' "$T/err"
ok $? "no such directory: exit 1, one line"

mkdir "$T/empty"
run --debugfs "$T/empty"
[ $rc = 1 ] && grep -q 'debugfs is not mounted' "$T/err"
ok $? "empty directory (unmounted debugfs): exit 1"

mkdir -p "$T/nojit/tracing"
run --debugfs "$T/nojit"
[ $rc = 2 ] && [ "$(cat "$T/err")" = "jitstat: this kernel has no jitalloc (no $T/nojit/jitalloc)" ]
ok $? "no jitalloc: exit 2"

printf 'huge_pages many\nchunk_size 64\n' >"$D/broken"
: >"$D/empty"
run --debugfs "$T/debugfs"
[ $rc = 0 ] && grep -q "warning: $D/broken is malformed (line 1), skipped" "$T/err" &&
	grep -q "warning: $D/empty is empty, skipped" "$T/err" &&
	grep -Eq '^modules\+kprobes\+ftrace\+bpf ' "$T/out" &&
	! grep -q '^broken' "$T/out"
ok $? "malformed file: warning naming it, skipped"

run --frobnicate
[ $rc = 2 ] && grep -q '^Usage: jitstat' "$T/err" && [ ! -s "$T/out" ]
ok $? "bad option: usage on stderr, exit 2"
run -n 0
ok $((rc != 2)) "-n 0 refused"
run -h
[ $rc = 0 ] && grep -q '^Usage: jitstat' "$T/out"
ok $? "-h: usage on stdout, exit 0"

echo "# $((n - fails)) passed, $fails failed"
[ $fails = 0 ]
