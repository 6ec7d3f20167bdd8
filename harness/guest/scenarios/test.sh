#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the jitalloc kselftest; its TAP goes between markers the parser reads.
# On a kmemleak kernel, leaks at boot and after the tests fail the boot
# (kmemleak.sh).
cd /jitalloc || exit 1
# The mitigations the kernel applies to module and JIT text here.
for f in /sys/devices/system/cpu/vulnerabilities/*; do
	[ -f "$f" ] && echo "### vulnerability ${f##*/}: $(cat "$f")"
done
. /jitalloc/kmemleak.sh
kmemleak_boot_check
# the kselftests by area, in order
. /jitalloc/selftests.sh
run_selftests
echo "### selftest jitalloc_prot begin"
JITALLOC_TESTMOD=/jitalloc/jitalloc_testmod.ko ./jitalloc_prot
prc=$?
echo "### selftest jitalloc_prot end rc=$prc"
[ $rc -eq 0 ] && rc=$prc

kmemleak_after_tests
exit $rc
