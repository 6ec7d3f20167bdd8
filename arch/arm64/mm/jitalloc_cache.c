// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 hooks for the jit allocator's read-only executable memory: writing
 * it through the text-poking fixmap, and taking away the linear-map alias
 * of a cached huge page.
 */
#include <linux/jitalloc.h>
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <asm/patching.h>
#include <asm/tlbflush.h>

#include "../../../mm/jitalloc_cache.h"

void jit_arch_text_copy(void *dst, const void *src, size_t len)
{
	aarch64_insn_copy(dst, src, len);
}

void jit_arch_text_set(void *dst, int c, size_t len)
{
	u8 buf[256];
	size_t done, n;

	memset(buf, c, sizeof(buf));
	for (done = 0; done < len; done += n) {
		n = min(len - done, sizeof(buf));
		aarch64_insn_copy(dst + done, buf, n);
	}
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
