#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The negative control, on stock 6.1: the claim tests of the jitalloc
# selftest, each of which must fail here (harness/parse_results.py
# --expect-fail).
cd /jitalloc || exit 1
echo "### selftest jitalloc_control begin"
./jitalloc_control
rc=$?
echo "### selftest jitalloc_control end rc=$rc"
exit 0
