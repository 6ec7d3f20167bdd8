/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the series claims stock 6.1 does not do, tested only through
 * interfaces stock 6.1 has too (/proc/vmstat, the ptdump file,
 * /proc/vmallocinfo), so that the same tests run on both kernels:
 * jitalloc_claims runs them on the series, where they must pass, and
 * jitalloc_control on stock 6.1 built from the same config, where each
 * must fail: a claim test that passes on stock cannot tell the two apart.
 *
 * The including file defines claims_apply(why, len): nonzero when the
 * claims are to be tested on the running kernel, else a reason to skip.
 *
 * One workload serves every claim: 64 small BPF programs, a kprobe event
 * and CLAIM_INSTANCES tracing instances with the function tracer, each
 * with its own ftrace trampoline.
 */
#ifndef JITALLOC_CLAIMS_H
#define JITALLOC_CLAIMS_H

#define CLAIM_PROGS	64
/*
 * The message of each claim's deciding check when it fails.  On a kernel
 * without the allocator (jitalloc_control) only that failure is the
 * expected one: a claim that fails there by a workload error, a timeout or
 * a crash tells nothing.
 */
#define CLAIM_REFUTED	"claim refuted: "
#define CLAIM_INSTANCES	10

struct claim_load {
	int fds[CLAIM_PROGS];
	int progs, instances, probe;
};

static void claim_instance_path(char *path, size_t size, int n,
				const char *file)
{
	snprintf(path, size, JT_TRACEFS "/instances/jt_claim%d%s%s", n,
		 file ? "/" : "", file ? file : "");
}

/* Load the workload; what was set up is undone by claim_unload(). */
static int claim_load(struct claim_load *w)
{
	char path[256];

	memset(w, 0, sizeof(*w));
	/* Left behind by a test the harness killed, if any. */
	jt_write(JT_TRACEFS "/events/jitalloc_test/jt_claim/enable", "0");
	jt_append(JT_TRACEFS "/kprobe_events", "-:jitalloc_test/jt_claim\n");
	for (; w->progs < CLAIM_PROGS; w->progs++) {
		w->fds[w->progs] = jt_bpf_load(w->progs, w->progs % 16);
		if (w->fds[w->progs] < 0)
			return -1;
	}
	if (jt_append(JT_TRACEFS "/kprobe_events",
		      "p:jitalloc_test/jt_claim " PROBE_FUNC "\n"))
		return -1;
	w->probe = 1;
	if (jt_write(JT_TRACEFS "/events/jitalloc_test/jt_claim/enable", "1"))
		return -1;
	for (; w->instances < CLAIM_INSTANCES; w->instances++) {
		claim_instance_path(path, sizeof(path), w->instances, NULL);
		rmdir(path);
		if (mkdir(path, 0755))
			return -1;
		claim_instance_path(path, sizeof(path), w->instances,
				    "set_ftrace_filter");
		if (jt_write(path, PROBE_FUNC))
			return -1;
		claim_instance_path(path, sizeof(path), w->instances,
				    "current_tracer");
		if (jt_write(path, "function"))
			return -1;
	}
	open_something();
	return 0;
}

static int claim_unload(struct claim_load *w)
{
	char path[256];
	int i, err = 0;

	for (i = 0; i <= w->instances && i < CLAIM_INSTANCES; i++) {
		claim_instance_path(path, sizeof(path), i, "current_tracer");
		jt_write(path, "nop");
		claim_instance_path(path, sizeof(path), i, NULL);
		if (rmdir(path) && i < w->instances)
			err = -1;
	}
	if (w->probe) {
		jt_write(JT_TRACEFS "/events/jitalloc_test/jt_claim/enable", "0");
		if (jt_append(JT_TRACEFS "/kprobe_events", "-:jitalloc_test/jt_claim\n"))
			err = -1;
	}
	for (i = 0; i < w->progs; i++)
		close(w->fds[i]);
	return err;
}

/* Why a claim test cannot run here (then nonzero), in @why. */
static int claim_skip(int need_ptdump, char *why, size_t len)
{
	if (!claims_apply(why, len))
		return 1;
	if (need_ptdump && !jt_ptdump_path()) {
		snprintf(why, len, "no page-table dump in debugfs");
		return 1;
	}
	return 0;
}

