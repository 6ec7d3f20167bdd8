// SPDX-License-Identifier: GPL-2.0-only
/*
 * RISC-V constraints on memory for code.  On 64-bit, module text and data
 * go into the 2 GiB below the end of the kernel image, within reach of
 * auipc-based calls and references, and BPF programs into the 128 MiB
 * right below the kernel.  kprobes slots go anywhere in vmalloc space.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <asm/pgtable.h>
#include <asm/sections.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init;

/**
 * jit_alloc_arch_params() - RISC-V placement and protections of jit memory
 *
 * Return: the parameters.  Text starts out non-executable and its users
 * make it executable once written, as with module_alloc() and the BPF JIT
 * allocator before.  kprobes slots are written by patching, so they are
 * read-only and executable from the start, as alloc_insn_page() made them.
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
	struct jit_alloc_params *p = &jit_alloc_params;
	struct jit_address_space *kprobes = &p->types[JIT_TYPE_KPROBES];
	struct jit_address_space *bpf = &p->types[JIT_TYPE_BPF];

	p->text.prot = JIT_PROT_RW;
#ifdef CONFIG_64BIT
	/* the module area depends on where the kernel was loaded */
	p->text.start = MODULES_VADDR;
	p->text.end = MODULES_END;
#endif

	kprobes->prot = JIT_PROT_ROX;
	kprobes->start = VMALLOC_START;
	kprobes->end = VMALLOC_END;

	bpf->prot = JIT_PROT_RW;
	bpf->start = BPF_JIT_REGION_START;
	bpf->end = BPF_JIT_REGION_END;

	return p;
}
