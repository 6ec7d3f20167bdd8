// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit test of execmem's cache: what execmem_alloc() hands out for a type
 * flagged %EXECMEM_ROX_CACHE, read back from the kernel's page tables
 * (the mapping, its direct-map alias, the bytes) rather than from the
 * cache's own counters; writes and frees that must be refused.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/execmem.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "execmem_cache.h"
#include "internal.h"
#include "jitalloc_cache.h"
#include "jitalloc_fault_test.h"

/* A type the architecture put in the cache, or -1: skip. */
static int execmem_test_type(struct kunit *test)
{
	static const enum execmem_type types[] = {
		EXECMEM_BPF, EXECMEM_FTRACE, EXECMEM_KPROBES,
		EXECMEM_MODULE_TEXT,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (execmem_is_rox(types[i]))
			return types[i];
	kunit_skip(test, "no execmem type is flagged for the cache (execmem_cache=off?)");
	return -1;
}

/* Every byte of [@p, @p + @len) is @c. */
static bool execmem_test_filled(const u8 *p, size_t len, u8 c)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != c)
			return false;
	return true;
}

/* the mapping of @p: a whole cache page, read-only, executable */
static void execmem_test_expect_rox(struct kunit *test, const void *p,
				    unsigned long min_size)
{
	struct jit_leaf leaf;

	jit_arch_kernel_leaf((unsigned long)p, &leaf);
	KUNIT_EXPECT_GE_MSG(test, leaf.size, min_size,
			    "%p is mapped by a %lu-byte entry", p, leaf.size);
	KUNIT_EXPECT_FALSE_MSG(test, leaf.writable, "%p is writable", p);
	KUNIT_EXPECT_TRUE_MSG(test, leaf.exec, "%p is not executable", p);
}

/* the direct-map alias of the page behind vmalloc address @p */
static void execmem_test_expect_alias_ro(struct kunit *test, const void *p)
{
	struct jit_leaf leaf;
	void *alias = page_address(vmalloc_to_page(p));

	jit_arch_kernel_leaf((unsigned long)alias, &leaf);
	KUNIT_EXPECT_NE(test, leaf.size, 0UL);
	if (jit_arch_can_protect_alias())
		KUNIT_EXPECT_FALSE_MSG(test, leaf.writable,
				       "alias %p of %p is writable", alias, p);
	KUNIT_EXPECT_FALSE_MSG(test, leaf.exec,
			       "alias %p of %p is executable", alias, p);
}

/*
 * Small allocations of every flagged type come from huge read-only
 * executable pages, filled with traps, with a read-only alias; the types
 * of one pool share its page.
 */
static void execmem_test_chunks(struct kunit *test)
{
	/* the cache's users are execmem's types, see jitalloc_backend.h */
	static const enum jit_alloc_type types[] = {
		JIT_TYPE_BPF, JIT_TYPE_FTRACE, JIT_TYPE_KPROBES,
	};
	void *p[ARRAY_SIZE(types)] = {};
	void *first = NULL;
	int i, first_type = -1;
	bool filled;

	execmem_test_type(test);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		if (!execmem_is_rox((enum execmem_type)types[i]))
			continue;
		p[i] = execmem_alloc((enum execmem_type)types[i], 100);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		execmem_test_expect_rox(test, p[i], JIT_CACHE_PAGE_SIZE);
		execmem_test_expect_alias_ro(test, p[i]);
		filled = execmem_test_filled(p[i], 100, execmem_arch_trap_byte());
		KUNIT_EXPECT_TRUE_MSG(test, filled,
				      "%s text at %p is not filled with traps",
				      jit_type_name(types[i]), p[i]);
		if (!first) {
			first = p[i];
			first_type = types[i];
		} else if (execmem_cache_pool((enum execmem_type)types[i]) ==
			   execmem_cache_pool(first_type)) {
			void *page = PTR_ALIGN_DOWN(p[i], JIT_CACHE_PAGE_SIZE);
			void *first_page = PTR_ALIGN_DOWN(first,
							  JIT_CACHE_PAGE_SIZE);

			KUNIT_EXPECT_PTR_EQ_MSG(test, page, first_page,
						"%s and %s text of one pool in different pages",
						jit_type_name(types[i]),
						jit_type_name(first_type));
		}
	}
	for (i = 0; i < ARRAY_SIZE(types); i++)
		execmem_free(p[i]);
}

