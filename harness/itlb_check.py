#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the iTLB model (bench/itlb_model.c) against known answers.

usage: itlb_check.py CONSOLE_LOG MODEL_OUT --arch ARCH --label L [--totals F]
                     [--require-thp]

The guest (jitload --itlb-validate) calls PAGES one-instruction functions,
one per 4 KiB page, round robin ROUNDS times, in three windows:
  fit     16 pages: every modelled L1 iTLB holds them, with room for the
          kernel code an interrupt runs in the window, so each page misses
          the L1 once (the first round) and is walked once.  The allowance
          for interrupts comes from the modelled geometry, not from the
          model's own count of kernel misses: x86's L1 is 128 entries,
          8-way, and 16 consecutive pages take one way of 16 sets, so an
          interrupt would need 8 entries of one set to evict one of them:
          no extra round.  The modelled arm64 L1 has 48 entries, 24 of
          them left beside the loop and SLACK: an interrupt whose kernel
          code takes more evicts the loop's oldest pages, which the round
          robin then misses a round more: one extra round;
  thrash  512 pages of 4 KiB: more than any modelled L1 holds and fewer
          than the second level holds, so every call misses the L1 and
          only the first round walks;
  large   the same 512 pages in one 2 MiB page: one L1 entry on x86 (two
          1 MiB entries on the modelled arm64 core), one walk.
The loop's own code adds a few lookups of its own page(s); SLACK covers it.
With --require-thp the large case must really be a transparent huge page
(the test kernels have THP), not only declared 2 MiB to the model.
Prints one line per case and "LABEL: N passed, N failed"; exits 1 on any
failure or when a window is missing.
"""
import argparse
import re
import sys

import benchlib

SLACK = 8
# Extra rounds of fit-window misses an interrupt can cause on the modelled
# cores (bench/itlb_model.c), from their L1 geometry (see above).
FIT_EXTRA_ROUNDS = {'x86_64': 0, 'arm64': 1}
PHASES = {10: 'fit', 11: 'thrash', 12: 'large'}


def read_cases(path):
    cases = {}
    rx = re.compile(r'### itlb-validate phase=(\d+) pages=(\d+) rounds=(\d+) thp=(\d)')
    with open(path, errors='replace') as f:
        for line in f:
            m = rx.search(line)
            if m:
                cases[int(m.group(1))] = tuple(int(g) for g in m.groups()[1:])
    return cases


def check(name, arch, pages, rounds, w):
    """Return a list of failed expectations for one window."""
    miss, walks, looks = w['user_l1_misses'], w['user_walks'], w['user_lookups']
    bad = []
    if looks < pages * rounds:
        bad.append(f'lookups {looks} < {pages * rounds} calls: window missed the loop')
    if name == 'fit':
        extra = pages * FIT_EXTRA_ROUNDS[arch]
        if not pages <= miss <= pages + SLACK + extra:
            bad.append(f'L1 misses {miss} not in [{pages}, {pages + SLACK + extra}]'
                       f' ({w["kernel_l1_misses"]} kernel L1 misses in the window)')
        if not pages <= walks <= pages + SLACK:
            bad.append(f'walks {walks} not in [{pages}, {pages + SLACK}]')
    elif name == 'thrash':
        if miss < pages * rounds * 0.98:
            bad.append(f'L1 misses {miss} < 98% of {pages * rounds} calls')
        if walks > pages + SLACK:
            bad.append(f'walks {walks} > {pages + SLACK}: the second level should hold them')
        if walks < pages // 2:
            bad.append(f'walks {walks} < {pages // 2}: new pages must be walked')
    else:
        entries = 1 if arch == 'x86_64' else 2
        if not 1 <= miss <= entries + SLACK:
            bad.append(f'L1 misses {miss} not in [1, {entries + SLACK}]')
        if walks > 1 + SLACK:
            bad.append(f'walks {walks} > {1 + SLACK}')
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('console')
    ap.add_argument('model_out')
    ap.add_argument('--arch', required=True)
    ap.add_argument('--label', required=True)
    ap.add_argument('--totals')
    ap.add_argument('--require-thp', action='store_true')
    args = ap.parse_args()

    model = benchlib.read_model(args.model_out, 'itlb_check')
    cases = read_cases(args.console)
    passed = failed = 0
    for phase, name in PHASES.items():
        w, c = model.get(phase), cases.get(phase)
        if not w or not c:
            print(f'{args.label}: FAIL {name}: no {"window" if not w else "case line"} '
                  f'for phase {phase}')
            failed += 1
            continue
        pages, rounds, thp = c
        bad = check(name, args.arch, pages, rounds, w)
        if name == 'large' and args.require_thp and not thp:
            bad.append('not a transparent huge page in the guest')
        what = (f'{pages} pages x {rounds}: L1 misses {w["user_l1_misses"]}, '
                f'walks {w["user_walks"]}, lookups {w["user_lookups"]}')
        if name == 'large':
            what += ', transparent huge page' if thp else \
                ', declared 2 MiB (no THP in this guest)'
        if bad:
            print(f'{args.label}: FAIL {name} ({what}): {"; ".join(bad)}')
            failed += 1
        else:
            print(f'{args.label}: ok {name} ({what})')
            passed += 1
    print(f'{args.label}: {passed} passed, {failed} failed')
    if args.totals:
        with open(args.totals, 'a') as f:
            f.write(f'{passed} {failed} 0\n')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
