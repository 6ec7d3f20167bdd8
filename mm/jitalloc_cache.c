// SPDX-License-Identifier: GPL-2.0-only
/*
 * jitalloc_cache - huge read-only-executable pages shared by the small users
 * of executable memory.
 *
 * BPF programs, kprobes instruction slots and ftrace trampolines are tens to
 * hundreds of bytes each, yet every one of them used to take at least one
 * 4 KiB vmalloc page of its own, mapped by its own PTE and made read-only and
 * executable with set_memory_*(), which also splits the direct map around
 * it.  bpf_prog_pack showed the cure for BPF: take 2 MiB at a time and carve
 * it.  This file generalises it for every user of the executable-memory
 * allocator whose memory the architecture marks cacheable.
 *
 * Pools.  There is one pool per placement range (struct jit_address_space),
 * so per-user ranges keep their rules: on x86 everything shares the module
 * range, on arm64 kprobes get a pool in the vmalloc range.  A pool holds a
 * list of huge pages and one mutex; the callers are all process context and
 * may sleep (no IRQ context: vmalloc and text poking both sleep).
 *
 * Huge pages.  A page is JIT_CACHE_PAGE_SIZE bytes from vmalloc with
 * VM_ALLOW_HUGE_VMAP, aligned to its size: one PMD leaf, or where a PMD
 * maps more than 2 MiB (arm64 with 16K or 64K pages) one 2 MiB run of
 * contiguous PTEs, one TLB entry either way.  vmalloc falls back to small
 * pages silently, so the page table is walked and anything but a single
 * such entry is given back.  vmalloc maps it read-only and not executable.
 * It is filled with the architecture's trapping instruction through its
 * linear (direct map) alias, which is then made read-only in one step over
 * the whole page, and only then is the page mapped executable: the
 * read-only mapping is taken down and the same pages are mapped again as
 * one entry, because arm64 cannot change the permissions of a huge vmalloc
 * mapping.  So no byte is executable while a writable alias of it exists,
 * and the direct map is not split below the page size.
 *
 * Chunks.  A huge page is carved into JIT_CACHE_CHUNK_SIZE chunks tracked by
 * two bitmaps, as mm/percpu.c does: alloc_map has a bit per chunk in use and
 * bound_map a bit at the first chunk of every allocation and at the chunk
 * after its end, with no bit inside a live allocation, so a free
 * recovers the size of an allocation from the bitmaps alone and writes
 * nothing into the executable memory; the same bits tell whether a chunk
 * starts a live allocation, and three more bitmaps record who made it, so
 * allocation and free touch nothing but bitmaps.  The search
 * is bitmap_find_next_zero_area() from a per-page first-free hint, skipping
 * pages with fewer free chunks than asked for: the cost is bounded by
 * JIT_CACHE_PAGE_SIZE / JIT_CACHE_CHUNK_SIZE bits per huge page held.
 * Requests of a page or more are page aligned, smaller ones chunk aligned.
 *
 * Freeing.  Freed chunks must not run again, so they are refilled with
 * trapping instructions before they can be handed out again.  The refill is
 * text poking, which on x86 takes text_mutex, a lock some callers (kprobes)
 * already hold when they allocate and free; so a free only marks the
 * chunks pending and a worker, the one place that refills, pokes them and
 * then releases them.  Chunks being poked have a state of their own, so a
 * second free or a write into them is refused until they are free again.
 * The worker runs JIT_CACHE_REFILL_DELAY after the free that queued it, so
 * a burst of frees (a BPF program set going away, a load/unload loop) is
 * refilled with one poke per run of adjacent chunks rather than one per
 * free.  An allocation that finds no room waits for the worker before it
 * takes a new huge page.  Callers that hold text_mutex say so by calling
 * jit_cache_alloc_nowait(): they neither wait for the worker nor allocate
 * a huge page (which may reclaim and compact for a long time); the pool
 * starts the refill or adds a page in the background and the request goes
 * to the fallback path.  No path guesses whether somebody else holds a
 * lock.  A huge page that becomes entirely free is given back after a
 * grace period, except that each pool keeps one spare; a shrinker gives
 * the spare back under memory pressure.
 *
 * Lookups.  Frees and updates find the huge page of an address in a maple
 * tree of all pools' pages, O(log n), and then lock only that page's pool.
 *
 * Aliases.  No byte of a huge page is writable through another mapping
 * while it is executable: the linear alias is protected before the page
 * is mapped executable, a page whose alias cannot be protected is not
 * used, and a page whose alias cannot be made writable again is kept out
 * of the page allocator.  Both are counted.  A page goes back to the page
 * allocator only after its executable mapping and the TLB entries for it
 * are gone.  (arm64 can change the linear map only where it is mapped with
 * pages, rodata=full, its default; without it the alias keeps the linear
 * map's permissions, as with set_memory_ro().)
 *
 * Fallback.  A request the pool cannot serve (no huge page to be had, range
 * exhausted or too small, request larger than a huge page) returns NULL here
 * and the allocator the cache serves (the core, jitalloc_backend.h) serves
 * it from its page-granular path and tells the pool
 * (jit_cache_pool_count_fallback()), whose file shows it; the cache never
 * fails a request the core would have served.  The flow is one way: the
 * core picks a backend - this cache, its page blocks or plain vmalloc -
 * and calls down into it, never the other way round.
 */

#define pr_fmt(fmt) "jitalloc_cache: " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/kallsyms.h>
#include <linux/kasan.h>
#include <linux/kmemleak.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/maple_tree.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/pgtable.h>
#include <linux/random.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/set_memory.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>
#include <asm/cacheflush.h>
#include <asm/tlbflush.h>

#include "internal.h"
#include "jitalloc_cache.h"

#include <trace/events/jitalloc.h>

#ifndef JIT_CACHE_CHUNK_SHIFT
#define JIT_CACHE_CHUNK_SHIFT	6
#endif
#define JIT_CACHE_CHUNK_SIZE	BIT(JIT_CACHE_CHUNK_SHIFT)
#define JIT_CACHE_PAGE_CHUNKS	(JIT_CACHE_PAGE_SIZE >> JIT_CACHE_CHUNK_SHIFT)
#define JIT_CACHE_PAGE_ALIGN	((PAGE_SIZE >> JIT_CACHE_CHUNK_SHIFT) - 1)
/* refill freed chunks this long after the first free of a burst */
#define JIT_CACHE_REFILL_DELAY	max(1, HZ / 100)
/* bits of the &enum jit_alloc_type kept per allocation */
#define JIT_CACHE_USER_BITS	3
static_assert(BIT(JIT_CACHE_USER_BITS) >= JIT_TYPE_NR);

/**
 * struct jit_cache_page - one huge ROX page carved into chunks
 * @list: entry in &jit_cache_pool.pages
 * @pool: the pool that holds it
 * @addr: start of the mapping, aligned to JIT_CACHE_PAGE_SIZE
 * @alias: its linear-map alias
 * @dead: taken off the pool for freeing; lookups must not use it
 * @kept: never freed (its pages or its allocations are kept): it stays in
 *	the lookup tree, where it refuses frees and writes without its pool
 * @used: chunks allocated, waiting for their refill or being refilled
 * @first_free: no free chunk lies below this index
 * @empty_since: jiffies when @used dropped to zero
 * @alloc_map: a bit per chunk allocated, pending or being refilled
 * @bound_map: a bit at each allocation's first chunk and after its last
 * @pending_map: a bit per freed chunk waiting for its refill
 * @refill_map: a bit per freed chunk being refilled right now
 * @user_map: bit b of the &enum jit_alloc_type of each allocation, at its
 *	first chunk
 *
 * A chunk starts a live allocation exactly when its bits in @alloc_map and
 * @bound_map are set and its bits in @pending_map and @refill_map are not:
 * allocations clear the bound bits inside them, so a chunk with a bound bit
 * that is in use is a first chunk, and a free leaves the chunks in
 * @alloc_map, marked pending, until the refill is done.  A freed chunk is
 * pending, then being refilled, then free; it is never live again in
 * between, so a second free or a write into it is refused at every step.
 */
