// SPDX-License-Identifier: GPL-2.0-only
/*
 * powerpc constraints on memory for code.  Where there is a module area
 * (book3s/32 and 8xx), allocations are tried first within 32 MiB below the
 * end of kernel text, which relative branches reach without trampolines,
 * then anywhere in the module area.  Elsewhere they go anywhere in vmalloc
 * space.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <asm/mmu.h>
#include <asm/sections.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init;

/**
 * jit_alloc_arch_params() - powerpc placement and protections of jit memory
 *
 * Return: the parameters.  Text is mapped non-executable when module
 * memory is made read-only and executable after it is written
 * (strict_module_rwx_enabled(), decided by the command line, which is
 * parsed before this is called), executable otherwise, as module_alloc()
 * did.  Data follows text, mapped non-executable.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	struct jit_alloc_params *p = &jit_alloc_params;
#ifdef MODULES_VADDR
	unsigned long limit = (unsigned long)_etext - SZ_32M;
	unsigned long near_start;

	BUILD_BUG_ON(TASK_SIZE > MODULES_VADDR);

	if (MODULES_VADDR < PAGE_OFFSET && MODULES_END > limit) {
		/* First try within 32M of _etext to avoid branch trampolines */
		near_start = max_t(unsigned long, limit, MODULES_VADDR);
		p->text.start = PAGE_ALIGN(near_start);
		p->text.end = MODULES_END;
		p->text.fallback_start = MODULES_VADDR;
		p->text.fallback_end = MODULES_END;
	} else {
		p->text.start = MODULES_VADDR;
		p->text.end = MODULES_END;
	}
#endif
	p->text.prot = strict_module_rwx_enabled() ? JIT_PROT_RW : JIT_PROT_RWX;

	return p;
}
