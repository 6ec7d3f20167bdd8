#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the series on Debian's own configuration, as a fleet would run
# it.  Builds the kernel from Debian's config (linux-config-$BASE, the
# same version as linux-source-$BASE) with the series' production options
# (configs/production.config, configs/deb.config; renamed for 6.12 by
# configs/6.12/renames), packages it with bindeb-pkg (linux-image,
# linux-headers), builds an out-of-tree module against the headers
# package alone, and boots the packaged image under QEMU: the selftests
# (6.1: scenario test; 6.12: scenario execmem, as make test boots v2),
# then the demo.  Ends "N passed, N failed, N skipped".  DEB_FULL=1
# builds Debian's modules too.
# Usage: [BASE=6.12] harness/deb.sh [ARCH]
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
check_arch "$arch"
debcfg=$(deb_config_file "$arch") || exit 1
"$TOP/harness/deps.sh" --deb "$arch" || exit 1
"$TOP/harness/fetch.sh" || exit 1
"$TOP/harness/apply.sh" || exit 1

# Debian's configuration must be the one made for the source it configures
cfg_pkg=linux-config-$BASE
src_ver=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null)
cfg_ver=$(dpkg-query -W -f='${Version}' "$cfg_pkg" 2>/dev/null)
[ -n "$src_ver" ] || die "$BASE_PKG is not installed (make deps)"
[ "$src_ver" = "$cfg_ver" ] ||
	die "$cfg_pkg is ${cfg_ver:-not installed} but $BASE_PKG is $src_ver: install the same version of both"
# bindeb-pkg since 6.3 packages through debhelper (dh_* in the kernel's
# scripts/package/debian/rules) and dpkg-buildpackage checks for it: say
# so before the build rather than after it.
if grep -q '^[[:space:]]*\$(Q)dh_' "$SRC_PATCHED/scripts/package/debian/rules" 2>/dev/null &&
   ! dpkg-query -W -f='${Status}' debhelper 2>/dev/null | grep -q 'ok installed'; then
	die "$BASE_PKG's bindeb-pkg packages with debhelper (scripts/package/debian/rules): install debhelper"
fi

O=$(outdir "$arch" deb)
DEBS=$BASE_BUILD/deb/$arch
log=$LOGS/deb-$arch.log
: >"$log"
totals=$LOGS/deb-totals
: >"$totals"
start=$(date +%s)
pass() { echo "ok   $*"; echo "1 0 0" >>"$totals"; }
fail() { echo "FAIL $*"; echo "0 1 0" >>"$totals"; }