struct jit_cache_page {
	struct list_head list;
	struct jit_cache_pool *pool;
	void *addr;
	void *alias;
	bool dead;
	bool kept;
	unsigned int used;
	unsigned int first_free;
	unsigned long empty_since;
	DECLARE_BITMAP(alloc_map, JIT_CACHE_PAGE_CHUNKS);
	DECLARE_BITMAP(bound_map, JIT_CACHE_PAGE_CHUNKS + 1);
	DECLARE_BITMAP(pending_map, JIT_CACHE_PAGE_CHUNKS);
	DECLARE_BITMAP(refill_map, JIT_CACHE_PAGE_CHUNKS);
	DECLARE_BITMAP(user_map[JIT_CACHE_USER_BITS], JIT_CACHE_PAGE_CHUNKS);
};

/* Is @chunk freed, waiting for its refill or being refilled? */
static bool jit_cache_freed(const struct jit_cache_page *page,
			    unsigned long chunk)
{
	return test_bit(chunk, page->pending_map) ||
	       test_bit(chunk, page->refill_map);
}

static bool jit_cache_live_start(const struct jit_cache_page *page,
				 unsigned long chunk)
{
	return test_bit(chunk, page->alloc_map) &&
	       test_bit(chunk, page->bound_map) &&
	       !jit_cache_freed(page, chunk);
}

static void jit_cache_set_user(struct jit_cache_page *page,
			       unsigned long start, enum jit_alloc_type user)
{
	int b;

	for (b = 0; b < JIT_CACHE_USER_BITS; b++)
		__assign_bit(start, page->user_map[b], user & BIT(b));
}

static enum jit_alloc_type jit_cache_get_user(const struct jit_cache_page *page,
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
 * @randomize: place huge pages, and the first allocation in each, at random
 * @top_down: place huge pages at the highest free places of the range
 * @off: switched off at boot: takes no huge page, serves nothing
 * @fill: byte that traps when executed, repeated
 * @grace: jiffies a fully free huge page is kept before it is given back
 * @retry_after: no new huge page is tried before this time
 * @lock: protects everything below
 * @pages: &struct jit_cache_page list
 * @freed_chunks: chunks pending or being refilled, in all pages
 * @refill_work: refills freed chunks with traps, a little after the free
 *	that queued it so that runs of frees are refilled together; the only
 *	place that pokes freed chunks
 * @grow_work: adds a huge page for callers that must not allocate one
 * @reclaim_work: gives back pages that stayed free for @grace
 * @debugfs: the pool's statistics file
 * @fallbacks: requests for the pool's types it could not serve, served
 *	page by page instead, counted by the core
 *	(jit_cache_pool_count_fallback())
 * @fallback_pages: pages of page-granular text of the pool's types now:
 *	its fallbacks, or everything with the cache switched off
 * @stats: counters; the derived fields are filled in on read
 */
struct jit_cache_pool {
	struct list_head node;
	const char *name;
	struct jit_address_space as;
	bool kasan_shadow;
	bool randomize;
	bool top_down;
	bool off;
	u8 fill;
	unsigned long grace;
	unsigned long retry_after;
	struct mutex lock;	/* pages, their bitmaps and stats */
	struct list_head pages;
	unsigned long freed_chunks;
	struct delayed_work refill_work;
	struct work_struct grow_work;
	struct delayed_work reclaim_work;
	struct dentry *debugfs;
	atomic_long_t fallbacks;
	atomic_long_t fallback_pages;
	struct jit_cache_stats stats;
};

/* The pools, for the shrinker and debugfs; pools are not looked up here. */
static LIST_HEAD(jit_cache_pools);
static DEFINE_MUTEX(jit_cache_pools_lock);
/* the jitalloc debugfs directory, once it is up */
static struct dentry *jit_cache_dir __ro_after_init;
/* base pages of every pool's huge pages, see jit_cache_held_pages() */
static atomic_long_t jit_cache_pages = ATOMIC_LONG_INIT(0);

/*
 * Every huge page of every pool, by address range, so that a free or an
 * update finds its page in O(log n) without taking any pool's lock but the
 * page's own.  The tree is not in RCU mode: adding or erasing a page
 * rewrites a node in place, so a lookup holds the tree's own lock (a
 * lockless load can read a torn node, miss a live page or return another
 * one).  A reader holds jit_cache_map_sem for reading from the lookup
 * until it holds the page's pool lock; a page is marked dead, and erased
 * and freed only after jit_cache_map_sem was taken for writing once, when no
 * reader that found it can still be on its way to its pool's lock.  A page
 * leaves the tree only after its area was unmapped, its alias made
 * writable and the area vfree()d, and a page that is never freed stays: a
 * free of an address in neither a pool nor the tree would be handed on to
 * vfree(), which frees the whole area that holds it.
 */
static DEFINE_MTREE(jit_cache_map);
static DECLARE_RWSEM(jit_cache_map_sem);

#ifdef CONFIG_FAULT_INJECTION
/*
 * The cache cannot get a huge page (fail_huge_page), protecting or
 * restoring a direct-map alias fails (fail_alias), or a filled page mapped
 * executable is found not to be one entry (fail_map_exec): knobs in
 * /sys/kernel/debug/jitalloc/ with CONFIG_FAULT_INJECTION_DEBUG_FS, for
 * the tests.
 */
DECLARE_FAULT_ATTR(jit_fail_huge_page);
DECLARE_FAULT_ATTR(jit_fail_alias);
DECLARE_FAULT_ATTR(jit_fail_map_exec);

static bool jit_should_fail_huge_page(void)
{
	return should_fail(&jit_fail_huge_page, JIT_CACHE_PAGE_SIZE);
}

static bool jit_should_fail_alias(size_t len)
{
	return should_fail(&jit_fail_alias, len);
}

static bool jit_should_fail_map_exec(void)
{
	return should_fail(&jit_fail_map_exec, JIT_CACHE_PAGE_SIZE);
}
#else
static bool jit_should_fail_huge_page(void)
{
	return false;
}

static bool jit_should_fail_alias(size_t len)
{
	return false;
}

static bool jit_should_fail_map_exec(void)
{
	return false;
}
#endif

/**
 * jit_protect_alias() - protect or restore a direct-map alias, checked
 * @addr: linear-map address, page aligned
 * @len: bytes, a multiple of PAGE_SIZE
 * @protect: make it read-only, or writable again
 *
 * jit_arch_protect_alias() behind the fail_alias fault injection (debugfs).
 *
 * Return: 0 or a negative errno.
 */
int jit_protect_alias(void *addr, size_t len, bool protect)
{
	if (jit_should_fail_alias(len))
		return -ENOMEM;
	return jit_arch_protect_alias(addr, len, protect);
}

int __weak jit_arch_protect_vmalloc_aliases(void *addr, size_t len)
{
	size_t off;
	int err;

	for (off = 0; off < len; off += PAGE_SIZE) {
		err = jit_arch_protect_alias(page_address(vmalloc_to_page(addr + off)),
					     PAGE_SIZE, true);
		if (err)
			return err;
	}
	return 0;
}

/**
 * jit_protect_vmalloc_aliases() - make the aliases of vmalloc memory read-only
 * @addr: vmalloc address, page aligned
 * @len: bytes, a multiple of PAGE_SIZE
 *
 * jit_arch_protect_vmalloc_aliases() behind the fail_alias (debugfs) fault
 * injection.
 *
 * Return: 0 or a negative errno.
 */
int jit_protect_vmalloc_aliases(void *addr, size_t len)
{
	if (jit_should_fail_alias(len))
		return -ENOMEM;
	return jit_arch_protect_vmalloc_aliases(addr, len);
}

static inline size_t chunks_to_bytes(unsigned long chunks)
{
	return chunks << JIT_CACHE_CHUNK_SHIFT;
}

static unsigned long bytes_in_use(const struct jit_cache_stats *s)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < JIT_TYPE_NR; i++)
		sum += s->bytes_in_use[i];
	return sum;
}

