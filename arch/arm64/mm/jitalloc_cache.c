// SPDX-License-Identifier: GPL-2.0-only
/*
 * arm64 hooks for the cache of read-only executable memory: writing
 * it through the text-poking fixmap, making the linear-map alias of a
 * cached huge page read-only, and reading back how both are mapped.
 */
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <linux/vmalloc.h>
#include <asm/insn.h>
#include <asm/patching.h>
#include <asm/tlbflush.h>

#include "../../../mm/jitalloc_cache.h"

/*
 * aarch64_insn_copy() and aarch64_insn_set() write from word-aligned
 * addresses only.  A head before the first aligned word is merged into
 * that word, which starts inside the same allocation: allocations start
 * at a chunk (64 bytes) or a page.  Writers of one allocation serialise
 * among themselves, as they must for the instructions they write.
 */
static int jit_text_copy_head(void *dst, const void *src, size_t len)
{
	u8 *word = PTR_ALIGN_DOWN(dst, AARCH64_INSN_SIZE);
	u8 buf[AARCH64_INSN_SIZE];

	memcpy(buf, word, sizeof(buf));
	memcpy(buf + ((u8 *)dst - word), src, len);
	return aarch64_insn_copy(word, buf, sizeof(buf)) ? 0 : -EFAULT;
}

/* the bytes before @dst's next word boundary, at most @len */
static size_t jit_text_head(void *dst, size_t len)
{
	return min_t(size_t, len, PTR_ALIGN(dst, AARCH64_INSN_SIZE) - dst);
}

int jit_arch_text_copy(void *dst, const void *src, size_t len)
{
	size_t head = jit_text_head(dst, len);

	if (head && jit_text_copy_head(dst, src, head))
		return -EFAULT;
	/* aarch64_insn_copy() only reads @src, though not declared const */
	if (len > head &&
	    !aarch64_insn_copy(dst + head, (void *)src + head, len - head))
		return -EFAULT;
	return 0;
}

/*
 * Whole instructions are filled a page per fixmap mapping (a refill of a
 * freed 2 MiB run maps 512 times, not once per 256 bytes); an unaligned
 * head or tail is copied from a small buffer.
 */
int jit_arch_text_set(void *dst, int c, size_t len)
{
	size_t head = jit_text_head(dst, len);
	size_t body = round_down(len - head, AARCH64_INSN_SIZE);
	size_t tail = len - head - body;
	u8 buf[AARCH64_INSN_SIZE];

	memset(buf, c, sizeof(buf));
	if (head && jit_text_copy_head(dst, buf, head))
		return -EFAULT;
	if (body && !aarch64_insn_set(dst + head, 0x01010101U * (u8)c, body))
		return -EFAULT;
	if (tail && !aarch64_insn_copy(dst + head + body, buf, tail))
		return -EFAULT;
	return 0;
}

static int jit_alias_pte(pte_t *ptep, unsigned long addr, void *data)
{
	pte_t pte = READ_ONCE(*ptep);

	if (*(bool *)data) {
		pte = clear_pte_bit(pte, __pgprot(PTE_WRITE));
		pte = set_pte_bit(pte, __pgprot(PTE_RDONLY));
	} else {
		pte = clear_pte_bit(pte, __pgprot(PTE_RDONLY));
		pte = set_pte_bit(pte, __pgprot(PTE_WRITE));
	}
	set_pte(ptep, pte);
	return 0;
}

static int __jit_protect_alias(void *addr, size_t len, bool protect)
{
	unsigned long start = (unsigned long)addr;
	int ret;

	ret = apply_to_page_range(&init_mm, start, len, jit_alias_pte,
				  &protect);
	flush_tlb_kernel_range(start, start + len);
	return ret;
}

/*
 * Make the linear-map alias of cache memory read-only, or writable again
 * before the pages are freed.  Read-only rather than unmapped: vread()
 * (/proc/kcore) and hibernation read vmalloc memory through this alias.
 * Only possible where the linear map is mapped with pages (rodata=full,
 * the default); with block mappings, like set_memory_ro(), this does
 * nothing and the alias keeps the linear map's permissions.  As
 * set_memory_ro() does, lazily freed vmap areas, which may still map
 * these pages writable in page tables and TLBs, are purged first.
 */
int jit_arch_protect_alias(void *addr, size_t len, bool protect)
{
	if (!can_set_direct_map())
		return 0;
	if (protect)
		vm_unmap_aliases();
	return __jit_protect_alias(addr, len, protect);
}

/* The linear aliases of a page-granular allocation: one purge for all. */
int jit_arch_protect_vmalloc_aliases(void *addr, size_t len)
{
	size_t off;
	int err;

	if (!can_set_direct_map())
		return 0;
	vm_unmap_aliases();
	for (off = 0; off < len; off += PAGE_SIZE) {
		err = __jit_protect_alias(page_address(vmalloc_to_page(addr + off)),
					  PAGE_SIZE, true);
		if (err)
			return err;
	}
	return 0;
}

bool jit_arch_can_protect_alias(void)
{
	return can_set_direct_map();
}

/*
 * Walk init_mm's tables down to the entry mapping @addr, reading each
 * level once.  Writable: the hardware permits writes now (PTE_RDONLY
 * clear) or will on the first write (PTE_WRITE, the DBM bit, set).
 * Executable: PXN clear in the entry and PXNTable clear in every table on
 * the way.  A block or page with the contiguous bit is reported with the
 * size of its contiguous run.
 */
void jit_arch_kernel_leaf(unsigned long addr, struct jit_leaf *leaf)
{
	pgd_t *pgdp = pgd_offset_k(addr);
	bool table_pxn = false;
	p4d_t *p4dp;
	pud_t *pudp, pud;
	pmd_t *pmdp, pmd;
	pte_t pte;

	memset(leaf, 0, sizeof(*leaf));
	if (pgd_none(READ_ONCE(*pgdp)))
		return;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(READ_ONCE(*p4dp)))
		return;
	pudp = pud_offset(p4dp, addr);
	pud = READ_ONCE(*pudp);
	if (pud_none(pud))
		return;
	if (pud_sect(pud)) {
		pte = pud_pte(pud);
		leaf->size = PUD_SIZE;
		goto found;
	}
	table_pxn |= pud_val(pud) & PUD_TABLE_PXN;
	pmdp = pmd_offset(&pud, addr);
	pmd = READ_ONCE(*pmdp);
	if (pmd_none(pmd))
		return;
	if (pmd_sect(pmd)) {
		pte = pmd_pte(pmd);
		leaf->size = pmd_cont(pmd) ? CONT_PMD_SIZE : PMD_SIZE;
		goto found;
	}
	table_pxn |= pmd_val(pmd) & PMD_TABLE_PXN;
	pte = READ_ONCE(*pte_offset_kernel(&pmd, addr));
	if (!pte_valid(pte))
		return;
	leaf->size = pte_cont(pte) ? CONT_PTE_SIZE : PAGE_SIZE;
found:
	leaf->writable = pte_write(pte) || !(pte_val(pte) & PTE_RDONLY);
	leaf->exec = !table_pxn && !(pte_val(pte) & PTE_PXN);
}
