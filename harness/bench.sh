#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: the same workload on stock 6.1 and on the patched kernel,
# both built from the same fragments and booted in this one run; prints
# both sides and their ratio, then the scaling sweep.
# Usage: harness/bench.sh [ARCH]
# Writes build/bench/ARCH-DATE/: table.txt (the terminal output),
# table.csv/json, sweep.csv/json and the plots (PNG); see bench/README.md.
# Environment: ITLB_MODEL=0 boots without the iTLB model; BENCH_BOOTS=N
# (3) more boots of each kernel for the timed rows alone (timed.txt,
# harness/bench_timed.py), 0 for none; BENCH_SWEEP=0 leaves the sweep out.
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
check_arch "$arch"
"$TOP/harness/deps.sh" --plots "$arch" || exit 1
build_stock_and_series "$arch"
out=$BASE_BUILD/bench/$arch-$(date +%Y%m%d-%H%M%S)
mkdir -p "$out" || die "cannot create ${out#$TOP/}"

for v in stock default; do
	"$TOP/harness/boot.sh" "$arch" "$v" bench || exit 1
done
model=()
[ "${ITLB_MODEL:-}" = 0 ] ||
	model=("$LOGS/itlb-$arch-stock-bench.txt" "$LOGS/itlb-$arch-default-bench.txt")
python3 "$TOP/harness/bench_report.py" \
	"$LOGS/console-$arch-stock-bench.log" "$LOGS/console-$arch-default-bench.log" \
	"${model[@]}" --out "$out" | tee "$out/table.txt" || exit 1

# The timed rows again over BENCH_BOOTS boots of each kernel, alternating:
# one boot's rate moves with layout under TCG (harness/bench_timed.py).
boots=${BENCH_BOOTS:-3}
case "$boots" in ''|*[!0-9]*) die "BENCH_BOOTS must be a number, not '$boots'" ;; esac
if [ "$boots" -gt 0 ]; then
	timed_stock=() timed_series=()
	for i in $(seq "$boots"); do
		for v in stock default; do
			"$TOP/harness/boot.sh" "$arch" "$v" timed || exit 1
			cp "$LOGS/console-$arch-$v-timed.log" "$out/timed-$v-$i.log" || exit 1
		done
		timed_stock+=("$out/timed-stock-$i.log")
		timed_series+=("$out/timed-default-$i.log")
	done
	python3 "$TOP/harness/bench_timed.py" --stock "${timed_stock[@]}" \
		--series "${timed_series[@]}" --out "$out" || exit 1
fi

if [ "${BENCH_SWEEP:-1}" != 0 ]; then
	[ "${ITLB_MODEL:-}" = 0 ] && die "the sweep needs the iTLB model (ITLB_MODEL=0 with BENCH_SWEEP=0)"
	for v in stock default; do
		BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400} \
			"$TOP/harness/boot.sh" "$arch" "$v" sweep || exit 1
	done
	# Debian's python3-matplotlib lives in Debian's python3, which a
	# python3 earlier on PATH (pyenv, venv) may not see
	py=python3
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	"$py" "$TOP/harness/bench_sweep.py" \
		"$LOGS/console-$arch-stock-sweep.log" "$LOGS/console-$arch-default-sweep.log" \
		"$LOGS/itlb-$arch-stock-sweep.txt" "$LOGS/itlb-$arch-default-sweep.txt" \
		--arch "$arch" --out "$out" --bench-csv "$out/table.csv" |
		tee "$out/sweep.txt" || exit 1
fi
echo "(saved in ${out#$TOP/}/)"
