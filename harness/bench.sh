#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the same workload on stock 6.1 and on the patched kernel,
# both built from the same fragments and booted in this one run; prints
# both sides and their ratio.
# Usage: harness/bench.sh [ARCH]
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
check_arch "$arch"
build_stock_and_series "$arch"
for v in stock default; do
	"$TOP/harness/boot.sh" "$arch" "$v" bench || exit 1
done
mkdir -p "$BUILD/bench"
out=$BUILD/bench/$arch-$(date +%Y%m%d-%H%M%S).txt
model=()
[ "${ITLB_MODEL:-}" = 0 ] ||
	model=("$LOGS/itlb-$arch-stock-bench.txt" "$LOGS/itlb-$arch-default-bench.txt")
python3 "$TOP/harness/bench_report.py" \
	"$LOGS/console-$arch-stock-bench.log" "$LOGS/console-$arch-default-bench.log" \
	"${model[@]}" | tee "$out" || exit 1
echo "(saved in ${out#$TOP/})"
