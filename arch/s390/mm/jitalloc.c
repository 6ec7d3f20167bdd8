// SPDX-License-Identifier: GPL-2.0
/*
 * s390 constraints on memory for code: the module area, 2 GiB right below
 * the kernel image, within reach of the relative branches and loads (and
 * of kprobes' RIL-relative instruction fixups) of the kernel.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <linux/moduleloader.h>
#include <asm/pgtable.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init = {
	.flags		= JIT_ALLOC_KASAN_SHADOW,
	.alignment	= MODULE_ALIGN,
};

/**
 * jit_alloc_arch_params() - s390 placement and protections of jit memory
 *
 * Return: the parameters.  Everything - module text and data, kprobes
 * slots, ftrace trampolines and BPF programs - goes into the module area,
 * text mapped executable, as module_alloc() did.  The area is placed by
 * the decompressor, so its start is only known at run time.  KASAN
 * without KASAN_VMALLOC needs shadow allocated per allocation there.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	jit_alloc_params.text.prot = JIT_PROT_RWX;
	jit_alloc_params.text.start = MODULES_VADDR;
	jit_alloc_params.text.end = MODULES_END;

	return &jit_alloc_params;
}
