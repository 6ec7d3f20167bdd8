// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc selftests: the statistics.
 *
 * Trace events match the pools' counters; /proc/vmstat's jit_cache_*
 * events match what the pools did.
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

#define EV_INSTANCE	JT_TRACEFS "/instances/jt_events"

#define MAX_MOD_FALLBACKS	16

struct ev_counts {
	long allocs, frees, fallback_allocs, fallbacks, refills;
	long bpf_allocs, kprobes_allocs;
	/* module text served page by page, and how much of it was freed */
	unsigned long mod_fallback[MAX_MOD_FALLBACKS];
	int mod_fallbacks, mod_fallbacks_freed;
};

static unsigned long event_addr(const char *line)
{
	const char *p = strstr(line, "addr=0x");

	return p ? strtoul(p + 5, NULL, 16) : 0;
}

/* Count the jitalloc events in the instance's trace buffer. */
static int count_events(struct ev_counts *c)
{
	char line[512];
	FILE *f = fopen(EV_INSTANCE "/trace", "r");
	int i;

	memset(c, 0, sizeof(*c));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		if (strstr(line, " jit_alloc: ")) {
			if (strstr(line, "backend=chunk"))
				c->allocs++;
			if (strstr(line, " fallback"))
				c->fallback_allocs++;
			if (strstr(line, " fallback") && strstr(line, "user=modules ") &&
			    c->mod_fallbacks < MAX_MOD_FALLBACKS)
				c->mod_fallback[c->mod_fallbacks++] = event_addr(line);
			if (strstr(line, "user=bpf "))
				c->bpf_allocs++;
			if (strstr(line, "user=kprobes "))
				c->kprobes_allocs++;
		} else if (strstr(line, " jit_free: ")) {
			if (strstr(line, "backend=chunk"))
				c->frees++;
			for (i = 0; i < c->mod_fallbacks; i++) {
				if (c->mod_fallback[i] == event_addr(line)) {
					c->mod_fallback[i] = 0;
					c->mod_fallbacks_freed++;
				}
			}
		} else if (strstr(line, " jit_fallback: ")) {
			c->fallbacks++;
		} else if (strstr(line, " jit_cache_refill: ")) {
			c->refills++;
		}
	}
	fclose(f);
	return 0;
}

struct pool_counts {
	long allocs, frees, fallbacks;
};

static void read_pool_counts(struct pool_counts *p)
{
	p->allocs = pools_sum("allocs");
	p->frees = pools_sum("frees");
	p->fallbacks = pools_sum("fallbacks");
}

static int same_counts(const struct pool_counts *a, const struct pool_counts *b)
{
	return a->allocs == b->allocs && a->frees == b->frees &&
	       a->fallbacks == b->fallbacks;
}

/*
 * The workload of trace_events_match_counters: BPF programs, a kprobe
 * inside a function (a slot; not ftrace's call site), and where it is
 * built the 2 MiB test module, whose text no cache page can hold.
 */
