// SPDX-License-Identifier: GPL-2.0
/*
 * Boot-time checks of jitalloc's users: the module loader, kprobes,
 * ftrace and the BPF JIT all work, their memory has the protections it
 * should have, and no kernel mapping is ever writable and executable.
 *
 * Needs root, debugfs at /sys/kernel/debug and tracefs at
 * /sys/kernel/tracing.  The test module is looked for in
 * $JITALLOC_TESTMOD (default: ./ko/jitalloc_testmod.ko, where the
 * kselftest build puts it).
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
#include "jitalloc_btf.h"

/* page blocks of page-granular allocations; every other file is a pool */
#define BLOCKS_FILE	"page_blocks"
#define BLOCKS_PATH	JT_DEBUGFS "/jitalloc/" BLOCKS_FILE
#define API_PATH	JT_DEBUGFS "/jitalloc/api"
#define REFUSED_SAVED	"/jitalloc-refused-at-start"
#define BIGMOD_NAME	"jitalloc_bigmod"
#define HUGEMOD_NAME	"jitalloc_hugemod"
#define HUGEMOD_TEXT	(16UL << 20)
#define INITONLY_NAME	"jitalloc_initonly"

/* Path of module file @ko next to the test module. */
static void ko_path(char *buf, size_t size, const char *ko)
{
	const char *dir = jt_testmod_path();
	const char *slash = strrchr(dir, '/');

	snprintf(buf, size, "%.*s%s", (int)(slash ? slash - dir + 1 : 0), dir,
		 ko);
}

static unsigned long section_addr(const char *section)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/module/%s/sections/%s",
		 TESTMOD_NAME, section);
	if (jt_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	return strtoul(buf, NULL, 16);
}

#define NO_PTDUMP "no page-table dump in debugfs (PTDUMP_DEBUGFS off); DEBUG_WX checked at boot"

