// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc selftests: the module loader.
 *
 * Modules load, unload and are placed where the kernel says; their text is
 * read-only and executable from allocation, written once through the
 * allocator, and its linear alias read-only; init-only modules, a 2 MiB
 * and a 16 MiB module, livepatch; coresize still counts data.  Runs
 * first: it remembers the refused calls and checks there is no W+X
 * mapping before any workload (jitalloc_churn checks both at the end),
 * and makes the boot's first kprobe, whose slot page can only be a
 * stand-in when the kprobes pool is empty.
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

#define HUGEMOD_NAME	"jitalloc_hugemod"

#define HUGEMOD_TEXT	(16UL << 20)

#define INITONLY_NAME	"jitalloc_initonly"

static unsigned long section_addr(const char *section)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/module/%s/sections/%s",
		 TESTMOD_NAME, section);
	if (jt_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	return strtoul(buf, NULL, 16);
}

/*
 * Remember the refused calls before the users' workloads (KUnit's bad-input
 * cases made some at boot); refused_calls_after_users checks that none of
 * BPF, kprobes, ftrace or the module loader made one since.
 */
TEST(refused_calls_baseline)
{
	char buf[32];
	long n = refused_calls();
	int fd, len;

	ASSERT_LE(0, n) TH_LOG("%s unreadable", jt_api_path());
	len = snprintf(buf, sizeof(buf), "%ld\n", n);
	fd = open(REFUSED_SAVED, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	EXPECT_EQ(len, write(fd, buf, len));
	close(fd);
}

TEST(no_wx_mapping_at_start)
{
	struct jt_pt_summary s;

	if (!jt_ptdump_path())
		SKIP(return, NO_PTDUMP);
	ASSERT_EQ(0, jt_pt_scan(&s)) TH_LOG("no ptdump file in debugfs");
	ASSERT_LT(0, s.exec_entries);
	EXPECT_EQ(0, s.wx_lines) TH_LOG("W+X mapping at 0x%lx", s.wx_first);
}

/*
 * Empty the kprobes pool @pool (freed pages go after their grace period,
 * the spare to the shrinker at drop_caches=2): the huge pages it still
 * holds, or -1 if its file or drop_caches cannot be used.
 */
static long drain_pool(const char *pool)
{
	long pages = -1;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		pages = jt_read_key(pool, "huge_pages");
		if (pages <= 0)
			break;
		if (jt_write("/proc/sys/vm/drop_caches", "2"))
			return -1;
		usleep(200000);
	}
	return pages;
}

/*
 * Make every huge-page allocation of the cache fail (@on), or put the
 * knobs back as they were (probability last on, first off).
 */
static int fail_huge_pages(int on)
{
	static const char * const knobs[][2] = {
		{ "interval", "1" }, { "verbose", "0" }, { "task-filter", "N" },
		{ "times", "-1" }, { "probability", "100" },
	};
	static char saved[ARRAY_SIZE(knobs)][32];
	char path[256];
	unsigned int i, k;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		k = on ? i : ARRAY_SIZE(knobs) - 1 - i;
		snprintf(path, sizeof(path), JT_DEBUGFS "/jitalloc/fail_huge_page/%s",
			 knobs[k][0]);
		if (on && jt_read(path, saved[k], sizeof(saved[k])) <= 0)
			return -1;
		err |= jt_write(path, on ? knobs[k][1] : saved[k]);
	}
	return err;
}

/* Probe @event at PROBE_FUNC+@off, hit once, removed: 0 or -1. */
static int probe_once(const char *event, int off)
{
	char func[64], dir[256];
	int err;

	snprintf(func, sizeof(func), "%s+%d", PROBE_FUNC, off);
	err = jt_probe_add(event, func);
	if (!err)
		open_something();
	jt_probe_del(event);
	snprintf(dir, sizeof(dir), JT_TRACEFS "/events/jitalloc_test/%s", event);
	return err || !access(dir, F_OK) ? -1 : 0;
}

/*
 * While the kprobes pool cannot serve a slot page (here every huge-page
 * allocation of the cache fails), a stand-in slot page is kept when its
 * probe goes, as stock keeps its last slot page: a probe that comes and
 * goes then sets up no page-granular text, and changes no direct map,
 * each time.  The next probe's slot is in the same page and no fallback
 * is counted for it.  Once the pool has room (a BPF program made it map a
 * page), the stand-in goes when its next probe does.  Probe optimization
 * is off meanwhile, so that no optimizer frees slots behind the checks
 * (x86 still takes an optprobe slot for each probe: two stand-ins, both
 * kept).  Runs before
 * kprobe_slot_stand_in_not_kept, which needs a pool that can be emptied.
 */