static int events_workload(struct __test_metadata *_metadata, int *bigmod)
{
	const char *events = JT_TRACEFS "/kprobe_events";
	char path[512];
	int fds[16], i, off;

	for (i = 0; i < 16; i++) {
		fds[i] = jt_bpf_load(i, i * 16);
		EXPECT_LE(0, fds[i]);
	}
	off = jt_probe_add_slot("jt_ev");
	EXPECT_LE(0, off) TH_LOG("no probeable offset in %s", PROBE_FUNC);
	if (off >= 0) {
		EXPECT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_ev/enable", "1"));
		open_something();
		EXPECT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_ev/enable", "0"));
		EXPECT_EQ(0, jt_append(events, "-:jitalloc_test/jt_ev\n"));
	}
	for (i = 0; i < 16; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	ko_path(path, sizeof(path), BIGMOD_NAME ".ko");
	*bigmod = !access("/proc/modules", F_OK) && !access(path, R_OK);
	if (*bigmod) {
		EXPECT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
		EXPECT_EQ(0, jt_module_unload(BIGMOD_NAME));
	}
	return jt_test_passed(_metadata) ? 0 : -1;
}

/* Wait until the pools' counters and the kprobes' slot bytes stand still. */
static void settle_pools(void)
{
	char pool[512];

	/* deferred BPF frees; the idle kprobe slot page goes after 1 s */
	if (!cache_pool("kprobes", pool, sizeof(pool))) {
		settled_key_for(pool, "bytes_in_use_kprobes", 15);
		settled_key_for(pool, "frees", 5);
	}
}

/*
 * The trace events tell what the counters count: with the jitalloc events
 * on in a trace instance, BPF programs, a kprobe with a slot and (x86) the
 * 2 MiB test module come and go, and the chunk allocations, frees and
 * fallbacks seen are exactly what the pools count.  The counters move
 * before their events are emitted; a window in which they moved while
 * the events were being turned on or off is measured again.
 */
TEST(trace_events_match_counters)
{
	struct pool_counts c0, c1, e0, e1;
	long lost = -1, kprobes_kept = 0;
	char buf[4096], path[256], kpool[512], *p;
	struct ev_counts c;
	int attempt, bigmod = 0, i;

	if (pools_sum("huge_pages") < 0)
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool here"));
	if (access(JT_TRACEFS "/events", F_OK))
		SKIP(return, "no trace events in tracefs");
	ASSERT_EQ(0, access(JT_TRACEFS "/events/jitalloc/jit_alloc", F_OK))
		TH_LOG("no jitalloc trace events in tracefs");

	for (attempt = 0; attempt < 3; attempt++) {
		settle_pools();
		/* 6.12's kprobes keep their last slot pages, as stock does */
		if (jt_execmem() && !cache_pool("kprobes", kpool, sizeof(kpool)))
			kprobes_kept = jt_read_key(kpool, "bytes_in_use_kprobes");
		rmdir(EV_INSTANCE);
		ASSERT_EQ(0, mkdir(EV_INSTANCE, 0755)) TH_LOG("%s", strerror(errno));
		read_pool_counts(&c0);
		ASSERT_EQ(0, jt_write(EV_INSTANCE "/events/jitalloc/enable", "1"));
		read_pool_counts(&c1);
		if (!same_counts(&c0, &c1))
			continue;
		ASSERT_EQ(0, events_workload(_metadata, &bigmod));
		settle_pools();
		read_pool_counts(&e0);
		ASSERT_EQ(0, jt_write(EV_INSTANCE "/events/jitalloc/enable", "0"));
		read_pool_counts(&e1);
		if (same_counts(&e0, &e1))
			break;
	}
	ASSERT_GT(3, attempt) TH_LOG("the pools never stood still while events were switched");

	/* every event must be in the buffer: none overwritten */
	for (i = 0; ; i++) {
		snprintf(path, sizeof(path), EV_INSTANCE "/per_cpu/cpu%d/stats", i);
		if (jt_read(path, buf, sizeof(buf)) <= 0)
			break;
		p = strstr(buf, "overrun:");
		ASSERT_NE(NULL, p);
		lost = (lost < 0 ? 0 : lost) + atol(p + 8);
	}
	EXPECT_EQ(0, lost);
	ASSERT_EQ(0, count_events(&c));
	printf("# events: %ld chunk allocs (bpf %ld, kprobes %ld), %ld chunk frees, ",
	       c.allocs, c.bpf_allocs, c.kprobes_allocs, c.frees);
	printf("%ld fallback allocs (%d of module text, %d freed), ",
	       c.fallback_allocs, c.mod_fallbacks, c.mod_fallbacks_freed);
	printf("%ld fallbacks, %ld refills\n", c.fallbacks, c.refills);
	printf("# counters: allocs +%ld, frees +%ld, fallbacks +%ld\n",
	       e1.allocs - c1.allocs, e1.frees - c1.frees,
	       e1.fallbacks - c1.fallbacks);
	EXPECT_LE(16, c.bpf_allocs);
	if (!kprobes_kept) {
		EXPECT_LE(1, c.kprobes_allocs);
	} else {
		printf("# kprobes kept %ld bytes of slot pages: the probe needs no allocation\n",
		       kprobes_kept);
	}
	EXPECT_EQ(e1.allocs - c1.allocs, c.allocs);
	EXPECT_EQ(e1.frees - c1.frees, c.frees);
	EXPECT_EQ(e1.fallbacks - c1.fallbacks, c.fallback_allocs);
	EXPECT_LE(c.fallback_allocs, c.fallbacks);
	if (bigmod && !cache_switched_off()) {
		/* its text is larger than a cache page, and went with it */
		EXPECT_LE(1, c.mod_fallbacks);
		EXPECT_EQ(c.mod_fallbacks, c.mod_fallbacks_freed)
			TH_LOG("module text served page by page and not traced freed");
	}
	if (c.frees)
		EXPECT_LE(1, c.refills);
	rmdir(EV_INSTANCE);
}

struct jit_vmstat {
	long map, unmap, reclaim, shrink, fallback;
};

struct jit_pool_sums {
	long huge_pages, reclaims, shrinks, fallbacks;
};

static void read_pool_sums(struct jit_pool_sums *p)
{
	p->huge_pages = pools_sum("huge_pages");
	p->reclaims = pools_sum("reclaims");
	p->shrinks = pools_sum("shrinker_reclaims");
	p->fallbacks = pools_sum("fallbacks");
}

/*
 * /proc/vmstat's jit_cache_* lines and the pools' sums, read so that no
 * pool changed meanwhile: the pools count pages mapped and reclaimed under
 * their locks and vmstat with them, so a stable pair of pool reads brackets
 * a consistent vmstat read (fallbacks are counted side by side, unlocked).
 */
static int read_jit_vmstat(struct jit_vmstat *v, struct jit_pool_sums *p)
{
	static const char *const names[] = {
		"jit_cache_page_map", "jit_cache_page_unmap", "jit_cache_reclaim",
		"jit_cache_shrink", "jit_cache_fallback",
	};
	long *vals[] = { &v->map, &v->unmap, &v->reclaim, &v->shrink,
			 &v->fallback };
	struct jit_pool_sums again;
	int attempt, i;

	for (attempt = 0; attempt < 10; attempt++) {
		read_pool_sums(p);
		for (i = 0; i < 5; i++) {
			*vals[i] = jt_read_key("/proc/vmstat", names[i]);
			if (*vals[i] < 0)
				return -1;
		}
		read_pool_sums(&again);
		if (!memcmp(p, &again, sizeof(again)))
			return 0;
		usleep(100000);
	}
	return -2;
}

#define VM_PROGS_MAX	4096

/*
 * /proc/vmstat counts what the pools count: across a workload that makes
 * the BPF pool map two new huge pages, empties them (one goes back after
 * its grace period, the other is kept as the pool's spare until the
 * shrinker takes it, drop_caches=2) and on x86 loads the 2 MiB test module
 * (a fallback: no cache page holds it), jit_cache_page_map minus
 * jit_cache_page_unmap moves as the pools' huge pages do, and
 * jit_cache_reclaim, jit_cache_shrink and jit_cache_fallback as their
 * reclaims, shrinker reclaims and fallbacks; each moves, and the grace
 * reclaim shows in jit_cache_reclaim but not in jit_cache_shrink.
 */
TEST(vmstat_jit_counters)
{
	struct rlimit nofile = { VM_PROGS_MAX + 64, VM_PROGS_MAX + 64 };
	long start, pages0, n, i, dmap, dunmap, dreclaim, dshrink, dfallback;
	struct jit_pool_sums p0, p1;
	static int fds[VM_PROGS_MAX];
	struct jit_vmstat v0, v1;
	char pool[512], path[512];
	int bigmod, tries, keeper;

	if (cache_pool("bpf", pool, sizeof(pool)) ||
	    jt_read_key(pool, "huge_pages") < 0)
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool for BPF here"));
	if (jt_read_key("/proc/vmstat", "pgfault") < 0)
		SKIP(return, "no VM event counters (CONFIG_VM_EVENT_COUNTERS=n)");
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &nofile));
	/*
	 * A program kept loaded throughout keeps a page of the pool in use,
	 * so that the shrinker leaves the pool a page for the tests after
	 * this one (a pool of BPF alone, as on arm64, would otherwise hold
	 * none).
	 */
	keeper = jt_bpf_load(1, 0);
	ASSERT_LE(0, keeper) TH_LOG("%s", strerror(errno));
	settle_pools();
	start = settled_key_for(pool, "bytes_in_use_bpf", 12);
	ASSERT_EQ(0, read_jit_vmstat(&v0, &p0))
		TH_LOG("no jit_cache_* lines in /proc/vmstat, or the pools never stood still");

	/* ~2 KiB programs until the BPF pool has mapped two more huge pages */
	pages0 = jt_read_key(pool, "huge_pages");
	for (n = 0; n < VM_PROGS_MAX; n++) {
		fds[n] = jt_bpf_load(n, 512);
		ASSERT_LE(0, fds[n]) TH_LOG("prog %ld: %s", n, strerror(errno));
		if (jt_read_key(pool, "huge_pages") >= pages0 + 2)
			break;
	}
	ASSERT_GT(VM_PROGS_MAX, n) TH_LOG("%d programs and not two new huge pages",
					  VM_PROGS_MAX);
	for (i = 0; i <= n; i++)
		close(fds[i]);
	/*
	 * two thousand programs freed after an RCU grace period each, by a
	 * work item that invalidates their text under text_mutex: 30 s at
	 * most (arm64 with 16K pages under TCG took more than 4)
	 */
	EXPECT_EQ(start, wait_key(pool, "bytes_in_use_bpf", start, 300));
	/* all but one free page go after the grace period (1 s) */
	for (tries = 0; tries < 50 && pools_sum("reclaims") <= p0.reclaims; tries++)
		usleep(200000);
	/* the pool keeps one free page as its spare; the shrinker takes it */
	for (tries = 0; tries < 10; tries++) {
		ASSERT_EQ(0, jt_write("/proc/sys/vm/drop_caches", "2"));
		if (pools_sum("shrinker_reclaims") > p0.shrinks)
			break;
		sleep(1);
	}

	ko_path(path, sizeof(path), BIGMOD_NAME ".ko");
	bigmod = !access("/proc/modules", F_OK) && !access(path, R_OK);
	if (bigmod) {
		EXPECT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
		EXPECT_EQ(0, jt_module_unload(BIGMOD_NAME));
	}
	settle_pools();
	ASSERT_EQ(0, read_jit_vmstat(&v1, &p1));
	close(keeper);
	/*
	 * Leave the pool a page, as the tests after this one expect of a
	 * pool that served BPF: one program more maps one if the shrinker
	 * took them all (kept as the pool's spare once it is closed).
	 */
	keeper = jt_bpf_load(2, 0);
	if (keeper >= 0)
		close(keeper);

	dmap = v1.map - v0.map;
	dunmap = v1.unmap - v0.unmap;
	dreclaim = v1.reclaim - v0.reclaim;
	dshrink = v1.shrink - v0.shrink;
	dfallback = v1.fallback - v0.fallback;
	printf("# %ld programs; vmstat: page_map +%ld, page_unmap +%ld, ",
	       n + 1, dmap, dunmap);
	printf("reclaim +%ld, shrink +%ld, fallback +%ld\n", dreclaim, dshrink,
	       dfallback);
	printf("# pools: huge_pages %+ld, reclaims +%ld, shrinker_reclaims +%ld, fallbacks +%ld\n",
	       p1.huge_pages - p0.huge_pages, p1.reclaims - p0.reclaims,
	       p1.shrinks - p0.shrinks, p1.fallbacks - p0.fallbacks);
	EXPECT_LE(2, dmap);
	EXPECT_EQ(p1.huge_pages - p0.huge_pages, dmap - dunmap);
	/* no pool was destroyed: every page unmapped was reclaimed */
	EXPECT_EQ(dreclaim, dunmap);
	EXPECT_EQ(p1.reclaims - p0.reclaims, dreclaim);
	EXPECT_EQ(p1.shrinks - p0.shrinks, dshrink);
	EXPECT_LE(1, dshrink) TH_LOG("drop_caches=2 never reached the pools' shrinker");
	/* the grace reclaim is a reclaim, not a shrink */
	EXPECT_LT(dshrink, dreclaim);
	EXPECT_EQ(p1.fallbacks - p0.fallbacks, dfallback);
	if (bigmod)
		EXPECT_LE(1, dfallback);
}

TEST_HARNESS_MAIN
