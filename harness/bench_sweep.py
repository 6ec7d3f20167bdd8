#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Scaling sweep of make bench: stock vs jitalloc at N BPF programs / kprobes.

usage: bench_sweep.py STOCK_CONSOLE PATCHED_CONSOLE STOCK_MODEL PATCHED_MODEL
                      --arch ARCH --out DIR [--bench-csv FILE]

Reads the "### metric sweep_bpf_<N> ..." and "sweep_kprobes_<N>" figures of
`jitload --sweep` from both consoles and the iTLB model's windows (phases
20 + step) from both model files; prints one table, writes sweep.csv and
sweep.json to DIR and draws (python3-matplotlib):
  translations_vs_n.png  executable translations added, log-log
  splits_vs_n.png        direct-map PMD splits added (x86; arm64 has no counter)
  held_vs_n.png          executable bytes held by BPF (vmalloc areas of JIT users)
  itlb_vs_n.png          modelled kernel L1 iTLB misses per 1,000 BPF runs
  alloc_free.png         in-kernel alloc+free rates by size (--bench-csv)
"""
import argparse
import csv
import json
import os
import re
import sys

import benchlib

METRIC = re.compile(r'### metric (sweep_(bpf|kprobes)_(\d+)) (\S+) (-?\d+)')
BPF_STEPS = [100, 300, 1000, 3000, 10000]
KP_STEPS = [10, 30, 100, 300, 1000]


def read_console(path):
    vals = {}
    with open(path, errors='replace') as f:
        for line in f:
            m = METRIC.search(line)
            if m:
                v = int(m.group(5))
                vals[(m.group(2), int(m.group(3)), m.group(4))] = None if v < 0 else v
    if not vals:
        sys.exit(f'bench_sweep: no sweep figures in {path}: did jitload --sweep run?')
    return vals


def growth(vals, kind, n, key):
    a, b = vals.get((kind, 0, key)), vals.get((kind, n, key))
    return None if a is None or b is None else b - a


def rows_for(side, vals, model):
    rows = []
    for i, n in enumerate(BPF_STEPS):
        runs = vals.get(('bpf', n, 'bpf_runs'))
        w = model.get(20 + i)
        per = (lambda k: None if not runs or not w else round(w[k] * 1000 / runs, 1))
        rows.append({
            'kernel': side, 'user': 'bpf', 'n': n,
            'exec_translations': growth(vals, 'bpf', n, 'exec_translations'),
            'exec_pmd': growth(vals, 'bpf', n, 'exec_pmd'),
            'direct_map_splits': growth(vals, 'bpf', n, 'direct_map_level2_splits'),
            'held_bytes': growth(vals, 'bpf', n, 'jit_vmalloc_bytes'),
            'bpf_reserved_bytes': growth(vals, 'bpf', n, 'bpf_reserved_bytes'),
            'load_us_per_prog': vals.get(('bpf', n, 'load_us_per_prog')),
            'model_kernel_insns_per_1k_runs': per('kernel_insns'),
            'model_l1_itlb_misses_per_1k_runs': per('kernel_l1_misses'),
            'model_walks_per_1k_runs': per('kernel_walks'),
        })
    for n in KP_STEPS:
        rows.append({
            'kernel': side, 'user': 'kprobes', 'n': n,
            'placed': vals.get(('kprobes', n, 'kprobes')),
            'exec_translations': growth(vals, 'kprobes', n, 'exec_translations'),
            'exec_pmd': growth(vals, 'kprobes', n, 'exec_pmd'),
            'direct_map_splits': growth(vals, 'kprobes', n, 'direct_map_level2_splits'),
        })
    return rows


def fmt(v):
    return 'n/a' if v is None else str(v)


def table(rows):
    cols = ['placed', 'exec_translations', 'exec_pmd', 'direct_map_splits', 'held_bytes',
            'bpf_reserved_bytes', 'load_us_per_prog',
            'model_kernel_insns_per_1k_runs', 'model_l1_itlb_misses_per_1k_runs',
            'model_walks_per_1k_runs']
    by = {(r['kernel'], r['user'], r['n']): r for r in rows}
    for user, steps in (('bpf', BPF_STEPS), ('kprobes', KP_STEPS)):
        print(f'\n{user} sweep (growth from the start of the sweep; stock | jitalloc)')
        use = [c for c in cols if any(c in by[(k, user, n)] for k in ('stock', 'jitalloc')
                                      for n in steps)]
        print('| N | ' + ' | '.join(use) + ' |')
        print('|---|' + '---|' * len(use))
        for n in steps:
            cells = [f'{fmt(by[("stock", user, n)].get(c))} \\| '
                     f'{fmt(by[("jitalloc", user, n)].get(c))}' for c in use]
            print(f'| {n} | ' + ' | '.join(cells) + ' |')


def plots(rows, out, arch, bench_csv):
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit('bench_sweep: python3-matplotlib is missing (harness/deps.sh --plots)')
    files = []

    def series(user, key):
        pts = {}
        for side in ('stock', 'jitalloc'):
            pts[side] = [(r['n'], r.get(key)) for r in rows
                         if r['kernel'] == side and r['user'] == user]
        return pts

    def draw(name, user, key, ylabel, title, log=True):
        pts = series(user, key)
        fig, ax = plt.subplots(figsize=(6, 4))
        drawn = False
        for side, style in (('stock', 'o-'), ('jitalloc', 's-')):
            xy = [(x, y) for x, y in pts[side] if y is not None]
            if xy:
                # log axes cannot show 0: plot it at 0.5, say so in the label
                ys = [max(y, 0.5) if log else y for _, y in xy]
                ax.plot([x for x, _ in xy], ys, style, label=side)
                drawn = True
        if not drawn:
            ax.text(0.5, 0.5, f'n/a on {arch}', ha='center', transform=ax.transAxes)
        if log:
            ax.set_xscale('log')
            ax.set_yscale('log')
        ax.set_xlabel(f'{user} loaded (N)')
        ax.set_ylabel(ylabel + (' (0 at 0.5)' if log else ''), fontsize=8)
        ax.set_title(f'{title} ({arch})')
        ax.grid(True, which='both', alpha=0.3)
        if drawn:
            ax.legend()
        fig.tight_layout()
        path = os.path.join(out, name)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        files.append(path)

    draw('translations_vs_n.png', 'bpf', 'exec_translations',
         'executable translations added', 'Page-table entries mapping BPF text')
    draw('splits_vs_n.png', 'bpf', 'direct_map_splits', 'direct-map PMD splits',
         'Direct-map splits from BPF')
    draw('held_vs_n.png', 'bpf', 'held_bytes', 'bytes of executable vmalloc',
         'Executable memory held for BPF')
    draw('itlb_vs_n.png', 'bpf', 'model_l1_itlb_misses_per_1k_runs',
         'modelled kernel L1 iTLB misses / 1k runs', 'iTLB model, round-robin BPF runs')
    draw('kprobes_translations_vs_n.png', 'kprobes', 'exec_translations',
         'executable translations added', 'Page-table entries mapping kprobe slots')
    if bench_csv:
        sizes, data = [], {}
        with open(bench_csv) as f:
            for r in csv.DictReader(f):
                m = re.fullmatch(r'(alloc_free|bpf_path)_(\d+)_ops_per_sec', r['metric'])
                if m and r['stock'] not in ('', 'n/a') and r['jitalloc'] not in ('', 'n/a'):
                    data[(m.group(1), int(m.group(2)))] = (int(r['stock']), int(r['jitalloc']))
                    if int(m.group(2)) not in sizes:
                        sizes.append(int(m.group(2)))
        if data:
            sizes.sort()
            fig, ax = plt.subplots(figsize=(7, 4))
            width = 0.2
            for j, (kind, side) in enumerate(((k, s) for k in ('alloc_free', 'bpf_path')
                                              for s in (0, 1))):
                ys = [data.get((kind, z), (0, 0))[side] for z in sizes]
                ax.bar([i + (j - 1.5) * width for i in range(len(sizes))], ys, width,
                       label=f'{kind} {"stock" if side == 0 else "jitalloc"}')
            ax.set_xticks(range(len(sizes)))
            ax.set_xticklabels([f'{z} B' for z in sizes])
            ax.set_yscale('log')
            ax.set_ylabel('alloc+free pairs per second')
            ax.set_title(f'In-kernel alloc+free by size ({arch})')
            ax.legend(fontsize=8)
            fig.tight_layout()
            path = os.path.join(out, 'alloc_free.png')
            fig.savefig(path, dpi=100)
            plt.close(fig)
            files.append(path)
    return files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('stock_console')
    ap.add_argument('patched_console')
    ap.add_argument('stock_model')
    ap.add_argument('patched_model')
    ap.add_argument('--arch', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--bench-csv')
    args = ap.parse_args()

    rows = (rows_for('stock', read_console(args.stock_console),
                     benchlib.read_model(args.stock_model, 'bench_sweep')) +
            rows_for('jitalloc', read_console(args.patched_console),
                     benchlib.read_model(args.patched_model, 'bench_sweep')))
    table(rows)
    os.makedirs(args.out, exist_ok=True)
    keys = sorted({k for r in rows for k in r}, key=lambda k: (k not in ('kernel', 'user', 'n'), k))
    with open(os.path.join(args.out, 'sweep.csv'), 'w', newline='') as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        for r in rows:
            w.writerow({k: fmt(r.get(k)) if k in r else '' for k in keys})
    with open(os.path.join(args.out, 'sweep.json'), 'w') as f:
        json.dump(rows, f, indent=1)
    for p in plots(rows, args.out, args.arch, args.bench_csv):
        print(f'plot: {p}')


if __name__ == '__main__':
    main()
