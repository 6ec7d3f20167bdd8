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
 * of the module's sections.  Its init code does the same with init text,
 * init read-only data and init data (initcheck), and says how its init
 * text is mapped while it runs (init_text).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jump_label.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/vmalloc.h>
/* also built against stock 6.1, which has no jit allocator, and 6.12 */
#if IS_ENABLED(CONFIG_JIT_ALLOC)
#include <linux/jitalloc.h>
#elif IS_ENABLED(CONFIG_EXECMEM_CACHE)
#include <linux/execmem.h>
#endif
#ifdef CONFIG_X86
#include <asm/alternative.h>
#include <asm/cpufeatures.h>
#include <asm/pgtable.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/alternative.h>
#include <asm/cpucaps.h>
#endif

static char selfcheck[32] = "not run";
module_param_string(selfcheck, selfcheck, sizeof(selfcheck), 0444);
static char initcheck[32] = "not run";
module_param_string(initcheck, initcheck, sizeof(initcheck), 0444);
static char init_text[32] = "not run";
module_param_string(init_text, init_text, sizeof(init_text), 0444);

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

/*
 * Replaced by the livepatch test module jitalloc_klp (42), and read
 * through /sys/module/jitalloc_testmod/parameters/patchable.
 */
static noinline int jt_patchable(void)
{
	return 1;
}

static int jt_patchable_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d\n", jt_patchable());
}

static const struct kernel_param_ops jt_patchable_ops = {
	.get = jt_patchable_get,
};
module_param_cb(patchable, &jt_patchable_ops, NULL, 0444);

/*
 * The linear-map alias of a vmalloc address, as the core mm finds it:
 * write the address to "alias_of", read the alias back from it.  The
 * selftests look the alias up in the page-table dump, checking the cache's
 * huge pages without the allocator's own page-table walk.
 */
static unsigned long jt_alias;
static DEFINE_MUTEX(jt_alias_lock);

static int jt_alias_set(const char *val, const struct kernel_param *kp)
{
	unsigned long addr;
	struct page *page;
	int err = kstrtoul(val, 0, &addr);

	if (err)
		return err;
	if (!is_vmalloc_addr((void *)addr) &&
	    (addr < MODULES_VADDR || addr >= MODULES_END))
		return -EINVAL;
	page = vmalloc_to_page((void *)addr);
	if (!page)
		return -ENOENT;
	mutex_lock(&jt_alias_lock);
	jt_alias = (unsigned long)page_address(page) + offset_in_page(addr);
	mutex_unlock(&jt_alias_lock);
	return 0;
}

static int jt_alias_get(char *buf, const struct kernel_param *kp)
{
	unsigned long alias;

	mutex_lock(&jt_alias_lock);
	alias = jt_alias;
	mutex_unlock(&jt_alias_lock);
	return sprintf(buf, "0x%lx\n", alias);
}

static const struct kernel_param_ops jt_alias_ops = {
	.set = jt_alias_set,
	.get = jt_alias_get,
};
module_param_cb(alias_of, &jt_alias_ops, NULL, 0600);

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

/*
 * Init text, read-only data and data, in their own allocations: init text
 * calling init and core text through pointers in init data (relocations
 * against both, an indirect call site in init text), and on x86 an
 * alternative site in init text.
 */
static const char jt_init_rodata[] __initconst = "jitalloc-init-rodata";
static int jt_init_data __initdata = 6;

static noinline int __init jt_init_add(int a, int b)
{
	return a + b + jt_init_data;
}

static int (*jt_init_ops[])(int, int) __initdata = { jt_init_add, jt_mul };

static noinline int __init jt_init_call(int i, int a, int b)
{
	int (*op)(int, int) = jt_init_ops[i];

	OPTIMIZER_HIDE_VAR(op);
	return op(a, b);
}

#ifdef CONFIG_X86
static noinline int __init jt_init_alternatives(void)
{
	int v = 0;

	asm volatile(ALTERNATIVE("", "incl %0", X86_FEATURE_ALWAYS) : "+m" (v));
	asm volatile(ALTERNATIVE("", "addl $2, %0", X86_FEATURE_XENPV) : "+m" (v));
	return v;
}
#else
static int __init jt_init_alternatives(void)
{
	return 1;
}
#endif

static const char * __init jt_init_check(void)
{
	if (jt_init_call(0, 2, 3) != 11 || jt_init_call(1, 2, 3) != 6)
		return "call";
	if (strcmp(jt_init_rodata, "jitalloc-init-rodata"))
		return "rodata";
	jt_init_data++;
	if (jt_init_call(0, 0, 0) != 7)
		return "data";
	if (jt_init_alternatives() != 1)
		return "alternatives";
	/* init text and init data belong to this module */
	if (!jt_owned(jt_init_call) || !jt_owned(&jt_init_data) ||
	    !jt_owned(jt_init_rodata))
		return "lookup";
	return "ok";
}

/*
 * How the init text is mapped while it runs: on x86 its page-table leaf,
 * "rx 2M" for a cache huge page; then "rox" if jitalloc (execmem on
 * 6.12) hands it out read-only and executable from the start, else
 * "plain".
 */
static const char * __init jt_init_text_kind(void)
{
#if IS_ENABLED(CONFIG_JIT_ALLOC)
	if (jit_addr_is_rox(jt_init_call))
		return "rox";
#elif IS_ENABLED(CONFIG_EXECMEM_CACHE)
	/* 6.12: init text is execmem's module text */
	if (execmem_is_rox(EXECMEM_MODULE_TEXT))
		return "rox";
#endif
	return "plain";
}

static void __init jt_init_text_mapping(void)
{
	const char *rox = jt_init_text_kind();
#ifdef CONFIG_X86
	unsigned int level;
	pte_t *pte = lookup_address((unsigned long)jt_init_call, &level);

	if (!pte || !pte_present(*pte)) {
		strscpy(init_text, "unmapped", sizeof(init_text));
		return;
	}
	snprintf(init_text, sizeof(init_text), "%c%c %s %s",
		 pte_write(*pte) ? 'w' : 'r', pte_exec(*pte) ? 'x' : '-',
		 level == PG_LEVEL_2M ? "2M" :
		 level == PG_LEVEL_4K ? "4K" : "other", rox);
#else
	strscpy(init_text, rox, sizeof(init_text));
#endif
}

/*
 * A module whose relocated, patched text does not run as compiled must not
 * load: the failure is printed, for whoever watches the console, and the
 * load fails, so no test can take a broken module for a loaded one.
 */
static int __init jitalloc_testmod_init(void)
{
	strscpy(selfcheck, jt_check(), sizeof(selfcheck));
	if (strcmp(selfcheck, "ok")) {
		pr_err("self check failed: %s\n", selfcheck);
		return -EINVAL;
	}
	strscpy(initcheck, jt_init_check(), sizeof(initcheck));
	if (strcmp(initcheck, "ok")) {
		pr_err("init self check failed: %s\n", initcheck);
		return -EINVAL;
	}
	jt_init_text_mapping();
	return 0;
}

static void __exit jitalloc_testmod_exit(void)
{
}

module_init(jitalloc_testmod_init);
module_exit(jitalloc_testmod_exit);
MODULE_DESCRIPTION("jitalloc test module");
MODULE_LICENSE("GPL");
#if IS_ENABLED(CONFIG_JIT_ALLOC)
MODULE_IMPORT_NS(JITALLOC_TEST);
#endif
