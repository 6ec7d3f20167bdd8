#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The bench's timed rows over repeated boots of both kernels.

One boot's rate under QEMU TCG moves with the kernel's and the module's
layout (a row can read 0.55x on one build and 1.28x on the next with the
same code in its path), so harness/bench.sh boots each kernel
BENCH_BOOTS more times, alternating, with the timed rows only
(scenario 'timed'), and this prints per row: the median over the boots
of each kernel, their ratio, and the lowest and highest ratio of the
pairs (boot i of one kernel against boot i of the other).  Where a boot
has both, kprobe_slot is also given per 1,000 call_baseline pairs of the
same boot: the control makes the same mutex calls from the same module
without the slots, so the quotient cancels what made the whole boot
faster or slower.  As in bench_report.py, every boot must have run on
the same clocksource.

usage: bench_timed.py --stock LOG... --series LOG... [--out DIR]
"""
import argparse
import os
import statistics
import sys

import benchlib


def read(path):
    """The timed rows of one boot, and its clocksource."""
    vals, clock = benchlib.read_metrics(path, 'bench_timed')
    timed = {k: v for (phase, k), v in vals.items()
             if phase == 'timed' and v is not None}
    if not timed:
        sys.exit(f'bench_timed: no "### metric timed" line in {path}')
    return derive(timed), clock


def derive(vals):
    """The kprobe slot rate per 1,000 control pairs of the same boot."""
    slot, base = vals.get('kprobe_slot_ops_per_sec'), vals.get('call_baseline_ops_per_sec')
    if slot is not None and base:
        vals['kprobe_slot_per_1000_call_baseline'] = round(slot * 1000 / base)
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stock', nargs='+', required=True)
    ap.add_argument('--series', nargs='+', required=True)
    ap.add_argument('--out')
    args = ap.parse_args()
    if len(args.stock) != len(args.series):
        sys.exit('bench_timed: as many stock boots as series boots are needed')
    runs = [read(p) for p in args.stock + args.series]
    benchlib.one_clocksource([c for _, c in runs], 'bench_timed',
                             f'the {len(runs)} boots')
    stock = [v for v, _ in runs[:len(args.stock)]]
    series = [v for v, _ in runs[len(args.stock):]]
    names = sorted(set.intersection(*(set(v) for v in stock + series)))
    names = [n for n in names if not n.endswith('_min')]
    if not names:
        sys.exit('bench_timed: no timed row common to every boot')
    n = len(stock)
    lines = [f'timed rows over {n} boots of each kernel, alternating '
             '(medians; ratio = series / stock)',
             f'{"metric":<36}{"stock":>12}{"series":>12}{"ratio":>8}'
             f'{"lowest":>8}{"highest":>8}']
    csv = ['metric,stock_median,series_median,ratio,pair_ratio_low,'
           'pair_ratio_high,stock_values,series_values']
    for name in names:
        s = [v[name] for v in stock]
        p = [v[name] for v in series]
        ms, mp = statistics.median(s), statistics.median(p)
        pairs = [b / a for a, b in zip(s, p) if a]
        ratio = mp / ms if ms else float('inf')
        lo, hi = (min(pairs), max(pairs)) if pairs else (0.0, 0.0)
        lines.append(f'{name:<36}{ms:>12.0f}{mp:>12.0f}{ratio:>8.3f}'
                     f'{lo:>8.3f}{hi:>8.3f}')
        csv.append(f'{name},{ms:.0f},{mp:.0f},{ratio:.3f},{lo:.3f},{hi:.3f},'
                   f'{" ".join(map(str, s))},{" ".join(map(str, p))}')
    print('\n'.join(lines))
    if args.out:
        with open(os.path.join(args.out, 'timed.txt'), 'w') as f:
            f.write('\n'.join(lines) + '\n')
        with open(os.path.join(args.out, 'timed.csv'), 'w') as f:
            f.write('\n'.join(csv) + '\n')


if __name__ == '__main__':
    main()