#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"

#define CLAIM_MAX_CODE	8192

/* JIT code of the kinds kallsyms names, by the module tag it shows. */
enum claim_user { CLAIM_BPF, CLAIM_KPROBES, CLAIM_FTRACE, CLAIM_USERS };

struct claim_code {
	unsigned long addr;
	int user;
};

static struct claim_code claim_code[CLAIM_MAX_CODE];

/*
 * BPF programs, kprobes instruction pages and ftrace trampolines, from
 * /proc/kallsyms (kptr_restrict 1 for the read), into claim_code[]; their
 * number, or -1.
 */
static int claim_read_code(void)
{
	static const char * const tags[CLAIM_USERS] = {
		"[bpf]", "[__builtin__kprobes]", "[__builtin__ftrace]",
	};
	char line[512], kptr[16], tag[128];
	unsigned long addr;
	int n = 0, u, opened;
	FILE *f;

	if (jt_read(KPTR_RESTRICT, kptr, sizeof(kptr)) <= 0 ||
	    jt_write(KPTR_RESTRICT, "1"))
		return -1;
	f = fopen("/proc/kallsyms", "r");
	opened = !!f;
	while (f && fgets(line, sizeof(line), f) && n < CLAIM_MAX_CODE) {
		if (sscanf(line, "%lx %*s %*s %127s", &addr, tag) != 2)
			continue;
		for (u = 0; u < CLAIM_USERS; u++)
			if (!strcmp(tag, tags[u])) {
				claim_code[n].addr = addr;
				claim_code[n++].user = u;
			}
	}
	if (f)
		fclose(f);
	if (jt_write(KPTR_RESTRICT, kptr) || !opened)
		return -1;
	return n;
}

/*
 * JIT code of claim_code[] (@n entries) that the kernel page tables map
 * with entries smaller than 2 MiB, or not as executable at all, in one
 * pass over the page-table dump; -1 if it cannot be read.
 */
static long claim_code_in_small_pages(int n)
{
	const char *path = jt_ptdump_path();
	static char seen[CLAIM_MAX_CODE];
	struct jt_pt_entry e;
	char line[512];
	long small = 0;
	FILE *f;
	int i;

	f = path ? fopen(path, "r") : NULL;
	if (!f)
		return -1;
	memset(seen, 0, sizeof(seen));
	while (fgets(line, sizeof(line), f)) {
		if (!jt_pt_parse(line, &e) || !e.exec)
			continue;
		for (i = 0; i < n; i++) {
			if (seen[i] || claim_code[i].addr < e.start ||
			    claim_code[i].addr >= e.end)
				continue;
			seen[i] = 1;
			small += e.level_size < (2UL << 20);
		}
	}
	fclose(f);
	for (i = 0; i < n; i++)
		small += !seen[i];
	return small;
}

/*
 * Claim: JIT users never change the permissions of 4 KiB pages, so BPF
 * programs, a kprobe and ftrace trampolines split no direct-map PMD.
 * Stock 6.1 splits one for most trampolines.  First of the claims: on
 * stock, later tests find the pages they get already split.
 */
TEST(no_direct_map_splits_from_jit_users)
{
	struct claim_load w;
	char why[128];
	long before, after;
	int loaded;

	before = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	if (before < 0)
		SKIP(return, "no direct_map_level2_splits in /proc/vmstat on this arch");
	if (claim_skip(0, why, sizeof(why)))
		SKIP(return, "%s", why);

	loaded = claim_load(&w);
	after = jt_read_key("/proc/vmstat", "direct_map_level2_splits");
	EXPECT_EQ(0, claim_unload(&w));
	ASSERT_EQ(0, loaded) TH_LOG("workload: %s", strerror(errno));
	printf("# direct_map_level2_splits: %ld before, %ld with the workload\n",
	       before, after);
	EXPECT_EQ(before, after)
		TH_LOG(CLAIM_REFUTED "direct map PMDs split by JIT users");
}

/*
 * Claim (PMD mappings): the text of small JIT allocations lives in huge
 * pages, so the workload adds no 4 KiB executable translation to the
 * kernel page tables, and every BPF program, kprobes instruction page and
 * ftrace trampoline kallsyms lists is mapped by a 2 MiB (or larger) one.
 * Stock 6.1 maps every trampoline and kprobe page, and each new
 * bpf_prog_pack, with 4 KiB PTEs.
 */