/**
 * jit_cache_pages_possible() - can vmalloc map a cache page as one entry?
 * @prot: the protections it would be mapped with
 *
 * Return: true when huge vmalloc mappings are on (no nohugevmalloc) and the
 * architecture maps JIT_CACHE_PAGE_SIZE of vmalloc memory with @prot as one
 * PMD leaf or, where the cache page is smaller than a PMD, as one run of
 * contiguous PTEs.
 */
bool jit_cache_pages_possible(pgprot_t prot)
{
	if (!vmap_allow_huge_mappings())
		return false;
	if (JIT_CACHE_PAGE_SHIFT == PMD_SHIFT)
		return arch_vmap_pmd_supported(prot);
	return arch_vmap_pte_supported_shift(JIT_CACHE_PAGE_SIZE) ==
	       JIT_CACHE_PAGE_SHIFT;
}

/* Is @addr mapped by one entry that covers a whole cache page? */
static bool jit_cache_page_mapped(unsigned long addr)
{
	struct jit_leaf leaf;

	jit_arch_kernel_leaf(addr, &leaf);
	return leaf.size >= JIT_CACHE_PAGE_SIZE;
}

/* A pool's protections now; they may change after boot, jit_prot_pgprot() */
static pgprot_t jit_pool_pgprot(struct jit_cache_pool *pool)
{
	return jit_prot_pgprot(pool->as.prot);
}

/*
 * A huge page at an aligned place in [@start, @end), or NULL; *@small is
 * set when vmalloc had the room but no huge page to map (fragmentation):
 * trying elsewhere would not help.
 */
static void *__jit_cache_vmalloc_huge(struct jit_cache_pool *pool,
				      unsigned long start, unsigned long end,
				      bool *small)
{
	/*
	 * No guard page: the next huge page may follow at once.  With one,
	 * each page would take two aligned places of a small module region.
	 */
	unsigned long vm_flags = VM_ALLOW_HUGE_VMAP | VM_NO_GUARD;
	void *p;

	if (!start || end <= start || end - start < JIT_CACHE_PAGE_SIZE)
		return NULL;
	if (pool->kasan_shadow)
		vm_flags |= VM_DEFER_KMEMLEAK;
	/*
	 * A node of its own: with NUMA_NO_NODE vmalloc spreads the size over
	 * the online nodes and, on a machine with two or more, maps less
	 * than a huge page per node with small pages.  Not executable until
	 * it is filled and its alias protected: jit_cache_page_map_exec().
	 */
	p = __vmalloc_node_range(JIT_CACHE_PAGE_SIZE, JIT_CACHE_PAGE_SIZE,
				 start, end, GFP_KERNEL | __GFP_NOWARN | __GFP_ZERO,
				 PAGE_KERNEL_RO,
				 vm_flags, numa_mem_id(),
				 __builtin_return_address(0));
	if (!p)
		return NULL;
	/*
	 * Given back unused below, the area is unmapped first: vfree() would
	 * leave its TLB entries until the next lazy purge, after its pages
	 * went back to the page allocator.
	 */
	if (!IS_ALIGNED((unsigned long)p, JIT_CACHE_PAGE_SIZE) ||
	    !jit_cache_page_mapped((unsigned long)p)) {
		/* vmalloc fell back to small pages: not what we are for */
		*small = true;
		goto err_unmap;
	}
	if (pool->kasan_shadow &&
	    kasan_alloc_module_shadow(p, JIT_CACHE_PAGE_SIZE, GFP_KERNEL) < 0)
		goto err_unmap;
	/* it holds code, not pointers */
	kmemleak_no_scan(p);
	return p;

err_unmap:
	vunmap_range((unsigned long)p, (unsigned long)p + JIT_CACHE_PAGE_SIZE);
	vfree(p);
	return NULL;
}

/*
 * A huge page in [@start, @end): at the lowest free place; for a top-down
 * pool at the highest free place; for a randomizing pool at the lowest
 * free place above a random page boundary in the range, if there is one.
 */
static void *jit_cache_vmalloc_huge(struct jit_cache_pool *pool,
				    unsigned long start, unsigned long end)
{
	unsigned long base = ALIGN(start, JIT_CACHE_PAGE_SIZE), slots, addr;
	bool small = false;
	int tries;
	void *p;

	if (pool->top_down) {
		/* someone may take the place between the search and the map */
		for (tries = 0; tries < 4; tries++) {
			addr = vmap_highest_free(JIT_CACHE_PAGE_SIZE,
						 JIT_CACHE_PAGE_SIZE, start, end);
			if (!addr)
				break;
			p = __jit_cache_vmalloc_huge(pool, addr,
						     addr + JIT_CACHE_PAGE_SIZE,
						     &small);
			if (p || small)
				return p;
		}
	} else if (pool->randomize && start &&
		   end > base + JIT_CACHE_PAGE_SIZE) {
		slots = (end - base) / JIT_CACHE_PAGE_SIZE;
		p = __jit_cache_vmalloc_huge(pool, base + JIT_CACHE_PAGE_SIZE *
					     get_random_u32_below(slots), end,
					     &small);
		if (p || small)
			return p;
	}
	return __jit_cache_vmalloc_huge(pool, start, end, &small);
}

/*
 * Linear-map address of a huge page: vmalloc mapped it with one entry, so
 * its pages are one physically contiguous, naturally aligned block.
 */
static void *jit_cache_linear_alias(void *addr)
{
	struct vm_struct *area = find_vm_area(addr);

	return page_address(area->pages[0]);
}

/*
 * The pages of a huge page whose linear alias could not be made writable
 * again must not go back to the page allocator: unmap the huge page, keep
 * its pages, count them.  The caller took it off kmemleak's list.
 */
static void jit_cache_page_leak(struct jit_cache_pool *pool, void *addr)
{
	unsigned long start = (unsigned long)addr;

	vunmap_range(start, start + JIT_CACHE_PAGE_SIZE);
	pr_err("%s: linear alias of %p stays read-only, its pages are kept out of use\n",
	       pool->name, addr);
	mutex_lock(&pool->lock);
	pool->stats.leaked_pages += JIT_CACHE_PAGE_SIZE >> PAGE_SHIFT;
	mutex_unlock(&pool->lock);
}

/*
 * Give back a huge page nobody got: its mapping goes first, with the TLB
 * flush, then its alias is made writable again and it is freed, or kept
 * if that fails.
 */
static void jit_cache_page_discard(struct jit_cache_pool *pool, void *p,
				   void *alias)
{
	kmemleak_free(p);
	vunmap_range((unsigned long)p, (unsigned long)p + JIT_CACHE_PAGE_SIZE);
	if (jit_protect_alias(alias, JIT_CACHE_PAGE_SIZE, false))
		jit_cache_page_leak(pool, p);
	else
		vfree(p);
}

/*
 * Map a new huge page, filled and with its alias protected, executable:
 * vmalloc mapped it read-only and not executable, and arm64 cannot change
 * the permissions of a huge mapping, so the mapping is taken down with its
 * TLB entries and the same pages are mapped again, as one entry, with the
 * pool's protections.  Nobody else has the address yet.  On an error the
 * caller discards the page, which unmaps whatever was mapped.  The order
 * is what keeps W^X, so it is checked: a page that is executable already,
 * or whose alias is still writable anywhere where it could be protected,
 * is refused.  (Without NX everything is executable: the page's mapping
 * is judged only where its alias, never executable, reads as such.)  New
 * pages are rare (a pool holds a few), so the extra unmap and TLB flush
 * are too.
 */
