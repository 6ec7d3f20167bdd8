#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Test jitstat on a fake debugfs and /proc: the x86_64 demo's report after
# loading (1000 BPF programs, 100 kprobes, 20 ftrace instances) with a
# second pool, a tree booted jitalloc_cache=off, execmem's file (6.12),
# then broken trees.
# POSIX sh; the JSON checks that need python3 are skipped without it.
#
# Usage: jitstat-selftest.sh [path/to/jitstat]

JITSTAT=${1:-./jitstat}
MAN=$(dirname "$0")/jitstat.8
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

# the fake tree and /proc, 4 KiB pages
runf() {
	run --debugfs "$T/debugfs" --proc "$T/proc" --page-size 4096 "$@"
}

# no line of file $1 longer than 80 columns
narrow() {
	awk 'length > 80 { print "# too wide: " $0; bad = 1 } END { exit bad }' "$1"
}

# pool:user:size for each user line of a default table
users() {
	awk '/^  [a-z_]+ +[0-9.]+[KMG]?$/ { print pool ":" $1 ":" $2; next }
	     /^[^ ]/ { pool = $1 }' "$1"
}

# wait (5 s at most) until file $1 has a line matching $2
wait_for() {
	i=0
	while [ $i -lt 50 ] && ! grep -Eq "$2" "$1"; do
		sleep 0.1
		i=$((i + 1))
	done
}

# pool file $1 with key $2 set to $3, replaced at once (rename)
set_key() {
	sed "s/^$2 .*/$2 $3/" "$1" >"$T/new" && mv "$T/new" "$1"
}

