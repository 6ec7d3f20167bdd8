#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the harness needs, only those missing.
# Usage: harness/deps.sh [--stress] [--plots] [--deb] [--docs] [ARCH...]
# --stress also unpacks stress-ng and its libraries for each ARCH's guest
# into build/dl/ARCH/root (make soak), without installing them.
# --plots also installs python3-matplotlib (make bench draws its plots).
# --deb also installs Debian's kernel configurations and dpkg-dev and debhelper (make deb).
# --docs also installs Sphinx and its Read the Docs theme (harness/docs.sh).
. "$(dirname "$0")/lib.sh"

stress= plots= deb= docs=
while [ $# -gt 0 ]; do
	case "$1" in
	--stress) stress=1 ;;
	--plots) plots=1 ;;
	--deb) deb=1 ;;
	--docs) docs=1 ;;
	*) break ;;
	esac
	shift
done
PKGS="$BASE_PKG flex bison bc libelf-dev libssl-dev ccache cpio kmod
      xz-utils gzip python3 busybox-static qemu-system-x86 make gcc libc6-dev
      sparse dwarves quilt"
ARM64_PKGS="qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross"

arches=${*:-$ARCHES}
want=$PKGS
[ -n "$plots" ] && want="$want python3-matplotlib"
# bindeb-pkg: 6.12's packaging rules run debhelper's dh_* tools
[ -n "$deb" ] && want="$want linux-config-$BASE dpkg-dev rsync debhelper"
[ -n "$docs" ] && want="$want python3-sphinx python3-sphinx-rtd-theme"
for a in $arches; do
	check_arch "$a"
	[ "$a" = arm64 ] && want="$want $ARM64_PKGS"
done

missing=
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	apt-get update -q >"$LOGS/apt-update.log" 2>&1 ||
		die "apt-get update failed: is the Debian mirror reachable? (log: ${LOGS#$TOP/}/apt-update.log)"
	apt_updated=1
}

if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "missing packages:$missing (run as root or install them)"
	echo "installing:$missing"
	apt_update
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing \
		>"$LOGS/apt-install.log" 2>&1 ||
		die "apt-get install failed for:$missing (log: ${LOGS#$TOP/}/apt-install.log)"
fi

# busybox for arm64 guests: the arm64 .deb unpacked, not installed over
# the host's own busybox.
if echo " $arches " | grep -q ' arm64 '; then
	bb=$DL/arm64/bin/busybox
	if [ ! -x "$bb" ]; then
		mkdir -p "$DL/arm64"
		if ! dpkg --print-foreign-architectures | grep -qx arm64; then
			dpkg --add-architecture arm64 || die "dpkg --add-architecture arm64 failed"
			apt_updated=
		fi
		apt_update
		(cd "$DL" && rm -f busybox-static_*_arm64.deb &&
			apt-get download -q busybox-static:arm64 >"$LOGS/apt-download.log" 2>&1) ||
			die "could not download busybox-static:arm64 (log: build/logs/apt-download.log)"
		dpkg -x "$DL"/busybox-static_*_arm64.deb "$DL/arm64" ||
			die "could not unpack busybox-static:arm64"
		[ -x "$bb" ] || die "busybox-static:arm64 has no bin/busybox"
	fi
fi

# stress-ng for a guest: the .debs of stress-ng and everything it depends
# on, for the guest's Debian architecture, unpacked into one root.
guest_stress() {
	local arch=$1 debarch root pkgs
	case "$arch" in
	x86_64) debarch=amd64 ;;
	arm64) debarch=arm64 ;;
	esac
	root=$DL/$arch/root
	[ -x "$root/usr/bin/stress-ng" ] && return 0
	if [ "$debarch" != "$(dpkg --print-architecture)" ] &&
	   ! dpkg --print-foreign-architectures | grep -qx "$debarch"; then
		dpkg --add-architecture "$debarch" ||
			die "dpkg --add-architecture $debarch failed"
		apt_updated=
	fi
	apt_update
	pkgs=$(apt-cache depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances \
		"stress-ng:$debarch" 2>/dev/null | grep -v '^ ' | grep -v '^<' | sort -u)
	[ -n "$pkgs" ] || die "apt-cache knows no stress-ng:$debarch"
	mkdir -p "$DL/$arch/debs" "$root"
	(cd "$DL/$arch/debs" && apt-get download -q $pkgs \
		>"$LOGS/apt-download-stress-$arch.log" 2>&1) ||
		die "could not download stress-ng:$debarch and its dependencies (log: build/logs/apt-download-stress-$arch.log)"
	for deb in "$DL/$arch/debs"/*.deb; do
		dpkg -x "$deb" "$root" || die "could not unpack ${deb##*/}"
	done
	[ -x "$root/usr/bin/stress-ng" ] || die "stress-ng:$debarch has no usr/bin/stress-ng"
}

if [ -n "$stress" ]; then
	for a in $arches; do
		guest_stress "$a"
	done
fi
exit 0