TEST(kprobe_slot_stand_in_kept_without_room)
{
	const char *optimize = "/proc/sys/debug/kprobes-optimization";
	unsigned long standin = 0, kept = 0, next = 0;
	long fb0, fb1 = -1, fb2 = -2, huge = -1, pages;
	char pool[512], opt[16] = "";
	int off = -1, out = -1, n, fd, tries, err, kept_pages = 0, next_pages = 0;

	if (!jt_execmem())
		SKIP(return, "6.1 gives idle slot pages back from its slot cache's GC");
	if (cache_pool("kprobes", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves kprobes here"));
	if (access(JT_DEBUGFS "/jitalloc/fail_huge_page", F_OK))
		SKIP(return, "no fault injection for the cache's huge pages");
	pages = drain_pool(pool);
	ASSERT_LE(0, pages) TH_LOG("%s: no huge_pages, or drop_caches refused", pool);
	if (pages)
		SKIP(return, "the kprobes pool keeps %ld huge pages in use (%ld bytes)",
		     pages, jt_read_key(pool, "bytes_in_use"));
	ASSERT_EQ(0, jt_slot_pages_outside(pool, &n, &standin))
		TH_LOG("a slot page outside the (empty) pool with no probe");
	standin = 0;
	fb0 = jt_read_key(pool, "fallback_pages");
	if (jt_read(optimize, opt, sizeof(opt)) > 0)
		ASSERT_EQ(0, jt_write(optimize, "0"));

	/* no ASSERT until the knobs are back */
	err = fail_huge_pages(1);
	EXPECT_EQ(0, err);
	if (err)
		goto restore;
	/* the first probe (registered and removed): its slot page a stand-in */
	off = jt_probe_add_slot("jt_keep");
	EXPECT_LE(0, off) TH_LOG("no probeable offset in %s", PROBE_FUNC);
	if (off < 0)
		goto restore;
	EXPECT_EQ(0, jt_append(JT_TRACEFS "/kprobe_events", "-:jitalloc_test/jt_keep\n"));
	/* its dirty slot (x86) would be collected now if the page could go */
	usleep(500000);
	kept_pages = jt_slot_pages_outside(pool, &n, &standin);
	if (kept_pages < 1)
		standin = 0;
	fb1 = jt_read_key(pool, "fallback_pages");
	huge = jt_read_key(pool, "huge_pages");
	EXPECT_EQ(0, probe_once("jt_keep", off));
	usleep(500000);
	next_pages = jt_slot_pages_outside(pool, &n, &next);
	if (next_pages < 1)
		next = 0;
	fb2 = jt_read_key(pool, "fallback_pages");
restore:
	EXPECT_EQ(0, fail_huge_pages(0));
	if (opt[0])
		EXPECT_EQ(0, jt_write(optimize, opt));

	ASSERT_LE(0, off);
	EXPECT_EQ(0, huge) TH_LOG("the pool mapped a page while its allocation failed");
	ASSERT_NE(0, standin)
		TH_LOG("no slot page outside the pool after a probe that had no room");
	printf("# stand-in 0x%lx kept (%d slot pages outside the pool)", standin, kept_pages);
	printf(", fallback_pages %ld, %ld, %ld\n", fb0, fb1, fb2);
	/* x86 prepares an optprobe slot too, whether it optimizes or not */
	EXPECT_EQ(fb0 + kept_pages, fb1)
		TH_LOG("fallback pages other than the %d kept slot pages", kept_pages);
	EXPECT_EQ(standin, next) TH_LOG("the next probe's slot page is 0x%lx", next);
	EXPECT_EQ(kept_pages, next_pages) TH_LOG("the next probe's slot pages changed");
	EXPECT_EQ(fb1, fb2) TH_LOG("the next probe took a new fallback");

	/* room again: the stand-in goes with its next probe */
	fd = jt_bpf_load(1, 0);
	ASSERT_LE(0, fd) TH_LOG("BPF_PROG_LOAD: %s", strerror(errno));
	EXPECT_LE(1, wait_key(pool, "huge_pages", 1, 100))
		TH_LOG("no huge page for a BPF program");
	EXPECT_EQ(0, probe_once("jt_keep", off));
	close(fd);
	for (tries = 0; tries < 100; tries++) {
		out = jt_slot_pages_outside(pool, &n, &kept);
		if (!out)
			break;
		usleep(100000);
	}
	EXPECT_EQ(0, out) TH_LOG("stand-in 0x%lx kept once the pool had room", kept);
	EXPECT_EQ(fb0, wait_key(pool, "fallback_pages", fb0, 100));
}

/*
 * A probe that needs an instruction slot when the kprobes pool holds no
 * huge page gets a page-granular stand-in (slot pages are taken without
 * waiting for the pool to map one), and the pool starts mapping a page.
 * The stand-in must go with its probe: kept (kprobes keeps the last slot
 * page of each slot cache for the next probe) it would serve every later
 * probe from outside the cache.  Once the probe is gone and the pool has
 * its page, a new probe's slot lies in that page, mapped by one 2 MiB
 * entry where the page tables can be read.  The pool is emptied first
 * (freed pages go after their grace period, the spare to the shrinker at
 * drop_caches=2): this runs before any probe of the boot took a chunk,
 * since a chunk taken for a slot page stays for good on 6.12 (this file
 * runs first, and the test before it leaves no slot page behind).
 */
TEST(kprobe_slot_stand_in_not_kept)
{
	const char *events = JT_TRACEFS "/kprobe_events";
	const char *enable = JT_TRACEFS "/events/jitalloc_test/jt_standin/enable";
	unsigned long first = 0, standin_level = 0;
	struct jt_pt_entry e;
	long fb0, fb, pages;
	char pool[512], ev[128];
	int off, out, n, tries;

	if (cache_pool("kprobes", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves kprobes here"));
	pages = drain_pool(pool);
	ASSERT_LE(0, pages) TH_LOG("%s: no huge_pages, or drop_caches refused", pool);
	if (pages)
		SKIP(return, "the kprobes pool keeps %ld huge pages in use (%ld bytes)",
		     pages, jt_read_key(pool, "bytes_in_use"));
	out = jt_slot_pages_outside(pool, &n, &first);
	ASSERT_LE(0, out) TH_LOG("cannot read /proc/kallsyms");
	EXPECT_EQ(0, out)
		TH_LOG("slot page 0x%lx outside the (empty) pool with no probe: a stand-in kept",
		       first);
	fb0 = jt_read_key(pool, "fallback_pages");

	off = jt_probe_add_slot("jt_standin");
	ASSERT_LE(0, off) TH_LOG("no probeable offset in %s", PROBE_FUNC);
	/* no ASSERT until the event is removed again: it would stay */
	EXPECT_EQ(0, jt_write(enable, "1"));
	open_something();
	usleep(300000);		/* x86 optimizes the probe a few jiffies later */
	out = jt_slot_pages_outside(pool, &n, &first);
	fb = jt_read_key(pool, "fallback_pages");
	if (out > 0 && getpagesize() == 4096 && !jt_pt_lookup(first, &e))
		standin_level = e.level_size;
	/*
	 * The page the pool could not give, mapped meanwhile: a stand-in goes
	 * with its last slot once the pool could serve it (6.12), and with
	 * the slot cache's idle GC (6.1).  Removing the probe earlier would
	 * let 6.12 keep it, as it should while the pool has no room.
	 */
	for (tries = 0; tries < 100 && jt_read_key(pool, "huge_pages") < 1; tries++)
		usleep(100000);
	pages = jt_read_key(pool, "huge_pages");
	EXPECT_EQ(0, jt_write(enable, "0"));
	ASSERT_EQ(0, jt_append(events, "-:jitalloc_test/jt_standin\n"));
	/* with no huge page in the pool, the slot page can only be a stand-in */
	ASSERT_LE(1, out) TH_LOG("the probe took no slot page outside the empty pool");
	printf("# first probe: stand-in slot page 0x%lx, fallback_pages %ld -> %ld\n",
	       first, fb0, fb);
	/* the page tables agree: page-granular, not a huge mapping */
	if (standin_level)
		EXPECT_EQ(4096, standin_level)
			TH_LOG("stand-in 0x%lx mapped by %lu-byte entries",
			       first, standin_level);
	EXPECT_LT(fb0, fb) TH_LOG("the pool counted no fallback for the slot page");
	ASSERT_LE(1, pages) TH_LOG("the pool mapped no huge page after a fallback");

	/* the stand-in went with the probe (6.1: a second after it) */
	for (tries = 0; tries < 100; tries++) {
		out = jt_slot_pages_outside(pool, &n, &first);
		if (!out)
			break;
		usleep(100000);
	}
	EXPECT_EQ(0, out) TH_LOG("stand-in slot page 0x%lx kept after its probe went",
				 first);
	/* 6.1 frees it a grace period after kallsyms stops listing it */
	EXPECT_EQ(fb0, wait_key(pool, "fallback_pages", fb0, 100));

	/* the next probe's slot is a chunk of the pool's huge page */
	snprintf(ev, sizeof(ev), "p:jitalloc_test/jt_standin %s+%d\n",
		 PROBE_FUNC, off);
	ASSERT_EQ(0, jt_append(events, ev));
	EXPECT_EQ(0, jt_write(enable, "1"));
	open_something();
	usleep(300000);
	out = jt_slot_pages_outside(pool, &n, &first);
	EXPECT_EQ(0, out) TH_LOG("the next probe's slot page is outside the pool");
	EXPECT_LT(0, n) TH_LOG("the next probe took no slot page");
	printf("# next probe: slot page 0x%lx\n", first);
	if (n > 0 && getpagesize() == 4096 && !jt_pt_lookup(first, &e))
		EXPECT_EQ(2UL << 20, e.level_size)
			TH_LOG("slot page 0x%lx mapped by %lu-byte entries",
			       first, e.level_size);
	EXPECT_EQ(0, jt_write(enable, "0"));
	ASSERT_EQ(0, jt_append(events, "-:jitalloc_test/jt_standin\n"));
}

TEST(module_load_unload)
{
	static const struct {
		const char *name;
		int writable, exec;
	} sections[] = {
		{ ".text", 0, 1 },
		{ ".rodata", 0, 0 },
		{ ".data", 1, 0 },
	};
	char buf[64];
	unsigned int i;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");

	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/selfcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);

	for (i = 0; jt_ptdump_path() && i < ARRAY_SIZE(sections); i++) {
		unsigned long addr = section_addr(sections[i].name);
		struct jt_pt_entry e;

		ASSERT_NE(0, addr) TH_LOG("%s: no address", sections[i].name);
		ASSERT_EQ(0, jt_pt_lookup(addr, &e))
			TH_LOG("%s at 0x%lx is not mapped", sections[i].name, addr);
		EXPECT_EQ(sections[i].writable, e.writable)
			TH_LOG("%s at 0x%lx", sections[i].name, addr);
		EXPECT_EQ(sections[i].exec, e.exec)
			TH_LOG("%s at 0x%lx", sections[i].name, addr);
	}

	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
	EXPECT_NE(0, access("/sys/module/" TESTMOD_NAME, F_OK));
}

/*
 * Why a test of module text in the cache cannot run here, or NULL: the
 * path of the pool that serves module text into @pool.
 */
static const char *module_pool_why(char *pool, size_t size)
{
	if (access("/proc/modules", F_OK))
		return "kernel built without CONFIG_MODULES";
	if (cache_pool("modules", pool, size))
		return no_pool_why("no jitalloc cache pool serves module text here");
	return NULL;
}

/*
 * Where the architecture caches module text, a loaded module's text is a
 * chunk of one of the pool's huge pages, read-only and executable inside
 * a PMD mapping, and unloading gives its bytes back.
 */
TEST(module_text_from_cache)
{
	long before, loaded, after;
	struct jt_pt_entry e = { 0 };
	unsigned long text;
	char pool[512], buf[64];
	const char *why;

	why = module_pool_why(pool, sizeof(pool));
	if (why)
		SKIP(return, "%s", why);

	before = jt_read_key(pool, "bytes_in_use_modules");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/selfcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);
	loaded = jt_read_key(pool, "bytes_in_use_modules");
	text = section_addr(".text");
	ASSERT_NE(0, text);
	if (jt_ptdump_path()) {
		ASSERT_EQ(0, jt_pt_lookup(text, &e));
		EXPECT_EQ(0, e.writable) TH_LOG(".text at 0x%lx", text);
		EXPECT_EQ(1, e.exec) TH_LOG(".text at 0x%lx", text);
	}
	/*
	 * A small module's text is a chunk of a cache huge page: one that
	 * was routed to the page-granular fallback would share nothing.
	 */
	EXPECT_EQ(1, in_huge_page(pool, text))
		TH_LOG(".text at 0x%lx is in no huge page of %s", text, pool);
	if (jt_ptdump_path())
		EXPECT_EQ(2UL << 20, e.level_size) TH_LOG(".text at 0x%lx", text);
	EXPECT_LT(before, loaded);

	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
	after = jt_read_key(pool, "bytes_in_use_modules");
	EXPECT_EQ(before, after);
}

/* Does the kernel patch retpolines into module text (spectre_v2)? */
static int retpolines_on(void)
{
	char buf[256];

	if (jt_read("/sys/devices/system/cpu/vulnerabilities/spectre_v2",
		    buf, sizeof(buf)) <= 0)
		return 0;
	return !!strstr(buf, "Retpolines");
}

/*
 * Module text that is read-only from the start is relocated and patched
 * (paravirt, retpolines, return thunks, alternatives) in a writable copy
 * and written with one jit_update_copy(), which pokes up to 64 KiB in one
 * call: the load of the test module (a few KiB of text) pokes text exactly
 * once, however many sites it has.  Poking site by site took text_mutex
 * per site, under ITS's own hold of it (a deadlock), and is what this
 * guards against.
 */
#ifdef __x86_64__
/* every copy into read-only text, the allocator's or anyone's */
#define POKE_COPY_FUNC	"text_poke_copy"
#else
/* arm64's aarch64_insn_copy() is __kprobes: the allocator's hook into it */
#define POKE_COPY_FUNC	"jit_arch_text_copy"
#endif

TEST(module_text_written_once)
{
	long before, after, writes = 1;
	char pool[512], buf[64];
	const char *why;

	why = module_pool_why(pool, sizeof(pool));
	if (why)
		SKIP(return, "%s", why);

	/* counted by a kprobe, not by the allocator's own text_pokes */
	ASSERT_EQ(0, jt_probe_add("jt_poke_copy", POKE_COPY_FUNC))
		TH_LOG("cannot probe %s", POKE_COPY_FUNC);
	before = jt_probe_hits("jt_poke_copy");
	ASSERT_LE(0, before);
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	after = jt_probe_hits("jt_poke_copy");
	jt_probe_del("jt_poke_copy");
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/selfcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);
	if (retpolines_on()) {
		/* the sites are there: the test means something */
		EXPECT_NE(0, mod_section_addr(TESTMOD_NAME, ".retpoline_sites"));
		EXPECT_NE(0, mod_section_addr(TESTMOD_NAME, ".return_sites"));
	}
	/* its init text is written once too, where it is read-only */
	if (!cache_pool("module_init", pool, sizeof(pool)))
		writes++;
	EXPECT_EQ(before + writes, after)
		TH_LOG("%s calls during the load", POKE_COPY_FUNC);
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
}

#define INIT_EV_INSTANCE	JT_TRACEFS "/instances/jt_init_events"

/*
 * Module init text is read-only and executable from allocation where the
 * architecture caches it (x86): a chunk of a cache huge page, relocated
 * and patched in a copy and written once, mapped "rx" in a 2 MiB leaf
 * while the module's init code runs, and freed after init.  The init code
 * checks its own init text, init read-only data and init data (relocated
 * pointers, an indirect call site, alternatives) wherever they live.
 */
TEST(module_init_text_from_cache)
{
	unsigned long init_text = 0, addr = 0, len = 0;
	char pool[512], core[512], buf[64];
	long before = 0, after;
	int freed = 0, cached, i;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	cached = !cache_pool("module_init", pool, sizeof(pool));
	/* x86 and arm64 cache init text wherever they cache core text */
	if (!cache_pool("modules", core, sizeof(core)))
		ASSERT_TRUE(cached) TH_LOG("module core text is cached, init text is not");
	if (cached) {
		ASSERT_EQ(0, access(JT_TRACEFS "/events/jitalloc/jit_alloc", F_OK));
		before = settled_key_for(pool, bytes_key("module_init"), 5);
		ASSERT_LE(0, before);
		rmdir(INIT_EV_INSTANCE);
		ASSERT_EQ(0, mkdir(INIT_EV_INSTANCE, 0755)) TH_LOG("%s", strerror(errno));
		ASSERT_EQ(0, jt_write(INIT_EV_INSTANCE "/buffer_size_kb", "1024"));
		ASSERT_EQ(0, jt_write(INIT_EV_INSTANCE "/events/jitalloc/jit_alloc/enable", "1"));
		ASSERT_EQ(0, jt_write(INIT_EV_INSTANCE "/events/jitalloc/jit_free/enable", "1"));
	}

	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/selfcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/initcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/init_text",
			     buf, sizeof(buf)));
	printf("# init text while init ran: %s", buf);
	init_text = mod_section_addr(TESTMOD_NAME, ".init.text");
	EXPECT_NE(0, init_text);

	if (cached) {
		/*
		 * init is freed by a work item after an RCU grace period; on
		 * 6.12 init text is counted with core text ("modules"), so
		 * its free is looked for in the trace instead.
		 */
		if (!cache_user_shared("module_init")) {
			after = wait_key(pool, bytes_key("module_init"), before, 50);
			EXPECT_EQ(before, after) TH_LOG("init text not freed after init");
		}
		for (i = 0; i < 50; i++) {
			if (chunk_events_at(INIT_EV_INSTANCE,
					    "module_init", init_text,
					    &addr, &len, &freed) || freed)
				break;
			usleep(100000);
		}
		jt_write(INIT_EV_INSTANCE "/events/jitalloc/enable", "0");
		EXPECT_EQ(0, chunk_events_at(INIT_EV_INSTANCE,
					     "module_init", init_text,
					     &addr, &len, &freed))
			TH_LOG("no chunk allocation of the init text traced");
		printf("# init text at 0x%lx: chunk 0x%lx + %lu, freed after init: %s\n",
		       init_text, addr, len, freed ? "yes" : "no");
		EXPECT_TRUE(init_text >= addr && init_text < addr + len);
		EXPECT_TRUE(freed);
#ifdef __x86_64__
		EXPECT_STREQ("rx 2M rox\n", buf);
#else
		EXPECT_NE(NULL, strstr(buf, "rox"));
#endif
		rmdir(INIT_EV_INSTANCE);
	} else if (cache_switched_off()) {
		/* page-granular, and still read-only from the start */
		EXPECT_NE(NULL, strstr(buf, "rox"));
		EXPECT_EQ(NULL, strstr(buf, "2M"));
	} else {
		/* page-granular init text, protected with set_memory_*() */
		EXPECT_EQ(NULL, strstr(buf, "rox"));
	}
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
}

