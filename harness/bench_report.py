#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Side-by-side report of two jitload runs (stock vs jitalloc).

usage: bench_report.py STOCK_CONSOLE PATCHED_CONSOLE [STOCK_MODEL PATCHED_MODEL]
                       [--out DIR]
       bench_report.py --modtext STOCK_CONSOLE COPY_CONSOLE TEMPRW_CONSOLE

Reads "### metric <phase> <key> <value>" lines and prints, per metric,
both values and patched/stock; for page-table and direct-map figures also
the growth from "before" to "loaded", which is what the workload cost.
A counter the kernel does not have (reported as -1) prints "n/a".
Both boots must have run on the same clocksource ("### clocksource"),
else the comparison is refused.  With the iTLB model's output files
(bench/itlb_model.c), its figures per 1,000 BPF runs, kprobe hits and
ftrace-traced calls follow, labelled as a model.  --out DIR also writes
the rows as DIR/table.csv and DIR/table.json.

--modtext compares v2's two module-text designs with stock 6.12
(harness/modtext.sh): what the ten module cycles of the workload cost in
4 KiB executable translations and direct-map splits, the timed load +
unload cycle and text_mutex's holds, each design against stock.
"""
import argparse
import csv
import json
import os
import sys

import benchlib

GROWTH = ['exec_translations', 'exec_pmd', 'direct_map_level2_splits',
          'direct_map_level3_splits', 'directmap4k_kb', 'jit_vmalloc_bytes',
          'bpf_reserved_bytes', 'ftrace_trampolines']

MODEL_PHASES = ((1, 'bpf runs', ('exec', 'bpf_runs')),
                (2, 'kprobe hits', ('kprobe_hits', 'calls')),
                (3, 'ftrace-traced calls', ('ftrace_hits', 'calls')))


def read(path):
    return benchlib.read_metrics(path, 'bench_report')


def ratio(a, b):
    if a is None or b is None:
        return 'n/a'
    if a == 0:
        return 'equal' if b == 0 else 'inf'
    return f'{b / a:.3f}'


ROWS = []


def row(name, a, b):
    fmt = lambda v: 'n/a' if v is None else str(v)
    ROWS.append({'metric': name, 'stock': fmt(a), 'jitalloc': fmt(b),
                 'ratio': ratio(a, b)})
    print(f'{name:44} {fmt(a):>12} {fmt(b):>12} {ratio(a, b):>9}')


def modtext(paths):
    """The module rows of stock, the writable copy and temporarily writable text."""
    runs = [read(p) for p in paths]
    benchlib.one_clocksource([c for _, c in runs], 'bench_report',
                             'the three boots')
    names = ['stock', 'copy', 'temp-rw']
    print(f'{"module text (x86_64, 6.12)":46} ' +
          ' '.join(f'{n:>10}' for n in names) + f' {"copy/st":>8} {"trw/st":>8}')

    def line(label, vals):
        fmt = lambda v: 'n/a' if v is None else str(v)
        print(f'{label:46} ' + ' '.join(f'{fmt(v):>10}' for v in vals) +
              f' {ratio(vals[0], vals[1]):>8} {ratio(vals[0], vals[2]):>8}')

    for key, label in (('exec_translations', '4 KiB exec translations added by 10 cycles'),
                       ('exec_pmd', '2 MiB exec mappings added by 10 cycles'),
                       ('direct_map_level2_splits', 'direct-map 2 MiB splits by 10 cycles'),
                       ('directmap4k_kb', 'direct map in 4 KiB pages added (KiB)')):
        vals = []
        for v, _ in runs:
            a, b = v.get(('after_ftrace', key)), v.get(('after_modules', key))
            vals.append(None if a is None or b is None else b - a)
        line(label, vals)
    for key, label in (('module_cycle_us', 'load + unload, us per cycle (200)'),
                       ('module_text_mutex_hold_us', 'text_mutex held, us (20 cycles)'),
                       ('module_text_mutex_hold_max_us', 'text_mutex longest hold, us'),
                       ('big_module_text_mutex_hold_us', 'the same, 2 MiB+ module, us'),
                       ('big_module_text_mutex_hold_max_us', '... longest hold, us')):
        line(label, [v.get(('timed', key)) for v, _ in runs])


def main():
    if len(sys.argv) == 5 and sys.argv[1] == '--modtext':
        modtext(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(usage=__doc__)
    ap.add_argument('files', nargs='+')
    ap.add_argument('--out')
    args = ap.parse_args()
    if len(args.files) not in (2, 4):
        sys.exit(__doc__)
    (stock, sclock), (patched, pclock) = read(args.files[0]), read(args.files[1])
    print(f'clocksource: stock {sclock}, jitalloc {pclock}')
    benchlib.one_clocksource([sclock, pclock], 'bench_report', 'the two boots')
    print(f'{"metric":44} {"stock":>12} {"jitalloc":>12} {"ratio":>9}')
    for key in GROWTH:
        for phase in ('loaded', 'after'):
            a0, b0 = stock.get(('before', key)), patched.get(('before', key))
            a1, b1 = stock.get((phase, key)), patched.get((phase, key))
            da = None if a0 is None or a1 is None else a1 - a0
            db = None if b0 is None or b1 is None else b1 - b0
            row(f'{key} growth before->{phase}', da, db)
    # BPF's memory, counted alike on both kernels: executable bytes the
    # kernel came to hold during the BPF phase (vmalloc areas of JIT users:
    # stock's packs or pages, the series' cache pages), and bytes handed
    # out to the programs (bpf_handed_bytes: the allocator's request sizes)
    jited = [v.get(('loaded', 'bpf_jited_bytes')) for v in (stock, patched)]
    row('bpf_jited_bytes', *jited)
    held = [None if v.get(('before', 'jit_vmalloc_bytes')) is None or
            v.get(('after_bpf', 'jit_vmalloc_bytes')) is None else
            v[('after_bpf', 'jit_vmalloc_bytes')] - v[('before', 'jit_vmalloc_bytes')]
            for v in (stock, patched)]
    handed = [v.get(('loaded', 'bpf_handed_bytes')) for v in (stock, patched)]
    row('bpf executable bytes held (BPF phase)', *held)
    row('bpf bytes handed out', *handed)
    row('bpf bytes held per jited byte',
        *[None if h is None or not j else round(h / j, 2) for h, j in zip(held, jited)])
    row('bpf bytes handed out per jited byte',
        *[None if h is None or not j else round(h / j, 2) for h, j in zip(handed, jited)])
    # which phase of the workload split the direct map
    marks = ['before', 'after_bpf', 'after_kprobes', 'after_ftrace', 'after_modules']
    for key in ('direct_map_level2_splits', 'direct_map_level3_splits'):
        for prev, cur in zip(marks, marks[1:]):
            ds = [None if v.get((prev, key)) is None or v.get((cur, key)) is None
                  else v[(cur, key)] - v[(prev, key)] for v in (stock, patched)]
            row(f'{key} during {cur[len("after_"):]}', *ds)
    for (phase, key) in sorted(set(stock) | set(patched)):
        if phase in ('timed', 'exec', 'kprobe_hits', 'ftrace_hits'):
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
    if len(args.files) == 4:
        model_rows(stock, patched, benchlib.read_model(args.files[2], 'bench_report'),
                   benchlib.read_model(args.files[3], 'bench_report'))
    print('(alloc_free_*: jit_text_alloc vs module_alloc + set_memory_ro/x + vfree, '
          'which stock x86 BPF and kprobes do not do below a page; bpf_path_* is '
          'what each kernel\'s BPF JIT calls per program, kprobe_slot what a kprobe '
          'takes: those are the like-for-like rows)')
    for side, vals in (('stock', stock), ('jitalloc', patched)):
        wx = [v for (p, k), v in vals.items() if k == 'wx_mappings' and v]
        if wx:
            print(f'{side}: W+X mappings seen: {wx}')
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, 'table.csv'), 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=['metric', 'stock', 'jitalloc', 'ratio'])
            w.writeheader()
            w.writerows(ROWS)
        with open(os.path.join(args.out, 'table.json'), 'w') as f:
            json.dump({'clocksource': sclock, 'rows': ROWS}, f, indent=1)


def model_rows(stock, patched, smodel, pmodel):
    """Modelled kernel instruction fetches, L1 iTLB misses and page walks."""
    for phase, what, key in MODEL_PHASES:
        per = {}
        for side, vals, model in (('s', stock, smodel), ('p', patched, pmodel)):
            n, w = vals.get(key), model.get(phase)
            for k in ('kernel_insns', 'kernel_l1_misses', 'kernel_walks'):
                per[(side, k)] = None if not n or not w else w[k] * 1000 // n
        for k, name in (('kernel_insns', 'kernel instructions'),
                        ('kernel_l1_misses', 'kernel L1 iTLB misses'),
                        ('kernel_walks', 'kernel iTLB page walks')):
            row(f'model: {name} per 1k {what}', per[('s', k)], per[('p', k)])
    print('(model: bench/itlb_model.c in QEMU TCG, not a hardware counter; '
          'x86_64 as Skylake: L1 iTLB 128x4K 8-way + 8x2M, STLB 1536 12-way; '
          'arm64 as Cortex-A72: L1 48 entries 4K/64K/1M, L2 1024 4-way)')


if __name__ == '__main__':
    main()
