/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the KUnit suites of the jit allocator and its cache share: a
 * fault attribute armed for the test's own task, with what debugfs had
 * set put back afterwards; a pool's statistics and a free huge page of
 * vmalloc space for a pool of the test's own; and the cases of a filled
 * page that cannot be mapped executable and of a page whose alias stays
 * read-only.  Included by those suites only.
 */
#ifndef _MM_JITALLOC_FAULT_TEST_H
#define _MM_JITALLOC_FAULT_TEST_H

#include <kunit/test.h>

#include "jitalloc_cache.h"

#if JIT_CACHE_CONFIGURED
#include <linux/vmalloc.h>

#include "internal.h"

/* Flushed statistics of @pool. */
static inline struct jit_cache_stats
jit_test_pool_stats(struct jit_cache_pool *pool)
{
	struct jit_cache_stats s;

	jit_cache_flush(pool);
	jit_cache_get_stats(pool, &s);
	return s;
}

/**
 * jit_test_free_slot() - a free huge page of vmalloc space
 * @test: the running test, skipped when there is none
 *
 * The highest one: vmalloc allocates bottom-up, so the kernel's own
 * allocations are the least likely to land there while a test's pool
 * uses it.
 *
 * Return: its start.
 */
static inline unsigned long jit_test_free_slot(struct kunit *test)
{
	unsigned long start;

	start = vmap_highest_free(JIT_CACHE_PAGE_SIZE, JIT_CACHE_PAGE_SIZE,
				  VMALLOC_START, VMALLOC_END);
	if (!start)
		kunit_skip(test, "no free huge page of vmalloc space");
	return start;
}
#endif /* JIT_CACHE_CONFIGURED */

#ifdef CONFIG_FAULT_INJECTION
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/jiffies.h>
#include <linux/sched.h>

/**
 * struct jit_test_fault - a fault attribute armed by a test
 * @attr: the attribute
 * @times: how many calls were to fail
 * @saved: what debugfs had set, put back by jit_test_fault_disarm()
 * @make_it_fail: the task's own flag before
 *
 * Only the fields a test sets are saved and put back, one by one: the
 * attribute's count and rate limit stay the kernel's.
 */
struct jit_test_fault {
	struct fault_attr *attr;
	int times;
	struct {
		unsigned long probability, interval, verbose;
		unsigned long require_start, require_end;
		unsigned long reject_start, reject_end;
		int times, space;
		bool task_filter;
	} saved;
	unsigned int make_it_fail;
};

/**
 * jit_test_fault_arm() - make the next calls of this task fail
 * @f: where to keep what the attribute held
 * @attr: the fault attribute
 * @times: how many calls fail
 *
 * Only the calling task fails, whatever stack it fails from: the
 * kernel's own pools may grow meanwhile and must not take the failure.
 * The attribute's fault site reads the probability before the task
 * filter, with no barrier of its own, so another CPU may in theory still
 * pair the new probability with the old filter: such a stray failure
 * makes the test fail, it cannot make it pass.
 */
static inline void jit_test_fault_arm(struct jit_test_fault *f,
				      struct fault_attr *attr, int times)
{
	f->attr = attr;
	f->times = times;
	f->saved.probability = READ_ONCE(attr->probability);
	f->saved.interval = attr->interval;
	f->saved.verbose = attr->verbose;
	f->saved.require_start = attr->require_start;
	f->saved.require_end = attr->require_end;
	f->saved.reject_start = attr->reject_start;
	f->saved.reject_end = attr->reject_end;
	f->saved.times = atomic_read(&attr->times);
	f->saved.space = atomic_read(&attr->space);
	f->saved.task_filter = attr->task_filter;
	f->make_it_fail = current->make_it_fail;

