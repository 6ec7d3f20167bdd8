#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make soak: the jitalloc selftest with its fault-free churn stretched to
# jt_soak seconds (kernel command line, default 600) while stress-ng keeps
# memory short, so that the shrinkers of the cache and the page blocks
# have to give memory back.  The churn test checks they did.
cd /jitalloc || exit 1
secs=${jt_soak:-600}
export JITALLOC_SOAK_SECONDS=$secs
# anonymous memory no swap can take: about 85 % of RAM in two workers,
# re-touched all the time, plus page-cache and slab churn; it outlasts
# the churn, which checks the shrinker under it and then stops it
export JITALLOC_SOAK_STRESS="/usr/bin/stress-ng --vm 2 --vm-bytes 85% --vm-keep --bigheap 1 --timeout $((secs + 3600))s --metrics-brief"
grep -E 'MemTotal|MemFree' /proc/meminfo
. /jitalloc/selftests.sh
run_selftests
grep -E 'MemFree|DirectMap' /proc/meminfo
exit $rc
