#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Known-answer cases of the iTLB model (bench/itlb_model.c), judged on the
# host by harness/itlb_check.py.
exec /jitalloc/jitload --itlb-validate "$@"