	WRITE_ONCE(attr->probability, 0);
	smp_wmb();	/* nothing fails while the rest changes */
	attr->verbose = 0;
	attr->interval = 1;
	attr->require_start = 0;
	attr->require_end = ULONG_MAX;
	attr->reject_start = 0;
	attr->reject_end = 0;
	atomic_set(&attr->space, 0);
	atomic_set(&attr->times, times);
	attr->task_filter = true;
	current->make_it_fail = 1;
	smp_wmb();	/* the filter before the probability */
	WRITE_ONCE(attr->probability, 100);
}

/**
 * jit_test_fault_disarm() - undo jit_test_fault_arm()
 * @f: what jit_test_fault_arm() kept
 *
 * Return: true if at least one call failed.
 */
static inline bool jit_test_fault_disarm(struct jit_test_fault *f)
{
	struct fault_attr *attr = f->attr;
	bool fired = atomic_read(&attr->times) < f->times;

	atomic_set(&attr->times, 0);
	WRITE_ONCE(attr->probability, 0);
	smp_wmb();	/* no more failures, before the filter is lifted */
	current->make_it_fail = f->make_it_fail;
	attr->task_filter = f->saved.task_filter;
	attr->verbose = f->saved.verbose;
	attr->interval = f->saved.interval;
	attr->require_start = f->saved.require_start;
	attr->require_end = f->saved.require_end;
	attr->reject_start = f->saved.reject_start;
	attr->reject_end = f->saved.reject_end;
	atomic_set(&attr->space, f->saved.space);
	atomic_set(&attr->times, f->saved.times);
	smp_wmb();	/* what debugfs had set, before its probability */
	WRITE_ONCE(attr->probability, f->saved.probability);
	return fired;
}

#if JIT_CACHE_CONFIGURED
/* How long past a pool's retry delay a test waits before asking again. */
#define JIT_TEST_FAULT_GRACE_MS	20

/**
 * jit_test_map_failure() - a page that cannot be mapped executable
 * @test: the running test
 * @pool: a pool whose range is the one free huge page at @start
 * @start: that page (jit_test_free_slot())
 * @user: the type of user to allocate as
 *
 * A filled page that, mapped executable, is not one entry (the fault
 * injection pretends so) is given back: its executable mapping taken
 * down, counted, nothing kept or leaked.  The pool gets no new page
 * before its retry delay has passed; until then the failed page's place
 * can be reserved again, which it could not if the page had been kept.
 * The next page lands there.  Skips the test only if the failure did not
 * fire because no page could be had at all, with nothing counted.
 *
 * Context: process context; sleeps for the pool's retry delay.
 * Return: that next page's first chunk of 64 bytes, for the caller to
 * check and free.
 */
static inline void *jit_test_map_failure(struct kunit *test,
					 struct jit_cache_pool *pool,
					 unsigned long start,
					 enum jit_alloc_type user)
{
	unsigned long t0 = jiffies;
	struct jit_test_fault f;
	struct jit_cache_stats s;
	struct vm_struct *area;
	void *p, *served;
	bool fired;

