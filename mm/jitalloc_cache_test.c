// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for mm/jitalloc_cache.c.
 *
 * Each case makes its own pool in the vmalloc range, so the counters it
 * checks are its own and the pools the kernel uses are not disturbed.
 * Protections and mapping levels are read back from the page tables, not
 * taken from the allocator's word.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jitalloc.h>
#include <linux/kthread.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pagewalk.h>
#include <linux/pgtable.h>
#include <linux/prandom.h>
#include <linux/set_memory.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmstat.h>
#include <linux/vmalloc.h>
#ifdef CONFIG_X86
#include <asm/alternative.h>
#endif

#include "internal.h"
#include "jitalloc_cache.h"
#include "jitalloc_fault_test.h"
#include "jitalloc_internal.h"
#include "jitalloc_test_pt.h"

#define TEST_GRACE_MS	20

/* How long cache_test_refill_race hammers a pool; longer runs raise it. */
static unsigned int race_ms = 1500;
module_param(race_ms, uint, 0444);
MODULE_PARM_DESC(race_ms, "milliseconds of cache_test_refill_race");

/* The byte the kernel fills text with: it traps when executed. */
static u8 test_fill(void)
{
	return jit_alloc_default_ctx()->params.text_fill;
}

static struct jit_cache_pool *test_pool(struct kunit *test, unsigned long start,
					unsigned long end, unsigned int grace_ms)
{
	struct jit_address_space as = {
		.prot = JIT_PROT_ROX,
		.start = start,
		.end = end,
	};
	struct jit_cache_pool *pool;

	pool = jit_cache_pool_create(test->name, &as, false, test_fill(),
				     grace_ms);
	KUNIT_ASSERT_NOT_NULL(test, pool);
	test->priv = pool;
	return pool;
}

/*
 * A pool in the vmalloc range.  Booted with nohugevmalloc, or on an arch
 * without huge vmalloc mappings, every request falls back and there is
 * nothing for these cases to test.
 */
static void require_huge_vmalloc(struct kunit *test)
{
	if (!jit_cache_pages_possible(PAGE_KERNEL))
		kunit_skip(test, "no huge vmalloc mappings here");
}

static struct jit_cache_pool *vmalloc_pool(struct kunit *test)
{
	require_huge_vmalloc(test);
	return test_pool(test, VMALLOC_START, VMALLOC_END, TEST_GRACE_MS);
}

static void cache_test_exit(struct kunit *test)
{
	if (test->priv)
		jit_cache_pool_destroy(test->priv);
}

/* Does [p, p + len) hold nothing but the arch's trapping fill? */
static bool all_traps(const void *p, size_t len)
{
	return !memchr_inv(p, test_fill(), len);
}

static void cache_test_rounding_and_alignment(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	void *one, *chunk1, *page, *odd;
	struct jit_cache_stats s;

	one = jit_cache_alloc(pool, 1, JIT_TYPE_ITS);
	chunk1 = jit_cache_alloc(pool, 65, JIT_TYPE_BPF);
	page = jit_cache_alloc(pool, PAGE_SIZE + 1, JIT_TYPE_KPROBES);
	odd = jit_cache_alloc(pool, 3000, JIT_TYPE_FTRACE);
	KUNIT_ASSERT_NOT_NULL(test, one);
	KUNIT_ASSERT_NOT_NULL(test, chunk1);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_NOT_NULL(test, odd);

	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)one, 64));
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)chunk1, 64));
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)page, PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED((unsigned long)odd, 64));
	/* 1 byte takes one chunk, so the next allocation follows it */
	KUNIT_EXPECT_PTR_EQ(test, chunk1, one + 64);

	s = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, s.bytes_in_use[JIT_TYPE_ITS], 64UL);
	KUNIT_EXPECT_EQ(test, s.bytes_in_use[JIT_TYPE_BPF], 128UL);
	KUNIT_EXPECT_EQ(test, s.bytes_in_use[JIT_TYPE_KPROBES], PAGE_SIZE + 64);
	KUNIT_EXPECT_EQ(test, s.bytes_in_use[JIT_TYPE_FTRACE], 3008UL);
	KUNIT_EXPECT_EQ(test, s.huge_pages, 1UL);

	KUNIT_EXPECT_EQ(test, jit_cache_free(one), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_free(chunk1), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_free(page), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_free(odd), 0);
}

static void cache_test_rox_pmd_mapping(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	void *p = jit_cache_alloc(pool, 128, JIT_TYPE_ITS);
	struct jit_test_leaf l;

	KUNIT_ASSERT_NOT_NULL(test, p);
	l = jit_test_leaf_of((unsigned long)p);
	KUNIT_EXPECT_TRUE(test, l.present);
	KUNIT_EXPECT_TRUE(test, l.huge);
	KUNIT_EXPECT_FALSE(test, l.writable);
	KUNIT_EXPECT_TRUE(test, l.exec);
#ifdef CONFIG_X86
	/* the direct-map alias must not be a way to write the code */
	l = jit_test_leaf_of((unsigned long)page_address(vmalloc_to_page(p)));
	KUNIT_EXPECT_TRUE(test, l.present);
	KUNIT_EXPECT_FALSE(test, l.writable);
	KUNIT_EXPECT_FALSE(test, l.exec);
#endif
	KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);
}

static void cache_test_trap_fill(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	u8 code[256];
	void *p, *q;

	p = jit_cache_alloc(pool, sizeof(code), JIT_TYPE_ITS);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, all_traps(p, sizeof(code)));

	memset(code, 0x5a, sizeof(code));
	jit_update_copy(p, code, sizeof(code));
	KUNIT_EXPECT_EQ(test, memcmp(p, code, sizeof(code)), 0);

	KUNIT_ASSERT_EQ(test, jit_cache_free(p), 0);
	jit_cache_flush(pool);
	/* the freed chunks were refilled and are handed out first again */
	KUNIT_EXPECT_TRUE(test, all_traps(p, sizeof(code)));
	q = jit_cache_alloc(pool, sizeof(code), JIT_TYPE_ITS);
	KUNIT_EXPECT_PTR_EQ(test, q, p);
	KUNIT_EXPECT_TRUE(test, all_traps(q, sizeof(code)));
	KUNIT_EXPECT_EQ(test, jit_cache_free(q), 0);
}

/* A large freed run is refilled in full, and nothing around it is touched. */
static void cache_test_trap_fill_large(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	const size_t len = 9 * PAGE_SIZE + 3 * 64;
	void *before, *p, *after;

	before = jit_cache_alloc(pool, 64, JIT_TYPE_ITS);
	p = jit_cache_alloc(pool, len, JIT_TYPE_ITS);
	after = jit_cache_alloc(pool, 64, JIT_TYPE_ITS);
	KUNIT_ASSERT_NOT_NULL(test, before);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, after);
	jit_update_set(before, 0x5a, 64);
	jit_update_set(p, 0x5a, len);
	jit_update_set(after, 0x5a, 64);
	KUNIT_ASSERT_EQ(test, *(u8 *)(p + len - 1), 0x5a);

	KUNIT_ASSERT_EQ(test, jit_cache_free(p), 0);
	jit_cache_flush(pool);
	KUNIT_EXPECT_TRUE(test, all_traps(p, len));
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(before, 0x5a, 64), NULL);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(after, 0x5a, 64), NULL);
	KUNIT_EXPECT_EQ(test, jit_cache_free(before), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_free(after), 0);
}

/*
 * Writes larger than the piece jit_update_copy() and jit_update_set() poke
 * at a time (64 KiB) land whole and in place: every byte of the source at
 * its own offset, the fill up to the last byte, nothing past the end.
 */
static void cache_test_update_large(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	const size_t len = 3 * SZ_64K + 5 * 64;
	void *p, *after;
	size_t i;
	u8 *src;

	p = jit_cache_alloc(pool, len, JIT_TYPE_BPF);
	after = jit_cache_alloc(pool, 64, JIT_TYPE_BPF);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, after);
	src = vmalloc(len);
	KUNIT_ASSERT_NOT_NULL(test, src);
	/* no two 64 KiB pieces alike */
	for (i = 0; i < len; i++)
		src[i] = i ^ (i >> 8) ^ (i >> 16);

	KUNIT_EXPECT_EQ(test, jit_update_copy(p, src, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(p, src, len), 0);
	KUNIT_EXPECT_TRUE(test, all_traps(after, 64));
	KUNIT_EXPECT_EQ(test, jit_update_set(p + 1, 0x5a, len - 1), 0);
	KUNIT_EXPECT_EQ(test, *(u8 *)p, src[0]);
	KUNIT_EXPECT_PTR_EQ(test, memchr_inv(p + 1, 0x5a, len - 1), NULL);
	KUNIT_EXPECT_TRUE(test, all_traps(after, 64));

	KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_free(after), 0);
	vfree(src);
}

