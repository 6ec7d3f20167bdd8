#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bench workload: the demo, the exec phase and the kprobe/ftrace hit loops
# (windows of the iTLB model when QEMU has it), then timed module cycles,
# then text_mutex's holds over cycles of a small and a 2 MiB+ module.
exec /jitalloc/jitload --bpf 1000 --kprobes 100 --ftrace 20 --modules 10 \
	--module /jitalloc/jitalloc_testmod.ko --time-modules 200 \
	--mutex-cycles 20 --big-module /jitalloc/jitalloc_bigmod.ko \
	--bench-module /jitalloc/jitalloc_bench.ko --exec-rounds 20 --hit-rounds 200 "$@"
