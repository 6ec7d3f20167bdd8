/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the jitalloc selftest and the bench workload: page
 * table dumps, tracefs, raw bpf(2) and module loading.  Everything here
 * talks to the kernel through its stable user interfaces only.
 */
#ifndef JITALLOC_UTIL_H
#define JITALLOC_UTIL_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * The harness kills a test after 30 s.  On a KASAN kernel under QEMU TCG
 * on a busy host, loading the claims' workload alone can take that long;
 * a killed test also leaves its kprobe and trace instances behind.
 */
#ifdef TEST_TIMEOUT_DEFAULT
#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300
#endif

/*
 * Whether the running test has failed no check so far: kselftest_harness.h
 * keeps that in ->passed up to 6.8 and in ->exit_code since (6.9 added
 * XFAIL_ADD with it).
 */
#ifdef XFAIL_ADD
#define jt_test_passed(m)	__test_passed(m)
#else
#define jt_test_passed(m)	((m)->passed)
#endif

#define JT_DEBUGFS	"/sys/kernel/debug"
#define JT_TRACEFS	"/sys/kernel/tracing"
#define TESTMOD_NAME	"jitalloc_testmod"

/* A function the tests probe and trace, and how user space makes it run. */
#define PROBE_FUNC	"do_filp_open"

static inline void open_something(void)
{
	int fd = open("/proc/self/stat", O_RDONLY);

	if (fd >= 0)
		close(fd);
}

static const char * const jt_ptdump_files[] = {
	JT_DEBUGFS "/page_tables/kernel",	/* x86 */
	JT_DEBUGFS "/kernel_page_tables",	/* arm64 */
};

static inline const char *jt_ptdump_path(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(jt_ptdump_files); i++)
		if (access(jt_ptdump_files[i], R_OK) == 0)
			return jt_ptdump_files[i];
	return NULL;
}

/* One leaf line of a ptdump file. */
struct jt_pt_entry {
	unsigned long start, end;
	unsigned long level_size;	/* bytes one entry at this level maps */
	int writable, exec;
	int not_global;		/* arm64 "NG": not in the TLB across ASIDs */
	int guarded;		/* arm64 "GP": BTI guarded page */
};

/*
 * Parse one ptdump line.  x86:
 *   0xffffffffc0000000-0xffffffffc0002000    8K   ro   x  pte
 * arm64:
 *   0xffff800008000000-0xffff800008010000   64K PTE   ro x  SHD AF ...
 * Returns 1 for a present leaf mapping, 0 for anything else.
 */
static inline int jt_pt_parse(const char *line, struct jt_pt_entry *e)
{
	char tok[64];
	const char *p;
	int n, have_perm = 0;

	if (sscanf(line, "0x%lx-0x%lx%n", &e->start, &e->end, &n) != 2)
		return 0;
	e->level_size = 0;
	e->writable = 0;
	e->exec = 0;
	e->not_global = 0;
	e->guarded = 0;
	for (p = line + n; sscanf(p, "%63s%n", tok, &n) == 1; p += n) {
		if (!strcmp(tok, "RW") || !strcmp(tok, "ro")) {
			e->writable = tok[0] == 'R';
			have_perm = 1;
		} else if (!strcmp(tok, "x")) {
			e->exec = 1;
		} else if (!strcmp(tok, "NG")) {
			e->not_global = 1;
		} else if (!strcmp(tok, "GP")) {
			e->guarded = 1;
		} else if (!strcasecmp(tok, "pte")) {
			e->level_size = 4096;
		} else if (!strcasecmp(tok, "pmd")) {
			e->level_size = 2UL << 20;
		} else if (!strcasecmp(tok, "pud")) {
			e->level_size = 1UL << 30;
		}
	}
	/* arm64 prints the level before the size-less "PGD" etc. */
	if (!have_perm || !e->level_size)
		return 0;
	return 1;
}

/* Totals over every present leaf of the kernel page tables. */
struct jt_pt_summary {
	long exec_entries;	/* translations mapping executable memory */
	long exec_pmd;		/* ... of which PMD-level */
	long wx_lines;		/* mappings both writable and executable */
	unsigned long wx_first;	/* start of the first W+X mapping */
};

