/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitalloc: what mm/jitalloc.c shares with the rest of mm/ and nobody
 * else.
 */
#ifndef _MM_JITALLOC_INTERNAL_H
#define _MM_JITALLOC_INTERNAL_H

#include <linux/jitalloc.h>
#include <linux/maple_tree.h>
#include <linux/sched/mm.h>
#include <linux/types.h>

/*
 * mm/jitalloc.c, for the KUnit tests: the allocator with an explicit
 * context, and its counts
 */
int jit_alloc_ctx_init(struct jit_alloc_ctx *ctx,
		       const struct jit_alloc_params *params);
const struct jit_address_space *
jit_alloc_ctx_space(const struct jit_alloc_ctx *ctx, enum jit_alloc_type type);
void *jit_alloc_ctx_alloc(const struct jit_alloc_ctx *ctx,
			  const struct jit_address_space *as, bool text,
			  size_t len);
const struct jit_alloc_ctx *jit_alloc_default_ctx(void);
unsigned long jit_alloc_refused(void);
unsigned long jit_alloc_areas(void);

/* mm/jitalloc.c, for the cache's KUnit test: the pool that serves @type */
struct jit_cache_pool *jit_alloc_type_pool(enum jit_alloc_type type);

#ifdef CONFIG_FAULT_INJECTION
#include <linux/fault-inject.h>
/*
 * Make a removal from a jit tree fail as if it had no memory: the tests.
 * Off (probability 0), it is no fault point at all, so that a task's
 * fail-nth reaches the allocations of the removal itself.
 */
extern struct fault_attr jit_fail_tree_erase;

static inline bool jit_should_fail_tree_erase(void)
{
	return READ_ONCE(jit_fail_tree_erase.probability) &&
	       should_fail(&jit_fail_tree_erase, 1);
}
#else
static inline bool jit_should_fail_tree_erase(void)
{
	return false;
}
#endif

/*
 * Erase [@first, @last] of @mt, which holds one entry there that nobody
 * else removes; unlike mtree_erase(), this cannot fail.  The store runs
 * with the tree's lock held and GFP_NOWAIT, which never lets the lock go:
 * a blocking store may drop it to allocate and then retry over the range
 * it widened to the empty slots around the entry, erasing whatever was
 * inserted there meanwhile (6.1's lib/maple_tree.c does not reset the
 * range on a retry).  Without a node, it waits a little and starts over.
 * May sleep; safe from a shrinker (no __GFP_NOFAIL under PF_MEMALLOC).
 */
static inline void jit_mtree_erase_range(struct maple_tree *mt,
					 unsigned long first,
					 unsigned long last)
{
	int injected = 0;

	MA_STATE(mas, mt, first, last);

	mtree_lock(mt);
	for (;;) {
		/* at most two injected failures: the knob cannot hang frees */
		if (injected < 2 && jit_should_fail_tree_erase())
			injected++;
		else if (!mas_store_gfp(&mas, NULL, GFP_NOWAIT | __GFP_NOWARN))
			break;
		mas_destroy(&mas);
		mtree_unlock(mt);
		memalloc_retry_wait(GFP_KERNEL);
		mtree_lock(mt);
		mas_set_range(&mas, first, last);
	}
	mtree_unlock(mt);
}

#endif /* _MM_JITALLOC_INTERNAL_H */
