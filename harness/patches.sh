#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The round trip for edits to upstream files:
#   1. edit under build/src/jitalloc and commit there (git commit, or
#      git commit --fixup + git rebase -i --autosquash base)
#   2. harness/patches.sh (make patches) regenerates patches/ and
#      patches/series from base..series; commit the result in this repo.
# Overlay files (the ones the series adds) are edited in this repo only.
. "$(dirname "$0")/lib.sh"

git_t() { git -C "$SRC_PATCHED" "$@"; }

[ -d "$SRC_PATCHED" ] || die "no build/src/jitalloc: run make test or harness/apply.sh first"
[ -z "$(git_t status --porcelain --untracked-files=no)" ] ||
	die "build/src/jitalloc has uncommitted edits: commit them first"
overlay=$(cat "$MANIFEST" 2>/dev/null)
for f in $(git_t diff --name-only base..HEAD); do
	if echo "$overlay" | grep -qx "$f"; then
		die "commit in build/src/jitalloc touches overlay file $f: edit it in the repo instead"
	fi
done
tmp=$(mktemp -d)
git_t format-patch -q -N --always --no-signature --zero-commit -o "$tmp" base..HEAD ||
	die "git format-patch failed"
rm -f "$SERIES_DIR"/*.patch
mkdir -p "$SERIES_DIR"; mv "$tmp"/*.patch "$SERIES_DIR/" 2>/dev/null
rmdir "$tmp" 2>/dev/null || rm -rf "$tmp"
(cd "$SERIES_DIR" && ls -1 *.patch 2>/dev/null) >"$SERIES"
# The tree now is exactly what patches/ describes.
echo "$(patch_stamp) $(git_t rev-parse HEAD)" >"$STAMP"
echo "${SERIES_DIR#$TOP/}/: $(wc -l <"$SERIES") patches exported"
