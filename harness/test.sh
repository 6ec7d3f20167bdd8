#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make test: static checks, then build, boot and test every target, and
# finish with one line "N passed, N failed, N skipped".
# TEST_TIER=all (make test-all) adds the targets that take long to build;
# TEST_TARGETS overrides the matrix, e.g. TEST_TARGETS="x86_64:default".
. "$(dirname "$0")/lib.sh"

# The tier every change (and CI) runs: 6.12 first (V2_TARGETS below, both
# architectures and their stock controls), and the 6.1 x86_64 kernel
# users build, booted also with jitalloc_cache=off, where every claim
# test (tools/testing/selftests/jitalloc/jitalloc_claims.h) must fail.
# Stock 6.1 (x86_64:stock, the 6.1 negative control, and sparse, which
# compares against its tree) and arm64 6.1 are in make test-all, so that
# a cold run stays inside CI's 90 minutes with 6.12's arm64 kernels in it.
CI_TARGETS="x86_64:default"
# v2, the series against 6.12 (v2/): its kernel with the KUnit test of
# execmem's cache, the claims (which must pass) and the off switch (where
# they must fail), and stock 6.12 as the negative control, on x86_64 and
# arm64; V2_TEST_TARGETS overrides the tier's list ("" skips v2).
V2_CI_TARGETS="x86_64:default x86_64:stock arm64:default arm64:stock"
# make test-all adds arm64 with 16K pages (its cache pages are 2 MiB runs
# of contiguous PTEs) and the debug kernels (KASAN, lockdep, kmemleak,
# fault injection; x86_64 also livepatch, arm64 KASAN_VMALLOC).
V2_ALL_TARGETS="$V2_CI_TARGETS arm64:16k x86_64:debug arm64:debug"
# make test-all, before an issue is resolved: the checkers (KASAN,
# lockdep, kmemleak, fault injection, livepatch, BPF trampolines) on both
# architectures, arm64 with 16K pages, and a kernel without modules.
ALL_TARGETS="x86_64:default arm64:default arm64:16k x86_64:nomodules x86_64:debug arm64:debug x86_64:stock"
case "${TEST_TIER:-ci}" in
ci) tier_targets=$CI_TARGETS v2_tier_targets=$V2_CI_TARGETS ;;
all) tier_targets=$ALL_TARGETS v2_tier_targets=$V2_ALL_TARGETS ;;
*) die "unknown TEST_TIER '$TEST_TIER' (ci or all)" ;;
esac
V2_TARGETS=${V2_TEST_TARGETS-$v2_tier_targets}
TARGETS=${TEST_TARGETS:-$tier_targets}
# Suites every patched kernel must run; a missing one is a failure.
KUNIT_SUITES="jitalloc jitalloc_cache jitalloc_blocks"
SELFTESTS="$JT_SELFTESTS jitalloc_prot"
# Every case those suites report, by name: one missing or unlisted fails.
CASES=$TOP/harness/expected-cases

totals=$LOGS/test-totals
: >"$totals"
# boot.sh appends a line per boot it had to repeat (a known x86 TCG fault)
: >"$LOGS/flakes"
start=$(date +%s)

# Each line of the totals is "passed failed skipped kind": kind is runtime
# (tests run in a guest), static (checkpatch, kernel-doc, the series
# export, sparse) or control (the claims on stock 6.1, whose passes are
# XFAILs), so the summary can tell them apart.
fail_step() {
	echo "FAIL $1"
	echo "0 1 0 ${2:-runtime}" >>"$totals"
}

# Boot ARCH VARIANT SCENARIO; a failed boot is a failed step named STEP,
# with boot.sh's reason (a hang detector's report, a panic, a timeout).
boot_step() {
	local step=$1 why
	shift
	"$TOP/harness/boot.sh" "$@" && return 0
	why=$(cat "$LOGS/why-$1-$2-$3" 2>/dev/null)
	fail_step "$step${why:+: $why}"
	return 1
}

# Run a result parser; one that stops without adding its line to the
# totals (a missing file, a traceback) is a failure of its own.  The
# lines it added are tagged with KIND.
counted() {
	local kind=$1 what=$2 before rc
	shift 2
	before=$(wc -l <"$totals")
	"$@"
	rc=$?
	if [ "$(wc -l <"$totals")" -gt "$before" ]; then
		sed -i "$((before + 1)),\$ s/\$/ $kind/" "$totals"
	else
		fail_step "$what: gave no result (exit status $rc)" "$kind"
	fi
}

# Build ARCH VARIANT of the current base and its initramfs; a stock kernel
# is then booted as the negative control.  Returns 0 when the caller is
# to boot the patched kernel's tests, 1 when the target is done (failed,
# or a stock control).  NAME prefixes step and result names ("6.12-" for
# v2), LOGDIR is where the logs are, as the failure lines say.
# The skips a negative control on BASE-ARCH may have (claims the
# architecture cannot check), or none.
control_skips() {
	local f=$TOP/harness/expected-skips/$1$2-stock
	[ -f "$f" ] && echo "$f" || echo /dev/null
}

