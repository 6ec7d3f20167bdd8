// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc selftests: the series' claims.
 *
 * What the cache is for, measured from the kernel's own page tables and
 * symbols rather than its counters: BPF, kprobes and ftrace add no 4 KiB
 * executable mapping, share executable areas and split no direct-map
 * page; JitText in /proc/meminfo is bounded by the executable vmalloc
 * pages.  jitalloc_control runs the same claims on kernels without the
 * series, where they must fail.
 *
 * Needs root, debugfs at /sys/kernel/debug and tracefs at
 * /sys/kernel/tracing.  The test modules are looked for next to
 * $JITALLOC_TESTMOD (default: ./ko/jitalloc_testmod.ko, where the
 * kselftest build puts them).
 */
#include <dirent.h>
#include <linux/elf.h>
#include <limits.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include "../kselftest_harness.h"
#include "jitalloc_util.h"
#include "jitalloc_common.h"

/* kB of the pools' cache pages (whole) and of their fallback text. */
static long pools_text_kb(void)
{
	DIR *dp = opendir(JT_DEBUGFS "/jitalloc");
	long bytes = 0, total, chunk, fb;
	char path[512];

	if (!dp)
		return -1;
	while (jt_next_pool(dp, path, sizeof(path))) {
		total = jt_read_key(path, "chunks_total");
		chunk = jt_read_key(path, "chunk_size");
		fb = jt_read_key(path, "fallback_pages");
		if (total < 0 || chunk < 0 || fb < 0) {
			bytes = -1024;
			break;
		}
		bytes += total * chunk + fb * getpagesize();
	}
	closedir(dp);
	return bytes / 1024;
}

/*
 * /proc/meminfo's JitText is what the allocator holds as code: every cache
 * page whole and every page of text outside them.  It is at least what the
 * pools hold, it is what debugfs "api" says, the cache's own page count
 * matches its pools' huge pages, and it moves with a workload:
 * on x86 the 2 MiB test module's text (too big for a cache page) adds its
 * pages while loaded and takes them away on unload.
 */
static long claim_exec_areas(long *kb, long *small);

TEST(meminfo_jit_text)
{
	long kb, pages, pools, page_kb = getpagesize() / 1024;
	long before, loaded, after, huge = -1, cache = -1;
	char path[512];
	int i;

	if (pools_sum("huge_pages") < 0)
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool here"));
	kb = jt_read_key("/proc/meminfo", "JitText");
	ASSERT_LE(0, kb) TH_LOG("no JitText line in /proc/meminfo");
	pages = jt_read_key(API_PATH, "text_pages");
	EXPECT_EQ(pages * page_kb, kb);
	/*
	 * The cache's count of its pages, kept where pages are mapped and
	 * unmapped, against the pools' own counts (read until no page came
	 * or went in between)
	 */
	for (i = 0; i < 20; i++) {
		huge = pools_sum("huge_pages");
		cache = jt_read_key(API_PATH, "cache_pages");
		if (huge == pools_sum("huge_pages"))
			break;
	}
	EXPECT_EQ(huge * ((2L << 20) / getpagesize()), cache);
	pools = pools_text_kb();
	printf("# JitText %ld kB, the pools' pages and fallbacks %ld kB\n", kb, pools);
	ASSERT_LE(0, pools);
	EXPECT_LE(pools, kb);
	/*
	 * Not only the allocator's own counts: every page of a vmalloc area
	 * that the page tables map executable is jit text on this kernel.
	 */
	if (jt_ptdump_path()) {
		long exec = -1;

		ASSERT_LE(0, claim_exec_areas(&exec, NULL));
		printf("# executable vmalloc pages: %ld kB\n", exec);
		EXPECT_LE(exec, kb)
			TH_LOG("JitText %ld kB, executable vmalloc %ld kB", kb, exec);
	}

	/* KUnit's cache_test_text_held_pages checks the movement everywhere */
	ko_path(path, sizeof(path), BIGMOD_NAME ".ko");
	if (access("/proc/modules", F_OK) || access(path, R_OK)) {
		printf("# no %s here (x86_64 with modules only): JitText checked at rest\n",
		       BIGMOD_NAME);
		return;
	}
	/*
	 * What is not the pools' (uncached text: x86 ITS thunks, BPF
	 * trampolines) stays put, but for the module's own thunks, while the
	 * module comes and goes; the pools' figures move with JitText, up by
	 * the module's text and back.
	 */
	before = jt_read_key("/proc/meminfo", "JitText") - pools_text_kb();
	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	kb = jt_read_key("/proc/meminfo", "JitText");
	loaded = kb - pools_text_kb();
	ASSERT_EQ(0, jt_module_unload(BIGMOD_NAME));
	after = jt_read_key("/proc/meminfo", "JitText") - pools_text_kb();
	printf("# JitText with %s: %ld kB; not the pools': %ld, %ld, %ld kB\n",
	       BIGMOD_NAME, kb, before, loaded, after);
	EXPECT_LE(pools + 2048, kb);
	/* ITS thunk pages of the module's indirect branches, if any */
	EXPECT_LE(before, loaded);
	EXPECT_GE(before + 64, loaded);
	EXPECT_EQ(before, after);
}

/*
 * The claims of jitalloc_claims.h hold where the cache serves BPF from
 * huge pages; elsewhere there is nothing to claim.
 */
static int claims_apply(char *why, size_t len)
{
	char pool[512];

	if (!cache_pool("bpf", pool, sizeof(pool)) &&
	    jt_read_key(pool, "huge_pages") > 0)
		return 1;
	snprintf(why, len, "%s",
		 no_pool_why("no jitalloc cache pool with huge pages for BPF here"));
	return 0;
}

#include "jitalloc_claims.h"

TEST_HARNESS_MAIN
