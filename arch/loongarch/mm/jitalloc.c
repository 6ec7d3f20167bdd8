// SPDX-License-Identifier: GPL-2.0-only
/*
 * LoongArch constraints on memory for code: the module area, a 256 MiB
 * window at the start of the vmalloc space.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <asm/pgtable.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init;

/**
 * jit_alloc_arch_params() - LoongArch placement and protections of jit memory
 *
 * Return: the parameters: everything in the module area, mapped
 * %PAGE_KERNEL, as module_alloc() did.  The area starts at vm_map_base,
 * which is only known at run time.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	jit_alloc_params.text.prot = JIT_PROT_RW;
	jit_alloc_params.text.start = MODULES_VADDR;
	jit_alloc_params.text.end = MODULES_END;

	return &jit_alloc_params;
}