static int jit_cache_page_map_exec(struct jit_cache_pool *pool, void *p,
				   void *alias)
{
	struct vm_struct *area = find_vm_area(p);
	unsigned long start = (unsigned long)p;
	unsigned long end = start + JIT_CACHE_PAGE_SIZE;
	unsigned long a = (unsigned long)alias, step;
	struct jit_leaf leaf;
	bool exec;
	int err;

	jit_arch_kernel_leaf(start, &leaf);
	exec = leaf.exec;
	jit_arch_kernel_leaf(a, &leaf);
	if (WARN_ON_ONCE(exec && !leaf.exec))
		return -EPERM;
	while (jit_arch_can_protect_alias() &&
	       a < (unsigned long)alias + JIT_CACHE_PAGE_SIZE) {
		jit_arch_kernel_leaf(a, &leaf);
		if (WARN_ON_ONCE(leaf.writable))
			return -EPERM;
		/* an unmapped alias is no way to write the page either */
		step = leaf.size ?: PAGE_SIZE;
		a = ALIGN_DOWN(a, step) + step;
	}
	vunmap_range(start, end);
	err = vmap_pages_range_noflush(start, end, jit_pool_pgprot(pool),
				       area->pages, JIT_CACHE_PAGE_SHIFT);
	flush_cache_vmap(start, end);
	if (err)
		return err;
	/* the fault injection: mapped executable, but not as one entry */
	if (jit_should_fail_map_exec() || !jit_cache_page_mapped(start))
		return -EINVAL;
	flush_icache_range(start, end);
	return 0;
}

/* Can vmalloc map @pool's pages as huge pages, before and after the fill? */
static bool jit_cache_huge_possible(struct jit_cache_pool *pool)
{
	return jit_cache_pages_possible(PAGE_KERNEL_RO) &&
	       jit_cache_pages_possible(jit_pool_pgprot(pool));
}

static struct jit_cache_page *jit_cache_page_alloc(struct jit_cache_pool *pool)
{
	struct jit_cache_page *page;
	void *p, *alias;
	int err;

	/*
	 * Without huge mappings (nohugevmalloc) there is nothing to try;
	 * after a failure, don't take a huge page's worth of pages for
	 * every request while memory is fragmented.
	 */
	if (!jit_cache_huge_possible(pool) ||
	    time_before(jiffies, READ_ONCE(pool->retry_after)))
		return NULL;
	if (jit_should_fail_huge_page())
		return NULL;

	page = kvzalloc(sizeof(*page), GFP_KERNEL);
	if (!page)
		return NULL;
	p = jit_cache_vmalloc_huge(pool, pool->as.start, pool->as.end);
	if (!p)
		p = jit_cache_vmalloc_huge(pool, pool->as.fallback_start,
					   pool->as.fallback_end);
	if (!p)
		goto err_retry;

	/*
	 * The page is mapped read-only, not executable, and nobody has it
	 * yet: fill it with traps through the still-writable linear alias,
	 * make that alias read-only in one step, and only then map the page
	 * executable.  If the alias cannot be protected the page must not be
	 * used: a writable alias of code is what this is here to avoid.
	 */
	alias = jit_cache_linear_alias(p);
	memset64(alias, 0x0101010101010101ULL * pool->fill,
		 JIT_CACHE_PAGE_SIZE / sizeof(u64));
	err = jit_protect_alias(alias, JIT_CACHE_PAGE_SIZE, true);
	if (err) {
		pr_warn_ratelimited("%s: cannot protect the linear alias of a huge page (%d)\n",
				    pool->name, err);
		mutex_lock(&pool->lock);
		pool->stats.alias_errors++;
		mutex_unlock(&pool->lock);
		jit_cache_page_discard(pool, p, alias);
		goto err_retry;
	}
	err = jit_cache_page_map_exec(pool, p, alias);
	if (err) {
		pr_warn_ratelimited("%s: cannot map a huge page executable (%d)\n",
				    pool->name, err);
		mutex_lock(&pool->lock);
		pool->stats.map_errors++;
		mutex_unlock(&pool->lock);
		jit_cache_page_discard(pool, p, alias);
		goto err_retry;
	}

	page->pool = pool;
	page->addr = p;
	page->alias = alias;
	page->empty_since = jiffies;
	err = mtree_insert_range(&jit_cache_map, (unsigned long)p,
				 (unsigned long)p + JIT_CACHE_PAGE_SIZE - 1, page,
				 GFP_KERNEL);
	if (err) {
		/* -EEXIST: a page freed there is still being erased */
		pr_warn_ratelimited("%s: cannot enter a huge page in the lookup tree (%d)\n",
				    pool->name, err);
		jit_cache_page_discard(pool, p, alias);
		goto err_retry;
	}
	return page;

err_retry:
	WRITE_ONCE(pool->retry_after, jiffies + JIT_CACHE_RETRY);
	kvfree(page);
	return NULL;
}

/*
 * A dead page that is never freed: its pages are kept (their alias could
 * not be made writable again) or its allocations are (its pool was
 * destroyed while they lived).  It stays in the lookup tree, marked kept,
 * so that a free or a write into it is refused rather than taken for
 * memory of some other allocator's; lookups no longer look at its pool,
 * which may go, once no reader can still be on its way to it.
 */
static void jit_cache_keep_page(struct jit_cache_page *page)
{
	WRITE_ONCE(page->kept, true);
	down_write(&jit_cache_map_sem);
	up_write(&jit_cache_map_sem);
}

/*
 * Take a dead page out of the lookup tree.  The erase may need a node, and
 * a failed one would leave the page in the tree after it is freed, so it
 * is one that cannot fail (jit_mtree_erase_range()); it may wait for
 * memory, so it must not hold jit_cache_map_sem.  Readers that found the
 * page before the erase see it dead under its pool's lock; waiting for the
 * semaphore once after the erase waits for them to let go of it.
 */
static void jit_cache_unmap_page(struct jit_cache_page *page)
{
	unsigned long start = (unsigned long)page->addr;

	jit_mtree_erase_range(&jit_cache_map, start,
			      start + JIT_CACHE_PAGE_SIZE - 1);
	down_write(&jit_cache_map_sem);
	up_write(&jit_cache_map_sem);
}

/*
 * Free a page that was taken off its pool and marked dead; @reason is an
 * &enum jit_trace_reclaim.  It stays in the lookup tree, where frees and
 * writes into it are refused, until its area has been vfree()d; if its
 * alias stays read-only, it stays there for good.
 */
