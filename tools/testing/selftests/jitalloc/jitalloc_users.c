// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc selftests: kprobes, ftrace and BPF.
 *
 * kprobe events, ftrace instances with a filter, BPF programs and
 * subprograms JITed and run, BPF trampolines (fentry/fexit, on a program,
 * struct_ops): each user works on memory from the jit allocator.
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
#include "jitalloc_btf.h"

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
 * The last writers of executable memory, on the kernels that build them
 * (BTF: the debug kernel and arm64-16k; livepatch and its samples: the
 * debug kernel): BPF trampolines, struct_ops trampolines and livepatch.
 * Each must work on module and jit text that is read-only from the start
 * and give back what it took.
 */
/* called by BPF_PROG_TEST_RUN of an fentry/fexit program, as in BPF's tests */
#define TRAMP_FUNC	"bpf_fentry_test1"

#define ARM64_NO_FENTRY	\
	"arm64 attaches fentry/fexit to kernel functions only with ftrace direct calls, " \
	"which this kernel lacks (6.1 has none; 6.12 needs DYNAMIC_FTRACE_WITH_CALL_OPS)"

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

#define MAX_TRAMPS	64

/*
 * The trampoline just attached took bytes of @pool (more than @tbl in
 * use), and kallsyms lists every trampoline image (bpf_trampoline_<key>,
 * [bpf]) in one of the pool's huge pages: not the counters alone.
 * Return the bytes in use now.
 */
static long expect_tramp_in_pool(struct __test_metadata *_metadata,
				 const char *pool, long tbl)
{
	unsigned long addrs[MAX_TRAMPS];
	long tb1 = jt_read_key(pool, bytes_key("bpf_trampoline"));
	int n, i, outside = 0;

	EXPECT_LT(tbl, tb1) TH_LOG("the trampoline took no chunk of the cache");
	n = jt_kallsyms_addrs("bpf_trampoline_", "[bpf]", addrs, MAX_TRAMPS);
	EXPECT_LT(0, n) TH_LOG("no bpf_trampoline_ in /proc/kallsyms");
	for (i = 0; i < n && i < MAX_TRAMPS; i++)
		outside += !in_huge_page(pool, addrs[i]);
	EXPECT_EQ(0, outside) TH_LOG("%d of %d trampolines outside %s",
				     outside, n, pool);
	return tb1;
}

/*
 * fentry and fexit programs on a kernel function: their trampoline runs
 * them on every call while attached and never after, and the text it took is
 * given back (JitText's pages, after the trampoline's RCU-tasks grace).
 * Where programs come from the cache, so do trampolines: their bytes in
 * use (bytes_in_use_bpf_trampoline; on 6.12 execmem counts them with the
 * programs, so the step is read between the loads and the attach) grow
 * when the trampoline is attached and are back when all is closed, and
 * kallsyms lists the image in one of the pool's huge pages.
 */
TEST(bpf_trampolines_fentry_fexit)
{
	long id, before, during, enter, leave, tb0 = 0, tbl = 0, tb1 = 0;
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
	before = wait_key(jt_text_path(), jt_text_key(),
			  settled_key_for(jt_text_path(), jt_text_key(), 10), 1);
	cached = tramp_pool(_metadata, pool, sizeof(pool));
	if (cached)
		tb0 = settled_key_for(pool, bytes_key("bpf_trampoline"), 10);

	progs[0] = btf_prog_load(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, id, 0);
	ASSERT_LE(0, progs[0]) TH_LOG("fentry on %s: %s", TRAMP_FUNC, strerror(errno));
	progs[1] = btf_prog_load(BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, id, 0);
	ASSERT_LE(0, progs[1]) TH_LOG("fexit on %s: %s", TRAMP_FUNC, strerror(errno));
	/* programs of earlier tests are freed after an RCU grace period */
	if (cached)
		tbl = settled_key_for(pool, bytes_key("bpf_trampoline"), 5);
	for (i = 0; i < 2; i++) {
		links[i] = tracing_attach(progs[i]);
#ifdef __aarch64__
		/* the trampoline was built (and given back) before that */
		if (!i && links[0] < 0 && errno == JT_ENOTSUPP) {
			close(progs[0]);
			close(progs[1]);
			jt_write("/proc/sys/kernel/bpf_stats_enabled", "0");
			if (cached)
				ASSERT_EQ(tb0, wait_key(pool, bytes_key("bpf_trampoline"),
							tb0, 40));
			SKIP(return, "%s", ARM64_NO_FENTRY);
		}
#endif
		ASSERT_LE(0, links[i]) TH_LOG("attach: %s", strerror(errno));
	}
	during = jt_read_key(jt_text_path(), jt_text_key());
	if (cached)
		tb1 = expect_tramp_in_pool(_metadata, pool, tbl);
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
	printf("# %s: fentry ran %ld times, fexit %ld; %s %ld, attached %ld; ",
	       TRAMP_FUNC, enter, leave, jt_text_key(), before, during);
	printf("%s %ld, programs loaded %ld, attached %ld\n",
	       bytes_key("bpf_trampoline"), tb0, tbl, tb1);
	EXPECT_EQ(before, wait_key(jt_text_path(), jt_text_key(), before, 40));
	if (cached)
		EXPECT_EQ(tb0, wait_key(pool, bytes_key("bpf_trampoline"), tb0, 40));
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
	long during, after, runs, tb0 = 0, tbl = 0, tb1 = 0;
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
		tb0 = settled_key_for(pool, bytes_key("bpf_trampoline"), 10);
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
	if (cached)
		tbl = settled_key_for(pool, bytes_key("bpf_trampoline"), 5);
	link = tracing_attach(prog);
	ASSERT_LE(0, link) TH_LOG("attach: %s", strerror(errno));
	if (cached)
		tb1 = expect_tramp_in_pool(_metadata, pool, tbl);
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
	printf("%s %ld, programs loaded %ld, attached %ld\n",
	       bytes_key("bpf_trampoline"), tb0, tbl, tb1);
	if (cached)
		EXPECT_EQ(tb0, wait_key(pool, bytes_key("bpf_trampoline"), tb0, 40));
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

TEST_HARNESS_MAIN
