#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make kaslr: module KASLR entropy, stock 6.1 vs the series.  Boots each
# kernel BOOTS times (default 50), loads the test module and counts the
# distinct addresses its .text got.
# Usage: harness/kaslr.sh [ARCH]
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
boots=${BOOTS:-50}
check_arch "$arch"
build_stock_and_series "$arch"
for v in stock default; do
	addrs=$LOGS/kaslr-$arch-$v.txt
	: >"$addrs"
	for i in $(seq "$boots"); do
		"$TOP/harness/boot.sh" "$arch" "$v" kaslr >/dev/null ||
			die "boot $i of $arch-$v failed (log: build/logs/console-$arch-$v-kaslr.log)"
		a=$(sed -n 's/.*### kaslr module text \(0x[0-9a-f]*\).*/\1/p' \
			"$LOGS/console-$arch-$v-kaslr.log" | tr -d '\r')
		[ -n "$a" ] || die "boot $i of $arch-$v printed no module address"
		echo "$a" >>"$addrs"
	done
	n=$(sort -u "$addrs" | wc -l)
	echo "$arch-$v: $n distinct module .text addresses in $boots boots" \
	     "(lowest $(sort "$addrs" | head -n1), highest $(sort "$addrs" | tail -n1))"
done
