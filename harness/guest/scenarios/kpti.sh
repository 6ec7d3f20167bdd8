#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# arm64 booted "nokaslr kpti=1" on a CPU with BTI (harness/boot.sh): KPTI
# makes kernel mappings non-global only once the CPUs are up, so memory
# the jit allocator maps afterwards must be non-global too, and guarded
# where it is executable.  Runs the protection selftest alone.  The
# meltdown file says whether the CPU is affected ("Not affected" on -cpu
# max), not whether KPTI is on: the test's reference is the kernel's own
# text, non-global once KPTI is on, and a skip fails this boot.
cd /jitalloc || exit 1
for f in meltdown; do
	echo "### vulnerability $f: $(cat /sys/devices/system/cpu/vulnerabilities/$f)"
done
grep -m1 -o ' bti\b' /proc/cpuinfo >/dev/null && echo "### cpu has BTI"
echo "### selftest jitalloc_prot begin"
JITALLOC_TESTMOD=/jitalloc/jitalloc_testmod.ko ./jitalloc_prot
rc=$?
echo "### selftest jitalloc_prot end rc=$rc"
exit 0
