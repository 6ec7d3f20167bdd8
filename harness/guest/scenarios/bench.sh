#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bench workload: the demo, the exec phase and the kprobe/ftrace hit loops
# (windows of the iTLB model when QEMU has it), then timed module cycles.
exec /jitalloc/jitload --bpf 1000 --kprobes 100 --ftrace 20 --modules 10 \
	--module /jitalloc/jitalloc_testmod.ko --time-modules 200 \
	--bench-module /jitalloc/jitalloc_bench.ko --exec-rounds 20 --hit-rounds 200 "$@"