	jit_test_fault_arm(&f, &jit_fail_map_exec, 1);
	p = jit_cache_alloc(pool, 64, user);
	fired = jit_test_fault_disarm(&f);
	s = jit_test_pool_stats(pool);
	if (!fired && !p) {
		/* no page at all is no reason to fail, a refused one is */
		KUNIT_ASSERT_EQ(test, s.alias_errors, 0UL);
		KUNIT_ASSERT_EQ(test, s.map_errors, 0UL);
		KUNIT_ASSERT_EQ(test, s.leaked_pages, 0UL);
		kunit_skip(test, "no huge page to fail the mapping of");
	}
	KUNIT_EXPECT_TRUE(test, fired);
	served = p;
	if (p)
		KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);
	KUNIT_ASSERT_NULL_MSG(test, served, "the page that failed was served");
	KUNIT_EXPECT_EQ(test, s.map_errors, 1UL);
	KUNIT_EXPECT_EQ(test, s.alias_errors, 0UL);
	KUNIT_EXPECT_EQ(test, s.huge_pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.leaked_pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.allocs, 0UL);

	/* no new page before the retry delay (if this task got there in time) */
	p = jit_cache_alloc(pool, 64, user);
	if (time_before(jiffies, t0 + JIT_CACHE_RETRY))
		KUNIT_EXPECT_NULL(test, p);
	if (!p) {
		/* the place is free again, held here until the retry */
		vm_unmap_aliases();
		area = __get_vm_area_caller(JIT_CACHE_PAGE_SIZE, VM_NO_GUARD,
					    start, start + JIT_CACHE_PAGE_SIZE,
					    (void *)_THIS_IP_);
		KUNIT_EXPECT_NOT_NULL_MSG(test, area,
					  "the failed page's place was not given back");
		msleep(jiffies_to_msecs(JIT_CACHE_RETRY) +
		       JIT_TEST_FAULT_GRACE_MS);
		if (area) {
			free_vm_area(area);
			vm_unmap_aliases();
		}
		p = jit_cache_alloc(pool, 64, user);
		KUNIT_ASSERT_NOT_NULL(test, p);
	}
	KUNIT_EXPECT_EQ(test, ALIGN_DOWN((unsigned long)p, JIT_CACHE_PAGE_SIZE),
			start);
	s = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, s.huge_pages, 1UL);
	KUNIT_EXPECT_EQ(test, s.map_errors, 1UL);
	return p;
}

/**
 * jit_test_kept_page() - a page whose alias stays read-only when it goes
 * @test: the running test
 * @pool: a pool of the test's own, with no page yet
 * @user: the type of user to allocate as
 *
 * A free huge page whose linear alias cannot be made writable again when
 * it is reclaimed keeps its pages out of use, counted, and its place in
 * the lookup tree: a free or a write into it is refused (-EINVAL), not
 * taken for an address no pool knows (-ENOENT), which the caller would
 * hand on to vfree(), freeing pages still read-only in the direct map.
 *
 * Context: process context.
 * Return: the chunk the page held, for the caller to check again after
 * its pool is gone.
 */
static inline void *jit_test_kept_page(struct kunit *test,
				       struct jit_cache_pool *pool,
				       enum jit_alloc_type user)
{
	unsigned long reclaimed = 0;
	struct jit_test_fault f;
	struct jit_cache_stats s;
	bool fired = false;
	void *p, *mid;
	int tries;

	p = jit_cache_alloc(pool, 64, user);
	if (!p) {
		s = jit_test_pool_stats(pool);
		KUNIT_ASSERT_EQ(test, s.alias_errors + s.map_errors, 0UL);
		kunit_skip(test, "no huge page to keep");
	}
	KUNIT_ASSERT_EQ(test, jit_cache_free(p), 0);
	/* refilled, the page is the pool's spare */
	KUNIT_ASSERT_EQ(test, jit_test_pool_stats(pool).huge_pages, 1UL);

	/* a reclaim for memory pressure only tries the pool's lock */
	for (tries = 0; tries < 10 && !reclaimed; tries++) {
		if (tries)
			msleep(20);
		jit_test_fault_arm(&f, &jit_fail_alias, 1);
		reclaimed = jit_cache_reclaim(pool, true);
		fired = jit_test_fault_disarm(&f);
	}
	KUNIT_ASSERT_EQ(test, reclaimed, 1UL);
	KUNIT_ASSERT_TRUE(test, fired);
	s = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, s.huge_pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.leaked_pages,
			(unsigned long)(JIT_CACHE_PAGE_SIZE >> PAGE_SHIFT));

	KUNIT_EXPECT_EQ(test, jit_cache_free(p), -EINVAL);
	mid = PTR_ALIGN_DOWN(p, JIT_CACHE_PAGE_SIZE) + JIT_CACHE_PAGE_SIZE / 2;
	KUNIT_EXPECT_EQ(test, jit_cache_free(mid), -EINVAL);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(p, 1), -EINVAL);
	return p;
}
#endif /* JIT_CACHE_CONFIGURED */
#endif /* CONFIG_FAULT_INJECTION */
#endif /* _MM_JITALLOC_FAULT_TEST_H */
