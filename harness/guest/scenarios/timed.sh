#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The bench's timed rows alone, for the repeated boots of harness/bench.sh
# (BENCH_BOOTS): module load+unload cycles and the bench module without
# its alloc_free rows.  No workload before them.
exec /jitalloc/jitload --module /jitalloc/jitalloc_testmod.ko --time-modules 200 \
	--bench-module /jitalloc/jitalloc_bench.ko --bench-args alloc_free=0 "$@"
