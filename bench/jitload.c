// SPDX-License-Identifier: GPL-2.0
/*
 * jitload - the jitalloc demo and bench workload, run inside the guest.
 *
 * Creates the users of executable memory the way real users do (BPF
 * programs through bpf(2), kprobe events and ftrace instances through
 * tracefs, module load/unload through finit_module/delete_module), and
 * prints what can be measured honestly without a PMU, before, while
 * loaded and after teardown:
 *
 *   ### metric <phase> <key> <value>
 *
 * keys: exec_translations (leaf page-table entries mapping executable
 * memory, from ptdump), exec_pmd, wx_mappings, direct_map_level2_splits
 * (and _level3_: 1 GiB pages split into 2 MiB ones),
 * directmap4k_kb, jit_vmalloc_bytes (vmallocinfo entries of JIT users),
 * bpf_reserved_bytes (what BPF holds: cache chunks, or stock's packs) against
 * bpf_jited_bytes (what the programs need), ftrace_trampolines, and the
 * timed module load+unload rate, and text_mutex's holds over module load
 * cycles (--mutex-cycles, of --module and of --big-module: see
 * text_mutex_holds()).  When the kernel has
 * /sys/kernel/debug/jitalloc the allocator's own report is printed too.
 *
 * With everything loaded, the exec phase runs every BPF program --exec-rounds
 * times through BPF_PROG_TEST_RUN and counts, where the CPU has a PMU that
 * perf_event_open(2) can use, kernel iTLB read misses and kernel
 * instructions over it (keys itlb_misses, kernel_instructions).  Without a
 * PMU (QEMU TCG) it says so and reports itlb_counted 0.
 *
 * Under QEMU with bench/itlb_model.c loaded, the exec phase, a kprobe-hit
 * loop (--hit-rounds) and an ftrace-traced loop are also windows of that
 * model: jitload prints the executable ranges mapped by large pages and
 * executes a marker instruction before and after each (see itlb_mark()).
 * Without the plugin the markers are NOPs.  --itlb-validate runs only the
 * model's known-answer cases (user-space code of known size and page
 * size), for harness/itlb_check.py.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <sched.h>
#include <getopt.h>
#include <time.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <termios.h>
#include "jitalloc_util.h"

struct opts {
	int bpf, kprobes, ftrace, modules, time_modules, exec_rounds;
	int hit_rounds, itlb_validate, sweep, mutex_cycles;
	const char *module, *bench_module, *bench_args, *big_module;
};

static int failures;

#define fail(fmt, ...) do {						\
	printf("jitload: error: " fmt "\n", ##__VA_ARGS__);		\
	failures++;							\
} while (0)

/* One figure for harness/bench_report.py */
static void report(const char *phase, const char *key, long val)
{
	printf("### %s %s %s %ld\n", "metric", phase, key, val);
}

/* vmallocinfo bytes of areas whose caller names one of @callers. */
static long vmalloc_bytes(const char * const *callers, unsigned int n)
{
	char line[512];
	long total = 0, sz;
	unsigned int i;
	FILE *f = fopen("/proc/vmallocinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %ld", &sz) != 1)
			continue;
		for (i = 0; i < n; i++) {
			if (strstr(line, callers[i])) {
				total += sz;
				break;
			}
		}
	}
	fclose(f);
	return total;
}

/* vmallocinfo bytes whose caller is a JIT user (works on stock too). */
static long jit_vmalloc_bytes(void)
{
	static const char * const callers[] = {
		"jit_", "module_alloc", "bpf_jit", "alloc_insn_page",
		"bpf_prog_pack", "alloc_tramp", "create_trampoline",
	};

	return vmalloc_bytes(callers, ARRAY_SIZE(callers));
}

/*
 * Bytes set aside for BPF programs: the cache's chunks of BPF (its pools'
 * bytes_in_use_bpf), or on stock the packs and pages BPF allocated.
 */
static long bpf_reserved_bytes(void)
{
	static const char * const callers[] = {
		"alloc_new_pack", "bpf_prog_pack", "bpf_jit_binary_alloc",
		"bpf_jit_alloc_exec",
	};
	char path[512];
	struct dirent *d;
	long total = -1, v;
	DIR *dir = opendir(JT_DEBUGFS "/jitalloc");

	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), JT_DEBUGFS "/jitalloc/%s", d->d_name);
		v = d->d_name[0] == '.' ? -1 : jt_read_key(path, "bytes_in_use_bpf");
		if (v >= 0)
			total = (total < 0 ? 0 : total) + v;
	}
	if (dir)
		closedir(dir);
	return total >= 0 ? total : vmalloc_bytes(callers, ARRAY_SIZE(callers));
}

/*
 * Bytes handed out to @n BPF programs, counted alike on both kernels: what
 * bpf_jit_binary_pack_alloc() (x86, and arm64 with the series) asks for,
 * round_up(JITed length + header (8) + 16, 64), or bpf_jit_binary_alloc()
 * (stock arm64), round_up(JITed length + 8 + 128, page).  On the series
 * this is also what its bytes_in_use_bpf counter shows.
 */
static long bpf_handed_bytes(const int *fds, int n)
{
	struct utsname u;
	long unit, total = 0, len;
	int i;

	long extra = 16;

	uname(&u);
	if (strcmp(u.machine, "x86_64") && access(JT_DEBUGFS "/jitalloc", F_OK)) {
		unit = sysconf(_SC_PAGESIZE);
		extra = 128;
	} else {
		unit = 64;
	}
	for (i = 0; i < n; i++) {
		len = jt_bpf_jited_len(fds[i]) + 8 + extra;
		total += (len + unit - 1) / unit * unit;
	}
	return total;
}

static long count_ftrace_trampolines(void)
{
	char line[512];
	long n = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[__builtin__ftrace]"))
			n++;
	fclose(f);
	return n;
}

static void print_jitalloc_debugfs(const char *phase)
{
	char path[512], buf[8192];
	struct dirent *d;
	DIR *dir = opendir(JT_DEBUGFS "/jitalloc");

	if (!dir)
		return;
	printf("### jitalloc report (%s)\n", phase);
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), JT_DEBUGFS "/jitalloc/%s", d->d_name);
		if (jt_read(path, buf, sizeof(buf)) > 0)
			printf("--- %s\n%s", d->d_name, buf);
	}
	closedir(dir);
}

