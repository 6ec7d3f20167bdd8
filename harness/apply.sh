#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bring build/src/jitalloc (a git worktree of the base, branch "series";
# build/6.12/src/jitalloc for BASE=6.12) to base + patches/series (v2's
# v2/patches/series) + overlay files.
#
# - Patches are applied with "git am" only when patches/ changed since the
#   last successful application; a patch that does not apply stops the build
#   naming the patch, the file and the hunk, and leaves the tree at base with
#   no stamp, so a half-applied tree is never reused.
# - Overlay files (the files the series adds) are copied only when their
#   content changed, so make rebuilds just what was touched.
# - Edits made in the tree and not yet exported with "make patches" are never
#   thrown away: the script refuses to reset such a tree.
. "$(dirname "$0")/lib.sh"


git_t() { git -C "$SRC_PATCHED" "$@"; }


[ -f "$SERIES" ] || die "${SERIES#$TOP/} not found"
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	[ -f "$SERIES_DIR/$p" ] || die "${SERIES#$TOP/} lists $p, which is not in ${SERIES_DIR#$TOP/}/"
done <"$SERIES"

if [ ! -d "$SRC_PATCHED/.git" ] && [ ! -f "$SRC_PATCHED/.git" ]; then
	git -C "$SRC_BASE" worktree prune
	git -C "$SRC_BASE" worktree add -q -f -B series "$SRC_PATCHED" base ||
		die "could not create the worktree $SRC_PATCHED"
	rm -f "$STAMP"
fi

want=$(patch_stamp)
have_stamp= have_head=
[ -f "$STAMP" ] && read -r have_stamp have_head <"$STAMP"
head=$(git_t rev-parse HEAD)

if [ "$want" != "$have_stamp" ] || [ "$head" != "$have_head" ]; then
	if [ -n "$have_head" ]; then
		if [ "$head" != "$have_head" ]; then
			die "build/src/jitalloc has commits not exported to patches/: run 'make patches' to keep them or 'make reset-tree' to drop them"
		fi
		if [ -n "$(git_t status --porcelain --untracked-files=no)" ]; then
			die "build/src/jitalloc has uncommitted edits to upstream files: commit them and run 'make patches', or 'make reset-tree' to drop them"
		fi
	fi
	git_t am --abort >/dev/null 2>&1
	# Remember content and mtime of every file the old series touched, so
	# files that come out of the new series unchanged keep their mtime and
	# make does not rebuild what depends on them.
	keep=$BASE_BUILD/src/jitalloc.mtimes
	(cd "$SRC_PATCHED" && git diff --name-only base HEAD 2>/dev/null |
		while read -r f; do
			[ -f "$f" ] && echo "$(sha1sum <"$f" | cut -c1-40) $(stat -c %Y "$f") $f"
		done) >"$keep"
	git_t reset -q --hard base || die "could not reset build/src/jitalloc to base"
	rm -f "$STAMP"
	n=0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		if ! out=$(git_t -c user.name=jitalloc -c user.email=jitalloc@localhost \
				am -q --empty=keep --whitespace=nowarn "$SERIES_DIR/$p" 2>&1); then
			where=$(echo "$out" | sed -n 's/^error: patch failed: //p' | head -n1)
			[ -n "$where" ] || where=$(echo "$out" | grep -m1 -E '^error:' | sed 's/^error: //')
			git_t am --abort >/dev/null 2>&1
			git_t reset -q --hard base
			echo "$out" >"$LOGS/apply-reject.log"
			die "patch $p does not apply: hunk at ${where:-unknown} (tree reset to base; details: build/logs/apply-reject.log)"
		fi
		n=$((n + 1))
	done <"$SERIES"
	while read -r sum mtime f; do
		[ -f "$SRC_PATCHED/$f" ] &&
		[ "$(sha1sum <"$SRC_PATCHED/$f" | cut -c1-40)" = "$sum" ] &&
		touch -d "@$mtime" "$SRC_PATCHED/$f"
	done <"$keep"
	echo "$want $(git_t rev-parse HEAD)" >"$STAMP"
	echo "applied $n patches"
fi

# Overlay: copy changed files, drop files that left the overlay.
new_manifest=$(mktemp)
pairs=$(mktemp)
overlay_files >"$pairs" || { rm -f "$new_manifest" "$pairs"; exit 1; }
cut -d' ' -f2 "$pairs" | sort >"$new_manifest"
copied=0
while read -r src f; do
	if git -C "$SRC_BASE" cat-file -e "base:$f" 2>/dev/null; then
		rm -f "$new_manifest" "$pairs"
		die "overlay file $f exists upstream: change it through a patch in ${SERIES_DIR#$TOP/}/"
	fi
	if ! cmp -s "$TOP/$src" "$SRC_PATCHED/$f"; then
		mkdir -p "$(dirname "$SRC_PATCHED/$f")"
		cp "$TOP/$src" "$SRC_PATCHED/$f"
		copied=$((copied + 1))
	fi
done <"$pairs"
rm -f "$pairs"
if [ -f "$MANIFEST" ]; then
	comm -23 "$MANIFEST" "$new_manifest" | while read -r f; do
		rm -f "$SRC_PATCHED/$f"
	done
fi
mv "$new_manifest" "$MANIFEST"
echo "overlay: $(wc -l <"$MANIFEST") files, $copied updated"
