#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Static checks on what the series adds, each counted as one test:
#   checkpatch --strict on every overlay C/header file and every patch,
#   scripts/kernel-doc -none on the overlay kernel sources, and the series
#   exported with git am (harness/series.sh).
# Usage: harness/check.sh [--totals FILE]
. "$(dirname "$0")/lib.sh"

totals=/dev/null
[ "$1" = --totals ] && totals=$2
cp=$SRC_BASE/scripts/checkpatch.pl
kd=$SRC_BASE/scripts/kernel-doc
[ -x "$cp" ] || die "checkpatch.pl not found: run harness/fetch.sh first"
log=$LOGS/check.log
: >"$log"
pass=0 fail=0

one() {
	local what=$1
	shift
	if out=$("$@" 2>&1); then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "check: FAIL $what"
		echo "$out" | head -n 15 | sed 's/^/    /'
	fi
	echo "== $what" >>"$log"
	echo "$out" >>"$log"
}

# checkpatch runs from the kernel tree, as a reviewer would run it; its
# results depend on the directory it runs in.
# checkpatch exits 0 when clean and 1 with findings; anything else (perl
# died, a missing module) is a failure of its own, findings or not.
checkpatch_judge() {
	local out=$1 rc=$2
	if echo "$out" | grep -E 'ERROR|WARNING|CHECK'; then
		return 1
	fi
	if [ "$rc" -ne 0 ]; then
		echo "checkpatch exited with status $rc: $(echo "$out" | head -n1)"
		return 1
	fi
}

checkpatch_file() {
	local out rc
	out=$(cd "$SRC_BASE" && perl "$cp" --no-tree --strict --terse --show-types \
		--ignore SPDX_LICENSE_TAG,FILE_PATH_CHANGES${CP_IGNORE:+,$CP_IGNORE} -f "$TOP/$1" 2>&1)
	rc=$?
	checkpatch_judge "$out" $rc
}

checkpatch_patch() {
	local out rc
	out=$(cd "$SRC_BASE" && perl "$cp" --no-tree --strict --terse --show-types \
		--ignore FILE_PATH_CHANGES "$TOP/$1" 2>&1)
	rc=$?
	checkpatch_judge "$out" $rc
}

kerneldoc() {
	local out
	out=$(perl "$kd" -none "$1" 2>&1)
	echo "$out"
	[ -z "$out" ]
}

cd "$TOP" || exit 1
start=$(date +%s)
printf '==> %-42s ' "static checks"
files=$(find include mm arch kernel lib -name '*.[ch]' 2>/dev/null | sort)
for f in $files; do
	case "$f" in
	include/trace/events/*)
		# the TRACE_EVENT() language: checkpatch reads its macros and
		# open-ended TP_*( lines as C; upstream trace headers get the same
		CP_IGNORE=COMPLEX_MACRO,TRAILING_SEMICOLON,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT ;;
	*) CP_IGNORE= ;;
	esac
	one "checkpatch $f" checkpatch_file "$f"
	one "kernel-doc $f" kerneldoc "$f"
done
CP_IGNORE=
for f in tools/testing/selftests/jitalloc/*.[ch] \
	 tools/testing/selftests/jitalloc/test_modules/*.[ch] bench/jitalloc_bench/*.c bench/*.c \
	 tools/vm/*.c; do
	# the iTLB model is QEMU plugin code (QEMU's API and types), not
	# kernel code: it must build warning-free instead
	[ "$f" = bench/itlb_model.c ] && continue
	one "checkpatch $f" checkpatch_file "$f"
done
one "build bench/itlb_model.c (-Wall -Wextra -Werror)" \
	cc -O2 -Wall -Wextra -Wno-unused-parameter -Werror -fPIC -shared \
	-o /dev/null bench/itlb_model.c
one "python harness/*.py" python3 -m py_compile harness/*.py
jitstat_selftest() {
	local bin
	bin=$(mktemp) || return 1
	cc -O2 -Wall -Wextra -Werror -o "$bin" tools/vm/jitstat.c &&
		sh tools/vm/jitstat-selftest.sh "$bin"
	local rc=$?
	rm -f "$bin"
	return $rc
}
one "tools/vm/jitstat builds and passes its selftest" jitstat_selftest
# the documentation as make htmldocs builds it: no warning in what the
# series adds or touches
one "docs: Sphinx and kernel-doc without warnings (harness/docs.sh)" \
	"$TOP/harness/docs.sh" --no-apply
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	# a patch that only adds files has no diff here: its files are in
	# the exported patch, checked below
	grep -q '^diff --git' "patches/$p" || continue
	one "checkpatch patches/$p" checkpatch_patch "patches/$p"
done <patches/series
# the series as exported: every patch applies with git am on the pristine
# base, and the added files, with patches/staged applied step by step,
# end up as the overlay has them
one "make series: git am of every patch, added files equal to the overlay" \
	"$TOP/harness/series.sh"
# the series as a reviewer gets it, added files and all: checkpatch on
# every exported patch.  The one that adds the trace events header gets
# what upstream trace headers get too: the TRACE_EVENT() language reads
# as complex macros and open-ended lines to checkpatch.
checkpatch_exported() {
	local out rc ignore=FILE_PATH_CHANGES
	grep -q '^+++ b/include/trace/events/' "$1" &&
		ignore=$ignore,COMPLEX_MACRO,TRAILING_SEMICOLON,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT
	out=$(cd "$SRC_BASE" && perl "$cp" --no-tree --strict --terse --show-types \
		--ignore "$ignore" "$1" 2>&1)
	rc=$?
	checkpatch_judge "$out" $rc
}
# and as quilt patches, the way a Debian kernel package's debian/patches
# takes them (dpkg-source applies without fuzz): quilt push -a --fuzz=0
# on a pristine copy of the base
quilt_series() {
	local q=$BASE_BUILD/src/quilt-check rc
	git -C "$SRC_BASE" worktree remove --force "$q" >/dev/null 2>&1
	rm -rf "$q"
	git -C "$SRC_BASE" worktree prune
	git -C "$SRC_BASE" worktree add -q --detach "$q" base || return 1
	mkdir -p "$q/patches" &&
		cp "$BUILD"/series/series "$q/patches/" &&
		(cd "$BASE_BUILD/series" && cp $(cat series) "$q/patches/") &&
		(cd "$q" && QUILT_PATCHES=patches quilt push -a -q --fuzz=0 >/dev/null &&
		 [ "$(QUILT_PATCHES=patches quilt applied | wc -l)" = \
		   "$(wc -l <patches/series)" ])
	rc=$?
	git -C "$SRC_BASE" worktree remove --force "$q" >/dev/null 2>&1
	return $rc
}
one "quilt push -a of the exported series on the pristine base" quilt_series
for p in "$BUILD"/series/[0-9][0-9][0-9][0-9]-*.patch; do
	case "$p" in */0000-*) continue ;; esac
	[ -f "$p" ] || { one "exported series present" false; break; }
	one "checkpatch exported ${p##*/}" checkpatch_exported "$p"