/*
 * A freed run longer than 64 KiB is refilled in pieces of at most that,
 * each poked on its own, so that the poking lock is held no longer.
 */
static void cache_test_refill_bounded(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	const size_t len = SZ_64K + SZ_16K;
	unsigned long start, nr, runs = 0, seen = 0;
	struct jit_cache_page *page;
	void *p;

	p = jit_cache_alloc(pool, len, JIT_TYPE_BPF);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, jit_cache_free(p), 0);
	/* the refill worker's own steps, before it runs */
	while ((page = jit_cache_refill_begin(pool, &start, &nr))) {
		KUNIT_EXPECT_LE(test, nr, SZ_64K / 64);
		KUNIT_EXPECT_EQ(test, jit_arch_text_set(p + seen * 64,
							test_fill(), nr * 64), 0);
		jit_cache_refill_end(pool, page, start, nr);
		seen += nr;
		runs++;
	}
	if (!runs)
		kunit_skip(test, "the refill worker took the run first");
	KUNIT_EXPECT_EQ(test, seen, len / 64);
	KUNIT_EXPECT_EQ(test, runs, 2UL);
	KUNIT_EXPECT_TRUE(test, all_traps(p, len));
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).chunks_used, 0UL);
}

static void cache_test_reuse(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	void *p[64];
	int i;

	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = jit_cache_alloc(pool, 64 * (i % 8 + 1), JIT_TYPE_BPF);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < ARRAY_SIZE(p); i++)
		KUNIT_EXPECT_EQ(test, jit_cache_free(p[i]), 0);
	for (i = 0; i < ARRAY_SIZE(p); i++) {
		p[i] = jit_cache_alloc(pool, 64 * (i % 8 + 1), JIT_TYPE_BPF);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	/* everything fit in the first huge page, both times */
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).huge_pages, 1UL);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).reclaims, 0UL);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		KUNIT_EXPECT_EQ(test, jit_cache_free(p[i]), 0);
	KUNIT_EXPECT_EQ(test,
			jit_test_pool_stats(pool).bytes_in_use[JIT_TYPE_BPF],
			0UL);
}

/*
 * jit_cache_has_room() says what an allocation would find: room in a page
 * the pool holds, at the alignment the request would get.
 */
static void cache_test_has_room(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	void *p;

	KUNIT_EXPECT_FALSE(test, jit_cache_has_room(pool, 64));
	p = jit_cache_alloc(pool, 64, JIT_TYPE_BPF);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, jit_cache_has_room(pool, 64));
	KUNIT_EXPECT_FALSE(test, jit_cache_has_room(pool, 0));
	KUNIT_EXPECT_FALSE(test, jit_cache_has_room(pool, JIT_CACHE_PAGE_SIZE));
	/* page aligned: after the page @p is in, one page less than all */
	KUNIT_EXPECT_TRUE(test, jit_cache_has_room(pool, JIT_CACHE_PAGE_SIZE -
						   PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, jit_cache_has_room(pool, JIT_CACHE_PAGE_SIZE -
						    PAGE_SIZE + 1));

	/* refilled and free again, the page is kept as the spare */
	KUNIT_ASSERT_EQ(test, jit_cache_free(p), 0);
	jit_cache_flush(pool);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).huge_pages, 1UL);
	KUNIT_EXPECT_TRUE(test, jit_cache_has_room(pool, JIT_CACHE_PAGE_SIZE));
}

static void cache_test_reclaim_keeps_spare(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	void *a, *b;

	/* two whole huge pages */
	a = jit_cache_alloc(pool, JIT_CACHE_PAGE_SIZE, JIT_TYPE_MODULE_TEXT);
	b = jit_cache_alloc(pool, JIT_CACHE_PAGE_SIZE, JIT_TYPE_MODULE_TEXT);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).huge_pages, 2UL);

	KUNIT_EXPECT_EQ(test, jit_cache_free(a), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_free(b), 0);
	jit_cache_flush(pool);
	msleep(TEST_GRACE_MS * 3);
	jit_cache_flush(pool);
	/* after the grace period one page went back, the spare stayed */
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).huge_pages, 1UL);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).spare_pages, 1UL);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).reclaims, 1UL);

	/* memory pressure takes the spare too */
	KUNIT_EXPECT_EQ(test, jit_cache_reclaim(pool, true), 1UL);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).huge_pages, 0UL);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).reclaims, 2UL);
}

/*
 * jit_text_held_pages(), the JitText line of /proc/meminfo, counts a huge
 * page whole from when its pool maps it until it goes back, and text
 * allocated page by page until it is freed.
 */
static void cache_test_text_held_pages(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	unsigned long before = jit_text_held_pages();
	void *a, *p;

	a = jit_cache_alloc(pool, 64, JIT_TYPE_BPF);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, jit_text_held_pages() - before,
			JIT_CACHE_PAGE_SIZE >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, jit_cache_free(a), 0);
	jit_cache_flush(pool);
	KUNIT_EXPECT_EQ(test, jit_cache_reclaim(pool, true), 1UL);
	KUNIT_EXPECT_EQ(test, jit_text_held_pages(), before);

	p = jit_text_alloc(3 * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, jit_text_held_pages() - before, 3UL);
	jit_free(p);
	KUNIT_EXPECT_EQ(test, jit_text_held_pages(), before);
}

static void cache_test_no_huge_page(struct kunit *test)
{
	/* a range that cannot hold one huge page: every allocation fails */
	unsigned long start = ALIGN(VMALLOC_START, JIT_CACHE_PAGE_SIZE) +
			      JIT_CACHE_PAGE_SIZE / 4;
	struct jit_cache_pool *pool = test_pool(test, start,
						start + JIT_CACHE_PAGE_SIZE / 2,
						TEST_GRACE_MS);
	struct jit_cache_stats s;

	KUNIT_EXPECT_NULL(test, jit_cache_alloc(pool, 64, JIT_TYPE_BPF));
	KUNIT_EXPECT_NULL(test, jit_cache_alloc(pool, PAGE_SIZE, JIT_TYPE_BPF));
	s = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, s.huge_pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.allocs, 0UL);
}

static void cache_test_bad_requests(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);

	KUNIT_EXPECT_NULL(test, jit_cache_alloc(pool, 0, JIT_TYPE_ITS));
	KUNIT_EXPECT_NULL(test, jit_cache_alloc(pool, JIT_CACHE_PAGE_SIZE + 1,
						JIT_TYPE_ITS));
	KUNIT_EXPECT_NULL(test, jit_cache_alloc(pool, 64, JIT_TYPE_NR));
	/* data is never cached: no chunk of a ROX page for it */
	KUNIT_EXPECT_NULL(test, jit_cache_alloc(pool, 64, JIT_TYPE_MODULE_DATA));
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).huge_pages, 0UL);
}

static void cache_test_bad_free(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	struct jit_cache_stats before, after;
	void *p, *q;
	int ret;

	p = jit_cache_alloc(pool, 128, JIT_TYPE_ITS);
	q = jit_cache_alloc(pool, 64, JIT_TYPE_ITS);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);
	before = jit_test_pool_stats(pool);

	/* refused without a word: jit_free() warns and counts */
	ret = jit_cache_free(p);		/* double free */
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	ret = jit_cache_free(q + 32);		/* inside, not a start */
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, jit_cache_free(&ret), -ENOENT);	/* not ours */

	after = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, memcmp(&before, &after, sizeof(before)), 0);
	/* q is intact and still frees */
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(q, 64), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_free(q), 0);
}

static void cache_test_update_bounds(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	void *p = jit_cache_alloc(pool, 100, JIT_TYPE_ITS);	/* 128 */
	void *q = jit_cache_alloc(pool, 64, JIT_TYPE_ITS);
	int x;

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(p, 128), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(p + 64, 64), 0);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(p + 64, 65), -EINVAL);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(p, 192), -EINVAL);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(q + 64, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(&x, 1), -ENOENT);
	KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);
	/* freed memory may not be written */
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(p, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, jit_cache_free(q), 0);
}