# require: what a VARIANT's test boot must print besides its suites (the
# debug kernels' kmemleak scan after the tests), as parse_results.py
# arguments.
debug_requires() {
	require=()
	[ "$1" = debug ] && require=(--require "### kmemleak: no leaks after the tests")
	return 0
}

prepare_target() {
	local name=$1 arch=$2 variant=$3 label=$2-$3 logdir=${LOGS#$TOP/}
	if ! "$TOP/harness/build.sh" "$arch" "$variant"; then
		fail_step "$name$label: build (log: $logdir/build-$label.log)"
		return 1
	fi
	if ! "$TOP/harness/initramfs.sh" "$arch" "$variant"; then
		fail_step "$name$label: initramfs (log: $logdir/initramfs-$label.log)"
		return 1
	fi
	[ "$variant" = stock ] || return 0
	boot_step "$name$label: boot" "$arch" "$variant" control
	counted control "$name$label" python3 "$TOP/harness/parse_results.py" \
		"$LOGS/console-$label-control.log" --label "$name$label" \
		--expect-fail jitalloc_control --expected-cases "$CASES" \
		--expected-skips "$(control_skips "$name" "$arch")" \
		--totals "$totals"
	return 1
}

arches=$(for t in $TARGETS $V2_TARGETS; do echo "${t%%:*}"; done | sort -u | tr '\n' ' ')
for t in $TARGETS; do
	check_arch "${t%%:*}"
	check_variant "${t#*:}"
done
run_all() {
	"$TOP/harness/deps.sh" $arches || { fail_step "deps"; return; }
	"$TOP/harness/fetch.sh" || { fail_step "fetch"; return; }
	"$TOP/harness/apply.sh" || { fail_step "apply"; return; }

	counted static "static checks" "$TOP/harness/check.sh" --totals "$totals"

	for t in $TARGETS; do
		arch=${t%%:*} variant=${t#*:}
		label=$arch-$variant
		prepare_target "" "$arch" "$variant" || continue
		boot_step "$label: boot" "$arch" "$variant" test
		# Each variant lists the skips it expects; any other skip fails.
		skips=$TOP/harness/expected-skips/$label
		[ -f "$skips" ] || skips=/dev/null
		debug_requires "$variant"
		counted runtime "$label" python3 "$TOP/harness/parse_results.py" "$LOGS/console-$label-test.log" \
			--label "$label" --kunit $KUNIT_SUITES --selftest $SELFTESTS \
			--expected-skips "$skips" --expected-cases "$CASES" \
			"${require[@]}" --totals "$totals"
		# The iTLB model the bench relies on, against known answers.
		if [ "$variant" = default ]; then
			if boot_step "$label: iTLB model boot" "$arch" "$variant" itlb; then
				counted runtime "$label-itlb-model" python3 "$TOP/harness/itlb_check.py" \
					"$LOGS/console-$label-itlb.log" \
					"$LOGS/itlb-$label-itlb.txt" --arch "$arch" \
					--label "$label-itlb-model" --require-thp \
					--totals "$totals"
			fi
		fi
		# The cache switched off at boot: text page-granular, still
		# read-only from the start; the cache's tests skip saying so.
		if [ "$arch" = x86_64 ] && [ "$variant" = default ]; then
			boot_step "$label: cacheoff boot" "$arch" "$variant" cacheoff
			counted runtime "$label-cacheoff" python3 "$TOP/harness/parse_results.py" \
				"$LOGS/console-$label-cacheoff.log" --label "$label-cacheoff" \
				--kunit $KUNIT_SUITES --selftest $SELFTESTS \
				--expected-skips "$TOP/harness/expected-skips/x86_64-cacheoff" \
				--require "jitalloc: cache off (jitalloc_cache=off)" \
				--expected-cases "$CASES" --totals "$totals"
		fi
		# KPTI switched on after the CPUs came up (nokaslr kpti=1), on a
		# CPU with BTI: jit memory mapped afterwards is non-global too.
		if [ "$arch" = arm64 ] && [ "$variant" = default ]; then
			boot_step "$label: kpti boot" "$arch" "$variant" kpti
			counted runtime "$label-kpti" python3 "$TOP/harness/parse_results.py" \
				"$LOGS/console-$label-kpti.log" --label "$label-kpti" \
				--selftest jitalloc_prot --require "### cpu has BTI" \
				--expected-cases "$CASES" \
				--totals "$totals"
		fi
	done

	[ -n "$V2_TARGETS" ] && run_v2

	# sparse: no new warnings in what the series touches, against the stock
	# tree built above from the same fragments.
	if [[ " $TARGETS " == *" x86_64:default "* && " $TARGETS " == *" x86_64:stock "* ]]; then
		counted static sparse "$TOP/harness/sparse.sh" x86_64 --totals "$totals"
	else
		echo "sparse: not run (needs targets x86_64:default and x86_64:stock)"
	fi
}

# v2 on 6.12, in a subshell with that base's trees and logs.
run_v2() (
	# boots repeated on 6.12 are reported with the others, from 6.1's file
	main_flakes=$LOGS/flakes
	BASE=6.12
	. "$TOP/harness/lib.sh"
	: >"$LOGS/flakes"
	trap 'sed "s/^flake: /flake: 6.12 /" "$LOGS/flakes" >>"$main_flakes"' EXIT
	# linux-source-6.12: a fresh machine has only what run_all installed
	"$TOP/harness/deps.sh" $arches || { fail_step "6.12: deps"; return; }
	"$TOP/harness/fetch.sh" || { fail_step "6.12: fetch"; return; }
	"$TOP/harness/apply.sh" || { fail_step "6.12: apply"; return; }
	for t in $V2_TARGETS; do
		arch=${t%%:*} variant=${t#*:}
		label=$arch-$variant
		prepare_target 6.12- "$arch" "$variant" || continue
		boot_step "6.12-$label: boot" "$arch" "$variant" execmem
		debug_requires "$variant"
		counted runtime "6.12-$label" python3 "$TOP/harness/parse_results.py" \
			"$LOGS/console-$label-execmem.log" --label "6.12-$label" \
			--kunit execmem_cache execmem_blocks \
			--selftest jitalloc_control $JT_SELFTESTS jitalloc_prot \
			--expected-skips "$TOP/harness/expected-skips/6.12-$label" \
			--expected-cases "$CASES" "${require[@]}" --totals "$totals"
		# KPTI switched on after the CPUs came up, on a CPU with BTI, as
		# on 6.1: execmem's memory carries the kernel's nG and GP bits
		if [ "$arch" = arm64 ] && [ "$variant" = default ]; then
			boot_step "6.12-$label: kpti boot" "$arch" "$variant" kpti
			counted runtime "6.12-$label-kpti" python3 "$TOP/harness/parse_results.py" \
				"$LOGS/console-$label-kpti.log" --label "6.12-$label-kpti" \
				--selftest jitalloc_prot --require "### cpu has BTI" \
				--expected-cases "$CASES" --totals "$totals"
		fi
		# the off switch, on the kernel whose claims can all be checked
		[ "$variant" = default ] || continue
		boot_step "6.12-$label: execmemoff boot" "$arch" "$variant" execmemoff
		counted control "6.12-$label-execmemoff" python3 "$TOP/harness/parse_results.py" \
			"$LOGS/console-$label-execmemoff.log" --label "6.12-$label-execmemoff" \
			--expect-fail jitalloc_control --require "execmem: cache off (execmem_cache=off)" \
			--expected-skips "$(control_skips 6.12- "$arch")" \
			--expected-cases "$CASES" --totals "$totals"
	done
)

# Everything goes to the terminal and to one log; the failures are
# repeated just above the totals, so the last lines say what failed.
run_all 2>&1 | tee "$LOGS/make-test.log"
failures=$(grep -E '\bFAIL\b|^[^ ]+:   \| ' "$LOGS/make-test.log")
if [ -n "$failures" ]; then
	echo "failures (whole output: build/logs/make-test.log):"
	echo "$failures" | sed 's/^/  /'
fi

if [ -s "$LOGS/flakes" ]; then
	echo "flakes (x86_64 boots repeated after a known QEMU TCG fault): $(wc -l <"$LOGS/flakes")"
	sed 's/^/  /' "$LOGS/flakes"
else
	echo "flakes (x86_64 boots repeated after a known QEMU TCG fault): 0"
fi
# apart: tests run in guests, static checks, the negative control
awk '{k = $4 == "" ? "runtime" : $4; p[k] += $1; f[k] += $2; s[k] += $3}
     END {
	printf "runtime tests: %d passed, %d failed, %d skipped (each skip expected, or counted failed too)\n", p["runtime"], f["runtime"], s["runtime"]
	printf "static checks: %d passed, %d failed\n", p["static"], f["static"]
	printf "negative controls (stock 6.1, stock 6.12, 6.12 with execmem_cache=off): %d XFAIL (claims refuted there, as they must be), %d failed\n", p["control"], f["control"]
     }' "$totals"
read -r p f s < <(awk '{p += $1; f += $2; s += $3} END {print p+0, f+0, s+0}' "$totals")
echo "make test (${TEST_TIER:-ci}: $TARGETS; 6.12: ${V2_TARGETS:-none}) finished in $(($(date +%s) - start))s"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
