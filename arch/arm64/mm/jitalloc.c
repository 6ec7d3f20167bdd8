// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 constraints on memory for code.  Module text and data go into the
 * module region, within reach of the kernel's direct branches and ADRP,
 * with a fallback to the 2 GiB window around the kernel when branches can
 * go through PLTs.  kprobes slots, BPF programs and BPF trampolines are
 * reached through absolute addresses (or a PLT) and may be anywhere in
 * vmalloc space.  Module text, kprobes slots, BPF programs and trampolines
 * are read-only and executable from the start, written by patching, and
 * served from the huge page cache.
 */

#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <linux/moduleloader.h>
#include <linux/sizes.h>
#include <asm/module.h>
#include <asm/sections.h>

static struct jit_alloc_params jit_alloc_params __ro_after_init = {
	.alignment	= MODULE_ALIGN,
};

/*
 * KASAN without KASAN_VMALLOC only has shadow to give to allocations in the
 * module region: the rest of vmalloc space is backed by the zero shadow.
 */
static bool __init jit_kasan_module_shadow(void)
{
	return (IS_ENABLED(CONFIG_KASAN_GENERIC) ||
		IS_ENABLED(CONFIG_KASAN_SW_TAGS)) &&
	       !IS_ENABLED(CONFIG_KASAN_VMALLOC);
}

/**
 * jit_arm64_params() - arm64 placement and protections of jit memory
 *
 * Return: the parameters.  Module memory follows what module_alloc() did:
 * the (randomized) module region, falling back to the 2 GiB window with
 * ARM64_MODULE_PLTS unless KASAN can only shadow the module region.  Text
 * starts out non-executable and its users make it read-only and executable
 * once written; kprobes slots, written by aarch64_insn_patch_text(), are
 * read-only and executable from the start, as alloc_insn_page() mapped them.
 * Module core and init text (relocated and patched in copies by the loader,
 * see module_writable_address()), kprobes slots, BPF programs and BPF
 * trampolines (written by bpf_arch_text_copy()) come read-only and
 * executable from the cache, unless KASAN can only shadow the module region.
 *
 * The cache's huge pages for module text are stacked from the top of the
 * module region down, leaving the rest of it in one piece for module data
 * and large modules.  Module text keeps the region's KASLR: its place is
 * random, and so is the first allocation in each huge page.
 */
static struct jit_alloc_params * __init jit_arm64_params(void)
{
	struct jit_alloc_params *p = &jit_alloc_params;
	struct jit_address_space *kprobes = &p->types[JIT_TYPE_KPROBES];
	struct jit_address_space *bpf = &p->types[JIT_TYPE_BPF];
	struct jit_address_space *tramp = &p->types[JIT_TYPE_BPF_TRAMPOLINE];
	u64 module_alloc_end;

	module_alloc_end = module_alloc_base + MODULES_VSIZE;

	/* don't exceed the static module region */
	if (IS_ENABLED(CONFIG_KASAN_GENERIC) || IS_ENABLED(CONFIG_KASAN_SW_TAGS))
		module_alloc_end = MODULES_END;
	if (jit_kasan_module_shadow())
		p->flags |= JIT_ALLOC_KASAN_SHADOW;

	p->text.prot = JIT_PROT_RW;
	p->text.start = module_alloc_base;
	p->text.end = module_alloc_end;
	if (IS_ENABLED(CONFIG_ARM64_MODULE_PLTS) && !jit_kasan_module_shadow()) {
		p->text.fallback_start = module_alloc_base;
		p->text.fallback_end = module_alloc_base + SZ_2G;
	}
	/*
	 * KASAN keeps the region below MODULES_END, and a randomized kernel,
	 * with the module region drawn near it, lies above: module_alloc()
	 * then went straight to the 2 GiB window.
	 */
	if (p->text.start >= p->text.end) {
		p->text.start = p->text.fallback_start;
		p->text.end = p->text.fallback_end;
		p->text.fallback_start = 0;
		p->text.fallback_end = 0;
	}

	/* wherever they are, nothing but patching writes kprobes slots */
	kprobes->prot = JIT_PROT_ROX;
	/* The shadow of the rest of vmalloc space is already populated. */
	if (!jit_kasan_module_shadow()) {
		kprobes->start = VMALLOC_START;
		kprobes->end = VMALLOC_END;
		bpf->start = VMALLOC_START;
		bpf->end = VMALLOC_END;
		tramp->start = VMALLOC_START;
		tramp->end = VMALLOC_END;
		p->cache_types = BIT(JIT_TYPE_MODULE_TEXT) |
				 BIT(JIT_TYPE_MODULE_INIT) |
				 BIT(JIT_TYPE_KPROBES) | BIT(JIT_TYPE_BPF) |
				 BIT(JIT_TYPE_BPF_TRAMPOLINE);
	}
#ifdef CONFIG_RANDOMIZE_BASE
	/* kaslr_module_init() moved the module region */
	if (module_alloc_base != (u64)_etext - MODULES_VSIZE)
		p->flags |= JIT_ALLOC_RANDOMIZE;
#endif

	p->flags |= JIT_ALLOC_CACHE_TOP_DOWN;
	return p;
}

/*
 * The allocator is set up from mm_init(), before the random pool has the
 * boot's entropy in it: the module region sits at its default place until
 * jit_alloc_arch_params_late() draws it.  Nothing allocates module memory
 * before.  BPF programs, which sock_init() may JIT at core_initcall, and
 * kprobes slots go anywhere in vmalloc space (or, where KASAN can only
 * shadow the module region, to its default place, where they stay valid).
 */
struct jit_alloc_params * __init jit_alloc_arch_params(void)
{
#ifdef CONFIG_RANDOMIZE_BASE
	module_alloc_base = (u64)_etext - MODULES_VSIZE;
#endif
	return jit_arm64_params();
}

/*
 * Draw the module region from a subsys_initcall, as kaslr_init() did in
 * 6.1, with the interrupts and timings of the boot so far in the random
 * pool (on a board with only a device tree kaslr-seed, there is little
 * else in it at mm_init()).
 */
struct jit_alloc_params * __init jit_alloc_arch_params_late(void)
{
	kaslr_module_init();
	return jit_arm64_params();
}

/*
 * Executable kernel mappings carry the BTI guard bit where the CPU has BTI
 * (set_memory_x() adds it the same way), so that the landing pads the BPF
 * JIT emits are enforced in memory that is executable from the start.
 */
pgprot_t jit_arch_rox_pgprot(void)
{
	return __pgprot(pgprot_val(PAGE_KERNEL_ROX) | PTE_MAYBE_GP);
}
