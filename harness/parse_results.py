#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read KUnit (KTAP) and kselftest (TAP) results out of a guest console log.

usage: parse_results.py LOG --label L [--kunit SUITE ...] [--selftest NAME ...]
                        [--totals FILE]

Prints every failed test by name, a line per expected suite that did not
run, and "label: N passed, N failed, N skipped".  With --totals, appends
"passed failed skipped" to FILE for the caller to sum.  Exit status 1 on
any failure or missing suite.
"""
import argparse
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(\s*)(not ok|ok)\s+\d+\s*(?:-\s*)?([^#]*?)\s*(#\s*(.*))?$')
SUBTEST = re.compile(r'^(\s*)#\s*Subtest:\s*(\S+)')
SELFTEST_BEGIN = re.compile(r'^### selftest (\S+) begin')
SELFTEST_END = re.compile(r'^### selftest (\S+) end rc=(\d+)')


def clean(line):
    return TS.sub('', line.rstrip('\r\n'))


class Tally:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.failures = []

    def add(self, status, name, directive):
        if directive and directive.upper().startswith('SKIP'):
            self.skipped += 1
        elif status == 'ok':
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(name)


def parse_tap(lines, prefix, tally):
    """Count leaf results of a (K)TAP block; return the suite names seen
    with a top-level result."""
    stack = []  # suite names by nesting, from "# Subtest:"
    pending = []  # (indent, status, name, directive) awaiting leaf check
    suites = {}
    prev_indent = None
    for raw in lines:
        m = SUBTEST.match(raw)
        if m:
            stack.append((len(m.group(1)), m.group(2)))
            continue
        m = RESULT.match(raw)
        if not m:
            continue
        indent, status, name, directive = (len(m.group(1)), m.group(2),
                                           m.group(3).strip(), m.group(5))
        # A result closes every suite opened at a deeper or equal indent
        # whose name it carries: that is the suite's own result line.
        if stack and stack[-1][1] == name and stack[-1][0] >= indent:
            stack.pop()
            suites[name] = status
            continue
        path = '.'.join([prefix] + [s for _, s in stack] + [name])
        tally.add(status, path, directive)
    return suites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--label', required=True)
    ap.add_argument('--kunit', nargs='*', default=[])
    ap.add_argument('--selftest', nargs='*', default=[])
    ap.add_argument('--totals')
    args = ap.parse_args()

    try:
        with open(args.log, errors='replace') as f:
            lines = [clean(l) for l in f]
    except OSError as e:
        print(f'{args.label}: cannot read console log: {e}')
        return 1

    tally = Tally()
    missing = []

    # Split the console into kernel (KUnit) and selftest blocks.
    kernel_lines, blocks, cur = [], {}, None
    for line in lines:
        m = SELFTEST_BEGIN.match(line)
        if m:
            cur = m.group(1)
            blocks[cur] = {'lines': [], 'rc': None}
            continue
        m = SELFTEST_END.match(line)
        if m and cur == m.group(1):
            blocks[cur]['rc'] = int(m.group(2))
            cur = None
            continue
        if cur:
            blocks[cur]['lines'].append(line)
        else:
            kernel_lines.append(line)

    # KUnit: only lines inside the suites we expect, so stray "ok" text
    # elsewhere on the console cannot count.
    ktap = []
    inside = 0
    for line in kernel_lines:
        m = SUBTEST.match(line)
        if m and len(m.group(1)) == 4 and m.group(2) in args.kunit:
            inside = 1
        if inside:
            ktap.append(line)
            r = RESULT.match(line)
            if r and len(r.group(1)) == 0:
                inside = 0
    kunit_suites = parse_tap(ktap, 'kunit', tally)
    for s in args.kunit:
        if s not in kunit_suites:
            missing.append(f'kunit suite {s}')

    for name in args.selftest:
        b = blocks.get(name)
        if not b:
            missing.append(f'selftest {name}')
            continue
        before = (tally.passed, tally.failed, tally.skipped)
        parse_tap(b['lines'], 'selftest.' + name, tally)
        if (tally.passed, tally.failed, tally.skipped) == before:
            missing.append(f'selftest {name} (no TAP results)')
        elif b['rc'] is None:
            missing.append(f'selftest {name} (did not finish)')
        elif b['rc'] != 0 and tally.failed == before[1]:
            tally.failed += 1
            tally.failures.append(f'selftest.{name} exited with status {b["rc"]}')

    for f in tally.failures:
        print(f'{args.label}: FAIL {f}')
    for m in missing:
        print(f'{args.label}: expected {m} did not run')
    tally.failed += len(missing)
    print(f'{args.label}: {tally.passed} passed, {tally.failed} failed, '
          f'{tally.skipped} skipped')
    if args.totals:
        with open(args.totals, 'a') as f:
            f.write(f'{tally.passed} {tally.failed} {tally.skipped}\n')
    return 1 if tally.failed else 0


if __name__ == '__main__':
    sys.exit(main())
