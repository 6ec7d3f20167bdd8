// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit test of execmem's page blocks: module data taken from them is
 * zeroed, its direct-map alias is read-only from the start, and making it
 * read-only or non-executable, as the module loader does, splits no
 * direct-map entry.  Judged from the kernel's page tables, not from the
 * pool's counters.
 */
#include <kunit/test.h>
#include <linux/execmem.h>
#include <linux/mm.h>
#include <linux/set_memory.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "execmem_blocks.h"
#include "jitalloc_cache.h"

#define EXECMEM_BLOCKS_TEST_PAGES	3

/* module data from page blocks, or a skip */
static u8 *execmem_blocks_test_alloc(struct kunit *test, size_t size)
{
	u8 *p = execmem_alloc(EXECMEM_MODULE_DATA, size);

	KUNIT_ASSERT_NOT_NULL(test, p);
	if (!execmem_blocks_mapping(p)) {
		execmem_free(p);
		kunit_skip(test, "module data is not taken from page blocks here");
	}
	return p;
}

/* the direct-map entry behind vmalloc address @p */
static void execmem_blocks_test_alias(const void *p, struct jit_leaf *leaf)
{
	jit_arch_kernel_leaf((unsigned long)page_address(vmalloc_to_page(p)),
			     leaf);
}

/*
 * What the loader does to module data - a read-only page - changes the
 * mapping and leaves the direct-map entry of the block as large and as
 * read-only as it was.
 */
static void execmem_blocks_test_no_split(struct kunit *test)
{
	size_t size = EXECMEM_BLOCKS_TEST_PAGES * PAGE_SIZE;
	struct jit_leaf before, after, map;
	u8 *p = execmem_blocks_test_alloc(test, size);
	u8 *ro = p + PAGE_SIZE;

	execmem_blocks_test_alias(ro, &before);
	KUNIT_EXPECT_NE(test, before.size, 0UL);
	KUNIT_EXPECT_FALSE_MSG(test, before.writable,
			       "the direct-map alias of block page %p is writable",
			       ro);
	KUNIT_EXPECT_EQ(test, set_memory_ro((unsigned long)ro, 1), 0);
	execmem_blocks_test_alias(ro, &after);
	KUNIT_EXPECT_EQ_MSG(test, after.size, before.size,
			    "set_memory_ro() on %p split its direct-map entry",
			    ro);
	KUNIT_EXPECT_FALSE(test, after.writable);
	jit_arch_kernel_leaf((unsigned long)ro, &map);
	KUNIT_EXPECT_FALSE_MSG(test, map.writable, "%p is still writable", ro);
	/* the pages around it are still written through the mapping */
	p[0] = 1;
	p[size - 1] = 1;
	KUNIT_EXPECT_EQ(test, p[0] + p[size - 1], 2);
	execmem_free(p);
}

/*
 * Pages come back zeroed, though nothing may write through their
 * read-only alias: filled, freed, taken again.  (Whether to skip is
 * decided before any expectation: a skip would hide a failure.)
 */
static void execmem_blocks_test_zeroed(struct kunit *test)
{
	size_t size = EXECMEM_BLOCKS_TEST_PAGES * PAGE_SIZE;
	struct page *pages[EXECMEM_BLOCKS_TEST_PAGES];
	bool reused = false, first_zeroed;
	u8 *p = execmem_blocks_test_alloc(test, size);
	int i, j;

	first_zeroed = !memchr_inv(p, 0, size);
	for (i = 0; i < EXECMEM_BLOCKS_TEST_PAGES; i++)
		pages[i] = vmalloc_to_page(p + i * PAGE_SIZE);
	memset(p, 0xa5, size);
	execmem_free(p);

	p = execmem_blocks_test_alloc(test, size);
	for (i = 0; i < EXECMEM_BLOCKS_TEST_PAGES; i++)
		for (j = 0; j < EXECMEM_BLOCKS_TEST_PAGES; j++)
			reused |= vmalloc_to_page(p + i * PAGE_SIZE) == pages[j];
	if (!reused) {
		execmem_free(p);
		kunit_skip(test, "no page of the first mapping was handed out again");
	}
	KUNIT_EXPECT_TRUE(test, first_zeroed);
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(p, 0, size),
			      "page-block memory at %p is not zeroed", p);
	execmem_free(p);
}

/*
 * A block goes back to the page allocator with its direct map writable
 * again: a pool of its own, one page mapped, unmapped, the pool destroyed.
 */
static void execmem_blocks_test_release(struct kunit *test)
{
	struct jit_block_pool *bp;
	unsigned long alias;
	struct jit_leaf leaf;
	void *p;

	/* where the architecture takes module data from blocks */
	execmem_free(execmem_blocks_test_alloc(test, PAGE_SIZE));
	bp = jit_block_pool_create("execmem_blocks_test", 1, JIT_BLOCK_RO_ALIAS);
	KUNIT_ASSERT_NOT_NULL(test, bp);
	p = jit_block_vmap(bp, PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END,
			   PAGE_KERNEL, 0, __builtin_return_address(0));
	if (!p) {
		jit_block_pool_destroy(bp);
		kunit_skip(test, "no block could be had");
	}
	alias = (unsigned long)page_address(vmalloc_to_page(p));
	jit_arch_kernel_leaf(alias, &leaf);
	KUNIT_EXPECT_FALSE(test, leaf.writable);
	jit_block_vunmap(p);
	jit_block_pool_destroy(bp);
	/* free pages are unmapped there */
	if (debug_pagealloc_enabled())
		return;
	jit_arch_kernel_leaf(alias, &leaf);
	KUNIT_EXPECT_NE(test, leaf.size, 0UL);
	KUNIT_EXPECT_TRUE_MSG(test, leaf.writable,
			      "a released block's alias is still read-only");
}

static struct kunit_case execmem_blocks_cases[] = {
	KUNIT_CASE(execmem_blocks_test_no_split),
	KUNIT_CASE(execmem_blocks_test_zeroed),
	KUNIT_CASE(execmem_blocks_test_release),
	{}
};

static struct kunit_suite execmem_blocks_suite = {
	.name = "execmem_blocks",
	.test_cases = execmem_blocks_cases,
};

kunit_test_suite(execmem_blocks_suite);

MODULE_DESCRIPTION("KUnit test of execmem's page blocks");
MODULE_LICENSE("GPL");
