// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 hooks for mm/jitalloc_cache.c: how to fill executable memory with
 * traps, and how to take away the linear-map alias of a cached huge page.
 */
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/tlbflush.h>

#include "../../../mm/jitalloc_cache.h"

/* Fill memory nobody executes yet, through a writable alias. */
void jit_arch_fill_trap(void *dst, size_t len)
{
	__le32 *insn = dst;
	size_t i;

	for (i = 0; i < len / AARCH64_INSN_SIZE; i++)
		insn[i] = cpu_to_le32(AARCH64_BREAK_FAULT);
}

/* Fill read-only executable memory with BRK, through the fixmap. */
void jit_arch_poke_trap(void *dst, size_t len)
{
	aarch64_insn_set(dst, AARCH64_BREAK_FAULT, len);
}

/* Copy into read-only executable memory, through the fixmap. */
void jit_arch_poke_copy(void *dst, const void *src, size_t len)
{
	aarch64_insn_copy(dst, src, len);
}

/*
 * Unmap the linear-map alias of a cached huge page, or map it back before
 * the page is freed.  With rodata=full the linear map is already mapped at
 * page granularity; without it this is a no-op, as for set_memory_ro().
 */
void jit_arch_protect_alias(void *addr, size_t len, bool protect)
{
	unsigned long start = (unsigned long)addr;
	size_t off;

	for (off = 0; off < len; off += PAGE_SIZE) {
		struct page *page = virt_to_page(addr + off);

		if (protect)
			set_direct_map_invalid_noflush(page);
		else
			set_direct_map_default_noflush(page);
	}
	flush_tlb_kernel_range(start, start + len);
}