/*
 * x86 ITS thunk pages are read-only and executable from allocation: chunks
 * of the shared pool, written by text poking.  The kernel's own thunks,
 * added at boot and never freed, are in the pool; a module's come and go
 * with it; and no executable page is left that its user protects with
 * set_memory_*().  ITS thunks replace indirect branches only where those
 * are not retpolines (IBRS or eIBRS parts), which TCG cannot emulate.
 */
TEST(its_thunks_from_cache)
{
	long boot, loaded, after;
	char pool[512], buf[256];

	if (jt_read("/sys/devices/system/cpu/vulnerabilities/indirect_target_selection",
		    buf, sizeof(buf)) <= 0 || !strstr(buf, "Aligned branch/return thunks"))
		SKIP(return, "no ITS thunks here (x86 with the ITS mitigation only)");
	if (access("/proc/modules", F_OK))
		SKIP(return, "without CONFIG_MODULES ITS uses the kernel's static thunks");
	if (cache_switched_off() || pools_sum("huge_pages") < 0)
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool here"));
	ASSERT_EQ(0, cache_pool("its", pool, sizeof(pool)))
		TH_LOG("x86 ITS thunk pages are not served by the cache");
	if (retpolines_on())
		SKIP(return, "retpolines here, no ITS thunks (IBRS/eIBRS only; not in TCG)");

	boot = jt_read_key(pool, bytes_key("its"));
	printf("# ITS thunk bytes in the cache at rest: %ld\n", boot);
	EXPECT_LT(0, boot) TH_LOG("the kernel's own thunks are not in the cache");
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	loaded = jt_read_key(pool, bytes_key("its"));
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/selfcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);
	if (!jt_execmem())
		EXPECT_EQ(0, jt_read_key(API_PATH, "exec_alias_writable_user_protected"));
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
	after = wait_key(pool, bytes_key("its"), boot, 20);
	printf("# with %s loaded: %ld, after unload: %ld\n", TESTMOD_NAME,
	       loaded, after);
	EXPECT_LE(boot, loaded);
	EXPECT_EQ(boot, after);
}

