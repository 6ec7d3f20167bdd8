#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Where module text lands on this boot: load the test module, print the
# address of its .text and its offset from the kernel's _stext, which on
# arm64 moves with the kernel image unless the module region is drawn
# (harness/kaslr.sh collects both over many boots).
insmod /jitalloc/jitalloc_testmod.ko || exit 1
text=$(cat /sys/module/jitalloc_testmod/sections/.text)
stext=$(grep -m1 ' _stext$' /proc/kallsyms | cut -d' ' -f1)
echo "### kaslr module text $text"
[ -n "$stext" ] &&
	echo "### kaslr module text offset $(printf '%d' $((text - 0x$stext)))"
rmmod jitalloc_testmod
