// SPDX-License-Identifier: GPL-2.0-only
/*
 * jitalloc_cache - PMD-sized read-only-executable pages shared by the small
 * users of executable memory.
 *
 * BPF programs, kprobes instruction slots and ftrace trampolines are tens to
 * hundreds of bytes each, yet every one of them used to take at least one
 * 4 KiB vmalloc page of its own, mapped by its own PTE and made read-only and
 * executable with set_memory_*(), which also splits the direct map around
 * it.  bpf_prog_pack showed the cure for BPF: take 2 MiB at a time and carve
 * it.  This file generalises it for every user of jit_text_alloc() whose
 * memory the architecture marks cacheable.
 *
 * Pools.  There is one pool per placement range (struct jit_address_space),
 * so per-user ranges keep their rules: on x86 everything shares the module
 * range, on arm64 kprobes get a pool in the vmalloc range.  A pool holds a
 * list of huge pages and one mutex; the callers are all process context and
 * may sleep (no IRQ context: vmalloc and text poking both sleep).
 *
 * Huge pages.  A page is PMD_SIZE bytes from vmalloc with VM_ALLOW_HUGE_VMAP,
 * PMD-aligned, mapped read-only + executable from the start.  vmalloc falls
 * back to small pages silently, so the page table is walked and anything but
 * a single PMD leaf is given back.  Before a byte is handed out the page is
 * filled with the architecture's trapping instruction through its linear
 * (direct map) alias, which is then made read-only (x86) or unmapped
 * (arm64) in one PMD-sized step so no writable alias of the code remains
 * and the direct map is not split below 2 MiB.
 *
 * Chunks.  A huge page is carved into JIT_CACHE_CHUNK_SIZE chunks tracked by
 * two bitmaps, as mm/percpu.c does: alloc_map has a bit per chunk in use and
 * bound_map a bit at the first chunk of every allocation and at the chunk
 * after its end, with no bit inside a live allocation, so jit_free()
 * recovers the size of an allocation from the bitmaps alone and writes
 * nothing into the executable memory; the same bits tell whether a chunk
 * starts a live allocation, and three more bitmaps record who made it, so
 * allocation and free touch nothing but bitmaps.  The search
 * is bitmap_find_next_zero_area() from a per-page first-free hint, skipping
 * pages with fewer free chunks than asked for: the cost is bounded by
 * PMD_SIZE / JIT_CACHE_CHUNK_SIZE bits per huge page held.  Requests of a
 * page or more are page aligned, smaller ones chunk aligned.
 *
 * Freeing.  Freed chunks must not run again, so they are refilled with
 * trapping instructions before they can be handed out again.  The refill is
 * text poking, which on x86 takes text_mutex, a lock some callers (kprobes)
 * already hold when they free; so jit_free() only moves the chunks to a
 * pending bitmap and a worker pokes them and then releases them.  The worker
 * runs JIT_CACHE_REFILL_DELAY after the free that queued it, so a burst of
 * frees (a BPF program set going away, a load/unload loop) is refilled
 * with one poke per run of adjacent chunks rather than one per free.  An
 * allocation that finds no room refills pending chunks itself before it
 * takes a new huge page, unless text_mutex is held.  A huge page
 * that becomes entirely free is given back after a grace period, except that
 * each pool keeps one spare; a shrinker gives the spare back under memory
 * pressure.
 *
 * Fallback.  A request the pool cannot serve (no huge page to be had, range
 * exhausted or too small, request larger than a huge page) returns NULL here
 * and the jit core serves it from its page-granular path, which is counted
 * as fallback; the cache never fails a request the core would have served.
 */

#define pr_fmt(fmt) "jitalloc_cache: " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/kasan.h>
#include <linux/kmemleak.h>
#include <linux/list.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pgtable.h>
#include <linux/seq_file.h>
#include <linux/set_memory.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <asm/cacheflush.h>
#include <asm/tlbflush.h>

#include "internal.h"
#include "jitalloc_cache.h"

#ifndef JIT_CACHE_CHUNK_SHIFT
#define JIT_CACHE_CHUNK_SHIFT	6
#endif
#define JIT_CACHE_CHUNK_SIZE	BIT(JIT_CACHE_CHUNK_SHIFT)
#define JIT_CACHE_PAGE_CHUNKS	(PMD_SIZE >> JIT_CACHE_CHUNK_SHIFT)
#define JIT_CACHE_PAGE_ALIGN	((PAGE_SIZE >> JIT_CACHE_CHUNK_SHIFT) - 1)
/* refill freed chunks this long after the first free of a burst */
#define JIT_CACHE_REFILL_DELAY	max(1, HZ / 100)
/* wait this long after failing to get a huge page before trying again */
#define JIT_CACHE_RETRY		HZ
/* bits of &enum jit_cache_user kept per allocation */
#define JIT_CACHE_USER_BITS	3
static_assert(BIT(JIT_CACHE_USER_BITS) >= JIT_CACHE_USER_NR);

/**
 * struct jit_cache_page - one PMD-sized ROX page carved into chunks
 * @list: entry in &jit_cache_pool.pages
 * @addr: start of the mapping, PMD aligned
 * @used: chunks allocated or waiting for their refill
 * @first_free: no free chunk lies below this index
 * @empty_since: jiffies when @used dropped to zero
 * @alloc_map: a bit per chunk allocated or pending
 * @bound_map: a bit at each allocation's first chunk and after its last
 * @pending_map: a bit per freed chunk not yet refilled with traps
 * @user_map: bit b of the &enum jit_cache_user of each allocation, at its
 *	first chunk
 *
 * A chunk starts a live allocation exactly when its bits in @alloc_map and
 * @bound_map are set and its bit in @pending_map is not: allocations clear
 * the bound bits inside them, so a chunk with a bound bit that is in use
 * is a first chunk, and freeing leaves the chunks in @alloc_map until they
 * are refilled but marks them pending.
 */
struct jit_cache_page {
	struct list_head list;
	void *addr;
	unsigned int used;
	unsigned int first_free;
	unsigned long empty_since;
	DECLARE_BITMAP(alloc_map, JIT_CACHE_PAGE_CHUNKS);
	DECLARE_BITMAP(bound_map, JIT_CACHE_PAGE_CHUNKS + 1);
	DECLARE_BITMAP(pending_map, JIT_CACHE_PAGE_CHUNKS);
	DECLARE_BITMAP(user_map[JIT_CACHE_USER_BITS], JIT_CACHE_PAGE_CHUNKS);
};

static bool jit_cache_live_start(const struct jit_cache_page *page,
				 unsigned long chunk)
{
	return test_bit(chunk, page->alloc_map) &&
	       test_bit(chunk, page->bound_map) &&
	       !test_bit(chunk, page->pending_map);
}

