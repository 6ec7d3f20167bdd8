// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm constraints on memory for code: the module area below PAGE_OFFSET,
 * within reach of the +/- 32 MiB BL/B branches into the kernel, with a
 * fallback to the whole vmalloc space when modules can branch through PLTs.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <asm/memory.h>
#include <asm/sections.h>

#ifdef CONFIG_XIP_KERNEL
/*
 * The XIP kernel text is mapped in the module area for modules and
 * some other stuff to work without any indirect relocations.
 * MODULES_VADDR is redefined here and not in asm/memory.h to avoid
 * recompiling the whole kernel when CONFIG_XIP_KERNEL is turned on/off.
 */
#undef MODULES_VADDR
#define MODULES_VADDR	(((unsigned long)_exiprom + ~PMD_MASK) & PMD_MASK)
#endif

static struct jit_alloc_params jit_alloc_params __ro_after_init;

/**
 * jit_alloc_arch_params() - arm placement and protections of jit memory
 *
 * Return: the parameters.  Everything goes into the module area, mapped
 * executable as module_alloc() did; with ARM_MODULE_PLTS, allocations that
 * do not fit there fall back to the rest of vmalloc space.  Data follows
 * text, mapped non-executable.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	struct jit_alloc_params *p = &jit_alloc_params;

	/* PAGE_KERNEL_EXEC, as module_alloc() mapped it */
	p->text.prot = JIT_PROT_RWX;
	p->text.start = MODULES_VADDR;
	p->text.end = MODULES_END;
	if (IS_ENABLED(CONFIG_ARM_MODULE_PLTS)) {
		p->text.fallback_start = VMALLOC_START;
		p->text.fallback_end = VMALLOC_END;
	}

	return p;
}
