// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc selftests: load/unload churn.
 *
 * Every user loads and unloads at once, with and without injected
 * allocation failures, while a sampler looks for W+X mappings; then no
 * pool holds a page it should not.  Runs last: no workload of any
 * jitalloc selftest made a refused call or left a W+X mapping.
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

#define CHURN_SECONDS	3

/*
 * The churn's kselftest timeout: short enough that a hung churn is
 * reported as a timeout, with the hang detectors' output on the console,
 * before whatever runs the test gives up on the machine.  A longer churn
 * (CHURN_SECONDS raised at build time) needs a larger one.
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
/*
 * jt_execmem(), asked before faults are injected: under them its access()
 * can fail for want of memory and take 6.12 for 6.1
 */
static int churn_execmem;

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
	if (errors >= 0 && jt_read(jt_api_path(), api, sizeof(api)) > 0 &&
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
	int n = 0, fds[16], i, err;
	long r;

	while (churn_continue(end)) {
		for (i = 0; i < 16; i++) {
			fds[i] = jt_bpf_load(i, (n + i) % 24);
			err = fds[i] < 0 ? -errno : 0;
			/*
			 * 6.9 and later answer a failed bpf_prog_alloc() in
			 * BPF_PROG_LOAD with EINVAL (kernel/bpf/syscall.c):
			 * with faults injected, an allocation failure of a
			 * program that loads without them.
			 */
			if (err == -EINVAL && churn_faults && churn_execmem)
				err = -ENOMEM;
			if (err && churn_fatal(err))
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
		/* the caches of a kernel booted with slub_debug=A */
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

#define SOAK_SPARE_PROGS	4096

/*
 * After a soak's churn, with its stress still on, a free huge page goes
 * to the shrinker.  The churn may leave none free (arm64's kprobes+bpf
 * pool keeps the page of kprobes' last slot page in use), so the BPF pool
 * is given one: programs until it maps another huge page, then closed;
 * past its grace period the pool keeps that page as its spare, and memory
 * pressure must take it within a minute.  Returns the BPF pool's
 * shrinker reclaims since then, or -1 if no free page could be made.
 */
static long soak_spare_reclaimed(struct __test_metadata *_metadata)
{
	struct rlimit nofile = { SOAK_SPARE_PROGS + 64, SOAK_SPARE_PROGS + 64 };
	static int fds[SOAK_SPARE_PROGS];
	long pages0, start, shrunk0, now = 0;
	int n = 0, i, fails = 0;
	char pool[512];

	if (cache_pool("bpf", pool, sizeof(pool)) || setrlimit(RLIMIT_NOFILE, &nofile))
		return -1;
	start = settled_key_for(pool, "bytes_in_use_bpf", 12);
	pages0 = jt_read_key(pool, "huge_pages");
	shrunk0 = jt_read_key(pool, "shrinker_reclaims");
	/* under pressure a load may fail for want of memory: try again */
	while (n < SOAK_SPARE_PROGS && fails < 100 &&
	       jt_read_key(pool, "huge_pages") <= pages0) {
		fds[n] = jt_bpf_load(n, 512);
		if (fds[n] < 0) {
			fails++;
			usleep(10000);
			continue;
		}
		fails = 0;
		n++;
	}
	for (i = 0; i < n; i++)
		close(fds[i]);
	if (jt_read_key(pool, "huge_pages") <= pages0)
		return -1;
	/* freed after grace periods, by a work item: 30 s at most */
	EXPECT_EQ(start, wait_key(pool, "bytes_in_use_bpf", start, 300));
	/* the BPF pool's own: not the page blocks', nor another pool's */
	for (i = 0; i < 600; i++) {
		now = jt_read_key(pool, "shrinker_reclaims") - shrunk0;
		if (now > 0)
			break;
		usleep(100000);
	}
	printf("# soak: %d programs made the BPF pool a free huge page; ", n);
	printf("shrinker reclaims %ld after it\n", now);
	return now;
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
 * memory pressure, still on after the churn, when a free huge page of the
 * BPF pool must go to the cache's shrinker (soak_spare_reclaimed()).
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
	long start[CHURN_FILES], refused, reclaims = 0, spare = 0, injected[3];
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
	churn_execmem = jt_execmem();
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
	if (is_soak) {
		reclaims = churn_sum("shrinker_reclaims", "shrinker_reclaims") - reclaims;
		spare = soak_spare_reclaimed(_metadata);
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
	EXPECT_EQ(refused, refused_calls()) TH_LOG("refused calls: %s", jt_api_path());
	if (jt_ptdump_path()) {
		ASSERT_EQ(0, jt_pt_scan(&pt));
		EXPECT_EQ(0, pt.wx_lines)
			TH_LOG("W+X mapping at 0x%lx", pt.wx_first);
	}
	for (i = 0; i < nfiles; i++)
		if (!strstr(paths[i], BLOCKS_FILE))
			check_pool_huge_pages(_metadata, paths[i]);
	if (is_soak) {
		printf("# soak: %d s, shrinker reclaims %ld during the churn ",
		       churn_seconds, reclaims);
		printf("(huge pages and blocks), ");
		printf("high water %ld bytes, %ld block pages\n",
		       churn_sum("high_water_bytes", "no such key"),
		       churn_sum("no such key", "high_water_pages"));
		EXPECT_LE(0, spare)
			TH_LOG("no free huge page could be made for the shrinker under pressure");
		EXPECT_NE(0, spare)
			TH_LOG("a free huge page outlived a minute of memory pressure");
	}
}

TEST(no_wx_mapping_after_users)
{
	struct jt_pt_summary s;

	if (!jt_ptdump_path())
		SKIP(return, NO_PTDUMP);
	ASSERT_EQ(0, jt_pt_scan(&s));
	EXPECT_EQ(0, s.wx_lines) TH_LOG("W+X mapping at 0x%lx", s.wx_first);
}

/* No user's workload made a refused call: see refused_calls_baseline. */
TEST(refused_calls_after_users)
{
	char buf[32];
	long start, alias_errors, now = refused_calls();

	if (jt_read(REFUSED_SAVED, buf, sizeof(buf)) <= 0)
		SKIP(return, "no baseline: jitalloc_modules records it when it runs first");
	start = strtol(buf, NULL, 10);
	ASSERT_LE(0, now);
	EXPECT_EQ(start, now) TH_LOG("refused calls: %s", jt_api_path());
	/*
	 * no page-granular allocation refused for an alias left writable
	 * (6.12: each pool counts its own)
	 */
	alias_errors = jt_execmem() ? churn_sum("alias_errors", "no such key") :
				       jt_read_key(API_PATH, "alias_errors");
	EXPECT_EQ(0, alias_errors);
}

TEST_HARNESS_MAIN
