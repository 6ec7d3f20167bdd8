# SPDX-License-Identifier: GPL-2.0
"""Shared by the bench and test scripts: reading jitload's metrics and the
iTLB model's output."""
import re
import sys

METRIC = re.compile(r'### metric (\S+) (\S+) (-?\d+)')
CLOCKSOURCE = re.compile(r'### clocksource (\S+)')


def read_metrics(path, who):
    """({(phase, key): int}, clocksource) from a console log of jitload.

    A negative value (a counter the kernel lacks) reads as None.  Exits with
    one line naming @who when the log cannot be read or holds no metric.
    """
    vals = {}
    clock = None
    try:
        with open(path, errors='replace') as f:
            for line in f:
                m = METRIC.search(line)
                if m:
                    v = int(m.group(3))
                    vals[(m.group(1), m.group(2))] = None if v < 0 else v
                m = CLOCKSOURCE.search(line)
                if m:
                    clock = m.group(1)
    except OSError as e:
        sys.exit(f'{who}: cannot read {path}: {e.strerror}')
    if not vals:
        sys.exit(f'{who}: no metrics in {path}: did jitload run?')
    return vals, clock


def one_clocksource(clocks, who, boots):
    """The clocksource every boot ran on; exits when they differ or one is
    unknown, since rates across two clocksources are not compared."""
    if len(set(clocks)) != 1 or None in clocks:
        sys.exit(f'{who}: {boots} ran on different (or unknown) '
                 'clocksources; their rates cannot be compared')
    return clocks[0]


def read_model(path, who):
    """{phase: {key: int}} from the "itlb-model ..." lines of bench/itlb_model.c.

    Exits with one line naming @who and the problem when the file is missing.
    """
    out = {}
    try:
        with open(path) as f:
            for line in f:
                if line.startswith('itlb-model '):
                    kv = dict(w.split('=', 1) for w in line.split()[1:])
                    out[int(kv['phase'])] = {k: int(v) for k, v in kv.items()}
    except OSError as e:
        sys.exit(f'{who}: {path}: {e.strerror} (did QEMU load the iTLB model plugin?)')
    return out