done
# v2, the series against 6.12: the files it adds of its own, its export
# (git am of every patch on pristine linux-source-6.12, the added files
# equal to the repo's), checkpatch on every exported patch
for f in $(find v2 -name '*.[ch]' | sort); do
	one "checkpatch $f" checkpatch_file "$f"
	one "kernel-doc $f" kerneldoc "$f"
done
# the export takes pristine 6.12 from its Debian package, which a fresh
# machine has not installed yet when make test's checks run (6.12's boots
# come later): install it here, as its build would
v2_export() {
	env BASE=6.12 "$TOP/harness/deps.sh" x86_64 || return 1
	env BASE=6.12 "$TOP/harness/series.sh"
}
one "make series BASE=6.12: git am of every v2 patch, added files equal to the repo's" \
	v2_export
# v2's jitstat as its patch builds it: tools/mm's own Makefile (with
# libapi) and "make -C tools/mm test", in the exported series' tree
jitstat_tools_mm() {
	local d=$BUILD/6.12/src/series-export/tools/mm rc
	[ -f "$d/jitstat.c" ] || { echo "no tools/mm/jitstat.c in the v2 export"; return 1; }
	make -s -C "$d" jitstat test 2>&1 | tail -n 3
	rc=${PIPESTATUS[0]}
	make -s -C "$d" clean >/dev/null 2>&1
	return "$rc"
}
one "v2 tools/mm/jitstat: make -C tools/mm jitstat test" jitstat_tools_mm
for p in "$BUILD"/6.12/series/[0-9][0-9][0-9][0-9]-*.patch; do
	case "$p" in */0000-*) continue ;; esac
	[ -f "$p" ] || { one "exported v2 series present" false; break; }
	one "checkpatch exported v2 ${p##*/}" checkpatch_exported "$p"
done
# BASE: an unknown base is refused with one line naming it, and a base
# without a series builds its stock kernel only, saying so in one line
base_refused() {
	local out
	out=$(BASE=5.0 "$TOP/harness/build.sh" x86_64 stock 2>&1) && return 1
	[ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q 'BASE=5.0' ||
		{ echo "$out"; return 1; }
}
base_without_series() {
	local out
	[ -s "$TOP/v2/patches/series" ] && return 0
	out=$(BASE=6.12 "$TOP/harness/build.sh" x86_64 default 2>&1) && return 1
	[ "$(echo "$out" | wc -l)" -eq 1 ] && echo "$out" | grep -q 'only its stock kernel builds' ||
		{ echo "$out"; return 1; }
}
one "harness refuses an unknown BASE in one line" base_refused
one "BASE=6.12 without a series builds only stock" base_without_series
# where each test runs, as README links it: generated, never stale
one "harness/COVERAGE.md matches expected-cases and expected-skips" \
	python3 "$TOP/harness/coverage.py" --check "$TOP/harness/COVERAGE.md"
echo "done in $(($(date +%s) - start))s"
echo "checks: $pass passed, $fail failed"
echo "$pass $fail 0" >>"$totals"
[ $fail -eq 0 ]
