#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What make run prints: the demo's story at a glance.

Reads the console log of a demo boot (harness/run.sh) and prints the
workload, the page-table and memory figures before, with and after it,
and jitstat's summary of the pools while it was loaded.  The raw pool
statistics stay in the log.

Usage: run_story.py CONSOLE_LOG ARCH VARIANT
"""
import re
import sys

ROWS = [
    ('exec_translations', 'executable leaf mappings (ptdump)'),
    ('exec_pmd', '  of them large (2 MiB) mappings'),
    ('direct_map_level2_splits', 'direct-map 2 MiB pages split'),
    ('jit_text_kb', 'JitText in /proc/meminfo, kB'),
    ('wx_mappings', 'W+X mappings'),
]
PHASES = ('before', 'loaded', 'after')


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: run_story.py CONSOLE_LOG ARCH VARIANT')
    path, arch, variant = sys.argv[1:]
    try:
        with open(path, errors='replace') as f:
            lines = [line.rstrip('\r\n') for line in f]
    except OSError as e:
        sys.exit(f'run_story: cannot read {path}: {e.strerror}')

    metrics = {}
    workload = []
    stat = {}
    current = None
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
        m = re.match(r'jitload: (\d+ .*)$', line)
        if m and not m.group(1).startswith('0 errors'):
            workload.append(m.group(1))
        m = re.match(r'### jitalloc scenario demo end rc=(\d+)', line)
        if m:
            end_rc = int(m.group(1))

    if end_rc is None:
        sys.exit(f'run_story: the demo did not finish (no end marker in {path})')
    print(f'jitalloc demo: {arch} kernel, variant {variant}')
    print('workload: ' + ('; '.join(workload) if workload else 'none reported'))
    print()
    print(f'{"":38}' + ''.join(f'{p:>10}' for p in PHASES))
    for key, label in ROWS:
        vals = [metrics.get((p, key)) for p in PHASES]
        if all(v is None or v < 0 for v in vals):
            continue
        cells = ''.join(f'{"n/a" if v is None or v < 0 else v:>10}' for v in vals)
        print(f'{label:38}{cells}')

    before = metrics.get(('before', 'exec_translations'))
    loaded = metrics.get(('loaded', 'exec_translations'))
    splits = [metrics.get((p, 'direct_map_level2_splits')) for p in ('before', 'loaded')]
    if before is not None and loaded is not None:
        said = f'\nThe workload added {loaded - before} executable mapping(s)'
        if None not in splits and min(splits) >= 0:
            said += f' and split {splits[1] - splits[0]} direct-map page(s)'
        print(said + ': its code lives in the huge pages the pools below hold.'
              if variant != 'stock' else said + '.')

    if 'loaded' in stat:
        print('\nThe pools with the workload loaded (jitstat):')
        for line in stat['loaded']:
            print('  ' + line)
    elif variant != 'stock':
        print('\nno jitstat output in the log (is jitstat in the guest image?)')
    print(f'\nraw pool statistics and the whole guest output: {path}')
    return 0 if end_rc == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
