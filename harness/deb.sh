#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make deb: the series on Debian's own configuration, as a fleet would run
# it.  Builds the kernel from Debian's config (linux-config-6.1) with the
# series' production options (configs/production.config, configs/
# deb.config), packages it with bindeb-pkg (linux-image, linux-headers),
# builds an out-of-tree module against the headers package alone, and
# boots the packaged image under QEMU: the selftests, then the demo.
# Ends "N passed, N failed".  DEB_FULL=1 builds Debian's modules too.
# Usage: harness/deb.sh [ARCH]
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
check_arch "$arch"
debcfg=$(deb_config_file "$arch") || exit 1
"$TOP/harness/deps.sh" --deb "$arch" || exit 1
"$TOP/harness/fetch.sh" || exit 1
"$TOP/harness/apply.sh" || exit 1

src_ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null)
cfg_ver=$(dpkg-query -W -f='${Version}' linux-config-6.1 2>/dev/null)
[ "$src_ver" = "$cfg_ver" ] ||
	die "linux-config-6.1 is ${cfg_ver:-not installed} but linux-source-6.1 is $src_ver: install the same version of both"

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
grep -q '^CONFIG_JIT_ALLOC_CACHE=y' "$root/boot/config-$krel" 2>/dev/null &&
	! grep -q '^CONFIG_JIT_ALLOC.*KUNIT_TEST=y' "$root/boot/config-$krel" &&
	pass "packaged config: CONFIG_JIT_ALLOC_CACHE=y, no KUnit suites" ||
	fail "packaged config boot/config-$krel lacks the cache or carries KUnit suites"

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
if KERNEL="$root/boot/vmlinuz-$krel" "$TOP/harness/boot.sh" "$arch" deb test; then
	before=$(wc -l <"$totals")
	python3 "$TOP/harness/parse_results.py" "$LOGS/console-$label-test.log" \
		--label "$label" --selftest $JT_SELFTESTS jitalloc_prot \
		--expected-skips "$TOP/harness/expected-skips/$label" \
		--expected-cases "$TOP/harness/expected-cases" --totals "$totals"
	# a parser that stops without its line (a missing file) is a failure
	[ "$(wc -l <"$totals")" -gt "$before" ] ||
		fail "$label: the selftest results were not parsed"
else
	fail "$label: boot of the packaged kernel (selftests)"
fi
if KERNEL="$root/boot/vmlinuz-$krel" "$TOP/harness/boot.sh" "$arch" deb demo; then
	pass "$label: demo"
	python3 "$TOP/harness/run_story.py" "$LOGS/console-$label-demo.log" "$arch" deb
else
	fail "$label: demo boot"
fi

echo "make deb finished in $(($(date +%s) - start))s"
read -r p f s < <(awk '{p += $1; f += $2; s += $3} END {print p+0, f+0, s+0}' "$totals")
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