/*
 * Writes go through text poking, inside one live allocation only: one
 * that runs past its end is refused, counted, and writes nothing.
 */
static void execmem_test_update(struct kunit *test)
{
	int type = execmem_test_type(test);
	unsigned long refused = execmem_cache_refused();
	u8 trap = execmem_arch_trap_byte();
	u8 *p, src[200];
	size_t end;

	memset(src, 0x11, sizeof(src));
	/* a whole number of chunks, whatever their size: its end is known */
	end = PAGE_SIZE;
	p = execmem_alloc(type, end);
	KUNIT_ASSERT_NOT_NULL(test, p);

	KUNIT_EXPECT_PTR_EQ(test, execmem_update_copy(p, src, sizeof(src)),
			    (void *)p);
	KUNIT_EXPECT_EQ(test, memcmp(p, src, sizeof(src)), 0);
	KUNIT_EXPECT_PTR_EQ(test, execmem_update_set(p + 10, 0x5a, 20),
			    (void *)(p + 10));
	KUNIT_EXPECT_TRUE(test, execmem_test_filled(p + 10, 20, 0x5a));
	KUNIT_EXPECT_TRUE(test, execmem_test_filled(p + sizeof(src),
						    end - sizeof(src), trap));

	/* across the end of the allocation: refused, nothing written */
	KUNIT_EXPECT_NULL(test, execmem_update_copy(p + end - 4, src, 8));
	KUNIT_EXPECT_NULL(test, execmem_update_set(p + end - 4, 0x33, 8));
	KUNIT_EXPECT_TRUE(test, execmem_test_filled(p + sizeof(src),
						    end - sizeof(src), trap));
	KUNIT_EXPECT_EQ(test, execmem_cache_refused(), refused + 2);
	execmem_free(p);
}

#ifdef CONFIG_FAULT_INJECTION
KUNIT_DEFINE_ACTION_WRAPPER(execmem_test_pool_destroy, jit_cache_pool_destroy,
			    struct jit_cache_pool *);

/*
 * A pool of the engine's own over one free 2 MiB slot, destroyed when the
 * test ends; *@start is set to the slot.
 */
static struct jit_cache_pool *execmem_test_slot_pool(struct kunit *test,
						     unsigned long *start)
{
	struct jit_address_space as = { .prot = JIT_PROT_ROX };
	struct jit_cache_pool *pool;

	if (!jit_cache_pages_possible(PAGE_KERNEL))
		kunit_skip(test, "no huge vmalloc mappings here");
	as.start = jit_test_free_slot(test);
	as.end = as.start + JIT_CACHE_PAGE_SIZE;
	pool = jit_cache_pool_create(test->name, &as, false,
				     execmem_arch_trap_byte(), 20);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							execmem_test_pool_destroy,
							pool), 0);
	*start = as.start;
	return pool;
}

/*
 * A filled page that cannot be mapped executable is given back (see
 * jit_test_map_failure()); the page the pool gets after it is read-only
 * and executable, its alias read-only.  The engine's pool here covers one
 * free 2 MiB slot.
 */
static void execmem_test_map_failure(struct kunit *test)
{
	struct jit_cache_pool *pool;
	unsigned long start;
	void *p;

	pool = execmem_test_slot_pool(test, &start);
	p = jit_test_map_failure(test, pool, start, JIT_TYPE_BPF);
	execmem_test_expect_rox(test, p, JIT_CACHE_PAGE_SIZE);
	execmem_test_expect_alias_ro(test, p);
	KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);
}

