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
	addrs=$LOGS/kaslr-$arch-$v.txt offs=$LOGS/kaslr-$arch-$v-offsets.txt
	: >"$addrs"
	: >"$offs"
	for i in $(seq "$boots"); do
		"$TOP/harness/boot.sh" "$arch" "$v" kaslr >/dev/null ||
			die "boot $i of $arch-$v failed (log: build/logs/console-$arch-$v-kaslr.log)"
		a=$(sed -n 's/.*### kaslr module text \(0x[0-9a-f]*\).*/\1/p' \
			"$LOGS/console-$arch-$v-kaslr.log" | tr -d '\r')
		[ -n "$a" ] || die "boot $i of $arch-$v printed no module address"
		echo "$a" >>"$addrs"
		sed -n 's/.*### kaslr module text offset \(-*[0-9]*\).*/\1/p' \
			"$LOGS/console-$arch-$v-kaslr.log" | tr -d '\r' >>"$offs"
	done
	n=$(sort -u "$addrs" | wc -l)
	echo "$arch-$v: $n distinct module .text addresses in $boots boots" \
	     "(lowest $(sort "$addrs" | head -n1), highest $(sort "$addrs" | tail -n1))"
	# the offset from the kernel's _stext: what the module region's own
	# randomization adds to the kernel image's
	echo "$arch-$v: $(sort -u "$offs" | wc -l) distinct offsets from _stext" \
	     "in $(wc -l <"$offs") boots (lowest $(sort -n "$offs" | head -n1)," \
	     "highest $(sort -n "$offs" | tail -n1))"
done
