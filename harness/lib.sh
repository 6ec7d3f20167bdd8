#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the jitalloc harness: paths, stage logging, errors.
# Sourced by every harness script; never run on its own.

set -o pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
DL=$BUILD/dl

# BASE: the kernel a series is made against, Debian's linux-source-$BASE.
#   6.1   the RFC's jit_* allocator and its cache: patches/ and the files
#         at the top level of the repository;
#   6.12  v2, the cache as an execmem backend: v2/patches/ (see v2/README.md
#         for which added files it takes from the top level and which are
#         its own, under v2/).
# Each base has its own trees, builds and logs under build/.
BASE=${BASE:-6.1}
case "$BASE" in
6.1)
	# Debian's linux-source-6.1 package version 6.1.192-3
	BASE_VERSION=6.1.192
	BASE_BUILD=$BUILD
	SERIES_DIR=$TOP/patches
	;;
6.12)
	# Debian's linux-source-6.12 package version 6.12.118-1~deb12u1
	BASE_VERSION=6.12.118
	BASE_BUILD=$BUILD/6.12
	SERIES_DIR=$TOP/v2/patches
	;;
*)
	echo "error: BASE=$BASE: the bases are 6.1 (the RFC series) and 6.12 (v2)" >&2
	exit 1
	;;
esac
export BASE
BASE_PKG=linux-source-$BASE
BASE_TARBALL=/usr/src/$BASE_PKG.tar.xz
SRC_BASE=$BASE_BUILD/src/base
SRC_PATCHED=$BASE_BUILD/src/jitalloc
OUT=$BASE_BUILD/out
LOGS=$BASE_BUILD/logs
ARCHES="x86_64 arm64"
VARIANTS="default debug nomodules hugevmap 16k"

# Files the series adds: copied from the repo top level into the patched
# tree.  Every regular file under these roots is overlay.
# The jitalloc kselftests by area, in the order they run: the first
# records the refused calls before any workload, the last checks them.
JT_SELFTESTS="jitalloc_modules jitalloc_users jitalloc_cache jitalloc_stats jitalloc_claims jitalloc_churn"
# v2 runs them all but jitalloc_claims, whose claims it runs as
# jitalloc_control (built for every base); the claims' other checks read
# the 6.1 allocator's API counters
[ "$BASE" = 6.12 ] && JT_SELFTESTS="jitalloc_modules jitalloc_users jitalloc_cache jitalloc_stats jitalloc_churn"
OVERLAY_ROOTS="include mm arch kernel lib Documentation tools/testing/selftests/jitalloc tools/vm"

# overlay_files: the files a base's series adds, one "SOURCE PATH" pair per
# line (SOURCE relative to the repo, PATH to the kernel tree).  6.1 takes
# every file under OVERLAY_ROOTS; 6.12 takes the top-level files v2/shared
# names, as they are (at the same path, or at the second path of a line
# that names two: tools/vm of 6.1 is tools/mm on 6.12), and the files
# under v2/ other than its patches and notes, at the path below v2/.
overlay_files() {
	local f
	case "$BASE" in
	6.1)
		for f in $OVERLAY_ROOTS; do
			[ -d "$TOP/$f" ] || continue
			(cd "$TOP" && find "$f" -type f ! -name '*.o' ! -name '*.ko' ! -name '.*' \
				! -name '*.mod' ! -name '*.mod.c' ! -name 'Module.symvers' \
				! -name 'modules.order')
		done | sort | awk '{ print $1, $1 }'
		;;
	6.12)
		sed -e 's/#.*//' "$TOP/v2/shared" | while read -r f to rest; do
			[ -n "$f" ] || continue
			[ -z "$rest" ] || die "v2/shared: more than two paths on the line of $f"
			[ -f "$TOP/$f" ] || die "v2/shared names $f, which is not in the repo"
			echo "$f ${to:-$f}"
		done || return 1
		(cd "$TOP/v2" && find . -type f ! -path './patches/*' ! -name README.md \
			! -name shared ! -name '.*' | sed 's|^\./||' | sort |
			awk '{ print "v2/" $1, $1 }')
		;;
	esac
}

SERIES=$SERIES_DIR/series
STAMP=$BASE_BUILD/src/jitalloc.applied	# "<patches hash> <HEAD after git am>"
MANIFEST=$BASE_BUILD/src/jitalloc.overlay	# overlay files copied into the tree

mkdir -p "$LOGS"

