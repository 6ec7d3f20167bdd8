// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc_bench - in-kernel cost of getting and returning executable
 * memory, the way small JIT users do it.
 *
 * Four measurements, each the same calls on stock 6.1 and on the series:
 *
 *  alloc_free_<size>: on a kernel with jitalloc jit_text_alloc_type(
 *	JIT_TYPE_BPF) + jit_free(); with execmem (6.10 on) execmem_alloc(
 *	EXECMEM_BPF) + execmem_free(), and set_memory_ro() + set_memory_x()
 *	between them unless execmem_is_rox() (v2's cache); on stock 6.1
 *	module_alloc() + set_memory_ro()
 *	+ set_memory_x() + vfree() with VM_FLUSH_RESET_PERMS, which is what
 *	bpf_jit_binary_alloc() users (arm64 BPF, classic BPF without packs)
 *	do, but not what stock x86 BPF or kprobes do below a page: the
 *	rows below are the fair ones for those users.
 *  bpf_path_<size>: what the kernel's BPF JIT does per program.  Where
 *	it uses packs (x86, and arm64 with the series): bpf_prog_pack_alloc()
 *	+ writing the header's size with bpf_arch_text_copy() +
 *	bpf_prog_pack_free(), as bpf_jit_binary_pack_alloc/_free do (stock
 *	x86 carves 2 MiB packs, the series the cache).  Stock arm64 BPF
 *	takes pages (bpf_jit_binary_alloc()): the alloc_free path above.
 *  kprobe_slot: __get_insn_slot() + __free_insn_slot() on
 *	kprobe_insn_slots, what each kprobe takes (stock: slots in pages of
 *	module_alloc; the series: chunks of the cache).
 *  call_baseline: the mutex calls of kprobe_slot without the slots.
 *
 * None of these functions is exported to modules, so all are looked up
 * through kallsyms (found with a kprobe), which keeps one source for both
 * kernels.  Results are printed as
 *   ### metric timed <name>_ops_per_sec <n>
 * (the median of BENCH_REPEATS runs, and the slowest run with _min), and
 * the module refuses to stay loaded (-EAGAIN) once it has run.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

/*
 * Under TCG the guest clock may be jiffies (no usable TSC or HPET without
 * ACPI): 4 ms steps at HZ=250.  Run long enough that a step is noise.
 */
static unsigned int iterations = 20000;
module_param(iterations, uint, 0444);
MODULE_PARM_DESC(iterations, "alloc+free pairs per size");

/*
 * The BPF path writes each program's header by text poking (a switch to
 * the poking mm, a TLB flush; under TCG with two CPUs ~7 ms a pair on
 * stock): fewer pairs.
 */
/* the alloc_free rows (repeated boots, harness/bench.sh, skip them) */
static bool alloc_free = true;
module_param(alloc_free, bool, 0444);
MODULE_PARM_DESC(alloc_free, "measure the alloc_free rows");

static unsigned int iterations_poke = 200;
module_param(iterations_poke, uint, 0444);
MODULE_PARM_DESC(iterations_poke, "pairs per size of bpf_path");

/*
 * TCG run-to-run noise is large (2x between repetitions in one boot):
 * each size is measured this many times and the median is the figure.
 */
#define BENCH_REPEATS	5

/* JIT_TYPE_BPF in include/linux/jitalloc.h */
#define BENCH_JIT_TYPE_BPF	5
/* EXECMEM_BPF in include/linux/execmem.h (6.10 to 6.12) */
#define BENCH_EXECMEM_BPF	3

static void *(*jit_text_alloc_type_fn)(int type, size_t len);
static void (*jit_free_fn)(void *buf);
static void *(*module_alloc_fn)(unsigned long size);
static void *(*execmem_alloc_fn)(int type, size_t size);
static void (*execmem_free_fn)(void *ptr);
static bool (*execmem_is_rox_fn)(int type);
static bool execmem_rox;
static int (*set_memory_ro_fn)(unsigned long addr, int numpages);
static int (*set_memory_x_fn)(unsigned long addr, int numpages);
static void (*set_vm_flush_reset_perms_fn)(void *addr);

static unsigned long lookup(const char *name)
{
	static unsigned long (*kallsyms_lookup_name_fn)(const char *name);
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };

	if (!kallsyms_lookup_name_fn) {
		if (register_kprobe(&kp))
			return 0;
		kallsyms_lookup_name_fn = (void *)kp.addr;
		unregister_kprobe(&kp);
	}
	return kallsyms_lookup_name_fn(name);
}