static void jit_cache_set_user(struct jit_cache_page *page,
			       unsigned long start, enum jit_cache_user user)
{
	int b;

	for (b = 0; b < JIT_CACHE_USER_BITS; b++)
		__assign_bit(start, page->user_map[b], user & BIT(b));
}

static enum jit_cache_user jit_cache_get_user(const struct jit_cache_page *page,
					      unsigned long start)
{
	unsigned int user = 0;
	int b;

	for (b = 0; b < JIT_CACHE_USER_BITS; b++)
		if (test_bit(start, page->user_map[b]))
			user |= BIT(b);
	return user;
}

/**
 * struct jit_cache_pool - the huge pages of one placement range
 * @node: entry in jit_cache_pools
 * @name: debugfs file name
 * @as: the range huge pages come from, and their protections
 * @kasan_shadow: allocate KASAN shadow for each huge page
 * @fill: byte that traps when executed, repeated
 * @grace: jiffies a fully free huge page is kept before it is given back
 * @retry_after: no new huge page is tried before this time
 * @lock: protects everything below
 * @pages: &struct jit_cache_page list
 * @refill_work: refills freed chunks with traps, a little after the free
 *	that queued it so that runs of frees are refilled together
 * @reclaim_work: gives back pages that stayed free for @grace
 * @debugfs: the pool's statistics file
 * @stats: counters; the derived fields are filled in on read
 */
struct jit_cache_pool {
	struct list_head node;
	const char *name;
	struct jit_address_space as;
	bool kasan_shadow;
	u8 fill;
	unsigned long grace;
	unsigned long retry_after;
	struct mutex lock;	/* pages, their bitmaps and stats */
	struct list_head pages;
	struct delayed_work refill_work;
	struct delayed_work reclaim_work;
	struct dentry *debugfs;
	struct jit_cache_stats stats;
};

static LIST_HEAD(jit_cache_pools);
static DEFINE_MUTEX(jit_cache_pools_lock);
static struct dentry *jit_cache_debugfs_dir;

static inline size_t chunks_to_bytes(unsigned long chunks)
{
	return chunks << JIT_CACHE_CHUNK_SHIFT;
}

static inline bool page_contains(struct jit_cache_page *page, const void *addr)
{
	return addr >= page->addr && addr < page->addr + PMD_SIZE;
}

static unsigned long bytes_in_use(const struct jit_cache_stats *s)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < JIT_CACHE_USER_NR; i++)
		sum += s->bytes_in_use[i];
	return sum;
}

/* Is @addr mapped by a single PMD leaf entry in the kernel page tables? */
static bool jit_cache_pmd_mapped(unsigned long addr)
{
	pgd_t *pgd = pgd_offset_k(addr);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;

	if (pgd_none(*pgd) || pgd_bad(*pgd))
		return false;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(*p4d) || p4d_leaf(*p4d))
		return false;
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud) || pud_leaf(*pud))
		return false;
	pmd = pmd_offset(pud, addr);
	return pmd_present(*pmd) && pmd_leaf(*pmd);
}

static void *jit_cache_vmalloc_huge(struct jit_cache_pool *pool,
				    unsigned long start, unsigned long end)
{
	unsigned long vm_flags = VM_ALLOW_HUGE_VMAP;
	void *p;

	if (!start || end - start < PMD_SIZE)
		return NULL;
	if (pool->kasan_shadow)
		vm_flags |= VM_DEFER_KMEMLEAK;
	p = __vmalloc_node_range(PMD_SIZE, PMD_SIZE, start, end,
				 GFP_KERNEL | __GFP_NOWARN, pool->as.pgprot,
				 vm_flags, NUMA_NO_NODE,
				 __builtin_return_address(0));
	if (!p)
		return NULL;
	if (!IS_ALIGNED((unsigned long)p, PMD_SIZE) ||
	    !jit_cache_pmd_mapped((unsigned long)p)) {
		/* vmalloc fell back to small pages: not what we are for */
		vfree(p);
		return NULL;
	}
	if (pool->kasan_shadow &&
	    kasan_alloc_module_shadow(p, PMD_SIZE, GFP_KERNEL) < 0) {
		vfree(p);
		return NULL;
	}
	return p;
}

/*
 * Linear-map address of a huge page: vmalloc mapped it with one PMD, so its
 * pages are one physically contiguous, naturally aligned block.
 */
static void *jit_cache_linear_alias(void *addr)
{
	struct vm_struct *area = find_vm_area(addr);

	return page_address(area->pages[0]);
}

static struct jit_cache_page *jit_cache_page_alloc(struct jit_cache_pool *pool)
{
	struct jit_cache_page *page;
	void *p, *alias;

	/*
	 * Without PMD mappings for this pgprot (arm64 with PTDUMP_DEBUGFS,
	 * say) there is nothing to try; after a failure, don't take 512
	 * pages from the allocator for every request while memory is
	 * fragmented.
	 */
	if (!arch_vmap_pmd_supported(pool->as.pgprot) ||
	    time_before(jiffies, READ_ONCE(pool->retry_after)))
		return NULL;

	page = kvzalloc(sizeof(*page), GFP_KERNEL);
	if (!page)
		return NULL;
	p = jit_cache_vmalloc_huge(pool, pool->as.start, pool->as.end);
	if (!p)
		p = jit_cache_vmalloc_huge(pool, pool->as.fallback_start,
					   pool->as.fallback_end);
	if (!p) {
		WRITE_ONCE(pool->retry_after, jiffies + JIT_CACHE_RETRY);
		kvfree(page);
		return NULL;
	}

	/*
	 * The page is mapped ROX and nobody has it yet: fill it with traps
	 * through the still-writable linear alias, then take that alias away
	 * in one PMD-sized step.
	 */
	alias = jit_cache_linear_alias(p);
	memset64(alias, 0x0101010101010101ULL * pool->fill,
		 PMD_SIZE / sizeof(u64));
	jit_arch_protect_alias(alias, PMD_SIZE, true);
	flush_icache_range((unsigned long)p, (unsigned long)p + PMD_SIZE);

	page->addr = p;
	page->empty_since = jiffies;
	return page;
}

static void jit_cache_page_free(struct jit_cache_page *page)
{
	unsigned long start = (unsigned long)page->addr;
	void *alias = jit_cache_linear_alias(page->addr);

	/*
	 * Tear the executable mapping down and flush the TLB now, before the
	 * pages can be reused; VM_FLUSH_RESET_PERMS would do it page by page
	 * and split the direct map.
	 */
	vunmap_range(start, start + PMD_SIZE);
	jit_arch_protect_alias(alias, PMD_SIZE, false);
	vfree(page->addr);
	kvfree(page);
}