# O= builds pass absolute paths to the compiler; let ccache hash them
# relative to the checkout so a fresh clone elsewhere still hits.
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=true

# Hash of patches/series and every patch it lists, in order.
patch_stamp() {
	{
		cat "$SERIES" 2>/dev/null
		while read -r p; do
			case "$p" in ''|'#'*) continue ;; esac
			cat "$SERIES_DIR/$p" 2>/dev/null || echo "missing $p"
		done <"$SERIES"
	} | sha256sum | cut -d' ' -f1
}

die() {
	echo "error: $*" >&2
	exit 1
}

# stage NAME LOG CMD...: one line when it starts, its duration when done,
# and on failure the log path and its tail.
stage() {
	local name=$1 log=$2 start rc
	shift 2
	start=$(date +%s)
	printf '==> %-42s ' "$name"
	echo "==> $name: $*" >>"$log"
	"$@" >>"$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAILED after $(($(date +%s) - start))s (log: ${log#$TOP/})"
		tail -n 20 "$log" | sed 's/^/    /'
		return $rc
	fi
	echo "done in $(($(date +%s) - start))s"
}

check_arch() {
	case "$1" in
	x86_64|arm64) ;;
	*) die "unknown arch '$1' (known: $ARCHES)" ;;
	esac
}

check_variant() {
	case "$1" in
	default|debug|nomodules|hugevmap|16k|deb|stock) ;;
	temprw)
		# harness/modtext.sh's third kernel: v2 with module text made
		# temporarily writable (bench/v2-module-temp-rw.patch)
		[ "$BASE" = 6.12 ] || die "variant temprw is v2's (BASE=6.12) only"
		;;
	*) die "unknown variant '$1' (known: $VARIANTS deb stock temprw)" ;;
	esac
	[ "$1" = stock ] || [ -s "$SERIES" ] ||
		die "BASE=$BASE has no series yet (${SERIES#$TOP/} is empty or missing): only its stock kernel builds"
}

# Debian's own configuration of ARCH (package linux-config-$BASE), for
# the deb variant: "flavour_arch" names as in Debian's package names.
DEB_CONFIG_DIR=/usr/src/linux-config-$BASE
deb_config_file() {
	case "$1" in
	x86_64) echo "$DEB_CONFIG_DIR/config.amd64_none_amd64.xz" ;;
	*) die "the deb variant is built for x86_64 only (this host's linux-config-$BASE has Debian's amd64 configurations)" ;;
	esac
}

# make(1) arguments for building ARCH
kmake_args() {
	local cc=gcc cross=
	if [ "$1" = arm64 ]; then
		cross=aarch64-linux-gnu-
		cc=${cross}gcc
	fi
	command -v ccache >/dev/null && cc="ccache $cc"
	echo "ARCH=$1 ${cross:+CROSS_COMPILE=$cross} CC=\"$cc\""
}

kimage() {
	case "$1" in
	x86_64) echo arch/x86/boot/bzImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	esac
}

# Output directory for ARCH and VARIANT ("stock" builds the unpatched base)
outdir() {
	echo "$OUT/$1-$2"
}

srcdir_for() {
	case "$1" in
	stock) echo "$SRC_BASE" ;;
	temprw) echo "$BASE_BUILD/src/temprw" ;;
	*) echo "$SRC_PATCHED" ;;
	esac
}

# Fetch, apply, and build and pack both kernels of a side-by-side run:
# stock 6.1 and the series, from the same fragments (make bench, make kaslr).
# Build the iTLB model plugin (bench/itlb_model.c) for the host's QEMU if
# it is missing or older than its source; print its path.
itlb_model_so() {
	local so=$BUILD/tools/itlb_model.so src=$TOP/bench/itlb_model.c
	mkdir -p "$BUILD/tools"
	if [ ! -f "$so" ] || [ "$src" -nt "$so" ]; then
		cc -O2 -Wall -Werror -fPIC -shared -o "$so.tmp" "$src" &&
			mv "$so.tmp" "$so" || die "cannot build ${src#$TOP/}"
	fi
	echo "$so"
}

build_stock_and_series() {
	local v
	"$TOP/harness/deps.sh" "$1" || exit 1
	"$TOP/harness/fetch.sh" || exit 1
	"$TOP/harness/apply.sh" || exit 1
	for v in stock default; do
		"$TOP/harness/build.sh" "$1" "$v" || exit 1
		"$TOP/harness/initramfs.sh" "$1" "$v" || exit 1
	done
}