static inline int jt_pt_scan(struct jt_pt_summary *s)
{
	const char *path = jt_ptdump_path();
	struct jt_pt_entry e;
	char line[512];
	FILE *f;

	memset(s, 0, sizeof(*s));
	if (!path)
		return -ENOENT;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!jt_pt_parse(line, &e) || !e.exec)
			continue;
		s->exec_entries += (e.end - e.start) / e.level_size;
		if (e.level_size == (2UL << 20))
			s->exec_pmd += (e.end - e.start) / e.level_size;
		if (e.writable && !s->wx_lines++)
			s->wx_first = e.start;
	}
	fclose(f);
	return 0;
}

/* The leaf mapping that covers @addr, or -ENOENT. */
static inline int jt_pt_lookup(unsigned long addr, struct jt_pt_entry *out)
{
	const char *path = jt_ptdump_path();
	char line[512];
	int ret = -ENOENT;
	FILE *f;

	if (!path)
		return -ENOENT;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (jt_pt_parse(line, out) && addr >= out->start && addr < out->end) {
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static inline int jt_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t len = strlen(val), n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	close(fd);
	return n == len ? 0 : (n < 0 ? -errno : -EIO);
}

static inline int jt_append(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	ssize_t len = strlen(val), n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	close(fd);
	return n == len ? 0 : (n < 0 ? -errno : -EIO);
}

/* Read a whole small file into @buf; returns its length or -errno. */
static inline long jt_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t total = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (total + 1 < size && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

/* Value of the line "key N" in text @buf, or -1. */
static inline long jt_key_in(const char *buf, const char *key)
{
	size_t len = strlen(key);
	const char *p;

	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ' ')
			return strtol(p + len + 1, NULL, 10);
	return -1;
}

/* Value of "key N" or "key: N kB" in a file such as /proc/vmstat. */
static inline long jt_read_key(const char *path, const char *key)
{
	char line[256], name[128];
	long val = -1, v;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127[^: ]%*[: ]%ld", name, &v) == 2 && !strcmp(name, key)) {
			val = v;
			break;
		}
	}
	fclose(f);
	return val;
}

static inline long jt_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/*
 * Load a socket filter "r0 = @ret; r0 += @pad_len x 1 ...; exit", padded so
 * programs of different sizes can be had; JIT is always on in our configs.
 */
static inline int jt_bpf_load(int ret, int pad)
{
	struct bpf_insn insns[1 + 512 + 1];
	union bpf_attr attr;
	int i, n = 0;

	if (pad > 512)
		pad = 512;
	insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K,
					.dst_reg = BPF_REG_0, .imm = ret - pad };
	for (i = 0; i < pad; i++)
		insns[n++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K,
						.dst_reg = BPF_REG_0, .imm = 1 };
	insns[n++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = n;
	attr.license = (unsigned long)"GPL";
	return jt_bpf(BPF_PROG_LOAD, &attr);
}

/* Bytes of JITed code behind @fd, or -errno. */
/*
 * A program whose main function returns what its subprogram returns,
 * @ret: JITed in two passes with the final image address known only at the
 * end (bpf-to-bpf calls), which JITs that write into a buffer and copy it
 * into place must get right.
 */
static inline int jt_bpf_load_subprog(int ret)
{
	struct bpf_insn insns[] = {
		/* call the subprogram two instructions further on */
		{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = 2 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = ret },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (unsigned long)insns;
	attr.insn_cnt = ARRAY_SIZE(insns);
	attr.license = (unsigned long)"GPL";
	return jt_bpf(BPF_PROG_LOAD, &attr);
}

/* The kernel's bpf_prog_info of program @fd: 0, or -errno. */
static inline int jt_bpf_prog_info(int fd, struct bpf_prog_info *info)
{
	union bpf_attr attr;

	memset(info, 0, sizeof(*info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(*info);
	attr.info.info = (unsigned long)info;
	return jt_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) ? -errno : 0;
}

/* The first JITed image of program @fd, from bpf_prog_info, or 0. */
static inline unsigned long jt_bpf_prog_addr(int fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;
	__u64 ksym = 0;

	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = 1;
	info.jited_ksyms = (unsigned long)&ksym;
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	if (jt_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr))
		return 0;
	return ksym;
}

static inline long jt_bpf_jited_len(int fd)
{
	struct bpf_prog_info info;
	int err = jt_bpf_prog_info(fd, &info);

	return err ? err : info.jited_prog_len;
}

/* Run the program once on a dummy packet; returns its return value. */
static inline long jt_bpf_run(int fd)
{
	unsigned char pkt[64] = { 0 };
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.test.prog_fd = fd;
	attr.test.data_in = (unsigned long)pkt;
	attr.test.data_size_in = sizeof(pkt);
	attr.test.repeat = 1;
	if (jt_bpf(BPF_PROG_TEST_RUN, &attr))
		return -errno;
	return attr.test.retval;
}

/*
 * Address of symbol @name in /proc/kallsyms, of module @mod (its "[mod]"
 * column), or of the kernel itself when @mod is NULL; 0 if there is none.
 */
static inline unsigned long jt_kallsyms_addr(const char *mod, const char *name)
{
	char line[512], sym[256], owner[128];
	unsigned long addr, ret = 0;
	FILE *f = fopen("/proc/kallsyms", "r");
	char type;
	int n;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		n = sscanf(line, "%lx %c %255s [%127[^]]]", &addr, &type, sym,
			   owner);
		if (n >= 3 && !strcmp(sym, name) &&
		    (mod ? n == 4 && !strcmp(owner, mod) : n == 3)) {
			ret = addr;
			break;
		}
	}
	fclose(f);
	return ret;
}

