/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What more than one of the jitalloc selftests needs: debugfs paths, the
 * test modules' names, waiting for the pools' counters to settle, reading
 * kernel memory through /proc/kcore.
 */
#ifndef JITALLOC_COMMON_H
#define JITALLOC_COMMON_H

#include <linux/elf.h>
#include "jitalloc_util.h"

/* page blocks of page-granular allocations; every other file is a pool */
#define BLOCKS_FILE	"page_blocks"

#define BLOCKS_PATH	JT_DEBUGFS "/jitalloc/" BLOCKS_FILE

#define API_PATH	JT_DEBUGFS "/jitalloc/api"

#define REFUSED_SAVED	"/jitalloc-refused-at-start"

#define BIGMOD_NAME	"jitalloc_bigmod"

/* Path of module file @ko next to the test module. */
static inline void ko_path(char *buf, size_t size, const char *ko)
{
	const char *dir = jt_testmod_path();
	const char *slash = strrchr(dir, '/');

	snprintf(buf, size, "%.*s%s", (int)(slash ? slash - dir + 1 : 0), dir,
		 ko);
}

#define NO_PTDUMP "no page-table dump in debugfs (PTDUMP_DEBUGFS off); DEBUG_WX checked at boot"

/* The allocator's own file: execmem's on 6.12 (v2), the API's on 6.1 */
static inline const char *jt_api_path(void)
{
	return jt_execmem() ? EXECMEM_PATH : API_PATH;
}

/*
 * Where the pages of jit text are counted, and under which key: the
 * API's text_pages on 6.1, JitText of /proc/meminfo (in kB) on 6.12.
 * Both move together with the text held; only their changes are compared.
 */
static inline const char *jt_text_path(void)
{
	return jt_execmem() ? "/proc/meminfo" : API_PATH;
}

static inline const char *jt_text_key(void)
{
	return jt_execmem() ? "JitText" : "text_pages";
}

/* Refused API calls (double frees, stray writes) so far, all kinds. */
static inline long refused_calls(void)
{
	long f, u, t = 0;

	if (jt_execmem()) {
		/* execmem has no type to refuse: its types are an enum */
		f = jt_read_key(EXECMEM_PATH, "refused_frees");
		u = jt_read_key(EXECMEM_PATH, "refused_updates");
	} else {
		f = jt_read_key(API_PATH, "refused_frees");
		u = jt_read_key(API_PATH, "refused_updates");
		t = jt_read_key(API_PATH, "refused_types");
	}
	return f < 0 || u < 0 || t < 0 ? -1 : f + u + t;
}

/*
 * The first chunk allocation for cache user @user in the trace of trace
 * instance @instance that holds address @at (any, if @at is 0): the
 * address and length allocated, and whether the same address was freed
 * afterwards.  -1 if there is no such allocation.
 */