/* The direct map: 2 MiB and 1 GiB pages split so far, its 4 KiB part. */
static void report_direct_map(const char *phase)
{
	report(phase, "direct_map_level2_splits",
	       jt_read_key("/proc/vmstat", "direct_map_level2_splits"));
	report(phase, "direct_map_level3_splits",
	       jt_read_key("/proc/vmstat", "direct_map_level3_splits"));
	report(phase, "directmap4k_kb", jt_read_key("/proc/meminfo", "DirectMap4k"));
}

/*
 * Direct-map splits so far, to tell which phase of the workload made them,
 * and the executable translations and the direct map's 4 KiB part, to
 * tell what one phase (the module cycles, say) cost on its own.
 */
static void mark(const char *phase)
{
	struct jt_pt_summary s;

	report_direct_map(phase);
	if (jt_pt_scan(&s) == 0) {
		report(phase, "exec_translations", s.exec_entries);
		report(phase, "exec_pmd", s.exec_pmd);
	}
}

static void snapshot_quiet(const char *phase)
{
	struct jt_pt_summary s;

	if (jt_pt_scan(&s) == 0) {
		report(phase, "exec_translations", s.exec_entries);
		report(phase, "exec_pmd", s.exec_pmd);
		report(phase, "wx_mappings", s.wx_lines);
		if (s.wx_lines)
			fail("W+X mapping at 0x%lx", s.wx_first);
	} else if (!jt_ptdump_path()) {
		/* production configurations (Debian's) have no PTDUMP_DEBUGFS */
		printf("jitload: no page-table dump (PTDUMP_DEBUGFS off)\n");
	} else {
		fail("cannot read %s", jt_ptdump_path());
	}
	report_direct_map(phase);
	report(phase, "jit_vmalloc_bytes", jit_vmalloc_bytes());
	report(phase, "bpf_reserved_bytes", bpf_reserved_bytes());
	report(phase, "ftrace_trampolines", count_ftrace_trampolines());
}

/* The figures of snapshot_quiet() and jitalloc's own report. */
/*
 * A phase's figures, the raw debugfs files, and with JITLOAD_STAT=CMD set
 * (the demo sets "jitstat") what CMD prints, between markers that
 * harness/run_story.py reads.
 */
static void snapshot(const char *phase)
{
	const char *cmd = getenv("JITLOAD_STAT");

	snapshot_quiet(phase);
	report(phase, "jit_text_kb", jt_read_key("/proc/meminfo", "JitText"));
	report(phase, "vmalloc_used_kb",
	       jt_read_key("/proc/meminfo", "VmallocUsed"));
	print_jitalloc_debugfs(phase);
	if (cmd && *cmd) {
		printf("### jitstat %s begin\n", phase);
		fflush(stdout);
		if (system(cmd))
			printf("jitload: %s failed\n", cmd);
		fflush(stdout);
		printf("### jitstat %s end\n", phase);
	}
}

/* Entry points of a few hot syscalls, or of ones our own workload uses. */
static int hot_syscall(const char *name)
{
	static const char * const hot[] = {
		"read", "write", "open", "close", "bpf", "module", "exit",
		"wait", "nanosleep", "clock",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hot); i++)
		if (strstr(name, hot[i]))
			return 1;
	return 0;
}

static int nsyscall_funcs;

/*
 * Functions to probe and trace: syscall entry points first (plentiful,
 * rarely hot, probe-able on both arches), then, for the kprobes sweep up
 * to 1,000, functions of cold subsystems (firmware and bus code, sysfs).
 * All come from available_filter_functions, so each starts with an ftrace
 * call site and the offsets add_kprobes_from() tries are instruction
 * boundaries.
 */
static int probe_functions(char names[][128], int max)
{
	static const char * const cold[] = {
		"acpi_", "pci_", "of_", "sysfs_", "kernfs_", "rtc_", "crypto_",
		"input_",
	};
	static char buf[2 << 20];
	const char *prefix;
	struct utsname u;
	char *line, *end;
	unsigned int c;
	int n = 0, pass;

	uname(&u);
	prefix = strcmp(u.machine, "x86_64") ? "__arm64_sys_" : "__x64_sys_";
	if (jt_read(JT_TRACEFS "/available_filter_functions", buf, sizeof(buf) - 1) <= 0)
		return 0;
	end = buf + strlen(buf);
	for (pass = 0; pass < 2; pass++) {
		for (line = buf; line < end && n < max; line += strlen(line) + 1) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = 0;
			/* module functions ("name [mod]") and duplicates */
			if (strchr(line, ' ') || strstr(line, "idle"))
				continue;
			if (pass == 0) {
				if (strncmp(line, prefix, strlen(prefix)) || hot_syscall(line))
					continue;
			} else {
				for (c = 0; c < ARRAY_SIZE(cold); c++)
					if (!strncmp(line, cold[c], strlen(cold[c])))
						break;
				if (c == ARRAY_SIZE(cold))
					continue;
			}
			snprintf(names[n++], 128, "%s", line);
		}
		if (pass == 0)
			nsyscall_funcs = n;
	}
	return n;
}

static char funcs[1200][128];
static int nfuncs;

static int kp_next_func;

/*
 * Place @want more kprobes, named k<@first>..., on the next syscall entry
 * points not tried yet; returns how many were placed.
 */
