// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc_bigmod - a module with more than 2 MiB of text, as GPU and
 * file system drivers have.  No cache huge page can hold its text, so the
 * jit allocator serves it from its page-granular fallback, which must keep
 * the same promise as the cache: read-only and executable from the start,
 * with no writable alias.  jitalloc_hugemod builds the same source with
 * 16 MiB of text.
 *
 * On load it calls code at the far end of its text and, on x86, checks that
 * the direct-map alias of every page of its text is read-only; a failed
 * check fails the load.  The result is also in
 * /sys/module/<name>/parameters/selfcheck.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/objtool.h>
#include <linux/vmalloc.h>
#include <asm/linkage.h>
#include <asm/pgtable.h>

#include "jitalloc_bigmod.h"

#ifndef JT_BIG_FILL
#define JT_BIG_FILL	0x210000	/* 2 MiB + 64 KiB of traps */
#endif

static char selfcheck[48] = "not run";
module_param_string(selfcheck, selfcheck, sizeof(selfcheck), 0444);

/*
 * A blob of traps, then a function at its far end.  objtool reads it like
 * any module code, so that the init and exit functions' returns are
 * patched as the kernel's are: the blob's start is data (no ENDBR), the
 * function returns the way the kernel's assembly does (ASM_RET).
 */
#ifdef CONFIG_X86_64
asm(".pushsection .text.jt_big, \"ax\"\n"
	".globl jt_big_start\n"
	"jt_big_start:\n"
	ANNOTATE_NOENDBR
	".fill " __stringify(JT_BIG_FILL) ", 1, 0xcc\n"
	".globl jt_big_end\n"
	".type jt_big_end, @function\n"
	"jt_big_end:\n"
	"	movl $0x5a5a, %eax\n"
	ASM_RET
	".size jt_big_end, . - jt_big_end\n"
	".popsection\n");
#elif defined(CONFIG_ARM64)
/* brk #0 as the trap; called directly, so no BTI landing pad */
asm(".pushsection .text.jt_big, \"ax\"\n"
	".globl jt_big_start\n"
	".balign 4\n"
	"jt_big_start:\n"
	".fill " __stringify(JT_BIG_FILL) " / 4, 4, 0xd4200000\n"
	".globl jt_big_end\n"
	".type jt_big_end, %function\n"
	"jt_big_end:\n"
	"	mov w0, #0x5a5a\n"
	"	ret\n"
	"	brk #0\n"
	".size jt_big_end, . - jt_big_end\n"
	".popsection\n");
#endif

#ifdef CONFIG_X86_64
/* Is the direct-map alias of any page of [start, end) writable? */
static const char *jt_alias_check(unsigned long start, unsigned long end)
{
	unsigned long addr;
	unsigned int level;
	pte_t *pte;

	for (addr = start & PAGE_MASK; addr < end; addr += PAGE_SIZE) {
		struct page *page = vmalloc_to_page((void *)addr);

		if (!page)
			return "no page";
		pte = lookup_address((unsigned long)page_address(page), &level);
		if (pte && pte_write(*pte))
			return "writable alias";
	}
	return "ok";
}
#else
/* arm64 has no lookup_address(): the selftests read its aliases */
static const char *jt_alias_check(unsigned long start, unsigned long end)
{
	return "ok";
}
#endif

static int __init jitalloc_bigmod_init(void)
{
	const char *res;

	if (jt_big_end() != 0x5a5a)
		res = "call";
	else
		res = jt_alias_check((unsigned long)jt_big_start,
				     (unsigned long)jt_big_end + 8);
	strscpy(selfcheck, res, sizeof(selfcheck));
	if (strcmp(selfcheck, "ok")) {
		pr_err("self check failed: %s\n", selfcheck);
		return -EINVAL;
	}
	return 0;
}

static void __exit jitalloc_bigmod_exit(void)
{
}

module_init(jitalloc_bigmod_init);
module_exit(jitalloc_bigmod_exit);
#ifndef JT_BIG_DESC
#define JT_BIG_DESC "jitalloc test module with more than 2 MiB of text"
#endif
MODULE_DESCRIPTION(JT_BIG_DESC);
MODULE_LICENSE("GPL");