static void *bench_alloc(size_t size)
{
	void *p;

	if (jit_text_alloc_type_fn)
		return jit_text_alloc_type_fn(BENCH_JIT_TYPE_BPF, size);
	if (execmem_alloc_fn && execmem_rox)
		return execmem_alloc_fn(BENCH_EXECMEM_BPF, size);

	p = execmem_alloc_fn ? execmem_alloc_fn(BENCH_EXECMEM_BPF, size) :
			       module_alloc_fn(size);
	if (!p)
		return NULL;
	/* execmem_alloc() maps with VM_FLUSH_RESET_PERMS itself */
	if (!execmem_alloc_fn)
		set_vm_flush_reset_perms_fn(p);
	set_memory_ro_fn((unsigned long)p, PAGE_ALIGN(size) >> PAGE_SHIFT);
	set_memory_x_fn((unsigned long)p, PAGE_ALIGN(size) >> PAGE_SHIFT);
	return p;
}

static void bench_free(void *p)
{
	if (jit_free_fn)
		jit_free_fn(p);
	else if (execmem_free_fn)
		execmem_free_fn(p);
	else
		vfree(p);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* struct bpf_binary_header: its size comes first, then the image */
typedef void (*fill_fn_t)(void *area, unsigned int size);
static void *(*bpf_prog_pack_alloc_fn)(u32 size, fill_fn_t fill, bool was_classic);
static void (*bpf_prog_pack_free_fn)(void *hdr);
/* since 6.4 it takes the image and its size */
static void (*bpf_prog_pack_free_size_fn)(void *ptr, u32 size);

static void pack_free(void *hdr)
{
	if (execmem_alloc_fn)
		bpf_prog_pack_free_size_fn(hdr, *(u32 *)hdr);
	else
		bpf_prog_pack_free_fn(hdr);
}

static void *(*bpf_arch_text_copy_fn)(void *dst, void *src, size_t len);

static void fill_trap(void *area, unsigned int size)
{
#ifdef CONFIG_X86
	memset(area, 0xcc, size);	/* int3 */
#else
	memset(area, 0, size);		/* UDF #0 on arm64 */
#endif
}

static void *pack_alloc(size_t size)
{
	u32 sz = size;
	void *hdr = bpf_prog_pack_alloc_fn(sz, fill_trap, false);

	if (hdr && IS_ERR(bpf_arch_text_copy_fn(hdr, &sz, sizeof(sz)))) {
		pr_err("bpf_arch_text_copy() failed\n");
		return NULL;
	}
	return hdr;
}

static struct kprobe_insn_cache *insn_slots;
static kprobe_opcode_t *(*get_insn_slot_fn)(struct kprobe_insn_cache *c);
static void (*free_insn_slot_fn)(struct kprobe_insn_cache *c,
				 kprobe_opcode_t *slot, int dirty);

static void *slot_alloc(size_t size)
{
	return get_insn_slot_fn(insn_slots);
}

static void slot_free(void *p)
{
	free_insn_slot_fn(insn_slots, p, 0);
}

/*
 * The same calls without the slots: an indirect call and mutex_lock(),
 * another and mutex_unlock(), per get and per put, as
 * __get_insn_slot()/__free_insn_slot() make around their few loads and
 * stores.  Where the kprobe_slot rows of two kernels differ, this row
 * says how much of it is the boot as a whole (under TCG one boot runs up
 * to 2x faster than the next), not the slots.
 */
static DEFINE_MUTEX(bench_mutex);

/* mutex_lock() is a macro with lockdep: called through these */
static void bench_lock(struct mutex *lock)
{
	mutex_lock(lock);
}

static void bench_unlock(struct mutex *lock)
{
	mutex_unlock(lock);
}

static void (*bench_lock_fn)(struct mutex *lock) = bench_lock;
static void (*bench_unlock_fn)(struct mutex *lock) = bench_unlock;

/* READ_ONCE(): loaded each time, so that the calls stay indirect */
static void *call_get(size_t size)
{
	READ_ONCE(bench_lock_fn)(&bench_mutex);
	READ_ONCE(bench_unlock_fn)(&bench_mutex);
	return &bench_mutex;
}

static void call_put(void *p)
{
	READ_ONCE(bench_lock_fn)(p);
	READ_ONCE(bench_unlock_fn)(p);
}

/*
 * @iterations pairs of @get/@put of @size bytes, BENCH_REPEATS times;
 * prints the median and the slowest rate as "<name>_ops_per_sec[_min]".
 */
static int measure(const char *name, void *(*get)(size_t), void (*put)(void *),
		   size_t size, unsigned int iterations)
{
	u64 rate[BENCH_REPEATS], ns;
	unsigned int n, r;

	for (r = 0; r < BENCH_REPEATS; r++) {
		ktime_t t0 = ktime_get();

		for (n = 0; n < iterations; n++) {
			void *p = get(size);

			if (!p) {
				pr_err("%s: allocation of %zu bytes failed\n",
				       name, size);
				return -ENOMEM;
			}
			put(p);
		}
		ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
		rate[r] = div64_u64((u64)iterations * NSEC_PER_SEC, ns ?: 1);
	}
	sort(rate, BENCH_REPEATS, sizeof(rate[0]), cmp_u64, NULL);
	pr_warn("### metric timed %s_ops_per_sec %llu\n", name,
		rate[BENCH_REPEATS / 2]);
	pr_warn("### metric timed %s_ops_per_sec_min %llu\n", name, rate[0]);
	return 0;
}

static int __init jitalloc_bench_init(void)
{
	static const size_t sizes[] = { 64, 256, 1024, 4096 };
	unsigned int i;
	char name[48];
	int ret;

	jit_text_alloc_type_fn = (void *)lookup("jit_text_alloc_type");
	jit_free_fn = (void *)lookup("jit_free");
	if (!jit_text_alloc_type_fn || !jit_free_fn) {
		jit_text_alloc_type_fn = NULL;
		jit_free_fn = NULL;
		execmem_alloc_fn = (void *)lookup("execmem_alloc");
		execmem_free_fn = (void *)lookup("execmem_free");
		execmem_is_rox_fn = (void *)lookup("execmem_is_rox");
		if (!execmem_alloc_fn || !execmem_free_fn) {
			execmem_alloc_fn = NULL;
			execmem_free_fn = NULL;
		}
		execmem_rox = execmem_is_rox_fn &&
			      execmem_is_rox_fn(BENCH_EXECMEM_BPF);
		module_alloc_fn = (void *)lookup("module_alloc");
		set_memory_ro_fn = (void *)lookup("set_memory_ro");
		set_memory_x_fn = (void *)lookup("set_memory_x");
		set_vm_flush_reset_perms_fn = (void *)lookup("set_vm_flush_reset_perms");
		if ((!module_alloc_fn && !execmem_alloc_fn) ||
		    !set_memory_ro_fn || !set_memory_x_fn ||
		    (!execmem_alloc_fn && !set_vm_flush_reset_perms_fn)) {
			pr_err("neither jitalloc nor module_alloc found\n");
			return -ENOENT;
		}
	}
	pr_info("measuring %s\n", jit_free_fn ? "jit_text_alloc_type+jit_free" :
		execmem_rox ? "execmem_alloc+execmem_free (read-only from the start)" :
		execmem_alloc_fn ? "execmem_alloc+set_memory_ro/x+execmem_free" :
		"module_alloc+set_memory_ro/x+vfree");

	for (i = 0; alloc_free && i < ARRAY_SIZE(sizes); i++) {
		snprintf(name, sizeof(name), "alloc_free_%zu", sizes[i]);
		ret = measure(name, bench_alloc, bench_free, sizes[i], iterations);
		if (ret)
			return ret;
	}

	bpf_prog_pack_alloc_fn = (void *)lookup("bpf_prog_pack_alloc");
	bpf_prog_pack_free_fn = (void *)lookup("bpf_prog_pack_free");
	bpf_prog_pack_free_size_fn = (void *)bpf_prog_pack_free_fn;
	bpf_arch_text_copy_fn = (void *)lookup("bpf_arch_text_copy");
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(name, sizeof(name), "bpf_path_%zu", sizes[i]);
		if (!IS_ENABLED(CONFIG_X86) && !jit_free_fn)
			ret = measure(name, bench_alloc, bench_free, sizes[i],
				      iterations_poke);
		else if (bpf_prog_pack_alloc_fn && bpf_prog_pack_free_fn &&
			 bpf_arch_text_copy_fn)
			ret = measure(name, pack_alloc, pack_free,
				      sizes[i], iterations_poke);
		else
			ret = -ENOENT;
		if (ret) {
			pr_err("%s: %d\n", name, ret);
			return ret;
		}
	}

	insn_slots = (void *)lookup("kprobe_insn_slots");
	get_insn_slot_fn = (void *)lookup("__get_insn_slot");
	free_insn_slot_fn = (void *)lookup("__free_insn_slot");
	if (insn_slots && get_insn_slot_fn && free_insn_slot_fn) {
		/*
		 * No text poking here (a clean slot is only marked free):
		 * @iterations pairs, since 200 took under 0.2 ms, within
		 * the noise of one interrupt under TCG.
		 */
		ret = measure("kprobe_slot", slot_alloc, slot_free, 0,
			      iterations);
		if (ret)
			return ret;
	} else {
		pr_warn("no kprobe_insn_slots: kprobe_slot row not measured\n");
	}
	ret = measure("call_baseline", call_get, call_put, 0, iterations);
	if (ret)
		return ret;
	return -EAGAIN;
}

module_init(jitalloc_bench_init);
MODULE_DESCRIPTION("jitalloc allocation bench");
MODULE_LICENSE("GPL");
