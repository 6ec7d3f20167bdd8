#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make soak: SOAK_SECONDS (default 600) of all four users' churn under
# memory pressure from stress-ng, on each of SOAK_TARGETS (default
# "x86_64:default arm64:default"), then the churn test's checks: every
# counter back, no W+X, cache pages still one ROX PMD, the shrinkers
# reclaimed.  Not part of make test.  Prints each target's figures.
# BASE=6.12: v2, the module loader's kselftest then the churn.
. "$(dirname "$0")/lib.sh"

secs=${SOAK_SECONDS:-600}
targets=${SOAK_TARGETS:-"x86_64:default arm64:default"}
case "$secs" in
'' | *[!0-9]*) die "SOAK_SECONDS must be a number of seconds, not '$secs'" ;;
esac
arches=$(for t in $targets; do echo "${t%%:*}"; done | sort -u | tr '\n' ' ')
for t in $targets; do
	check_arch "${t%%:*}"
	check_variant "${t#*:}"
done
"$TOP/harness/deps.sh" --stress $arches || exit 1
"$TOP/harness/fetch.sh" || exit 1
"$TOP/harness/apply.sh" || exit 1

# v2's expected skips are named after their base
skips_prefix=
[ "$BASE" = 6.12 ] && skips_prefix=6.12-
failed=0
for t in $targets; do
	arch=${t%%:*} variant=${t#*:} label=${t%%:*}-${t#*:}
	"$TOP/harness/build.sh" "$arch" "$variant" || { failed=1; continue; }
	# the churn runs $secs: its kselftest timeout must let it
	GUEST_STRESS=1 JT_TEST_CFLAGS="-DCHURN_TIMEOUT=$((secs + 600))" \
		"$TOP/harness/initramfs.sh" "$arch" "$variant" ||
		{ failed=1; continue; }
	GUEST_ARGS="jt_soak=$secs" BOOT_TIMEOUT=$((secs + 900)) \
		"$TOP/harness/boot.sh" "$arch" "$variant" soak || failed=1
	log=$LOGS/console-$label-soak.log
	python3 "$TOP/harness/parse_results.py" "$log" --label "$label-soak" \
		--selftest $JT_SELFTESTS \
		--expected-skips "$TOP/harness/expected-skips/$skips_prefix$label" ||
		failed=1
	echo "--- $label soak figures (log: ${log#$TOP/}):"
	grep -E '^# (churn|soak|injected)|stress-ng: .*(info|metrc|fail)' "$log" | tr -d '\r'
done
exit $failed
