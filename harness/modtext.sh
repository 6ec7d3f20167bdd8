#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make modtext (BASE=6.12): the module-text design of v2 chosen by
# measurement.  Three kernels from the same fragments, booted one after
# the other in this run with the bench workload (harness/guest/scenarios/
# bench.sh: 1,000 BPF programs, 100 kprobes, 20 ftrace instances, 10
# module cycles, then 200 timed module load+unload cycles and text_mutex's
# holds over 20 cycles of a small and a 2 MiB+ module):
#   stock    stock 6.12;
#   default  v2: module text loaded in a writable copy, written once by
#            text poking into the cache's read-only huge pages;
#   temprw   v2 with bench/v2-module-temp-rw.patch: upstream 6.15's
#            temporarily writable module text instead (the module's own
#            pages made RW+NX while it loads, ROX again after), without
#            6.15's collapse of the split mappings, which 6.12's CPA lacks.
# Prints bench_report.py's table of each v2 kernel against stock, then
# the rows the choice rests on side by side; writes them to
# build/6.12/bench/modtext-DATE/.
# Usage: BASE=6.12 harness/modtext.sh   Environment: ITLB_MODEL=0 as bench.
. "$(dirname "$0")/lib.sh"

[ "$BASE" = 6.12 ] || die "make modtext compares v2's module-text designs: run it with BASE=6.12"
arch=x86_64
patchfile=$TOP/bench/v2-module-temp-rw.patch
src=$(srcdir_for temprw)

build_stock_and_series "$arch"

# The temprw tree: the patched tree (overlay included) plus the
# measurement patch; rsync keeps the times of what did not change.
stage "tree temprw" "$LOGS/modtext-tree.log" bash -c '
	mkdir -p "$2" &&
	rsync -a --delete --exclude=.git "$1/" "$2/" &&
	patch -d "$2" -p1 --forward --no-backup-if-mismatch <"$3"' _ \
	"$SRC_PATCHED" "$src" "$patchfile" ||
	die "cannot make the temprw tree (${patchfile#$TOP/} does not apply?)"
"$TOP/harness/build.sh" "$arch" temprw || exit 1
"$TOP/harness/initramfs.sh" "$arch" temprw || exit 1

out=$BASE_BUILD/bench/modtext-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || die "cannot create ${out#$TOP/}"
for v in stock default temprw; do
	ITLB_MODEL=0 "$TOP/harness/boot.sh" "$arch" "$v" bench || exit 1
done
log() { echo "$LOGS/console-$arch-$1-bench.log"; }
for v in default temprw; do
	echo "== $v against stock"
	python3 "$TOP/harness/bench_report.py" "$(log stock)" "$(log "$v")" \
		--out "$out/$v" || exit 1
done | tee "$out/tables.txt"
python3 "$TOP/harness/bench_report.py" --modtext "$(log stock)" \
	"$(log default)" "$(log temprw)" | tee "$out/modtext.txt" || exit 1
echo "written: ${out#$TOP/}/"