/* Carve @nr chunks out of @page; returns the first chunk or -1. */
static long jit_cache_page_carve(struct jit_cache_page *page, unsigned int nr,
				 unsigned long align_mask)
{
	unsigned long start;

	if (JIT_CACHE_PAGE_CHUNKS - page->used < nr)
		return -1;
	start = bitmap_find_next_zero_area(page->alloc_map,
					   JIT_CACHE_PAGE_CHUNKS,
					   page->first_free, nr, align_mask);
	if (start >= JIT_CACHE_PAGE_CHUNKS)
		return -1;
	return start;
}

/* Longest run of free chunks in @page. */
static unsigned long jit_cache_page_largest_run(struct jit_cache_page *page)
{
	unsigned long start = 0, end, best = 0;

	for (;;) {
		start = find_next_zero_bit(page->alloc_map,
					   JIT_CACHE_PAGE_CHUNKS, start);
		if (start >= JIT_CACHE_PAGE_CHUNKS)
			break;
		end = find_next_bit(page->alloc_map, JIT_CACHE_PAGE_CHUNKS,
				    start);
		best = max(best, end - start);
		start = end;
	}
	return best;
}

static unsigned long jit_cache_refill(struct jit_cache_pool *pool);

/*
 * May jit_cache_alloc() refill freed chunks itself?  Refilling pokes text,
 * which takes text_mutex, and some callers (kprobes) allocate with
 * text_mutex held: only when nobody holds it, which rules out the caller.
 */
static bool jit_cache_may_refill_now(void)
{
	return !mutex_is_locked(&text_mutex);
}

/**
 * jit_cache_alloc() - allocate executable memory from a pool
 * @pool: pool of the caller's placement range
 * @len: bytes wanted, at most PMD_SIZE
 * @user: who asks, for statistics
 *
 * Context: process context, may sleep.
 * Return: memory filled with trapping instructions, mapped read-only and
 * executable, or NULL when the pool cannot serve the request and the caller
 * must use the page-granular path.
 */
void *jit_cache_alloc(struct jit_cache_pool *pool, size_t len,
		      enum jit_cache_user user)
{
	unsigned long align_mask = len >= PAGE_SIZE ? JIT_CACHE_PAGE_ALIGN : 0;
	unsigned int nr = DIV_ROUND_UP(len, JIT_CACHE_CHUNK_SIZE);
	struct jit_cache_page *page, *new = NULL;
	bool refilled = false;
	unsigned long in_use;
	long start;
	void *ret;

	if (!len || len > PMD_SIZE || user >= JIT_CACHE_USER_NR)
		return NULL;

again:
	start = -1;
	mutex_lock(&pool->lock);
	list_for_each_entry(page, &pool->pages, list) {
		start = jit_cache_page_carve(page, nr, align_mask);
		if (start >= 0)
			break;
	}
	if (start < 0 && !refilled && jit_cache_may_refill_now()) {
		/* freed chunks waiting for their refill may make room */
		mutex_unlock(&pool->lock);
		refilled = true;
		if (jit_cache_refill(pool))
			goto again;
		mutex_lock(&pool->lock);
	}
	if (start < 0) {
		/* allocate outside the lock: vmalloc and the fill are slow */
		mutex_unlock(&pool->lock);
		new = jit_cache_page_alloc(pool);
		if (!new)
			return NULL;
		mutex_lock(&pool->lock);
		list_add_tail(&new->list, &pool->pages);
		pool->stats.huge_pages++;
		page = new;
		start = jit_cache_page_carve(page, nr, align_mask);
	}

	jit_cache_set_user(page, start, user);
	bitmap_set(page->alloc_map, start, nr);
	/* bits left inside the new allocation by earlier ones go */
	set_bit(start, page->bound_map);
	bitmap_clear(page->bound_map, start + 1, nr - 1);
	set_bit(start + nr, page->bound_map);
	if (start == page->first_free)
		page->first_free = find_next_zero_bit(page->alloc_map,
						      JIT_CACHE_PAGE_CHUNKS,
						      start + nr);
	page->used += nr;
	pool->stats.allocs++;
	pool->stats.bytes_in_use[user] += chunks_to_bytes(nr);
	in_use = bytes_in_use(&pool->stats);
	pool->stats.high_water = max(pool->stats.high_water, in_use);
	ret = page->addr + chunks_to_bytes(start);
	mutex_unlock(&pool->lock);
	return ret;
}

/* Could @pool's huge pages hold @addr?  They come from its two ranges. */
static bool pool_may_contain(const struct jit_cache_pool *pool,
			     const void *addr)
{
	unsigned long a = (unsigned long)addr;

	return (a >= pool->as.start && a < pool->as.end) ||
	       (a >= pool->as.fallback_start && a < pool->as.fallback_end);
}

/*
 * The page of any pool that contains @addr; takes that pool's lock.  Only
 * pools whose ranges hold @addr are locked and searched, so a free does not
 * wait for pools it has nothing to do with.
 */
static struct jit_cache_page *jit_cache_find_lock(const void *addr,
						  struct jit_cache_pool **poolp)
{
	struct jit_cache_pool *pool;
	struct jit_cache_page *page;

	mutex_lock(&jit_cache_pools_lock);
	list_for_each_entry(pool, &jit_cache_pools, node) {
		if (!pool_may_contain(pool, addr))
			continue;
		mutex_lock(&pool->lock);
		list_for_each_entry(page, &pool->pages, list) {
			if (page_contains(page, addr)) {
				mutex_unlock(&jit_cache_pools_lock);
				*poolp = pool;
				return page;
			}
		}
		mutex_unlock(&pool->lock);
	}
	mutex_unlock(&jit_cache_pools_lock);
	return NULL;
}

/* Size in chunks of the allocation starting at chunk @start. */
static unsigned long jit_cache_alloc_chunks(struct jit_cache_page *page,
					    unsigned long start)
{
	return find_next_bit(page->bound_map, JIT_CACHE_PAGE_CHUNKS + 1,
			     start + 1) - start;
}

/**
 * jit_cache_free() - give memory from jit_cache_alloc() back
 * @addr: what jit_cache_alloc() returned
 *
 * The chunks are refilled with trapping instructions by a worker before
 * they can be handed out again.
 *
 * Context: process context, may sleep.
 * Return: 0 when freed, -ENOENT when @addr is not in any pool (the caller
 * should look elsewhere), -EINVAL after a warning when @addr is inside a
 * pool but is not the start of a live allocation (double or foreign free):
 * nothing is changed then.
 */
