/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of the jit allocator and its cache share to
 * inject faults: a fault attribute armed for the test's own task, with
 * what debugfs had set put back afterwards, and the case of a filled
 * page that cannot be mapped executable.  Included by those suites only.
 */
#ifndef _MM_JITALLOC_FAULT_TEST_H
#define _MM_JITALLOC_FAULT_TEST_H

#ifdef CONFIG_FAULT_INJECTION
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/jiffies.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "jitalloc_cache.h"

/**
 * jit_test_fault_arm() - make the next calls of this task fail
 * @attr: the fault attribute
 * @saved: where to keep what debugfs had set, for jit_test_fault_disarm()
 * @times: how many calls fail
 *
 * Only the calling task fails: the kernel's own pools may grow meanwhile
 * and must not take the failure.
 */
static inline void jit_test_fault_arm(struct fault_attr *attr,
				      struct fault_attr *saved, int times)
{
	*saved = *attr;
	attr->verbose = 0;
	attr->interval = 1;
	atomic_set(&attr->space, 0);
	atomic_set(&attr->times, times);
	attr->task_filter = true;
	current->make_it_fail = 1;
	/* the filter before the probability that lets anything fail */
	smp_wmb();
	WRITE_ONCE(attr->probability, 100);
}

/**
 * jit_test_fault_disarm() - undo jit_test_fault_arm()
 * @attr: the fault attribute
 * @saved: what jit_test_fault_arm() found
 * @times: what jit_test_fault_arm() was given
 *
 * Return: true if at least one call failed.
 */
static inline bool jit_test_fault_disarm(struct fault_attr *attr,
					 struct fault_attr *saved, int times)
{
	bool fired = atomic_read(&attr->times) < times;

	WRITE_ONCE(attr->probability, 0);
	smp_wmb();	/* nothing fails before the filter goes */
	current->make_it_fail = 0;
	*attr = *saved;
	return fired;
}

#if JIT_CACHE_CONFIGURED
/**
 * jit_test_map_failure() - a page that cannot be mapped executable
 * @test: the running test
 * @pool: a pool whose range is the one free huge page at @start
 * @start: that page
 * @user: the type of user to allocate as
 *
 * A filled page that, mapped executable, is not one entry (the fault
 * injection pretends so) is given back: its executable mapping taken
 * down, counted, nothing kept or leaked.  Right after the failure its
 * place can be reserved again, which it could not if the page had been
 * kept; the next page, served once the pool's retry delay has passed and
 * not before, lands there.  Skips the test if the failure did not fire
 * and no page was had.
 *
 * Return: that next page's first chunk of 64 bytes, for the caller to
 * check and free.
 */
static inline void *jit_test_map_failure(struct kunit *test,
					 struct jit_cache_pool *pool,
					 unsigned long start,
					 enum jit_alloc_type user)
{
	unsigned long t0 = jiffies;
	struct fault_attr saved;
	struct jit_cache_stats s;
	struct vm_struct *area;
	bool fired;
	void *p;

	jit_test_fault_arm(&jit_fail_map_exec, &saved, 1);
	p = jit_cache_alloc(pool, 64, user);
	fired = jit_test_fault_disarm(&jit_fail_map_exec, &saved, 1);
	if (!fired && !p)
		kunit_skip(test, "no huge page to fail the mapping of");
	KUNIT_EXPECT_TRUE(test, fired);
	KUNIT_EXPECT_NULL(test, p);
	jit_cache_flush(pool);
	jit_cache_get_stats(pool, &s);
	KUNIT_EXPECT_EQ(test, s.map_errors, 1UL);
	KUNIT_EXPECT_EQ(test, s.alias_errors, 0UL);
	KUNIT_EXPECT_EQ(test, s.huge_pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.leaked_pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.allocs, 0UL);

	/* no new page before the retry delay (if this task got there in time) */
	p = jit_cache_alloc(pool, 64, user);
	if (time_before(jiffies, t0 + JIT_CACHE_RETRY))
		KUNIT_EXPECT_NULL(test, p);
	if (p)
		KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);

	/* the place is free again, held here until the retry */
	vm_unmap_aliases();
	area = __get_vm_area_caller(JIT_CACHE_PAGE_SIZE, VM_NO_GUARD, start,
				    start + JIT_CACHE_PAGE_SIZE,
				    __builtin_return_address(0));
	KUNIT_EXPECT_NOT_NULL_MSG(test, area,
				  "the failed page's place was not given back");
	msleep(jiffies_to_msecs(JIT_CACHE_RETRY) + 20);
	if (area) {
		free_vm_area(area);
		vm_unmap_aliases();
	}
	p = jit_cache_alloc(pool, 64, user);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, ALIGN_DOWN((unsigned long)p, JIT_CACHE_PAGE_SIZE),
			start);
	jit_cache_flush(pool);
	jit_cache_get_stats(pool, &s);
	KUNIT_EXPECT_EQ(test, s.huge_pages, 1UL);
	KUNIT_EXPECT_EQ(test, s.map_errors, 1UL);
	return p;
}
#endif /* JIT_CACHE_CONFIGURED */
#endif /* CONFIG_FAULT_INJECTION */
#endif /* _MM_JITALLOC_FAULT_TEST_H */
