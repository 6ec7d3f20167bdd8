#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# v2, the 6.12 series: the module loader's kselftest (module text and init
# text in the cache, written once, big modules, no W+X, read-only
# aliases); the users' (kprobes, ftrace, BPF programs and trampolines),
# the cache's (chunks, huge pages, aliases, kcore) and the statistics'
# (trace events, vmstat); the churn of every user at once (with injected
# faults where the kernel has failslab and fail_page_alloc), after which
# every pool is back where it started; the claims of the kselftest (BPF,
# kprobes and ftrace add no 4 KiB executable mapping, share executable
# areas, split no direct-map page), which must pass here and fail on stock
# 6.12 (the control scenario); arm64's page-table bits; then the
# pools' statistics, for the record.  The KUnit test
# of execmem's cache ran at boot.  On a kmemleak kernel, leaks at boot and
# after the tests fail the boot (kmemleak.sh).
cd /jitalloc || exit 1
. /jitalloc/kmemleak.sh
kmemleak_boot_check
# the kselftests by area, in order (harness/lib.sh's JT_SELFTESTS for
# 6.12), before anything else: the module loader's makes the first kprobe
# of the boot (jitalloc_modules.c, kprobe_slot_stand_in_not_kept)
. /jitalloc/selftests.sh
run_selftests
echo "### selftest jitalloc_control begin"
JT_CONTROL_ANY_KERNEL=1 ./jitalloc_control
echo "### selftest jitalloc_control end rc=$?"
# arm64's nG and GP bits on jit memory (skips on x86)
echo "### selftest jitalloc_prot begin"
JITALLOC_TESTMOD=/jitalloc/jitalloc_testmod.ko ./jitalloc_prot
echo "### selftest jitalloc_prot end rc=$?"
for f in /sys/kernel/debug/jitalloc/*; do
	[ -f "$f" ] || continue
	echo "### stats ${f##*/}"
	sed 's/^/### stats   /' "$f"
done
grep -E '^jit_cache_' /proc/vmstat | sed 's/^/### vmstat /'
kmemleak_after_tests
exit 0