/* Refused API calls (double frees, stray writes) so far, all kinds. */
static long refused_calls(void)
{
	long f = jt_read_key(API_PATH, "refused_frees");
	long u = jt_read_key(API_PATH, "refused_updates");
	long t = jt_read_key(API_PATH, "refused_types");

	return f < 0 || u < 0 || t < 0 ? -1 : f + u + t;
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

	ASSERT_LE(0, n) TH_LOG("%s unreadable", API_PATH);
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

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	if (cache_pool("modules", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves module text here"));

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
 * and written with one jit_update_copy(): the load pokes text exactly
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

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	if (cache_pool("modules", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves module text here"));

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

static long settled_key_for(const char *path, const char *key, int polls);
static long wait_key(const char *path, const char *key, long want, int polls);
static long pools_sum(const char *key);

/*
 * The first chunk allocation for cache user @user in the trace of trace
 * instance @instance: the address and length allocated, and whether the
 * same address was freed afterwards.  -1 if there is no such allocation.
 */
static int chunk_events(const char *instance, const char *user,
			unsigned long *addr, unsigned long *len, int *freed)
{
	char line[512], want[64], path[256], tag[64];
	int found = -1;
	char *p;
	FILE *f;

	*freed = 0;
	snprintf(path, sizeof(path), "%s/trace", instance);
	snprintf(tag, sizeof(tag), "user=%s ", user);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strstr(line, tag))
			continue;
		p = strstr(line, "addr=0x");
		if (!p)
			continue;
		if (found < 0 && strstr(line, " jit_alloc: ") &&
		    strstr(line, "backend=chunk")) {
			*addr = strtoul(p + 5, NULL, 16);
			p = strstr(line, " len=");
			*len = p ? strtoul(p + 5, NULL, 10) : 0;
			snprintf(want, sizeof(want), "addr=0x%lx ", *addr);
			found = 0;
		} else if (!found && strstr(line, " jit_free: ") &&
			   strstr(line, want)) {
			*freed = 1;
		}
	}
	fclose(f);
	return found;
}

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
	int freed = 0, cached;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	cached = !cache_pool("module_init", pool, sizeof(pool));
	/* x86 and arm64 cache init text wherever they cache core text */
	if (!cache_pool("modules", core, sizeof(core)))
		ASSERT_TRUE(cached) TH_LOG("module core text is cached, init text is not");
	if (cached) {
		ASSERT_EQ(0, access(JT_TRACEFS "/events/jitalloc/jit_alloc", F_OK));
		before = settled_key_for(pool, "bytes_in_use_module_init", 5);
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
		/* init is freed by a work item after an RCU grace period */
		after = wait_key(pool, "bytes_in_use_module_init", before, 50);
		EXPECT_EQ(before, after) TH_LOG("init text not freed after init");
		jt_write(INIT_EV_INSTANCE "/events/jitalloc/enable", "0");
		EXPECT_EQ(0, chunk_events(INIT_EV_INSTANCE, "module_init", &addr,
					  &len, &freed))
			TH_LOG("no module_init chunk allocation traced");
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

	boot = jt_read_key(pool, "bytes_in_use_its");
	printf("# ITS thunk bytes in the cache at rest: %ld\n", boot);
	EXPECT_LT(0, boot) TH_LOG("the kernel's own thunks are not in the cache");
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	loaded = jt_read_key(pool, "bytes_in_use_its");
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/selfcheck",
			     buf, sizeof(buf)));
	EXPECT_STREQ("ok\n", buf);
	EXPECT_EQ(0, jt_read_key(API_PATH, "exec_alias_writable_user_protected"));
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
	after = wait_key(pool, "bytes_in_use_its", boot, 20);
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
	long before = 0, checked, writable, others, protect;
	char path[512], api[1024];
	int bigmod;

	ASSERT_LT(0, jt_read(API_PATH, api, sizeof(api)));
	if (jt_key_in(api, "exec_pages_checked") < 0)
		SKIP(return, "no exec_* keys in %s: kernel without the cache", API_PATH);
	ko_path(path, sizeof(path), BIGMOD_NAME ".ko");
	bigmod = !access("/proc/modules", F_OK) && !access(path, R_OK);
	if (bigmod) {
		/* left loaded by an earlier failed run? */
		jt_module_unload(BIGMOD_NAME);
		ASSERT_LT(0, jt_read(API_PATH, api, sizeof(api)));
		before = jt_key_in(api, "exec_pages_checked");
		ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	}
	ASSERT_LT(0, jt_read(API_PATH, api, sizeof(api)));
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
	long ro_before, ro_loaded;
	char path[512], pool[512], buf[64];
	struct jt_pt_entry e = { 0 };
	unsigned long text;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	ko_path(path, sizeof(path), BIGMOD_NAME ".ko");
	if (access(path, R_OK))
		SKIP(return, "%s is built for x86_64 and arm64 only", BIGMOD_NAME);
	if (cache_pool("modules", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves module text here"));

	ASSERT_EQ(0, jt_probe_add("jt_set_ro", "set_memory_ro"));
	ro_before = jt_probe_hits("jt_set_ro");
	fb_before = jt_read_key(pool, "fallback_pages");
	tlb_before = tlb_shootdowns();
	ASSERT_EQ(0, jt_module_load(path, "")) TH_LOG("loading %s", path);
	tlb_loaded = tlb_shootdowns();
	ro_loaded = jt_probe_hits("jt_set_ro");
	jt_probe_del("jt_set_ro");
	fb_loaded = jt_read_key(pool, "fallback_pages");
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
}

static long kcore_read(int fd, const struct elf64_hdr *eh,
		       unsigned long addr, void *buf, size_t len);

/*
 * Where module_alloc() put module text, as the kernel itself says, not the
 * allocator: arm64's 128 MiB module region from module_alloc_base (its
 * address from kallsyms, its value through /proc/kcore); x86_64's module
 * area (MODULES_VADDR, the lower of its two values, to MODULES_END).  0 if
 * it cannot be read.
 */
static int module_region(unsigned long *start, unsigned long *end)
{
#ifdef __aarch64__
	unsigned long sym = jt_kallsyms_addr(NULL, "module_alloc_base");
	struct elf64_hdr eh;
	int fd, ok;

	fd = sym ? open("/proc/kcore", O_RDONLY) : -1;
	if (fd < 0)
		return 0;
	ok = pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) &&
	     kcore_read(fd, &eh, sym, start, sizeof(*start)) == sizeof(*start);
	close(fd);
	*end = *start + (128UL << 20);
	return ok && *start;
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
 * the big module does not go to the 2 GiB window behind PLT veneers.
 */
TEST(module_16mib_text_in_module_region)
{
	unsigned long start = 0, end = 0, text;
	char path[512], pool[512];
	long fb_before, fb_loaded;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	ko_path(path, sizeof(path), HUGEMOD_NAME ".ko");
	if (access(path, R_OK))
		SKIP(return, "%s is built for x86_64 and arm64 only", HUGEMOD_NAME);
	if (cache_pool("modules", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves module text here"));
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

TEST(kprobe_event)
{
	const char *events = JT_TRACEFS "/kprobe_events";
	char buf[4096], *line;
	long hits = -1;
	int i, n;

	ASSERT_EQ(0, jt_append(events, "p:jitalloc_test/jt_open " PROBE_FUNC "\n"));
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_open/enable", "1"));
	for (i = 0; i < 10; i++)
		open_something();
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_open/enable", "0"));

	ASSERT_LT(0, jt_read(JT_TRACEFS "/kprobe_profile", buf, sizeof(buf)));
	line = strstr(buf, "jt_open");
	ASSERT_NE(NULL, line);
	n = sscanf(line, "jt_open %ld", &hits);
	ASSERT_EQ(1, n);
	EXPECT_LE(10, hits);

	EXPECT_EQ(0, jt_append(events, "-:jitalloc_test/jt_open\n"));
}

TEST(ftrace_instance_filter)
{
	const char *inst = JT_TRACEFS "/instances/jitalloc";
	char path[256];
	static char buf[1 << 16];
	int i;

	rmdir(inst);
	ASSERT_EQ(0, mkdir(inst, 0755));
	snprintf(path, sizeof(path), "%s/set_ftrace_filter", inst);
	ASSERT_EQ(0, jt_write(path, PROBE_FUNC));
	snprintf(path, sizeof(path), "%s/current_tracer", inst);
	ASSERT_EQ(0, jt_write(path, "function"));
	for (i = 0; i < 10; i++)
		open_something();

	/* read before switching tracers: that clears the buffer */
	snprintf(path, sizeof(path), "%s/trace", inst);
	ASSERT_LT(0, jt_read(path, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, PROBE_FUNC));
	snprintf(path, sizeof(path), "%s/current_tracer", inst);
	EXPECT_EQ(0, jt_write(path, "nop"));
	EXPECT_EQ(0, rmdir(inst));
}

/* Programs with a subprogram each: JITed (two passes, then one copy) and run. */
TEST(bpf_subprog_programs_run)
{
	int fds[16], i;

	for (i = 0; i < 16; i++) {
		fds[i] = jt_bpf_load_subprog(2000 + i);
		ASSERT_LE(0, fds[i]) TH_LOG("prog %d: %s", i, strerror(errno));
	}
	for (i = 0; i < 16; i++) {
		EXPECT_LT(0, jt_bpf_jited_len(fds[i])) TH_LOG("prog %d not JITed", i);
		EXPECT_EQ(2000 + i, jt_bpf_run(fds[i]));
	}
	for (i = 0; i < 16; i++)
		close(fds[i]);
}

TEST(bpf_programs_jit_and_run)
{
	int fds[64], i;

	for (i = 0; i < 64; i++) {
		fds[i] = jt_bpf_load(1000 + i, i * 4);
		ASSERT_LE(0, fds[i]) TH_LOG("prog %d: %s", i, strerror(errno));
	}
	for (i = 0; i < 64; i++) {
		EXPECT_LT(0, jt_bpf_jited_len(fds[i])) TH_LOG("prog %d not JITed", i);
		EXPECT_EQ(1000 + i, jt_bpf_run(fds[i]));
	}
	for (i = 0; i < 64; i++)
		close(fds[i]);
}

/*
 * BPF programs take chunks of the cache as they need them: not a page each,
 * and not a 2 MiB pack.  Their bytes are given back when they go.
 */
/* @key of @path once it has kept its value for @polls * 100 ms (< 8 s). */
static long settled_key_for(const char *path, const char *key, int polls)
{
	long last = jt_read_key(path, key), now;
	int i, same = 0;

	for (i = 0; i < 80 && same < polls; i++) {
		usleep(100000);
		now = jt_read_key(path, key);
		same = now == last ? same + 1 : 0;
		last = now;
	}
	return last;
}

static long settled_key(const char *path, const char *key)
{
	return settled_key_for(path, key, 2);
}

/* Wait up to @polls * 100 ms for @key of @path to be @want; its last value. */
static long wait_key(const char *path, const char *key, long want, int polls)
{
	long now = jt_read_key(path, key);
	int i;

	for (i = 0; i < polls && now != want; i++) {
		usleep(100000);
		now = jt_read_key(path, key);
	}
	return now;
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

static long pool_mapping_errors(const char *path, long *pages);

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
	EXPECT_EQ(start, wait_key(pool, "bytes_in_use_bpf", start, 40));
}

/*
 * The kernel's own read of the page tables over the huge pages of pool
 * file @path (its mapped_* and alias_* keys, from one read of the file):
 * how many huge pages are mapped wrong, i.e. not by one entry, writable,
 * not executable, or with a writable linear alias.  *@pages gets the
 * number walked; -1 if the file lacks the keys.
 */
static long pool_mapping_errors(const char *path, long *pages)
{
	static char buf[1 << 14];
	long one, w, nx, alias;

	*pages = -1;
	if (jt_read(path, buf, sizeof(buf)) <= 0)
		return -1;
	*pages = jt_key_in(buf, "mapped_checked");
	one = jt_key_in(buf, "mapped_one_entry");
	w = jt_key_in(buf, "mapped_writable");
	nx = jt_key_in(buf, "mapped_not_exec");
	alias = jt_key_in(buf, "alias_writable");
	if (*pages < 0 || one < 0 || w < 0 || nx < 0 || alias < 0)
		return -1;
	return (*pages - one) + w + nx + alias;
}

/*
 * Every huge page of pool file @path must be one read-only, executable
 * 2 MiB entry with a read-only linear alias: as the kernel reads its page
 * tables (every arch), and as ptdump shows it where it is built.  Returns
 * how many the pool holds.
 */
static int check_pool_huge_pages(struct __test_metadata *_metadata,
				 const char *path)
{
	static char buf[1 << 14];
	unsigned long addrs[MAX_HUGE_PAGES];
	int n, k;

	ASSERT_LT(0, jt_read(path, buf, sizeof(buf)));
	EXPECT_LE(0, jt_key_in(buf, "mapped_checked"))
		TH_LOG("%s: no page-table check", path);
	EXPECT_EQ(jt_key_in(buf, "mapped_checked"),
		  jt_key_in(buf, "mapped_one_entry"))
		TH_LOG("%s: huge pages not mapped by one entry", path);
	EXPECT_EQ(0, jt_key_in(buf, "mapped_writable"))
		TH_LOG("%s: writable huge pages", path);
	EXPECT_EQ(0, jt_key_in(buf, "mapped_not_exec"))
		TH_LOG("%s: huge pages not executable", path);
	EXPECT_EQ(0, jt_key_in(buf, "alias_writable"))
		TH_LOG("%s: huge pages with a writable linear alias", path);
	/* no page given up for a protection that could not be applied */
	EXPECT_EQ(0, jt_key_in(buf, "alias_errors"))
		TH_LOG("%s: linear aliases that could not be protected", path);
	EXPECT_EQ(0, jt_key_in(buf, "leaked_pages"))
		TH_LOG("%s: pages kept out of use", path);
#ifdef __x86_64__
	EXPECT_EQ(1, jt_key_in(buf, "aliases_protected"));
#endif
	n = huge_page_addrs(path, addrs);
	ASSERT_LE(0, n) TH_LOG("%s: no readable huge_page_addrs", path);
	if (!jt_ptdump_path())
		return n;
	for (k = 0; k < n; k++) {
		unsigned long addr = addrs[k];
		struct jt_pt_entry e;

		ASSERT_EQ(0, jt_pt_lookup(addr, &e)) TH_LOG("0x%lx unmapped", addr);
		EXPECT_EQ(2UL << 20, e.level_size) TH_LOG("0x%lx", addr);
		EXPECT_EQ(0, e.writable) TH_LOG("0x%lx", addr);
		EXPECT_EQ(1, e.exec) TH_LOG("0x%lx", addr);
	}
	return n;
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
 * when it is gone.  After a warm-up probe, no probe splits a direct-map PMD.
 */
TEST(kprobe_slots_from_cache)
{
	const char *events = JT_TRACEFS "/kprobe_events";
	long before, probed, after, splits = -1, fb_before, fb_probed;
	char pool[512], ev[128], list[8192];
	int off, optimized = 0;

	if (cache_pool("kprobes", pool, sizeof(pool)))
		SKIP(return, "%s",
		     no_pool_why("no jitalloc cache pool serves kprobes here"));
	before = settled_key_for(pool, "bytes_in_use_kprobes", 12);
	/* idle slot pages of earlier probes are gone after a second */
	fb_before = settled_key_for(pool, "fallback_pages", 12);
	/* the first offset the kprobe checks accept that ftrace does not own */
	for (off = 1; off < 64; off++) {
		snprintf(ev, sizeof(ev), "p:jitalloc_test/jt_slot %s+%d\n",
			 PROBE_FUNC, off);
		if (jt_append(events, ev))
			continue;
		if (jt_read(JT_DEBUGFS "/kprobes/list", list, sizeof(list)) > 0 &&
		    !strstr(list, "[FTRACE]"))
			break;
		ASSERT_EQ(0, jt_append(events, "-:jitalloc_test/jt_slot\n"));
	}
	ASSERT_GT(64, off) TH_LOG("no probeable offset in %s", PROBE_FUNC);
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
	EXPECT_LT(before, probed) TH_LOG("%s+%d took no slot bytes", PROBE_FUNC, off);
	if (optimized)
		EXPECT_LE(before + 2 * 64, probed);
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_slot/enable", "0"));
	ASSERT_EQ(0, jt_append(events, "-:jitalloc_test/jt_slot\n"));
	/* idle slot pages go a second after the last free */
	after = wait_key(pool, "bytes_in_use_kprobes", before, 40);
	EXPECT_EQ(before, after);

	/* warmed up: another probe splits nothing */
	splits = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	if (splits < 0)
		return;
	ASSERT_EQ(0, jt_append(events, ev));
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_slot/enable", "1"));
	open_something();
	usleep(300000);
	ASSERT_EQ(0, jt_write(JT_TRACEFS "/events/jitalloc_test/jt_slot/enable", "0"));
	ASSERT_EQ(0, jt_append(events, "-:jitalloc_test/jt_slot\n"));
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

/* Sum of @key over every cache pool's statistics file, or -1 if none. */
static long pools_sum(const char *key)
{
	const char *dir = JT_DEBUGFS "/jitalloc";
	long sum = -1, v;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		char path[512];

		if (!stats_file(d) || !strcmp(d->d_name, BLOCKS_FILE))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		v = jt_read_key(path, key);
		if (v >= 0)
			sum = (sum < 0 ? 0 : sum) + v;
	}
	closedir(dp);
	return sum;
}

/* kB of the pools' cache pages (whole) and of their fallback text. */
static long pools_text_kb(void)
{
	const char *dir = JT_DEBUGFS "/jitalloc";
	long bytes = 0, total, chunk, fb;
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		char path[512];

		if (!stats_file(d) || !strcmp(d->d_name, BLOCKS_FILE))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
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

#define EV_INSTANCE	JT_TRACEFS "/instances/jt_events"

struct ev_counts {
	long allocs, frees, fallback_allocs, fallbacks, refills;
	long bpf_allocs, kprobes_allocs;
};

/* Count the jitalloc events in the instance's trace buffer. */
static int count_events(struct ev_counts *c)
{
	char line[512];
	FILE *f = fopen(EV_INSTANCE "/trace", "r");

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
			if (strstr(line, "user=bpf "))
				c->bpf_allocs++;
			if (strstr(line, "user=kprobes "))
				c->kprobes_allocs++;
		} else if (strstr(line, " jit_free: ")) {
			if (strstr(line, "backend=chunk"))
				c->frees++;
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
	char ev[128], list[8192], path[512];
	int fds[16], i, off;

	for (i = 0; i < 16; i++) {
		fds[i] = jt_bpf_load(i, i * 16);
		EXPECT_LE(0, fds[i]);
	}
	for (off = 1; off < 64; off++) {
		snprintf(ev, sizeof(ev), "p:jitalloc_test/jt_ev %s+%d\n",
			 PROBE_FUNC, off);
		if (jt_append(events, ev))
			continue;
		if (jt_read(JT_DEBUGFS "/kprobes/list", list, sizeof(list)) > 0 &&
		    !strstr(list, "[FTRACE]"))
			break;
		EXPECT_EQ(0, jt_append(events, "-:jitalloc_test/jt_ev\n"));
	}
	EXPECT_GT(64, off) TH_LOG("no probeable offset in %s", PROBE_FUNC);
	if (off < 64) {
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
	return _metadata->passed ? 0 : -1;
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
	long lost = -1;
	char buf[4096], path[256], *p;
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
	printf("%ld fallback allocs, %ld fallbacks, %ld refills\n",
	       c.fallback_allocs, c.fallbacks, c.refills);
	printf("# counters: allocs +%ld, frees +%ld, fallbacks +%ld\n",
	       e1.allocs - c1.allocs, e1.frees - c1.frees,
	       e1.fallbacks - c1.fallbacks);
	EXPECT_LE(16, c.bpf_allocs);
	EXPECT_LE(1, c.kprobes_allocs);
	EXPECT_EQ(e1.allocs - c1.allocs, c.allocs);
	EXPECT_EQ(e1.frees - c1.frees, c.frees);
	EXPECT_EQ(e1.fallbacks - c1.fallbacks, c.fallback_allocs);
	EXPECT_LE(c.fallback_allocs, c.fallbacks);
	if (bigmod && !cache_switched_off()) {
		/* its text is larger than a cache page */
		EXPECT_LE(1, c.fallback_allocs);
	}
	if (c.frees)
		EXPECT_LE(1, c.refills);
	rmdir(EV_INSTANCE);
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
	EXPECT_EQ(start, wait_key(pool, "bytes_in_use_bpf", start, 40));
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

/*
 * Module data and init sections are page granular and get set_memory_ro();
 * their pages come from page blocks, so once a block's direct-map page has
 * been split (the warm-up cycle may do that) further loads split nothing.
 */
TEST(no_direct_map_splits_from_module_cycles)
{
	long before, after, allocs, in_use, now;
	int i;

	if (access("/proc/modules", F_OK))
		SKIP(return, "kernel built without CONFIG_MODULES");
	if (jt_read_key("/proc/vmstat", "direct_map_level2_splits") < 0)
		SKIP(return, "no direct_map_level2_splits in /proc/vmstat on this arch");
	if (cache_switched_off())
		SKIP(return, CACHE_OFF_WHY);
	if (access(BLOCKS_PATH, R_OK))
		SKIP(return, "no %s: page blocks not used on this arch", BLOCKS_PATH);

	in_use = jt_read_key(BLOCKS_PATH, "pages_in_use");
	allocs = jt_read_key(BLOCKS_PATH, "allocs");
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));

	before = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
		ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
	}
	after = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	EXPECT_EQ(before, after) TH_LOG("direct map PMDs split by module loads");
	/* data and init of six loads, at least */
	EXPECT_LE(allocs + 12, jt_read_key(BLOCKS_PATH, "allocs"));
	/* init sections are freed by a work item after an RCU grace period */
	now = wait_key(BLOCKS_PATH, "pages_in_use", in_use, 20);
	EXPECT_EQ(in_use, now) TH_LOG("block pages still in use after unload");
}

#define CHURN_SECONDS	3
/*
 * The churn's kselftest timeout: well below make test's boot timeout
 * (600 s), so that a hung churn is reported by the harness as a timeout
 * with the detectors' output, not a silent boot.  make soak, which churns
 * for SOAK_SECONDS, builds the test with a larger one.
 */
#ifndef CHURN_TIMEOUT
#define CHURN_TIMEOUT	180
#endif
#define CHURN_MIN_CYCLES 3
#define CHURN_MAX_SECONDS 60
#define CHURN_FILES	8
#define CHURN_WORKERS	4
#define CHURN_STRESS	(CHURN_WORKERS + 1)

/*
 * What each churn worker did, in memory shared with the parent: cycles,
 * failed steps (counted instead of fatal while faults are injected),
 * cycles without a failed step, and
 * when its first and its last cycle ended (CLOCK_MONOTONIC, ns).  The W+X
 * sampler counts its scans and the W+X lines (or wrongly mapped cache
 * pages) it saw.
 */
struct churn_stat {
	long cycles, errors, clean, errors_before;
	long long first_ns, last_ns;
	long wx_samples, wx_lines;
	unsigned long wx_first;
};

static struct churn_stat *churn_me, *churn_all;
/*
 * Seconds to churn at least; failed steps are counted rather than fatal
 * (faults injected, or a soak's memory pressure: ENOMEM is an answer).
 */
static int churn_seconds = CHURN_SECONDS, churn_faults, churn_tolerant;
/* set by the parent: under fault injection a worker's access() may fail */
static int churn_modules_built;

/*
 * Go on churning?  For churn_seconds, then until every worker (module
 * churn only with modules) did CHURN_MIN_CYCLES, which a slow kernel
 * (KASAN, lockdep under TCG) needs, but never CHURN_MAX_SECONDS longer.
 */
static int churn_once;

static int churn_continue(time_t end)
{
	time_t now = time(NULL);
	int i;

	/* churn_verify(): one round each */
	if (churn_once)
		return !churn_me->cycles;
	if (now < end)
		return 1;
	if (now >= end - CHURN_SECONDS + CHURN_MAX_SECONDS)
		return 0;
	for (i = 0; i < CHURN_WORKERS; i++) {
		if (i == 1 && !churn_modules_built)
			continue;
		if (churn_all[i].cycles < CHURN_MIN_CYCLES)
			return 1;
	}
	return 0;
}

/* with BPF_JIT_ALWAYS_ON, a JIT that got no memory fails the load so */
#define JT_ENOTSUPP	524

/*
 * A step failed with @err (a negative errno): fatal, unless faults or
 * memory pressure are expected and it is an allocation failure - ENOMEM;
 * EFAULT from a user copy whose page could not be allocated; ENOTSUPP
 * from a BPF load whose JIT got no memory.  A wrong result is never an
 * allocation failure: its callers fail at once.
 */
static int churn_fatal(int err)
{
	if (!churn_tolerant ||
	    (err != -ENOMEM && err != -EFAULT && err != -JT_ENOTSUPP)) {
		printf("# churn: a step failed: %s (%d)\n", strerror(-err), err);
		return 1;
	}
	churn_me->errors++;
	return 0;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void churn_tick(int n)
{
	if (churn_me->errors == churn_me->errors_before)
		churn_me->clean++;
	churn_me->errors_before = churn_me->errors;
	churn_me->cycles = n;
	churn_me->last_ns = now_ns();
	if (n == 1)
		churn_me->first_ns = churn_me->last_ns;
}

/*
 * The cache pools' own page-table walk, summed over every pool: huge pages
 * mapped wrong (see pool_mapping_errors()), -1 if a pool file lacks it.
 */
static long cache_mapping_errors(void)
{
	const char *dir = JT_DEBUGFS "/jitalloc";
	long errors = 0, e, pages;
	char path[512], api[1024];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (!stats_file(d) || !strcmp(d->d_name, BLOCKS_FILE))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		e = pool_mapping_errors(path, &pages);
		if (e < 0) {
			errors = -1;
			break;
		}
		errors += e;
	}
	closedir(dp);
	/* and the linear aliases of the allocator's executable fallbacks */
	if (errors >= 0 && jt_read(API_PATH, api, sizeof(api)) > 0 &&
	    jt_key_in(api, "exec_aliases_protected") == 1 &&
	    jt_key_in(api, "exec_alias_writable") > 0)
		errors += jt_key_in(api, "exec_alias_writable");
	return errors;
}

/*
 * Look for W+X while the others churn: in the whole kernel page tables
 * where ptdump is built, else in the cache's huge pages and their aliases
 * as the kernel reads them.
 */
static int churn_wx_sampler(time_t end)
{
	struct jt_pt_summary pt;
	long errors;

	while (churn_continue(end)) {
		if (jt_ptdump_path()) {
			if (jt_pt_scan(&pt))
				return -1;
			if (pt.wx_lines && !churn_me->wx_lines)
				churn_me->wx_first = pt.wx_first;
			churn_me->wx_lines += pt.wx_lines;
		}
		errors = cache_mapping_errors();
		if (errors < 0)
			return -1;
		churn_me->wx_lines += errors;
		churn_me->wx_samples++;
		usleep(200000);
	}
	return churn_me->wx_samples;
}

static int churn_bpf(time_t end)
{
	int n = 0, fds[16], i;
	long r;

	while (churn_continue(end)) {
		for (i = 0; i < 16; i++) {
			fds[i] = jt_bpf_load(i, (n + i) % 24);
			if (fds[i] < 0 && churn_fatal(-errno))
				return -1;
		}
		for (i = 0; i < 16; i++) {
			if (fds[i] < 0)
				continue;
			r = jt_bpf_run(fds[i]);
			/* a program that returns the wrong value is corrupt */
			if (r >= 0 && r != i) {
				printf("# churn bpf: program %d returned %ld\n", i, r);
				return -1;
			}
			if (r < 0 && churn_fatal(r))
				return -1;
		}
		for (i = 0; i < 16; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		churn_tick(++n);
	}
	return n;
}

static int churn_modules(time_t end)
{
	int n = 0;

	if (!churn_modules_built)
		return 0;
	while (churn_continue(end)) {
		int err = jt_module_load(jt_testmod_path(), "");

		/* a failed self check (corrupt text) is -EINVAL: fatal */
		if (err) {
			if (churn_fatal(err))
				return -1;
		} else {
			err = jt_module_unload(TESTMOD_NAME);
			if (err && churn_fatal(err))
				return -1;
		}
		churn_tick(++n);
	}
	return n;
}

#define CHURN_EVENTS	JT_TRACEFS "/kprobe_events"
#define CHURN_ENABLE	JT_TRACEFS "/events/jitalloc_test/jt_churn/enable"
#define CHURN_INSTANCE	JT_TRACEFS "/instances/jt_churn"

/* Undo a kprobe cycle, also one that failed half way: 0 if all went. */
static int churn_kprobe_undo(void)
{
	int err = jt_write(CHURN_ENABLE, "0");
	int err2 = jt_append(CHURN_EVENTS, "-:jitalloc_test/jt_churn\n");

	return err ? err : err2;
}

static int churn_kprobes(time_t end)
{
	int n = 0, ok, err;

	while (churn_continue(end)) {
		err = jt_append(CHURN_EVENTS, "p:jitalloc_test/jt_churn " PROBE_FUNC "\n");
		if (!err)
			err = jt_write(CHURN_ENABLE, "1");
		ok = !err;
		if (ok)
			open_something();
		else if (churn_fatal(err))
			return -1;
		err = churn_kprobe_undo();
		if (err && ok && churn_fatal(err))
			return -1;
		churn_tick(++n);
	}
	return n;
}

static int churn_ftrace_undo(void)
{
	int err = jt_write(CHURN_INSTANCE "/current_tracer", "nop");

	if (rmdir(CHURN_INSTANCE) && !err)
		err = -errno;
	return err;
}

static int churn_ftrace(time_t end)
{
	int n = 0, ok, err;

	rmdir(CHURN_INSTANCE);
	while (churn_continue(end)) {
		err = mkdir(CHURN_INSTANCE, 0755) ? -errno : 0;
		if (!err)
			err = jt_write(CHURN_INSTANCE "/set_ftrace_filter", PROBE_FUNC);
		if (!err)
			err = jt_write(CHURN_INSTANCE "/current_tracer", "function");
		ok = !err;
		if (ok)
			open_something();
		else if (churn_fatal(err))
			return -1;
		err = churn_ftrace_undo();
		if (err && ok && churn_fatal(err))
			return -1;
		churn_tick(++n);
	}
	return n;
}

/*
 * After the fault variants: one round of every user with no fault and no
 * tolerance, so that nothing a fault hit stays broken (a program that
 * returns the wrong value, a module that fails its self check, a probe or
 * a trampoline that cannot be set up).  0, or -1 after saying what failed.
 */
static int churn_verify(void)
{
	static int (*const one[])(time_t) = {
		churn_bpf, churn_modules, churn_kprobes, churn_ftrace,
	};
	int saved = churn_tolerant, ret = 0, i;
	struct churn_stat local;

	churn_tolerant = 0;
	churn_once = 1;
	for (i = 0; i < 4 && !ret; i++) {
		memset(&local, 0, sizeof(local));
		churn_me = &local;
		if (one[i](time(NULL)) < 0) {
			printf("# churn verify: worker %d failed after the faults\n", i);
			ret = -1;
		}
	}
	churn_once = 0;
	churn_tolerant = saved;
	return ret;
}

/* What a worker that failed half way (faults injected) may have left. */
static void churn_cleanup(void)
{
	churn_kprobe_undo();
	churn_ftrace_undo();
	if (churn_modules_built)
		jt_module_unload(TESTMOD_NAME);
}

/*
 * Fault injection during the churn: failslab and fail_page_alloc fail the
 * BPF and module workers' own allocations at the variant's rate (task
 * filter, sleeping ones too, any order) up to FAULT_TIMES times; what is left of that tells
 * how many failures were injected.  Before, the cache's own huge-page
 * allocation fails once (churn_huge_page_fails()).
 */
#define FAULT_TIMES	1000000

static const struct {
	const char *dir;
	int times;	/* 0: not set by churn_faults_set() */
} churn_knobs[] = {
	{ JT_DEBUGFS "/failslab", FAULT_TIMES },
	{ JT_DEBUGFS "/fail_page_alloc", FAULT_TIMES },
	{ JT_DEBUGFS "/jitalloc/fail_huge_page", 0 },
};

#define FAIL_HUGE_PAGE	2

static int fault_knob_write(const char *dir, const char *file, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (access(path, F_OK))
		return 0;	/* not every knob has every file */
	return jt_write(path, val);
}

static int churn_faults_set(int pct)
{
	char p[16], times[16];
	unsigned int k;
	int err = 0;

	for (k = 0; k < ARRAY_SIZE(churn_knobs); k++) {
		const char *d = churn_knobs[k].dir;

		err |= fault_knob_write(d, "probability", "0");
		if (!pct)
			err |= fault_knob_write(d, "cache-filter", "N");
		if (!pct || !churn_knobs[k].times)
			continue;
		snprintf(p, sizeof(p), "%d", pct);
		snprintf(times, sizeof(times), "%d", churn_knobs[k].times);
		err |= fault_knob_write(d, "interval", "1");
		err |= fault_knob_write(d, "times", times);
		err |= fault_knob_write(d, "verbose", "0");
		err |= fault_knob_write(d, "task-filter", "Y");
		err |= fault_knob_write(d, "ignore-gfp-wait", "N");
		/* the caches booted with slub_debug=A (harness/boot.sh) */
		err |= fault_knob_write(d, "cache-filter", "Y");
		err |= fault_knob_write(d, "ignore-gfp-highmem", "N");
		err |= fault_knob_write(d, "min-order", "0");
		err |= fault_knob_write(d, "probability", p);
	}
	return err;
}

/*
 * The cache's huge-page allocation fails once, whoever makes it, while BPF
 * programs of 2 KiB or so are loaded until the pool needed a new huge page
 * and took the failure; their loads go on through the pool's fallback.
 * Then they are closed.  Returns the failures injected (1), or -1.
 */
#define HUGE_FAIL_PROGS	2048

static int churn_huge_page_fails(void)
{
	const char *d = churn_knobs[FAIL_HUGE_PAGE].dir;
	struct rlimit nofile = { HUGE_FAIL_PROGS + 64, HUGE_FAIL_PROGS + 64 };
	static int fds[HUGE_FAIL_PROGS];
	int n, i, left = 1, failed = 0;
	char buf[32];

	if (setrlimit(RLIMIT_NOFILE, &nofile) ||
	    fault_knob_write(d, "interval", "1") ||
	    fault_knob_write(d, "verbose", "0") ||
	    fault_knob_write(d, "task-filter", "N") ||
	    fault_knob_write(d, "times", "1") ||
	    fault_knob_write(d, "probability", "100"))
		return -1;
	for (n = 0; n < HUGE_FAIL_PROGS && left; n++) {
		fds[n] = jt_bpf_load(n, 512);
		if (fds[n] < 0) {
			failed = 1;
			break;
		}
		if (n % 16 == 15 && jt_read(JT_DEBUGFS "/jitalloc/fail_huge_page/times",
					    buf, sizeof(buf)) > 0)
			left = atoi(buf);
	}
	fault_knob_write(d, "probability", "0");
	for (i = 0; i < n; i++)
		close(fds[i]);
	return failed ? -1 : 1 - left;
}

/* Failures injected by knob @k since churn_faults_set(). */
static long churn_faults_injected(unsigned int k)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "%s/times", churn_knobs[k].dir);
	if (jt_read(path, buf, sizeof(buf)) <= 0)
		return -1;
	return churn_knobs[k].times - strtol(buf, NULL, 10);
}

/* Sum of @key over the pools, and page_blocks' @bkey. */
static long churn_sum(const char *key, const char *bkey)
{
	const char *dir = JT_DEBUGFS "/jitalloc";
	char path[512];
	struct dirent *d;
	long sum = 0, v;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (!stats_file(d))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		v = jt_read_key(path, strcmp(d->d_name, BLOCKS_FILE) ? key : bkey);
		sum += v > 0 ? v : 0;
	}
	closedir(dp);
	return sum;
}

/* Memory pressure for a soak: $JITALLOC_SOAK_STRESS run by sh, or none. */
static pid_t churn_stress_start(void)
{
	const char *cmd = getenv("JITALLOC_SOAK_STRESS");
	pid_t pid;

	if (!cmd || !*cmd)
		return 0;
	pid = fork();
	if (!pid) {
		setpgid(0, 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void churn_stress_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

/*
 * Load/unload churn of every user at once, one process each: BPF program
 * sets, module load/unload, kprobe events and ftrace instances with their
 * trampolines, and a fifth that scans for W+X meanwhile.  Each worker must
 * do CHURN_MIN_CYCLES, and the workers must overlap: every one finished
 * its first cycle before any finished its last.  Afterwards every pool's
 * bytes in use and the page blocks' pages in use are back where they
 * started, every huge page is still one read-only executable PMD, nothing
 * is writable and executable, and nobody made a refused API call.
 *
 * Variants inject allocation failures at 1 % and 10 % (the debug kernel
 * has failslab and fail_page_alloc); a failed step is then counted and
 * cleaned up, and the same checks follow.  $JITALLOC_SOAK_SECONDS makes
 * the fault-free variant a soak of that length, with
 * $JITALLOC_SOAK_STRESS (a shell command, e.g. stress-ng) running for
 * memory pressure, after which the cache's shrinker must have reclaimed.
 */
FIXTURE(churn) {
};

FIXTURE_VARIANT(churn) {
	int fault_pct;
};

FIXTURE_VARIANT_ADD(churn, no_faults) {
	.fault_pct = 0,
};

FIXTURE_VARIANT_ADD(churn, faults_1pct) {
	.fault_pct = 1,
};

FIXTURE_VARIANT_ADD(churn, faults_10pct) {
	.fault_pct = 10,
};

FIXTURE_SETUP(churn)
{
}

FIXTURE_TEARDOWN(churn)
{
	churn_faults_set(0);
}

TEST_F_TIMEOUT(churn, all_users_concurrently, CHURN_TIMEOUT)
{
	static int (*const churn[])(time_t) = {
		churn_bpf, churn_modules, churn_kprobes, churn_ftrace,
		churn_wx_sampler,
	};
	static const char * const names[] = {
		"bpf", "modules", "kprobes", "ftrace", "W+X sampler",
	};
	const int nprocs = access(JT_DEBUGFS "/jitalloc", F_OK) ? 4 : 5;
	long long first_max = 0, last_min = LLONG_MAX;
	long start[CHURN_FILES], refused, reclaims = 0, injected[3];
	const char *soak = getenv("JITALLOC_SOAK_SECONDS");
	int nfiles = 0, i, status, is_soak = 0;
	char paths[CHURN_FILES][512];
	struct churn_stat *st;
	struct jt_pt_summary pt;
	pid_t pids[5], stress = 0;
	struct dirent *d;
	time_t end;
	DIR *dp;

	churn_faults = variant->fault_pct;
	churn_tolerant = churn_faults;
	churn_modules_built = !access("/proc/modules", F_OK);
	if (churn_faults && (access(JT_DEBUGFS "/failslab", F_OK) ||
			     access(JT_DEBUGFS "/fail_page_alloc", F_OK)))
		SKIP(return, "no failslab and fail_page_alloc: the debug kernel injects faults");
	if (!churn_faults && soak && atoi(soak) > 0) {
		churn_seconds = atoi(soak);
		is_soak = 1;
		churn_tolerant = 1;
		reclaims = churn_sum("shrinker_reclaims", "shrinker_reclaims");
	}

	st = mmap(NULL, sizeof(*st) * 5, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st);
	memset(st, 0, sizeof(*st) * 5);
	churn_all = st;
	dp = opendir(JT_DEBUGFS "/jitalloc");
	while (dp && (d = readdir(dp)) && nfiles < CHURN_FILES) {
		if (!stats_file(d))
			continue;
		snprintf(paths[nfiles], sizeof(paths[0]),
			 JT_DEBUGFS "/jitalloc/%s", d->d_name);
		nfiles++;
	}
	if (dp)
		closedir(dp);
	for (i = 0; i < nfiles; i++)
		start[i] = settled_key_for(paths[i], strstr(paths[i], BLOCKS_FILE) ?
					   "pages_in_use" : "bytes_in_use", 12);
	refused = refused_calls();

	if (churn_faults) {
		/* the shrinkers give free huge pages and blocks back */
		ASSERT_EQ(0, jt_write("/proc/sys/vm/drop_caches", "2"));
		injected[FAIL_HUGE_PAGE] = churn_huge_page_fails();
		EXPECT_EQ(1, injected[FAIL_HUGE_PAGE])
			TH_LOG("the cache's huge-page allocation did not fail, or a load did");
		ASSERT_EQ(0, churn_faults_set(churn_faults));
	}
	if (is_soak)
		stress = churn_stress_start();
	end = time(NULL) + churn_seconds;
	for (i = 0; i < nprocs; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i]) {
			int n;

			churn_me = &st[i];
			/*
			 * The BPF and module workers' allocations fail.  Not
			 * the kprobes and ftrace workers': stock 6.1 WARNs
			 * when their own allocations fail (disarming a
			 * kprobe-ftrace, kprobes.c:1165; unregistering a
			 * tracepoint probe, tracepoint.c:406), which is not
			 * jitalloc's to test; they churn on meanwhile.
			 */
			if (churn_faults && (i == 0 || i == 1) &&
			    jt_write("/proc/self/make-it-fail", "1"))
				_exit(2);
			n = churn[i](end);
			printf("# churn %s: %d cycles, %ld clean, %ld failed steps\n",
			       names[i], n, churn_me->clean, churn_me->errors);
			fflush(stdout);
			_exit(n < 0);
		}
	}
	for (i = 0; i < nprocs; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("%s churn failed", names[i]);
	}
	churn_stress_stop(stress);
	for (i = 0; churn_faults && i < FAIL_HUGE_PAGE; i++)
		injected[i] = churn_faults_injected(i);
	ASSERT_EQ(0, churn_faults_set(0));
	churn_cleanup();
	if (churn_faults)
		EXPECT_EQ(0, churn_verify())
			TH_LOG("a user failed without faults after the fault churn");
	if (churn_faults) {
		printf("# injected failures: failslab %ld, fail_page_alloc %ld, ",
		       injected[0], injected[1]);
		printf("fail_huge_page %ld\n", injected[2]);
		EXPECT_LT(0, injected[0] + injected[1]) TH_LOG("no fault injected");
	}

	for (i = 0; i < CHURN_WORKERS; i++) {
		/* no modules: that worker has nothing to do */
		if (i == 1 && !churn_modules_built)
			continue;
		EXPECT_LE(CHURN_MIN_CYCLES, st[i].cycles)
			TH_LOG("%s churn: %ld cycles", names[i], st[i].cycles);
		/* memory pressure may fail steps, not every one */
		if (is_soak)
			EXPECT_LE(CHURN_MIN_CYCLES, st[i].clean)
				TH_LOG("%s churn: %ld clean cycles", names[i],
				       st[i].clean);
		first_max = st[i].first_ns > first_max ? st[i].first_ns : first_max;
		last_min = st[i].last_ns < last_min ? st[i].last_ns : last_min;
	}
	EXPECT_LT(first_max, last_min)
		TH_LOG("the churn workers did not overlap");
	if (nprocs == 5) {
		EXPECT_LE(2, st[4].wx_samples);
		EXPECT_EQ(0, st[4].wx_lines)
			TH_LOG("W+X at 0x%lx, or a cache page mapped wrong, in the churn",
			       st[4].wx_first);
	}
	munmap(st, sizeof(*st) * 5);

	for (i = 0; i < nfiles; i++) {
		const char *key = strstr(paths[i], BLOCKS_FILE) ?
				  "pages_in_use" : "bytes_in_use";

		EXPECT_EQ(start[i], wait_key(paths[i], key, start[i], 80))
			TH_LOG("%s: %s not back to its start", paths[i], key);
	}
	EXPECT_EQ(refused, refused_calls()) TH_LOG("refused calls: %s", API_PATH);
	if (jt_ptdump_path()) {
		ASSERT_EQ(0, jt_pt_scan(&pt));
		EXPECT_EQ(0, pt.wx_lines)
			TH_LOG("W+X mapping at 0x%lx", pt.wx_first);
	}
	for (i = 0; i < nfiles; i++)
		if (!strstr(paths[i], BLOCKS_FILE))
			check_pool_huge_pages(_metadata, paths[i]);
	if (is_soak) {
		reclaims = churn_sum("shrinker_reclaims", "shrinker_reclaims") - reclaims;
		printf("# soak: %d s, shrinker reclaims %ld (huge pages and blocks), ",
		       churn_seconds, reclaims);
		printf("high water %ld bytes, %ld block pages\n",
		       churn_sum("high_water_bytes", "no such key"),
		       churn_sum("no such key", "high_water_pages"));
		EXPECT_LT(0, reclaims)
			TH_LOG("the shrinkers reclaimed nothing under memory pressure");
	}
}

/*
 * Read @len bytes of kernel memory at @addr through /proc/kcore: the bytes
 * read, -1 on a failed read, -2 when no segment of kcore covers @addr.
 */
static long kcore_read(int fd, const struct elf64_hdr *eh,
		       unsigned long addr, void *buf, size_t len)
{
	struct elf64_phdr ph;
	int i;

	for (i = 0; i < eh->e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh->e_phoff + i * sizeof(ph)) !=
		    sizeof(ph))
			return -1;
		if (ph.p_type != PT_LOAD || addr < ph.p_vaddr ||
		    addr + len > ph.p_vaddr + ph.p_memsz)
			continue;
		return pread(fd, buf, len, ph.p_offset + (addr - ph.p_vaddr));
	}
	return -2;
}

/*
 * The last writers of executable memory, on the kernels that build them
 * (BTF: the debug kernel and arm64-16k; livepatch and its samples: the
 * debug kernel): BPF trampolines, struct_ops trampolines and livepatch.
 * Each must work on module and jit text that is read-only from the start
 * and give back what it took.
 */
/* called by BPF_PROG_TEST_RUN of an fentry/fexit program, as in BPF's tests */
#define TRAMP_FUNC	"bpf_fentry_test1"
#define ARM64_NO_FENTRY	\
	"arm64 6.1 attaches fentry/fexit to kernel functions only with ftrace direct calls, which it lacks"
/* the kernel's ENOTSUPP, which userspace headers do not have */
#define JT_ENOTSUPP	524

/* "r0 = @ret; exit" of @type attached to kernel BTF type @btf_id */
static int btf_prog_load(int type, int attach_type, long btf_id, int ret)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = ret },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.expected_attach_type = attach_type;
	attr.attach_btf_id = btf_id;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (unsigned long)"GPL";
	return jt_bpf(BPF_PROG_LOAD, &attr);
}

static long prog_run_cnt(int fd)
{
	struct bpf_prog_info info;
	int err = jt_bpf_prog_info(fd, &info);

	return err ? err : info.run_cnt;
}

/* BPF_PROG_TEST_RUN of a tracing program: calls bpf_fentry_test1() & co. */
static int tracing_test_run(int prog)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = prog;
	return jt_bpf(BPF_PROG_TEST_RUN, &attr) ? -errno : 0;
}

static int tracing_attach(int prog)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.prog_fd = prog;
	return jt_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
}