static int add_kprobes_from(int first, int want)
{
	const char *events = JT_TRACEFS "/kprobe_events";
	/*
	 * On x86 a probe on the first byte of an ftrace-able function is
	 * handled by ftrace; probe the instruction after the 5-byte fentry
	 * call so every probe gets an instruction slot, as on arm64.  With
	 * IBT the call follows a 4-byte ENDBR64: the kprobe code refuses +5
	 * (inside the call) and +9 is the next instruction.
	 */
	static const int x86_offs[] = { 5, 9 }, arm64_offs[] = { 0 };
	const int *offs;
	struct utsname u;
	int noffs, k, i, got = 0;
	char cmd[320], path[256];

	uname(&u);
	if (strcmp(u.machine, "x86_64")) {
		offs = arm64_offs;
		noffs = 1;
	} else {
		offs = x86_offs;
		noffs = 2;
	}
	for (i = kp_next_func; i < nfuncs && got < want; i++) {
		for (k = 0; k < noffs; k++) {
			snprintf(cmd, sizeof(cmd), "p:jitload/k%d %.127s+%d\n",
				 first + got, funcs[i], offs[k]);
			if (!jt_append(events, cmd))
				break;
		}
		if (k == noffs)
			continue;
		snprintf(path, sizeof(path), JT_TRACEFS "/events/jitload/k%d/enable",
			 first + got);
		if (jt_write(path, "1")) {
			snprintf(cmd, sizeof(cmd), "-:jitload/k%d\n", first + got);
			jt_append(events, cmd);
			continue;
		}
		got++;
	}
	kp_next_func = i;
	if (got < want)
		fail("only %d of %d kprobes could be placed", got, want);
	return got;
}

static int add_kprobes(int want)
{
	kp_next_func = 0;
	return add_kprobes_from(0, want);
}

static void del_kprobes(int n)
{
	char cmd[64], path[256];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), JT_TRACEFS "/events/jitload/k%d/enable", i);
		jt_write(path, "0");
		snprintf(cmd, sizeof(cmd), "-:jitload/k%d\n", i);
		if (jt_append(JT_TRACEFS "/kprobe_events", cmd))
			fail("could not remove kprobe k%d", i);
	}
}

/* Is @name a function ftrace can trace (a line of available_filter_functions)? */
static int traceable(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	int found = 0;
	FILE *f = fopen(JT_TRACEFS "/available_filter_functions", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, n) && line[n] == '\n';
	if (f)
		fclose(f);
	return found;
}

/*
 * Limit the function tracer of the instance at @dir to @fn.  A name that
 * matches nothing leaves the filter empty, which traces every function,
 * and ftrace says so only when the write ends with a newline: write it so,
 * and read the filter back.
 */
static int set_instance_filter(const char *dir, const char *fn)
{
	char path[256], cmd[160], got[256];

	snprintf(path, sizeof(path), "%s/set_ftrace_filter", dir);
	snprintf(cmd, sizeof(cmd), "%s\n", fn);
	if (jt_write(path, cmd) || jt_read(path, got, sizeof(got)) <= 0 ||
	    strncmp(got, fn, strlen(fn)) || got[strlen(fn)] != '\n') {
		fail("ftrace filter %s in %s did not take", fn, dir);
		return -1;
	}
	return 0;
}

static int add_ftrace(int want)
{
	char path[256];
	int i;

	for (i = 0; i < want && nsyscall_funcs; i++) {
		const char *fn = funcs[(nsyscall_funcs - 1 - i + nsyscall_funcs) % nsyscall_funcs];

		snprintf(path, sizeof(path), JT_TRACEFS "/instances/jitload%d", i);
		if (mkdir(path, 0755)) {
			fail("mkdir %s: %s", path, strerror(errno));
			return i;
		}
		if (set_instance_filter(path, fn)) {
			rmdir(path);
			return i;
		}
		snprintf(path, sizeof(path), JT_TRACEFS "/instances/jitload%d/current_tracer", i);
		if (jt_write(path, "function"))
			fail("function tracer in instance %d", i);
	}
	return i;
}

static void del_ftrace(int n)
{
	char path[256];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), JT_TRACEFS "/instances/jitload%d/current_tracer", i);
		jt_write(path, "nop");
		snprintf(path, sizeof(path), JT_TRACEFS "/instances/jitload%d", i);
		if (rmdir(path))
			fail("rmdir %s: %s", path, strerror(errno));
	}
}

/*
 * Marker instructions of the iTLB model (bench/itlb_model.c): code 0x100 +
 * phase opens a window on this CPU, 0x200 closes it.  Both are NOPs.
 */
/* @code must be a constant: it is part of the instruction */
static __always_inline void itlb_marker(const unsigned int code)
{
#if defined(__x86_64__)
	asm volatile(".byte 0x0f, 0x1f, 0x80\n\t.long %c0"
		     : : "i" (0x4a540000 + code) : "memory");
#elif defined(__aarch64__)
	asm volatile(".inst %c0" : : "i" (0xf2e0001f | ((0xa000 + code) << 5))
		     : "memory");
#endif
}

enum itlb_phase {
	ITLB_BPF = 1,		/* every BPF program, round robin */
	ITLB_KPROBE = 2,	/* syscalls with a kprobe each */
	ITLB_FTRACE = 3,	/* syscalls traced by ftrace instances */
	ITLB_FIT = 10,		/* validation: code that fits the L1 iTLB */
	ITLB_THRASH = 11,	/* validation: 4 KiB pages beyond the L1 */
	ITLB_LARGE = 12,	/* validation: the same code in a 2 MiB page */
	ITLB_SWEEP = 20,	/* + index: BPF runs at each --sweep step */
};

/*
 * The model counts per CPU, from the open marker to the close marker on
 * the same CPU: stay on the CPU the window opens on until it closes.
 */
static cpu_set_t itlb_saved_cpus;

static void itlb_mark(int phase)
{
	cpu_set_t one;

	sched_getaffinity(0, sizeof(itlb_saved_cpus), &itlb_saved_cpus);
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		fail("itlb: cannot stay on one CPU: %s", strerror(errno));
	switch (phase) {
	case ITLB_BPF:
		itlb_marker(0x101);
		break;
	case ITLB_KPROBE:
		itlb_marker(0x102);
		break;
	case ITLB_FTRACE:
		itlb_marker(0x103);
		break;
	case ITLB_FIT:
		itlb_marker(0x10a);
		break;
	case ITLB_THRASH:
		itlb_marker(0x10b);
		break;
	case ITLB_LARGE:
		itlb_marker(0x10c);
		break;
	case ITLB_SWEEP:
		itlb_marker(0x114);
		break;
	case ITLB_SWEEP + 1:
		itlb_marker(0x115);
		break;
	case ITLB_SWEEP + 2:
		itlb_marker(0x116);
		break;
	case ITLB_SWEEP + 3:
		itlb_marker(0x117);
		break;
	case ITLB_SWEEP + 4:
		itlb_marker(0x118);
		break;
	}
}

