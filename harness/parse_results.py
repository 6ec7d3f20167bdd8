#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read KUnit (KTAP) and kselftest (TAP) results out of a guest console log.

usage: parse_results.py LOG --label L [--kunit SUITE ...] [--selftest NAME ...]
                        [--expect-fail NAME ...] [--expected-skips FILE]
                        [--require LINE ...] [--totals FILE]

Prints every failed test by name with the lines it printed on why, every skipped test with its reason, a
line per expected suite that did not run, and "label: N passed, N failed,
N skipped".  A suite whose own result is "not ok" fails even when none of
its cases did (a suite_init failure runs none), and a suite whose plan
("1..N") does not match the results it printed fails.  A skip fails unless
a line of --expected-skips (test path, or a prefix of it ending in '*',
then ' # ' and the reason, or a part of it, that the skip must give)
expects it; lines of that file that no skip used
are reported, so the list does not go stale silently.  --require names a
console line that must appear.  With --totals, appends "passed failed
skipped" to FILE for the caller to sum.  Exit status 1 on any failure or
missing suite.

A kernel message that the serial console printed into the middle of a
line of the selftest's output is split back out (see unsplice()).

--expect-fail names selftests that are negative controls (run on stock
6.1): each of their cases must fail by its claim's deciding check (it
prints "claim refuted: "), and is then counted as passed and printed as
XFAIL; a case that passes or skips there, or fails any other way (an
assertion on the workload, a timeout, a crash), fails, since then the test
cannot tell the series from stock.  Only a skip --expected-skips lists
(with its reason: a claim the architecture cannot check at all, like
direct-map splits on arm64) is counted as skipped there.
"""
import argparse
import re
import sys

TS = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(\s*)(not ok|ok)\s+\d+\s*(?:-\s*)?([^#]*?)\s*(#\s*(.*))?$')
SUBTEST = re.compile(r'^(\s*)#\s*Subtest:\s*(\S+)')
SELFTEST_BEGIN = re.compile(r'^### selftest (\S+) begin')
SELFTEST_END = re.compile(r'^### selftest (\S+) end rc=(\d+)')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)\s*$')
# kselftest_harness names a test on its RUN line; a skip's result has none
RUN = re.compile(r'^#\s+RUN\s+(\S+) \.\.\.')
# What a failed case printed on why (kselftest_harness and KUnit asserts)
DIAG = re.compile(r'Expected|EXPECTATION FAILED|ASSERTION FAILED|'
                  r'Test failed|Test terminated|\.[ch]:\d+:')
DIAG_LINES = 4
# ... of which the lines that say an expectation or assertion failed
EXPECT_FAILED = re.compile(r'\.[ch]:\d+:[^:]*:Expected |'
                           r'EXPECTATION FAILED|ASSERTION FAILED')
# what a claim's deciding check prints when it fails (jitalloc_claims.h)
CLAIM_REFUTED = 'claim refuted: '
BAIL = re.compile(r'^\s*(#\s*)?Bail out!')


def clean(line):
    return TS.sub('', line.rstrip('\r\n'))


# A kernel message written to the serial console while a line of user
# output was still being sent lands inside that line: "o" + "[    5.884086]
# msg" on one line, "k 12 global.foo" on the next (KTAP/TAP lines lost that
# way fail the plan).  Give the message its own line and join the halves of
# the user's line, when the second half is no TAP line by itself.
EMBEDDED_TS = re.compile(r'\[\s*\d+\.\d{6}\] ')


def tap_line(line):
    return any(rx.match(line) for rx in (RESULT, RUN, PLAN, SUBTEST))


def unsplice(raw_lines):
    out, carry = [], ''
    for raw in raw_lines:
        line = raw.rstrip('\r\n')
        if TS.match(line):
            out.append(clean(line))
            continue
        m = EMBEDDED_TS.search(line)
        if m:
            carry += line[:m.start()]
            out.append(clean(line[m.start():]))
            continue
        # "not " + message + "ok 3 x" is a failure, not a pass; what the
        # console printed before the kernel's first line (terminal resets,
        # the firmware's "Booting from ROM..") belongs to no line
        if carry and '\x1b' not in carry:
            if RESULT.match(carry + line) or not tap_line(line):
                line = carry + line
            else:
                out.append(carry)
        out.append(line)
        carry = ''
    if carry:
        out.append(carry)
    return out


class Tally:
    def __init__(self, expected_skips=None):
        self.passed = self.failed = self.skipped = 0
        self.failures = []
        self.details = {}
        self.skips = []
        self.xfails = []
        self.expected = expected_skips or []
        self.used = set()
        self.control = False
        self.seen = []

    def skip_expected(self, name, reason):
        """Is the skip of @name listed, with its reason?  A line whose
        pattern matches but whose reason the skip does not give does not
        expect it: a skip for another reason is a new one."""
        for pat, why in self.expected:
            if pat == name or (pat.endswith('*') and name.startswith(pat[:-1])):
                if why and why not in reason:
                    continue
                self.used.add(pat)
                return True
        return False

    def add(self, status, name, directive, diag=(), refuted=False):
        self.seen.append(name)
        skip = bool(directive) and directive.upper().startswith('SKIP')
        if self.control:
            why = directive[4:].strip() if skip else ''
            if skip and self.skip_expected(name, why):
                # a claim this architecture cannot check at all (listed)
                self.skipped += 1
                self.skips.append((name, why, True))
            elif skip:
                self.fail(f'{name}: the control skipped: {why}')
            elif status == 'ok':
                self.fail(f'{name} passed on stock: it cannot tell the '
                          'series from stock')
            elif not refuted:
                # an assertion, a timeout or a crash: not the claim
                self.failed += 1
                self.failures.append(name)
                self.details[name] = [
                    f'failed on stock, but not by its deciding check '
                    f'("{CLAIM_REFUTED}")'] + list(diag)
            else:
                self.passed += 1
                self.xfails.append(name)
        elif skip and any(EXPECT_FAILED.search(d) for d in diag):
            # kselftest_harness reports SKIP() after a failed EXPECT_*()
            # as "ok # SKIP": the failed expectation decides
            self.failed += 1
            self.failures.append(name)
            self.details[name] = ['skipped after a failed expectation'] + \
                list(diag)
        elif skip:
            self.skipped += 1
            reason = directive[4:].strip() or '(no reason given)'
            ok = self.skip_expected(name, reason)
            self.skips.append((name, reason, ok))
            if not ok:
                self.failed += 1
                self.failures.append(f'{name} skipped unexpectedly: {reason}')
        elif status == 'ok':
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(name)
            self.details[name] = list(diag)

    def fail(self, what):
        self.failed += 1
        self.failures.append(what)


def parse_tap(lines, prefix, tally):
    """Count leaf results of a (K)TAP block; return the suite names seen
    with a top-level result.  A suite's own "not ok" and a plan that does
    not match the results are failures."""
    # open suites by nesting, from "# Subtest:":
    # [indent, name, plan, results seen, failures before it opened]
    stack = []
    root = [None, prefix, None, 0, 0]
    suites = {}
    last_run = ''
    diag = []
    refuted = False
    for raw in lines:
        if BAIL.match(raw):
            tally.fail(f'{prefix}: "{raw.strip()[:80]}"')
            continue
        m = RUN.match(raw)
        if m:
            last_run = m.group(1)
            diag = []
            refuted = False
            continue
        if CLAIM_REFUTED in raw and not RESULT.match(raw):
            refuted = True
        if not RESULT.match(raw) and DIAG.search(raw):
            diag.append(raw.strip()[:200])
            # the first lines say where it failed; keep them
            del diag[DIAG_LINES:]
        m = SUBTEST.match(raw)
        if m:
            stack.append([len(m.group(1)), m.group(2), None, 0, tally.failed])
            continue
        m = PLAN.match(raw)
        if m:
            indent = len(m.group(1))
            if stack and stack[-1][0] == indent and stack[-1][2] is None:
                stack[-1][2] = int(m.group(2))
            elif not stack and root[2] is None:
                root[2] = int(m.group(2))
            continue
        m = RESULT.match(raw)
        if not m:
            continue
        indent, status, name, directive = (len(m.group(1)), m.group(2),
                                           m.group(3).strip(), m.group(5))
        name = name or last_run
        # A result closes every suite opened at a deeper or equal indent
        # whose name it carries: that is the suite's own result line.
        if stack and stack[-1][1] == name and stack[-1][0] >= indent:
            _, sname, plan, seen, failed_before = stack.pop()
            suites[name] = status
            path = '.'.join([prefix] + [s[1] for s in stack] + [name])
            if plan is not None and plan != seen:
                tally.fail(f'{path}: plan 1..{plan}, {seen} results')
            elif not seen:
                tally.fail(f'{path}: the suite ran no case')
            # "not ok" with no failed case: the suite failed on its own
            if status != 'ok' and tally.failed == failed_before and \
                    not (directive and directive.upper().startswith('SKIP')):
                tally.fail(f'{path}: the suite itself reported "not ok"')
            (stack[-1] if stack else root)[3] += 1
            continue
        (stack[-1] if stack else root)[3] += 1
        path = '.'.join([prefix] + [s[1] for s in stack] + [name])
        tally.add(status, path, directive, diag, refuted)
        diag = []
        refuted = False
    if prefix.startswith('selftest'):
        # the plan is checked whatever "# Subtest:" lines came with it
        if root[2] is None:
            tally.fail(f'{prefix}: no plan (1..N) printed')
        elif root[2] != root[3] or root[2] == 0:
            tally.fail(f'{prefix}: plan 1..{root[2]}, {root[3]} results')
    for s in stack:
        tally.fail(f'{prefix}.{s[1]}: no result line for the suite')
    return suites


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('log')
    ap.add_argument('--label', required=True)
    ap.add_argument('--kunit', nargs='*', default=[])
    ap.add_argument('--selftest', nargs='*', default=[])
    ap.add_argument('--expect-fail', nargs='*', default=[])
    ap.add_argument('--expected-skips')
    ap.add_argument('--expected-cases',
                    help='file naming every case the suites must report')
    ap.add_argument('--require', nargs='*', default=[])
    ap.add_argument('--totals')
    args = ap.parse_args()

    expected = []
    if args.expected_skips:
        try:
            with open(args.expected_skips) as f:
                expected = [(l.split('#', 1)[0].strip(),
                             l.split('#', 1)[1].strip() if '#' in l else '')
                            for l in f if l.strip() and not l.startswith('#')]
        except OSError as e:
            print(f'{args.label}: cannot read expected skips: {e}')
            return 1

    try:
        with open(args.log, errors='replace') as f:
            lines = unsplice(f)
    except OSError as e:
        print(f'{args.label}: cannot read console log: {e}')
        return 1

    tally = Tally(expected)
    missing = []

    # Split the console into kernel (KUnit) and selftest blocks.
    kernel_lines, blocks, cur, key = [], {}, None, None
    for line in lines:
        m = SELFTEST_BEGIN.match(line)
        if m:
            cur = key = m.group(1)
            if cur in blocks:
                # a second block must not hide what the first one said
                tally.fail(f'selftest.{cur}: printed twice')
                key = cur + '#again'
            blocks[key] = {'lines': [], 'rc': None}
            continue
        m = SELFTEST_END.match(line)
        if m and cur == m.group(1):
            blocks[key]['rc'] = int(m.group(2))
            cur = key = None
            continue
        if cur:
            blocks[key]['lines'].append(line)
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

    for name in args.selftest + args.expect_fail:
        b = blocks.get(name)
        if not b:
            missing.append(f'selftest {name}')
            continue
        before = (tally.passed, tally.failed, tally.skipped)
        tally.control = name in args.expect_fail
        parse_tap(b['lines'], 'selftest.' + name, tally)
        control, tally.control = tally.control, False
        if (tally.passed, tally.failed, tally.skipped) == before:
            missing.append(f'selftest {name} (no TAP results)')
        elif b['rc'] is None:
            missing.append(f'selftest {name} (did not finish)')
        elif b['rc'] != 0 and tally.failed == before[1] and not control:
            tally.failed += 1
            tally.failures.append(f'selftest.{name} exited with status {b["rc"]}')

    # Every suite reports exactly its known cases: one that vanished (a
    # case deleted, or a suite cut short by a crash it survived) or one
    # nobody listed fails.
    if args.expected_cases:
        try:
            with open(args.expected_cases) as f:
                known = [l.split('#', 1)[0].strip() for l in f]
        except OSError as e:
            print(f'{args.label}: cannot read expected cases: {e}')
            return 1
        prefixes = tuple([f'kunit.{s}.' for s in args.kunit] +
                         [f'selftest.{s}.' for s in
                          args.selftest + args.expect_fail])
        want = {k for k in known if k and k.startswith(prefixes)}
        seen = set(tally.seen)
        for name in sorted(want - seen):
            missing.append(f'case {name}')
        for name in sorted(n for n in seen - want if n.startswith(prefixes)):
            tally.fail(f'{name}: not in {args.expected_cases} '
                       '(a new case must be listed there)')
        print(f'{args.label}: {len(want & seen)} of {len(want)} known '
              'cases reported')

    for req in args.require:
        if not any(req in l for l in lines):
            missing.append(f'console line "{req}"')
    for name, reason, ok in tally.skips:
        print(f'{args.label}: SKIP {name}: {reason}'
              f'{"" if ok else " (NOT EXPECTED)"}')
    for pat, _ in expected:
        if pat not in tally.used:
            print(f'{args.label}: note: expected skip "{pat}" did not happen')
    for name in tally.xfails:
        print(f'{args.label}: XFAIL {name} (fails on stock, as it must)')
    for f in tally.failures:
        print(f'{args.label}: FAIL {f}')
        for d in tally.details.get(f, []):
            print(f'{args.label}:   | {d}')
    for m in missing:
        print(f'{args.label}: FAIL expected {m} did not run')
    tally.failed += len(missing)
    print(f'{args.label}: {tally.passed} passed, {tally.failed} failed, '
          f'{tally.skipped} skipped')
    if args.totals:
        with open(args.totals, 'a') as f:
            f.write(f'{tally.passed} {tally.failed} {tally.skipped}\n')
    return 1 if tally.failed else 0


if __name__ == '__main__':
    sys.exit(main())
