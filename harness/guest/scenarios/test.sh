#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run the jitalloc kselftest; its TAP goes between markers the parser reads.
cd /jitalloc || exit 1
echo "### selftest jitalloc begin"
JITALLOC_TESTMOD=/jitalloc/jitalloc_testmod.ko ./jitalloc_test
rc=$?
echo "### selftest jitalloc end rc=$rc"
exit $rc