# Prometheus text format, as node-exporter's textfile collector reads it:
# HELP and TYPE before a family's samples, families in one piece, names
# and labels well formed, counters *_total, no series twice.
prom_check() {
	label='[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*"'
	awk '
	function fail(why) { print "# line " NR ": " why ": " $0; bad = 1 }
	/^# HELP / {
		if ($3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) fail("bad name")
		if (help[$3]++) fail("second HELP")
		if (NF < 4) fail("no help text")
		next
	}
	/^# TYPE / {
		if (type[$3] != "") fail("second TYPE")
		if (done[$3]) fail("TYPE after samples")
		type[$3] = $4
		if ($4 != "counter" && $4 != "gauge") fail("bad type")
		next
	}
	/^#/ { next }
	{
		if (!match($0, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) {
			fail("bad metric name")
			next
		}
		name = substr($0, 1, RLENGTH)
		rest = substr($0, RLENGTH + 1)
		labels = ""
		if (rest ~ /^[{]/) {
			if (!match(rest, /^[{]'"$label"'(,'"$label"')*[}]/)) {
				fail("bad labels")
				next
			}
			labels = substr(rest, 1, RLENGTH)
			rest = substr(rest, RLENGTH + 1)
		}
		if (rest !~ /^ [-+]?([0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?|NaN|Inf)$/)
			fail("bad value")
		if (!help[name] || type[name] == "")
			fail("sample without HELP and TYPE")
		if (type[name] == "counter" && name !~ /_total$/)
			fail("counter not named _total")
		if (name !~ /^jitalloc_/)
			fail("not a jitalloc_ metric")
		if (name != last && done[name])
			fail("family in two pieces")
		if (seen[name labels]++)
			fail("series twice")
		done[name] = 1
		last = name
		samples++
	}
	END {
		if (!samples) {
			print "# no samples"
			bad = 1
		}
		exit bad
	}' "$1"
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
# a kernel before "enabled": the cache is on
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
map_errors 0
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
# a name too long for a column of an 80-column table
L=kprobes+ftrace+bpf+bpf_trampoline+its
cat >"$D/$L" <<EOF
range 0xffffffffa0000000-0xffffffffa4000000
enabled 1
huge_pages 1
spare_pages 0
fallback_pages 0
chunk_size 64
chunks_total 32768
chunks_used 64
chunks_free 32704
largest_free_run_bytes 2093056
fragmentation_pct 0
bytes_in_use 4096
bytes_in_use_other 0
bytes_in_use_bpf 4096
bytes_in_use_kprobes 0
bytes_in_use_ftrace 0
bytes_in_use_bpf_trampoline 0
bytes_in_use_its 0
high_water_bytes 8192
allocs 3
frees 1
fallbacks 0
reclaims 0
shrinker_reclaims 0
alias_errors 0
leaked_pages 0
huge_page_addrs 0xffffffffa0200000
EOF
P=$T/proc
mkdir -p "$P"
printf '%s\n' 'MemTotal:        2000000 kB' 'JitText:            4108 kB' \
	'VmallocUsed:       12345 kB' >"$P/meminfo"
cat >"$P/vmstat" <<EOF
nr_free_pages 12345
jit_cache_page_map 7
jit_cache_page_unmap 5
jit_cache_reclaim 5
jit_cache_shrink 2
jit_cache_fallback 1
direct_map_level2_splits 12
direct_map_level3_splits 0
EOF

runf
ok $rc "exit status 0"
[ ! -s "$T/err" ]
ok $? "nothing on stderr"
narrow "$T/out"
ok $? "default table: 80 columns at most"
grep -Eq '^Pool +Huge +Held +InUse +Peak +Frag% +Fallbk +Reclaim$' "$T/out" &&
	! grep -Eq 'g\+s|HighW' "$T/out"
ok $? "plain column headers"
grep -Eq '^modules\+kprobes\+ftrace\+bpf +1 +2\.0M +130K +134K +1 +1 +5$' "$T/out"
ok $? "pool line"
grep -Fxq "$L" "$T/out" &&
	grep -Eq '^ {12,}1 +2\.0M +4\.0K +8\.0K +0 +0 +0$' "$T/out"
ok $? "long pool name in full, its figures on the next line"
printf '%s\n' "$L:bpf:4.0K" "modules+kprobes+ftrace+bpf:bpf:113K" \
	"modules+kprobes+ftrace+bpf:kprobes:12.0K" \
	"modules+kprobes+ftrace+bpf:ftrace:5.0K" >"$T/want"
users "$T/out" | diff "$T/want" - >/dev/null
ok $? "users per pool, not summed; users with 0 bytes left out"
grep -Eq '^Page blocks +Blocks +Held +InUse +Peak +Spare +Fallbk +Reclaim$' "$T/out" &&
	grep -Eq '^page_blocks +1 +2\.0M +0 +24\.0K +1 +0 +0$' "$T/out"
ok $? "page blocks line"
grep -q "^Refused calls: refused_frees 7, refused_updates 8, refused_types 4$" "$T/out" &&
	grep -q "^  (callers' bugs, see jitstat(8))$" "$T/out"
ok $? "refused calls, alias_errors 0 left out, callers' bugs"
grep -q '^Executable bytes held: 4.0M (huge pages 4.0M, fallback pages 12.0K)$' "$T/out"
ok $? "executable bytes held"
! grep -q '0x' "$T/out" && ! grep -q '^Errors' "$T/out"
ok $? "no address, no error line by default"

runf -a
printf '%s\n' "$L:other:0" "$L:bpf:4.0K" "$L:kprobes:0" "$L:ftrace:0" \
	"$L:bpf_trampoline:0" "$L:its:0" "modules+kprobes+ftrace+bpf:other:0" \
	"modules+kprobes+ftrace+bpf:bpf:113K" \
	"modules+kprobes+ftrace+bpf:kprobes:12.0K" \
	"modules+kprobes+ftrace+bpf:ftrace:5.0K" \
	"modules+kprobes+ftrace+bpf:modules:0" >"$T/want"
users "$T/out" | diff "$T/want" - >/dev/null && narrow "$T/out"
ok $? "-a: users with 0 bytes too"

runf -b
grep -Eq '^modules\+kprobes\+ftrace\+bpf +1 +2109440 +133248 +137344 ' "$T/out" &&
	grep -Eq '^  bpf +115840$' "$T/out" && narrow "$T/out"
ok $? "-b: sizes in bytes"

runf --addresses
grep -q '^  range 0xffffffffc0000000-0xffffffffff000000$' "$T/out" &&
	grep -q '^  huge_page_addrs 0xffffffffc6200000$' "$T/out" &&
	grep -q '^  huge_page_addrs 0xffffffffa0200000$' "$T/out" &&
	narrow "$T/out"
ok $? "--addresses: ranges and huge pages in the text"

runf --json
[ $rc = 0 ] && [ "$(wc -l <"$T/out")" = 1 ] && ! grep -q '0x' "$T/out" &&
	! grep -q '"range"\|huge_page_addrs' "$T/out"
ok $? "--json: no address by default"
runf --json --addresses
grep -q '"range":"0xffffffffc0000000-0xffffffffff000000"' "$T/out" &&
	grep -q '"huge_page_addrs":\["0xffffffffc6200000"\]' "$T/out"
ok $? "--json --addresses: addresses"

if command -v python3 >/dev/null; then
	runf --json
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
p = d["pools"][0]
assert d["source"] == "debugfs" and "delta" not in d
assert p["name"] == "kprobes+ftrace+bpf+bpf_trampoline+its"
p = d["pools"][1]
assert p["name"] == "modules+kprobes+ftrace+bpf" and p["huge_pages"] == 1
assert p["bytes_in_use_bpf"] == 115840 and "range" not in p
assert p["a_future_key"] == "some text"
assert d["blocks"][0]["block_pages"] == 512
assert d["api"]["refused_types"] == 4
assert d["exec_bytes_held"] == 2 * 2097152 + 3 * 4096
assert d["jit_text_bytes"] == 4108 * 1024
assert d["vmstat"] == {"jit_cache_page_map": 7, "jit_cache_page_unmap": 5,
	"jit_cache_reclaim": 5, "jit_cache_shrink": 2,
	"jit_cache_fallback": 1, "direct_map_level2_splits": 12,
	"direct_map_level3_splits": 0}
' "$T/out"
	ok $? "--json values"
else
	echo "# SKIP --json values: no python3"
fi

# -w: since boot first, then what moved in the interval
cp -R "$T/debugfs" "$T/w"
W=$T/w/jitalloc/modules+kprobes+ftrace+bpf
"$JITSTAT" -w 1 -n 2 --debugfs "$T/w" --proc "$T/proc" -p 4096 \
	>"$T/out" 2>"$T/err" &
pid=$!
wait_for "$T/out" '^page_blocks '
set_key "$W" allocs 1052
set_key "$W" fallbacks 3
set_key "$W" bytes_in_use 140000
wait $pid
rc=$?
hdr='^Pool +Huge +Held +InUse +Allocs +Frees +Fallbk +Reclaim$'
[ $rc = 0 ] && narrow "$T/out" &&
	[ "$(grep -Ec "$hdr" "$T/out")" = 1 ] &&
	grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} .*totals since boot$' "$T/out" &&
	grep -Eq '^modules\+kprobes\+ftrace\+bpf +1 +2\.0M +130K +1042 +19 +1 +5$' "$T/out"
ok $? "-w: header, then totals since boot"
grep -Eq '^modules\+kprobes\+ftrace\+bpf +1 +2\.0M +137K +10 +0 +2 +0$' "$T/out" &&
	grep -Eq '^page_blocks +1 +2\.0M +0 +0 +0 +0 +0$' "$T/out"
ok $? "-w: second report, deltas of counters, gauges as they are"
re='^[0-9]{2}:[0-9]{2}:[0-9]{2} \+(0\.9|1\.0)[0-9]s: allocs/s (9\.[5-9]|10|10\.0|11), '
re="$re"'frees/s 0\.0, fallbacks/s 2\.0, reclaims/s 0\.0$'
grep -Eq "$re" "$T/out"
ok $? "-w: the interval's rates"

cp "$D/modules+kprobes+ftrace+bpf" "$W"
"$JITSTAT" --json -w 1 -n 2 --debugfs "$T/w" --proc "$T/proc" -p 4096 \
	>"$T/out" 2>"$T/err" &
pid=$!
wait_for "$T/out" '^[{]'
set_key "$W" allocs 1052
wait $pid
rc=$?
re='"delta":[{]"interval":(0\.9|1\.0)[0-9]+,"pools":[{]"kprobes[^}]*[}],'
re="$re"'"modules\+kprobes\+ftrace\+bpf":[{]"allocs":10,"frees":0,"fallbacks":0,'
[ $rc = 0 ] && [ "$(wc -l <"$T/out")" = 2 ] &&
	! head -n 1 "$T/out" | grep -q '"delta"' &&
	tail -n 1 "$T/out" | grep -Eq "$re"
ok $? "--json -w: one object a line, deltas under \"delta\" with the interval"
if command -v python3 >/dev/null; then
	python3 -c '
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1])]
assert "delta" not in a
d = b["delta"]
assert 0.5 < d["interval"] < 1.5
assert d["pools"]["modules+kprobes+ftrace+bpf"]["allocs"] == 10
assert b["pools"][1]["allocs"] == 1052
assert d["api"]["refused_frees"] == 0 and d["vmstat"]["jit_cache_fallback"] == 0
' "$T/out"
	ok $? "--json -w: delta values"
