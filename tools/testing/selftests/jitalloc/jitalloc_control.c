// SPDX-License-Identifier: GPL-2.0
/*
 * The negative control of the claims in jitalloc_claims.h: run on stock
 * 6.1 built from the same config as the series, where every claim test
 * must fail, each by its deciding check (CLAIM_REFUTED): a claim that
 * passes there cannot tell the series from stock.
 * On a kernel with jitalloc it skips everything: jitalloc_claims runs the
 * same tests there.  JT_CONTROL_ANY_KERNEL=1 runs them on any kernel, as
 * a workload that both kernels run the same way.
 */
#include <sys/stat.h>
#include "../kselftest_harness.h"
#include "jitalloc_util.h"

static int claims_apply(char *why, size_t len)
{
	const char *any = getenv("JT_CONTROL_ANY_KERNEL");

	if (access(JT_DEBUGFS "/jitalloc", F_OK) || (any && !strcmp(any, "1")))
		return 1;
	snprintf(why, len, "a jitalloc kernel: the control runs on stock 6.1");
	return 0;
}

#include "jitalloc_claims.h"

TEST_HARNESS_MAIN
