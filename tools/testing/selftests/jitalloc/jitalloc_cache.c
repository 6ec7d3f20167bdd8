// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc selftests: the huge page cache.
 *
 * BPF programs, kprobes slots and module text share 2 MiB read-only
 * executable pages: chunks, one page-table entry per huge page (read from
 * the page-table dump), read-only linear aliases, refill, /proc/kcore
 * reads, and page-granular read-only text with the cache switched off.
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

/*
 * arm64 refills freed chunks with traps through the text-poking fixmap a
 * page per mapping, not once per 256 bytes: freeing 64 programs of some
 * 2 KiB maps the fixmap about once per page they covered (and once more
 * per run of freed chunks for its unaligned ends).  Counted with a kprobe
 * on __set_fixmap(), which maps and unmaps (two calls per mapping).
 */
#define REFILL_PROGS	64

TEST(refill_maps_fixmap_per_page)
{
	long used_before, used, maps_before, maps, bytes = 0, bound;
	char pool[512];
	int fds[REFILL_PROGS], i;

#ifndef __aarch64__
	SKIP(return, "counts arm64's text-poking fixmap mappings");
#endif
	if (cache_pool("bpf", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves BPF programs here"));
	/* the kprobe's slot page may come from the same pool: take it first */
	ASSERT_EQ(0, jt_probe_add("jt_fixmap", "__set_fixmap"));
	used_before = settled_key_for(pool, "chunks_used", 2);
	for (i = 0; i < REFILL_PROGS; i++) {
		fds[i] = jt_bpf_load(3000 + i, 500);
		ASSERT_LE(0, fds[i]) TH_LOG("prog %d: %s", i, strerror(errno));
		bytes += jt_bpf_jited_len(fds[i]);
	}
	ASSERT_LT(REFILL_PROGS * 1024L, bytes);
	maps_before = jt_probe_hits("jt_fixmap");
	for (i = 0; i < REFILL_PROGS; i++)
		close(fds[i]);
	/* freed chunks stay used until their refill is done */
	used = wait_key(pool, "chunks_used", used_before, 100);
	maps = jt_probe_hits("jt_fixmap");
	jt_probe_del("jt_fixmap");
	EXPECT_EQ(used_before, used) TH_LOG("the refill did not finish");
	ASSERT_LE(0, maps_before);
	bound = 2 * (bytes / getpagesize() + 2 * REFILL_PROGS) + 16;
	printf("# %ld fixmap calls refilling %ld bytes of %d programs (bound %ld)\n",
	       maps - maps_before, bytes, REFILL_PROGS, bound);
	EXPECT_GE(bound, maps - maps_before);
	/* and it did map: the refill pokes through the fixmap */
	EXPECT_LE(2 * (bytes / getpagesize()), maps - maps_before);
}

static long settled_key(const char *path, const char *key)
{
	return settled_key_for(path, key, 2);
}

TEST(bpf_programs_in_chunks)
{
	long before, loaded, jited = 0, now;
	char pool[512];
	int fds[64], i;

	if (cache_pool("bpf", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool for BPF here"));
	/* programs of earlier tests are freed after an RCU grace period */
	before = settled_key(pool, "bytes_in_use_bpf");
	for (i = 0; i < 64; i++) {
		fds[i] = jt_bpf_load(2000 + i, i % 8);
		ASSERT_LE(0, fds[i]) TH_LOG("prog %d: %s", i, strerror(errno));
		jited += jt_bpf_jited_len(fds[i]);
	}
	loaded = jt_read_key(pool, "bytes_in_use_bpf");
	EXPECT_LE(before + jited, loaded);
	/*
	 * 64 small programs: each its JITed code (as BPF reports it), the
	 * binary header, 16 bytes of random trap fill and the rounding to a
	 * 64-byte chunk, not a page or a pack: under 128 bytes more.
	 */
	printf("# %ld bytes in use for %ld bytes of code of 64 programs\n",
	       loaded - before, jited);
	EXPECT_GE(before + jited + 64 * 128, loaded)
		TH_LOG("%ld bytes for %ld bytes of code", loaded - before, jited);
	for (i = 0; i < 64; i++)
		close(fds[i]);
	now = settled_key(pool, "bytes_in_use_bpf");
	EXPECT_EQ(before, now);
}

/*
 * A thousand small BPF programs take no executable PTE of their own: the
 * kernel page tables gain no 4 KiB executable entry (ptdump, where built),
 * the pool took no fallback pages and its huge pages are each one
 * read-only executable entry (its own page-table read), each program takes
 * at least a chunk, and the pool holds no more huge pages than one plus
 * what its bytes in use fill, so chunks are packed rather than spread.
 * After they are closed the pool's BPF bytes are back where they were.
 */
#define MANY_PROGS	1000

TEST(bpf_thousand_programs_in_huge_pages)
{
	struct rlimit nofile = { MANY_PROGS + 64, MANY_PROGS + 64 };
	long start, bytes, pages, pte_before = 0, pte_during = 0, fallback;
	long wrong, checked, jited = 0, pages_before, pmd_before = 0, need;
	struct jt_pt_summary pt;
	static int fds[MANY_PROGS];
	char pool[512];
	int i;

	if (cache_pool("bpf", pool, sizeof(pool)) ||
	    jt_read_key(pool, "huge_pages") <= 0)
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool with huge pages for BPF here"));
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &nofile));
	start = settled_key_for(pool, "bytes_in_use_bpf", 12);
	fallback = settled_key_for(pool, "fallback_pages", 12);
	pages_before = jt_read_key(pool, "huge_pages");
	if (jt_ptdump_path()) {
		ASSERT_EQ(0, jt_pt_scan(&pt));
		pte_before = pt.exec_entries - pt.exec_pmd;
		pmd_before = pt.exec_pmd;
	}

	for (i = 0; i < MANY_PROGS; i++) {
		ASSERT_LE(0, fds[i] = jt_bpf_load(i, i % 16));
		jited += jt_bpf_jited_len(fds[i]);
	}
	/*
	 * Packed, the programs need the huge pages their code fills (as
	 * BPF reports its length, with under 128 bytes each of header, trap
	 * fill and rounding) and one more, not one per program or per few.
	 */
	need = 1 + (jited + MANY_PROGS * 128L + (2L << 20) - 1) / (2L << 20);
	if (jt_ptdump_path()) {
		ASSERT_EQ(0, jt_pt_scan(&pt));
		pte_during = pt.exec_entries - pt.exec_pmd;
		/* counted in the page tables, not by the pool */
		EXPECT_GE(pmd_before + need, pt.exec_pmd)
			TH_LOG("%ld executable 2 MiB entries more for %ld bytes of code",
			       pt.exec_pmd - pmd_before, jited);
	}
	EXPECT_EQ(fallback, jt_read_key(pool, "fallback_pages"));
	wrong = pool_mapping_errors(pool, &checked);
	EXPECT_EQ(0, wrong) TH_LOG("%ld of %ld huge pages mapped wrong", wrong, checked);
	bytes = jt_read_key(pool, "bytes_in_use");
	pages = jt_read_key(pool, "huge_pages");
	printf("# %d programs: %ld bytes of BPF, %ld huge pages, %ld bytes in use; ",
	       MANY_PROGS, jt_read_key(pool, "bytes_in_use_bpf") - start,
	       pages, bytes);
	printf("4 KiB executable translations %ld -> %ld\n", pte_before,
	       pte_during);
	EXPECT_GE(pte_before, pte_during)
		TH_LOG("BPF programs mapped with 4 KiB executable PTEs");
	EXPECT_LE(start + MANY_PROGS * 64, jt_read_key(pool, "bytes_in_use_bpf"));
	EXPECT_GE(pages_before + need, pages)
		TH_LOG("%ld huge pages more for %ld bytes of code",
		       pages - pages_before, jited);

	for (i = 0; i < MANY_PROGS; i++)
		close(fds[i]);
	/* a thousand frees after RCU grace periods: up to 30 s under TCG */
	EXPECT_EQ(start, wait_key(pool, "bytes_in_use_bpf", start, 300));
}

/* check_pool_huge_pages() over every pool; the huge pages they hold. */
static int check_all_pools(struct __test_metadata *_metadata)
{
	const char *dir = JT_DEBUGFS "/jitalloc";
	struct dirent *d;
	int pages = 0;
	DIR *dp;

	dp = opendir(dir);
	ASSERT_NE(NULL, dp) TH_LOG("%s: %s", dir, strerror(errno));
	while ((d = readdir(dp))) {
		char path[512];

		if (!stats_file(d) || !strcmp(d->d_name, BLOCKS_FILE))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		pages += check_pool_huge_pages(_metadata, path);
	}
	closedir(dp);
	return pages;
}

/*
 * A kprobe inside a function (not on its ftrace call site, where x86
 * kprobes ride ftrace and need no slot) takes an instruction slot, from a
 * slot page the cache serves: bytes_in_use_kprobes rises while the probe
 * exists, more when it gets optimized (an optprobe slot), and falls back
 * when it is gone.  6.1's series gives idle slot pages back a second
 * after the last free; 6.12's kprobes keeps the last page of each slot
 * cache, as stock does: a probe may find its slot in a kept page, the
 * bytes fall by no more than they rose, at most a page stays for each of
 * the two caches, and a probe at the same place takes nothing more.  After
 * a warm-up probe, no probe splits a direct-map PMD.  Whatever the counts,
 * every slot page kallsyms lists while the probe exists lies in one of
 * the pool's huge pages.
 */
TEST(kprobe_slots_from_cache)
{
	const char *events = JT_TRACEFS "/kprobe_events";
	long before, probed, after, again, splits, fb_before, fb_probed;
	unsigned long slot_page = 0;
	char pool[512], ev[128], list[8192];
	int off, optimized = 0, n, outside;

	if (cache_pool("kprobes", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves kprobes here"));
	before = settled_key_for(pool, "bytes_in_use_kprobes", 12);
	/* idle slot pages of earlier probes are gone after a second */
	fb_before = settled_key_for(pool, "fallback_pages", 12);
	off = jt_probe_add_slot("jt_slot");
	ASSERT_LE(0, off) TH_LOG("no probeable offset in %s", PROBE_FUNC);
	snprintf(ev, sizeof(ev), "p:jitalloc_test/jt_slot %s+%d\n", PROBE_FUNC,
		 off);
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_slot/enable", "1"));
	open_something();
	usleep(300000);		/* the optimizer runs a few jiffies later */
	probed = jt_read_key(pool, "bytes_in_use_kprobes");
	fb_probed = jt_read_key(pool, "fallback_pages");
	if (jt_read(JT_DEBUGFS "/kprobes/list", list, sizeof(list)) > 0)
		optimized = !!strstr(list, "[OPTIMIZED]");
	if (probed == before && jt_read_key(pool, "huge_pages") == 0 &&
	    fb_probed > fb_before) {
		jt_write(JT_TRACEFS "/events/jitalloc_test/jt_slot/enable", "0");
		jt_append(events, "-:jitalloc_test/jt_slot\n");
		SKIP(return, "no huge page: the slot came from the fallback");
	}
	if (jt_execmem() && before > 0) {
		/* a slot page 6.12's kprobes kept may serve the probe */
		EXPECT_LE(before, probed);
	} else {
		EXPECT_LT(before, probed)
			TH_LOG("%s+%d took no slot bytes", PROBE_FUNC, off);
		if (optimized)
			EXPECT_LE(before + 2 * 64, probed);
	}
	/* kprobe_insn_page and kprobe_optinsn_page, as kallsyms lists them */
	outside = jt_slot_pages_outside(pool, &n, &slot_page);
	EXPECT_LT(0, n) TH_LOG("no kprobe_insn_page in /proc/kallsyms");
	EXPECT_EQ(0, outside)
		TH_LOG("%d slot pages not in a huge page of %s, the first 0x%lx",
		       outside, pool, slot_page);
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_slot/enable", "0"));
	ASSERT_EQ(0, jt_append(events, "-:jitalloc_test/jt_slot\n"));
	/* idle slot pages go a second after the last free */
	after = wait_key(pool, "bytes_in_use_kprobes", before, 40);
	if (jt_execmem()) {
		EXPECT_GE(probed, after);
		EXPECT_GE(before + 2L * getpagesize(), after)
			TH_LOG("kprobes kept %ld bytes", after - before);
	} else {
		EXPECT_EQ(before, after);
	}

	/* warmed up: another probe splits nothing */
	splits = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	ASSERT_EQ(0, jt_append(events, ev));
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_slot/enable", "1"));
	open_something();
	usleep(300000);
	again = jt_read_key(pool, "bytes_in_use_kprobes");
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_slot/enable", "0"));
	ASSERT_EQ(0, jt_append(events, "-:jitalloc_test/jt_slot\n"));
	printf("# kprobes bytes: %ld, probed %ld, after %ld, probed again %ld; %d slot pages\n",
	       before, probed, after, again, n);
	/* the pages 6.12's kprobes kept serve the same probe again */
	if (jt_execmem() && after > before)
		EXPECT_EQ(after, again);
	if (splits >= 0)
		EXPECT_EQ(splits, jt_read_key("/proc/vmstat", "direct_map_level2_splits"));
}

/*
 * Every huge page the jitalloc cache holds must be one read-only,
 * executable PMD entry, also while programs live in it.
 */
#define ALIAS_PARAM	"/sys/module/" TESTMOD_NAME "/parameters/alias_of"

#define MAX_ALIASES	(3 * MAX_HUGE_PAGES * 4)

/*
 * The linear-map aliases of the cache's huge pages are read-only as the
 * page-table dump shows them.  The test module finds each alias with the
 * core mm (vmalloc_to_page()), not with the allocator's own walk, which
 * the pools' alias_writable key comes from: the first, a middle and the
 * last page of every huge page of every pool.
 */
TEST(cache_page_aliases_read_only_in_ptdump)
{
	static unsigned long alias[MAX_ALIASES];
	static char found[MAX_ALIASES];
	unsigned long addrs[MAX_HUGE_PAGES];
	long offs[3] = { 0, 1L << 20, (2L << 20) - getpagesize() };
	const char *dir = JT_DEBUGFS "/jitalloc";
	int n_alias = 0, missing = 0, writable = 0, i, k, j, n;
	char path[512], buf[64], line[512];
	struct jt_pt_entry e;
	struct dirent *d;
	FILE *f;
	DIR *dp;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	if (!jt_ptdump_path())
		SKIP(return, NO_PTDUMP);
	if (pools_sum("huge_pages") <= 0)
		SKIP(return, "%s",
		     no_pool_why("the cache holds no huge page (no PMD vmalloc mappings here)"));
	jt_module_unload(TESTMOD_NAME);
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	dp = opendir(dir);
	ASSERT_NE(NULL, dp);
	while ((d = readdir(dp))) {
		if (!stats_file(d) || !strcmp(d->d_name, BLOCKS_FILE))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		n = huge_page_addrs(path, addrs);
		for (k = 0; k < n; k++) {
			for (j = 0; j < 3 && n_alias < MAX_ALIASES; j++) {
				snprintf(buf, sizeof(buf), "0x%lx", addrs[k] + offs[j]);
				EXPECT_EQ(0, jt_write(ALIAS_PARAM, buf))
					TH_LOG("no page behind 0x%lx", addrs[k] + offs[j]);
				ASSERT_LT(0, jt_read(ALIAS_PARAM, buf, sizeof(buf)));
				alias[n_alias++] = strtoul(buf, NULL, 16);
			}
		}
	}
	closedir(dp);
	EXPECT_EQ(0, jt_module_unload(TESTMOD_NAME));
	ASSERT_LT(0, n_alias) TH_LOG("no huge page listed in %s", dir);

	/* one pass over the dump: every alias mapped, and read-only */
	f = fopen(jt_ptdump_path(), "r");
	ASSERT_NE(NULL, f);
	memset(found, 0, sizeof(found));
	while (fgets(line, sizeof(line), f)) {
		if (!jt_pt_parse(line, &e))
			continue;
		for (i = 0; i < n_alias; i++) {
			if (found[i] || alias[i] < e.start || alias[i] >= e.end)
				continue;
			found[i] = 1;
			if (e.writable) {
				writable++;
				TH_LOG("alias 0x%lx is writable: %s", alias[i], line);
			}
		}
	}
	fclose(f);
	for (i = 0; i < n_alias; i++)
		missing += !found[i];
	printf("# %d linear aliases of cache pages: %d writable, %d not in the dump\n",
	       n_alias, writable, missing);
	EXPECT_EQ(0, writable);
	EXPECT_EQ(0, missing);
}

TEST(cache_huge_pages_pmd_mapped)
{
	int fds[32], i, pages;

	if (access(JT_DEBUGFS "/jitalloc", F_OK))
		SKIP(return, "no %s: kernel without CONFIG_JIT_ALLOC_CACHE",
		     JT_DEBUGFS "/jitalloc");
	for (i = 0; i < 32; i++)
		ASSERT_LE(0, fds[i] = jt_bpf_load(i, i));
	pages = check_all_pools(_metadata);
	for (i = 0; i < 32; i++)
		close(fds[i]);
	if (!pages)
		SKIP(return, "%s",
		     no_pool_why("the cache holds no huge page (no PMD vmalloc mappings here)"));
}

/*
 * /proc/kcore reads vmalloc memory through its direct-map alias (vread()):
 * every byte of every cache huge page reads back, which a cache that took
 * the alias away instead of making it read-only turns into an oops.
 */
TEST(kcore_reads_cache_pages)
{
	static const char * const users[] = { "modules", "kprobes", "ftrace", "bpf" };
	static char buf[2UL << 20];
	unsigned long addrs[MAX_HUGE_PAGES];
	char pool[512], seen[4][512];
	int fd, u, i, n, pools = 0, pages = 0, hidden = 0;
	long got;
	struct elf64_hdr eh;

	fd = open("/proc/kcore", O_RDONLY);
	if (fd < 0)
		SKIP(return, "no /proc/kcore (PROC_KCORE off)");
	ASSERT_EQ(sizeof(eh), pread(fd, &eh, sizeof(eh), 0));
	ASSERT_EQ(0, memcmp(eh.e_ident, ELFMAG, SELFMAG));
	for (u = 0; u < 4; u++) {
		if (cache_pool(users[u], pool, sizeof(pool)))
			continue;
		for (i = 0; i < pools && strcmp(seen[i], pool); i++)
			;
		if (i < pools)
			continue;
		strcpy(seen[pools++], pool);
		n = huge_page_addrs(pool, addrs);
		for (i = 0; i < n; i++, pages++) {
			got = kcore_read(fd, &eh, addrs[i], buf, sizeof(buf));
			if (got == -2) {
				hidden++;
				continue;
			}
			EXPECT_EQ((long)sizeof(buf), got)
				TH_LOG("kcore read of huge page 0x%lx", addrs[i]);
		}
	}
	close(fd);
	if (!pages)
		SKIP(return, "%s", no_pool_why("no cache pool holds a huge page now"));
	/* x86 kcore shows the module area only with CONFIG_MODULES */
	if (hidden == pages)
		SKIP(return, "kcore does not cover the cache's range here");
}

/*
 * After every user ran, each cache huge page is still one read-only,
 * executable entry with a read-only alias, as the kernel reads its page
 * tables: the W+X check of kernels without ptdump (arm64 hugevmap).
 */
TEST(cache_pages_rox_after_users)
{
	int pages;

	if (access(JT_DEBUGFS "/jitalloc", F_OK))
		SKIP(return, "no %s: kernel without CONFIG_JIT_ALLOC_CACHE",
		     JT_DEBUGFS "/jitalloc");
	pages = check_all_pools(_metadata);
	if (!pages)
		SKIP(return, "%s",
		     no_pool_why("the cache holds no huge page (no PMD vmalloc mappings here)"));
}

/* @what at @addr is read-only executable text in a mapping below 2 MiB. */
static void expect_small_rox(struct __test_metadata *_metadata,
			     const char *what, unsigned long addr)
{
	struct jt_pt_entry e;

	ASSERT_NE(0, addr) TH_LOG("%s: no address", what);
	ASSERT_EQ(0, jt_pt_lookup(addr, &e))
		TH_LOG("%s at 0x%lx is not in the page-table dump", what, addr);
	EXPECT_EQ(1, e.exec) TH_LOG("%s at 0x%lx is not executable", what, addr);
	EXPECT_EQ(0, e.writable) TH_LOG("%s at 0x%lx is writable", what, addr);
	EXPECT_GT(2UL << 20, e.level_size)
		TH_LOG("%s at 0x%lx is in a huge mapping", what, addr);
}

/*
 * Booted "jitalloc_cache=off": the pools take no huge page and there are
 * no page blocks, yet text stays read-only and executable from the start,
 * page-granular: a BPF program and a module's text each lie in a
 * read-only executable mapping below 2 MiB, and the pools count such text
 * as their page-granular pages (fallback_pages), not as fallbacks.
 */
TEST(cache_off_text_page_granular_rox)
{
	long fallbacks, pages, with_prog;
	char pool[512];
	int fd;

	if (jt_execmem())
		SKIP(return, "execmem_cache=off gives back stock 6.12 (jitalloc_control checks)");
	if (!cache_switched_off())
		SKIP(return, "the cache is on (boot with jitalloc_cache=off to run this)");
	if (!jt_ptdump_path())
		SKIP(return, NO_PTDUMP);
	EXPECT_EQ(0, pools_sum("huge_pages"));
	EXPECT_NE(0, access(BLOCKS_PATH, F_OK)) TH_LOG("page blocks with the cache off");
	fallbacks = pools_sum("fallbacks");
	ASSERT_EQ(0, pool_file("bpf", pool, sizeof(pool)));
	/* programs of earlier tests are freed after an RCU grace period */
	pages = settled_key(pool, "fallback_pages");

	fd = jt_bpf_load(3, 0);
	ASSERT_LE(0, fd) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	expect_small_rox(_metadata, "BPF program", jt_bpf_prog_addr(fd));
	with_prog = jt_read_key(pool, "fallback_pages");
	EXPECT_LT(pages, with_prog) TH_LOG("a BPF program took no page of the pool's");
	close(fd);

	if (!access("/proc/modules", F_OK)) {
		ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
		expect_small_rox(_metadata, "module .text",
				 mod_section_addr(TESTMOD_NAME, ".text"));
		ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
	}
	EXPECT_EQ(0, pools_sum("huge_pages"));
	EXPECT_EQ(fallbacks, pools_sum("fallbacks"));
}

TEST_HARNESS_MAIN
