#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# v2, the 6.12 series: the claims of the kselftest (BPF, kprobes and
# ftrace add no 4 KiB executable mapping, share executable areas, split no
# direct-map page), which must pass here and fail on stock 6.12 (the
# control scenario); the module loader's kselftest (module text and init
# text in the cache, written once, big modules, no W+X, read-only
# aliases); the churn of every user at once (with injected faults where
# the kernel has failslab and fail_page_alloc), after which every pool
# is back where it started; then the pools' statistics, for the record.  The KUnit test
# of execmem's cache ran at boot.  On a kmemleak kernel, leaks at boot and
# after the tests fail the boot (kmemleak.sh).
cd /jitalloc || exit 1
. /jitalloc/kmemleak.sh
kmemleak_boot_check
echo "### selftest jitalloc_control begin"
JT_CONTROL_ANY_KERNEL=1 ./jitalloc_control
rc=$?
echo "### selftest jitalloc_control end rc=$rc"
echo "### selftest jitalloc_modules begin"
JITALLOC_TESTMOD=/jitalloc/jitalloc_testmod.ko ./jitalloc_modules
echo "### selftest jitalloc_modules end rc=$?"
echo "### selftest jitalloc_churn begin"
JITALLOC_TESTMOD=/jitalloc/jitalloc_testmod.ko ./jitalloc_churn
echo "### selftest jitalloc_churn end rc=$?"
for f in /sys/kernel/debug/jitalloc/*; do
	[ -f "$f" ] || continue
	echo "### stats ${f##*/}"
	sed 's/^/### stats   /' "$f"
done
grep -E '^jit_cache_' /proc/vmstat | sed 's/^/### vmstat /'
kmemleak_after_tests
exit 0