static void itlb_close(void)
{
	itlb_marker(0x200);
	sched_setaffinity(0, sizeof(itlb_saved_cpus), &itlb_saved_cpus);
}

/*
 * Tell the model which executable ranges large pages map (ptdump), plus
 * @extra (a user range, when @extra_shift), and wait until the console has
 * sent it: the model reads it from the console log when the window opens.
 */
static void itlb_ranges(int phase, unsigned long extra_start,
			unsigned long extra_end, int extra_shift)
{
	const char *path = jt_ptdump_path();
	struct jt_pt_entry e;
	char line[512];
	FILE *f = path ? fopen(path, "r") : NULL;
	int shift;

	printf("### itlb-ranges begin %d\n", phase);
	while (f && fgets(line, sizeof(line), f)) {
		if (!jt_pt_parse(line, &e) || !e.exec)
			continue;
		shift = __builtin_ctzl(e.level_size);
		/* arm64 with 4 KiB pages: 16 contiguous PTEs, one TLB entry */
		if (shift == 12 && strstr(line, " CON "))
			shift = 16;
		if (shift > 12)
			printf("### itlb-range %lx %lx %d\n", e.start, e.end, shift);
	}
	if (f)
		fclose(f);
	if (extra_shift)
		printf("### itlb-range %lx %lx %d\n", extra_start, extra_end,
		       extra_shift);
	printf("### itlb-ranges end %d\n", phase);
	fflush(stdout);
	tcdrain(STDOUT_FILENO);
}

/* Cheap syscalls on both arches, for the kprobe-hit and ftrace loops. */
static const char * const hit_syscalls[] = {
	"getppid", "getuid", "getgid", "geteuid",
	"getegid", "gettid", "getpgid", "getsid",
};

static const long hit_nrs[] = {
	SYS_getppid, SYS_getuid, SYS_getgid, SYS_geteuid,
	SYS_getegid, SYS_gettid, SYS_getpgid, SYS_getsid,
};

static const char *sys_prefix(void)
{
	struct utsname u;

	uname(&u);
	return strcmp(u.machine, "x86_64") ? "__arm64_sys_" : "__x64_sys_";
}

/*
 * Deferred work that could land in a window: the kprobe optimizer (5
 * jiffies, then an RCU-tasks grace period), kprobe slot garbage collection
 * (1 s idle with the series), RCU callbacks freeing JIT text.
 */
#define HIT_SETTLE_SECONDS	3

/* Lines of text file @path, or -1. */
static long count_lines(const char *path)
{
	char line[512];
	long n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

static void hit_loop(enum itlb_phase phase, int rounds)
{
	unsigned int i;
	int r;

	itlb_ranges(phase, 0, 0, 0);
	itlb_mark(phase);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < ARRAY_SIZE(hit_nrs); i++)
			syscall(hit_nrs[i], 0);
	itlb_close();
	report(phase == ITLB_KPROBE ? "kprobe_hits" : "ftrace_hits", "calls",
	       (long)rounds * ARRAY_SIZE(hit_nrs));
}

/* A kprobe inside each hit syscall (a slot each), hit @rounds times. */
static void kprobe_hit_phase(int rounds)
{
	const char *prefix = sys_prefix();
	char cmd[256], path[256];
	unsigned int i, got = 0;
	int off;

	for (i = 0; i < ARRAY_SIZE(hit_syscalls); i++) {
		for (off = strcmp(prefix, "__x64_sys_") ? 0 : 5; off <= 9; off += 4) {
			snprintf(cmd, sizeof(cmd), "p:jithit/h%u %s%s+%d\n", i,
				 prefix, hit_syscalls[i], off);
			if (!jt_append(JT_TRACEFS "/kprobe_events", cmd))
				break;
		}
		snprintf(path, sizeof(path), JT_TRACEFS "/events/jithit/h%u/enable", i);
		if (off > 9 || jt_write(path, "1"))
			fail("kprobe on %s%s", prefix, hit_syscalls[i]);
		else
			got++;
	}
	/*
	 * Let the optimizer turn them into jumps (OPTPROBES) and the work
	 * deferred by earlier phases finish: the window counts every kernel
	 * instruction on its CPU, kworkers' included.
	 */
	sleep(HIT_SETTLE_SECONDS);
	hit_loop(ITLB_KPROBE, rounds);
	report("kprobe_hits", "probes", got);
	for (i = 0; i < ARRAY_SIZE(hit_syscalls); i++) {
		snprintf(path, sizeof(path), JT_TRACEFS "/events/jithit/h%u/enable", i);
		jt_write(path, "0");
		snprintf(cmd, sizeof(cmd), "-:jithit/h%u\n", i);
		jt_append(JT_TRACEFS "/kprobe_events", cmd);
	}
}

/* One ftrace instance per hit syscall (a trampoline each), hit @rounds times. */
static void ftrace_hit_phase(int rounds)
{
	const char *prefix = sys_prefix();
	char path[256], fn[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hit_syscalls); i++) {
		snprintf(path, sizeof(path), JT_TRACEFS "/instances/jithit%u", i);
		if (mkdir(path, 0755)) {
			fail("mkdir %s: %s", path, strerror(errno));
			continue;
		}
		/*
		 * Where the syscall's body is its entry point, kallsyms and so
		 * ftrace know it as __do_sys_<name> (x86 SYSCALL_DEFINE0).
		 */
		snprintf(fn, sizeof(fn), "%s%s", prefix, hit_syscalls[i]);
		if (!traceable(fn))
			snprintf(fn, sizeof(fn), "__do_sys_%s", hit_syscalls[i]);
		if (set_instance_filter(path, fn))
			continue;
		snprintf(path, sizeof(path), JT_TRACEFS "/instances/jithit%u/current_tracer", i);
		if (jt_write(path, "function"))
			fail("function tracer for %s", fn);
	}
	/* the kprobes just removed are unoptimized and freed by deferred work */
	sleep(HIT_SETTLE_SECONDS);
	/* the functions whose calls ftrace diverts now: the workload's own */
	report("ftrace_hits", "traced_functions",
	       count_lines(JT_TRACEFS "/enabled_functions"));
	hit_loop(ITLB_FTRACE, rounds);
	for (i = 0; i < ARRAY_SIZE(hit_syscalls); i++) {
		snprintf(path, sizeof(path), JT_TRACEFS "/instances/jithit%u/current_tracer", i);
		jt_write(path, "nop");
		snprintf(path, sizeof(path), JT_TRACEFS "/instances/jithit%u", i);
		rmdir(path);
	}
}