/*
 * The pool serving BPF trampolines, in @pool; 0 if there is none.  x86 and
 * arm64 cache trampolines wherever they cache programs.
 */
static int tramp_pool(struct __test_metadata *_metadata, char *pool,
		      size_t size)
{
	int cached = !cache_pool("bpf_trampoline", pool, size);
	char progs[512];

	if (!cache_pool("bpf", progs, sizeof(progs)))
		ASSERT_TRUE(cached) TH_LOG("BPF programs are cached, trampolines are not");
	return cached;
}

/*
 * fentry and fexit programs on a kernel function: their trampoline runs
 * them on every call while attached and never after, and the text it took is
 * given back (JitText's pages, after the trampoline's RCU-tasks grace).
 * Where programs come from the cache, so do trampolines
 * (bytes_in_use_bpf_trampoline).
 */
TEST(bpf_trampolines_fentry_fexit)
{
	long id, before, during, enter, leave, tb0 = 0, tb1 = 0;
	int progs[2], links[2], i, cached;
	char pool[512];
	struct jt_btf btf;

	if (access(JT_BTF_PATH, R_OK))
		SKIP(return, "no kernel BTF here (the debug kernel and arm64-16k have it)");
	ASSERT_EQ(0, jt_btf_open(&btf)) TH_LOG("cannot parse %s", JT_BTF_PATH);
	id = jt_btf_find(&btf, BTF_KIND_FUNC, TRAMP_FUNC);
	jt_btf_close(&btf);
	ASSERT_LT(0, id) TH_LOG("%s is not in the kernel's BTF", TRAMP_FUNC);
	ASSERT_EQ(0, jt_write("/proc/sys/kernel/bpf_stats_enabled", "1"));
	before = wait_key(API_PATH, "text_pages",
			  settled_key_for(API_PATH, "text_pages", 10), 1);
	cached = tramp_pool(_metadata, pool, sizeof(pool));
	if (cached)
		tb0 = settled_key_for(pool, "bytes_in_use_bpf_trampoline", 10);

	progs[0] = btf_prog_load(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, id, 0);
	ASSERT_LE(0, progs[0]) TH_LOG("fentry on %s: %s", TRAMP_FUNC, strerror(errno));
	progs[1] = btf_prog_load(BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, id, 0);
	ASSERT_LE(0, progs[1]) TH_LOG("fexit on %s: %s", TRAMP_FUNC, strerror(errno));
	for (i = 0; i < 2; i++) {
		links[i] = tracing_attach(progs[i]);
#ifdef __aarch64__
		/* the trampoline was built (and given back) before that */
		if (!i && links[0] < 0 && errno == JT_ENOTSUPP) {
			close(progs[0]);
			close(progs[1]);
			jt_write("/proc/sys/kernel/bpf_stats_enabled", "0");
			if (cached)
				ASSERT_EQ(tb0, wait_key(pool, "bytes_in_use_bpf_trampoline",
							tb0, 40));
			SKIP(return, "%s", ARM64_NO_FENTRY);
		}
#endif
		ASSERT_LE(0, links[i]) TH_LOG("attach: %s", strerror(errno));
	}
	during = jt_read_key(API_PATH, "text_pages");
	if (cached) {
		tb1 = jt_read_key(pool, "bytes_in_use_bpf_trampoline");
		EXPECT_LT(tb0, tb1) TH_LOG("the trampoline took no chunk of the cache");
	}
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, tracing_test_run(progs[0]));
	enter = prog_run_cnt(progs[0]);
	leave = prog_run_cnt(progs[1]);
	EXPECT_LE(10, enter);
	EXPECT_LE(10, leave);
	for (i = 0; i < 2; i++)
		close(links[i]);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, tracing_test_run(progs[0]));
	EXPECT_EQ(enter, prog_run_cnt(progs[0])) TH_LOG("fentry ran after detach");
	EXPECT_EQ(leave, prog_run_cnt(progs[1])) TH_LOG("fexit ran after detach");
	for (i = 0; i < 2; i++)
		close(progs[i]);
	jt_write("/proc/sys/kernel/bpf_stats_enabled", "0");
	printf("# %s: fentry ran %ld times, fexit %ld; JitText pages %ld, attached %ld; ",
	       TRAMP_FUNC, enter, leave, before, during);
	printf("trampoline bytes in the cache %ld, attached %ld\n", tb0, tb1);
	EXPECT_EQ(before, wait_key(API_PATH, "text_pages", before, 40));
	if (cached)
		EXPECT_EQ(tb0, wait_key(pool, "bytes_in_use_bpf_trampoline", tb0, 40));
}

