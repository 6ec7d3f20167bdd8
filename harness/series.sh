#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series: turn the repo into the patch series a kernel developer
# consumes, in build/series/: a cover letter (patches/cover-letter.txt)
# and one patch per entry of patches/series.  New files from the overlay
# go into the patch whose message names them in an "Adds: <path>" line;
# the line itself is dropped from the message.
# SERIES_BUILD=ARCH additionally builds each step (slow) to show that
# every patch builds on its own.
. "$(dirname "$0")/lib.sh"

"$TOP/harness/fetch.sh" >/dev/null || exit 1
work=$BUILD/src/series-export
dest=$BUILD/series
git -C "$SRC_BASE" worktree remove --force "$work" >/dev/null 2>&1
rm -rf "$work"
git -C "$SRC_BASE" worktree prune
git -C "$SRC_BASE" worktree add -q -f -B series-export "$work" base ||
	die "could not create $work"
git_w() { git -C "$work" -c user.name="jitalloc developers" -c user.email=jitalloc@localhost "$@"; }

claimed=$(mktemp)
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	git_w am -q "$TOP/patches/$p" || { git_w am --abort; die "patch $p does not apply"; }
	adds=$(git_w log -1 --format=%B | sed -n 's/^Adds: *//p')
	[ -n "$adds" ] || continue
	for f in $adds; do
		[ -f "$TOP/$f" ] || die "patch $p says 'Adds: $f' but $f is not in the repo"
		mkdir -p "$work/$(dirname "$f")"
		cp "$TOP/$f" "$work/$f"
		git_w add -f "$f"
		echo "$f" >>"$claimed"
	done
	msg=$(git_w log -1 --format=%B | grep -v '^Adds: ')
	git_w commit -q --amend -m "$msg"
	if [ -n "$SERIES_BUILD" ]; then
		O=$OUT/series-$SERIES_BUILD
		stage "series: build after $p" "$LOGS/series-build.log" \
			make -C "$work" O="$O" $(eval echo $(kmake_args "$SERIES_BUILD")) olddefconfig all -j"$(nproc)" ||
			die "the series does not build after $p"
	fi
done <"$TOP/patches/series"

unclaimed=$(cd "$TOP" && for r in $OVERLAY_ROOTS; do [ -d "$r" ] && find "$r" -type f; done |
	sort | comm -23 - <(sort "$claimed"))
rm -f "$claimed"
if [ -n "$unclaimed" ]; then
	echo "$unclaimed" | while read -r f; do
		mkdir -p "$work/$(dirname "$f")"
		cp "$TOP/$f" "$work/$f"
		git_w add -f "$f"
	done
	git_w commit -q -m "jitalloc: add tests and documentation

Files of the series that no earlier patch adds:
$(echo "$unclaimed" | sed 's/^/  /')"
fi

rm -rf "$dest" && mkdir -p "$dest"
git_w format-patch -q --cover-letter --no-signature -o "$dest" base..HEAD ||
	die "git format-patch failed"
cover=$(ls "$dest"/0000-*.patch)
if [ -f "$TOP/patches/cover-letter.txt" ]; then
	python3 - "$cover" "$TOP/patches/cover-letter.txt" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read()
subject, _, body = text.partition('\n')
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', subject.strip())
s = s.replace('*** BLURB HERE ***', body.strip())
open(cover, 'w').write(s)
PY
fi
echo "series: $(ls "$dest" | wc -l) files in ${dest#$TOP/}"
