#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.1 into build/src/base as a git repository
# whose only commit (tag "base") is the pristine source, and print its
# version.  The patched tree is a worktree of this repository.
. "$(dirname "$0")/lib.sh"

if ! git -C "$SRC_BASE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL not found: install linux-source-6.1"
	rm -rf "$SRC_BASE" "$BUILD/src/unpack"
	mkdir -p "$BUILD/src/unpack"
	tar -C "$BUILD/src/unpack" -xf "$BASE_TARBALL" || die "could not unpack $BASE_TARBALL"
	mv "$BUILD/src/unpack"/linux-source-6.1 "$SRC_BASE" && rmdir "$BUILD/src/unpack"
	(
		cd "$SRC_BASE" && git init -q -b upstream &&
		git add -f -A &&
		git -c user.name=jitalloc -c user.email=jitalloc@localhost \
			commit -q -m "Debian linux-source-6.1 $(make -s kernelversion)" &&
		git tag base
	) || die "could not create the base git repository in $SRC_BASE"
	dpkg-query -W -f='${Version}' linux-source-6.1 >"$SRC_BASE/.jitalloc-package" 2>/dev/null
fi
# The tree was unpacked from one version of the package: say so when apt
# has upgraded it since, rather than test a base that is no longer there.
have=$(cat "$SRC_BASE/.jitalloc-package" 2>/dev/null)
now=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
if [ -n "$have" ] && [ -n "$now" ] && [ "$have" != "$now" ]; then
	die "linux-source-6.1 is $now now, build/src/base was unpacked from $have: remove build/src (after 'make patches' if build/src/jitalloc has edits) to unpack it again"
fi
ver=$(make -s -C "$SRC_BASE" kernelversion 2>/dev/null)
echo "base: Debian linux-source-6.1, kernel $ver"
# apt installs the newest linux-source-6.1: say when that is not the
# version the series was made against (harness/apply.sh then tells
# whether it still applies)
[ "$ver" = "$BASE_VERSION" ] ||
	echo "warning: the series is made against $BASE_VERSION, linux-source-6.1 gives $ver: patches may not apply" >&2