/*
 * The symbols /proc/kallsyms lists in module @mod ("[bpf]",
 * "[__builtin__kprobes]") whose names start with @prefix: how many there
 * are, the addresses of the first @max in @addrs; -1 if it cannot be read.
 */
static inline int jt_kallsyms_addrs(const char *prefix, const char *mod,
				    unsigned long *addrs, int max)
{
	char line[256], name[128], m[64];
	unsigned long addr;
	int n = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, mod) ||
		    sscanf(line, "%lx %*s %127s %63s", &addr, name, m) != 3 ||
		    strcmp(m, mod) || strncmp(name, prefix, strlen(prefix)))
			continue;
		if (n < max)
			addrs[n] = addr;
		n++;
	}
	fclose(f);
	return n;
}

static inline const char *jt_testmod_path(void)
{
	const char *p = getenv("JITALLOC_TESTMOD");

	return p ? p : "./ko/" TESTMOD_NAME ".ko";
}

/* Address of module @mod's section @name (/sys/module), or 0. */
static inline unsigned long mod_section_addr(const char *mod, const char *name)
{
	char path[256], buf[64];

	snprintf(path, sizeof(path), "/sys/module/%s/sections/%s", mod, name);
	if (jt_read(path, buf, sizeof(buf)) <= 0)
		return 0;
	return strtoul(buf, NULL, 16);
}

/*
 * A pool's or the page blocks' statistics file in debugfs jitalloc/, as
 * opposed to "api" and the fault-injection directories.
 */
static inline int stats_file(const struct dirent *d)
{
	return d->d_type == DT_REG && d->d_name[0] != '.' &&
	       strcmp(d->d_name, "api") && strcmp(d->d_name, "execmem");
}

/* execmem's own counts, on the 6.12 series (v2) */
#define EXECMEM_PATH	JT_DEBUGFS "/jitalloc/execmem"

/* Is this the 6.12 series, the cache as an execmem backend? */
static inline int jt_execmem(void)
{
	return !access(EXECMEM_PATH, F_OK);
}

/*
 * The cache user that allocates for @user: on 6.12 module init text and
 * x86 ITS thunk pages are execmem's module text ("modules"), and BPF
 * trampolines are BPF's ("bpf"): execmem has no type of its own for them.
 */
static inline const char *cache_user(const char *user)
{
	if (!jt_execmem())
		return user;
	if (!strcmp(user, "module_init") || !strcmp(user, "its"))
		return "modules";
	if (!strcmp(user, "bpf_trampoline"))
		return "bpf";
	return user;
}

/* Whether @user's bytes are counted with another user's (cache_user()). */
static inline int cache_user_shared(const char *user)
{
	return strcmp(cache_user(user), user) != 0;
}

/* The pools' "bytes_in_use_" key of @user, in a static buffer. */
static inline const char *bytes_key(const char *user)
{
	static char key[64];

	snprintf(key, sizeof(key), "bytes_in_use_%s", cache_user(user));
	return key;
}

/*
 * Was the cache switched off at boot ("jitalloc_cache=off")?  Its pools
 * then say "enabled 0", take no huge page and serve nothing.
 */
static inline int cache_switched_off(void)
{
	const char *dir = JT_DEBUGFS "/jitalloc";
	struct dirent *d;
	DIR *dp = opendir(dir);
	int off = 0;

	if (!dp)
		return 0;
	while (!off && (d = readdir(dp))) {
		char path[512];

		if (!stats_file(d))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		off = jt_read_key(path, "enabled") == 0;
	}
	closedir(dp);
	return off;
}