static void jit_cache_page_free(struct jit_cache_page *page, int reason)
{
	unsigned long start = (unsigned long)page->addr;
	void *alias = page->alias;

	trace_jit_cache_page_unmap(page->pool->name, page->addr,
				   JIT_CACHE_PAGE_SIZE, reason);
	atomic_long_sub(JIT_CACHE_PAGE_SIZE >> PAGE_SHIFT, &jit_cache_pages);
	/* kmemleak must not scan what is about to be unmapped */
	kmemleak_free(page->addr);

	/*
	 * Tear the executable mapping down and flush the TLB now, before the
	 * pages can be reused; VM_FLUSH_RESET_PERMS would do it page by page
	 * and split the direct map.
	 */
	vunmap_range(start, start + JIT_CACHE_PAGE_SIZE);
	if (jit_protect_alias(alias, JIT_CACHE_PAGE_SIZE, false)) {
		jit_cache_keep_page(page);
		jit_cache_page_leak(page->pool, page->addr);
		return;
	}
	/*
	 * Freed while still in the tree, dead: until the erase, a stray free
	 * of it is refused rather than handed on to vfree(), which could by
	 * then free an area vmalloc gave someone else at that place.  A new
	 * page vmalloc puts there before the erase cannot enter the tree and
	 * is given back (jit_cache_page_alloc() tries again later).
	 */
	vfree(page->addr);
	jit_cache_unmap_page(page);
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

/* Chunk alignment of a request of @len bytes: a page or more is page aligned */
static unsigned long jit_cache_align_mask(size_t len)
{
	return len >= PAGE_SIZE ? JIT_CACHE_PAGE_ALIGN : 0;
}

/*
 * The first page of @pool with room for @nr chunks at @align_mask, and in
 * *@startp the first of them; NULL if none.  Lock held.
 */
static struct jit_cache_page *jit_cache_find_room(struct jit_cache_pool *pool,
						  unsigned int nr,
						  unsigned long align_mask,
						  long *startp)
{
	struct jit_cache_page *page;

	list_for_each_entry(page, &pool->pages, list) {
		*startp = jit_cache_page_carve(page, nr, align_mask);
		if (*startp >= 0)
			return page;
	}
	return NULL;
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

/* Add a new huge page to @pool, if one can be had.  Lock not held. */
static struct jit_cache_page *jit_cache_grow(struct jit_cache_pool *pool)
{
	struct jit_cache_page *page = jit_cache_page_alloc(pool);

	if (!page)
		return NULL;
	atomic_long_add(JIT_CACHE_PAGE_SIZE >> PAGE_SHIFT, &jit_cache_pages);
	trace_jit_cache_page_map(pool->name, page->addr, JIT_CACHE_PAGE_SIZE);
	mutex_lock(&pool->lock);
	list_add_tail(&page->list, &pool->pages);
	pool->stats.huge_pages++;
	/* with the pool's own count, so that readers see both or neither */
	count_vm_event(JIT_CACHE_PAGE_MAP);
	return page;
}

static void jit_cache_grow_work(struct work_struct *work)
{
	struct jit_cache_pool *pool = container_of(work, struct jit_cache_pool,
						   grow_work);

	if (jit_cache_grow(pool))
		mutex_unlock(&pool->lock);
}

/* Take @nr chunks at @start of @page for @user.  Lock held. */
static void *jit_cache_take(struct jit_cache_pool *pool,
			    struct jit_cache_page *page, unsigned long start,
			    unsigned int nr, size_t len, enum jit_alloc_type user)
{
	unsigned long in_use;

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
	trace_jit_alloc(page->addr + chunks_to_bytes(start), len,
			chunks_to_bytes(nr), jit_type_name(user),
			JIT_TRACE_BACKEND_CHUNK, false);
	return page->addr + chunks_to_bytes(start);
}

static void *__jit_cache_alloc(struct jit_cache_pool *pool, size_t len,
			       enum jit_alloc_type user, bool nowait)
{
	unsigned long align_mask = jit_cache_align_mask(len);
	unsigned int nr = DIV_ROUND_UP(len, JIT_CACHE_CHUNK_SIZE);
	struct jit_cache_page *page;
	bool waited = false;
	unsigned long freed;
	long start;
	void *ret;

	if (!len || user >= JIT_TYPE_NR || user == JIT_TYPE_MODULE_DATA ||
	    pool->off)
		return NULL;
	if (len > JIT_CACHE_PAGE_SIZE) {
		trace_jit_fallback(pool->name, len, JIT_TRACE_FALLBACK_TOO_BIG);
		return NULL;
	}

again:
	mutex_lock(&pool->lock);
	page = jit_cache_find_room(pool, nr, align_mask, &start);
	if (page)
		goto found;
	freed = pool->freed_chunks;
	mutex_unlock(&pool->lock);

	/* freed chunks waiting for their refill may make room */
	if (freed)
		mod_delayed_work(system_wq, &pool->refill_work, 0);
	if (nowait) {
		/*
		 * The refill or a page added for the next request will do:
		 * a page unless the refill gives back at least this much.
		 */
		if (freed < nr)
			queue_work(system_wq, &pool->grow_work);
		trace_jit_fallback(pool->name, len, JIT_TRACE_FALLBACK_NOWAIT);
		return NULL;
	}
	if (freed && !waited) {
		flush_delayed_work(&pool->refill_work);
		waited = true;
		goto again;
	}

	/* vmalloc and the fill are slow: no lock held while they run */
	page = jit_cache_grow(pool);
	if (!page) {
		trace_jit_fallback(pool->name, len, JIT_TRACE_FALLBACK_NO_PAGE);
		return NULL;
	}
	if (pool->randomize)
		/* anywhere in the fresh page, as aligned as it must be */
		start = get_random_u32_below((JIT_CACHE_PAGE_CHUNKS - nr) /
					     (align_mask + 1) + 1) *
			(align_mask + 1);
	else
		start = jit_cache_page_carve(page, nr, align_mask);
found:
	ret = jit_cache_take(pool, page, start, nr, len, user);
	mutex_unlock(&pool->lock);
	return ret;
}

/**
 * jit_cache_has_room() - could a pool serve a request now?
 * @pool: the pool
 * @len: bytes a request would ask for
 *
 * Looks for the place an allocation of @len would take, as
 * jit_cache_alloc() does, and stops at the first page that has one.
 *
 * Context: process context, may sleep; takes the pool's mutex.
 * Return: true if an allocation of @len would now be served from a huge
 * page the pool holds, without waiting for a refill or mapping a new one.
 */
bool jit_cache_has_room(struct jit_cache_pool *pool, size_t len)
{
	bool room;
	long start;

	if (!len || len > JIT_CACHE_PAGE_SIZE)
		return false;
	mutex_lock(&pool->lock);
	room = !pool->off &&
	       jit_cache_find_room(pool, DIV_ROUND_UP(len, JIT_CACHE_CHUNK_SIZE),
				   jit_cache_align_mask(len), &start);
	mutex_unlock(&pool->lock);
	return room;
}

/**
 * jit_cache_alloc() - allocate executable memory from a pool
 * @pool: pool of the caller's placement range
 * @len: bytes wanted, at most JIT_CACHE_PAGE_SIZE
 * @user: the type of the allocation, for statistics
 *
 * When the pool has no room, waits for the refill of freed chunks (which
 * takes text_mutex) and may allocate a new huge page.
 *
 * Context: process context, may sleep; text_mutex must not be held.
 * Return: memory filled with trapping instructions, mapped read-only and
 * executable, or NULL when the pool cannot serve the request and the caller
 * must use the page-granular path.
 */
void *jit_cache_alloc(struct jit_cache_pool *pool, size_t len,
		      enum jit_alloc_type user)
{
	/* it may wait for the refill, which pokes text under text_mutex */
	lockdep_assert_not_held(&text_mutex);
	return __jit_cache_alloc(pool, len, user, false);
}

/**
 * jit_cache_alloc_nowait() - allocate from a pool without waiting for it
 * @pool: pool of the caller's placement range
 * @len: bytes wanted, at most JIT_CACHE_PAGE_SIZE
 * @user: the type of the allocation, for statistics
 *
 * For callers that hold text_mutex (kprobes prepares probes under it):
 * neither waits for the refill nor allocates a huge page.  When the pool
 * has no room it starts whichever of the two will make some and returns
 * NULL, and the caller uses the page-granular path this once.
 *
 * Context: process context, may sleep.
 * Return: as jit_cache_alloc().
 */
void *jit_cache_alloc_nowait(struct jit_cache_pool *pool, size_t len,
			     enum jit_alloc_type user)
{
	return __jit_cache_alloc(pool, len, user, true);
}

/*
 * The live page that contains @addr, with its pool's lock held; NULL when
 * @addr is not in any pool's huge pages; ERR_PTR(-EINVAL) when it is in
 * one being taken down (emptied, being unmapped and freed) or kept for
 * good (see jit_cache_keep_page()): no allocation lives there, and the
 * caller must not take @addr for memory of its own either (a vfree() of
 * it would free the whole huge page, or someone else's area).
 */
static struct jit_cache_page *jit_cache_find_lock(const void *addr)
{
	struct jit_cache_page *page;

	down_read(&jit_cache_map_sem);
	mtree_lock(&jit_cache_map);
	page = mtree_load(&jit_cache_map, (unsigned long)addr);
	mtree_unlock(&jit_cache_map);
	if (page && READ_ONCE(page->kept)) {
		page = ERR_PTR(-EINVAL);
	} else if (page) {
		mutex_lock(&page->pool->lock);
		if (page->dead) {
			mutex_unlock(&page->pool->lock);
			page = ERR_PTR(-EINVAL);
		}
	}
	up_read(&jit_cache_map_sem);
	return page;
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
 * should look elsewhere), -EINVAL when @addr is inside a pool but is not
 * the start of a live allocation (double or foreign free): nothing is
 * changed then, and the caller reports it.
 */
int jit_cache_free(void *addr)
{
	enum jit_alloc_type user;
	struct jit_cache_pool *pool;
	struct jit_cache_page *page;
	unsigned long start, nr;

	page = jit_cache_find_lock(addr);
	if (IS_ERR_OR_NULL(page))
		return page ? PTR_ERR(page) : -ENOENT;
	pool = page->pool;

	start = (addr - page->addr) >> JIT_CACHE_CHUNK_SHIFT;
	if (!IS_ALIGNED((unsigned long)addr, JIT_CACHE_CHUNK_SIZE) ||
	    !jit_cache_live_start(page, start)) {
		mutex_unlock(&pool->lock);
		return -EINVAL;
	}
	/*
	 * Boundary bits stay: the start bit may be the end of the allocation
	 * before this one, and allocations clear stale bits inside them.
	 */
	nr = jit_cache_alloc_chunks(page, start);
	bitmap_set(page->pending_map, start, nr);
	pool->freed_chunks += nr;
	pool->stats.frees++;
	user = jit_cache_get_user(page, start);
	pool->stats.bytes_in_use[user] -= chunks_to_bytes(nr);
	/* before the chunks can be refilled and handed out again */
	trace_jit_free(addr, chunks_to_bytes(nr), jit_type_name(user),
		       JIT_TRACE_BACKEND_CHUNK);
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
 * one live allocation (freed chunks are never inside one).
 */
int jit_cache_check_update(const void *addr, size_t len)
{
	struct jit_cache_page *page;
	unsigned long idx, start;
	int ret = -EINVAL;

	page = jit_cache_find_lock(addr);
	if (IS_ERR_OR_NULL(page))
		return page ? PTR_ERR(page) : -ENOENT;
	idx = (addr - page->addr) >> JIT_CACHE_CHUNK_SHIFT;
	if (test_bit(idx, page->alloc_map) && !jit_cache_freed(page, idx)) {
		start = find_last_bit(page->bound_map, idx + 1);
		if (start <= idx && jit_cache_live_start(page, start) &&
		    addr + len <= page->addr +
		    chunks_to_bytes(start + jit_cache_alloc_chunks(page, start)))
			ret = 0;
	}
	mutex_unlock(&page->pool->lock);
	return ret;
}

/**
 * jit_cache_refill_begin() - take one run of freed chunks for refilling
 * @pool: the pool
 * @startp: set to the first chunk of the run
 * @nrp: set to its length
 *
 * A run is at most JIT_POKE_CHUNK bytes, so that one poke holds the
 * architecture's poking lock (text_mutex on x86) no longer than that; the
 * rest of a longer freed run stays pending for the next call.
 * The chunks move from pending to being refilled: they stay set in
 * alloc_map and counted in &jit_cache_page.used, so nobody hands them out,
 * frees them again or writes into them, and the page cannot be reclaimed
 * meanwhile.  Poke them, then call jit_cache_refill_end().  The refill
 * worker is the one caller outside the KUnit test.
 *
 * Return: the page of the run, or NULL when no chunk is pending.
 */
struct jit_cache_page *jit_cache_refill_begin(struct jit_cache_pool *pool,
					      unsigned long *startp,
					      unsigned long *nrp)
{
	struct jit_cache_page *page;
	unsigned long start, end;

	mutex_lock(&pool->lock);
	list_for_each_entry(page, &pool->pages, list) {
		start = find_first_bit(page->pending_map, JIT_CACHE_PAGE_CHUNKS);
		if (start >= JIT_CACHE_PAGE_CHUNKS)
			continue;
		end = find_next_zero_bit(page->pending_map,
					 JIT_CACHE_PAGE_CHUNKS, start);
		end = min(end, start + (JIT_POKE_CHUNK >> JIT_CACHE_CHUNK_SHIFT));
		bitmap_clear(page->pending_map, start, end - start);
		bitmap_set(page->refill_map, start, end - start);
		*startp = start;
		*nrp = end - start;
		mutex_unlock(&pool->lock);
		return page;
	}
	mutex_unlock(&pool->lock);
	return NULL;
}

/**
 * jit_cache_refill_end() - let refilled chunks be allocated again
 * @pool: the pool
 * @page: what jit_cache_refill_begin() returned
 * @start: the first chunk of the run
 * @nr: its length
 *
 * Return: true when this emptied @page.
 */
bool jit_cache_refill_end(struct jit_cache_pool *pool,
			  struct jit_cache_page *page, unsigned long start,
			  unsigned long nr)
{
	bool emptied = false;

	mutex_lock(&pool->lock);
	bitmap_clear(page->refill_map, start, nr);
	bitmap_clear(page->alloc_map, start, nr);
	page->used -= nr;
	pool->freed_chunks -= nr;
	page->first_free = min_t(unsigned int, page->first_free, start);
	if (!page->used) {
		page->empty_since = jiffies;
		emptied = true;
	}
	mutex_unlock(&pool->lock);
	return emptied;
}

/*
 * Refill freed chunks with traps, then let them be allocated again.  Runs
 * from the refill worker only: poking takes text_mutex, which kprobes holds
 * when it allocates and frees.
 */
static void jit_cache_refill_work(struct work_struct *work)
{
	struct jit_cache_pool *pool = container_of(to_delayed_work(work),
						   struct jit_cache_pool,
						   refill_work);
	unsigned long start, nr, total = 0;
	struct jit_cache_page *page;
	bool emptied = false;

	while ((page = jit_cache_refill_begin(pool, &start, &nr))) {
		/*
		 * Chunks that could not be filled with traps stay out of
		 * use, marked refilling, rather than be handed out with the
		 * old code in them (the pages of a live huge page are mapped:
		 * this does not happen).
		 */
		if (WARN_ON_ONCE(jit_arch_text_set(page->addr +
						   chunks_to_bytes(start),
						   pool->fill,
						   chunks_to_bytes(nr))))
			continue;
		emptied |= jit_cache_refill_end(pool, page, start, nr);
		total += nr;
		cond_resched();
	}
	if (total)
		trace_jit_cache_refill(pool->name, total,
				       chunks_to_bytes(total));
	/* a reclaim already queued is not pushed back: it re-arms itself */
	if (emptied)
		queue_delayed_work(system_wq, &pool->reclaim_work, pool->grace);
}

/*
 * jit_cache_reclaim(), at most @max pages, and the shrinker's reclaims
 * counted as such.
 */
static unsigned long __jit_cache_reclaim(struct jit_cache_pool *pool,
					 bool spare, bool shrinker,
					 unsigned long max)
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

		if (freed >= max)
			break;
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
		page->dead = true;
		list_move(&page->list, &victims);
		pool->stats.huge_pages--;
		pool->stats.reclaims++;
		if (shrinker)
			pool->stats.shrinker_reclaims++;
		freed++;
	}
	/* with the pool's own counts, as in jit_cache_grow() */
	count_vm_events(JIT_CACHE_PAGE_UNMAP, freed);
	count_vm_events(JIT_CACHE_RECLAIM, freed);
	if (shrinker)
		count_vm_events(JIT_CACHE_SHRINK, freed);
	mutex_unlock(&pool->lock);

	list_for_each_entry_safe(page, tmp, &victims, list)
		jit_cache_page_free(page, shrinker ? JIT_TRACE_RECLAIM_SHRINKER :
					  spare ? JIT_TRACE_RECLAIM_SPARE :
						  JIT_TRACE_RECLAIM_GRACE);
	if (wait)
		mod_delayed_work(system_wq, &pool->reclaim_work, wait);
	return freed;
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
	return __jit_cache_reclaim(pool, spare, false, ULONG_MAX);
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
 * Context: process context, may sleep; text_mutex must not be held.
 */
void jit_cache_flush(struct jit_cache_pool *pool)
{
	flush_work(&pool->grow_work);
	flush_delayed_work(&pool->refill_work);
	flush_delayed_work(&pool->reclaim_work);
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
	stats->chunk_size = JIT_CACHE_CHUNK_SIZE;
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

/**
 * struct jit_cache_mappings - what the page tables say about a pool
 * @checked: huge pages walked
 * @one_entry: huge pages mapped by one entry each (one TLB entry; on arm64
 *	a contiguous run counts as one)
 * @writable: huge pages with a writable byte
 * @not_exec: huge pages with a byte that is not executable
 * @alias_writable: huge pages whose linear alias has a writable byte,
 *	counted only where the arch protects aliases
 */
struct jit_cache_mappings {
	unsigned long checked;
	unsigned long one_entry;
	unsigned long writable;
	unsigned long not_exec;
	unsigned long alias_writable;
};

/*
 * Walk the leaf entries over [@start, @start + @len): is the range one
 * entry, is any of it writable, is all of it executable?
 */
static void jit_cache_walk(unsigned long start, unsigned long len,
			   bool *one, bool *writable, bool *exec)
{
	unsigned long addr = start, end = start + len;
	struct jit_leaf leaf;

	*one = false;
	*writable = false;
	*exec = true;
	while (addr < end) {
		jit_arch_kernel_leaf(addr, &leaf);
		if (!leaf.size) {
			*exec = false;
			addr += PAGE_SIZE;
			continue;
		}
		if (addr == start && leaf.size >= len)
			*one = true;
		*writable |= leaf.writable;
		*exec &= leaf.exec;
		addr = ALIGN_DOWN(addr, leaf.size) + leaf.size;
	}
}

/*
 * Read the kernel page tables over every huge page of @pool and its linear
 * alias: the state as the MMU sees it, not as the pool meant to set it up.
 */
static void jit_cache_check_mappings(struct jit_cache_pool *pool,
				     struct jit_cache_mappings *mp)
{
	bool protected = jit_arch_can_protect_alias();
	struct jit_cache_page *page;
	bool one, w, x;

	memset(mp, 0, sizeof(*mp));
	mutex_lock(&pool->lock);
	list_for_each_entry(page, &pool->pages, list) {
		jit_cache_walk((unsigned long)page->addr, JIT_CACHE_PAGE_SIZE,
			       &one, &w, &x);
		mp->checked++;
		mp->one_entry += one;
		mp->writable += w;
		mp->not_exec += !x;
		if (!protected)
			continue;
		jit_cache_walk((unsigned long)page->alias, JIT_CACHE_PAGE_SIZE,
			       &one, &w, &x);
		mp->alias_writable += w;
	}
	mutex_unlock(&pool->lock);
}

/* One "key value" per line, explained in the core's Documentation/mm/ file. */
static int jit_cache_stats_show(struct seq_file *m, void *v)
{
	struct jit_cache_pool *pool = m->private;
	struct jit_cache_page *page;
	unsigned long free, frag = 0, fallbacks, fallback_pages;
	struct jit_cache_mappings mp;
	struct jit_cache_stats s;
	bool show;
	int i;

	jit_cache_get_stats(pool, &s);
	jit_cache_pool_fallbacks(pool, &fallbacks, &fallback_pages);
	free = s.chunks_total - s.chunks_used;
	if (free)
		frag = 100 - s.largest_free_run * 100 / free;

	/*
	 * Addresses tell the module region's and the cache's KASLR offsets:
	 * shown as /proc/kallsyms shows them (kptr_restrict, CAP_SYSLOG of
	 * whoever opened the file), zero otherwise.
	 */
	show = kallsyms_show_value(m->file->f_cred);
	seq_printf(m, "range 0x%lx-0x%lx\n", show ? pool->as.start : 0,
		   show ? pool->as.end : 0);
	seq_printf(m, "enabled %d\n", !pool->off);
	seq_printf(m, "huge_pages %lu\n", s.huge_pages);
	seq_printf(m, "spare_pages %lu\n", s.spare_pages);
	seq_printf(m, "fallback_pages %lu\n", fallback_pages);
	seq_printf(m, "chunk_size %lu\n", s.chunk_size);
	seq_printf(m, "chunks_total %lu\n", s.chunks_total);
	seq_printf(m, "chunks_used %lu\n", s.chunks_used);
	seq_printf(m, "chunks_free %lu\n", free);
	seq_printf(m, "largest_free_run_bytes %zu\n",
		   chunks_to_bytes(s.largest_free_run));
	seq_printf(m, "fragmentation_pct %lu\n", frag);
	seq_printf(m, "bytes_in_use %lu\n", bytes_in_use(&s));
	for (i = 0; i < JIT_TYPE_NR; i++)
		if (i != JIT_TYPE_MODULE_DATA)	/* data is never cached */
			seq_printf(m, "bytes_in_use_%s %lu\n",
				   jit_type_name(i), s.bytes_in_use[i]);
	seq_printf(m, "high_water_bytes %lu\n", s.high_water);
	seq_printf(m, "allocs %lu\n", s.allocs);
	seq_printf(m, "frees %lu\n", s.frees);
	seq_printf(m, "fallbacks %lu\n", fallbacks);
	seq_printf(m, "reclaims %lu\n", s.reclaims);
	seq_printf(m, "shrinker_reclaims %lu\n", s.shrinker_reclaims);
	seq_printf(m, "alias_errors %lu\n", s.alias_errors);
	seq_printf(m, "map_errors %lu\n", s.map_errors);
	seq_printf(m, "leaked_pages %lu\n", s.leaked_pages);
	jit_cache_check_mappings(pool, &mp);
	seq_printf(m, "mapped_checked %lu\n", mp.checked);
	seq_printf(m, "mapped_one_entry %lu\n", mp.one_entry);
	seq_printf(m, "mapped_writable %lu\n", mp.writable);
	seq_printf(m, "mapped_not_exec %lu\n", mp.not_exec);
	seq_printf(m, "aliases_protected %d\n", jit_arch_can_protect_alias());
	seq_printf(m, "alias_writable %lu\n", mp.alias_writable);
	seq_puts(m, "huge_page_addrs");
	mutex_lock(&pool->lock);
	list_for_each_entry(page, &pool->pages, list)
		seq_printf(m, " 0x%lx", show ? (unsigned long)page->addr : 0);
	mutex_unlock(&pool->lock);
	seq_putc(m, '\n');
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(jit_cache_stats);

static void jit_cache_pool_debugfs(struct jit_cache_pool *pool)
{
	lockdep_assert_held(&jit_cache_pools_lock);
	if (jit_cache_dir && !pool->debugfs)
		pool->debugfs = debugfs_create_file(pool->name, 0400,
						    jit_cache_dir, pool,
						    &jit_cache_stats_fops);
}

/**
 * jit_cache_pool_create() - set up a pool for one placement range
 * @name: name of its statistics file in /sys/kernel/debug/jitalloc/
 * @as: range and protections of the huge pages; %JIT_PROT_ROX
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
	INIT_WORK(&pool->grow_work, jit_cache_grow_work);
	INIT_DELAYED_WORK(&pool->reclaim_work, jit_cache_reclaim_work);

	mutex_lock(&jit_cache_pools_lock);
	list_add_tail(&pool->node, &jit_cache_pools);
	jit_cache_pool_debugfs(pool);
	mutex_unlock(&jit_cache_pools_lock);
	return pool;
}

/**
 * jit_cache_pool_randomize() - place a pool's memory at random
 * @pool: a pool that holds no huge page yet
 *
 * Each huge page goes to a random aligned place in the pool's range,
 * and the allocation that made the pool take it to a random place in it:
 * the KASLR of module text, which a pool packing everything from the
 * start of its range would undo.
 */
void jit_cache_pool_randomize(struct jit_cache_pool *pool)
{
	pool->randomize = true;
}

/**
 * jit_cache_pool_set_range() - move an empty pool to another range
 * @pool: the pool
 * @as: its new range and protections
 * @apply: move it; otherwise only say whether it could be moved
 *
 * For a placement drawn after the pool was made (arm64's module region).
 * A pool whose range does not change may hold pages (BPF programs JITed
 * at boot).
 *
 * Return: 0, or -EBUSY if the range changes and the pool holds huge pages
 * (it keeps its range).
 */
int jit_cache_pool_set_range(struct jit_cache_pool *pool,
			     const struct jit_address_space *as, bool apply)
{
	int ret = 0;

	mutex_lock(&pool->lock);
	if (!jit_same_range(&pool->as, as) || pool->as.prot != as->prot) {
		if (!list_empty(&pool->pages))
			ret = -EBUSY;
		else if (apply)
			pool->as = *as;
	}
	mutex_unlock(&pool->lock);
	return ret;
}

/**
 * jit_cache_pool_top_down() - place a pool's huge pages from the top down
 * @pool: a pool that holds no huge page yet
 *
 * Each huge page goes to the highest free aligned place of the pool's
 * range, so that the pages stay together at its end and leave the rest in
 * one piece for page-granular allocations, which vmalloc places bottom-up:
 * for a range as small as arm64's 128 MiB module region.  Takes precedence
 * over jit_cache_pool_randomize() for the pages; the first allocation in
 * each still goes to a random place in it.
 */
void jit_cache_pool_top_down(struct jit_cache_pool *pool)
{
	pool->top_down = true;
}

/**
 * jit_cache_pool_switch_off() - let a pool serve nothing
 * @pool: a pool that holds no huge page
 *
 * For the boot option that switches the cache off: the pool takes no huge
 * page, jit_cache_alloc() returns %NULL, and its statistics say "enabled 0".
 */
void __init jit_cache_pool_switch_off(struct jit_cache_pool *pool)
{
	WARN_ON_ONCE(!list_empty(&pool->pages));
	pool->off = true;
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

	cancel_work_sync(&pool->grow_work);
	flush_delayed_work(&pool->refill_work);
	cancel_delayed_work_sync(&pool->reclaim_work);
	mutex_lock(&pool->lock);
	list_for_each_entry(page, &pool->pages, list)
		page->dead = true;
	mutex_unlock(&pool->lock);
	list_for_each_entry_safe(page, tmp, &pool->pages, list) {
		list_del(&page->list);
		if (WARN(page->used, "jitalloc: pool %s destroyed in use\n",
			 pool->name)) {
			jit_cache_keep_page(page);
			continue;
		}
		count_vm_event(JIT_CACHE_PAGE_UNMAP);
		jit_cache_page_free(page, JIT_TRACE_RECLAIM_DESTROY);
	}
	kfree_const(pool->name);
	kfree(pool);
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
 * A new pool's debugfs file is created, which allocates, under the list
 * lock: the shrinker only tries the locks, so that reclaim never waits
 * behind that, a long stats read or a refill, and cannot deadlock.
 */
static unsigned long jit_cache_shrink_count(struct shrinker *shrink,
					    struct shrink_control *sc)
{
	struct jit_cache_pool *pool;
	unsigned long n = 0;

	if (!mutex_trylock(&jit_cache_pools_lock))
		return 0;
	list_for_each_entry(pool, &jit_cache_pools, node)
		n += jit_cache_count_free_pages(pool);
	mutex_unlock(&jit_cache_pools_lock);
	return n * (JIT_CACHE_PAGE_SIZE >> PAGE_SHIFT);
}

/*
 * The list lock is held across the reclaims, which unmap, flush TLBs and
 * free; only pool creation and destruction wait for it: frees, updates
 * and allocations find their pages without it.  As many huge pages go as
 * cover what reclaim asked for (nr_to_scan, in base pages), at least one.
 */
static unsigned long jit_cache_shrink_scan(struct shrinker *shrink,
					   struct shrink_control *sc)
{
	const unsigned long per_page = JIT_CACHE_PAGE_SIZE >> PAGE_SHIFT;
	unsigned long want = DIV_ROUND_UP(sc->nr_to_scan, per_page);
	struct jit_cache_pool *pool;
	unsigned long freed = 0;

	if (!mutex_trylock(&jit_cache_pools_lock))
		return SHRINK_STOP;
	list_for_each_entry(pool, &jit_cache_pools, node) {
		if (freed >= want)
			break;
		freed += __jit_cache_reclaim(pool, true, true, want - freed);
	}
	mutex_unlock(&jit_cache_pools_lock);
	return freed ? freed * per_page : SHRINK_STOP;
}

static struct shrinker jit_cache_shrinker = {
	.count_objects	= jit_cache_shrink_count,
	.scan_objects	= jit_cache_shrink_scan,
	.seeks		= DEFAULT_SEEKS,
};

/**
 * jit_cache_debugfs_init() - give the pools their statistics files
 * @dir: the jitalloc debugfs directory
 *
 * Called once by the core when debugfs is up: the files of the pools made
 * so far, and of every pool made later, go into @dir.
 */
void __init jit_cache_debugfs_init(struct dentry *dir)
{
	struct jit_cache_pool *pool;

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	fault_create_debugfs_attr("fail_huge_page", dir, &jit_fail_huge_page);
	fault_create_debugfs_attr("fail_alias", dir, &jit_fail_alias);
	fault_create_debugfs_attr("fail_map_exec", dir, &jit_fail_map_exec);
#endif
	mutex_lock(&jit_cache_pools_lock);
	jit_cache_dir = dir;
	list_for_each_entry(pool, &jit_cache_pools, node)
		jit_cache_pool_debugfs(pool);
	mutex_unlock(&jit_cache_pools_lock);
}

/**
 * jit_cache_held_pages() - base pages of every pool's huge pages
 *
 * For the core's count of executable memory ("JitText").
 *
 * Return: the number of pages.
 */
long jit_cache_held_pages(void)
{
	return atomic_long_read(&jit_cache_pages);
}

/**
 * jit_cache_pool_count_fallback() - count text served instead of a pool
 * @pool: the pool of the text's type
 * @pages: pages allocated (positive) or freed (negative)
 *
 * The core serves page by page what a pool cannot (or everything, with
 * the cache switched off) and tells the pool, whose statistics show it.
 * An allocation is a fallback, in the pool's count and in /proc/vmstat,
 * unless the pool was switched off: then page by page is the way.
 */
void jit_cache_pool_count_fallback(struct jit_cache_pool *pool, long pages)
{
	if (pages > 0 && !pool->off) {
		atomic_long_inc(&pool->fallbacks);
		count_vm_event(JIT_CACHE_FALLBACK);
	}
	atomic_long_add(pages, &pool->fallback_pages);
}

/**
 * jit_cache_pool_fallbacks() - what the core served instead of a pool
 * @pool: the pool
 * @allocs: set to the requests it could not serve so far
 * @pages: set to the pages of page-granular text of its types now
 */
void jit_cache_pool_fallbacks(struct jit_cache_pool *pool,
			      unsigned long *allocs, unsigned long *pages)
{
	*allocs = atomic_long_read(&pool->fallbacks);
	*pages = atomic_long_read(&pool->fallback_pages);
}

static int __init jit_cache_init(void)
{
	return jit_register_shrinker(&jit_cache_shrinker, "jitalloc-cache");
}
late_initcall(jit_cache_init);