/*
 * Executable page-granular text that its users protect themselves
 * (set_memory_ro() after writing it) has no writable linear alias either,
 * with a module loaded: on every target, whatever the CPU's mitigations.
 */
TEST(exec_aliases_user_protected_read_only)
{
	if (jt_execmem())
		SKIP(return, "execmem does not track text its users protect themselves (6.12)");
	if (access("/proc/modules", F_OK) == 0)
		ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	EXPECT_EQ(0, jt_read_key(API_PATH, "exec_alias_writable_user_protected"));
	if (access("/proc/modules", F_OK) == 0)
		ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
}

/* A module with only __init code has no core text, and loads as on stock. */
TEST(module_without_core_text)
{
	char path[512], buf[16];

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	ko_path(path, sizeof(path), INITONLY_NAME ".ko");
	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	ASSERT_LT(0, jt_read("/sys/module/" INITONLY_NAME "/parameters/ran",
			     buf, sizeof(buf)));
	EXPECT_STREQ("Y\n", buf);
	EXPECT_EQ(0, mod_section_addr(INITONLY_NAME, ".text"));
	/* no exit function: a forced unload */
	EXPECT_EQ(0, syscall(__NR_delete_module, INITONLY_NAME,
			     O_NONBLOCK | O_TRUNC));
}

/*
 * The core size a module's sections need, read from its .ko (not from the
 * kernel): non-init allocated sections, text rounded up to a page as
 * STRICT_MODULE_RWX lays it out, alignment padding not counted.  The
 * loader drops SHF_ALLOC from .modinfo, __versions and the per-cpu
 * section.  *text gets the text part.
 */