#define CACHE_OFF_WHY	"the cache is off (jitalloc_cache=off)"

/* Why a test that needs a pool skips: @why, unless the cache is off. */
static inline const char *no_pool_why(const char *why)
{
	return cache_switched_off() ? CACHE_OFF_WHY : why;
}

/* The debugfs file of the pool for @user's types, on or off, if any. */
static inline int pool_file(const char *user, char *path, size_t size)
{
	const char *dir = JT_DEBUGFS "/jitalloc";
	struct dirent *d;
	DIR *dp = opendir(dir);
	int ret = -1;

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		/* pools only: not the page blocks */
		if (stats_file(d) && strcmp(d->d_name, "page_blocks") &&
		    strstr(d->d_name, cache_user(user))) {
			snprintf(path, size, "%s/%s", dir, d->d_name);
			ret = 0;
			break;
		}
	}
	closedir(dp);
	return ret;
}

/*
 * The debugfs file of the cache pool that serves @user, if any: none when
 * the cache is off.
 */
static inline int cache_pool(const char *user, char *path, size_t size)
{
	if (cache_switched_off())
		return -1;
	return pool_file(user, path, size);
}

#define MAX_HUGE_PAGES	64

/*
 * The huge pages pool file @path lists in huge_page_addrs, stored in
 * @addrs: their number, or -1 if the file cannot be read, has no such line
 * or lists more than MAX_HUGE_PAGES.
 */
static inline int huge_page_addrs(const char *path, unsigned long *addrs)
{
	static char buf[1 << 14];
	char *line, *tok, *save;
	int n = 0;

	if (jt_read(path, buf, sizeof(buf)) <= 0)
		return -1;
	line = strstr(buf, "huge_page_addrs");
	if (!line)
		return -1;
	line = strtok_r(line, "\n", &save);
	for (tok = strtok_r(line + strlen("huge_page_addrs"), " ", &save);
	     tok; tok = strtok_r(NULL, " ", &save)) {
		if (n == MAX_HUGE_PAGES)
			return -1;	/* more than the caller can check */
		addrs[n++] = strtoul(tok, NULL, 16);
	}
	return n;
}

/* Is @addr inside one of the huge pages listed in pool file @path? */
static inline int in_huge_page(const char *path, unsigned long addr)
{
	unsigned long pages[MAX_HUGE_PAGES];
	int i, n = huge_page_addrs(path, pages);

	for (i = 0; i < n; i++)
		if (addr >= pages[i] && addr < pages[i] + (2UL << 20))
			return 1;
	return 0;
}

/*
 * A kprobe event "jitalloc_test/@event" on kernel function @func, enabled:
 * counting calls independently of what the code under test counts itself.
 */
static inline int jt_probe_add(const char *event, const char *func)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "p:jitalloc_test/%s %s\n", event, func);
	if (jt_append(JT_TRACEFS "/kprobe_events", buf))
		return -1;
	snprintf(buf, sizeof(buf), JT_TRACEFS "/events/jitalloc_test/%s/enable",
		 event);
	return jt_write(buf, "1");
}

/* Hits of the kprobe event @event so far (kprobe_profile), or -1. */
static inline long jt_probe_hits(const char *event)
{
	static char buf[1 << 14];
	char name[128];
	const char *line;
	long hits;

	if (jt_read(JT_TRACEFS "/kprobe_profile", buf, sizeof(buf)) <= 0)
		return -1;
	for (line = buf; line && *line; line = strchr(line, '\n')) {
		line += *line == '\n';
		if (sscanf(line, "%127s %ld", name, &hits) == 2 &&
		    !strcmp(name, event))
			return hits;
	}
	return -1;
}

static inline void jt_probe_del(const char *event)
{
	char buf[256];

	snprintf(buf, sizeof(buf), JT_TRACEFS "/events/jitalloc_test/%s/enable",
		 event);
	jt_write(buf, "0");
	snprintf(buf, sizeof(buf), "-:jitalloc_test/%s\n", event);
	jt_append(JT_TRACEFS "/kprobe_events", buf);
}

static inline int jt_module_load(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = syscall(__NR_finit_module, fd, params, 0);
	if (ret)
		ret = -errno;
	close(fd);
	return ret;
}

static inline int jt_module_unload(const char *name)
{
	return syscall(__NR_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

#endif /* JITALLOC_UTIL_H */
