// SPDX-License-Identifier: GPL-2.0-only
/*
 * x86 hooks for the cache of read-only executable memory: writing
 * it with text poking, protecting the direct-map alias of a cached huge
 * page, and reading back how both are mapped.
 */
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <asm/text-patching.h>

#include "../../../mm/jitalloc_cache.h"

/*
 * Make the direct-map alias of a cached huge page read-only, or writable
 * again before the page is freed.  For a huge page the range is one
 * naturally aligned 2 MiB block, so this changes at most one PMD of the
 * direct map and never splits it into 4 KiB pages.  Page-granular
 * read-only text has its aliases protected by
 * jit_arch_protect_vmalloc_aliases() below.
 */
int jit_arch_protect_alias(void *addr, size_t len, bool protect)
{
	unsigned long start = (unsigned long)addr;
	int numpages = len >> PAGE_SHIFT;

	if (protect)
		return set_memory_ro(start, numpages);
	return set_memory_rw(start, numpages);
}

/*
 * set_memory_ro() on vmalloc memory also protects the direct-map alias of
 * each page (cpa_process_alias()), with one vm_unmap_aliases() and one TLB
 * flush for the whole range; the vmalloc mapping itself is read-only
 * already.  A module with megabytes of text costs one flush, as one
 * set_memory_ro() of all its text would, not one per page.
 */
int jit_arch_protect_vmalloc_aliases(void *addr, size_t len)
{
	return set_memory_ro((unsigned long)addr, len >> PAGE_SHIFT);
}

/* The direct map is split as needed, so every alias can be protected. */
bool jit_arch_can_protect_alias(void)
{
	return true;
}

/*
 * RW of the table entries above a leaf at @level: a clear RW at any level
 * makes the leaf read-only, as for the MMU.  lookup_address_in_pgd_attr()
 * cannot tell: it ANDs a bool with "flags & _PAGE_RW" (1 & 2), so its rw
 * is false whenever it walks a level.
 */
static bool jit_upper_levels_rw(unsigned long addr, unsigned int level)
{
	pgd_t *pgd = pgd_offset_k(addr);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;

	if (!(pgd_flags(*pgd) & _PAGE_RW))
		return false;
	if (level >= PG_LEVEL_512G)
		return true;
	p4d = p4d_offset(pgd, addr);
	if (!(p4d_flags(*p4d) & _PAGE_RW))
		return false;
	if (level >= PG_LEVEL_1G)
		return true;
	pud = pud_offset(p4d, addr);
	if (!(pud_flags(*pud) & _PAGE_RW))
		return false;
	if (level >= PG_LEVEL_2M)
		return true;
	pmd = pmd_offset(pud, addr);
	return pmd_flags(*pmd) & _PAGE_RW;
}

/*
 * The effective permissions: NX or a clear RW at any level of the walk
 * counts, as for the MMU.
 */
void jit_arch_kernel_leaf(unsigned long addr, struct jit_leaf *leaf)
{
	unsigned int level;
	bool nx, rw;
	pte_t *ptep, pte;

	memset(leaf, 0, sizeof(*leaf));
	ptep = lookup_address_in_pgd_attr(pgd_offset_k(addr), addr, &level,
					  &nx, &rw);
	if (!ptep)
		return;
	pte = READ_ONCE(*ptep);
	if (!(pte_flags(pte) & _PAGE_PRESENT))
		return;
	leaf->size = page_level_size(level);
	leaf->writable = pte_write(pte) && jit_upper_levels_rw(addr, level);
	leaf->exec = !nx && pte_exec(pte);
}

/* Writes into read-only executable jit text go through text poking. */
int jit_arch_text_copy(void *dst, const void *src, size_t len)
{
	return text_poke_copy(dst, src, len) ? 0 : -EFAULT;
}

int jit_arch_text_set(void *dst, int c, size_t len)
{
	return text_poke_set(dst, c, len) ? 0 : -EFAULT;
}
