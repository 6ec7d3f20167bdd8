#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The users' churn through interfaces stock 6.1 has too, for jt_seconds
# (default 30): the claims' workload (64 BPF programs JITed and run, a
# kprobe event, ten ftrace instances with their trampolines), set up and
# torn down again and again.  Run the same way on stock and on the series
# by harness/hangrate.sh, which counts the boots that do not come back.
secs=${jt_seconds:-30}
cd /jitalloc || exit 1
end=$(($(cut -d. -f1 /proc/uptime) + secs))
rounds=0
while [ "$(cut -d. -f1 /proc/uptime)" -lt "$end" ]; do
	JT_CONTROL_ANY_KERNEL=1 ./jitalloc_control >/dev/null 2>&1
	rounds=$((rounds + 1))
done
echo "### hangrate: $rounds rounds in ${secs}s"
exit 0
