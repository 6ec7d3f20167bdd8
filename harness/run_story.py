#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What make run prints: the demo's story at a glance.

Reads the console log of a demo boot (harness/run.sh) and prints the
workload, the page-table and memory figures before, with and after it,
and jitstat's summary of the pools while it was loaded.  The raw pool
statistics stay in the log.

Usage: run_story.py CONSOLE_LOG ARCH VARIANT [--stock STOCK_CONSOLE_LOG]
                    [--base 6.1|6.12]
"""
import argparse
import os
import re
import sys

ROWS = [
    ('exec_translations', 'executable leaf mappings (ptdump)'),
    ('exec_pmd', '  of them 2 MiB mappings'),
    ('direct_map_level2_splits', 'direct-map 2 MiB pages split'),
    ('jit_text_kb', 'JitText (/proc/meminfo), kB'),
    ('vmalloc_used_kb', 'VmallocUsed (/proc/meminfo), kB'),
    ('wx_mappings', 'W+X mappings'),
]
PHASES = ('before', 'loaded', 'after')

# One sentence per counter that is not zero, for the raw reports
# ("### jitalloc report (PHASE)", then "--- FILE" and its "key value"
# lines).  Counters not listed are explained in
# Documentation/admin-guide/mm/jitalloc.rst.
EXPLAIN = {
    'refused_frees': 'frees refused (double or foreign frees of jit_free(), '
                     'execmem_free() on 6.12): a bug in a kernel user, see '
                     'the "refused" warning in the log',
    'refused_updates': 'writes refused for lying outside an allocation: '
                       'a bug in a kernel user',
    'refused_types': 'allocations refused for a wrong type: a bug in a '
                     'kernel user',
    'alias_errors': 'pages not used because their direct-map alias could '
                    'not be made read-only',
    'map_errors': 'pages not used because, filled, they could not be '
                  'mapped executable',
    'leaked_pages': 'pages kept out of use because their direct-map alias '
                    'could not be made writable again',
    'fallbacks': 'requests this pool could not serve, served page by page '
                 '(code larger than 2 MiB, or a kprobes slot wanted before '
                 'a huge page was ready; the jit_fallback trace event says '
                 'which)',
    'fallback_pages': 'pages of code held page by page for this pool\'s '
                      'users now',
    'reclaims': 'huge pages given back to vmalloc once free',
    'shrinker_reclaims': 'of those, given back to the memory shrinker',
    'spare_pages': 'free huge pages kept for reuse (given back after a '
                   'second, or to the shrinker)',
}


def parse(path):
    """Metrics, workload lines, jitstat output and raw reports of a log."""
    try:
        with open(path, errors='replace') as f:
            lines = [line.rstrip('\r\n') for line in f]
    except OSError as e:
        sys.exit(f'run_story: cannot read {path}: {e.strerror}')
    metrics, workload, stat, raw = {}, [], {}, {}
    current = report = rfile = None
    end_rc = None
    for line in lines:
        m = re.match(r'### metric (\S+) (\S+) (-?\d+)$', line)
        if m:
            metrics[(m.group(1), m.group(2))] = int(m.group(3))
            continue
        m = re.match(r'### jitstat (\S+) (begin|end)$', line)
        if m:
            current = m.group(1) if m.group(2) == 'begin' else None
            if current:
                stat[current] = []
            continue
        if current:
            if not re.match(r'\[ *\d+\.\d+\]', line):
                stat[current].append(line)
            continue
        m = re.match(r'### jitalloc report \((\S+)\)$', line)
        if m:
            report, rfile = m.group(1), None
            raw[report] = {}
            continue
        if line.startswith('###'):
            report = None
        if report:
            m = re.match(r'--- (\S+)$', line)
            if m:
                rfile = m.group(1)
                raw[report][rfile] = {}
                continue
            m = re.match(r'(\w+) (-?\d+)$', line)
            if m and rfile:
                raw[report][rfile][m.group(1)] = int(m.group(2))
        m = re.match(r'jitload: (\d+ .*)$', line)
        if m and not m.group(1).startswith('0 errors'):
            workload.append(m.group(1))
        m = re.match(r'### jitalloc scenario demo end rc=(\d+)', line)
        if m:
            end_rc = int(m.group(1))
    if end_rc is None:
        sys.exit(f'run_story: the demo did not finish (no end marker in {path})')
    return metrics, workload, stat, raw, end_rc


def cell(v):
    return 'n/a' if v is None or v < 0 else str(v)


def main():
    ap = argparse.ArgumentParser(description='the demo at a glance')
    ap.add_argument('log')
    ap.add_argument('arch')
    ap.add_argument('variant')
    ap.add_argument('--stock', help='console log of the stock kernel running the demo')
    ap.add_argument('--base', default=os.environ.get('BASE') or '6.1',
                    choices=('6.1', '6.12'),
                    help='the kernel the series is against (6.12: v2); '
                         'default $BASE, else 6.1')
    args = ap.parse_args()
    metrics, workload, stat, raw, end_rc = parse(args.log)
    stock = parse(args.stock)[0] if args.stock else None

    series = 'jitalloc' if args.base == '6.1' else 'v2'
    print(f'jitalloc demo ({series} on {args.base}): {args.arch} kernel, variant {args.variant}'
          + (f', beside stock {args.base} from the same configuration' if stock else ''))
    print('workload: ' + ('; '.join(workload) if workload else 'none reported'))
    print()
    w = 7
    head = f'{"":34}' + ''.join(f'{p:>{w}}' for p in PHASES)
    if stock:
        print(f'{"":34}{series:^{3 * w}} {"stock":^{3 * w}}')
        head += ' ' + ''.join(f'{p:>{w}}' for p in PHASES)
    print(head)
    for key, label in ROWS:
        vals = [metrics.get((p, key)) for p in PHASES]
        svals = [stock.get((p, key)) for p in PHASES] if stock else []
        if all(v is None or v < 0 for v in vals + svals):
            continue
        line = f'{label:34}' + ''.join(f'{cell(v):>{w}}' for v in vals)
        if stock:
            line += ' ' + ''.join(f'{cell(v):>{w}}' for v in svals)
        print(line)

    def added(m):
        before = m.get(('before', 'exec_translations'))
        loaded = m.get(('loaded', 'exec_translations'))
        if before is None or loaded is None:
            return None
        return loaded - before

    ours = added(metrics)
    if ours is not None:
        said = f'\nThe workload added {ours} executable mapping(s)'
        theirs = added(stock) if stock else None
        if theirs is not None:
            said += f' here and {theirs} on stock'
        print(said + '.')
    if stock:
        jt = metrics.get(('before', 'jit_text_kb'))
        vm = metrics.get(('before', 'vmalloc_used_kb'))
        svm = stock.get(('before', 'vmalloc_used_kb'))
        if jt is not None and jt >= 0:
            cost = f'Idle cost, before the workload: JitText {jt} kB'
            if vm is not None and svm is not None and vm >= 0 and svm >= 0:
                cost += f', VmallocUsed {vm - svm:+d} kB against stock'
            print(cost + '.')

    if 'loaded' in stat:
        print('\nThe pools with the workload loaded (jitstat):')
        for line in stat['loaded']:
            print('  ' + line)
    elif args.variant != 'stock':
        print('\nno jitstat output in the log (is jitstat in the guest image?)')

    # each counter once, with its value at each phase
    seen = {}
    for phase in PHASES:
        for name, keys in sorted(raw.get(phase, {}).items()):
            for key, val in keys.items():
                if key in EXPLAIN:
                    seen.setdefault((name, key), {})[phase] = val
    nonzero = [(k, v) for k, v in seen.items() if any(v.values())]
    if nonzero:
        print('\nCounters that are not zero (before/loaded/after), and what they mean:')
    for (name, key), vals in nonzero:
        figs = '/'.join(cell(vals.get(p)) for p in PHASES)
        print(f'  {name}: {key} {figs}')
        print(f'      {EXPLAIN[key]}')
    print(f'\nraw pool statistics and the whole guest output: {args.log}')
    if args.stock:
        print(f'stock: {args.stock}')
    return 0 if end_rc == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
