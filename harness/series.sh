#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series: turn the repo into the patch series a kernel developer
# consumes, in build/series/ (build/6.12/series/ for BASE=6.12): a cover letter (patches/cover-letter.txt)
# and one patch per entry of patches/series.  New files from the overlay
# go into the patch whose message names them in an "Adds: <path>" line;
# the line itself is dropped from the message.
# The overlay holds each added file in its final form.  A later patch that
# changes an added file (an arch opting a type into the cache once its users
# write through jit_update, say) has that change in patches/staged/NNNN.diff,
# NNNN being the patch's number: the file goes into its "Adds:" patch with
# the staged changes of all later patches taken back, and each patch gets
# its own staged change, so every step holds the files as they were then.
# At the end every file of the export must equal the overlay's.
# SERIES_BUILD=ARCH additionally builds each step (slow) to show that
# every patch builds on its own.
. "$(dirname "$0")/lib.sh"

# One export at a time: they share the export worktree and build/series.
mkdir -p "$BUILD" || exit 1
exec 9>"$BASE_BUILD/.series.lock"
flock -n 9 || die "another export (make series, make check) is running: build/.series.lock is held"
"$TOP/harness/fetch.sh" >/dev/null || exit 1
work=$BASE_BUILD/src/series-export
dest=$BASE_BUILD/series
git -C "$SRC_BASE" worktree remove --force "$work" >/dev/null 2>&1
rm -rf "$work"
git -C "$SRC_BASE" worktree prune
git -C "$SRC_BASE" worktree add -q -f -B series-export "$work" base ||
	die "could not create $work"
git_w() { git -C "$work" -c user.name="jitalloc developers" -c user.email=jitalloc@localhost "$@"; }

staged=$SERIES_DIR/staged
rel=${SERIES_DIR#$TOP/}
# where each added file comes from in the repo: "SOURCE PATH" pairs
pairs=$(mktemp)
overlay_files >"$pairs" || exit 1
src_of() { awk -v f="$1" '$2 == f { print $1 }' "$pairs"; }
# added_version FILE NUM DEST: FILE as patch NUM adds it, i.e. the overlay's
# FILE with the staged changes of the patches after NUM taken back, the
# newest first
added_version() {
	local f=$1 num=$2 dest=$3 d n tmp
	tmp=$(mktemp -d)
	mkdir -p "$tmp/$(dirname "$f")"
	cp "$TOP/$(src_of "$f")" "$tmp/$f"
	for d in $(ls -r "$staged"/[0-9][0-9][0-9][0-9].diff 2>/dev/null); do
		n=$(basename "$d" .diff)
		[ "$((10#$n))" -gt "$((10#$num))" ] || continue
		[ -n "$(cd "$tmp" && git apply --numstat --include="$f" "$d")" ] || continue
		(cd "$tmp" && git apply -R --include="$f" "$d") || {
			rm -rf "$tmp"
			die "$rel/staged/$n.diff cannot be taken back from $f: make its hunks match the file"
		}
	done
	cp "$tmp/$f" "$dest"
	rm -rf "$tmp"
}

claimed=$(mktemp)
trap 'rm -f "$claimed" "$pairs"' EXIT
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	git_w am -q --empty=keep "$SERIES_DIR/$p" || { git_w am --abort; die "patch $p does not apply"; }
	num=${p%%-*}
	adds=$(git_w log -1 --format=%B | sed -n 's/^Adds: *//p')
	for f in $adds; do
		[ -n "$(src_of "$f")" ] || die "patch $p says 'Adds: $f' but $f is not in the repo (for BASE=$BASE)"
		mkdir -p "$work/$(dirname "$f")"
		added_version "$f" "$num" "$work/$f"
		git_w add -f "$f"
		echo "$f" >>"$claimed"
	done
	if [ -f "$staged/$num.diff" ]; then
		for f in $(git_w apply --numstat "$staged/$num.diff" | cut -f3); do
			grep -qxF "$f" "$claimed" ||
				die "$rel/staged/$num.diff changes $f, which no patch before $p adds"
		done
		git_w apply --index "$staged/$num.diff" ||
			die "$rel/staged/$num.diff does not apply after $p (it may only change files earlier patches add)"
	fi
	[ -n "$adds" ] || [ -f "$staged/$num.diff" ] || continue
	msg=$(git_w log -1 --format=%B | grep -v '^Adds:')
	git_w commit -q --amend -m "$msg"
	if [ -n "$SERIES_BUILD" ]; then
		O=$OUT/series-$SERIES_BUILD
		stage "series: build after $p" "$LOGS/series-build.log" \
			make -C "$work" O="$O" $(eval echo $(kmake_args "$SERIES_BUILD")) olddefconfig all -j"$(nproc)" ||
			die "the series does not build after $p"
	fi
done <"$SERIES"

unclaimed=$(cut -d' ' -f2 "$pairs" | sort | comm -23 - <(sort "$claimed"))
if [ -n "$unclaimed" ]; then
	die "no patch adds $(echo "$unclaimed" | paste -sd ' ' -): name each in an \"Adds:\" line of the patch that brings it"
fi

for d in "$staged"/*.diff; do
	[ -e "$d" ] || continue
	n=$(basename "$d" .diff)
	grep -q "^$n-" "$SERIES" ||
		die "$rel/staged/$n.diff belongs to no patch in $rel/series"
done
while read -r src f; do
	cmp -s "$TOP/$src" "$work/$f" ||
		die "the exported series leaves $f different from the overlay's: check $rel/staged"
done <"$pairs" || exit 1

rm -rf "$dest" && mkdir -p "$dest"
git_w format-patch -q --cover-letter --no-signature --subject-prefix="$([ "$BASE" = 6.1 ] && echo "RFC PATCH" || echo "RFC PATCH v2")" \
	-o "$dest" base..HEAD ||
	die "git format-patch failed"
cover=$(ls "$dest"/0000-*.patch)
if [ -f "$SERIES_DIR/cover-letter.txt" ]; then
	python3 - "$cover" "$SERIES_DIR/cover-letter.txt" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read()
subject, _, body = text.partition('\n')
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', subject.strip())
s = s.replace('*** BLURB HERE ***', body.strip())
open(cover, 'w').write(s)
PY
fi
# quilt's list, for a Debian kernel package's debian/patches/ (-p1)
(cd "$dest" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$dest/series"
echo "series: $(ls "$dest"/[0-9]*.patch | wc -l) files and a quilt series file in ${dest#$TOP/} (hash $(patch_stamp | cut -c1-16))"
