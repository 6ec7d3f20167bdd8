/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-table reading for the jitalloc KUnit suites: the protections and the
 * level of the kernel mapping of an address, read from the page tables
 * rather than taken from the allocator's word.
 */
#ifndef _MM_JITALLOC_TEST_PT_H
#define _MM_JITALLOC_TEST_PT_H

#include <linux/mm.h>
#include <linux/pgtable.h>

/**
 * struct jit_test_leaf - the kernel page table entry that maps an address
 * @present: it is mapped
 * @huge: by one entry covering a whole cache page: a PMD-level leaf, or
 *	on arm64 a PTE with the contiguous bit (2 MiB with 16K or 64K pages)
 * @writable: writable
 * @exec: executable by the kernel
 */
struct jit_test_leaf {
	bool present, huge, writable, exec;
};

/* What the protection bits @val of an entry say; false if unknown here. */
static inline bool jit_test_prot_bits(unsigned long val, bool *write,
				      bool *exec)
{
#if defined(CONFIG_X86)
	*write = val & _PAGE_RW;
	*exec = !(val & _PAGE_NX);
	return true;
#elif defined(CONFIG_ARM64)
	*write = !(val & PTE_RDONLY);
	*exec = !(val & PTE_PXN);
	return true;
#else
	return false;
#endif
}

/* Read the kernel page table entry that maps @addr. */
static inline struct jit_test_leaf jit_test_leaf_of(unsigned long addr)
{
	struct jit_test_leaf l = { };
#if defined(CONFIG_X86)
	unsigned int level;
	pte_t *pte = lookup_address(addr, &level);

	if (!pte || !pte_present(*pte))
		return l;
	l.present = jit_test_prot_bits(pte_flags(*pte), &l.writable, &l.exec);
	l.huge = level == PG_LEVEL_2M;
#elif defined(CONFIG_ARM64)
	pgd_t *pgdp = pgd_offset_k(addr);
	unsigned long val;
	p4d_t *p4dp;
	pud_t *pudp;
	pmd_t *pmdp;
	pte_t *ptep;

	if (pgd_none(READ_ONCE(*pgdp)))
		return l;
	p4dp = p4d_offset(pgdp, addr);
	if (p4d_none(READ_ONCE(*p4dp)))
		return l;
	pudp = pud_offset(p4dp, addr);
	if (pud_none(READ_ONCE(*pudp)))
		return l;
	if (pud_sect(READ_ONCE(*pudp))) {
		val = pud_val(READ_ONCE(*pudp));
	} else {
		pmdp = pmd_offset(pudp, addr);
		if (pmd_none(READ_ONCE(*pmdp)))
			return l;
		if (pmd_sect(READ_ONCE(*pmdp))) {
			val = pmd_val(READ_ONCE(*pmdp));
			l.huge = true;
		} else {
			ptep = pte_offset_kernel(pmdp, addr);
			if (!pte_present(READ_ONCE(*ptep)))
				return l;
			val = pte_val(READ_ONCE(*ptep));
			l.huge = pte_cont(READ_ONCE(*ptep));
		}
	}
	l.present = jit_test_prot_bits(val, &l.writable, &l.exec);
#endif
	return l;
}

#endif /* _MM_JITALLOC_TEST_PT_H */
