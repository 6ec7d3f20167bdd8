// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86 constraints on memory for code: the module area, within reach of
 * rel32 branches and of RIP-relative data references from kernel text.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <linux/moduleloader.h>
#include <asm/setup.h>
#include <asm/text-patching.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init = {
	/* set_memory_ro() on module data also changes its direct-map alias */
	.flags		= JIT_ALLOC_KASAN_SHADOW | JIT_ALLOC_GROUP_PAGES,
	.alignment	= MODULE_ALIGN,
	.text_fill	= INT3_INSN_OPCODE,
	/*
	 * Their users write only with jit_update_copy() or text_poke(); the
	 * module loader relocates core and init text in copies,
	 * module_writable_address().
	 */
	.cache_types	= BIT(JIT_TYPE_MODULE_TEXT) | BIT(JIT_TYPE_MODULE_INIT) |
			  BIT(JIT_TYPE_KPROBES) | BIT(JIT_TYPE_FTRACE) |
			  BIT(JIT_TYPE_BPF) | BIT(JIT_TYPE_BPF_TRAMPOLINE) |
			  BIT(JIT_TYPE_ITS),
};

/**
 * jit_alloc_arch_params() - x86 placement and protections of jit memory
 *
 * Return: the parameters.  Everything - module text and data, kprobes
 * slots, ftrace trampolines and BPF programs - goes into the module area,
 * at random places when KASLR is on (drawn by the allocator when memory is
 * first asked for, once the random pool is ready, as module_alloc() did).
 * Text is filled with int3.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	unsigned long start = MODULES_VADDR;

	if (IS_ENABLED(CONFIG_RANDOMIZE_BASE) && kaslr_enabled())
		jit_alloc_params.flags |= JIT_ALLOC_RANDOMIZE;

	jit_alloc_params.text.prot = JIT_PROT_RW;
	jit_alloc_params.text.start = start;
	jit_alloc_params.text.end = MODULES_END;
	jit_alloc_params.data.prot = JIT_PROT_RW;
	jit_alloc_params.data.start = start;
	jit_alloc_params.data.end = MODULES_END;

	return &jit_alloc_params;
}