struct stress_arg {
	struct jit_cache_pool *pool;
	struct completion done;
	u32 seed;
	int errors;
};

#define STRESS_THREADS	4
#define STRESS_ROUNDS	300
#define STRESS_LIVE	16

/* Allocate and free at random, checking no one else wrote our memory. */
static int stress_thread(void *data)
{
	struct stress_arg *arg = data;
	struct rnd_state rnd;
	void *live[STRESS_LIVE] = { };
	size_t len[STRESS_LIVE];
	u8 tag[512];
	int i, slot;

	prandom_seed_state(&rnd, arg->seed);
	memset(tag, arg->seed & 0xff, sizeof(tag));
	for (i = 0; i < STRESS_ROUNDS; i++) {
		slot = prandom_u32_state(&rnd) % STRESS_LIVE;
		if (live[slot]) {
			if (memcmp(live[slot], tag, len[slot]))
				arg->errors++;
			if (jit_cache_free(live[slot]))
				arg->errors++;
			live[slot] = NULL;
			continue;
		}
		len[slot] = 1 + prandom_u32_state(&rnd) % sizeof(tag);
		live[slot] = jit_cache_alloc(arg->pool, len[slot],
					     JIT_TYPE_ITS);
		if (!live[slot]) {
			arg->errors++;
			continue;
		}
		jit_update_copy(live[slot], tag, len[slot]);
	}
	for (slot = 0; slot < STRESS_LIVE; slot++) {
		if (!live[slot])
			continue;
		if (memcmp(live[slot], tag, len[slot]))
			arg->errors++;
		if (jit_cache_free(live[slot]))
			arg->errors++;
	}
	complete(&arg->done);
	return 0;
}

static void cache_test_concurrent(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	struct stress_arg args[STRESS_THREADS];
	struct jit_cache_stats s;
	struct task_struct *t;
	int i;

	for (i = 0; i < STRESS_THREADS; i++) {
		args[i].pool = pool;
		args[i].seed = 0x11 * (i + 1);
		args[i].errors = 0;
		init_completion(&args[i].done);
		t = kthread_run(stress_thread, &args[i], "jitcache-test/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	for (i = 0; i < STRESS_THREADS; i++) {
		wait_for_completion(&args[i].done);
		KUNIT_EXPECT_EQ(test, args[i].errors, 0);
	}
	s = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, s.allocs, s.frees);
	KUNIT_EXPECT_EQ(test, s.bytes_in_use[JIT_TYPE_ITS], 0UL);
	KUNIT_EXPECT_EQ(test, s.chunks_used, 0UL);
	KUNIT_EXPECT_GT(test, s.high_water, 0UL);
}

/* Cacheable types come through the jit API read-only and executable. */
static void cache_test_through_jit_api(struct kunit *test)
{
	unsigned long refused;
	u8 code[100], back[28];
	struct jit_test_leaf l;
	void *p;

	if (!jit_type_is_rox(JIT_TYPE_KPROBES))
		kunit_skip(test, "kprobes text is not cached on this architecture");

	p = jit_text_alloc_type(JIT_TYPE_KPROBES, sizeof(code));
	KUNIT_ASSERT_NOT_NULL(test, p);
	l = jit_test_leaf_of((unsigned long)p);
	KUNIT_EXPECT_TRUE(test, l.present);
	KUNIT_EXPECT_FALSE(test, l.writable);
	KUNIT_EXPECT_TRUE(test, l.exec);
	KUNIT_EXPECT_TRUE(test, all_traps(p, sizeof(code)));

	memset(code, 0x90, sizeof(code));
	jit_update_copy(p, code, sizeof(code));
	KUNIT_EXPECT_EQ(test, memcmp(p, code, sizeof(code)), 0);
	jit_update_set(p + 10, 0x5a, 10);
	KUNIT_EXPECT_FALSE(test, memchr_inv(p + 10, 0x5a, 10));

	/* the allocation is 128 bytes: a write past it is refused whole */
	memcpy(back, p + sizeof(code), sizeof(back));
	refused = jit_alloc_refused();
	KUNIT_EXPECT_EQ(test, jit_update_set(p + sizeof(code), 0x11, 64),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused + 1);
	KUNIT_EXPECT_EQ(test, memcmp(back, p + sizeof(code), sizeof(back)), 0);

	jit_free(p);
	jit_free(p);		/* double free: refused, nothing happens */
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused + 2);
}

/*
 * Chunks being refilled are neither live nor free: a second free of them
 * is refused and changes nothing, a write into them is refused, and no
 * allocation gets them until the refill is done.  The refill window is
 * opened by hand with the worker's own two steps.
 */
static void cache_test_refill_window(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	struct jit_cache_stats before, after;
	struct jit_cache_page *page;
	unsigned long start, nr;
	void *p, *r;

	p = jit_cache_alloc(pool, 128, JIT_TYPE_BPF);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, jit_cache_free(p), 0);
	/* take the run before the worker does */
	page = jit_cache_refill_begin(pool, &start, &nr);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, nr, 2UL);
	before = jit_test_pool_stats(pool);

	KUNIT_EXPECT_EQ(test, jit_cache_free(p), -EINVAL);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(p, 1), -EINVAL);
	r = jit_cache_alloc(pool, 128, JIT_TYPE_BPF);
	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_EXPECT_PTR_NE(test, r, p);

	after = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, after.frees, before.frees);
	KUNIT_EXPECT_EQ(test, after.bytes_in_use[JIT_TYPE_BPF],
			before.bytes_in_use[JIT_TYPE_BPF] + 128);
	KUNIT_EXPECT_EQ(test, after.chunks_used, before.chunks_used + 2);

	/* done: the chunks are free again, and nothing else changed */
	KUNIT_EXPECT_EQ(test, jit_arch_text_set(p, test_fill(), 128), 0);
	jit_cache_refill_end(pool, page, start, nr);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).chunks_used, 2UL);
	KUNIT_EXPECT_EQ(test, jit_cache_free(r), 0);
	after = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, after.chunks_used, 0UL);
	KUNIT_EXPECT_EQ(test, after.bytes_in_use[JIT_TYPE_BPF], 0UL);
	KUNIT_EXPECT_EQ(test, after.allocs, after.frees);
}

struct race_arg {
	struct jit_cache_pool *pool;
	unsigned long until;
	u32 seed;
	unsigned long rounds, refused, errors;
	struct completion done;
};

#define RACE_THREADS	3
#define RACE_LIVE	8

/*
 * Allocate, write, check, free - and free again and write again after
 * the free, racing the refill worker.  Each thread has a pool of its own,
 * so that nobody else can get the freed chunks between its two frees:
 * every second free and every late write must be refused, whichever state
 * (pending, being refilled, free) the chunks are in; what a thread wrote
 * must still be there when it frees it, and new chunks come trap-filled.
 */
static int race_thread(void *data)
{
	struct race_arg *arg = data;
	void *live[RACE_LIVE] = { };
	size_t len[RACE_LIVE];
	struct rnd_state rnd;
	u8 tag[256];
	int slot;

	prandom_seed_state(&rnd, arg->seed);
	memset(tag, 0x40 + (arg->seed & 0x3f), sizeof(tag));
	while (time_before(jiffies, arg->until)) {
		arg->rounds++;
		slot = prandom_u32_state(&rnd) % RACE_LIVE;
		if (live[slot]) {
			if (memcmp(live[slot], tag, len[slot]))
				arg->errors++;
			if (jit_cache_free(live[slot]))
				arg->errors++;
			if (jit_cache_free(live[slot]) != -EINVAL)
				arg->errors++;
			else
				arg->refused++;
			if (jit_cache_check_update(live[slot], 1) != -EINVAL)
				arg->errors++;
			live[slot] = NULL;
			continue;
		}
		len[slot] = 1 + prandom_u32_state(&rnd) % sizeof(tag);
		live[slot] = jit_cache_alloc(arg->pool, len[slot],
					     JIT_TYPE_ITS);
		if (!live[slot]) {
			arg->errors++;
			continue;
		}
		if (!all_traps(live[slot], len[slot]))
			arg->errors++;
		jit_update_copy(live[slot], tag, len[slot]);
		cond_resched();
	}
	for (slot = 0; slot < RACE_LIVE; slot++)
		if (live[slot] && jit_cache_free(live[slot]))
			arg->errors++;
	complete(&arg->done);
	return 0;
}

