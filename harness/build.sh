#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel out of tree.
# Usage: harness/build.sh ARCH VARIANT
#   VARIANT: default | debug | nomodules (patched) or stock (unpatched base,
#   same fragments minus the series' own options)
. "$(dirname "$0")/lib.sh"

arch=$1 variant=$2
[ -n "$arch" ] && [ -n "$variant" ] || die "usage: harness/build.sh ARCH VARIANT"
check_arch "$arch"
check_variant "$variant"

src=$(srcdir_for "$variant")
O=$(outdir "$arch" "$variant")
log=$LOGS/build-$arch-$variant.log
: >"$log"
mkdir -p "$O"

frags="$TOP/configs/common.config $TOP/configs/$arch.config"
case "$variant" in
nomodules) frags="$frags $TOP/configs/nomodules.config" ;;
*) frags="$frags $TOP/configs/modules.config" ;;
esac
[ "$variant" != stock ] && frags="$frags $TOP/configs/jitalloc.config"
# deb: Debian's configuration of the arch, the series' production options
# and what building it here needs; its modules left out (DEB_FULL=1 keeps
# them: thousands more files to build and package).
debcfg=
if [ "$variant" = deb ]; then
	debcfg=$(deb_config_file "$arch") || exit 1
	[ -f "$debcfg" ] || die "$debcfg not found: install linux-config-$BASE (BASE=$BASE harness/deps.sh --deb $arch, which make deb runs first)"
	frags="$TOP/configs/production.config $TOP/configs/deb.config"
fi
[ "$variant" = debug ] && frags="$frags $TOP/configs/debug.config"
[ "$variant" = hugevmap ] && frags="$frags $TOP/configs/hugevmap.config"
[ "$variant" = 16k ] && frags="$frags $TOP/configs/16k.config"
# per-arch additions to a variant, e.g. configs/debug-arm64.config
[ -f "$TOP/configs/$variant-$arch.config" ] && frags="$frags $TOP/configs/$variant-$arch.config"
for f in $frags; do
	[ -f "$f" ] || die "config fragment ${f#$TOP/} not found"
done
# Options a later base renamed (configs/$BASE/renames: "old new" per line,
# "old -" for one it dropped): the fragments are rewritten into the build
# directory with the new names, without the dropped options.
renames=$TOP/configs/$BASE/renames
if [ -f "$renames" ]; then
	mkdir -p "$O/fragments"
	sedscript=$(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\) \(CONFIG_[A-Za-z0-9_]*\)$/s\/\\<\1\\>\/\2\/g/p
			   s/^\(CONFIG_[A-Za-z0-9_]*\) -$/\/\\<\1\\>\/d/p' "$renames")
	[ -n "$sedscript" ] || die "${renames#$TOP/} renames nothing"
	rewritten=
	for f in $frags; do
		sed "$sedscript" "$f" >"$O/fragments/$(basename "$f")" || die "cannot rewrite ${f#$TOP/}"
		rewritten="$rewritten $O/fragments/$(basename "$f")"
	done
	frags=$rewritten
fi

if [ "$arch" = arm64 ]; then
	command -v aarch64-linux-gnu-gcc >/dev/null ||
		die "aarch64-linux-gnu-gcc not found: install gcc-aarch64-linux-gnu (make deps)"
fi

eval "kmake() { make -C '$src' O='$O' $(kmake_args "$arch") \"\$@\"; }"

# Every option a fragment asks for must survive olddefconfig; later
# fragments override earlier ones.
check_config() {
	local bad=0 key val
	while IFS='=' read -r key val; do
		if [ "$val" = n ]; then
			grep -q "^$key=" "$O/.config" && { echo "config: $key=n was requested but is set"; bad=1; }
		else
			grep -qx "$key=$val" "$O/.config" || { echo "config: $key=$val was requested but was dropped by olddefconfig (got: $(grep -E "^(# )?$key[= ]" "$O/.config" || echo absent))"; bad=1; }
		fi
	done < <(cat $frags | sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=\(.*\)$/\1=\2/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1=n/p' |
		 awk -F= '{v[$1]=$2; if (!($1 in o)) o[$1]=n++} END {for (k in o) print k "=" v[k]}')
	return $bad
}

configure() {
	if [ -n "$debcfg" ]; then
		xzcat "$debcfg" >"$O/.config" || return 1
		[ "${DEB_FULL:-0}" = 1 ] ||
			sed -i 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/# \1 is not set/' "$O/.config"
	else
		kmake tinyconfig || return 1
	fi
	"$src/scripts/kconfig/merge_config.sh" -m -O "$O" "$O/.config" $frags &&
	kmake olddefconfig
}

cfg_stamp=$({ cat $frags; [ -n "$debcfg" ] && xzcat "$debcfg" && echo "DEB_FULL=${DEB_FULL:-0}"; } |
	    sha256sum | cut -d' ' -f1)
if [ ! -f "$O/.config" ] || [ "$(cat "$O/.config.stamp" 2>/dev/null)" != "$cfg_stamp" ]; then
	rm -f "$O/.config.stamp"
	stage "configure $arch-$variant" "$log" configure || exit 1
	if ! drift=$(check_config); then
		echo "$drift" | tee -a "$log" >&2
		die "config drift for $arch-$variant: an option asked for by configs/ did not survive olddefconfig"
	fi
	echo "$cfg_stamp" >"$O/.config.stamp"
fi

targets="$(basename "$(kimage "$arch")")"
grep -q '^CONFIG_MODULES=y' "$O/.config" && targets="$targets modules"
stage "build $arch-$variant ($targets)" "$log" kmake -j"$(nproc)" $targets || exit 1
# The build re-runs kconfig when a patch changed a Kconfig file: check the
# merged options again after every build, not only after configuring.
if ! drift=$(check_config); then
	echo "$drift" | tee -a "$log" >&2
	die "config drift for $arch-$variant after the build: an option asked for by configs/ is no longer set as asked"
fi

# Test and bench modules, built out of tree against this kernel
if grep -q '^CONFIG_MODULES=y' "$O/.config"; then
	for src in tools/testing/selftests/jitalloc/test_modules bench/jitalloc_bench; do
		mdir=$O/extmod/$(basename "$src")
		mkdir -p "$mdir"
		for f in "$TOP/$src"/*; do
			cmp -s "$f" "$mdir/$(basename "$f")" || cp "$f" "$mdir/"
		done
		# External modules carry BTF split against vmlinux's (debug
		# kernel) and kbuild relinks them only when their objects
		# change: a relinked vmlinux would make them fail to load.
		for ko in "$mdir"/*.ko; do
			[ -f "$ko" ] && [ "$O/vmlinux" -nt "$ko" ] && rm -f "$ko"
		done
		stage "build $(basename "$src") $arch-$variant" "$log" kmake M="$mdir" modules || exit 1
		# the livepatch test module's klp relocation (klp-convert's job)
		if [ -f "$mdir/jitalloc_klp.ko" ]; then
			python3 "$mdir/klp_fixup.py" "$mdir/jitalloc_klp.ko" || exit 1
		fi
	done
fi
exit 0