static long ko_core_size(const char *path, long *text)
{
	long page = sysconf(_SC_PAGESIZE), rest = 0;
	const struct elf64_shdr *sh, *strsh;
	const struct elf64_hdr *eh;
	struct stat st;
	void *map;
	int fd, i;

	*text = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st)) {
		close(fd);
		return -1;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	eh = map;
	sh = map + eh->e_shoff;
	strsh = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++) {
		const char *name = map + strsh->sh_offset + sh[i].sh_name;

		if (!(sh[i].sh_flags & SHF_ALLOC) ||
		    !strncmp(name, ".init", 5) || !strcmp(name, ".modinfo") ||
		    !strcmp(name, "__versions") ||
		    !strcmp(name, ".data..percpu"))
			continue;
		if (sh[i].sh_flags & SHF_EXECINSTR)
			*text += sh[i].sh_size;
		else
			rest += sh[i].sh_size;
	}
	munmap(map, st.st_size);
	*text = (*text + page - 1) / page * page;
	return *text + rest;
}

/* The size /proc/modules gives @name, or -1. */
static long proc_modules_size(const char *name)
{
	char line[512], mod[64];
	long size = -1, sz;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld", mod, &sz) == 2 &&
		    !strcmp(mod, name))
			size = sz;
	fclose(f);
	return size;
}

/*
 * /sys/module/<name>/coresize means what it always meant, and what lsmod
 * shows: text and data, although data is now allocated apart.  Bounded by
 * the sections of the .ko itself, and equal to /proc/modules' size once
 * init memory is gone.  A module with only __init code has no core text
 * but still a core: its module structure.
 */
TEST(module_coresize_counts_data)
{
	const struct {
		const char *name;
		bool initonly;
	} mods[] = { { TESTMOD_NAME, false }, { INITONLY_NAME, true } };
	char path[512], file[128], buf[32];
	long core, text, coresize;
	unsigned int i;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	for (i = 0; i < ARRAY_SIZE(mods); i++) {
		if (mods[i].initonly)
			ko_path(path, sizeof(path), INITONLY_NAME ".ko");
		else
			snprintf(path, sizeof(path), "%s", jt_testmod_path());
		core = ko_core_size(path, &text);
		ASSERT_LT(0, core) TH_LOG("cannot read the sections of %s", path);
		ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
		snprintf(file, sizeof(file), "/sys/module/%s/coresize",
			 mods[i].name);
		ASSERT_LT(0, jt_read(file, buf, sizeof(buf)));
		coresize = strtol(buf, NULL, 10);
		ksft_print_msg("%s: coresize %ld, its sections need %ld (text %ld)\n",
			       mods[i].name, coresize, core, text);
		EXPECT_LE(core, coresize)
			TH_LOG("%s: coresize %ld leaves out data (its sections need %ld, text %ld)",
			       mods[i].name, coresize, core, text);
		EXPECT_EQ(proc_modules_size(mods[i].name), coresize);
		/* no exit function in the init-only module: a forced unload */
		if (mods[i].initonly) {
			EXPECT_EQ(0, syscall(__NR_delete_module, INITONLY_NAME,
					     O_NONBLOCK | O_TRUNC));
		} else {
			EXPECT_EQ(0, jt_module_unload(TESTMOD_NAME));
		}
	}
}

/*
 * No executable page the allocator handed out page by page has a writable
 * linear alias, as the kernel reads its own page tables (debugfs "api"
 * exec_* keys; the cache's huge pages are checked by the pools' files).
 * On x86 the 2 MiB test module is loaded meanwhile: no cache page holds
 * its text, so its hundreds of fallback pages are walked.
 */
TEST(exec_aliases_read_only)
{
	const char *file = jt_api_path();
	long before = 0, checked, writable, others, protect;
	char path[512], api[1024];
	int bigmod;

	ASSERT_LT(0, jt_read(file, api, sizeof(api)));
	if (jt_key_in(api, "exec_pages_checked") < 0)
		SKIP(return, "no exec_* keys in %s: kernel without the cache", file);
	ko_path(path, sizeof(path), BIGMOD_NAME ".ko");
	bigmod = !access("/proc/modules", F_OK) && !access(path, R_OK);
	if (bigmod) {
		/* left loaded by an earlier failed run? */
		jt_module_unload(BIGMOD_NAME);
		ASSERT_LT(0, jt_read(file, api, sizeof(api)));
		before = jt_key_in(api, "exec_pages_checked");
		ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	}
	ASSERT_LT(0, jt_read(file, api, sizeof(api)));
	if (bigmod)
		EXPECT_EQ(0, jt_module_unload(BIGMOD_NAME));
	checked = jt_key_in(api, "exec_pages_checked");
	writable = jt_key_in(api, "exec_alias_writable");
	others = jt_key_in(api, "exec_alias_writable_user_protected");
	protect = jt_key_in(api, "exec_aliases_protected");
	printf("# %ld executable pages of page-granular text, %ld with a writable alias",
	       checked, writable);
	printf(" (%ld more protected by their users; aliases protected here: %ld)\n",
	       others, protect);
	ASSERT_LE(0, protect);
	ASSERT_LE(0, writable);
	if (!bigmod && !checked)
		SKIP(return, "no executable page-granular text here to check");
	if (bigmod)
		EXPECT_LE(before + (2L << 20) / getpagesize(), checked)
			TH_LOG("the 2 MiB module's text was not walked");
	/*
	 * Not only where the kernel says it protects them: x86 always can,
	 * and the arm64 test kernels map the linear map with pages
	 * (rodata=full).
	 */
#if defined(__x86_64__) || defined(__aarch64__)
	EXPECT_EQ(1, protect);
#endif
	EXPECT_EQ(0, writable);
}

/*
 * A module with more than 2 MiB of text cannot be held by a cache huge
 * page: it is served by the counted fallback, read-only and executable
 * from the start with a read-only direct-map alias (the module checks its
 * own pages), and gives everything back on unload.
 */
/*
 * IPIs that flush TLBs so far, all CPUs, from x86's /proc/interrupts:
 * "TLB" (shootdowns of user mappings) and "CAL" (function calls, which is
 * what flush_tlb_kernel_range() and flush_tlb_all() send), or -1.
 */
static long tlb_shootdowns(void)
{
	char line[1024], *p, *end;
	long sum = -1, v;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "TLB:", 4) && strncmp(p, "CAL:", 4))
			continue;
		if (sum < 0)
			sum = 0;
		for (p += 4; (v = strtol(p, &end, 10)), end != p; p = end)
			sum += v;
	}
	fclose(f);
	return sum;
}

/*
 * Why a test of the big test module @name cannot run here, or NULL: its
 * path into @path, and the pool of module text into @pool.
 */
static const char *big_module_why(const char *name, char *path, size_t size,
				  char *pool, size_t pool_size)
{
	const char *pool_why = module_pool_why(pool, pool_size);
	static char why[128];

	if (pool_why)
		return pool_why;
	snprintf(why, sizeof(why), "%s.ko", name);
	ko_path(path, size, why);
	if (access(path, R_OK)) {
		snprintf(why, sizeof(why), "%s is built for x86_64 and arm64 only",
			 name);
		return why;
	}
	return NULL;
}

