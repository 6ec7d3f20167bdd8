#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: the series as a reviewer receives it.  Exports it
# (harness/series.sh), applies every exported patch with git am on a
# pristine base worktree, and builds the x86_64-default configuration after
# each one, so that every step of the series builds (bisectability).  Slow:
# one incremental kernel build per patch.  Not part of make test.
# SERIES_CHECK_FROM=N starts building at patch N (all are still applied).
. "$(dirname "$0")/lib.sh"

arch=x86_64
from=${SERIES_CHECK_FROM:-1}
"$TOP/harness/series.sh" || exit 1
"$TOP/harness/build.sh" "$arch" default || die "series-check: x86_64-default does not build"
cfg=$(outdir "$arch" default)/.config

work=$BUILD/src/series-check
O=$OUT/series-check-$arch
log=$LOGS/series-check.log
: >"$log"
git -C "$SRC_BASE" worktree remove --force "$work" >/dev/null 2>&1
rm -rf "$work"
git -C "$SRC_BASE" worktree prune
git -C "$SRC_BASE" worktree add -q -f -B series-check "$work" base ||
	die "could not create $work"
mkdir -p "$O"

start=$(date +%s)
n=0 built=0
for p in "$BUILD"/series/[0-9][0-9][0-9][0-9]-*.patch; do
	case "$p" in */0000-*) continue ;; esac
	n=$((n + 1))
	name=$(basename "$p")
	git -C "$work" -c user.name="jitalloc developers" -c user.email=jitalloc@localhost \
		am -q "$p" >>"$log" 2>&1 || {
		git -C "$work" am --abort >/dev/null 2>&1
		die "series-check: $name does not apply with git am (log: ${log#$TOP/})"
	}
	[ "$n" -lt "$from" ] && continue
	# the test configuration; options a patch has not added yet are dropped
	cp "$cfg" "$O/.config"
	stage "series-check: build after $name" "$log" \
		eval "make -C '$work' O='$O' $(kmake_args "$arch") olddefconfig bzImage modules -j$(nproc)" ||
		die "series-check: the series does not build after $name"
	built=$((built + 1))
done
[ "$n" -gt 0 ] || die "series-check: no patches in build/series"
echo "series-check: $n patches applied with git am on the pristine base, the kernel built after $built of them, in $(($(date +%s) - start))s"
