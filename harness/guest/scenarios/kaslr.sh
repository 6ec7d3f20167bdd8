#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where module text lands on this boot: load the test module, print the
# address of its .text (harness/kaslr.sh collects it over many boots).
insmod /jitalloc/jitalloc_testmod.ko || exit 1
echo "### kaslr module text $(cat /sys/module/jitalloc_testmod/sections/.text)"
rmmod jitalloc_testmod
