#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Booted "jitalloc_cache=off" (harness/boot.sh): the selftests with the
# cache switched off.  Text stays read-only and executable, page-granular
# (cache_off_text_page_granular_rox checks it); the tests that need the
# cache skip saying it is off (harness/expected-skips/x86_64-cacheoff).
if ! grep -qw 'jitalloc_cache=off' /proc/cmdline; then
	echo "### jitalloc_cache=off is not on the command line"
	exit 1
fi
exec /jitalloc/scenarios/test.sh
