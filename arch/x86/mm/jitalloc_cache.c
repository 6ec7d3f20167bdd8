// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86 hooks for the jit allocator's read-only executable memory: writing
 * it with text poking, and protecting the direct-map alias of a cached
 * huge page.
 */
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <asm/text-patching.h>

#include "../../../mm/jitalloc_cache.h"

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

/* Writes into read-only executable jit text go through text poking. */
void jit_arch_text_copy(void *dst, const void *src, size_t len)
{
	text_poke_copy(dst, src, len);
}

/*
 * Refills of freed runs can be large: fill their whole pages with
 * text_poke_fill(), many pages per switch to the poking mm, and only the
 * partial pages at either end with text_poke_set().
 */
void jit_arch_text_set(void *dst, int c, size_t len)
{
	unsigned long start = (unsigned long)dst, end = start + len;
	unsigned long mid = PAGE_ALIGN(start), mid_end = end & PAGE_MASK;

	if (mid_end <= mid || mid_end - mid < 2 * PAGE_SIZE) {
		text_poke_set(dst, c, len);
		return;
	}
	if (mid > start)
		text_poke_set(dst, c, mid - start);
	text_poke_fill((void *)mid, c, mid_end - mid);
	if (end > mid_end)
		text_poke_set((void *)mid_end, c, end - mid_end);
}