/*
 * Bounds for loading the big module.  Its text's direct-map aliases are
 * made read-only in one set_memory_ro() (x86), as stock 6.1 protected its
 * text; page by page, that would be over 500 calls, each with a flush IPI
 * per other CPU.  The calls are counted exactly, with a kprobe; the
 * function-call and TLB IPIs of the load only loosely, since they include
 * every cross-call made meanwhile (the debug kernel makes some 60-90,
 * stock-like kernels 5-10).
 */
#define BIGMOD_MAX_RO_CALLS	16

#define BIGMOD_MAX_SHOOTDOWNS	256

TEST(module_text_over_2mib)
{
	long fb_before, fb_loaded, fb_after, tlb_before, tlb_loaded;
	long jt_before, jt_loaded, jt_after, cp_before, cp_loaded, cp_after;
	long page_kb = getpagesize() / 1024;
	long ro_before, ro_loaded;
	char path[512], pool[512], buf[64];
	struct jt_pt_entry e = { 0 };
	unsigned long text;
	const char *why;

	why = big_module_why(BIGMOD_NAME, path, sizeof(path), pool, sizeof(pool));
	if (why)
		SKIP(return, "%s", why);

	ASSERT_EQ(0, jt_probe_add("jt_set_ro", "set_memory_ro"));
	ro_before = jt_probe_hits("jt_set_ro");
	fb_before = jt_read_key(pool, "fallback_pages");
	/*
	 * /proc/meminfo's JitText (kB) counts text held page by page too;
	 * huge pages the cache takes or gives back meanwhile are taken out
	 * (its cache_pages, in base pages)
	 */
	cp_before = jt_read_key(jt_api_path(), "cache_pages");
	jt_before = jt_read_key("/proc/meminfo", "JitText");
	ASSERT_LE(0, jt_before) TH_LOG("no JitText in /proc/meminfo");
	tlb_before = tlb_shootdowns();
	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	tlb_loaded = tlb_shootdowns();
	ro_loaded = jt_probe_hits("jt_set_ro");
	jt_probe_del("jt_set_ro");
	fb_loaded = jt_read_key(pool, "fallback_pages");
	jt_loaded = jt_read_key("/proc/meminfo", "JitText");
	cp_loaded = jt_read_key(jt_api_path(), "cache_pages");
	/* its read-only aliases are made in one operation, not page by page */
	EXPECT_LE(0, ro_before);
	EXPECT_GE(BIGMOD_MAX_RO_CALLS, ro_loaded - ro_before)
		TH_LOG("%ld set_memory_ro() calls loading %s",
		       ro_loaded - ro_before, BIGMOD_NAME);
	printf("# %ld set_memory_ro() calls loading %s\n",
	       ro_loaded - ro_before, BIGMOD_NAME);
	if (tlb_before >= 0) {
		EXPECT_GE(BIGMOD_MAX_SHOOTDOWNS, tlb_loaded - tlb_before)
			TH_LOG("%ld flush IPIs loading %s", tlb_loaded - tlb_before,
			       BIGMOD_NAME);
		printf("# %ld flush IPIs loading %s\n", tlb_loaded - tlb_before,
		       BIGMOD_NAME);
	}
	ASSERT_LT(0, jt_read("/sys/module/" BIGMOD_NAME "/parameters/selfcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);
	EXPECT_LE(fb_before + (2L << 20) / getpagesize(), fb_loaded);
	text = mod_section_addr(BIGMOD_NAME, ".text.jt_big");
	EXPECT_NE(0, text);
	if (text && jt_ptdump_path()) {
		ASSERT_EQ(0, jt_pt_lookup(text, &e));
		EXPECT_EQ(0, e.writable);
		EXPECT_EQ(1, e.exec);
	}
	ASSERT_EQ(0, jt_module_unload(BIGMOD_NAME));
	fb_after = jt_read_key(pool, "fallback_pages");
	EXPECT_EQ(fb_before, fb_after);
	/*
	 * its text (2 MiB and 64 KiB of traps, a few functions) while
	 * loaded, given back on unload; huge pages of the cache apart
	 */
	jt_after = jt_read_key("/proc/meminfo", "JitText");
	cp_after = jt_read_key(jt_api_path(), "cache_pages");
	ASSERT_LE(0, cp_before) TH_LOG("no cache_pages in %s", jt_api_path());
	jt_loaded -= (cp_loaded - cp_before) * page_kb;
	jt_after -= (cp_after - cp_before) * page_kb;
	EXPECT_LE(jt_before + 2048, jt_loaded)
		TH_LOG("JitText %ld kB, then %ld kB with %s loaded", jt_before,
		       jt_loaded, BIGMOD_NAME);
	EXPECT_GE(jt_before + 2176, jt_loaded)
		TH_LOG("JitText %ld kB, then %ld kB with %s loaded", jt_before,
		       jt_loaded, BIGMOD_NAME);
	EXPECT_GE(jt_loaded - 2048, jt_after)
		TH_LOG("JitText %ld kB loaded, %ld kB after unloading %s",
		       jt_loaded, jt_after, BIGMOD_NAME);
}

/*
 * Where module_alloc() put module text, as the kernel itself says, not the
 * allocator: arm64's 128 MiB module region from module_alloc_base (its
 * address from kallsyms, its value through /proc/kcore); x86_64's module
 * area (MODULES_VADDR, the lower of its two values, to MODULES_END).  0 if
 * it cannot be read.
 */
#ifdef __aarch64__
/* The kernel variable @name, read through /proc/kcore: 1 if it was read. */
static int kcore_read_ulong(const char *name, unsigned long *val)
{
	unsigned long sym = jt_kallsyms_addr(NULL, name);
	struct elf64_hdr eh;
	int fd, ok;

	fd = sym ? open("/proc/kcore", O_RDONLY) : -1;
	if (fd < 0)
		return 0;
	ok = pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
	     kcore_read(fd, &eh, sym, val, sizeof(*val)) == sizeof(*val);
	close(fd);
	return ok;
}
#endif

static int module_region(unsigned long *start, unsigned long *end)
{
#ifdef __aarch64__
	/*
	 * 6.1: module_alloc_base, 128 MiB.  6.12: module_direct_base, the
	 * 128 MiB within direct branch range, or, where the kernel found
	 * none (RANDOMIZE_MODULE_REGION_FULL), module_plt_base, 2 GiB.
	 */
	static const struct {
		const char *base;
		unsigned long size;
	} regions[] = {
		{ "module_alloc_base", 128UL << 20 },
		{ "module_direct_base", 128UL << 20 },
		{ "module_plt_base", 2048UL << 20 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(regions); i++) {
		if (kcore_read_ulong(regions[i].base, start) && *start) {
			*end = *start + regions[i].size;
			return 1;
		}
	}
	return 0;
#elif defined(__x86_64__)
	/* 0xffffffffc0000000 with KASLR's 1 GiB kernel image */
	*start = 0xffffffffa0000000UL;
	*end = 0xffffffffff000000UL;
	return 1;
#else
	return 0;
#endif
}

/*
 * A module with 16 MiB of text loaded beside small ones is placed where
 * module_alloc() placed it.  On arm64 that is the 128 MiB module region
 * (whose base the kernel draws at boot, read here from the kernel, not
 * from the allocator), which the cache's huge pages for module text share:
 * stacked at its top, without guard pages, they leave it in one piece, and
 * the big module does not go to the 2 GiB window behind PLT veneers.  On
 * 6.12 with RANDOMIZE_MODULE_REGION_FULL the region is that window.
 */
TEST(module_16mib_text_in_module_region)
{
	unsigned long start = 0, end = 0, text;
	char path[512], pool[512];
	long fb_before, fb_loaded;
	const char *why;

	why = big_module_why(HUGEMOD_NAME, path, sizeof(path), pool, sizeof(pool));
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(1, module_region(&start, &end))
		TH_LOG("cannot read the module region from the kernel");

	/* small modules first: their text takes the pool's huge pages */
	jt_module_unload(HUGEMOD_NAME);
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ko_path(path, sizeof(path), INITONLY_NAME ".ko");
	if (!access(path, R_OK)) {
		ASSERT_EQ(0, jt_module_load(path, ""));
		EXPECT_EQ(0, syscall(__NR_delete_module, INITONLY_NAME,
				     O_NONBLOCK | O_TRUNC));
	}
	EXPECT_LE(1, jt_read_key(pool, "huge_pages"));

	fb_before = jt_read_key(pool, "fallback_pages");
	ko_path(path, sizeof(path), HUGEMOD_NAME ".ko");
	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	fb_loaded = jt_read_key(pool, "fallback_pages");
	text = mod_section_addr(HUGEMOD_NAME, ".text.jt_big");
	EXPECT_NE(0, text);
	EXPECT_LE(start, text)
		TH_LOG("16 MiB of text at 0x%lx, below the region 0x%lx-0x%lx",
		       text, start, end);
	EXPECT_GE(end, text + HUGEMOD_TEXT)
		TH_LOG("16 MiB of text at 0x%lx, beyond the region 0x%lx-0x%lx",
		       text, start, end);
	printf("# 16 MiB of module text at the module region's start + %lu MiB (region %lu MiB)\n",
	       (text - start) >> 20, (end - start) >> 20);
	EXPECT_LE(fb_before + (long)(HUGEMOD_TEXT / getpagesize()), fb_loaded);
	EXPECT_EQ(0, jt_module_unload(HUGEMOD_NAME));
	EXPECT_EQ(0, jt_module_unload(TESTMOD_NAME));
}

/* page-block and cache allocations served page by page so far */
static long block_and_cache_fallbacks(void)
{
	return jt_read_key(BLOCKS_PATH, "fallbacks") +
	       jt_read_key("/proc/vmstat", "jit_cache_fallback");
}

/*
 * Module data and init sections are page granular and get set_memory_ro();
 * their pages come from page blocks, so once a block's direct-map page has
 * been split (the warm-up cycle may do that) further loads split nothing.
 * On 6.12 x86 module text is cached and module data's blocks keep a
 * read-only direct map: not even the load that makes a new block splits.
 */

TEST(no_direct_map_splits_from_module_cycles)
{
	long first, before, after, allocs = 0, in_use = 0, now;
	long nblocks = 0, falls = 0;
	bool ro_alias = false;
	int i, blocks;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	if (jt_read_key("/proc/vmstat", "direct_map_level2_splits") < 0)
		SKIP(return, "no direct_map_level2_splits in /proc/vmstat on this arch");
	if (cache_switched_off())
		SKIP(return, CACHE_OFF_WHY);
	blocks = !access(BLOCKS_PATH, R_OK);
#ifdef __x86_64__
	/* 6.12 x86 groups module data in blocks wherever text is cached */
	if (jt_execmem()) {
		char pool[512];

		if (!module_pool_why(pool, sizeof(pool))) {
			/* the kernel says when KASAN's module shadow kept them off */
			if (!blocks &&
			    jt_read_key(EXECMEM_PATH, "page_blocks_off_kasan") == 1)
				SKIP(return,
				     "no page blocks under KASAN without KASAN_VMALLOC");
			ASSERT_TRUE(blocks) TH_LOG("no %s with module text cached", BLOCKS_PATH);
			/* their direct map is read-only: not even one split */
			ro_alias = true;
		}
	}
#endif
	if (!blocks && !jt_execmem())
		SKIP(return, "no %s: page blocks not used on this arch", BLOCKS_PATH);

	if (blocks) {
		in_use = jt_read_key(BLOCKS_PATH, "pages_in_use");
		allocs = jt_read_key(BLOCKS_PATH, "allocs");
	}
	if (ro_alias) {
		ASSERT_EQ(1, jt_read_key(BLOCKS_PATH, "read_only_alias"));
		/* the shrinker gives back free blocks: the load takes a new one */
		ASSERT_EQ(0, jt_write("/proc/sys/vm/drop_caches", "2"));
		nblocks = jt_read_key(BLOCKS_PATH, "blocks");
		falls = block_and_cache_fallbacks();
	}
	first = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));

	before = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	/*
	 * A new block (the spare is kept after the unload) was made read-only
	 * as a whole: no split, unless something fell back to page-granular
	 * memory, which proves nothing either way.
	 */
	if (ro_alias && jt_read_key(BLOCKS_PATH, "blocks") > nblocks &&
	    block_and_cache_fallbacks() == falls) {
		EXPECT_EQ(first, before)
			TH_LOG("the first module load split the direct map");
	} else if (ro_alias) {
		TH_LOG("no new page block, or a fallback: first load not judged");
	}
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
		ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
	}
	after = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	EXPECT_EQ(before, after) TH_LOG("direct map PMDs split by module loads");
	if (!blocks)
		return;
	/* data and init of six loads, at least */
	EXPECT_LE(allocs + 12, jt_read_key(BLOCKS_PATH, "allocs"));
	/* init sections are freed by a work item after an RCU grace period */
	now = wait_key(BLOCKS_PATH, "pages_in_use", in_use, 20);
	EXPECT_EQ(in_use, now) TH_LOG("block pages still in use after unload");
}

