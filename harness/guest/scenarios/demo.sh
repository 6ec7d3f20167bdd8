#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo workload: BPF programs, kprobes, ftrace trampolines and module
# load/unload cycles, then what the allocator reports: the raw debugfs
# files and, at each phase, jitstat's summary (harness/run_story.py).
export JITLOAD_STAT=jitstat
exec /jitalloc/jitload --bpf 1000 --kprobes 100 --ftrace 20 --modules 10 \
	--module /jitalloc/jitalloc_testmod.ko "$@"
