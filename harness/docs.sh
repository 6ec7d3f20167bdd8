#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The series' documentation built by Sphinx as the kernel builds it (make
# htmldocs), limited to the directories that hold it: Documentation/mm
# (jitalloc.rst, with the kernel-doc of mm/jitalloc.c and
# include/linux/jitalloc.h), Documentation/admin-guide/mm (the operator's
# guide) and Documentation/filesystems (proc.rst's JitText).
#
# Fails, with one "file:line: message" line per warning, on a line of the
# series' .rst files wider than 80 columns, on any Sphinx or
# kernel-doc warning in the jitalloc .rst files, in the lines the series
# adds to proc.rst, or in the kernel-doc of mm/jitalloc*.[ch],
# include/linux/jitalloc.h and include/trace/events/jitalloc.h; and when a
# name that a kernel-doc directive of Documentation/mm/jitalloc.rst lists
# renders nothing (kernel-doc says nothing about a missing name when
# others of the list exist).  Warnings of upstream files are counted, not
# judged.  Sphinx reports warnings only for the documents it reads, so
# every run starts from an empty output directory.
#
# Output: HTML in build/out/docs/Documentation/output, the whole log in
# build/logs/docs.log.
# Usage: harness/docs.sh [--no-apply] [--src DIR]
#   --no-apply  build build/src/jitalloc as it is (harness/apply.sh has run)
#   --src DIR   build the kernel tree DIR as it is instead (for example a
#               worktree of the series with the overlay files copied in)
. "$(dirname "$0")/lib.sh"

src=$SRC_PATCHED apply=1
while [ $# -gt 0 ]; do
	case "$1" in
	--no-apply) apply= ;;
	--src)
		[ -n "$2" ] || die "harness/docs.sh: --src needs a directory"
		src=$(cd "$2" && pwd) || die "harness/docs.sh: no directory $2"
		apply=
		shift ;;
	*) die "usage: harness/docs.sh [--no-apply] [--src DIR]" ;;
	esac
	shift
done

start=$(date +%s)
"$TOP/harness/deps.sh" --docs x86_64 || exit 1
if [ -n "$apply" ]; then
	"$TOP/harness/apply.sh" >/dev/null || exit 1
fi
[ -f "$src/Documentation/Makefile" ] || die "$src is not a kernel tree"
[ -f "$src/Documentation/mm/jitalloc.rst" ] ||
	die "$src has no Documentation/mm/jitalloc.rst (overlay not copied in?)"

SPHINXDIRS="mm admin-guide/mm filesystems"
out=$OUT/docs
log=$LOGS/docs.log
: >"$log"
rm -rf "$out"
mkdir -p "$out"
stage "docs: sphinx ($SPHINXDIRS)" "$log" \
	make -C "$src" O="$out" SPHINXDIRS="$SPHINXDIRS" htmldocs || {
	echo "docs: FAIL make htmldocs failed (log: ${log#$TOP/})"
	exit 1
}

# Lines of proc.rst the series adds ("start count" pairs), widened by two
# lines each way: docutils may report a construct on a line next to it.
# Without the base to compare with, every line of proc.rst is judged.
proc_ranges=$(git -C "$src" diff -U0 base HEAD -- \
		Documentation/filesystems/proc.rst 2>/dev/null |
	sed -n 's/^@@ -[0-9,]* +\([0-9]*\)\(,\([0-9]*\)\)\{0,1\} @@.*/\1 \3/p' |
	awk '{ n = ($2 == "") ? 1 : $2; if (n) print $1, n }')
[ -n "$proc_ranges" ] || proc_ranges="1 1000000"

# Warning lines as "path:line: message", paths relative to the tree, each
# once (kernel-doc runs once per directive, Sphinx repeats some);
# kernel-doc says "warning:", Sphinx "WARNING:", docutils also "ERROR:" and
# "SEVERE:".
warnings=$(sed -e "s|^$src/||" -e "s|^$out/||" "$log" |
	grep -E '(^|: )(WARNING|ERROR|SEVERE|CRITICAL|warning|error):' |
	awk '!seen[$0]++')

ours=0 others=0
while IFS= read -r w; do
	[ -n "$w" ] || continue
	file=${w%%:*}
	rest=${w#*:}
	line=${rest%%:*}
	case "$line" in *[!0-9]*|'') line=0 ;; esac
	mine=
	case "$file" in
	Documentation/mm/jitalloc.rst|Documentation/admin-guide/mm/jitalloc.rst|\
	mm/jitalloc*.[ch]|include/linux/jitalloc.h|\
	include/trace/events/jitalloc.h)
		mine=1 ;;
	Documentation/filesystems/proc.rst)
		while read -r first count; do
			if [ "$line" -ge $((first - 2)) ] &&
			   [ "$line" -le $((first + count + 1)) ]; then
				mine=1
			fi
		done <<<"$proc_ranges" ;;
	esac
	if [ -n "$mine" ]; then
		echo "docs: FAIL $w"
		ours=$((ours + 1))
	else
		others=$((others + 1))
	fi
done <<<"$warnings"

# Every name a kernel-doc directive of jitalloc.rst lists must render:
# Sphinx's C domain gives it the id "c.NAME".
rst=$src/Documentation/mm/jitalloc.rst
html=$out/Documentation/output/mm/jitalloc.html
missing=0
while read -r lineno name; do
	grep -q "id=\"c\.$name\"" "$html" 2>/dev/null && continue
	echo "docs: FAIL Documentation/mm/jitalloc.rst:$lineno: kernel-doc of $name not found"
	missing=$((missing + 1))
done < <(awk '
	/^\.\. kernel-doc::/ { in_dir = 1; list = 0; next }
	in_dir && /^   :(functions|identifiers):/ {
		list = 1
		sub(/^   :(functions|identifiers):/, "")
	}
	in_dir && /^   :/ && !list { next }
	in_dir && list && /^[ \t]+[^ \t:]/ {
		for (i = 1; i <= NF; i++)
			print FNR, $i
		next
	}
	/^$/ || /^[^ \t]/ { in_dir = 0; list = 0 }
' "$rst")

# The series' documents keep to 80 columns (the kernel's rule for text).
wide=0
for f in Documentation/mm/jitalloc.rst Documentation/admin-guide/mm/jitalloc.rst; do
	while IFS=: read -r lineno cols; do
		echo "docs: FAIL $f:$lineno: $cols columns (at most 80)"
		wide=$((wide + 1))
	done < <(awk '{ n = length($0) } n > 80 { print FNR ":" n }' "$src/$f")
done
missing=$((missing + wide))

elapsed=$(($(date +%s) - start))
echo "docs: $((ours + missing)) problems in the series' documentation," \
	"$others warnings in upstream files (not judged);" \
	"HTML in ${out#$TOP/}/Documentation/output; ${elapsed}s"
[ $((ours + missing)) -eq 0 ]