static inline int chunk_events_at(const char *instance, const char *user,
				  unsigned long at, unsigned long *addr,
				  unsigned long *len, int *freed)
{
	char line[512], want[64], path[256], tag[64];
	int found = -1;
	char *p;
	FILE *f;

	*freed = 0;
	snprintf(path, sizeof(path), "%s/trace", instance);
	snprintf(tag, sizeof(tag), "user=%s ", cache_user(user));
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
			unsigned long a = strtoul(p + 5, NULL, 16), l;

			p = strstr(line, " len=");
			l = p ? strtoul(p + 5, NULL, 10) : 0;
			if (at && (at < a || at >= a + l))
				continue;
			*addr = a;
			*len = l;
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

/* The first chunk allocation for @user, as chunk_events_at() tells. */
static inline int chunk_events(const char *instance, const char *user,
			       unsigned long *addr, unsigned long *len,
			       int *freed)
{
	return chunk_events_at(instance, user, 0, addr, len, freed);
}

/*
 * BPF programs take chunks of the cache as they need them: not a page each,
 * and not a 2 MiB pack.  Their bytes are given back when they go.
 */
/* @key of @path once it has kept its value for @polls * 100 ms (< 8 s). */
static inline long settled_key_for(const char *path, const char *key, int polls)
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

/* Wait up to @polls * 100 ms for @key of @path to be @want; its last value. */
static inline long wait_key(const char *path, const char *key, long want, int polls)
{
	long now = jt_read_key(path, key);
	int i;

	for (i = 0; i < polls && now != want; i++) {
		usleep(100000);
		now = jt_read_key(path, key);
	}
	return now;
}

/*
 * The kernel's own read of the page tables over the huge pages of pool
 * file @path (its mapped_* and alias_* keys, from one read of the file):
 * how many huge pages are mapped wrong, i.e. not by one entry, writable,
 * not executable, or with a writable linear alias.  *@pages gets the
 * number walked; -1 if the file lacks the keys.
 */
static inline long pool_mapping_errors(const char *path, long *pages)
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
static inline int check_pool_huge_pages(struct __test_metadata *_metadata,
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
	EXPECT_EQ(0, jt_key_in(buf, "map_errors"))
		TH_LOG("%s: filled pages that could not be mapped executable", path);
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

/*
 * The path of the next cache pool's statistics file in @dp, the jitalloc
 * debugfs directory, into @path: 1, or 0 when there is none left.
 */
static inline int jt_next_pool(DIR *dp, char *path, size_t size)
{
	struct dirent *d;

	while ((d = readdir(dp))) {
		if (!stats_file(d) || !strcmp(d->d_name, BLOCKS_FILE))
			continue;
		snprintf(path, size, JT_DEBUGFS "/jitalloc/%s", d->d_name);
		return 1;
	}
	return 0;
}

/* Sum of @key over every cache pool's statistics file, or -1 if none. */
static inline long pools_sum(const char *key)
{
	DIR *dp = opendir(JT_DEBUGFS "/jitalloc");
	char path[512];
	long sum = -1, v;

	if (!dp)
		return -1;
	while (jt_next_pool(dp, path, sizeof(path))) {
		v = jt_read_key(path, key);
		if (v >= 0)
			sum = (sum < 0 ? 0 : sum) + v;
	}
	closedir(dp);
	return sum;
}

/* with BPF_JIT_ALWAYS_ON, a JIT that got no memory fails the load so */
#define JT_ENOTSUPP	524

/*
 * Read @len bytes of kernel memory at @addr through /proc/kcore: the bytes
 * read, -1 on a failed read, -2 when no segment of kcore covers @addr.
 */
static inline long kcore_read(int fd, const struct elf64_hdr *eh,
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
 * Add the kprobe event jitalloc_test/@event at the first offset into
 * PROBE_FUNC that kprobes accepts and ftrace does not own, so that the
 * probe has an instruction slot of its own (a probe on ftrace's call site
 * has none).  Return: the offset, or -1 if none of the first 63 bytes
 * will do or a tried event could not be removed again.
 */
static inline int jt_probe_add_slot(const char *event)
{
	const char *events = JT_TRACEFS "/kprobe_events";
	char ev[128], list[8192];
	int off;

	for (off = 1; off < 64; off++) {
		snprintf(ev, sizeof(ev), "p:jitalloc_test/%s %s+%d\n", event,
			 PROBE_FUNC, off);
		if (jt_append(events, ev))
			continue;
		if (jt_read(JT_DEBUGFS "/kprobes/list", list, sizeof(list)) > 0 &&
		    !strstr(list, "[FTRACE]"))
			return off;
		snprintf(ev, sizeof(ev), "-:jitalloc_test/%s\n", event);
		if (jt_append(events, ev))
			return -1;
	}
	return -1;
}

#define MAX_SLOT_PAGES	16

/*
 * kprobes' slot pages as /proc/kallsyms lists them (kprobe_insn_page,
 * kprobe_optinsn_page), the first MAX_SLOT_PAGES checked against the huge
 * pages of pool file @pool: how many lie in none of them, their total in
 * *@total, and in *@first the first outside, or the first listed when
 * none is; -1 (*@total too) if kallsyms cannot be read.
 */
static inline int jt_slot_pages_outside(const char *pool, int *total,
					unsigned long *first)
{
	unsigned long pages[MAX_SLOT_PAGES];
	int n, i, out = 0;

	n = jt_kallsyms_addrs("kprobe_", "[__builtin__kprobes]", pages,
			      MAX_SLOT_PAGES);
	*total = n;
	if (n < 0)
		return -1;
	if (n > 0)
		*first = pages[0];
	for (i = 0; i < n && i < MAX_SLOT_PAGES; i++) {
		if (in_huge_page(pool, pages[i]))
			continue;
		if (!out++)
			*first = pages[i];
	}
	return out;
}

#endif /* JITALLOC_COMMON_H */
