// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc_bench - in-kernel cost of getting and returning executable
 * memory, the way small JIT users do it.
 *
 * On a kernel with jitalloc: jit_text_alloc_type(JIT_TYPE_BPF) + jit_free().
 * On stock 6.1: module_alloc() + set_memory_ro() + set_memory_x() +
 * vfree() with VM_FLUSH_RESET_PERMS, as bpf_jit_binary_alloc() users and
 * kprobes do.  Neither set of functions is exported to modules, so both are
 * looked up through kallsyms (found with a kprobe), which keeps one source
 * for both kernels.  Results are printed as
 *   ### metric timed alloc_free_<size>_ops_per_sec <n>
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
 * TCG run-to-run noise is large (2x between repetitions in one boot):
 * each size is measured this many times and the median is the figure.
 */
#define BENCH_REPEATS	5

/* JIT_TYPE_BPF in include/linux/jitalloc.h */
#define BENCH_JIT_TYPE_BPF	5

static void *(*jit_text_alloc_type_fn)(int type, size_t len);
static void (*jit_free_fn)(void *buf);
static void *(*module_alloc_fn)(unsigned long size);
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

	p = module_alloc_fn(size);
	if (!p)
		return NULL;
	set_vm_flush_reset_perms_fn(p);
	set_memory_ro_fn((unsigned long)p, PAGE_ALIGN(size) >> PAGE_SHIFT);
	set_memory_x_fn((unsigned long)p, PAGE_ALIGN(size) >> PAGE_SHIFT);
	return p;
}

static void bench_free(void *p)
{
	if (jit_free_fn)
		jit_free_fn(p);
	else
		vfree(p);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static int __init jitalloc_bench_init(void)
{
	static const size_t sizes[] = { 64, 256, 1024, 4096 };
	unsigned int i, n, r;
	u64 ns;

	jit_text_alloc_type_fn = (void *)lookup("jit_text_alloc_type");
	jit_free_fn = (void *)lookup("jit_free");
	if (!jit_text_alloc_type_fn || !jit_free_fn) {
		jit_text_alloc_type_fn = NULL;
		jit_free_fn = NULL;
		module_alloc_fn = (void *)lookup("module_alloc");
		set_memory_ro_fn = (void *)lookup("set_memory_ro");
		set_memory_x_fn = (void *)lookup("set_memory_x");
		set_vm_flush_reset_perms_fn = (void *)lookup("set_vm_flush_reset_perms");
		if (!module_alloc_fn || !set_memory_ro_fn || !set_memory_x_fn ||
		    !set_vm_flush_reset_perms_fn) {
			pr_err("neither jitalloc nor module_alloc found\n");
			return -ENOENT;
		}
	}
	pr_info("measuring %s\n", jit_free_fn ? "jit_text_alloc_type+jit_free" :
		"module_alloc+set_memory_ro/x+vfree");

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u64 rate[BENCH_REPEATS];

		for (r = 0; r < BENCH_REPEATS; r++) {
			ktime_t t0 = ktime_get();

			for (n = 0; n < iterations; n++) {
				void *p = bench_alloc(sizes[i]);

				if (!p) {
					pr_err("allocation of %zu bytes failed\n",
					       sizes[i]);
					return -ENOMEM;
				}
				bench_free(p);
			}
			ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
			rate[r] = div64_u64((u64)iterations * NSEC_PER_SEC,
					    ns ?: 1);
		}
		sort(rate, BENCH_REPEATS, sizeof(rate[0]), cmp_u64, NULL);
		pr_warn("### metric timed alloc_free_%zu_ops_per_sec %llu\n",
			sizes[i], rate[BENCH_REPEATS / 2]);
		pr_warn("### metric timed alloc_free_%zu_ops_per_sec_min %llu\n",
			sizes[i], rate[0]);
	}
	return -EAGAIN;
}

module_init(jitalloc_bench_init);
MODULE_DESCRIPTION("jitalloc allocation bench");
MODULE_LICENSE("GPL");
