#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make series-check: a kernel built at one step of the series.  The
# users of executable memory that exist at every step - BPF programs,
# kprobes, ftrace trampolines - each allocate and free through whatever
# allocator the step has (bench/jitload), a module of that kernel's own
# build (series-check puts it at /jitalloc/step.ko) is loaded and
# unloaded, and the KUnit suites built in at that step must have
# passed.  Exits non-zero on the first thing that failed.
cd /jitalloc || exit 1
fail=0
./jitload --bpf 200 --kprobes 20 --ftrace 4 --modules 0 >/tmp/jitload.out 2>&1
rc=$?
echo "### smoke: jitload --bpf 200 --kprobes 20 --ftrace 4: rc=$rc"
[ "$rc" = 0 ] || { tail -n 5 /tmp/jitload.out; fail=1; }
if [ -f /jitalloc/step.ko ]; then
	# The module's init may refuse the CPU (-ENODEV): it was allocated,
	# relocated and run all the same.  No memory, or a module the loader
	# could not lay out, is a failure.
	before=$(cut -d' ' -f1 /proc/modules)
	out=$(insmod /jitalloc/step.ko 2>&1)
	rc=$?
	if [ "$rc" = 0 ]; then
		name=$(cut -d' ' -f1 /proc/modules | grep -vxF "$before" | head -n 1)
		echo "### smoke: module $name loaded"
		rmmod "$name" || fail=1
	else
		case "$out" in
		*"No such device"*) echo "### smoke: module loaded, its init refused the CPU (ENODEV)" ;;
		*) echo "### smoke: module did not load: $out"; fail=1 ;;
		esac
	fi
else
	echo "### smoke: no module for this step"
fi
suites=$(dmesg | grep -c '^\[ *[0-9.]*\] *ok [0-9]* ')
bad=$(dmesg | grep -E '^\[ *[0-9.]*\] *not ok ' | head -n 3)
echo "### smoke: KUnit suites passed: $suites"
[ -z "$bad" ] || { echo "### smoke: KUnit: $bad"; fail=1; }
echo "### smoke: result $([ "$fail" = 0 ] && echo ok || echo FAIL)"
exit "$fail"