/*
 * A socket filter "r0 = 0; exit" with BTF of its own (the function
 * "jt_target", BTF id 4), so that tracing programs can attach to it;
 * its BTF object's fd in @btf_fd.
 */
static int btf_target_load(int *btf_fd)
{
	static const char strs[] = "\0int\0ctx\0jt_target";
	static const __u32 types[] = {
		/* 1: int */
		1, BTF_KIND_INT << 24, 4, (BTF_INT_SIGNED << 24) | 32,
		/* 2: void * */
		0, BTF_KIND_PTR << 24, 0,
		/* 3: int (void *ctx) */
		0, (BTF_KIND_FUNC_PROTO << 24) | 1, 1, 5, 2,
		/* 4: static int jt_target(void *ctx) */
		9, BTF_KIND_FUNC << 24, 3,
	};
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_func_info finfo = { .insn_off = 0, .type_id = 4 };
	char blob[sizeof(struct btf_header) + sizeof(types) + sizeof(strs)];
	struct btf_header hdr = {
		.magic = BTF_MAGIC,
		.version = BTF_VERSION,
		.hdr_len = sizeof(hdr),
		.type_off = 0,
		.type_len = sizeof(types),
		.str_off = sizeof(types),
		.str_len = sizeof(strs),
	};
	union bpf_attr attr;
	int fd;

	memcpy(blob, &hdr, sizeof(hdr));
	memcpy(blob + sizeof(hdr), types, sizeof(types));
	memcpy(blob + sizeof(hdr) + sizeof(types), strs, sizeof(strs));
	memset(&attr, 0, sizeof(attr));
	attr.btf = (unsigned long)blob;
	attr.btf_size = sizeof(blob);
	*btf_fd = jt_bpf(BPF_BTF_LOAD, &attr);
	if (*btf_fd < 0)
		return -1;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (unsigned long)"GPL";
	attr.prog_btf_fd = *btf_fd;
	attr.func_info_rec_size = sizeof(finfo);
	attr.func_info = (unsigned long)&finfo;
	attr.func_info_cnt = 1;
	fd = jt_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0)
		close(*btf_fd);
	return fd;
}