fi

runf -w 0.01 -n 25
[ $rc = 0 ] && head -n 1 "$T/out" | grep -q '^Pool ' &&
	awk '/^Pool +Huge/ { h++; if (n > 20) bad = 1; n = 0; next }
	     { n++ }
	     END { exit !(h >= 2 && n <= 20 && !bad) }' "$T/out"
ok $? "-w: header again every 20 lines at most"

runf --prometheus
[ $rc = 0 ] && prom_check "$T/out"
ok $? "--prometheus: well-formed text format"
! grep -q '0x' "$T/out"
ok $? "--prometheus: no address"
while read -r line; do
	grep -Fxq "$line" "$T/out" || { echo "# missing: $line"; false; } || break
done <<EOF
jitalloc_debugfs_readable 1
jitalloc_text_bytes 4206592
jitalloc_exec_held_bytes 4206592
jitalloc_pool_enabled{pool="modules+kprobes+ftrace+bpf"} 1
jitalloc_pool_huge_page_bytes{pool="modules+kprobes+ftrace+bpf"} 2097152
jitalloc_pool_fallback_bytes{pool="modules+kprobes+ftrace+bpf"} 12288
jitalloc_pool_user_in_use_bytes{pool="modules+kprobes+ftrace+bpf",user="bpf"} 115840
jitalloc_pool_user_in_use_bytes{pool="$L",user="bpf"} 4096
jitalloc_pool_user_in_use_bytes{pool="$L",user="its"} 0
jitalloc_pool_peak_in_use_bytes{pool="modules+kprobes+ftrace+bpf"} 137344
jitalloc_pool_fragmentation_ratio{pool="modules+kprobes+ftrace+bpf"} 0.01
jitalloc_pool_allocs_total{pool="modules+kprobes+ftrace+bpf"} 1042
jitalloc_pool_shrinker_reclaims_total{pool="modules+kprobes+ftrace+bpf"} 2
jitalloc_pool_map_errors_total{pool="modules+kprobes+ftrace+bpf"} 0
jitalloc_page_blocks_held_bytes 2097152
jitalloc_page_blocks_peak_in_use_bytes 24576
jitalloc_refused_frees_total 7
jitalloc_cache_fallbacks_total 1
jitalloc_direct_map_splits_total{level="2"} 12
# TYPE jitalloc_pool_allocs_total counter
# TYPE jitalloc_pool_in_use_bytes gauge
EOF
ok $? "--prometheus: values in bytes, pool and user labels"

