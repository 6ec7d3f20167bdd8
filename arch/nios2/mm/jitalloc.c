// SPDX-License-Identifier: GPL-2.0-only
/*
 * nios2 constraints on memory for code: the 32 MiB module area right below
 * the kernel region, closer to the kernel than the rest of vmalloc space.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <asm/pgtable.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init = {
	/* nios2 has no PAGE_KERNEL_EXEC of its own: PAGE_KERNEL executes */
	.text.prot	= JIT_PROT_RWX,
	.text.start	= MODULES_VADDR,
	.text.end	= MODULES_END,
};

/**
 * jit_alloc_arch_params() - nios2 placement and protections of jit memory
 *
 * Return: the parameters: everything in the module area instead of the
 * kmalloc() memory module_alloc() used to hand out, which jit_free() could
 * not give back.  Data follows text.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	return &jit_alloc_params;
}
