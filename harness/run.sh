#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make run: build and boot the patched kernel, run the demo workload and
# tell what it did (harness/run_story.py); the raw reports stay in the log.
# Usage: harness/run.sh [ARCH] [VARIANT] [SCENARIO] [interactive]
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64} variant=${2:-default} scenario=${3:-demo} mode=$4
check_arch "$arch"
check_variant "$variant"
"$TOP/harness/deps.sh" "$arch" || exit 1
"$TOP/harness/fetch.sh" || exit 1
[ "$variant" = stock ] || "$TOP/harness/apply.sh" || exit 1
"$TOP/harness/build.sh" "$arch" "$variant" || exit 1
"$TOP/harness/initramfs.sh" "$arch" "$variant" || exit 1
[ "$mode" = interactive ] && exec "$TOP/harness/boot.sh" "$arch" "$variant" "$scenario" interactive
# The demo's stock column: the stock base built from the same configuration
# and running the same workload (STOCK=0 leaves it out: one build less).
stock=
if [ "$scenario" = demo ] && [ "$variant" != stock ] && [ "${STOCK:-1}" != 0 ]; then
	"$TOP/harness/build.sh" "$arch" stock || exit 1
	"$TOP/harness/initramfs.sh" "$arch" stock || exit 1
	stock=$LOGS/console-$arch-stock-demo.log
fi
"$TOP/harness/boot.sh" "$arch" "$variant" "$scenario"
rc=$?
log=$LOGS/console-$arch-$variant-$scenario.log
if [ "$scenario" = demo ]; then
	if [ -n "$stock" ]; then
		"$TOP/harness/boot.sh" "$arch" stock demo || rc=1
	fi
	echo
	python3 "$TOP/harness/run_story.py" "$log" "$arch" "$variant" \
		--base "$BASE" ${stock:+--stock "$stock"} || rc=1
	exit $rc
fi
echo "--- guest output ($scenario):"
sed -n "/### jitalloc scenario $scenario begin/,/### jitalloc scenario $scenario end/p" "$log" |
	tr -d '\r'
exit $rc