/*
 * An fexit program on a BPF program: the trampoline calls the program it
 * is attached to (BPF_TRAMP_F_CALL_ORIG), so it keeps the addresses that
 * are patched when it is put (ip_after_call, ip_epilogue) and is entered
 * from the target's patched first instructions.  It runs on every run of
 * the target while attached and never after; where programs are cached,
 * its image is a chunk of the cache, given back.  6.1 arm64 attaches
 * this (through the program's PLT) though not fentry on kernel functions.
 */
TEST(bpf_trampoline_fexit_on_program)
{
	long during, after, runs, tb0 = 0, tb1 = 0;
	int target, btf_fd, prog, link, i, cached;
	union bpf_attr attr;
	char pool[512];
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	if (access(JT_BTF_PATH, R_OK))
		SKIP(return, "no kernel BTF here (the debug kernel and arm64-16k have it)");
	cached = tramp_pool(_metadata, pool, sizeof(pool));
	if (cached)
		tb0 = settled_key_for(pool, "bytes_in_use_bpf_trampoline", 10);
	ASSERT_EQ(0, jt_write("/proc/sys/kernel/bpf_stats_enabled", "1"));
	target = btf_target_load(&btf_fd);
	ASSERT_LE(0, target) TH_LOG("target program with BTF: %s", strerror(errno));

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_TRACING;
	attr.expected_attach_type = BPF_TRACE_FEXIT;
	attr.attach_prog_fd = target;
	attr.attach_btf_id = 4;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (unsigned long)"GPL";
	prog = jt_bpf(BPF_PROG_LOAD, &attr);
	ASSERT_LE(0, prog) TH_LOG("fexit on a program: %s", strerror(errno));
	link = tracing_attach(prog);
	ASSERT_LE(0, link) TH_LOG("attach: %s", strerror(errno));
	if (cached) {
		tb1 = jt_read_key(pool, "bytes_in_use_bpf_trampoline");
		EXPECT_LT(tb0, tb1) TH_LOG("the trampoline took no chunk of the cache");
	}
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, jt_bpf_run(target));
	during = prog_run_cnt(prog);
	EXPECT_LE(10, during) TH_LOG("fexit ran %ld times in 10 runs", during);
	close(link);
	for (i = 0; i < 10; i++)
		ASSERT_EQ(0, jt_bpf_run(target));
	after = prog_run_cnt(prog);
	EXPECT_EQ(during, after) TH_LOG("fexit ran after detach");
	runs = prog_run_cnt(target);
	EXPECT_LE(20, runs) TH_LOG("the target ran %ld times in 20 runs", runs);
	close(prog);
	close(target);
	close(btf_fd);
	jt_write("/proc/sys/kernel/bpf_stats_enabled", "0");
	printf("# fexit on a program: ran %ld times attached, %ld after; target ran %ld; ",
	       during, after - during, runs);
	printf("trampoline bytes in the cache %ld, attached %ld\n", tb0, tb1);
	if (cached)
		EXPECT_EQ(tb0, wait_key(pool, "bytes_in_use_bpf_trampoline", tb0, 40));
}