# a pool that gave up a new page it could not map executable
E=$T/errs
cp -r "$T/debugfs" "$E"
sed -i 's/^map_errors 0$/map_errors 2/' "$E/jitalloc/modules+kprobes+ftrace+bpf"
run --debugfs "$E" --proc "$T/proc" --page-size 4096
[ $rc = 0 ] &&
	grep -q '^Errors: modules+kprobes+ftrace+bpf map_errors 2 (see jitstat(8))$' "$T/out"
ok $? "map_errors above 0 reported as an error"
run --debugfs "$E" --proc "$T/proc" --page-size 4096 --prometheus
[ $rc = 0 ] && prom_check "$T/out" &&
	grep -Fxq 'jitalloc_pool_map_errors_total{pool="modules+kprobes+ftrace+bpf"} 2' "$T/out"
ok $? "--prometheus: map_errors as a counter"

# booted jitalloc_cache=off
O=$T/off/jitalloc
mkdir -p "$O"
cp "$D/api" "$O"
keys='bytes_in_use[a-z_]*\|high_water_bytes\|allocs\|frees\|fallbacks\|reclaims'
keys="$keys"'\|shrinker_reclaims\|largest_free_run_bytes'
sed -e 's/^range .*/range 0x0-0x0\nenabled 0/' -e 's/^huge_pages .*/huge_pages 0/' \
	-e 's/^fallback_pages .*/fallback_pages 40/' \
	-e 's/^chunks_[a-z]* .*/&/;s/^chunks_total .*/chunks_total 0/' \
	-e 's/^chunks_used .*/chunks_used 0/;s/^chunks_free .*/chunks_free 0/' \
	-e 's/^fragmentation_pct .*/fragmentation_pct 0/' \
	-e 's/^\('"$keys"'\) .*/\1 0/' \
	-e 's/^huge_page_addrs .*/huge_page_addrs/' \
	"$D/modules+kprobes+ftrace+bpf" >"$O/modules+kprobes+ftrace+bpf"