/*
 * A page whose alias stays read-only when it is reclaimed keeps its place
 * (see jit_test_kept_page()): execmem_free() into it is refused and
 * counted, not handed to vfree(), and so is a free after its pool is gone.
 */
static void execmem_test_kept_page(struct kunit *test)
{
	struct jit_cache_pool *pool;
	unsigned long refused, start;
	void *p;

	/* execmem_free() looks at the cache only while execmem uses it */
	execmem_test_type(test);
	pool = execmem_test_slot_pool(test, &start);
	p = jit_test_kept_page(test, pool, JIT_TYPE_BPF);
	refused = execmem_cache_refused();
	execmem_free(p);
	KUNIT_EXPECT_EQ(test, execmem_cache_refused(), refused + 1);
	KUNIT_EXPECT_NOT_NULL_MSG(test, find_vm_area(p),
				  "the kept page's area was freed");

	kunit_release_action(test, execmem_test_pool_destroy, pool);
	KUNIT_EXPECT_EQ(test, jit_cache_free(p), -EINVAL);
}
#else
static void execmem_test_map_failure(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_FAULT_INJECTION");
}

static void execmem_test_kept_page(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_FAULT_INJECTION");
}
#endif

/*
 * A free of what is not the start of a live allocation - twice, or from
 * its middle - is refused and counted; the allocation stays usable.
 */
