// SPDX-License-Identifier: GPL-2.0
/*
 * Page-table bits that the kernel decides at run time reach jit memory.
 *
 * arm64 makes kernel mappings non-global (nG) under KPTI, which may be
 * switched on only once the secondary CPUs are up (kpti=1, CPUs affected
 * by Meltdown, no KASLR seed), and sets the BTI guarded-page bit (GP) on
 * executable kernel memory where every CPU has BTI.  Stock vmalloc and
 * module_alloc() evaluate PAGE_KERNEL when they map, so jit memory must
 * carry the same bits as the kernel's own mappings do at that time: module
 * data and text, the cache's huge pages with BPF programs in them, and
 * kprobes instruction slots.
 *
 * The reference is the kernel's own text as the page-table dump shows it
 * (kpti_install_ng_mappings() rewrites it when KPTI comes on late); the
 * jit mappings are read from the same dump.  Needs root, debugfs and
 * tracefs.  Run it on arm64 booted with "nokaslr kpti=1" on a CPU with
 * BTI to see both bits where they matter.
 */
#include <limits.h>
#include "../kselftest_harness.h"
#include "jitalloc_util.h"

/* The kernel function whose text is the reference, and which is probed. */
#define REF_FUNC	"vfree"

/* The bits the kernel's own text has; skips when they cannot be read. */
struct ref_bits {
	int not_global;
	int guarded;
};

static int ref_bits(struct ref_bits *r, char *why, size_t len)
{
	unsigned long text = jt_kallsyms_addr(NULL, REF_FUNC);
	struct jt_pt_entry e;

#ifndef __aarch64__
	snprintf(why, len, "nG and GP are arm64 page-table bits");
	return -1;
#endif
	if (!jt_ptdump_path()) {
		snprintf(why, len, "no page-table dump in debugfs");
		return -1;
	}
	if (!text) {
		snprintf(why, len, "no address for %s in /proc/kallsyms", REF_FUNC);
		return -1;
	}
	if (jt_pt_lookup(text, &e)) {
		snprintf(why, len, "%s at 0x%lx is not in the page-table dump",
			 REF_FUNC, text);
		return -1;
	}
	r->not_global = e.not_global;
	r->guarded = e.guarded;
	if (!r->not_global && !r->guarded) {
		snprintf(why, len,
			 "kernel text is global and unguarded (no KPTI, no BTI)");
		return -1;
	}
	return 0;
}

/*
 * The mapping of @addr must be non-global if the kernel's are, and, for
 * text, guarded if the kernel's text is.
 */
static void expect_bits(struct __test_metadata *_metadata,
			const struct ref_bits *r, const char *what,
			unsigned long addr, int text)
{
	struct jt_pt_entry e;

	ASSERT_NE(0, addr) TH_LOG("%s: no address", what);
	ASSERT_EQ(0, jt_pt_lookup(addr, &e))
		TH_LOG("%s at 0x%lx is not in the page-table dump", what, addr);
	if (r->not_global)
		EXPECT_EQ(1, e.not_global)
			TH_LOG("%s at 0x%lx is global under KPTI", what, addr);
	if (text) {
		EXPECT_EQ(1, e.exec) TH_LOG("%s at 0x%lx", what, addr);
		if (r->guarded)
			EXPECT_EQ(1, e.guarded)
				TH_LOG("%s at 0x%lx lacks BTI's GP bit", what, addr);
	} else {
		EXPECT_EQ(0, e.exec) TH_LOG("%s at 0x%lx", what, addr);
	}
	TH_LOG("%s at 0x%lx: %s%s", what, addr, e.not_global ? "NG " : "",
	       e.guarded ? "GP" : "");
}

/* Module data and text carry the kernel's bits. */
TEST(module_memory_bits)
{
	struct ref_bits r;
	char why[128];

	if (ref_bits(&r, why, sizeof(why)))
		SKIP(return, "%s", why);
	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");

	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	expect_bits(_metadata, &r, "module .data",
		    mod_section_addr(TESTMOD_NAME, ".data"), 0);
	expect_bits(_metadata, &r, "module .text",
		    mod_section_addr(TESTMOD_NAME, ".text"), 1);
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
}

/*
 * A BPF program, and with it every huge page the cache holds, carries the
 * kernel's bits.
 */
TEST(bpf_and_cache_pages_bits)
{
	unsigned long addrs[MAX_HUGE_PAGES];
	const char *dir = JT_DEBUGFS "/jitalloc";
	struct ref_bits r;
	char why[128];
	struct dirent *d;
	int fd, k, n;
	DIR *dp;

	if (ref_bits(&r, why, sizeof(why)))
		SKIP(return, "%s", why);
	fd = jt_bpf_load(7, 0);
	ASSERT_LE(0, fd) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	expect_bits(_metadata, &r, "BPF program", jt_bpf_prog_addr(fd), 1);

	dp = opendir(dir);
	if (dp) {
		while ((d = readdir(dp))) {
			char path[512], what[600];

			if (!stats_file(d))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
			n = huge_page_addrs(path, addrs);
			for (k = 0; k < n; k++) {
				snprintf(what, sizeof(what), "%s huge page",
					 d->d_name);
				expect_bits(_metadata, &r, what, addrs[k], 1);
			}
		}
		closedir(dp);
	}
	close(fd);
}

/*
 * A kprobe inside a function body takes an instruction slot from the pool
 * that serves kprobes (instructions that kprobes simulates take none: the
 * first offset whose probe takes slot bytes is used, or any once kprobes
 * holds slot bytes: it keeps its last slot page for a while after earlier
 * probes); every page of that pool carries the kernel's bits meanwhile.
 */
TEST(kprobe_slot_bits)
{
	const char *events = JT_TRACEFS "/kprobe_events";
	const char *enable = JT_TRACEFS "/events/jitalloc_prot/jt_slot/enable";
	unsigned long addrs[MAX_HUGE_PAGES];
	char pool[512], ev[128];
	long before;
	struct ref_bits r;
	char why[128];
	int off, k, n;

	if (ref_bits(&r, why, sizeof(why)))
		SKIP(return, "%s", why);
	if (cache_pool("kprobes", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves kprobes here"));
	before = jt_read_key(pool, "bytes_in_use_kprobes");
	ASSERT_LE(0, before);
	for (off = 4; off < 64; off += 4) {
		snprintf(ev, sizeof(ev), "p:jitalloc_prot/jt_slot %s+%d\n",
			 REF_FUNC, off);
		if (jt_append(events, ev))
			continue;
		if (!jt_write(enable, "1") &&
		    jt_read_key(pool, "bytes_in_use_kprobes") > 0)
			break;
		jt_write(enable, "0");
		ASSERT_EQ(0, jt_append(events, "-:jitalloc_prot/jt_slot\n"));
	}
	ASSERT_GT(64, off) TH_LOG("no probe in %s took a slot", REF_FUNC);
	n = huge_page_addrs(pool, addrs);
	EXPECT_LT(0, n) TH_LOG("%s holds no huge page with a slot in it", pool);
	for (k = 0; k < n; k++)
		expect_bits(_metadata, &r, "kprobes pool page", addrs[k], 1);
	ASSERT_EQ(0, jt_write(enable, "0"));
	ASSERT_EQ(0, jt_append(events, "-:jitalloc_prot/jt_slot\n"));
}

TEST_HARNESS_MAIN