TEST(jit_users_add_no_4k_exec_mappings)
{
	struct jt_pt_summary before, after;
	struct claim_load w;
	char why[128];
	int loaded, code;
	long small;

	if (claim_skip(1, why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, jt_pt_scan(&before));
	loaded = claim_load(&w);
	ASSERT_EQ(0, jt_pt_scan(&after));
	code = claim_read_code();
	small = code > 0 ? claim_code_in_small_pages(code) : -1;
	EXPECT_EQ(0, claim_unload(&w));
	ASSERT_EQ(0, loaded) TH_LOG("workload: %s", strerror(errno));
	ASSERT_LE(0, small) TH_LOG("cannot read /proc/kallsyms or the page-table dump");
	printf("# JIT code in 4 KiB executable translations: %ld of %d\n",
	       small, code);
	printf("# 4 KiB executable translations: %ld before, %ld with the workload\n",
	       before.exec_entries - before.exec_pmd,
	       after.exec_entries - after.exec_pmd);
	EXPECT_GE(before.exec_entries - before.exec_pmd,
		  after.exec_entries - after.exec_pmd)
		TH_LOG(CLAIM_REFUTED
		       "4 KiB executable translations: %ld before, %ld with the workload",
		       before.exec_entries - before.exec_pmd,
		       after.exec_entries - after.exec_pmd);
	/* not a net count: each program, kprobes page and trampoline itself */
	EXPECT_LE(CLAIM_PROGS + 1, code);
	EXPECT_EQ(0, small)
		TH_LOG(CLAIM_REFUTED
		       "%ld of %d BPF programs, kprobes pages and ftrace trampolines in 4 KiB translations",
		       small, code);
}

#define CLAIM_MAX_EXEC	4096

/* Executable ranges of the kernel page tables, merged; their number. */
static int claim_exec_ranges(unsigned long (*r)[2], int max)
{
	const char *path = jt_ptdump_path();
	struct jt_pt_entry e;
	char line[512];
	int n = 0;
	FILE *f;

	f = path ? fopen(path, "r") : NULL;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!jt_pt_parse(line, &e) || !e.exec)
			continue;
		if (n && r[n - 1][1] == e.start) {
			r[n - 1][1] = e.end;
		} else if (n < max) {
			r[n][0] = e.start;
			r[n][1] = e.end;
			n++;
		}
	}
	fclose(f);
	return n;
}

/*
 * vmalloc areas that start in executable memory, from /proc/vmallocinfo,
 * in *@kb (if not NULL) the kB of pages they have, and in *@small (if not
 * NULL) how many of them are smaller than a 2 MiB huge page.  Its %pK
 * addresses are hashed unless kptr_restrict is 1 (then root sees them):
 * set it for the read, then put the old value back.
 */
static long claim_exec_areas(long *kb, long *small)
{
	static unsigned long ranges[CLAIM_MAX_EXEC][2];
	unsigned long start, end;
	char line[512], kptr[16], *p;
	long areas = 0, pages = 0, smaller = 0;
	int n, i;
	FILE *f;

	n = claim_exec_ranges(ranges, CLAIM_MAX_EXEC);
	if (n < 0 || jt_read(KPTR_RESTRICT, kptr, sizeof(kptr)) <= 0 ||
	    jt_write(KPTR_RESTRICT, "1"))
		return -1;
	f = fopen("/proc/vmallocinfo", "r");
	if (!f) {
		jt_write(KPTR_RESTRICT, kptr);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "0x%lx-0x%lx", &start, &end) != 2)
			continue;
		for (i = 0; i < n; i++)
			if (start >= ranges[i][0] && start < ranges[i][1]) {
				p = strstr(line, " pages=");
				pages += p ? strtol(p + 7, NULL, 10) : 0;
				smaller += end - start < (2UL << 20);
				areas++;
				break;
			}
	}
	fclose(f);
	if (jt_write(KPTR_RESTRICT, kptr))
		return -1;
	if (kb)
		*kb = pages * (getpagesize() / 1024);
	if (small)
		*small = smaller;
	return areas;
}