int jit_cache_free(void *addr)
{
	struct jit_cache_pool *pool;
	struct jit_cache_page *page;
	unsigned long start, nr;

	page = jit_cache_find_lock(addr, &pool);
	if (!page)
		return -ENOENT;

	start = (addr - page->addr) >> JIT_CACHE_CHUNK_SHIFT;
	if (WARN_ONCE(!IS_ALIGNED((unsigned long)addr, JIT_CACHE_CHUNK_SIZE) ||
		      !jit_cache_live_start(page, start),
		      "jitalloc: free of %px, which is not a live allocation\n",
		      addr)) {
		mutex_unlock(&pool->lock);
		return -EINVAL;
	}
	/*
	 * Boundary bits stay: the start bit may be the end of the allocation
	 * before this one, and allocations clear stale bits inside them.
	 */
	nr = jit_cache_alloc_chunks(page, start);
	bitmap_set(page->pending_map, start, nr);
	pool->stats.frees++;
	pool->stats.bytes_in_use[jit_cache_get_user(page, start)] -=
		chunks_to_bytes(nr);
	mutex_unlock(&pool->lock);

	queue_delayed_work(system_wq, &pool->refill_work, JIT_CACHE_REFILL_DELAY);
	return 0;
}

/**
 * jit_cache_check_update() - may [@addr, @addr + @len) be written?
 * @addr: start of the write
 * @len: its length
 *
 * Return: 0 when the range lies inside one live allocation, -ENOENT when
 * @addr is not in any pool, -EINVAL when it is but the range is not inside
 * one live allocation.
 */
int jit_cache_check_update(const void *addr, size_t len)
{
	struct jit_cache_pool *pool;
	struct jit_cache_page *page;
	unsigned long idx, start;
	int ret = -EINVAL;

	page = jit_cache_find_lock(addr, &pool);
	if (!page)
		return -ENOENT;
	idx = (addr - page->addr) >> JIT_CACHE_CHUNK_SHIFT;
	if (test_bit(idx, page->alloc_map) && !test_bit(idx, page->pending_map)) {
		start = find_last_bit(page->bound_map, idx + 1);
		if (start <= idx && jit_cache_live_start(page, start) &&
		    addr + len <= page->addr +
		    chunks_to_bytes(start + jit_cache_alloc_chunks(page, start)))
			ret = 0;
	}
	mutex_unlock(&pool->lock);
	return ret;
}

/*
 * Take one run of pending chunks off some page of @pool for refilling.
 * The chunks stay set in alloc_map and counted in &jit_cache_page.used, so
 * nobody hands them out and the page cannot be reclaimed meanwhile.
 */
static struct jit_cache_page *jit_cache_next_refill(struct jit_cache_pool *pool,
						    unsigned long *startp,
						    unsigned long *nrp)
{
	struct jit_cache_page *page;
	unsigned long start, end;

	list_for_each_entry(page, &pool->pages, list) {
		start = find_first_bit(page->pending_map, JIT_CACHE_PAGE_CHUNKS);
		if (start >= JIT_CACHE_PAGE_CHUNKS)
			continue;
		end = find_next_zero_bit(page->pending_map,
					 JIT_CACHE_PAGE_CHUNKS, start);
		bitmap_clear(page->pending_map, start, end - start);
		*startp = start;
		*nrp = end - start;
		return page;
	}
	return NULL;
}

/*
 * Refill freed chunks with traps, then let them be allocated again.
 * Return: the number of chunks refilled.
 */
static unsigned long jit_cache_refill(struct jit_cache_pool *pool)
{
	struct jit_cache_page *page;
	unsigned long start, nr, done = 0;
	bool emptied = false;

	mutex_lock(&pool->lock);
	while ((page = jit_cache_next_refill(pool, &start, &nr))) {
		/*
		 * Poking takes text_mutex, and kprobes allocates and frees
		 * with text_mutex held, so poke without pool->lock.
		 */
		mutex_unlock(&pool->lock);
		jit_arch_text_set(page->addr + chunks_to_bytes(start),
				  pool->fill, chunks_to_bytes(nr));
		mutex_lock(&pool->lock);
		bitmap_clear(page->alloc_map, start, nr);
		page->used -= nr;
		done += nr;
		page->first_free = min_t(unsigned int, page->first_free, start);
		if (!page->used) {
			page->empty_since = jiffies;
			emptied = true;
		}
	}
	mutex_unlock(&pool->lock);
	if (emptied)
		mod_delayed_work(system_wq, &pool->reclaim_work, pool->grace);
	return done;
}

static void jit_cache_refill_work(struct work_struct *work)
{
	struct jit_cache_pool *pool = container_of(to_delayed_work(work),
						   struct jit_cache_pool,
						   refill_work);

	jit_cache_refill(pool);
}

/**
 * jit_cache_reclaim() - give fully free huge pages back to vmalloc
 * @pool: the pool
 * @spare: give back the spare and pages still in their grace period too
 *
 * Without @spare, pages free for longer than the grace period go, except
 * one that the pool keeps as its spare.  @spare is for memory pressure.
 *
 * Context: process context, may sleep; only tries pool->lock when @spare,
 * as the shrinker may run under it.
 * Return: the number of huge pages given back.
 */
unsigned long jit_cache_reclaim(struct jit_cache_pool *pool, bool spare)
{
	struct jit_cache_page *page, *tmp;
	unsigned long freed = 0, wait = 0;
	LIST_HEAD(victims);
	bool keep = !spare;

	if (spare) {
		if (!mutex_trylock(&pool->lock))
			return 0;
	} else {
		mutex_lock(&pool->lock);
	}
	list_for_each_entry_safe(page, tmp, &pool->pages, list) {
		unsigned long expires = page->empty_since + pool->grace;

		if (page->used)
			continue;
		if (keep) {
			keep = false;
			continue;
		}
		if (!spare && time_before(jiffies, expires)) {
			wait = max(wait, expires - jiffies);
			continue;
		}
		list_move(&page->list, &victims);
		pool->stats.huge_pages--;
		pool->stats.reclaims++;
		freed++;
	}
	mutex_unlock(&pool->lock);

	list_for_each_entry_safe(page, tmp, &victims, list)
		jit_cache_page_free(page);
	if (wait)
		mod_delayed_work(system_wq, &pool->reclaim_work, wait);
	return freed;
}

static void jit_cache_reclaim_work(struct work_struct *work)
{
	struct jit_cache_pool *pool = container_of(to_delayed_work(work),
						   struct jit_cache_pool,
						   reclaim_work);

	jit_cache_reclaim(pool, false);
}

/**
 * jit_cache_flush() - finish pending refills and due reclaims of a pool
 * @pool: the pool
 *
 * Context: process context, may sleep.
 */
void jit_cache_flush(struct jit_cache_pool *pool)
{
	flush_delayed_work(&pool->refill_work);
	flush_delayed_work(&pool->reclaim_work);
}

