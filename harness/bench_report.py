#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Side-by-side report of two jitload runs (stock vs jitalloc).

usage: bench_report.py STOCK_CONSOLE PATCHED_CONSOLE

Reads "### metric <phase> <key> <value>" lines and prints, per metric,
both values and patched/stock; for page-table and direct-map figures also
the growth from "before" to "loaded", which is what the workload cost.
"""
import re
import sys

METRIC = re.compile(r'### metric (\S+) (\S+) (-?\d+)')
GROWTH = ['exec_translations', 'exec_pmd', 'direct_map_level2_splits',
          'directmap4k_kb', 'jit_vmalloc_bytes', 'bpf_reserved_bytes',
          'ftrace_trampolines']


def read(path):
    vals = {}
    with open(path, errors='replace') as f:
        for line in f:
            m = METRIC.search(line)
            if m:
                vals[(m.group(1), m.group(2))] = int(m.group(3))
    if not vals:
        sys.exit(f'bench_report: no metrics in {path}: did jitload run?')
    return vals


def ratio(a, b):
    if a is None or b is None:
        return 'n/a'
    if a == 0:
        return 'equal' if b == 0 else 'inf'
    return f'{b / a:.3f}'


def row(name, a, b):
    fmt = lambda v: '-' if v is None else str(v)
    print(f'{name:44} {fmt(a):>12} {fmt(b):>12} {ratio(a, b):>9}')


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    stock, patched = read(sys.argv[1]), read(sys.argv[2])
    print(f'{"metric":44} {"stock":>12} {"jitalloc":>12} {"ratio":>9}')
    for key in GROWTH:
        for phase in ('loaded', 'after'):
            a0, b0 = stock.get(('before', key)), patched.get(('before', key))
            a1, b1 = stock.get((phase, key)), patched.get((phase, key))
            da = None if a0 is None or a1 is None else a1 - a0
            db = None if b0 is None or b1 is None else b1 - b0
            row(f'{key} growth before->{phase}', da, db)
    # bytes BPF holds per byte of JITed code, while loaded
    row('bpf_jited_bytes', stock.get(('loaded', 'bpf_jited_bytes')),
        patched.get(('loaded', 'bpf_jited_bytes')))
    per = []
    for v in (stock, patched):
        j, r0, r1 = (v.get(('loaded', 'bpf_jited_bytes')), v.get(('before', 'bpf_reserved_bytes')),
                     v.get(('loaded', 'bpf_reserved_bytes')))
        per.append(None if not j or r0 is None or r1 is None else round((r1 - r0) / j, 2))
    row('bpf bytes reserved per jited byte', *per)
    # which phase of the workload split the direct map
    marks = ['before', 'after_bpf', 'after_kprobes', 'after_ftrace', 'after_modules']
    key = 'direct_map_level2_splits'
    for prev, cur in zip(marks, marks[1:]):
        ds = [None if v.get((prev, key)) is None or v.get((cur, key)) is None
              else v[(cur, key)] - v[(prev, key)] for v in (stock, patched)]
        row(f'{key} during {cur[len("after_"):]}', *ds)
    for (phase, key) in sorted(set(stock) | set(patched)):
        if phase in ('timed', 'exec'):
            row(f'{key}', stock.get((phase, key)), patched.get((phase, key)))
    # kernel iTLB misses per 1,000 BPF program runs, where a PMU counted them
    per = []
    for vals in (stock, patched):
        runs, miss = vals.get(('exec', 'bpf_runs')), vals.get(('exec', 'itlb_misses'))
        per.append(None if not runs or miss is None else miss * 1000 // runs)
    row('itlb_misses per 1k bpf runs', *per)
    if not any(v.get(('exec', 'itlb_counted')) for v in (stock, patched)):
        print('(no PMU here: iTLB misses not counted; with one, perf_event_open '
              'counts them in the exec phase)')
    for side, vals in (('stock', stock), ('jitalloc', patched)):
        wx = [v for (p, k), v in vals.items() if k == 'wx_mappings' and v]
        if wx:
            print(f'{side}: W+X mappings seen: {wx}')


if __name__ == '__main__':
    main()