static void execmem_test_bad_free(struct kunit *test)
{
	int type = execmem_test_type(test);
	unsigned long refused;
	u8 *p, *q, src[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	p = execmem_alloc(type, 64);
	KUNIT_ASSERT_NOT_NULL(test, p);
	/* chunks divide a page: q + PAGE_SIZE is inside, not a start */
	q = execmem_alloc(type, 3 * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, q);

	refused = execmem_cache_refused();
	execmem_free(q + PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, execmem_cache_refused(), refused + 1);
	KUNIT_EXPECT_PTR_EQ(test, execmem_update_copy(q + 2 * PAGE_SIZE,
						      src, sizeof(src)),
			    (void *)(q + 2 * PAGE_SIZE));

	execmem_free(p);
	execmem_free(p);
	KUNIT_EXPECT_EQ(test, execmem_cache_refused(), refused + 2);
	execmem_free(q);
}

/*
 * A freed chunk is filled with traps again before it can be handed out:
 * after the pool's pending refills, its old bytes are gone.
 */
static void execmem_test_refill(struct kunit *test)
{
	int type = execmem_test_type(test);
	u8 *p, *keep, src[128];

	memset(src, 0x22, sizeof(src));
	keep = execmem_alloc(type, 64);
	KUNIT_ASSERT_NOT_NULL(test, keep);
	p = execmem_alloc(type, sizeof(src));
	KUNIT_ASSERT_NOT_NULL(test, p);
	if (PTR_ALIGN_DOWN(p, JIT_CACHE_PAGE_SIZE) !=
	    PTR_ALIGN_DOWN(keep, JIT_CACHE_PAGE_SIZE)) {
		execmem_free(p);
		execmem_free(keep);
		kunit_skip(test, "two allocations in different huge pages");
	}
	KUNIT_ASSERT_NOT_NULL(test, execmem_update_copy(p, src, sizeof(src)));
	execmem_free(p);
	/* @keep holds the page: it stays mapped through the reclaim */
	jit_cache_flush(execmem_cache_pool(type));
	KUNIT_EXPECT_TRUE_MSG(test, execmem_test_filled(p, sizeof(src),
							execmem_arch_trap_byte()),
			      "freed text at %p still holds its bytes", p);
	execmem_free(keep);
}

/*
 * More than a huge page: page-granular, with the promises of a chunk -
 * read-only, executable, trap-filled, a read-only alias, written by
 * execmem_update_copy() - and counted as the pool's fallback.  A free of
 * its guard page is refused: the area stays mapped.
 */
static void execmem_test_fallback(struct kunit *test)
{
	int type = execmem_test_type(test);
	size_t size = JIT_CACHE_PAGE_SIZE + PAGE_SIZE;
	unsigned long allocs, pages, allocs0, pages0, refused;
	u8 *p, src[16];

	memset(src, 0x44, sizeof(src));
	jit_cache_pool_fallbacks(execmem_cache_pool(type), &allocs0, &pages0);
	p = execmem_alloc(type, size);
	KUNIT_ASSERT_NOT_NULL(test, p);
	execmem_test_expect_rox(test, p, PAGE_SIZE);
	execmem_test_expect_rox(test, p + size - 1, PAGE_SIZE);
	execmem_test_expect_alias_ro(test, p);
	execmem_test_expect_alias_ro(test, p + size - PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, execmem_test_filled(p, PAGE_SIZE,
						    execmem_arch_trap_byte()));
	KUNIT_EXPECT_TRUE(test, execmem_test_filled(p + size - PAGE_SIZE,
						    PAGE_SIZE,
						    execmem_arch_trap_byte()));
	KUNIT_EXPECT_NOT_NULL(test, execmem_update_copy(p + size - sizeof(src),
							src, sizeof(src)));
	KUNIT_EXPECT_EQ(test, memcmp(p + size - sizeof(src), src, sizeof(src)), 0);
	KUNIT_EXPECT_NULL(test, execmem_update_copy(p + size - 8, src,
						    sizeof(src)));
	jit_cache_pool_fallbacks(execmem_cache_pool(type), &allocs, &pages);
	KUNIT_EXPECT_EQ(test, allocs, allocs0 + 1);
	KUNIT_EXPECT_EQ(test, pages, pages0 + (size >> PAGE_SHIFT));

	refused = execmem_cache_refused();
	execmem_free(p + size);
	KUNIT_EXPECT_EQ(test, execmem_cache_refused(), refused + 1);
	execmem_test_expect_rox(test, p, PAGE_SIZE);
	execmem_test_expect_rox(test, p + size - 1, PAGE_SIZE);
	execmem_free(p);
	jit_cache_pool_fallbacks(execmem_cache_pool(type), &allocs, &pages);
	KUNIT_EXPECT_EQ(test, pages, pages0);
}

/*
 * Whether a pool could serve a request now (what kprobes asks before it
 * keeps a stand-in, execmem_fallback_replaceable()): yes for a chunk of
 * a page the pool holds, no for nothing or more than a huge page; and
 * memory that is not page-granular text is never a stand-in.
 */
static void execmem_test_room(struct kunit *test)
{
	int type = execmem_test_type(test);
	struct jit_cache_pool *pool = execmem_cache_pool(type);
	void *p = execmem_alloc(type, 64);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, jit_cache_has_room(pool, 64));
	KUNIT_EXPECT_FALSE(test, jit_cache_has_room(pool, 0));
	KUNIT_EXPECT_FALSE(test, jit_cache_has_room(pool,
						    JIT_CACHE_PAGE_SIZE + 1));
	KUNIT_EXPECT_FALSE(test, execmem_is_fallback(p));
	KUNIT_EXPECT_FALSE(test, execmem_fallback_replaceable(p));
	execmem_free(p);
}

static struct kunit_case execmem_cache_cases[] = {
	KUNIT_CASE(execmem_test_chunks),
	KUNIT_CASE(execmem_test_update),
	KUNIT_CASE(execmem_test_map_failure),
	KUNIT_CASE(execmem_test_kept_page),
	KUNIT_CASE(execmem_test_bad_free),
	KUNIT_CASE(execmem_test_refill),
	KUNIT_CASE(execmem_test_fallback),
	KUNIT_CASE(execmem_test_room),
	{}
};

static struct kunit_suite execmem_cache_suite = {
	.name = "execmem_cache",
	.test_cases = execmem_cache_cases,
};

kunit_test_suite(execmem_cache_suite);

MODULE_DESCRIPTION("KUnit test of execmem's cache");
MODULE_LICENSE("GPL");