run --debugfs "$T/off" --proc "$T/proc" -p 4096
[ $rc = 0 ] && narrow "$T/out" &&
	grep -Eq '^modules\+kprobes\+ftrace\+bpf +off +160K +0 +0 +- +0 +0$' "$T/out" &&
	grep -q '^off: cache switched off at boot (jitalloc_cache=off)' "$T/out" &&
	grep -q '^Executable bytes held: 160K (huge pages 0, fallback pages 160K)$' "$T/out"
ok $? "enabled 0: the pool is shown off"
run --debugfs "$T/off" --proc "$T/proc" -p 4096 --prometheus
prom_check "$T/out" &&
	grep -Fxq 'jitalloc_pool_enabled{pool="modules+kprobes+ftrace+bpf"} 0' "$T/out" &&
	grep -Fxq 'jitalloc_pool_fallback_bytes{pool="modules+kprobes+ftrace+bpf"} 163840' "$T/out"
ok $? "enabled 0: --prometheus"

# execmem's file where the cache is an execmem backend (6.12): its refused
# calls reported as the API's; switched off, execmem makes no pool at all
# and says so in its rox_<type> keys
X=$T/execmem/jitalloc
mkdir -p "$X"
cat >"$X/execmem" <<EOF
rox_modules 1
rox_bpf 1
rox_module_data 0
refused_frees 2
refused_updates 3
cache_pages 512
exec_alias_writable 0
EOF
cp "$D/modules+kprobes+ftrace+bpf" "$X"
run --debugfs "$T/execmem" --proc "$T/proc" -p 4096
[ $rc = 0 ] && narrow "$T/out" && ! grep -q '^off:' "$T/out" &&
	grep -q '^Refused calls: refused_frees 2, refused_updates 3$' "$T/out"
ok $? "execmem's file: refused calls, no off note while types are cached"
run --debugfs "$T/execmem" --proc "$T/proc" -p 4096 --prometheus
prom_check "$T/out" &&
	grep -Fxq 'jitalloc_refused_frees_total 2' "$T/out" &&
	grep -Fxq 'jitalloc_exec_alias_writable_pages 0' "$T/out"
ok $? "execmem's file: --prometheus"
XO=$T/execmemoff/jitalloc
mkdir -p "$XO"
sed -e 's/^\(rox_[a-z_]*\) .*/\1 0/' -e 's/^\(refused_[a-z]*\) .*/\1 0/' \
	-e 's/^cache_pages .*/cache_pages 0/' "$X/execmem" >"$XO/execmem"
run --debugfs "$T/execmemoff" --proc "$T/proc" -p 4096
[ $rc = 0 ] && narrow "$T/out" &&
	grep -q '^off: execmem caches no type (execmem_cache=off' "$T/out" &&
	! grep -q '^Refused calls' "$T/out"
ok $? "execmem_cache=off: no pool, the off note from execmem's rox_ keys"