"$TOP/harness/build.sh" "$arch" deb || exit 1
eval "kmake() { make -C '$SRC_PATCHED' O='$O' $(kmake_args "$arch") \"\$@\"; }"
# bindeb-pkg writes its packages next to the build directory
rm -f "$OUT"/linux-*.deb "$OUT"/linux-*.buildinfo "$OUT"/linux-*.changes
stage "package $arch-deb (bindeb-pkg)" "$log" kmake -j"$(nproc)" bindeb-pkg || exit 1
rm -rf "$DEBS" && mkdir -p "$DEBS" && mv "$OUT"/linux-*.deb "$DEBS"/ || die "bindeb-pkg left no packages"
rm -f "$OUT"/linux-*.buildinfo "$OUT"/linux-*.changes
krel=$(cat "$O/include/config/kernel.release")
echo "packages for $krel in ${DEBS#$TOP/}:"
for d in "$DEBS"/*.deb; do
	printf '  %-60s %s\n' "$(basename "$d")" "$(du -h "$d" | cut -f1)"
done

image=$(ls "$DEBS"/linux-image-"$krel"_*.deb 2>/dev/null | grep -v -- -dbg_ | head -n1)
headers=$(ls "$DEBS"/linux-headers-"$krel"_*.deb 2>/dev/null | head -n1)
root=$BASE_BUILD/deb/$arch-root
rm -rf "$root" && mkdir -p "$root"
if [ -n "$image" ] && dpkg-deb -x "$image" "$root" && [ -f "$root/boot/vmlinuz-$krel" ]; then
	pass "linux-image package holds boot/vmlinuz-$krel and $(find "$root/lib/modules" -name '*.ko' | wc -l) modules"
else
	fail "no boot/vmlinuz-$krel in ${image:-a linux-image package}"
fi
# The cache is on and no KUnit suite is built in (6.12: the cache is
# execmem's, CONFIG_EXECMEM_CACHE, its suites CONFIG_EXECMEM_CACHE_KUNIT_TEST).
case "$BASE" in
6.1) cache_opt=CONFIG_JIT_ALLOC_CACHE kunit_opts='CONFIG_JIT_ALLOC[A-Z0-9_]*KUNIT_TEST' ;;
*) cache_opt=CONFIG_EXECMEM_CACHE kunit_opts='CONFIG_(EXECMEM|JIT_ALLOC)[A-Z0-9_]*KUNIT_TEST' ;;
esac
grep -q "^$cache_opt=y" "$root/boot/config-$krel" 2>/dev/null &&
	! grep -Eq "^$kunit_opts=y" "$root/boot/config-$krel" &&
	pass "packaged config: $cache_opt=y, no KUnit suites" ||
	fail "packaged config boot/config-$krel lacks $cache_opt=y or carries KUnit suites ($(grep -E "^(# )?($cache_opt|$kunit_opts)[= ]" "$root/boot/config-$krel" 2>/dev/null | tr '\n' ' '))"

# An out-of-tree module (the selftests' test module) built against the
# headers package alone, as DKMS would on an installed system.
hdr=$root/usr/src/linux-headers-$krel
mod=$BASE_BUILD/deb/$arch-extmod
rm -rf "$mod" && mkdir -p "$mod" && cp "$TOP"/tools/testing/selftests/jitalloc/test_modules/* "$mod"/
eval "hmake() { make -C '$hdr' $(kmake_args "$arch") \"\$@\"; }"
if [ -n "$headers" ] && dpkg-deb -x "$headers" "$root" &&
   stage "build test module against linux-headers" "$log" hmake M="$mod" modules &&
   [ -f "$mod/jitalloc_testmod.ko" ] &&
   modinfo -F vermagic "$mod/jitalloc_testmod.ko" | grep -q "^$krel "; then
	pass "out-of-tree module built against the linux-headers package (vermagic $krel)"
else
	fail "out-of-tree module against the linux-headers package (log: ${log#$TOP/})"
fi

"$TOP/harness/initramfs.sh" "$arch" deb || exit 1
label=$arch-deb
# The selftests as make test runs them on the base (harness/test.sh), but
# no KUnit suites: a production kernel has none.  6.12: scenario execmem,
# the claims (jitalloc_control), $JT_SELFTESTS, then jitalloc_prot
# (arm64's page-table bits, skipped on x86); its label and expected skips
# carry the base, as make test's do (expected-skips/6.12-x86_64-deb).
case "$BASE" in
6.1) scenario=test tlabel=$label selftests="$JT_SELFTESTS jitalloc_prot" ;;
*) scenario=execmem tlabel=$BASE-$label selftests="jitalloc_control $JT_SELFTESTS jitalloc_prot" ;;
esac
if KERNEL="$root/boot/vmlinuz-$krel" "$TOP/harness/boot.sh" "$arch" deb $scenario; then
	before=$(wc -l <"$totals")
	python3 "$TOP/harness/parse_results.py" "$LOGS/console-$label-$scenario.log" \
		--label "$tlabel" --selftest $selftests \
		--expected-skips "$TOP/harness/expected-skips/$tlabel" \
		--expected-cases "$TOP/harness/expected-cases" --totals "$totals"
	# a parser that stops without its line (a missing file) is a failure
	[ "$(wc -l <"$totals")" -gt "$before" ] ||
		fail "$tlabel: the selftest results were not parsed"
else
	fail "$tlabel: boot of the packaged kernel (selftests, scenario $scenario)"
fi
if KERNEL="$root/boot/vmlinuz-$krel" "$TOP/harness/boot.sh" "$arch" deb demo; then
	pass "$label: demo"
	python3 "$TOP/harness/run_story.py" "$LOGS/console-$label-demo.log" "$arch" deb --base "$BASE"
else
	fail "$label: demo boot"
fi

echo "make deb finished in $(($(date +%s) - start))s"
read -r p f s < <(awk '{p += $1; f += $2; s += $3} END {print p+0, f+0, s+0}' "$totals")
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