/**
 * jit_cache_note_fallback() - count a request served by the page allocator
 * @pool: the pool that could not serve it
 * @len: its length
 * @alloc: true when it was allocated, false when it is freed
 */
void jit_cache_note_fallback(struct jit_cache_pool *pool, size_t len,
			     bool alloc)
{
	unsigned long pages = PAGE_ALIGN(len) >> PAGE_SHIFT;

	mutex_lock(&pool->lock);
	if (alloc) {
		pool->stats.fallbacks++;
		pool->stats.fallback_pages += pages;
	} else {
		pool->stats.fallback_pages -= pages;
	}
	mutex_unlock(&pool->lock);
}

/**
 * jit_cache_get_stats() - snapshot of a pool's counters
 * @pool: the pool
 * @stats: filled in
 */
void jit_cache_get_stats(struct jit_cache_pool *pool,
			 struct jit_cache_stats *stats)
{
	struct jit_cache_page *page;

	mutex_lock(&pool->lock);
	*stats = pool->stats;
	stats->spare_pages = 0;
	stats->chunks_used = 0;
	stats->largest_free_run = 0;
	list_for_each_entry(page, &pool->pages, list) {
		if (!page->used)
			stats->spare_pages++;
		stats->chunks_used += page->used;
		stats->largest_free_run = max(stats->largest_free_run,
					      jit_cache_page_largest_run(page));
	}
	stats->chunks_total = stats->huge_pages * JIT_CACHE_PAGE_CHUNKS;
	mutex_unlock(&pool->lock);
}

static const char * const jit_cache_user_names[JIT_CACHE_USER_NR] = {
	[JIT_CACHE_USER_OTHER]		= "other",
	[JIT_CACHE_USER_BPF]		= "bpf",
	[JIT_CACHE_USER_KPROBES]	= "kprobes",
	[JIT_CACHE_USER_FTRACE]		= "ftrace",
	[JIT_CACHE_USER_MODULES]	= "modules",
};