# no debugfs: the reduced report from /proc
run --debugfs "$T/nonexistent" --proc "$T/proc"
msg="jitstat: debugfs is not mounted on $T/nonexistent; reduced report from $T/proc"
huge='Huge pages since boot: mapped 7, unmapped 5, reclaimed 5 (2 by the shrinker)'
[ $rc = 0 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q "^$msg\$" "$T/err" &&
	grep -Eq '^\(all pools\) +2 +4\.0M +- +- +- +1 +5$' "$T/out" &&
	grep -q "^$huge\$" "$T/out" &&
	grep -q "^Executable bytes held: 4.0M (JitText in $T/proc/meminfo)$" "$T/out" &&
	narrow "$T/out"
ok $? "no debugfs: reduced report from /proc, why on stderr in one line, exit 0"
mkdir "$T/empty"
run --debugfs "$T/empty" --proc "$T/proc" --prometheus
[ $rc = 0 ] && prom_check "$T/out" &&
	grep -Fxq 'jitalloc_debugfs_readable 0' "$T/out" &&
	grep -Fxq 'jitalloc_text_bytes 4206592' "$T/out" &&
	grep -Fxq 'jitalloc_cache_page_maps_total 7' "$T/out" &&
	! grep -q 'jitalloc_pool_' "$T/out"
ok $? "unmounted debugfs (empty directory): --prometheus from /proc"
run --debugfs "$T/empty" --proc "$T/proc" -w 0.1 -n 3
[ $rc = 0 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	[ "$(grep -Ec '^\(all pools\) +2 +4\.0M +- +- +- +0 +0$' "$T/out")" = 2 ]
ok $? "reduced report with -w: said once, deltas"
run --debugfs "$T/empty" --proc "$T/proc" --json
grep -q '"source":"proc",' "$T/out" && grep -q '"jit_text_bytes":4206592,' "$T/out"
ok $? "reduced report with --json"
if [ "$(id -u)" != 0 ]; then
	cp -R "$T/debugfs" "$T/closed"
	chmod 000 "$T/closed"
	run --debugfs "$T/closed" --proc "$T/proc"
	[ $rc = 0 ] && grep -q "debugfs is not readable (run as root" "$T/err"
	ok $? "unreadable debugfs: reduced report"
	chmod 755 "$T/closed"
else
	echo "# SKIP unreadable debugfs: running as root"
fi

# exit statuses: 1 cannot read, 2 bad usage, 3 no jitalloc
mkdir -p "$T/badproc/meminfo"
run --debugfs "$T/nonexistent" --proc "$T/badproc"
[ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q "^jitstat: cannot read $T/badproc/meminfo: " "$T/err"
ok $? "cannot read: exit 1, one line"
run --debugfs "$T/nonexistent" --proc "$T/nothere"
[ $rc = 1 ]
ok $? "no /proc: exit 1"

mkdir -p "$T/nojit/tracing" "$T/nojitproc"
printf 'MemTotal:        2000000 kB\n' >"$T/nojitproc/meminfo"
printf 'nr_free_pages 12345\ndirect_map_level2_splits 12\n' >"$T/nojitproc/vmstat"
run --debugfs "$T/nojit" --proc "$T/nojitproc"
[ $rc = 3 ] && [ "$(wc -l <"$T/err")" = 1 ] &&
	grep -q '^jitstat: this kernel has no jitalloc (' "$T/err" && [ ! -s "$T/out" ]
ok $? "no jitalloc (debugfs mounted): exit 3, one line"
run --debugfs "$T/nonexistent" --proc "$T/nojitproc"
[ $rc = 3 ]
ok $? "no jitalloc (no debugfs either): exit 3"

printf 'huge_pages many\nchunk_size 64\n' >"$D/broken"
: >"$D/empty"
runf
[ $rc = 0 ] && grep -q "warning: $D/broken is malformed (line 1), skipped" "$T/err" &&
	grep -q "warning: $D/empty is empty, skipped" "$T/err" &&
	grep -Eq '^modules\+kprobes\+ftrace\+bpf ' "$T/out" &&
	! grep -q '^broken' "$T/out"
ok $? "malformed file: warning naming it, skipped"
rm "$D/broken" "$D/empty"

# usage errors: what was wrong in one line, then where to look
usage_error() {
	[ $rc = 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" = 2 ] &&
		head -n 1 "$T/err" | grep -Fq "$1" &&
		tail -n 1 "$T/err" | grep -q "^Try 'jitstat --help'"
}
run --frobnicate
usage_error "jitstat: unrecognized option '--frobnicate'"
ok $? "bad option: named, exit 2"
run -x
usage_error "jitstat: unrecognized option '-x'"
ok $? "bad short option: named, exit 2"
run -p 0
usage_error "jitstat: -p 0: the page size must be a power of two"
ok $? "-p 0: a clear error"
run -n 0
usage_error "jitstat: -n 0: the count must be"
ok $? "-n 0 refused"
run -w soon
usage_error "jitstat: -w soon: the interval must be"
ok $? "-w soon refused"
run -w
usage_error "jitstat: option '-w' needs an argument"
ok $? "-w without an argument"
run --json --prometheus
usage_error "jitstat: --json and --prometheus"
ok $? "--json --prometheus refused"
run --prometheus -w 1
usage_error "jitstat: --prometheus makes one report"
ok $? "--prometheus -w refused"
run --prometheus --addresses
usage_error "jitstat: --prometheus never shows addresses"
ok $? "--prometheus --addresses refused"
run now
usage_error "jitstat: unexpected argument 'now'"
ok $? "argument refused"

run -h
[ $rc = 0 ] && grep -q '^Usage: jitstat' "$T/out" &&
	grep -q '2 bad usage, 3 this kernel has no jitalloc' "$T/out" && narrow "$T/out"
ok $? "-h: usage on stdout with the exit statuses, exit 0"

if [ -f "$MAN" ]; then
	for o in $(grep -o -- '--[a-z-]*' "$T/out" | sort -u); do
		grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$MAN" ||
			{ echo "# jitstat.8 lacks $o"; false; } || break
	done
	ok $? "jitstat.8 documents every long option"
fi

echo "# $((n - fails)) passed, $fails failed"
[ $fails = 0 ]