static void cache_test_refill_race(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	struct race_arg args[RACE_THREADS];
	unsigned long rounds = 0, refused = 0;
	struct jit_cache_stats s;
	struct task_struct *t;
	int i;

	static const char * const names[RACE_THREADS] = {
		NULL, "race-1", "race-2",
	};

	for (i = 0; i < RACE_THREADS; i++) {
		struct jit_address_space as = {
			.prot = JIT_PROT_ROX,
			.start = VMALLOC_START,
			.end = VMALLOC_END,
		};

		/* the first thread uses the test's pool, the others their own */
		if (i)
			pool = jit_cache_pool_create(names[i], &as, false,
						     test_fill(), TEST_GRACE_MS);
		KUNIT_ASSERT_NOT_NULL(test, pool);
		args[i] = (struct race_arg){
			.pool = pool,
			.until = jiffies + msecs_to_jiffies(race_ms),
			.seed = 0x21 * (i + 1),
		};
		init_completion(&args[i].done);
		t = kthread_run(race_thread, &args[i], "jitcache-race/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	}
	for (i = 0; i < RACE_THREADS; i++) {
		wait_for_completion(&args[i].done);
		KUNIT_EXPECT_EQ(test, args[i].errors, 0UL);
		rounds += args[i].rounds;
		refused += args[i].refused;
		s = jit_test_pool_stats(args[i].pool);
		KUNIT_EXPECT_EQ(test, s.allocs, s.frees);
		KUNIT_EXPECT_EQ(test, s.bytes_in_use[JIT_TYPE_ITS], 0UL);
		KUNIT_EXPECT_EQ(test, s.chunks_used, 0UL);
		KUNIT_EXPECT_EQ(test, s.huge_pages, 1UL);
		if (i)
			jit_cache_pool_destroy(args[i].pool);
	}
	kunit_info(test, "%lu rounds in %u ms, %lu second frees refused\n",
		   rounds, race_ms, refused);
	KUNIT_EXPECT_GT(test, refused, 0UL);
}

struct churn_arg {
	struct jit_cache_pool *pool;
	unsigned long cycles, errors;
	struct completion done;
};

/* Give @pool's fully free huge pages back, whoever gets its lock first. */
static bool pool_emptied(struct jit_cache_pool *pool)
{
	struct jit_cache_stats s;
	int tries;

	for (tries = 0; tries < 100; tries++) {
		/* the shrinker may take the page, or hold the lock a while */
		jit_cache_reclaim(pool, true);
		jit_cache_get_stats(pool, &s);
		if (!s.huge_pages)
			return true;
		usleep_range(100, 200);
	}
	return false;
}

/*
 * Give @arg->pool a huge page and take it away again, over and over, for
 * race_ms from when the thread starts, and at least ten times.
 */
static int page_churn_thread(void *data)
{
	struct churn_arg *arg = data;
	unsigned long until = jiffies + msecs_to_jiffies(race_ms);
	void *p;

	do {
		p = jit_cache_alloc(arg->pool, 64, JIT_TYPE_ITS);
		if (!p || jit_cache_free(p)) {
			arg->errors++;
			break;
		}
		jit_cache_flush(arg->pool);
		if (!pool_emptied(arg->pool)) {
			arg->errors++;
			break;
		}
		arg->cycles++;
	} while (arg->cycles < 10 || time_before(jiffies, until));
	complete(&arg->done);
	return 0;
}

/*
 * Looking an address up finds its page while other pools' pages come and
 * go.  The pages of all pools share one lookup tree, and adding or removing
 * a page rewrites the tree's node in place: a lookup that does not exclude
 * writers can read a torn node and miss a live allocation, or return
 * another pool's page.  The churning pool lies below the looked-up one, so
 * that every insertion and removal moves the entries that are looked up.
 */
static void cache_test_lookup_while_pages_change(struct kunit *test)
{
	unsigned long mid = VMALLOC_START +
		ALIGN((VMALLOC_END - VMALLOC_START) / 2, JIT_CACHE_PAGE_SIZE);
	struct jit_cache_pool *pool, *other;
	unsigned long lookups = 0, misses = 0;
	struct jit_address_space as = {
		.prot = JIT_PROT_ROX,
		.start = VMALLOC_START,
		.end = mid,
	};
	struct churn_arg arg = { };
	struct task_struct *t;
	void *live[4];
	int i;

	require_huge_vmalloc(test);
	/* the torn read needs a writer and a reader running at once */
	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: lookups and tree updates cannot overlap");
	pool = test_pool(test, mid, VMALLOC_END, TEST_GRACE_MS);
	for (i = 0; i < ARRAY_SIZE(live); i++) {
		live[i] = jit_cache_alloc(pool, 64 << i, JIT_TYPE_ITS);
		KUNIT_ASSERT_NOT_NULL(test, live[i]);
	}
	other = jit_cache_pool_create("lookup-churn", &as, false, test_fill(),
				      TEST_GRACE_MS);
	KUNIT_ASSERT_NOT_NULL(test, other);

	arg.pool = other;
	init_completion(&arg.done);
	t = kthread_run(page_churn_thread, &arg, "jitcache-churn");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	while (!completion_done(&arg.done)) {
		for (i = 0; i < ARRAY_SIZE(live); i++, lookups++)
			if (jit_cache_check_update(live[i], 64 << i))
				misses++;
		if (lookups % 256 == 0)
			cond_resched();
	}
	wait_for_completion(&arg.done);
	jit_cache_pool_destroy(other);

	kunit_info(test, "%lu lookups during %lu page insertions and removals\n",
		   lookups, arg.cycles);
	KUNIT_EXPECT_EQ(test, arg.errors, 0UL);
	KUNIT_EXPECT_GE(test, arg.cycles, 10UL);
	KUNIT_EXPECT_EQ(test, misses, 0UL);
	for (i = 0; i < ARRAY_SIZE(live); i++)
		KUNIT_EXPECT_EQ(test, jit_cache_free(live[i]), 0);
}

/*
 * A caller holding text_mutex (kprobes) neither waits for the refill,
 * which pokes and so takes text_mutex, nor allocates a huge page: the
 * pool does either in the background and the caller falls back once.
 */
static void cache_test_nowait(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	void *p, *q, *r;

	mutex_lock(&text_mutex);
	p = jit_cache_alloc_nowait(pool, 64, JIT_TYPE_KPROBES);
	mutex_unlock(&text_mutex);
	KUNIT_EXPECT_NULL(test, p);
	/* the page was added in the background */
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).huge_pages, 1UL);

	mutex_lock(&text_mutex);
	p = jit_cache_alloc_nowait(pool, PAGE_SIZE, JIT_TYPE_KPROBES);
	q = jit_cache_alloc_nowait(pool, JIT_CACHE_PAGE_SIZE - PAGE_SIZE,
				   JIT_TYPE_KPROBES);
	KUNIT_EXPECT_NOT_NULL(test, p);
	KUNIT_EXPECT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);
	/* the page is full but for p, which waits for its refill */
	r = jit_cache_alloc_nowait(pool, PAGE_SIZE, JIT_TYPE_KPROBES);
	KUNIT_EXPECT_NULL(test, r);
	mutex_unlock(&text_mutex);

	/* once the worker had text_mutex, p's chunks come back */
	jit_cache_flush(pool);
	r = jit_cache_alloc_nowait(pool, PAGE_SIZE, JIT_TYPE_KPROBES);
	KUNIT_EXPECT_PTR_EQ(test, r, p);
	KUNIT_EXPECT_EQ(test, jit_test_pool_stats(pool).huge_pages, 1UL);
	if (r)
		KUNIT_EXPECT_EQ(test, jit_cache_free(r), 0);
	if (q)
		KUNIT_EXPECT_EQ(test, jit_cache_free(q), 0);
}

#ifdef CONFIG_FAULT_INJECTION
/*
 * Make the next @failures alias changes fail, then ask for memory: the
 * huge page whose direct-map alias cannot be made read-only is not used;
 * if its alias cannot be made writable again either, its pages are kept
 * out of the page allocator.  Both are counted.
 */
