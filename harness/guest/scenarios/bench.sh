#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bench workload: the demo, then timed module load/unload cycles.
exec /jitalloc/jitload --bpf 1000 --kprobes 100 --ftrace 20 --modules 10 \
	--module /jitalloc/jitalloc_testmod.ko --time-modules 200 \
	--bench-module /jitalloc/jitalloc_bench.ko --exec-rounds 20 "$@"
