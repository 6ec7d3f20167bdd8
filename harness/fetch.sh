#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-$BASE into the base's src/base (build/src/base
# for 6.1, build/6.12/src/base for 6.12) as a git repository whose only
# commit (tag "base") is the pristine source, and print its version.  The
# patched tree is a worktree of this repository.
. "$(dirname "$0")/lib.sh"

if ! git -C "$SRC_BASE" rev-parse -q --verify refs/tags/base >/dev/null 2>&1; then
	[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL not found: install $BASE_PKG (make deps)"
	unpack=$BASE_BUILD/src/unpack
	rm -rf "$SRC_BASE" "$unpack"
	mkdir -p "$unpack"
	tar -C "$unpack" -xf "$BASE_TARBALL" || die "could not unpack $BASE_TARBALL"
	mv "$unpack/$BASE_PKG" "$SRC_BASE" && rmdir "$unpack" ||
		die "$BASE_TARBALL does not hold $BASE_PKG/"
	(
		cd "$SRC_BASE" && git init -q -b upstream &&
		git add -f -A &&
		git -c user.name=jitalloc -c user.email=jitalloc@localhost \
			commit -q -m "Debian $BASE_PKG $(make -s kernelversion)" &&
		git tag base
	) || die "could not create the base git repository in $SRC_BASE"
	dpkg-query -W -f='${Version}' "$BASE_PKG" >"$SRC_BASE/.jitalloc-package" 2>/dev/null
fi
# The tree was unpacked from one version of the package: say so when apt
# has upgraded it since, rather than test a base that is no longer there.
have=$(cat "$SRC_BASE/.jitalloc-package" 2>/dev/null)
now=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null)
if [ -n "$have" ] && [ -n "$now" ] && [ "$have" != "$now" ]; then
	die "$BASE_PKG is $now now, ${SRC_BASE#$TOP/} was unpacked from $have: remove ${SRC_BASE%/base}/ (after 'make patches' if its jitalloc tree has edits) to unpack it again"
fi
ver=$(make -s -C "$SRC_BASE" kernelversion 2>/dev/null)
echo "base: Debian $BASE_PKG, kernel $ver"
# apt installs the newest $BASE_PKG: say when that is not the
# version the series was made against (harness/apply.sh then tells
# whether it still applies)
[ "$ver" = "$BASE_VERSION" ] ||
	echo "warning: the series is made against $BASE_VERSION, $BASE_PKG gives $ver: patches may not apply" >&2
