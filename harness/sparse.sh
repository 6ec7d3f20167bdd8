#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# sparse on what the series touches, against the base: every C file the
# patches change or the overlay adds that the ARCH-default kernel builds is
# checked (C=2) in the patched tree, and the files the patches change are
# checked in the stock tree (same fragments, unpatched); a warning the
# patched tree has more often than the base, line numbers aside, is new and
# fails.  Needs both kernels built (harness/build.sh ARCH default|stock);
# --build builds them first (make check).
# Usage: harness/sparse.sh ARCH [--build] [--totals FILE]
. "$(dirname "$0")/lib.sh"

arch=$1
[ -n "$arch" ] || die "usage: harness/sparse.sh ARCH [--build] [--totals FILE]"
check_arch "$arch"
shift
totals=/dev/null build=
while [ $# -gt 0 ]; do
	case "$1" in
	--build) build=1 ;;
	--totals) totals=$2; shift ;;
	*) die "harness/sparse.sh: unknown option '$1'" ;;
	esac
	shift
done
if [ -n "$build" ]; then
	"$TOP/harness/build.sh" "$arch" default && "$TOP/harness/build.sh" "$arch" stock ||
		die "sparse: the kernels to check did not build"
fi
log=$LOGS/sparse-$arch.log
: >"$log"

result() {
	echo "$1 $2 0" >>"$totals"
}

command -v sparse >/dev/null || {
	echo "FAIL sparse: not installed (make deps installs Debian's sparse)"
	result 0 1
	exit 1
}
patched_o=$(outdir "$arch" default)
stock_o=$(outdir "$arch" stock)
for o in "$patched_o" "$stock_o"; do
	[ -f "$o/vmlinux" ] || {
		echo "FAIL sparse: ${o#$TOP/} is not built (harness/build.sh $arch ...)"
		result 0 1
		exit 1
	}
done

# C files changed by the patches (upstream files) and added by the overlay,
# as objects the configuration builds.
changed=$(sed -n 's|^+++ b/\(.*\.c\)$|\1|p' "$TOP"/patches/[0-9]*.patch | sort -u)
added=$(cd "$TOP" && find mm arch kernel lib -name '*.c' 2>/dev/null | sort -u)
objs_in() {
	local o=$1 f
	shift
	for f in "$@"; do
		[ -f "$o/${f%.c}.o" ] && echo "${f%.c}.o"
	done
}
# patch-added files exist only in the patched tree
upstream=$(for f in $changed; do [ -f "$SRC_BASE/$f" ] && echo "$f"; done)
p_objs=$(objs_in "$patched_o" $changed $added | sort -u)
b_objs=$(objs_in "$stock_o" $upstream | sort -u)
[ -n "$p_objs" ] || { echo "FAIL sparse: no object of the series is built in ${patched_o#$TOP/}"; result 0 1; exit 1; }

# Warnings are judged only in the files the series adds or changes (C
# and headers): a warning in an untouched header would show once per
# object that includes it, and the series adds objects the base lacks.
touched=$( (sed -n 's|^+++ b/\(.*\.[ch]\)$|\1|p' "$TOP"/patches/[0-9]*.patch
	    cd "$TOP" && find include mm arch kernel lib -name '*.[ch]' 2>/dev/null) | sort -u)

# "file: warning: text" per warning in a touched file, the file relative
# to the tree, line and column numbers dropped.  The objects are brought
# up to date first, so that the checking pass prints only sparse.
run_sparse() {
	local src=$1 o=$2
	shift 2
	eval "make -C '$src' O='$o' $(kmake_args "$arch") $*" >>"$log" 2>&1 || return 1
	eval "make -C '$src' O='$o' $(kmake_args "$arch") C=2 CHECK=sparse $*" \
		>>"$log" 2>"$log.err"
	local rc=$?
	cat "$log.err" >>"$log"
	grep -E '^[^ :]+:[0-9]+:[0-9]+: (warning|error):' "$log.err" |
		sed -E "s|^$src/||; s|^$o/||; s|^\./||" |
		sed -E 's/^([^:]+):[0-9]+:[0-9]+: /\1: /' |
		awk -F': ' 'NR == FNR { t[$0] = 1; next } ($1 in t)' <(echo "$touched") - |
		sort
	rm -f "$log.err"
	return $rc
}

start=$(date +%s)
printf '==> %-42s ' "sparse ($arch, $(echo "$p_objs" | wc -l) objects)"
echo "== patched: $p_objs" >>"$log"
new_w=$(run_sparse "$SRC_PATCHED" "$patched_o" $p_objs) || {
	echo "FAILED (make C=2 failed, log: ${log#$TOP/})"
	result 0 1
	exit 1
}
echo "== base: $b_objs" >>"$log"
base_w=
if [ -n "$b_objs" ] && ! base_w=$(run_sparse "$SRC_BASE" "$stock_o" $b_objs); then
	echo "FAILED (make C=2 on the base failed, log: ${log#$TOP/})"
	result 0 1
	exit 1
fi
# what the patched tree says more often than the base
extra=$(comm -23 <(echo "$new_w" | grep -v '^$' | awk '{n[$0]++; print $0 "\t" n[$0]}' | sort) \
		 <(echo "$base_w" | grep -v '^$' | awk '{n[$0]++; print $0 "\t" n[$0]}' | sort) |
	cut -f1)
nb=$(echo "$base_w" | grep -vc '^$')
np=$(echo "$new_w" | grep -vc '^$')
echo "== base $nb warnings, patched $np" >>"$log"
if [ -n "$extra" ]; then
	echo "FAILED after $(($(date +%s) - start))s: $(echo "$extra" | wc -l) new sparse warnings (log: ${log#$TOP/})"
	echo "$extra" | head -n 20 | sed 's/^/    /'
	result 0 1
	exit 1
fi
echo "done in $(($(date +%s) - start))s: no new warnings (base $nb, patched $np)"
result 1 0
