#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make bench's scaling sweep: BPF programs up to 10,000, kprobes up to 500.
exec /jitalloc/jitload --sweep "$@"
