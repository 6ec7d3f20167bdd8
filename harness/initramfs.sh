#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the guest initramfs for ARCH/VARIANT: static busybox, the /init and
# scenarios from harness/guest, the selftest and bench programs (static),
# and the test module built against that kernel.  With GUEST_STRESS=1
# (make soak) also stress-ng with its libraries, from build/dl/ARCH/root
# (harness/deps.sh --stress).
# Usage: harness/initramfs.sh ARCH VARIANT  -> $O/initramfs.cpio.gz
. "$(dirname "$0")/lib.sh"

arch=$1 variant=$2
check_arch "$arch"
check_variant "$variant"
O=$(outdir "$arch" "$variant")
log=$LOGS/initramfs-$arch-$variant.log
: >"$log"

case "$arch" in
x86_64) cc=gcc busybox=/bin/busybox triplet=x86_64-linux-gnu ;;
arm64) cc=aarch64-linux-gnu-gcc busybox=$DL/arm64/bin/busybox triplet=aarch64-linux-gnu ;;
esac
[ -x "$busybox" ] || die "static busybox for $arch not found at $busybox (make deps)"
command -v "$cc" >/dev/null || die "$cc not found (make deps)"
file -L "$busybox" 2>/dev/null | grep -q dynamic && die "$busybox is not static"

build_progs() {
	local src=$O/guest-src
	rm -rf "$src" && mkdir -p "$src/jitalloc" &&
	cp "$SRC_BASE"/tools/testing/selftests/kselftest_harness.h \
	   "$SRC_BASE"/tools/testing/selftests/kselftest.h "$src/" &&
	cp "$TOP"/tools/testing/selftests/jitalloc/*.[ch] "$src/jitalloc/" &&
	for t in $JT_SELFTESTS; do
		$cc -static -O2 -Wall -Werror ${JT_TEST_CFLAGS:-} -o "$1/$t" "$src/jitalloc/$t.c" || return 1
	done &&
	echo "$JT_SELFTESTS" >"$1/selftests" &&
	$cc -static -O2 -Wall -Werror -o "$1/jitalloc_prot" "$src/jitalloc/jitalloc_prot.c" &&
	$cc -static -O2 -Wall -Werror -o "$1/jitalloc_control" "$src/jitalloc/jitalloc_control.c" &&
	$cc -static -O2 -Wall -Werror -I"$src/jitalloc" -o "$1/jitload" "$TOP/bench/jitload.c" &&
	$cc -static -O2 -Wall -Wextra -Werror -o "$1/../bin/jitstat" "$TOP/tools/vm/jitstat.c"
}

# Copy dynamic program $2 of unpacked root $1 into initramfs $3 with its
# interpreter and, recursively, every library its ELF headers need.
add_dynamic() {
	local root=$1 prog=$2 dest=$3 interp todo lib dir found seen=" "
	interp=$(readelf -l "$root$prog" | sed -n 's/.*program interpreter: \(.*\)]/\1/p')
	[ -n "$interp" ] || { echo "$prog: no interpreter"; return 1; }
	mkdir -p "$dest${prog%/*}" "$dest${interp%/*}" "$dest/lib/$triplet" &&
	cp -L "$root$prog" "$dest$prog" && cp -L "$root$interp" "$dest$interp" || return 1
	todo=$root$prog
	while [ -n "$todo" ]; do
		set -- $todo
		todo=
		for f in "$@"; do
			for lib in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
				case "$seen" in *" $lib "*) continue ;; esac
				seen="$seen$lib "
				found=
				for dir in lib/$triplet usr/lib/$triplet lib usr/lib; do
					[ -e "$root/$dir/$lib" ] && found=$root/$dir/$lib && break
				done
				[ -n "$found" ] || { echo "$prog: $lib not found in $root"; return 1; }
				cp -L "$found" "$dest/lib/$triplet/$lib" || return 1
				todo="$todo $found"
			done
		done
	done
}

assemble() {
	local root=$O/initramfs
	rm -rf "$root" && mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,jitalloc/scenarios} || return 1
	cp "$busybox" "$root/bin/busybox" && ln -s busybox "$root/bin/sh" &&
	for a in mount cat echo reboot setsid cttyhack ls grep sed head tail sleep \
		 mkdir rmdir sync uname dmesg insmod rmmod lsmod wc cut tr awk date; do
		ln -s busybox "$root/bin/$a" || return 1
	done
	cp "$TOP/harness/guest/init" "$root/init" &&
	cp "$TOP"/harness/guest/scenarios/*.sh "$root/jitalloc/scenarios/" &&
	cp "$TOP/harness/guest/selftests.sh" "$TOP/harness/guest/kmemleak.sh" "$root/jitalloc/" &&
	build_progs "$root/jitalloc" || return 1
	if [ "${GUEST_STRESS:-0}" = 1 ]; then
		[ -x "$DL/$arch/root/usr/bin/stress-ng" ] ||
			{ echo "no stress-ng for $arch: harness/deps.sh --stress $arch"; return 1; }
		add_dynamic "$DL/$arch/root" /usr/bin/stress-ng "$root" || return 1
	fi
	# livepatch samples, where the kernel builds them (debug variant)
	for ko in "$O"/extmod/*/*.ko "$O"/samples/livepatch/*.ko; do
		[ -f "$ko" ] || continue
		cp "$ko" "$root/jitalloc/" || return 1
	done
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$O/initramfs.cpio.gz"
}

stage "initramfs $arch-$variant" "$log" assemble || exit 1