#define TRAMP_EV_INSTANCE	JT_TRACEFS "/instances/jt_tramp_events"

/*
 * A struct_ops trampoline: bpf_dummy_ops' test_1 run through
 * BPF_PROG_TEST_RUN, which builds the trampoline, calls it and frees it;
 * the program's return value comes back through it.  Where trampolines
 * are cached (x86, arm64), the trace shows its image taken as a chunk of
 * the cache and given back.
 */
TEST(bpf_struct_ops_trampoline)
{
	unsigned long long args[1] = { 0 };
	unsigned long addr = 0, len = 0;
	long ops, member;
	union bpf_attr attr;
	struct jt_btf btf;
	int prog, cached, freed;
	char pool[512];

	if (access(JT_BTF_PATH, R_OK))
		SKIP(return, "no kernel BTF here (the debug kernel and arm64-16k have it)");
	ASSERT_EQ(0, jt_btf_open(&btf)) TH_LOG("cannot parse %s", JT_BTF_PATH);
	ops = jt_btf_find(&btf, BTF_KIND_STRUCT, "bpf_dummy_ops");
	member = ops > 0 ? jt_btf_member(&btf, ops, "test_1") : -ENOENT;
	jt_btf_close(&btf);
	ASSERT_LT(0, ops) TH_LOG("no struct bpf_dummy_ops in the kernel's BTF");
	ASSERT_LE(0, member);

	/* its expected_attach_type is the member's index */
	prog = btf_prog_load(BPF_PROG_TYPE_STRUCT_OPS, member, ops, 42);
	ASSERT_LE(0, prog) TH_LOG("struct_ops program: %s", strerror(errno));

	cached = tramp_pool(_metadata, pool, sizeof(pool));
	if (cached) {
		rmdir(TRAMP_EV_INSTANCE);
		ASSERT_EQ(0, mkdir(TRAMP_EV_INSTANCE, 0755)) TH_LOG("%s", strerror(errno));
		ASSERT_EQ(0, jt_write(TRAMP_EV_INSTANCE "/events/jitalloc/jit_alloc/enable", "1"));
		ASSERT_EQ(0, jt_write(TRAMP_EV_INSTANCE "/events/jitalloc/jit_free/enable", "1"));
	}
	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = prog;
	attr.test.ctx_in = (unsigned long)args;
	attr.test.ctx_size_in = sizeof(args);
	EXPECT_EQ(0, jt_bpf(BPF_PROG_TEST_RUN, &attr)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(42, attr.test.retval);
	close(prog);
	if (cached) {
		/* the image goes with jit_free(): its chunk is freed at once */
		jt_write(TRAMP_EV_INSTANCE "/events/jitalloc/enable", "0");
		EXPECT_EQ(0, chunk_events(TRAMP_EV_INSTANCE, "bpf_trampoline",
					  &addr, &len, &freed))
			TH_LOG("no bpf_trampoline chunk allocation traced");
		printf("# struct_ops trampoline: chunk 0x%lx + %lu, freed: %s\n",
		       addr, len, freed ? "yes" : "no");
		EXPECT_TRUE(freed);
		rmdir(TRAMP_EV_INSTANCE);
	}
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
	EXPECT_EQ(0, jt_module_unload("livepatch_sample"));

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
	EXPECT_EQ(0, jt_module_unload("livepatch_callbacks_demo"));
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
	EXPECT_EQ(0, jt_module_unload("jitalloc_klp"));
	/* the test module comes back unpatched */
	ASSERT_EQ(0, jt_module_load(jt_testmod_path(), ""));
	ASSERT_LT(0, jt_read("/sys/module/" TESTMOD_NAME "/parameters/patchable",
			     buf, sizeof(buf)));
	EXPECT_STREQ("1\n", buf);
	ASSERT_EQ(0, jt_module_unload(TESTMOD_NAME));
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

TEST(no_wx_mapping_after_users)
{
	struct jt_pt_summary s;

	if (!jt_ptdump_path())
		SKIP(return, NO_PTDUMP);
	ASSERT_EQ(0, jt_pt_scan(&s));
	EXPECT_EQ(0, s.wx_lines) TH_LOG("W+X mapping at 0x%lx", s.wx_first);
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

/* No user's workload made a refused call: see refused_calls_baseline. */
TEST(refused_calls_after_users)
{
	char buf[32];
	long start, now = refused_calls();

	ASSERT_LT(0, jt_read(REFUSED_SAVED, buf, sizeof(buf)));
	start = strtol(buf, NULL, 10);
	ASSERT_LE(0, now);
	EXPECT_EQ(start, now) TH_LOG("refused calls: %s", API_PATH);
	/* no page-granular allocation refused for an alias left writable */
	EXPECT_EQ(0, jt_read_key(API_PATH, "alias_errors"));
}

TEST_HARNESS_MAIN
