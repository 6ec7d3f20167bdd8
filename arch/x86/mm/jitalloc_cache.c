// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86 hooks for mm/jitalloc_cache.c: how to fill executable memory with
 * traps, and how to protect the direct-map alias of a cached huge page.
 */
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <linux/string.h>
#include <asm/text-patching.h>

#include "../../../mm/jitalloc_cache.h"

/* Fill memory nobody executes yet, through a writable alias. */
void jit_arch_fill_trap(void *dst, size_t len)
{
	memset(dst, INT3_INSN_OPCODE, len);
}

/* Fill read-only executable memory with int3, through text poking. */
void jit_arch_poke_trap(void *dst, size_t len)
{
	text_poke_set(dst, INT3_INSN_OPCODE, len);
}

/* Copy into read-only executable memory, through text poking. */
void jit_arch_poke_copy(void *dst, const void *src, size_t len)
{
	text_poke_copy(dst, src, len);
}

/*
 * Make the direct-map alias of a cached huge page read-only, or writable
 * again before the page is freed.  The range is one naturally aligned
 * 2 MiB block, so this changes at most one PMD of the direct map and never
 * splits it into 4 KiB pages.
 */
void jit_arch_protect_alias(void *addr, size_t len, bool protect)
{
	unsigned long start = (unsigned long)addr;
	int numpages = len >> PAGE_SHIFT;

	if (protect)
		set_memory_ro(start, numpages);
	else
		set_memory_rw(start, numpages);
}