/* Wait for livepatch @name to finish its transition (or to be gone). */
static int klp_settled(const char *name)
{
	char path[256], buf[16];
	int i;

	snprintf(path, sizeof(path), "/sys/kernel/livepatch/%s/transition", name);
	for (i = 0; i < 600; i++) {
		if (jt_read(path, buf, sizeof(buf)) <= 0 || buf[0] == '0')
			return 0;
		usleep(100000);
	}
	return -1;
}

/*
 * Unload livepatch @name once disabled: its transition is over, but the
 * module reference goes with the patch, freed by a work item after that,
 * so delete_module() may say EAGAIN for a little while (up to 6 s).
 */
static int klp_unload(const char *name)
{
	int i, err = jt_module_unload(name);

	for (i = 0; i < 60 && err == -EAGAIN; i++) {
		usleep(100000);
		err = jt_module_unload(name);
	}
	return err;
}

/* Kernel log records from now on: a /dev/kmsg reader at its end. */
static int kmsg_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Append what @fd has to @buf (NUL-terminated, at most @size bytes). */
static void kmsg_collect(int fd, char *buf, size_t size)
{
	size_t len = strlen(buf);
	ssize_t n;

	while (len + 1 < size) {
		n = read(fd, buf + len, size - len - 1);
		if (n <= 0 && errno != EPIPE)
			break;
		if (n > 0)
			len += n;
		buf[len] = '\0';
	}
}

