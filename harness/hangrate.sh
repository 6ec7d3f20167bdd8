#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make hangrate: how often a two-CPU guest does not come back, stock 6.1
# against the series, booted the same way (same QEMU, -smp 2, same
# configuration) with the same churn through interfaces both kernels have
# (harness/guest/scenarios/hangrate.sh: BPF programs, a kprobe event,
# ftrace instances), BOOTS times each (default 30), HANG_SECONDS of churn
# per boot (default 30).  No boot is repeated.  A boot that does not end
# has where each vCPU was (program counter, function, halted or not)
# written into its console by harness/boot.sh; each such console is kept
# as build/logs/hangrate/ARCH-VARIANT-N.log.
# Usage: harness/hangrate.sh [ARCH]
. "$(dirname "$0")/lib.sh"
# vCPUs in threads of their own (QEMU's MTTCG), the way the hangs it counts
# were seen, also on 6.12 x86_64, whose boots otherwise share one thread
export TCG_THREAD=${TCG_THREAD:-multi}

arch=${1:-x86_64}
boots=${BOOTS:-30}
secs=${HANG_SECONDS:-30}
check_arch "$arch"
case "$boots$secs" in
*[!0-9]*) die "BOOTS and HANG_SECONDS must be numbers (got '$boots', '$secs')" ;;
esac
build_stock_and_series "$arch"
dir=$LOGS/hangrate
mkdir -p "$dir"
rm -f "$dir/$arch"-*.log
summary=$dir/$arch-summary.txt
: >"$summary"
for v in stock default; do
	ok=0 fault=0 silent=0 other=0
	log=$LOGS/console-$arch-$v-hangrate.log
	for i in $(seq "$boots"); do
		BOOT_RETRY=0 BOOT_TIMEOUT=${BOOT_TIMEOUT:-$((secs + 120))} \
		GUEST_ARGS="jt_seconds=$secs" \
			"$TOP/harness/boot.sh" "$arch" "$v" hangrate >/dev/null 2>&1
		if [ $? -eq 0 ]; then
			ok=$((ok + 1))
			continue
		fi
		cp "$log" "$dir/$arch-$v-$i.log"
		if grep -qa '^### vcpu dump: QEMU TCG timer fault' "$log"; then
			fault=$((fault + 1)) kind="QEMU timer fault"
		elif grep -qa '^### vcpu dump: no end' "$log"; then
			silent=$((silent + 1)) kind="no end"
			# what the hang detectors said before the timeout, if anything
			report=$(tr -d '\r' <"$log" | grep -a -m1 -oE 'soft lockup - CPU#[0-9]+ stuck|blocked for more than [0-9]+ seconds|rcu: INFO: [^(]*stall|workqueue lockup')
			[ -n "$report" ] && kind="no end ($report)"
		else
			other=$((other + 1)) kind="failed"
		fi
		echo "$arch-$v boot $i: $kind; $(grep -a '^vcpu ' "$log" | tr -d '\r' | paste -sd ';' -) (build/logs/hangrate/$arch-$v-$i.log)" |
			tee -a "$summary"
	done
	echo "$arch-$v: $boots boots: $ok finished, $fault stopped at QEMU's timer fault, $silent with no end by the timeout, $other failed otherwise" |
		tee -a "$summary"
done
echo "(summary in ${summary#$TOP/})"