/*
 * The model's known answers: @pages functions of one return instruction,
 * one per 4 KiB page, called round robin @rounds times.  FIT: 16 pages,
 * which every modelled L1 iTLB holds with room for the kernel code an
 * interrupt runs meanwhile (after the first round, no misses);
 * THRASH: 512 pages, more than any modelled L1 holds, fewer than the
 * second level holds (every call misses the L1, only the first round
 * walks); LARGE: the same 512 pages in one transparent huge page
 * (checked in /proc/self/smaps; without THP the range is only declared
 * 2 MiB to the model and "thp=0" says so).
 * harness/itlb_check.py checks the figures against these answers.
 */
#define THP_ENABLED "/sys/kernel/mm/transparent_hugepage/enabled"

/* kB of anonymous huge pages in the mapping that contains @addr, or -1. */
static long anon_huge_kb(unsigned long addr)
{
	char line[256];
	unsigned long start, end;
	int inside = 0;
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			inside = addr >= start && addr < end;
		else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	if (f)
		fclose(f);
	return kb;
}

static void itlb_validate_case(enum itlb_phase phase, int pages, int rounds)
{
	const size_t psz = 4096, huge = 2UL << 20;
	void (*fn)(void);
	unsigned char *raw, *base;
	char thp_was[64] = "";
	int r, i, thp;

	raw = mmap(NULL, 2 * huge, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED) {
		fail("itlb validate: mmap: %s", strerror(errno));
		return;
	}
	base = (unsigned char *)(((unsigned long)raw + huge - 1) & ~(huge - 1));
	/*
	 * THP for the large case only: system-wide, as the test kernels have
	 * no madvise(2) (tinyconfig leaves ADVISE_SYSCALLS out); restored
	 * below.  Without THP the file is missing and thp says 0.
	 */
	jt_read(THP_ENABLED, thp_was, sizeof(thp_was));
	jt_write(THP_ENABLED, phase == ITLB_LARGE ? "always" : "never");
	memset(base, 0, huge);
	for (i = 0; i < pages; i++) {
#if defined(__x86_64__)
		base[i * psz] = 0xc3;				/* ret */
#elif defined(__aarch64__)
		*(unsigned int *)(base + i * psz) = 0xd65f03c0;	/* ret */
#endif
	}
	__builtin___clear_cache((char *)base, (char *)base + pages * psz);
	if (mprotect(base, huge, PROT_READ | PROT_EXEC)) {
		fail("itlb validate: mprotect: %s", strerror(errno));
		munmap(raw, 2 * huge);
		return;
	}
	thp = anon_huge_kb((unsigned long)base) >= 2048;
	if (strchr(thp_was, '[')) {	/* "always [madvise] never": the one in [] */
		*strchr(strchr(thp_was, '['), ']') = '\0';
		jt_write(THP_ENABLED, strchr(thp_was, '[') + 1);
	}
	itlb_ranges(phase, (unsigned long)base, (unsigned long)base + huge,
		    phase == ITLB_LARGE ? 21 : 0);
	itlb_mark(phase);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < pages; i++) {
			fn = (void (*)(void))(base + i * psz);
			fn();
		}
	itlb_close();
	printf("### itlb-validate phase=%d pages=%d rounds=%d thp=%d\n", phase,
	       pages, rounds, thp);
	munmap(raw, 2 * huge);
}

static int itlb_validate(void)
{
	itlb_validate_case(ITLB_FIT, 16, 50);
	itlb_validate_case(ITLB_THRASH, 512, 50);
	itlb_validate_case(ITLB_LARGE, 512, 50);
	printf("jitload: %s (%d errors)\n", failures ? "FAILED" : "done", failures);
	return failures ? 1 : 0;
}

/* A kernel-only hardware counter of this process, or -1 with errno set. */
static int perf_counter(__u32 type, __u64 config)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_user = 1;
	attr.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
}

/* Stop counter @fd (if it opened), report its count as @key, close it. */
static void perf_report(int fd, const char *key)
{
	__u64 count;

	if (fd < 0)
		return;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) == sizeof(count))
		report("exec", key, (long)count);
	close(fd);
}

/*
 * Run every loaded BPF program @rounds times; count kernel iTLB misses
 * and instructions over it where a PMU allows.
 */