/* One "key value" per line; Documentation/mm/jitalloc.rst explains them. */
static int jit_cache_stats_show(struct seq_file *m, void *v)
{
	struct jit_cache_pool *pool = m->private;
	struct jit_cache_page *page;
	struct jit_cache_stats s;
	unsigned long free, frag = 0;
	int i;

	jit_cache_get_stats(pool, &s);
	free = s.chunks_total - s.chunks_used;
	if (free)
		frag = 100 - s.largest_free_run * 100 / free;

	seq_printf(m, "range 0x%lx-0x%lx\n", pool->as.start, pool->as.end);
	seq_printf(m, "huge_pages %lu\n", s.huge_pages);
	seq_printf(m, "spare_pages %lu\n", s.spare_pages);
	seq_printf(m, "fallback_pages %lu\n", s.fallback_pages);
	seq_printf(m, "chunk_size %lu\n", JIT_CACHE_CHUNK_SIZE);
	seq_printf(m, "chunks_total %lu\n", s.chunks_total);
	seq_printf(m, "chunks_used %lu\n", s.chunks_used);
	seq_printf(m, "chunks_free %lu\n", free);
	seq_printf(m, "largest_free_run_bytes %zu\n",
		   chunks_to_bytes(s.largest_free_run));
	seq_printf(m, "fragmentation_pct %lu\n", frag);
	seq_printf(m, "bytes_in_use %lu\n", bytes_in_use(&s));
	for (i = 0; i < JIT_CACHE_USER_NR; i++)
		seq_printf(m, "bytes_in_use_%s %lu\n", jit_cache_user_names[i],
			   s.bytes_in_use[i]);
	seq_printf(m, "high_water_bytes %lu\n", s.high_water);
	seq_printf(m, "allocs %lu\n", s.allocs);
	seq_printf(m, "frees %lu\n", s.frees);
	seq_printf(m, "fallbacks %lu\n", s.fallbacks);
	seq_printf(m, "reclaims %lu\n", s.reclaims);
	seq_puts(m, "huge_page_addrs");
	mutex_lock(&pool->lock);
	list_for_each_entry(page, &pool->pages, list)
		seq_printf(m, " 0x%lx", (unsigned long)page->addr);
	mutex_unlock(&pool->lock);
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(jit_cache_stats);

static void jit_cache_pool_debugfs(struct jit_cache_pool *pool)
{
	if (jit_cache_debugfs_dir && !pool->debugfs)
		pool->debugfs = debugfs_create_file(pool->name, 0400,
						    jit_cache_debugfs_dir,
						    pool, &jit_cache_stats_fops);
}

/**
 * jit_cache_pool_create() - set up a pool for one placement range
 * @name: name of its statistics file in /sys/kernel/debug/jitalloc/
 * @as: range and protections of the huge pages; pgprot must be ROX
 * @kasan_shadow: allocate KASAN shadow for each huge page
 * @fill: byte whose repetition traps when executed (int3 on x86, UDF #0 on
 *	arm64), written into every chunk before it is handed out
 * @grace_ms: how long a fully free huge page is kept before it is given back
 *
 * Return: the pool, or NULL without memory.
 */
struct jit_cache_pool *jit_cache_pool_create(const char *name,
					     const struct jit_address_space *as,
					     bool kasan_shadow, u8 fill,
					     unsigned int grace_ms)
{
	struct jit_cache_pool *pool = kzalloc(sizeof(*pool), GFP_KERNEL);

	if (!pool)
		return NULL;
	pool->name = kstrdup_const(name, GFP_KERNEL);
	if (!pool->name) {
		kfree(pool);
		return NULL;
	}
	pool->as = *as;
	pool->kasan_shadow = kasan_shadow;
	pool->fill = fill;
	pool->grace = msecs_to_jiffies(grace_ms);
	pool->retry_after = jiffies;
	mutex_init(&pool->lock);
	INIT_LIST_HEAD(&pool->pages);
	INIT_DELAYED_WORK(&pool->refill_work, jit_cache_refill_work);
	INIT_DELAYED_WORK(&pool->reclaim_work, jit_cache_reclaim_work);

	mutex_lock(&jit_cache_pools_lock);
	list_add_tail(&pool->node, &jit_cache_pools);
	jit_cache_pool_debugfs(pool);
	mutex_unlock(&jit_cache_pools_lock);
	return pool;
}

/**
 * jit_cache_pool_destroy() - tear down a pool whose memory was all freed
 * @pool: the pool
 *
 * Huge pages still holding allocations are leaked with a warning rather
 * than freed under their users.
 */
void jit_cache_pool_destroy(struct jit_cache_pool *pool)
{
	struct jit_cache_page *page, *tmp;

	mutex_lock(&jit_cache_pools_lock);
	list_del(&pool->node);
	mutex_unlock(&jit_cache_pools_lock);
	debugfs_remove(pool->debugfs);

	flush_delayed_work(&pool->refill_work);
	cancel_delayed_work_sync(&pool->reclaim_work);
	list_for_each_entry_safe(page, tmp, &pool->pages, list) {
		list_del(&page->list);
		if (WARN_ONCE(page->used, "jitalloc: pool %s destroyed in use\n",
			      pool->name))
			continue;
		jit_cache_page_free(page);
	}
	kfree_const(pool->name);
	kfree(pool);
}

/*
 * Page blocks.
 *
 * Allocations the cache does not serve - module data, module init sections,
 * text that is written in place - are page granular, and their users give
 * them read-only or executable permissions with set_memory_*().  On x86 that
 * changes the direct-map alias of each page too, and a 4 KiB change splits
 * the 2 MiB direct-map page around it: stock 6.1 splits one more for nearly
 * every module it loads.  When the architecture asks for it
 * (%JIT_ALLOC_GROUP_PAGES), such allocations take their pages from blocks of
 * JIT_BLOCK_PAGES physically contiguous, naturally aligned pages, the size
 * of one direct-map leaf.  The first permission change in a block splits
 * its leaf once; after that every page of the block has a 4 KiB mapping of
 * its own and changing it splits nothing.
 *
 * The pages are mapped into a VM_ALLOC area with __get_vm_area_node() and
 * vmap_pages_range_noflush() rather than by vmalloc, so that they come back
 * to the block when the allocation is freed (jit_free() knows which
 * allocations are block mappings; vfree() must never see one).  The free
 * undoes what set_memory_*() did, as VM_FLUSH_RESET_PERMS does for vmalloc:
 * the mapping goes and the TLB is flushed, then the direct map of the pages
 * is made invalid, flushed and reset to its default, so a page is never
 * writable through one mapping while another still executes it.  A pool
 * keeps one fully free block; more are given back to the page allocator at
 * once, the spare to the shrinker.  When no block can be had the caller
 * maps ordinary vmalloc pages, counted as a fallback.
 */
/**
 * struct jit_block - naturally aligned, physically contiguous pages
 * @list: entry in &jit_block_pool.blocks
 * @pool: the pool that holds it
 * @base: its first page; the pages are split, each is freed on its own
 * @used: pages handed out
 * @map: a bit per page handed out
 */
struct jit_block {
	struct list_head list;
	struct jit_block_pool *pool;
	struct page *base;
	unsigned int used;
	DECLARE_BITMAP(map, JIT_BLOCK_PAGES);
};

/**
 * struct jit_block_pool - blocks backing page-granular jit allocations
 * @node: entry in jit_block_pools
 * @name: debugfs file name
 * @max_blocks: most blocks held at once, 0 for no limit
 * @retry_after: no new block is tried before this time
 * @lock: protects everything below
 * @blocks: &struct jit_block list
 * @debugfs: the pool's statistics file
 * @stats: counters; the derived fields are filled in on read
 */
struct jit_block_pool {
	struct list_head node;
	const char *name;
	unsigned int max_blocks;
	unsigned long retry_after;
	struct mutex lock;	/* blocks, their bitmaps and stats */
	struct list_head blocks;
	struct dentry *debugfs;
	struct jit_block_stats stats;
};

static LIST_HEAD(jit_block_pools);

static struct jit_block *jit_block_of(struct page *page)
{
	return (struct jit_block *)page_private(page);
}

static struct jit_block *jit_block_new(struct jit_block_pool *bp)
{
	struct jit_block *block;
	struct page *page;
	unsigned int i;

	if ((bp->max_blocks && bp->stats.blocks >= bp->max_blocks) ||
	    time_before(jiffies, bp->retry_after))
		return NULL;
	block = kzalloc(sizeof(*block), GFP_KERNEL);
	if (!block)
		return NULL;
	page = alloc_pages(GFP_KERNEL | __GFP_NOWARN | __GFP_NORETRY,
			   JIT_BLOCK_ORDER);
	if (!page) {
		bp->retry_after = jiffies + JIT_CACHE_RETRY;
		kfree(block);
		return NULL;
	}
	split_page(page, JIT_BLOCK_ORDER);
	for (i = 0; i < JIT_BLOCK_PAGES; i++)
		set_page_private(page + i, (unsigned long)block);
	block->pool = bp;
	block->base = page;
	list_add_tail(&block->list, &bp->blocks);
	bp->stats.blocks++;
	return block;
}

static void jit_block_release(struct jit_block *block)
{
	unsigned int i;

	list_del(&block->list);
	block->pool->stats.blocks--;
	block->pool->stats.reclaims++;
	for (i = 0; i < JIT_BLOCK_PAGES; i++) {
		set_page_private(block->base + i, 0);
		__free_page(block->base + i);
	}
	kfree(block);
}

/* Give back the fully free blocks, all but one if @keep_spare.  Lock held. */
static unsigned long jit_block_release_free(struct jit_block_pool *bp,
					    bool keep_spare)
{
	struct jit_block *block, *tmp;
	unsigned long freed = 0;

	list_for_each_entry_safe(block, tmp, &bp->blocks, list) {
		if (block->used)
			continue;
		if (keep_spare) {
			keep_spare = false;
			continue;
		}
		jit_block_release(block);
		freed++;
	}
	return freed;
}

/* Give @nr pages back; keep one fully free block.  Lock held. */
static void jit_block_put_pages(struct jit_block_pool *bp,
				struct page **pages, unsigned int nr)
{
	struct jit_block *block;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		block = jit_block_of(pages[i]);
		__clear_bit(pages[i] - block->base, block->map);
		block->used--;
	}
	bp->stats.pages_in_use -= nr;
	jit_block_release_free(bp, true);
}

/* Take free pages of @block into @pages[@got..@nr); the new @got. */
static unsigned int jit_block_take(struct jit_block *block,
				   struct page **pages, unsigned int got,
				   unsigned int nr)
{
	unsigned int bit;

	for_each_clear_bit(bit, block->map, JIT_BLOCK_PAGES) {
		if (got == nr)
			break;
		__set_bit(bit, block->map);
		block->used++;
		pages[got++] = block->base + bit;
	}
	return got;
}

/* Take @nr pages, from new blocks if need be.  Lock held. */
static int jit_block_get_pages(struct jit_block_pool *bp, struct page **pages,
			       unsigned int nr)
{
	struct jit_block *block;
	unsigned int got = 0;

	list_for_each_entry(block, &bp->blocks, list)
		got = jit_block_take(block, pages, got, nr);
	while (got < nr) {
		block = jit_block_new(bp);
		if (!block) {
			bp->stats.pages_in_use += got;
			jit_block_put_pages(bp, pages, got);
			return -ENOMEM;
		}
		got = jit_block_take(block, pages, got, nr);
	}
	bp->stats.pages_in_use += nr;
	bp->stats.high_water_pages = max(bp->stats.high_water_pages,
					 bp->stats.pages_in_use);
	return 0;
}

