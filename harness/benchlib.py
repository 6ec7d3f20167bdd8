# SPDX-License-Identifier: GPL-2.0
"""Shared by the bench and test scripts: reading the iTLB model's output."""
import sys


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
