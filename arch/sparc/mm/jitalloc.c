// SPDX-License-Identifier: GPL-2.0-only
/*
 * sparc constraints on memory for code.  sparc64 puts it into the module
 * area below the kernel image, within reach of call and sethi/or pairs
 * for 32-bit addresses; sparc32 takes it anywhere in vmalloc space.
 */

#include <linux/init.h>
/* linux/pgtable.h, which jitalloc.h includes, needs mm.h first on sparc64 */
#include <linux/mm.h>
#include <linux/jitalloc.h>
#include <asm/pgtable.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init = {
#ifdef CONFIG_SPARC64
	.text.start	= MODULES_VADDR,
	.text.end	= MODULES_END,
#endif
};

/**
 * jit_alloc_arch_params() - sparc placement and protections of jit memory
 *
 * Return: the parameters: everything mapped %PAGE_KERNEL, as
 * module_alloc() did, in the module area on sparc64 and in vmalloc space on
 * sparc32.  Kernel mappings are executable on sparc.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	/* PAGE_KERNEL, a variable on sparc64: evaluated when mapping */
	jit_alloc_params.text.prot = JIT_PROT_RW;

	return &jit_alloc_params;
}