/**
 * jit_block_vmap() - map pages of a pool's blocks into a range
 * @bp: the pool
 * @len: bytes wanted
 * @align: alignment of the mapping, a power of two of at least PAGE_SIZE
 * @start: start of the range
 * @end: end of the range (exclusive)
 * @prot: protections of the mapping
 * @vm_flags: extra VM_* flags of the area (VM_DEFER_KMEMLEAK)
 * @caller: shown in /proc/vmallocinfo
 *
 * The pages are zeroed.  Unless @vm_flags defers it, the mapping is
 * registered with kmemleak, as vmalloc does.  Free it with
 * jit_block_vunmap().
 *
 * Context: process context, may sleep.
 * Return: the mapping, or NULL when no block or no room in the range could
 * be had; the caller then uses vmalloc.
 */
void *jit_block_vmap(struct jit_block_pool *bp, size_t len,
		     unsigned long align, unsigned long start,
		     unsigned long end, pgprot_t prot, unsigned long vm_flags,
		     const void *caller)
{
	unsigned int i, nr = PAGE_ALIGN(len) >> PAGE_SHIFT;
	unsigned long addr, size = (unsigned long)nr << PAGE_SHIFT;
	struct vm_struct *area;
	struct page **pages;

	if (!len || len > JIT_BLOCK_PAGES * PAGE_SIZE)
		return NULL;
	pages = kvmalloc_array(nr, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return NULL;
	mutex_lock(&bp->lock);
	if (jit_block_get_pages(bp, pages, nr)) {
		bp->stats.fallbacks++;
		mutex_unlock(&bp->lock);
		kvfree(pages);
		return NULL;
	}
	mutex_unlock(&bp->lock);

	for (i = 0; i < nr; i++)
		clear_highpage(pages[i]);
	area = __get_vm_area_node(size, max(align, PAGE_SIZE), PAGE_SHIFT,
				  VM_ALLOC | vm_flags, start, end, NUMA_NO_NODE,
				  GFP_KERNEL, caller);
	if (!area)
		goto err_pages;
	addr = (unsigned long)area->addr;
	if (vmap_pages_range_noflush(addr, addr + size, prot, pages,
				     PAGE_SHIFT)) {
		free_vm_area(area);
		goto err_pages;
	}
	flush_cache_vmap(addr, addr + size);
	area->pages = pages;
	area->nr_pages = nr;
	/* VM_ALLOC areas are unpoisoned once mapped, as vmalloc does */
	area->addr = kasan_unpoison_vmalloc(area->addr, size,
					    KASAN_VMALLOC_PROT_NORMAL);
	if (!(vm_flags & VM_DEFER_KMEMLEAK))
		kmemleak_vmalloc(area, len, GFP_KERNEL);

	mutex_lock(&bp->lock);
	bp->stats.allocs++;
	mutex_unlock(&bp->lock);
	return area->addr;

err_pages:
	mutex_lock(&bp->lock);
	jit_block_put_pages(bp, pages, nr);
	mutex_unlock(&bp->lock);
	kvfree(pages);
	return NULL;
}

/**
 * jit_block_vunmap() - free a mapping made by jit_block_vmap()
 * @addr: its start
 *
 * Undoes any set_memory_*() on the mapping and its direct-map alias, and
 * gives the pages back to their blocks.
 *
 * Context: process context, may sleep.
 */
void jit_block_vunmap(void *addr)
{
	unsigned long dstart = ULONG_MAX, dend = 0, va;
	struct jit_block_pool *bp;
	struct vm_struct *area;
	struct page **pages;
	unsigned int i, nr;

	kmemleak_free(addr);
	area = find_vm_area(addr);
	if (WARN_ONCE(!area || !area->pages,
		      "jitalloc: %p is not a page block mapping\n", addr))
		return;
	pages = area->pages;
	nr = area->nr_pages;
	bp = jit_block_of(pages[0])->pool;
	kasan_poison_vmalloc(addr, get_vm_area_size(area));

	for (i = 0; i < nr; i++) {
		va = (unsigned long)page_address(pages[i]);
		dstart = min(dstart, va);
		dend = max(dend, va + PAGE_SIZE);
	}
	/* the executable or read-only mapping goes first, with its TLB */
	remove_vm_area(addr);
	kfree(area);
	vm_unmap_aliases();
	/* then the direct map is reset, never writable while cached stale */
	for (i = 0; i < nr; i++)
		set_direct_map_invalid_noflush(pages[i]);
	flush_tlb_kernel_range(dstart, dend);
	for (i = 0; i < nr; i++)
		set_direct_map_default_noflush(pages[i]);

	mutex_lock(&bp->lock);
	jit_block_put_pages(bp, pages, nr);
	bp->stats.frees++;
	mutex_unlock(&bp->lock);
	kvfree(pages);
}

/* Fully free blocks of @bp.  Lock held. */
static unsigned long jit_block_nr_free(struct jit_block_pool *bp)
{
	struct jit_block *block;
	unsigned long n = 0;

	list_for_each_entry(block, &bp->blocks, list)
		n += !block->used;
	return n;
}

/**
 * jit_block_get_stats() - snapshot of a block pool's counters
 * @bp: the pool
 * @stats: filled in
 */
void jit_block_get_stats(struct jit_block_pool *bp,
			 struct jit_block_stats *stats)
{
	struct jit_block *block;

	mutex_lock(&bp->lock);
	*stats = bp->stats;
	stats->spare_blocks = jit_block_nr_free(bp);
	mutex_unlock(&bp->lock);
}

/**
 * jit_block_page_of() - is a page part of one of a pool's blocks?
 * @bp: the pool
 * @page: the page
 *
 * Return: the pfn of the first page of its block, or 0.
 */
unsigned long jit_block_page_of(struct jit_block_pool *bp, struct page *page)
{
	struct jit_block *block;
	unsigned long pfn = 0;

	mutex_lock(&bp->lock);
	list_for_each_entry(block, &bp->blocks, list)
		if (page >= block->base && page < block->base + JIT_BLOCK_PAGES)
			pfn = page_to_pfn(block->base);
	mutex_unlock(&bp->lock);
	return pfn;
}

/*
 * Give back the free blocks, the spare too: the shrinker's way, which only
 * tries the lock.
 */
static unsigned long jit_block_reclaim(struct jit_block_pool *bp)
{
	unsigned long freed;

	if (!mutex_trylock(&bp->lock))
		return 0;
	freed = jit_block_release_free(bp, false);
	mutex_unlock(&bp->lock);
	return freed;
}

/* Fully free blocks of @bp, or 0 when its lock is busy. */
static unsigned long jit_block_count_free(struct jit_block_pool *bp)
{
	unsigned long n;

	if (!mutex_trylock(&bp->lock))
		return 0;
	n = jit_block_nr_free(bp);
	mutex_unlock(&bp->lock);
	return n;
}

/* One "key value" per line; Documentation/mm/jitalloc.rst explains them. */
static int jit_block_stats_show(struct seq_file *m, void *v)
{
	struct jit_block_pool *bp = m->private;
	struct jit_block_stats s;

	jit_block_get_stats(bp, &s);
	seq_printf(m, "block_pages %lu\n", JIT_BLOCK_PAGES);
	seq_printf(m, "blocks %lu\n", s.blocks);
	seq_printf(m, "spare_blocks %lu\n", s.spare_blocks);
	seq_printf(m, "pages_in_use %lu\n", s.pages_in_use);
	seq_printf(m, "high_water_pages %lu\n", s.high_water_pages);
	seq_printf(m, "allocs %lu\n", s.allocs);
	seq_printf(m, "frees %lu\n", s.frees);
	seq_printf(m, "fallbacks %lu\n", s.fallbacks);
	seq_printf(m, "reclaims %lu\n", s.reclaims);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(jit_block_stats);

static void jit_block_pool_debugfs(struct jit_block_pool *bp)
{
	if (jit_cache_debugfs_dir && !bp->debugfs)
		bp->debugfs = debugfs_create_file(bp->name, 0400,
						  jit_cache_debugfs_dir, bp,
						  &jit_block_stats_fops);
}

/**
 * jit_block_pool_create() - set up a pool of page blocks
 * @name: name of its statistics file in /sys/kernel/debug/jitalloc/
 * @max_blocks: most blocks held at once, 0 for no limit (a limit lets the
 *	KUnit test exercise the fallback)
 *
 * Return: the pool, or NULL without memory.
 */
struct jit_block_pool *jit_block_pool_create(const char *name,
					     unsigned int max_blocks)
{
	struct jit_block_pool *bp = kzalloc(sizeof(*bp), GFP_KERNEL);

	if (!bp)
		return NULL;
	bp->name = kstrdup_const(name, GFP_KERNEL);
	if (!bp->name) {
		kfree(bp);
		return NULL;
	}
	bp->max_blocks = max_blocks;
	bp->retry_after = jiffies;
	mutex_init(&bp->lock);
	INIT_LIST_HEAD(&bp->blocks);

	mutex_lock(&jit_cache_pools_lock);
	list_add_tail(&bp->node, &jit_block_pools);
	jit_block_pool_debugfs(bp);
	mutex_unlock(&jit_cache_pools_lock);
	return bp;
}

/**
 * jit_block_pool_destroy() - tear down a block pool whose memory was freed
 * @bp: the pool
 *
 * Blocks with pages still in use are leaked with a warning rather than
 * freed under their users.
 */
void jit_block_pool_destroy(struct jit_block_pool *bp)
{
	struct jit_block *block, *tmp;

	mutex_lock(&jit_cache_pools_lock);
	list_del(&bp->node);
	mutex_unlock(&jit_cache_pools_lock);
	debugfs_remove(bp->debugfs);

	list_for_each_entry_safe(block, tmp, &bp->blocks, list) {
		if (WARN_ONCE(block->used,
			      "jitalloc: block pool %s destroyed in use\n",
			      bp->name)) {
			list_del(&block->list);
			continue;
		}
		jit_block_release(block);
	}
	kfree_const(bp->name);
	kfree(bp);
}

/* Fully free huge pages of @pool, or 0 when its lock is busy. */
static unsigned long jit_cache_count_free_pages(struct jit_cache_pool *pool)
{
	struct jit_cache_page *page;
	unsigned long n = 0;

	if (!mutex_trylock(&pool->lock))
		return 0;
	list_for_each_entry(page, &pool->pages, list)
		n += !page->used;
	mutex_unlock(&pool->lock);
	return n;
}

/*
 * Reclaim may run while a pool's lock is held by an allocation that entered
 * it, so the shrinker only ever tries the locks.
 */
static unsigned long jit_cache_shrink_count(struct shrinker *shrink,
					    struct shrink_control *sc)
{
	struct jit_block_pool *bp;
	struct jit_cache_pool *pool;
	unsigned long n = 0, blocks = 0;

	if (!mutex_trylock(&jit_cache_pools_lock))
		return 0;
	list_for_each_entry(pool, &jit_cache_pools, node)
		n += jit_cache_count_free_pages(pool);
	list_for_each_entry(bp, &jit_block_pools, node)
		blocks += jit_block_count_free(bp);
	mutex_unlock(&jit_cache_pools_lock);
	return n * (PMD_SIZE >> PAGE_SHIFT) + blocks * JIT_BLOCK_PAGES;
}

static unsigned long jit_cache_shrink_scan(struct shrinker *shrink,
					   struct shrink_control *sc)
{
	struct jit_block_pool *bp;
	struct jit_cache_pool *pool;
	unsigned long freed = 0;

	if (!mutex_trylock(&jit_cache_pools_lock))
		return SHRINK_STOP;
	list_for_each_entry(pool, &jit_cache_pools, node)
		freed += jit_cache_reclaim(pool, true) * (PMD_SIZE >> PAGE_SHIFT);
	list_for_each_entry(bp, &jit_block_pools, node)
		freed += jit_block_reclaim(bp) * JIT_BLOCK_PAGES;
	mutex_unlock(&jit_cache_pools_lock);
	return freed ?: SHRINK_STOP;
}

static struct shrinker jit_cache_shrinker = {
	.count_objects	= jit_cache_shrink_count,
	.scan_objects	= jit_cache_shrink_scan,
	.seeks		= DEFAULT_SEEKS,
};

static int __init jit_cache_init(void)
{
	struct jit_block_pool *bp;
	struct jit_cache_pool *pool;

	jit_cache_debugfs_dir = debugfs_create_dir("jitalloc", NULL);
	mutex_lock(&jit_cache_pools_lock);
	list_for_each_entry(pool, &jit_cache_pools, node)
		jit_cache_pool_debugfs(pool);
	list_for_each_entry(bp, &jit_block_pools, node)
		jit_block_pool_debugfs(bp);
	mutex_unlock(&jit_cache_pools_lock);
	return register_shrinker(&jit_cache_shrinker, "jitalloc-cache");
}
late_initcall(jit_cache_init);
