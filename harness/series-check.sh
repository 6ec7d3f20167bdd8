#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-check: the series as a reviewer receives it, step by step.
# Exports it (harness/series.sh: git am of every patch on the pristine
# base), then puts build/src/jitalloc at each step in turn and
#  - builds vmlinux for x86_64 and arm64 (SERIES_CHECK_ARCHES) with the
#    test configuration, in build/out/series-check-ARCH, a copy of the
#    test build taken at the start, so that a step rebuilds only what it
#    changed;
#  - compiles, for one more architecture (SERIES_CHECK_CROSS, riscv), the
#    objects that hold the series' code there and in the core, from its
#    defconfig with the users of jit memory switched on (as make cross);
#  - boots x86_64 after the allocator, after its users' conversion, after
#    the cache with its KUnit suites, and at the end: the step's bzImage,
#    the test initramfs with a module of the step's own build added, and
#    the smoke scenario (BPF programs, kprobes and ftrace trampolines
#    allocated and freed, the module loaded, every KUnit suite built in at
#    that step passed, no warning on the console).
# build/src/jitalloc is put back on its branch, overlay copied, at the end,
# whatever happened.  Slow: the first step rebuilds most of what the
# series touches.  Not part of make test.
# SERIES_CHECK_FROM=N, SERIES_CHECK_TO=M: build steps N..M only (every
# patch is still applied).  SERIES_CHECK_BOOT=0: no boots.
. "$(dirname "$0")/lib.sh"
. "$TOP/harness/crosslib.sh"

arches=${SERIES_CHECK_ARCHES-x86_64 arm64}
cross=${SERIES_CHECK_CROSS-riscv}
from=${SERIES_CHECK_FROM:-1}
to=${SERIES_CHECK_TO:-}
boot=${SERIES_CHECK_BOOT:-1}
T=$SRC_PATCHED
export_tree=$BASE_BUILD/src/series-export
log=$LOGS/series-check.log
: >"$log"

case "$from$to" in *[!0-9]*) die "SERIES_CHECK_FROM and SERIES_CHECK_TO are patch numbers" ;; esac
for a in $arches; do check_arch "$a"; done
[ "$boot" = 0 ] || case " $arches " in *" x86_64 "*) ;; *)
	die "series-check boots x86_64: keep it in SERIES_CHECK_ARCHES or set SERIES_CHECK_BOOT=0" ;;
esac

"$TOP/harness/series.sh" || exit 1
"$TOP/harness/apply.sh" || exit 1
for a in $arches; do
	"$TOP/harness/build.sh" "$a" default || die "series-check: $a-default does not build"
done
if [ "$boot" != 0 ]; then
	"$TOP/harness/initramfs.sh" x86_64 default || die "series-check: no x86_64 initramfs"
fi
cross_install $cross

[ -z "$(git -C "$T" status --porcelain --untracked-files=no)" ] ||
	die "build/src/jitalloc has uncommitted edits: commit them first"
branch=$(git -C "$T" symbolic-ref -q --short HEAD) ||
	die "build/src/jitalloc is not on its branch: run harness/apply.sh"
restore() {
	git -C "$T" checkout -q -f "$branch" &&
	"$TOP/harness/apply.sh" >/dev/null ||
		echo "series-check: could not put build/src/jitalloc back: run make reset-tree" >&2
}
trap restore EXIT
# Only what each step's commit holds may be in the tree: no overlay file
# of the whole series left over to satisfy an include too early.
while read -r f; do rm -f "$T/$f"; done <"$MANIFEST"

for a in $arches; do
	rm -rf "$OUT/series-check-$a"
	cp -a "$(outdir "$a" default)" "$OUT/series-check-$a" || die "could not copy the $a build"
done
for c in $cross; do
	git -C "$T" checkout -q -f --detach "$(git -C "$export_tree" rev-parse HEAD)" &&
	stage "series-check: $c defconfig" "$log" cross_config "$c" "$OUT/series-check-$c" ||
		die "series-check: no $c configuration (log: ${log#$TOP/})"
done

mapfile -t commits < <(git -C "$export_tree" log --reverse --format=%H base..HEAD)
mapfile -t subjects < <(git -C "$export_tree" log --reverse --format=%s base..HEAD)
n_all=${#commits[@]}
[ "$n_all" -gt 0 ] || die "series-check: no patches in the export"
to=${to:-$n_all}
# the steps that change behaviour: boot there
boot_at=" 1 $n_all "
kunit_from=$((n_all + 1))
for i in $(seq 1 "$n_all"); do
	case "${subjects[$((i - 1))]}" in
	"module: drop module_alloc() and module_memfree()" | \
	"mm/jitalloc: add a KUnit test of the cache")
		boot_at="$boot_at$i " ;;
	"mm/jitalloc: add a KUnit test")
		[ "$i" -lt "$kunit_from" ] && kunit_from=$i ;;
	esac
done

