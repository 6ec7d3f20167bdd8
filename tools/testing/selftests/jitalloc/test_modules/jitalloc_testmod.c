// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc_testmod - a module whose layout exercises the module loader's
 * use of jitalloc: code calling through relocated function pointers (an
 * indirect call: a retpoline site where retpolines are on), a static key,
 * x86 or arm64 alternatives, read-only data, __ro_after_init data and
 * writable data.
 *
 * On load it checks that all of them work and publishes the result in
 * /sys/module/jitalloc_testmod/parameters/selfcheck ("ok" or the first
 * failure); the selftest reads that file and the page-table protections
 * of the module's sections.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#ifdef CONFIG_X86
#include <asm/alternative.h>
#include <asm/cpufeatures.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/alternative.h>
#include <asm/cpucaps.h>
#endif

static char selfcheck[32] = "not run";
module_param_string(selfcheck, selfcheck, sizeof(selfcheck), 0444);

static const char jt_rodata[] = "jitalloc-testmod-rodata";
static int jt_data = 41;
static int jt_ro_after_init __ro_after_init;
static DEFINE_STATIC_KEY_FALSE(jt_key);

static noinline int jt_add(int a, int b)
{
	return a + b;
}

static noinline int jt_mul(int a, int b)
{
	return a * b;
}

/* Function pointers in data need relocations against module text. */
static int (*jt_ops[])(int, int) = { jt_add, jt_mul };

/*
 * An indirect call and returns in core text: with retpolines and return
 * thunks these are .retpoline_sites and .return_sites the loader patches.
 */
static noinline int jt_call(int i, int a, int b)
{
	int (*op)(int, int) = jt_ops[i];

	OPTIMIZER_HIDE_VAR(op);
	return op(a, b);
}

static noinline int jt_keyed(void)
{
	if (static_branch_unlikely(&jt_key))
		return 2;
	return 1;
}

#ifdef CONFIG_X86
/*
 * Alternative sites the loader patches once the text is in its final,
 * possibly read-only place: one replaced (X86_FEATURE_ALWAYS), one left
 * as its NOP padding (no Xen PV guest here), which is optimized in place.
 */
static noinline int jt_alternatives(void)
{
	int v = 0;

	asm volatile(ALTERNATIVE("", "incl %0", X86_FEATURE_ALWAYS) : "+m" (v));
	asm volatile(ALTERNATIVE("", "addl $2, %0", X86_FEATURE_XENPV) : "+m" (v));
	return v;
}
#elif defined(CONFIG_ARM64)
/*
 * Alternative sites the loader patches while the text is in its writable
 * copy: both replaced (ARM64_ALWAYS_SYSTEM), the second with an ADRP that
 * the loader relocates where the replacement is (.text, subsection 1: core
 * text, in the copy too) and then moves to the site, so both steps must
 * compute with the final addresses.
 */
static noinline int jt_alternatives(void)
{
	unsigned long page;
	int v = 0;

	asm volatile(ALTERNATIVE("nop", "add %w0, %w0, #1", ARM64_ALWAYS_SYSTEM)
		     : "+r" (v));
	asm volatile(ALTERNATIVE("mov %0, xzr", "adrp %0, %1", ARM64_ALWAYS_SYSTEM)
		     : "=r" (page) : "S" (jt_rodata));
	if (page != ((unsigned long)jt_rodata & ~0xfffUL))
		return -1;
	return v;
}
#else
static int jt_alternatives(void)
{
	return 1;
}
#endif

/*
 * Does the kernel's module lookup (__module_address(): jump labels,
 * kallsyms, lockdep's static keys) find this module at @p?  Asked through
 * kallsyms, which names the module only when the lookup finds it.  (No
 * kprobe on kallsyms_lookup_name() here: the fault-injection churn loads
 * this module with failing allocations, and stock 6.1 WARNs when a
 * kprobe-ftrace cannot be disarmed for lack of memory.)
 */
static bool jt_owned(const void *p)
{
	char buf[KSYM_SYMBOL_LEN];

	sprint_symbol(buf, (unsigned long)p);
	return strstr(buf, "[" KBUILD_MODNAME "]");
}

static const char *jt_check(void)
{
	if (jt_call(0, 2, 3) != 5 || jt_call(1, 2, 3) != 6)
		return "call";
	if (jt_rodata[0] != 'j' || strlen(jt_rodata) != 23)
		return "rodata";
	jt_data++;
	if (jt_data != 42)
		return "data";
	jt_ro_after_init = 7;
	if (jt_alternatives() != 1)
		return "alternatives";
	/* text, rodata and data each belong to this module */
	if (!jt_owned(jt_call) || !jt_owned(jt_rodata) || !jt_owned(&jt_data) ||
	    !jt_owned(&jt_key))
		return "lookup";
	if (jt_keyed() != 1)
		return "key-off";
	static_branch_enable(&jt_key);
	if (jt_keyed() != 2)
		return "key-on";
	static_branch_disable(&jt_key);
	return "ok";
}

static int __init jitalloc_testmod_init(void)
{
	strscpy(selfcheck, jt_check(), sizeof(selfcheck));
	if (strcmp(selfcheck, "ok"))
		pr_err("self check failed: %s\n", selfcheck);
	return 0;
}

static void __exit jitalloc_testmod_exit(void)
{
}

module_init(jitalloc_testmod_init);
module_exit(jitalloc_testmod_exit);
MODULE_DESCRIPTION("jitalloc test module");
MODULE_LICENSE("GPL");