#define KLP_DIR		"/sys/kernel/livepatch/"

#define KLP_BUSY	"post_patch_callback: livepatch_callbacks_busymod"

#define KLP_COMING	"pre_patch_callback: livepatch_callbacks_mod"

/*
 * Livepatch on module text that is read-only from the start: the sample
 * replaces cmdline_proc_show() (so /proc/cmdline says it has been live
 * patched) until disabled; the callbacks demo patches a loaded module and
 * one loaded after it (klp prepares a coming module), its callbacks run
 * for each, and everything unloads.  The patches' own text comes from the
 * cache like any module's.
 */
TEST(livepatch_samples)
{
	char orig[4096], now[4096], path[512], pool[512];
	static char log[1 << 16];
	unsigned long text;
	int kmsg;

	if (access(KLP_DIR, F_OK))
		SKIP(return, "no livepatch here (the x86_64 debug kernel has it)");
	ko_path(path, sizeof(path), "livepatch-sample.ko");
	if (access(path, R_OK))
		SKIP(return, "livepatch, but no sample modules (SAMPLE_LIVEPATCH) in %s",
		     path);
	ASSERT_LT(0, jt_read("/proc/cmdline", orig, sizeof(orig)));

	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	ASSERT_EQ(0, klp_settled("livepatch_sample"));
	ASSERT_LT(0, jt_read("/proc/cmdline", now, sizeof(now)));
	EXPECT_STREQ("this has been live patched\n", now);
	text = mod_section_addr("livepatch_sample", ".text");
	EXPECT_NE(0, text);
	if (!cache_pool("modules", pool, sizeof(pool)) &&
	    jt_read_key(pool, "huge_pages") > 0)
		EXPECT_TRUE(in_huge_page(pool, text) ||
			    jt_read_key(pool, "fallback_pages") > 0)
			TH_LOG("livepatch text at 0x%lx", text);
	ASSERT_EQ(0, jt_write(KLP_DIR "livepatch_sample/enabled", "0"));
	ASSERT_EQ(0, klp_settled("livepatch_sample"));
	ASSERT_LT(0, jt_read("/proc/cmdline", now, sizeof(now)));
	EXPECT_STREQ(orig, now);
	EXPECT_EQ(0, klp_unload("livepatch_sample"));

	kmsg = kmsg_from_now();
	ASSERT_LE(0, kmsg);
	ko_path(path, sizeof(path), "livepatch-callbacks-busymod.ko");
	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	ko_path(path, sizeof(path), "livepatch-callbacks-demo.ko");
	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	ASSERT_EQ(0, klp_settled("livepatch_callbacks_demo"));
	ko_path(path, sizeof(path), "livepatch-callbacks-mod.ko");
	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	ASSERT_EQ(0, jt_write(KLP_DIR "livepatch_callbacks_demo/enabled", "0"));
	ASSERT_EQ(0, klp_settled("livepatch_callbacks_demo"));
	EXPECT_EQ(0, klp_unload("livepatch_callbacks_demo"));
	EXPECT_EQ(0, jt_module_unload("livepatch_callbacks_mod"));
	EXPECT_EQ(0, jt_module_unload("livepatch_callbacks_busymod"));
	kmsg_collect(kmsg, log, sizeof(log));
	close(kmsg);
	EXPECT_NE(NULL, strstr(log, "pre_patch_callback: vmlinux"));
	EXPECT_NE(NULL, strstr(log, KLP_BUSY " -> [MODULE_STATE_LIVE]"));
	EXPECT_NE(NULL, strstr(log, KLP_COMING " -> [MODULE_STATE_COMING]"));
	EXPECT_NE(NULL, strstr(log, "post_unpatch_callback: livepatch_callbacks_mod"));
	EXPECT_NE(NULL, strstr(log, "post_unpatch_callback: vmlinux"));
}

/*
 * A klp relocation against a module is applied when that module comes,
 * long after the livepatch's text was written read-only: on x86 by text
 * poking.  jitalloc_klp (x86 debug kernel) holds such a relocation, an
 * 8-byte slot relocated against jt_add() of jitalloc_testmod: 0 while the
 * test module is away, jt_add()'s address once it is loaded, in the
 * livepatch's read-only text; the patch replaces jt_patchable() of the
 * test module loaded after it, and disables and unloads cleanly.
 */
TEST(livepatch_klp_relocation)
{
	char path[512], buf[64];
	unsigned long site, jt_add;

	if (access(KLP_DIR, F_OK))
		SKIP(return, "no livepatch here (the x86_64 debug kernel has it)");
	ko_path(path, sizeof(path), "jitalloc_klp.ko");
	ASSERT_EQ(0, access(path, R_OK)) TH_LOG("%s: %s", path, strerror(errno));
	jt_module_unload(TESTMOD_NAME);

	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	ASSERT_EQ(0, klp_settled("jitalloc_klp"));
	ASSERT_LT(0, jt_read("/sys/module/jitalloc_klp/parameters/site", buf, sizeof(buf)));
	EXPECT_STREQ("0\n", buf) TH_LOG("relocated before its module came");
	ASSERT_LT(0, jt_read("/sys/module/jitalloc_klp/parameters/site_text",
			     buf, sizeof(buf)));
	EXPECT_STREQ("rox\n", buf);

	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ASSERT_EQ(0, klp_settled("jitalloc_klp"));
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/selfcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/patchable",
			     buf, sizeof(buf)));
	EXPECT_STREQ("42\n", buf) TH_LOG("jt_patchable() not replaced");
	ASSERT_LT(0, jt_read("/sys/module/jitalloc_klp/parameters/site", buf, sizeof(buf)));
	site = strtoul(buf, NULL, 16);
	jt_add = jt_kallsyms_addr(TESTMOD_NAME, "jt_add");
	printf("# klp relocation: slot 0x%lx, jt_add at 0x%lx\n", site, jt_add);
	EXPECT_NE(0, jt_add);
	EXPECT_EQ(jt_add, site);
	/* 6.1 does not clear klp relocations when their module goes */
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));

	ASSERT_EQ(0, jt_write(KLP_DIR "jitalloc_klp/enabled", "0"));
	ASSERT_EQ(0, klp_settled("jitalloc_klp"));
	EXPECT_EQ(0, klp_unload("jitalloc_klp"));
	/* the test module comes back unpatched */
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/patchable",
			     buf, sizeof(buf)));
	EXPECT_STREQ("1\n", buf);
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
}

TEST_HARNESS_MAIN
