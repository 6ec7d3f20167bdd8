// SPDX-License-Identifier: GPL-2.0-only
/*
 * mips constraints on memory for code.  64-bit kernels put it into the
 * module segment (CKSSEG), where the kernel and modules can reach each other
 * with jal and its 256 MiB segments; 32-bit kernels allocate it anywhere in
 * vmalloc space, which is what the defaults give.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <asm/pgtable.h>

#ifdef MODULE_START
static struct jit_alloc_params jit_alloc_params __ro_after_init = {
	.text.start	= MODULE_START,
	.text.end	= MODULE_END,
};

/**
 * jit_alloc_arch_params() - mips placement and protections of jit memory
 *
 * Return: the parameters: everything in the module segment, mapped
 * %PAGE_KERNEL, which is executable on mips, as module_alloc() did.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	/* PAGE_KERNEL, evaluated when mapping: it depends on the cache mode */
	jit_alloc_params.text.prot = JIT_PROT_RW;

	return &jit_alloc_params;
}
#endif /* MODULE_START */
