#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Drop every edit and commit in build/src/jitalloc that was not exported
# with "make patches", then re-apply patches/ and the overlay.
. "$(dirname "$0")/lib.sh"

[ -d "$SRC_PATCHED" ] || die "no build/src/jitalloc yet"
git -C "$SRC_PATCHED" am --abort >/dev/null 2>&1
git -C "$SRC_PATCHED" reset -q --hard base || die "could not reset build/src/jitalloc"
rm -f "$STAMP"
exec "$TOP/harness/apply.sh"