#define CLAIM_MAX_AREAS	8192
/*
 * Kprobes instruction pages and ftrace trampolines that share no vmalloc
 * area with another user's code (a BPF program, or the other of the two),
 * from /proc/kallsyms and /proc/vmallocinfo (kptr_restrict 1 for both);
 * in @found how many there are in all.  -1 if they cannot be read.
 */
static long claim_private_code(long *found)
{
	static unsigned long areas[CLAIM_MAX_AREAS][2];
	int n_areas = 0, n_code, i, j;
	unsigned long start, end;
	char line[512], kptr[16];
	struct claim_code *code = claim_code;
	long private = 0;
	FILE *f;

	*found = 0;
	n_code = claim_read_code();
	if (n_code < 0 || jt_read(KPTR_RESTRICT, kptr, sizeof(kptr)) <= 0 ||
	    jt_write(KPTR_RESTRICT, "1"))
		return -1;
	f = fopen("/proc/vmallocinfo", "r");
	while (f && fgets(line, sizeof(line), f) && n_areas < CLAIM_MAX_AREAS)
		if (sscanf(line, "0x%lx-0x%lx", &start, &end) == 2) {
			areas[n_areas][0] = start;
			areas[n_areas++][1] = end;
		}
	if (f)
		fclose(f);
	if (jt_write(KPTR_RESTRICT, kptr) || !n_areas)
		return -1;
	for (i = 0; i < n_code; i++) {
		int area = -1, shared = 0;

		if (code[i].user == CLAIM_BPF)
			continue;
		(*found)++;
		for (j = 0; j < n_areas && area < 0; j++)
			if (code[i].addr >= areas[j][0] &&
			    code[i].addr < areas[j][1])
				area = j;
		for (j = 0; j < n_code && area >= 0 && !shared; j++)
			shared = code[j].user != code[i].user &&
				 code[j].addr >= areas[area][0] &&
				 code[j].addr < areas[area][1];
		private += !shared;
	}
	return private;
}

/*
 * Claim (chunks): small JIT allocations are chunks of shared huge pages,
 * not a vmalloc area and a page each: the workload adds no executable
 * vmalloc area smaller than a 2 MiB huge page (the huge pages the pools
 * map for it, and their spares, depend on what the grace reclaim and the
 * shrinker left them).  Stock 6.1 adds an area per ftrace trampoline and
 * kprobes page (11 here).  And the huge pages are not pages of their own
 * for kprobes or ftrace: kallsyms places every kprobes instruction page
 * and ftrace trampoline in an area that holds another user's code too.
 */
TEST(jit_users_share_exec_areas)
{
	long before, after, small_before = 0, small_after = 0, private, code;
	struct claim_load w;
	char why[128];
	int loaded;

	if (claim_skip(1, why, sizeof(why)))
		SKIP(return, "%s", why);
	before = claim_exec_areas(NULL, &small_before);
	ASSERT_LE(0, before) TH_LOG("cannot read ptdump or /proc/vmallocinfo");
	loaded = claim_load(&w);
	after = claim_exec_areas(NULL, &small_after);
	private = claim_private_code(&code);
	EXPECT_EQ(0, claim_unload(&w));
	ASSERT_EQ(0, loaded) TH_LOG("workload: %s", strerror(errno));
	ASSERT_LE(0, private) TH_LOG("cannot read /proc/kallsyms or /proc/vmallocinfo");
	printf("# executable vmalloc areas: %ld before, %ld with the workload",
	       before, after);
	printf(" (%ld, %ld below 2 MiB)\n", small_before, small_after);
	printf("# kprobes pages and ftrace trampolines: %ld, %ld in an area of their own\n",
	       code, private);
	EXPECT_GE(small_before, small_after)
		TH_LOG(CLAIM_REFUTED
		       "executable vmalloc areas below 2 MiB: %ld before, %ld with the workload",
		       small_before, small_after);
	/* the huge pages it may add are no private pages of kprobes or ftrace */
	EXPECT_LE(1, code);
	EXPECT_EQ(0, private)
		TH_LOG(CLAIM_REFUTED
		       "%ld of %ld kprobes pages and ftrace trampolines in an area of their own",
		       private, code);
}

#endif /* JITALLOC_CLAIMS_H */