static void alias_failure_case(struct kunit *test, int failures,
			       unsigned long leaked)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	struct jit_test_fault f;
	struct jit_cache_stats s;
	void *p;

	jit_test_fault_arm(&f, &jit_fail_alias, failures);
	p = jit_cache_alloc(pool, 64, JIT_TYPE_ITS);
	jit_test_fault_disarm(&f);
	KUNIT_EXPECT_NULL(test, p);
	s = jit_test_pool_stats(pool);
	KUNIT_EXPECT_EQ(test, s.alias_errors, 1UL);
	KUNIT_EXPECT_EQ(test, s.huge_pages, 0UL);
	KUNIT_EXPECT_EQ(test, s.leaked_pages, leaked);
	KUNIT_EXPECT_EQ(test, s.allocs, 0UL);
}

static void cache_test_alias_failure(struct kunit *test)
{
	alias_failure_case(test, 1, 0);
}

static void cache_test_alias_restore_failure(struct kunit *test)
{
	alias_failure_case(test, 2, JIT_CACHE_PAGE_SIZE >> PAGE_SHIFT);
}

/*
 * A filled page that cannot be mapped executable is given back (see
 * jit_test_map_failure()); the page the pool gets after it is filled
 * with traps.  The pool's range is one free huge page.
 */
static void cache_test_map_failure(struct kunit *test)
{
	struct jit_cache_pool *pool;
	unsigned long start;
	void *p;

	require_huge_vmalloc(test);
	start = jit_test_free_slot(test);
	pool = test_pool(test, start, start + JIT_CACHE_PAGE_SIZE,
			 TEST_GRACE_MS);

	p = jit_test_map_failure(test, pool, start, JIT_TYPE_ITS);
	KUNIT_EXPECT_TRUE(test, all_traps(p, 64));
	KUNIT_EXPECT_EQ(test, jit_cache_free(p), 0);
}

/*
 * A page whose alias stays read-only when it is reclaimed keeps its place
 * (see jit_test_kept_page()): jit_free() into it is refused and counted,
 * and a free after its pool is gone is refused too.
 */
static void cache_test_kept_page(struct kunit *test)
{
	struct jit_cache_pool *pool = vmalloc_pool(test);
	unsigned long refused;
	void *p;

	p = jit_test_kept_page(test, pool, JIT_TYPE_ITS);
	refused = jit_alloc_refused();
	jit_free(p);
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused + 1);

	jit_cache_pool_destroy(pool);
	test->priv = NULL;
	KUNIT_EXPECT_EQ(test, jit_cache_free(p), -EINVAL);
	KUNIT_EXPECT_EQ(test, jit_cache_check_update(p, 1), -EINVAL);
}
#else
static void cache_test_alias_failure(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_FAULT_INJECTION");
}

static void cache_test_alias_restore_failure(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_FAULT_INJECTION");
}

static void cache_test_map_failure(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_FAULT_INJECTION");
}

static void cache_test_kept_page(struct kunit *test)
{
	kunit_skip(test, "no CONFIG_FAULT_INJECTION");
}
#endif

