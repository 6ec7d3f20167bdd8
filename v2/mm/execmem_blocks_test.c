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
 * What the loader does to module data - read-only and non-executable
 * pages - changes the mapping and leaves the direct-map entry of the
 * block as large and as read-only as it was.
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
	KUNIT_ASSERT_EQ(test, set_memory_ro((unsigned long)ro, 1), 0);
	KUNIT_ASSERT_EQ(test, set_memory_nx((unsigned long)p, 1), 0);
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
 * read-only alias: filled, freed, taken again.
 */
static void execmem_blocks_test_zeroed(struct kunit *test)
{
	size_t size = EXECMEM_BLOCKS_TEST_PAGES * PAGE_SIZE;
	struct page *pages[EXECMEM_BLOCKS_TEST_PAGES];
	bool reused = false;
	u8 *p = execmem_blocks_test_alloc(test, size);
	int i, j;

	KUNIT_EXPECT_NULL(test, memchr_inv(p, 0, size));
	for (i = 0; i < EXECMEM_BLOCKS_TEST_PAGES; i++)
		pages[i] = vmalloc_to_page(p + i * PAGE_SIZE);
	memset(p, 0xa5, size);
	execmem_free(p);

	p = execmem_blocks_test_alloc(test, size);
	KUNIT_EXPECT_NULL_MSG(test, memchr_inv(p, 0, size),
			      "page-block memory at %p is not zeroed", p);
	/* the check above means something only if a page came back */
	for (i = 0; i < EXECMEM_BLOCKS_TEST_PAGES; i++)
		for (j = 0; j < EXECMEM_BLOCKS_TEST_PAGES; j++)
			reused |= vmalloc_to_page(p + i * PAGE_SIZE) == pages[j];
	execmem_free(p);
	if (!reused)
		kunit_skip(test, "no page of the first mapping was handed out again");
}

static struct kunit_case execmem_blocks_cases[] = {
	KUNIT_CASE(execmem_blocks_test_no_split),
	KUNIT_CASE(execmem_blocks_test_zeroed),
	{}
};

static struct kunit_suite execmem_blocks_suite = {
	.name = "execmem_blocks",
	.test_cases = execmem_blocks_cases,
};

kunit_test_suite(execmem_blocks_suite);

MODULE_DESCRIPTION("KUnit test of execmem's page blocks");
MODULE_LICENSE("GPL");
