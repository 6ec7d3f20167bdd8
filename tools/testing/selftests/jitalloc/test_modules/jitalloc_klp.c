// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc_klp - a livepatch for jitalloc_testmod whose text holds a klp
 * relocation: an 8-byte slot that a .klp.rela section relocates against
 * jt_add() of jitalloc_testmod.  Livepatch applies that relocation when
 * jitalloc_testmod comes, after this module's text was written read-only
 * and executable, so x86 apply_relocate_add() must write it by text
 * poking.  The slot is an ordinary relocation after the build;
 * klp_fixup.py, which the selftest's Makefile runs on the built module,
 * turns it into the .klp.rela section and .klp.sym symbol that
 * klp-convert would make, which 6.1 does not have.
 *
 * It also replaces jt_patchable() of jitalloc_testmod: 42 instead of 1.
 * /sys/module/jitalloc_klp/parameters/site reads the slot (0 until the
 * relocation is applied) and site_text says whether the slot is read-only
 * executable text (6.12 x86: as the page tables map it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

/* 6.1: the jit allocator; 6.12: execmem's cache */
#if IS_ENABLED(CONFIG_JIT_ALLOC)
#include <linux/jitalloc.h>
#else
#include <linux/execmem.h>
#endif
#include <linux/kernel.h>
#include <linux/livepatch.h>
#ifdef CONFIG_X86
#include <asm/pgtable.h>
#endif
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "jitalloc_klp.h"

#define JT_KLP_SYM "\".klp.sym.jitalloc_testmod.jt_add,0\""

/* The slot, in text; the symbol it is relocated against is defined after it. */
asm(".pushsection .text.jt_klp_site, \"ax\"\n"
	".balign 8\n"
	".globl jt_klp_site\n"
	".type jt_klp_site, @object\n"
	"jt_klp_site:\n"
	".quad " JT_KLP_SYM "\n"
	".size jt_klp_site, 8\n"
	".globl " JT_KLP_SYM "\n"
	JT_KLP_SYM ":\n"
	".popsection\n"
	/* the name klp_fixup.py gives the slot's relocation section */
	".pushsection \".klp.rela.jitalloc_testmod..text.jt_klp_site\", \"\", @progbits\n"
	".popsection\n");

static int jt_klp_site_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%llx\n", READ_ONCE(jt_klp_site));
}

static const struct kernel_param_ops jt_klp_site_ops = {
	.get = jt_klp_site_get,
};
module_param_cb(site, &jt_klp_site_ops, NULL, 0444);

/* Is the slot in read-only executable text now that the module is loaded? */
static bool jt_klp_site_rox(void)
{
#if IS_ENABLED(CONFIG_JIT_ALLOC)
	return jit_addr_is_rox(&jt_klp_site);
#elif defined(CONFIG_X86)
	/* 6.12: how the slot is mapped, whatever execmem says */
	unsigned int level;
	pte_t *pte = lookup_address((unsigned long)&jt_klp_site, &level);

	return pte && pte_present(*pte) && !pte_write(*pte) && pte_exec(*pte);
#else
	return execmem_is_rox(EXECMEM_MODULE_TEXT);
#endif
}

static int jt_klp_site_text_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%s\n", jt_klp_site_rox() ? "rox" : "plain");
}

static const struct kernel_param_ops jt_klp_site_text_ops = {
	.get = jt_klp_site_text_get,
};
module_param_cb(site_text, &jt_klp_site_text_ops, NULL, 0444);

static int jt_klp_patchable(void)
{
	return 42;
}

static struct klp_func jt_klp_funcs[] = {
	{
		.old_name = "jt_patchable",
		.new_func = jt_klp_patchable,
	}, { }
};

static struct klp_object jt_klp_objs[] = {
	{
		.name = "jitalloc_testmod",
		.funcs = jt_klp_funcs,
	}, { }
};

static struct klp_patch jt_klp_patch = {
	.mod = THIS_MODULE,
	.objs = jt_klp_objs,
};

static int __init jitalloc_klp_init(void)
{
	return klp_enable_patch(&jt_klp_patch);
}

static void __exit jitalloc_klp_exit(void)
{
}

module_init(jitalloc_klp_init);
module_exit(jitalloc_klp_exit);
MODULE_DESCRIPTION("jitalloc livepatch test module with a klp relocation");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(JITALLOC_TEST);
MODULE_INFO(livepatch, "Y");