/* A text type the kernel serves from the cache, or JIT_TYPE_NR. */
static enum jit_alloc_type cached_text_type(void)
{
	static const enum jit_alloc_type types[] = {
		JIT_TYPE_BPF, JIT_TYPE_KPROBES, JIT_TYPE_FTRACE,
		JIT_TYPE_MODULE_TEXT,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (jit_type_is_rox(types[i]))
			return types[i];
	return JIT_TYPE_NR;
}

/*
 * Text the cache cannot hold (larger than a huge page) comes from the
 * page-granular fallback with the cache's promise: read-only and
 * executable, and no page of it writable through the direct map.  Freed,
 * the aliases are writable again.
 */
static void cache_test_fallback_alias(struct kunit *test)
{
	enum jit_alloc_type type = cached_text_type();
	size_t off, len = JIT_CACHE_PAGE_SIZE + 2 * PAGE_SIZE;
	unsigned long alias[8], fb0, pages0, fb, pages;
	struct jit_test_leaf l;
	int n = 0;
	void *p;

	if (type == JIT_TYPE_NR)
		kunit_skip(test, "no text type is served from the cache here");
#ifdef CONFIG_ARM64
	if (!can_set_direct_map())
		kunit_skip(test, "linear map not mapped with pages (rodata=full off)");
#endif
	jit_cache_pool_fallbacks(jit_alloc_type_pool(type), &fb0, &pages0);
	p = jit_text_alloc_type(type, len);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_TRUE(test, jit_addr_is_rox(p));
	/*
	 * counted by the core, for the pool that could not serve it; with
	 * the cache switched off it is no fallback, only page-granular text
	 */
	jit_cache_pool_fallbacks(jit_alloc_type_pool(type), &fb, &pages);
	KUNIT_EXPECT_EQ(test, fb, fb0 + jit_type_is_cached(type));
	KUNIT_EXPECT_EQ(test, pages, pages0 + (len >> PAGE_SHIFT));
	for (off = 0; off < len; off += PAGE_SIZE) {
		unsigned long a;

		l = jit_test_leaf_of((unsigned long)p + off);
		KUNIT_EXPECT_TRUE(test, l.present && !l.writable && l.exec);
		a = (unsigned long)page_address(vmalloc_to_page(p + off));
		l = jit_test_leaf_of(a);
		KUNIT_EXPECT_TRUE(test, l.present);
		KUNIT_EXPECT_FALSE_MSG(test, l.writable,
				       "direct-map alias %lx of %p is writable",
				       a, p + off);
		if (off % (JIT_CACHE_PAGE_SIZE / 4) == 0 && n < ARRAY_SIZE(alias))
			alias[n++] = a;
	}
	jit_free(p);
	jit_cache_pool_fallbacks(jit_alloc_type_pool(type), &fb, &pages);
	KUNIT_EXPECT_EQ(test, pages, pages0);
	while (n--) {
		l = jit_test_leaf_of(alias[n]);
		KUNIT_EXPECT_TRUE(test, l.present && l.writable);
	}
}

/*
 * A top-down pool (arm64's module text) stacks its huge pages at the top
 * of its range with no guard page between them, and leaves the rest in
 * one piece for page-granular allocations: what keeps a 128 MiB module
 * region usable for module data and large modules.  The range is the top
 * half of a free stretch of vmalloc space, so that small allocations made
 * meanwhile land below it.
 */
static void cache_test_top_down(struct kunit *test)
{
	const unsigned long slots = 32, nr = 8, big_size =
		(slots - nr) * JIT_CACHE_PAGE_SIZE - PAGE_SIZE;
	unsigned long start, end, page, seen = 0, i;
	struct jit_cache_pool *pool;
	struct vm_struct *area;
	void *p[8], *big;

	require_huge_vmalloc(test);
	area = __get_vm_area_node(2 * slots * JIT_CACHE_PAGE_SIZE,
				  JIT_CACHE_PAGE_SIZE, PAGE_SHIFT, VM_NO_GUARD,
				  VMALLOC_START, VMALLOC_END, NUMA_NO_NODE,
				  GFP_KERNEL, __builtin_return_address(0));
	KUNIT_ASSERT_NOT_NULL(test, area);
	start = (unsigned long)area->addr + slots * JIT_CACHE_PAGE_SIZE;
	end = start + slots * JIT_CACHE_PAGE_SIZE;
	free_vm_area(area);
	/* the stretch is free now, not only lazily */
	vm_unmap_aliases();

	pool = test_pool(test, start, end, TEST_GRACE_MS);
	jit_cache_pool_randomize(pool);
	jit_cache_pool_top_down(pool);
	/* more than half a huge page each: a huge page per allocation */
	for (i = 0; i < nr; i++) {
		p[i] = jit_cache_alloc(pool, JIT_CACHE_PAGE_SIZE / 2 + PAGE_SIZE,
				       JIT_TYPE_MODULE_TEXT);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	for (i = 0; i < nr; i++) {
		page = ALIGN_DOWN((unsigned long)p[i], JIT_CACHE_PAGE_SIZE);
		KUNIT_EXPECT_GE_MSG(test, page, end - nr * JIT_CACHE_PAGE_SIZE,
				    "huge page %lu at %lu MiB of %lu: not among the top %lu",
				    i, (page - start) >> 20,
				    (end - start) >> 20, nr);
		if (page >= end - nr * JIT_CACHE_PAGE_SIZE && page < end)
			seen |= BIT((end - page) / JIT_CACHE_PAGE_SIZE - 1);
	}
	KUNIT_EXPECT_EQ(test, seen, BIT(nr) - 1);

	/* below them, the rest of the range in one piece */
	big = __vmalloc_node_range(big_size, PAGE_SIZE, start,
				   end - nr * JIT_CACHE_PAGE_SIZE,
				   GFP_KERNEL | __GFP_NOWARN, PAGE_KERNEL, 0,
				   NUMA_NO_NODE, __builtin_return_address(0));
	KUNIT_EXPECT_NOT_NULL_MSG(test, big,
				  "no %lu MiB in one piece below the huge pages",
				  big_size >> 20);
	vfree(big);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ(test, jit_cache_free(p[i]), 0);
	kunit_info(test, "%lu huge pages at the top of %lu MiB, %lu MiB below them in one piece\n",
		   nr, (end - start) >> 20, big ? big_size >> 20 : 0);
}

/*
 * A huge vmalloc mapping made where smaller mappings were replaces their
 * table and frees it (pmd_free_pte_page()) while a software walker of the
 * kernel page tables may be inside it.  The walker here does what the
 * page-table dumper does - ptdump_walk_pgd() walks with init_mm's
 * mmap_lock held for writing - over one PMD-sized window, while the test
 * maps that window with small pages, frees it, maps it with one huge page
 * (over the former table) and frees it again, many times.  A clear or
 * free of the table under a walker that tested the entry and reads it
 * again oopses the walker.
 */
struct huge_vmap_walk {
	unsigned long start;
	unsigned long walks;
	unsigned long leaves;
	unsigned long ptes;
	unsigned long tables_gone;
};

static int huge_vmap_pmd_entry(pmd_t *pmd, unsigned long addr,
			       unsigned long next, struct mm_walk *walk)
{
	struct huge_vmap_walk *w = walk->private;
	pmd_t val = READ_ONCE(*pmd);

	if (pmd_leaf(val)) {
		w->leaves++;
		walk->action = ACTION_CONTINUE;
	}
	return 0;
}

static int huge_vmap_pte_entry(pte_t *pte, unsigned long addr,
			       unsigned long next, struct mm_walk *walk)
{
	struct huge_vmap_walk *w = walk->private;

	if (pte_present(READ_ONCE(*pte)))
		w->ptes++;
	return 0;
}

static const struct mm_walk_ops huge_vmap_walk_ops = {
	.pmd_entry	= huge_vmap_pmd_entry,
	.pte_entry	= huge_vmap_pte_entry,
};

static int huge_vmap_walker(void *data)
{
	struct huge_vmap_walk *w = data;
	pmd_t *pmd = pmd_off_k(w->start);
	pmd_t before;

	while (!kthread_should_stop()) {
		mmap_write_lock(&init_mm);
		/*
		 * The mechanism itself: while a walker holds the lock, no
		 * table it may be in is taken away (its entry cleared or
		 * replaced by a huge one).  The window of a real walker, from
		 * testing an entry to reading it again, is a few instructions;
		 * this one is held open for 50 us or more.
		 */
		before = READ_ONCE(*pmd);
		if (pmd_present(before) && !pmd_leaf(before)) {
			usleep_range(50, 100);
			if (pmd_val(READ_ONCE(*pmd)) != pmd_val(before))
				w->tables_gone++;
		}
		walk_page_range_novma(&init_mm, w->start, w->start + PMD_SIZE,
				      &huge_vmap_walk_ops, NULL, w);
		mmap_write_unlock(&init_mm);
		/* leave the lock free now and then, or no promotion gets it */
		if (!(++w->walks % 4))
			usleep_range(100, 200);
		cond_resched();
	}
	return 0;
}

/* PMD_SIZE at @start, with the guard page vmalloc puts after it */
static void *huge_vmap_at(unsigned long start, unsigned long vm_flags)
{
	return __vmalloc_node_range(PMD_SIZE, PMD_SIZE, start,
				    start + PMD_SIZE + PAGE_SIZE,
				    GFP_KERNEL | __GFP_NOWARN, PAGE_KERNEL,
				    vm_flags, numa_mem_id(),
				    __builtin_return_address(0));
}

static void cache_test_huge_vmap_vs_walker(struct kunit *test)
{
	struct huge_vmap_walk *w;
	struct task_struct *walker;
	unsigned long end, promoted = 0, rounds = 0;
	struct jit_leaf leaf;
	void *p;

	require_huge_vmalloc(test);
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	/* a PMD-sized window that small pages map first: it gets a table */
	p = __vmalloc_node_range(PMD_SIZE, PMD_SIZE, VMALLOC_START, VMALLOC_END,
				 GFP_KERNEL | __GFP_NOWARN, PAGE_KERNEL, 0,
				 numa_mem_id(), __builtin_return_address(0));
	if (!p)
		kunit_skip(test, "no memory for a %lu MiB window", PMD_SIZE >> 20);
	w->start = (unsigned long)p;
	vfree(p);

	walker = kthread_run(huge_vmap_walker, w, "jt_ptwalk");
	KUNIT_ASSERT_FALSE(test, IS_ERR(walker));
	end = jiffies + msecs_to_jiffies(race_ms);
	while (time_before(jiffies, end)) {
		p = huge_vmap_at(w->start, VM_ALLOW_HUGE_VMAP);
		if (p) {
			jit_arch_kernel_leaf((unsigned long)p, &leaf);
			if (leaf.size >= PMD_SIZE)
				promoted++;
			vfree(p);
		}
		/* small pages again: a new table for the next promotion */
		p = huge_vmap_at(w->start, 0);
		if (p)
			vfree(p);
		rounds++;
		cond_resched();
	}
	kthread_stop(walker);
	kunit_info(test, "%lu rounds, %lu huge mappings over a former table, %lu walks (%lu saw a leaf), %lu tables taken away under a walker",
		   rounds, promoted, w->walks, w->leaves, w->tables_gone);
	KUNIT_EXPECT_LT(test, 0UL, w->walks);
	KUNIT_EXPECT_EQ(test, w->tables_gone, 0UL);
	if (!promoted)
		kunit_skip(test, "no PMD-sized page for a huge vmalloc mapping here");
}

#if defined(CONFIG_X86) && defined(CONFIG_MITIGATION_ITS) && defined(CONFIG_MODULES)
/*
 * x86 ITS thunks for a module's indirect branches, made as a module load
 * makes them on a CPU that needs them, here on any: the pages come from
 * the cache, read-only and executable, each thunk is "jmp *%reg; int3"
 * written by text poking under text_mutex, and freeing the module gives
 * the pages back.
 */
static void cache_test_its_thunks(struct kunit *test)
{
	static const u8 rax[] = { 0xff, 0xe0, 0xcc };	/* jmp *%rax; int3 */
	struct jit_test_leaf l;
	struct module *mod;
	void **pages;
	u8 *thunk;
	int i, n;

	if (!jit_type_is_rox(JIT_TYPE_ITS))
		kunit_skip(test, "ITS thunk pages are not cached here");
	mod = kunit_kzalloc(test, sizeof(*mod), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mod);
	thunk = its_kunit_make_thunks(mod, 64);
	KUNIT_ASSERT_NOT_NULL(test, thunk);
	n = mod->its_num_pages;
	KUNIT_ASSERT_LT(test, 0, n);
	KUNIT_EXPECT_EQ(test, memcmp(thunk, rax, sizeof(rax)), 0);
	for (i = 0; i < n; i++) {
		l = jit_test_leaf_of((unsigned long)mod->its_page_array[i]);
		KUNIT_EXPECT_TRUE(test, l.present);
		KUNIT_EXPECT_FALSE(test, l.writable);
		KUNIT_EXPECT_TRUE(test, l.exec);
		KUNIT_EXPECT_TRUE(test, jit_addr_is_rox(mod->its_page_array[i]));
	}
	pages = kunit_kmalloc_array(test, n, sizeof(*pages), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	memcpy(pages, mod->its_page_array, n * sizeof(*pages));
	its_kunit_free_thunks(mod);
	/* given back: no longer text anyone may write */
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_FALSE(test, jit_addr_is_rox(pages[i]));
	kunit_info(test, "64 thunks in %d page(s)", n);
}
#else
static void cache_test_its_thunks(struct kunit *test)
{
	kunit_skip(test, "x86 ITS thunks (MITIGATION_ITS, MODULES) only");
}
#endif

static struct kunit_case jitalloc_cache_test_cases[] = {
	KUNIT_CASE(cache_test_rounding_and_alignment),
	KUNIT_CASE(cache_test_rox_pmd_mapping),
	KUNIT_CASE(cache_test_trap_fill),
	KUNIT_CASE(cache_test_trap_fill_large),
	KUNIT_CASE(cache_test_update_large),
	KUNIT_CASE(cache_test_refill_bounded),
	KUNIT_CASE(cache_test_reuse),
	KUNIT_CASE(cache_test_has_room),
	KUNIT_CASE(cache_test_reclaim_keeps_spare),
	KUNIT_CASE(cache_test_text_held_pages),
	KUNIT_CASE(cache_test_no_huge_page),
	KUNIT_CASE(cache_test_bad_requests),
	KUNIT_CASE(cache_test_bad_free),
	KUNIT_CASE(cache_test_update_bounds),
	KUNIT_CASE(cache_test_concurrent),
	KUNIT_CASE(cache_test_through_jit_api),
	KUNIT_CASE(cache_test_refill_window),
	KUNIT_CASE(cache_test_refill_race),
	KUNIT_CASE(cache_test_lookup_while_pages_change),
	KUNIT_CASE(cache_test_nowait),
	KUNIT_CASE(cache_test_top_down),
	KUNIT_CASE(cache_test_alias_failure),
	KUNIT_CASE(cache_test_alias_restore_failure),
	KUNIT_CASE(cache_test_map_failure),
	KUNIT_CASE(cache_test_kept_page),
	KUNIT_CASE(cache_test_fallback_alias),
	KUNIT_CASE(cache_test_huge_vmap_vs_walker),
	KUNIT_CASE(cache_test_its_thunks),
	{}
};

static struct kunit_suite jitalloc_cache_test_suite = {
	.name = "jitalloc_cache",
	.exit = cache_test_exit,
	.test_cases = jitalloc_cache_test_cases,
};

/*
 * Page blocks.  Each case sets up a context of its own in the vmalloc range
 * with a block pool of its own, so the counters it reads are its own.
 */
struct blocks_ctx {
	struct jit_alloc_ctx ctx;
	struct jit_block_pool *bp;
};

static struct blocks_ctx *blocks_setup(struct kunit *test,
				       unsigned int max_blocks)
{
	struct jit_alloc_params params = { .flags = JIT_ALLOC_GROUP_PAGES };
	struct blocks_ctx *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_EQ(test, jit_alloc_ctx_init(&b->ctx, &params), 0);
	b->bp = jit_block_pool_create(test->name, max_blocks, 0);
	KUNIT_ASSERT_NOT_NULL(test, b->bp);
	b->ctx.blocks = b->bp;
	test->priv = b->bp;
	return b;
}

static void *blocks_alloc(struct blocks_ctx *b, size_t len)
{
	return jit_alloc_ctx_alloc(&b->ctx,
				   jit_alloc_ctx_space(&b->ctx,
						       JIT_TYPE_MODULE_DATA),
				   false, len);
}

static struct jit_block_stats blocks_stats(struct blocks_ctx *b)
{
	struct jit_block_stats s;

	jit_block_get_stats(b->bp, &s);
	return s;
}

/* pfn of the block page @off bytes into @p belongs to, 0 for none */
static unsigned long block_of(struct blocks_ctx *b, void *p, size_t off)
{
	return jit_block_page_of(b->bp, vmalloc_to_page(p + off));
}

static void blocks_test_exit(struct kunit *test)
{
	if (test->priv)
		jit_block_pool_destroy(test->priv);
}

/* Allocations share one naturally aligned block and come back zeroed. */
static void blocks_test_grouped(struct kunit *test)
{
	struct blocks_ctx *b = blocks_setup(test, 0);
	unsigned long block;
	struct jit_block_stats s;
	void *p, *q;
	size_t off;

	p = blocks_alloc(b, 3 * PAGE_SIZE);
	q = blocks_alloc(b, 2 * PAGE_SIZE - 100);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);

	block = block_of(b, p, 0);
	KUNIT_EXPECT_NE(test, block, 0UL);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(block, JIT_BLOCK_PAGES));
	for (off = 0; off < 3 * PAGE_SIZE; off += PAGE_SIZE)
		KUNIT_EXPECT_EQ(test, block_of(b, p, off), block);
	for (off = 0; off < 2 * PAGE_SIZE; off += PAGE_SIZE)
		KUNIT_EXPECT_EQ(test, block_of(b, q, off), block);
	KUNIT_EXPECT_FALSE(test, memchr_inv(p, 0, 3 * PAGE_SIZE));
	KUNIT_EXPECT_FALSE(test, memchr_inv(q, 0, 2 * PAGE_SIZE - 100));

	s = blocks_stats(b);
	KUNIT_EXPECT_EQ(test, s.blocks, 1UL);
	KUNIT_EXPECT_EQ(test, s.pages_in_use, 5UL);
	KUNIT_EXPECT_EQ(test, s.allocs, 2UL);
	KUNIT_EXPECT_EQ(test, s.fallbacks, 0UL);

	jit_free(p);
	jit_free(q);
	s = blocks_stats(b);
	KUNIT_EXPECT_EQ(test, s.pages_in_use, 0UL);
	KUNIT_EXPECT_EQ(test, s.frees, 2UL);
	KUNIT_EXPECT_EQ(test, s.high_water_pages, 5UL);
	/* the free block is kept as the spare */
	KUNIT_EXPECT_EQ(test, s.blocks, 1UL);
	KUNIT_EXPECT_EQ(test, s.spare_blocks, 1UL);
}

/*
 * A page made read-only comes back zeroed and writable, its direct-map
 * alias too, when it is handed out again.
 */
static void blocks_test_reuse_resets_permissions(struct kunit *test)
{
	struct blocks_ctx *b = blocks_setup(test, 0);
	struct page *page;
	void *p, *q;

	if (!IS_ENABLED(CONFIG_ARCH_HAS_SET_MEMORY))
		kunit_skip(test, "no set_memory_ro() on this architecture");
	p = blocks_alloc(b, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	page = vmalloc_to_page(p);
	memset(p, 0xaa, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, set_memory_ro((unsigned long)p, 1), 0);
	KUNIT_EXPECT_FALSE(test, jit_test_leaf_of((unsigned long)p).writable);
#ifdef CONFIG_X86
	/* x86 changes the direct-map alias with the mapping */
	KUNIT_EXPECT_FALSE(test,
			   jit_test_leaf_of((unsigned long)page_address(page)).writable);
#endif
	jit_free(p);

	q = blocks_alloc(b, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, q);
	/* first fit: the same page again */
	KUNIT_EXPECT_PTR_EQ(test, vmalloc_to_page(q), page);
	KUNIT_EXPECT_TRUE(test, jit_test_leaf_of((unsigned long)q).writable);
#ifdef CONFIG_X86
	KUNIT_EXPECT_TRUE(test,
			  jit_test_leaf_of((unsigned long)page_address(page)).writable);
#endif
	KUNIT_EXPECT_FALSE(test, memchr_inv(q, 0, PAGE_SIZE));
	memset(q, 0x55, PAGE_SIZE);
	jit_free(q);
}

/* Once a block's direct-map page is split, its pages split nothing more. */
static void blocks_test_no_split_after_first(struct kunit *test)
{
#if defined(CONFIG_X86) && defined(CONFIG_VM_EVENT_COUNTERS)
	struct blocks_ctx *b = blocks_setup(test, 0);
	unsigned long *ev, splits;
	void *p, *q;

	ev = kunit_kcalloc(test, NR_VM_EVENT_ITEMS, sizeof(*ev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	p = blocks_alloc(b, PAGE_SIZE);
	q = blocks_alloc(b, 2 * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_NE(test, block_of(b, p, 0), 0UL);
	KUNIT_ASSERT_EQ(test, block_of(b, p, 0), block_of(b, q, PAGE_SIZE));

	KUNIT_ASSERT_EQ(test, set_memory_ro((unsigned long)p, 1), 0);
	all_vm_events(ev);
	splits = ev[DIRECT_MAP_LEVEL2_SPLIT];
	KUNIT_ASSERT_EQ(test, set_memory_ro((unsigned long)q, 2), 0);
	all_vm_events(ev);
	KUNIT_EXPECT_EQ(test, ev[DIRECT_MAP_LEVEL2_SPLIT], splits);
	KUNIT_EXPECT_FALSE(test, jit_test_leaf_of((unsigned long)q).writable);
	jit_free(p);
	jit_free(q);
#else
	kunit_skip(test, "no direct-map split counter on this architecture");
#endif
}

/* Without a block to be had the request is served by vmalloc, counted. */
static void blocks_test_fallback(struct kunit *test)
{
	struct blocks_ctx *b = blocks_setup(test, 1);
	struct jit_block_stats s;
	void *p, *q;

	/* the only block this pool may hold, filled by one allocation */
	p = blocks_alloc(b, JIT_BLOCK_PAGES * PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NE(test, block_of(b, p, 0), 0UL);
	q = blocks_alloc(b, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, block_of(b, q, 0), 0UL);
	KUNIT_EXPECT_FALSE(test, memchr_inv(q, 0, PAGE_SIZE));

	s = blocks_stats(b);
	KUNIT_EXPECT_EQ(test, s.blocks, 1UL);
	KUNIT_EXPECT_EQ(test, s.allocs, 1UL);
	KUNIT_EXPECT_EQ(test, s.fallbacks, 1UL);
	KUNIT_EXPECT_EQ(test, s.pages_in_use, (unsigned long)JIT_BLOCK_PAGES);

	jit_free(q);
	jit_free(p);
	s = blocks_stats(b);
	KUNIT_EXPECT_EQ(test, s.pages_in_use, 0UL);
	KUNIT_EXPECT_EQ(test, s.frees, 1UL);
}

/* No room for the mapping in the range: the pages go back, counted. */
static void blocks_test_no_area(struct kunit *test)
{
	struct blocks_ctx *b = blocks_setup(test, 0);
	unsigned long start = ALIGN(VMALLOC_START, JIT_CACHE_PAGE_SIZE);
	struct jit_block_stats s;

	KUNIT_EXPECT_NULL(test, jit_block_vmap(b->bp, 4 * PAGE_SIZE, PAGE_SIZE,
					       start, start + 2 * PAGE_SIZE,
					       PAGE_KERNEL, 0,
					       __builtin_return_address(0)));
	s = blocks_stats(b);
	KUNIT_EXPECT_EQ(test, s.fallbacks, 1UL);
	KUNIT_EXPECT_EQ(test, s.allocs, 0UL);
	KUNIT_EXPECT_EQ(test, s.pages_in_use, 0UL);
}

/* Freeing a block mapping twice is refused by the jit core. */
static void blocks_test_double_free(struct kunit *test)
{
	unsigned long refused;
	struct blocks_ctx *b = blocks_setup(test, 0);
	struct jit_block_stats s;
	void *p = blocks_alloc(b, PAGE_SIZE);

	KUNIT_ASSERT_NOT_NULL(test, p);
	jit_free(p);
	refused = jit_alloc_refused();
	jit_free(p);
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused + 1);
	s = blocks_stats(b);
	KUNIT_EXPECT_EQ(test, s.frees, 1UL);
	KUNIT_EXPECT_EQ(test, s.pages_in_use, 0UL);
}

struct free_race {
	void *p;
	atomic_t arrived;	/* both sides count in before each round */
	int rounds;
	u64 racer_start, racer_end;
	int racer_round;	/* the last round the racer freed */
	bool timed_out;
};

/* Count in for @round and wait for the other side; false after 5 s. */
static bool free_race_meet(struct free_race *r, int round)
{
	u64 until = ktime_get_ns() + 5 * NSEC_PER_SEC;

	/* ordered: r->p, set before, is seen by the other side after */
	atomic_inc_return(&r->arrived);
	while (atomic_read_acquire(&r->arrived) < 2 * round) {
		if (ktime_get_ns() > until || READ_ONCE(r->timed_out)) {
			WRITE_ONCE(r->timed_out, true);
			return false;
		}
		cpu_relax();
	}
	return true;
}

static int free_racer(void *data)
{
	struct free_race *r = data;
	int i;

	for (i = 1; i <= r->rounds && !kthread_should_stop(); i++) {
		if (!free_race_meet(r, i))
			break;
		r->racer_start = ktime_get_ns();
		jit_free(READ_ONCE(r->p));
		r->racer_end = ktime_get_ns();
		/* the times above are read once this round is seen */
		smp_store_release(&r->racer_round, i);
	}
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * Two CPUs free the same page-block allocation at once, round after
 * round: one free takes it, the other is refused, and the pages go back
 * to their block once.  A second free that got past the first's lookup
 * would give the block its pages twice (pages_in_use would wrap) and
 * unmap an area that is gone.  Both sides meet before each round, and the
 * rounds where the two frees overlapped in time are counted: with none
 * the test proved nothing.
 */
static void blocks_test_racing_double_free(struct kunit *test)
{
	struct free_race r = { .rounds = 400 };
	int i, cpu, mine, overlaps = 0;
	struct jit_block_stats s;
	struct blocks_ctx *b;
	unsigned long refused;
	struct task_struct *t;
	u64 start, end;
	void *p;

	if (num_online_cpus() < 2)
		kunit_skip(test, "one CPU: the two frees cannot overlap");
	b = blocks_setup(test, 0);
	atomic_set(&r.arrived, 0);
	/* the two sides on two CPUs: this task cannot move onto the racer's */
	mine = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(mine)), 0);
	cpu = cpumask_any_but(cpu_online_mask, mine);
	p = blocks_alloc(b, PAGE_SIZE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	WRITE_ONCE(r.p, p);
	t = kthread_run_on_cpu(free_racer, &r, cpu, "jitblocks-free/%u");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, t);

	refused = jit_alloc_refused();
	for (i = 1; i <= r.rounds; i++) {
		if (!free_race_meet(&r, i))
			break;
		start = ktime_get_ns();
		jit_free(p);
		end = ktime_get_ns();
		/* the racer's free of this round is over before the next */
		while (smp_load_acquire(&r.racer_round) != i &&
		       !READ_ONCE(r.timed_out))
			cpu_relax();
		if (READ_ONCE(r.timed_out))
			break;
		if (max(start, r.racer_start) < min(end, r.racer_end))
			overlaps++;
		if (i == r.rounds)
			break;
		p = blocks_alloc(b, PAGE_SIZE);
		if (!p)
			break;
		WRITE_ONCE(r.p, p);
	}
	kthread_stop(t);

	kunit_info(test, "%d rounds, the two frees overlapped in %d\n", i,
		   overlaps);
	KUNIT_EXPECT_FALSE(test, r.timed_out);
	KUNIT_EXPECT_EQ(test, i, r.rounds);
	KUNIT_EXPECT_GT_MSG(test, overlaps, 0,
			    "the frees never ran at once: nothing was tested");
	/* the refusals are those of this test: nothing else frees meanwhile */
	KUNIT_EXPECT_EQ(test, jit_alloc_refused(), refused + i);
	s = blocks_stats(b);
	KUNIT_EXPECT_EQ(test, s.frees, (unsigned long)i);
	KUNIT_EXPECT_EQ(test, s.pages_in_use, 0UL);
	KUNIT_EXPECT_EQ(test, s.leaked_pages, 0UL);
	/* every page is back: the block is whole again, and spare */
	KUNIT_EXPECT_EQ(test, s.blocks, s.spare_blocks);
}

static struct kunit_case jitalloc_blocks_test_cases[] = {
	KUNIT_CASE(blocks_test_grouped),
	KUNIT_CASE(blocks_test_reuse_resets_permissions),
	KUNIT_CASE(blocks_test_no_split_after_first),
	KUNIT_CASE(blocks_test_fallback),
	KUNIT_CASE(blocks_test_no_area),
	KUNIT_CASE(blocks_test_double_free),
	KUNIT_CASE(blocks_test_racing_double_free),
	{}
};

static struct kunit_suite jitalloc_blocks_test_suite = {
	.name = "jitalloc_blocks",
	.exit = blocks_test_exit,
	.test_cases = jitalloc_blocks_test_cases,
};

kunit_test_suites(&jitalloc_cache_test_suite, &jitalloc_blocks_test_suite);

MODULE_LICENSE("GPL");