# Does the step with changed files $changed leave what an architecture
# whose sources are arch/$1 builds as it was?  Yes when it changes only
# other architectures' files, documentation or tools.
step_spares() {
	! echo "$changed" | grep -qvE "^(arch/[^/]+/|Documentation/|tools/)" &&
	! echo "$changed" | grep -q "^arch/$1/"
}

# x86_64 boot of a step into console log $1: its bzImage, the test
# initramfs and its own module
boot_step() {
	local console=$1 O=$OUT/series-check-x86_64 ko tmp initrd
	ko=$(head -n 1 "$O/modules.order" 2>/dev/null)
	tmp=$(mktemp -d)
	initrd=$O/initramfs-step.cpio.gz
	mkdir -p "$tmp/jitalloc"
	[ -n "$ko" ] && [ -f "$O/$ko" ] && cp "$O/$ko" "$tmp/jitalloc/step.ko"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$tmp/step.cpio.gz" &&
	cat "$(outdir x86_64 default)/initramfs.cpio.gz" "$tmp/step.cpio.gz" >"$initrd"
	rm -rf "$tmp"
	KERNEL=$O/arch/x86/boot/bzImage INITRD=$initrd BOOT_TIMEOUT=${BOOT_TIMEOUT:-300} \
		"$TOP/harness/boot.sh" x86_64 default smoke >>"$log" 2>&1
	local rc=$?
	cp "$LOGS/console-x86_64-default-smoke.log" "$console"
	return $rc
}

start=$(date +%s)
built=0 booted=0
# the series the steps are of (patches/series and its patches, hashed):
# a record of them (patches/series-check.txt) holds for that hash only
echo "# series $(patch_stamp), steps ${from}-${to}, $(date -u +%Y-%m-%d)" \
	>"$LOGS/series-check-steps.txt"
for i in $(seq 1 "$n_all"); do
	[ "$i" -lt "$from" ] || [ "$i" -gt "$to" ] && continue
	c=${commits[$((i - 1))]}
	name="$(printf %04d "$i") ${subjects[$((i - 1))]}"
	git -C "$T" checkout -q -f --detach "$c" || die "series-check: cannot check out step $i"
	line="$name:"
	# what this step changes; a step that changes only another
	# architecture's files, documentation or tools leaves an arch's build
	# as it was, unless the arch boots here
	changed=$(git -C "$export_tree" diff --name-only "$c~1" "$c")
	for a in $arches; do
		O=$OUT/series-check-$a
		targets=vmlinux
		[ "$a" = x86_64 ] && [ "$boot" != 0 ] && case "$boot_at" in *" $i "*) targets="bzImage modules" ;; esac
		if [ "$targets" = vmlinux ] && [ "$i" -gt "$from" ] && step_spares "${a%_64}"; then
			line="$line $a unchanged"
			continue
		fi
		s=$(date +%s)
		# the test configuration at every step: an option a step lacks is
		# dropped by olddefconfig, and would come back at its default
		cp "$(outdir "$a" default)/.config" "$O/.config"
		stage "series-check: $a after $name" "$log" \
			eval "make -C '$T' O='$O' $(kmake_args "$a") olddefconfig $targets -j$(nproc)" ||
			die "series-check: $a does not build after $name (log: ${log#$TOP/})"
		line="$line $a $(($(date +%s) - s))s"
	done
	for x in $cross; do
		O=$OUT/series-check-$x
		if [ "$i" -gt "$from" ] && step_spares "$x"; then
			line="$line $x unchanged"
			continue
		fi
		km() { make -C "$T" O="$O" ARCH="$x" CROSS_COMPILE="${CROSS[$x]}" "$@"; }
		s=$(date +%s)
		stage "series-check: $x olddefconfig after $name" "$log" km olddefconfig &&
		objs=$(objects_for "$x" "$O/.config") &&
		stage "series-check: $x objects after $name" "$log" km -j"$(nproc)" $objs ||
			die "series-check: $x does not compile after $name (log: ${log#$TOP/})"
		line="$line $x $(($(date +%s) - s))s ($(echo $objs | wc -w) objects)"
	done
	built=$((built + 1))
	case "$boot:$boot_at" in
	0:*) ;;
	*" $i "*)
		console=$LOGS/series-check-boot-$(printf %04d "$i").log
		boot_step "$console" ||
			die "series-check: x86_64 does not boot after $name (console: ${console#$TOP/})"
		# from the KUnit patches on, the suites built in must have run
		[ "$i" -lt "$kunit_from" ] ||
			grep -aqE '### smoke: KUnit suites passed: [1-9]' "$console" ||
			die "series-check: no KUnit suite ran after $name"
		booted=$((booted + 1))
		line="$line; booted: $(grep -a '### smoke:' "$console" |
			tr -d '\r' | sed 's/^### smoke: //' | paste -sd ';' -)" ;;
	esac
	echo "$line" | tee -a "$LOGS/series-check-steps.txt"
done
echo "series-check: $n_all patches applied with git am on the pristine base; built after $built of them ($arches${cross:+, $cross objects}), x86_64 booted after $booted, in $(($(date +%s) - start))s"