static void exec_phase(const int *fds, int n, int rounds)
{
	int itlb, insns, r, i;
	long runs = 0;

	itlb = perf_counter(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_ITLB |
			    (PERF_COUNT_HW_CACHE_OP_READ << 8) |
			    (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	if (itlb < 0)
		printf("jitload: perf: no iTLB-load-misses counter here (%s); not counted\n",
		       strerror(errno));
	insns = itlb < 0 ? -1 : perf_counter(PERF_TYPE_HARDWARE,
					       PERF_COUNT_HW_INSTRUCTIONS);
	if (itlb >= 0)
		ioctl(itlb, PERF_EVENT_IOC_ENABLE, 0);
	if (insns >= 0)
		ioctl(insns, PERF_EVENT_IOC_ENABLE, 0);
	itlb_ranges(ITLB_BPF, 0, 0, 0);
	itlb_mark(ITLB_BPF);
	for (r = 0; r < rounds; r++)
		for (i = 0; i < n; i++) {
			if (fds[i] < 0)
				continue;
			if (jt_bpf_run(fds[i]) != i) {
				fail("exec: bpf program %d: %s", i, strerror(errno));
				r = rounds;
				break;
			}
			runs++;
		}
	itlb_close();
	report("exec", "bpf_runs", runs);
	report("exec", "itlb_counted", itlb >= 0);
	perf_report(itlb, "itlb_misses");
	perf_report(insns, "kernel_instructions");
}

/* Name of the module in @path: its file name without ".ko". */
static void module_name(const char *path, char *name, size_t size)
{
	const char *base = strrchr(path, '/');

	snprintf(name, size, "%s", base ? base + 1 : path);
	if (strlen(name) > 3 && !strcmp(name + strlen(name) - 3, ".ko"))
		name[strlen(name) - 3] = '\0';
}

static int module_cycle(const char *path)
{
	char name[64];
	int ret = jt_module_load(path, "");

	if (ret)
		return ret;
	module_name(path, name, sizeof(name));
	return jt_module_unload(name);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define TM_INSTANCE	JT_TRACEFS "/instances/jitmutex"

/* Timestamp in microseconds of a trace line's event at @ev, or -1. */
static long long trace_line_us(const char *line, const char *ev)
{
	const char *p = ev;
	unsigned long long sec, usec;

	/* "... 123.456789: lock: ...": back over ": " to the number */
	if (p - line < 3 || p[-1] != ' ' || p[-2] != ':')
		return -1;
	p -= 2;
	while (p > line && p[-1] != ' ')
		p--;
	if (sscanf(p, "%llu.%6llu:", &sec, &usec) != 2)
		return -1;
	return sec * 1000000ULL + usec;
}

/* Task id of a trace line ("comm-PID [CPU] ..."), or -1. */
static int trace_line_pid(const char *line)
{
	const char *p = line;

	while ((p = strstr(p, " [")) &&
	       !(isdigit(p[2]) && isdigit(p[3]) && isdigit(p[4]) && p[5] == ']'))
		p += 2;
	if (!p)
		return -1;
	while (p > line && p[-1] == ' ')
		p--;
	while (p > line && isdigit(p[-1]))
		p--;
	if (p == line || p[-1] != '-' || !isdigit(*p))
		return -1;
	return (int)strtol(p, NULL, 10);
}

/*
 * How long text_mutex is held over @cycles load/unload cycles of @path,
 * measured alike on both kernels: kprobe events on mutex_lock() and
 * mutex_unlock() (mutex_lock_nested() under lockdep), in a trace instance
 * of their own with the global trace clock, filtered on text_mutex's
 * address.  Every task counts, so the work a cycle defers to others
 * (jump label and ftrace updates, the cache's trap refills) is in it; it
 * is waited for before the events stop.  A hold is a task's lock call to
 * its unlock, from the previous unlock if that came later, so waiting is
 * not counted.  Reports, in phase "timed", <key>_text_mutex_holds, _hold_us
 * and _hold_max_us over the cycles, or -1 for each where the probes cannot
 * be placed or the module does not load.
 */
static void text_mutex_holds(const char *path, const char *key, int cycles)
{
	static const char * const lockfns[] = { "mutex_lock", "mutex_lock_nested" };
	static char buf[4 << 20];
	long long holds = -1, total = -1, max = -1, t, start, prev_unlock = 0;
	long long pending[64];
	unsigned long addr = jt_kallsyms_addr(NULL, "text_mutex");
	int pending_pid[64], npending = 0, stale = 0, unmatched = 0;
	int placed = 0, i;
	char cmd[256], name[64], k[96], *line, *next;

	module_name(path, name, sizeof(name));
	if (!addr || access(path, R_OK)) {
		printf("jitload: text_mutex holds of %s not measured: %s\n", name,
		       addr ? "no module file" : "no text_mutex in /proc/kallsyms");
		goto out;
	}
	if (mkdir(TM_INSTANCE, 0755) && errno != EEXIST) {
		printf("jitload: text_mutex holds not measured: mkdir %s: %s\n",
		       TM_INSTANCE, strerror(errno));
		goto out;
	}
	for (i = 0; i < 2 && !placed; i++) {
		snprintf(cmd, sizeof(cmd), "p:jitmutex/lock %s lock=$arg1:u64\n",
			 lockfns[i]);
		placed = !jt_append(JT_TRACEFS "/kprobe_events", cmd);
	}
	if (!placed ||
	    jt_append(JT_TRACEFS "/kprobe_events",
		      "p:jitmutex/unlock mutex_unlock lock=$arg1:u64\n")) {
		printf("jitload: text_mutex holds not measured: %s\n",
		       "no kprobe events on the mutex calls");
		goto remove;
	}
	snprintf(cmd, sizeof(cmd), "lock == %lu", addr);
	if (jt_write(TM_INSTANCE "/trace_clock", "global") ||
	    jt_write(TM_INSTANCE "/events/jitmutex/lock/filter", cmd) ||
	    jt_write(TM_INSTANCE "/events/jitmutex/unlock/filter", cmd) ||
	    jt_write(TM_INSTANCE "/trace", "") ||
	    jt_write(TM_INSTANCE "/events/jitmutex/enable", "1")) {
		printf("jitload: text_mutex holds not measured: %s\n",
		       "the instance's events cannot be set up");
		goto remove;
	}
	for (i = 0; i < cycles; i++) {
		if (jt_module_load(path, "") || jt_module_unload(name)) {
			printf("jitload: text_mutex holds of %s not measured: cycle %d: %s\n",
			       name, i, strerror(errno));
			break;
		}
	}
	sleep(2);	/* deferred frees, refills and jump label updates */
	jt_write(TM_INSTANCE "/events/jitmutex/enable", "0");
	if (i < cycles)
		goto remove;
	if (jt_read(TM_INSTANCE "/trace", buf, sizeof(buf)) < 0) {
		printf("jitload: text_mutex holds not measured: the trace cannot be read\n");
		goto remove;
	}
	holds = 0;
	total = 0;
	max = 0;
	for (line = buf; line && *line; line = next) {
		char *ev;
		int pid, unlock, j;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		ev = strstr(line, ": lock: (");
		unlock = !ev;
		if (unlock)
			ev = strstr(line, ": unlock: (");
		if (*line == '#' || !ev)
			continue;
		t = trace_line_us(line, ev + 2);
		pid = trace_line_pid(line);
		if (t < 0 || pid < 0)
			continue;
		for (j = 0; j < npending && pending_pid[j] != pid; j++)
			;
		if (!unlock) {
			/* a task cannot call for the mutex while holding it */
			stale += j < npending;
			if (j == npending && npending < (int)ARRAY_SIZE(pending))
				npending++;
			pending_pid[j] = pid;
			pending[j] = t;
			continue;
		}
		if (j == npending) {
			unmatched++;	/* taken before the events were on */
			continue;
		}
		start = pending[j] > prev_unlock ? pending[j] : prev_unlock;
		pending[j] = pending[--npending];
		pending_pid[j] = pending_pid[npending];
		holds++;
		total += t - start;
		if (t - start > max)
			max = t - start;
		prev_unlock = t;
	}
	/* the events' own arming and disarming take the mutex once each */
	if (strstr(buf, "LOST") || stale || npending > 1 || unmatched > 1)
		printf("jitload: text_mutex trace of %s: %s%d %s, %d %s\n", name,
		       strstr(buf, "LOST") ? "events lost, " : "",
		       stale + npending, "calls without unlock",
		       unmatched, "unlocks without a call");
remove:
	jt_write(TM_INSTANCE "/events/jitmutex/enable", "0");
	jt_append(JT_TRACEFS "/kprobe_events", "-:jitmutex/lock\n");
	jt_append(JT_TRACEFS "/kprobe_events", "-:jitmutex/unlock\n");
	rmdir(TM_INSTANCE);
out:
	printf("jitload: text_mutex over %d cycles of %s: %lld holds, %lld us, longest %lld us\n",
	       cycles, name, holds, total, max);
	snprintf(k, sizeof(k), "%s_text_mutex_holds", key);
	report("timed", k, holds);
	snprintf(k, sizeof(k), "%s_text_mutex_hold_us", key);
	report("timed", k, total);
	snprintf(k, sizeof(k), "%s_text_mutex_hold_max_us", key);
	report("timed", k, max);
}

/*
 * The scaling sweep: BPF programs loaded in steps up to 10,000, and at
 * each step the page-table and direct-map figures, what BPF holds, the
 * load time per program of the step, and BPF runs (round robin, at least
 * 5,000) as a window of the iTLB model; then kprobes in steps up to
 * 1,000 (one per function probe_functions() found).  Metrics: phase "sweep_bpf_<N>" and
 * "sweep_kprobes_<N>".
 */
static int scaling_sweep(void)
{
	static const int bpf_steps[] = { 100, 300, 1000, 3000, 10000 };
	static const int kp_steps[] = { 10, 30, 100, 300, 1000 };
	struct rlimit nofile = { 16384, 16384 };
	int *fds = calloc(10001, sizeof(*fds));
	struct jt_pt_summary pt;
	long prev;
	int s, n = 0, r, i, rounds, nkp;
	char phase[48];
	double t0;
	long runs;

	if (!fds || setrlimit(RLIMIT_NOFILE, &nofile)) {
		fail("scaling sweep: no room for 10,000 programs: %s", strerror(errno));
		return 1;
	}
	/* stock's default limit on JIT memory is below 10,000 page-sized programs */
	jt_write("/proc/sys/net/core/bpf_jit_limit", "1073741824");
	snapshot("sweep_bpf_0");
	for (s = 0; s < (int)ARRAY_SIZE(bpf_steps); s++) {
		int want = bpf_steps[s], first = n;

		t0 = now();
		for (; n < want; n++) {
			fds[n] = jt_bpf_load(n, n % 16);
			if (fds[n] < 0) {
				fail("scaling sweep: bpf program %d: %s", n, strerror(errno));
				goto out;
			}
		}
		snprintf(phase, sizeof(phase), "sweep_bpf_%d", want);
		report(phase, "load_us_per_prog",
		       (long)((now() - t0) * 1e6 / (n - first)));
		snapshot_quiet(phase);
		rounds = (5000 + n - 1) / n;
		runs = 0;
		itlb_ranges(ITLB_SWEEP + s, 0, 0, 0);
		itlb_mark(ITLB_SWEEP + s);
		for (r = 0; r < rounds; r++)
			for (i = 0; i < n; i++)
				if (jt_bpf_run(fds[i]) == i)
					runs++;
		itlb_close();
		report(phase, "bpf_runs", runs);
		if (runs != (long)rounds * n)
			fail("scaling sweep: %ld of %d bpf runs failed", (long)rounds * n - runs,
			     rounds * n);
		printf("jitload: scaling sweep: %d BPF programs\n", n);
	}
out:
	for (i = 0; i < n; i++)
		close(fds[i]);
	free(fds);
	/* BPF frees are deferred (RCU, then work): wait until they are done */
	for (i = 0, prev = -1; i < 60; i++, prev = pt.exec_entries) {
		sleep(1);
		if (jt_pt_scan(&pt) || pt.exec_entries == prev)
			break;
	}
	snapshot_quiet("sweep_kprobes_0");
	nkp = 0;
	for (s = 0; s < (int)ARRAY_SIZE(kp_steps); s++) {
		int want = kp_steps[s] < nfuncs ? kp_steps[s] : nfuncs;

		nkp += add_kprobes_from(nkp, want - nkp);
		snprintf(phase, sizeof(phase), "sweep_kprobes_%d", kp_steps[s]);
		report(phase, "kprobes", nkp);
		snapshot_quiet(phase);
	}
	del_kprobes(nkp);
	printf("jitload: %s (%d errors)\n", failures ? "FAILED" : "done", failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bpf", required_argument, NULL, 'b' },
		{ "kprobes", required_argument, NULL, 'k' },
		{ "ftrace", required_argument, NULL, 'f' },
		{ "modules", required_argument, NULL, 'm' },
		{ "module", required_argument, NULL, 'M' },
		{ "time-modules", required_argument, NULL, 't' },
		{ "bench-module", required_argument, NULL, 'B' },
		{ "bench-args", required_argument, NULL, 'A' },
		{ "mutex-cycles", required_argument, NULL, 'x' },
		{ "big-module", required_argument, NULL, 'G' },
		{ "exec-rounds", required_argument, NULL, 'e' },
		{ "hit-rounds", required_argument, NULL, 'h' },
		{ "itlb-validate", no_argument, NULL, 'V' },
		{ "sweep", no_argument, NULL, 'S' },
		{ }
	};
	struct opts o = { .module = "/jitalloc/jitalloc_testmod.ko" };
	int c, i, nbpf, nkp, nft, *fds, have_modules;
	char line[128] = "";
	long jited;
	double t0, t;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o.bpf = atoi(optarg);
			break;
		case 'k':
			o.kprobes = atoi(optarg);
			break;
		case 'f':
			o.ftrace = atoi(optarg);
			break;
		case 'm':
			o.modules = atoi(optarg);
			break;
		case 'M':
			o.module = optarg;
			break;
		case 't':
			o.time_modules = atoi(optarg);
			break;
		case 'B':
			o.bench_module = optarg;
			break;
		case 'A':
			o.bench_args = optarg;
			break;
		case 'x':
			o.mutex_cycles = atoi(optarg);
			break;
		case 'G':
			o.big_module = optarg;
			break;
		case 'e':
			o.exec_rounds = atoi(optarg);
			break;
		case 'h':
			o.hit_rounds = atoi(optarg);
			break;
		case 'V':
			o.itlb_validate = 1;
			break;
		case 'S':
			o.sweep = 1;
			break;
		default:
			fprintf(stderr, "usage: jitload [--bpf N] [--kprobes N] [--ftrace N]\n"
				"  [--modules N] [--module KO] [--time-modules N] [--bench-module KO]\n"
				"  [--bench-args PARAMS]\n"
				"  [--mutex-cycles N] [--big-module KO]\n"
				"  [--exec-rounds N] [--hit-rounds N] [--itlb-validate]\n"
				"  [--sweep]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (o.itlb_validate)
		return itlb_validate();
	have_modules = access("/proc/modules", F_OK) == 0;
	nfuncs = probe_functions(funcs, ARRAY_SIZE(funcs));
	if (nfuncs < o.kprobes || nsyscall_funcs < o.ftrace)
		fail("only %d probe-able functions found", nfuncs);
	if (o.sweep)
		return scaling_sweep();

	/*
	 * bench_report.py compares rates only across one clocksource.  x86
	 * boots on tsc-early and moves to tsc once the TSC's calibration is
	 * refined, about a second after the clocksources register; whether
	 * the workload starts before that differs from boot to boot, so wait
	 * for the move (10 s at most) and time every boot on the same clock.
	 */
	for (i = 0; ; i++) {
		if (jt_read("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			    line, sizeof(line)) <= 0)
			fail("no current_clocksource in sysfs");
		if (strcmp(line, "tsc-early\n") || i == 100)
			break;
		usleep(100000);
	}
	printf("### clocksource %s", line);
	snapshot("before");

	fds = calloc(o.bpf + 1, sizeof(*fds));
	for (i = 0; i < o.bpf; i++) {
		fds[i] = jt_bpf_load(i, i % 16);
		if (fds[i] < 0 || jt_bpf_run(fds[i]) != i) {
			fail("bpf program %d: %s", i, strerror(errno));
			break;
		}
	}
	printf("jitload: %d BPF programs loaded and run\n", i);
	nbpf = i;
	for (i = 0, jited = 0; i < nbpf; i++)
		jited += jt_bpf_jited_len(fds[i]);
	report("loaded", "bpf_jited_bytes", jited);
	report("loaded", "bpf_handed_bytes", bpf_handed_bytes(fds, nbpf));
	mark("after_bpf");
	/* what BPF alone made the kernel hold, measured alike on both kernels */
	report("after_bpf", "jit_vmalloc_bytes", jit_vmalloc_bytes());
	nkp = add_kprobes(o.kprobes);
	printf("jitload: %d kprobes enabled\n", nkp);
	mark("after_kprobes");
	nft = add_ftrace(o.ftrace);
	printf("jitload: %d ftrace instances tracing\n", nft);
	mark("after_ftrace");
	if (have_modules) {
		for (i = 0; i < o.modules; i++)
			if (module_cycle(o.module)) {
				fail("module load/unload cycle %d: %s", i, strerror(errno));
				break;
			}
		printf("jitload: %d module load/unload cycles\n", i);
	} else {
		printf("jitload: no module support, module cycles skipped\n");
	}
	mark("after_modules");

	snapshot("loaded");
	if (o.exec_rounds)
		exec_phase(fds, nbpf, o.exec_rounds);
	if (o.hit_rounds) {
		kprobe_hit_phase(o.hit_rounds);
		ftrace_hit_phase(o.hit_rounds);
	}

	for (i = 0; i < o.bpf; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	del_kprobes(nkp);
	del_ftrace(nft);
	sleep(2);	/* BPF and module frees are deferred */
	snapshot("after");

	if (o.time_modules && have_modules) {
		t0 = now();
		for (i = 0; i < o.time_modules; i++)
			if (module_cycle(o.module)) {
				fail("timed module cycle %d: %s", i, strerror(errno));
				break;
			}
		t = now() - t0;
		report("timed", "module_cycles", i);
		report("timed", "module_cycle_us", (long)(t * 1e6 / (i ? i : 1)));
	}
	/* apart from the timed cycles: the probes slow every mutex call */
	if (o.mutex_cycles && have_modules) {
		text_mutex_holds(o.module, "module", o.mutex_cycles);
		if (o.big_module)
			text_mutex_holds(o.big_module, "big_module", o.mutex_cycles);
	}

	/* the bench module prints its figures and refuses to stay loaded */
	if (o.bench_module && have_modules &&
	    jt_module_load(o.bench_module, o.bench_args ?: "") != -EAGAIN)
		fail("bench module %s did not run", o.bench_module);

	printf("jitload: %s (%d errors)\n", failures ? "FAILED" : "done", failures);
	return failures ? 1 : 0;
}
