// SPDX-License-Identifier: GPL-2.0-only
/*
 * jitalloc page blocks - page-granular jit allocations grouped so that
 * permission changes split the direct map once per block.
 *
 * Allocations the cache does not serve - module data, module init sections,
 * text that is written in place - are page granular, and their users give
 * them read-only or executable permissions with set_memory_*().  On x86 that
 * changes the direct-map alias of each page too, and a 4 KiB change splits
 * the 2 MiB direct-map page around it: without the blocks, nearly every
 * module load splits one more.  When the architecture asks for it
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
 *
 * A pool made with %JIT_BLOCK_RO_ALIAS (x86), for memory that is always
 * mapped PAGE_KERNEL first (module data), splits no 2 MiB direct-map
 * page: each new block's direct map is made read-only as a whole (where
 * it lies in a 1 GiB page, that splits the 1 GiB page into 2 MiB ones
 * once), so that set_memory_ro() on a mapping of its pages finds the
 * alias read-only already, and set_memory_x()/_nx() leave the alias
 * alone.  Only set_memory_rw() (or _np(), _uc()) on a page would split
 * the block's leaf; module data sees none of them.  The pool writes
 * nothing through that alias: pages are zeroed through their new mapping,
 * and the block is made writable again only to go back to the page
 * allocator.  Whoever writes the memory through page_address() of its
 * pages (a swiotlb bounce back into a module's static buffer, say) faults
 * instead.
 */

#define pr_fmt(fmt) "jitalloc_blocks: " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/kasan.h>
#include <linux/kmemleak.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/set_memory.h>
#include <linux/shrinker.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/cacheflush.h>
#include <asm/tlbflush.h>

#include "internal.h"
#include "jitalloc_cache.h"

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
 * @flags: %JIT_BLOCK_RO_ALIAS or 0
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
	unsigned int flags;
	unsigned long retry_after;
	struct mutex lock;	/* blocks, their bitmaps and stats */
	struct list_head blocks;
	struct dentry *debugfs;
	struct jit_block_stats stats;
};

static LIST_HEAD(jit_block_pools);
static DEFINE_MUTEX(jit_block_pools_lock);
/* the jit allocator's debugfs directory, once it is up */
static struct dentry *jit_block_dir __ro_after_init;

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
	if ((bp->flags & JIT_BLOCK_RO_ALIAS) &&
	    set_memory_ro((unsigned long)page_address(page), JIT_BLOCK_PAGES)) {
		/* partly applied?  Writable again, or kept out of use */
		if (set_memory_rw((unsigned long)page_address(page),
				  JIT_BLOCK_PAGES)) {
			bp->stats.leaked_pages += JIT_BLOCK_PAGES;
			pr_err("a block's direct map stays read-only: kept out of use\n");
		} else {
			for (i = 0; i < JIT_BLOCK_PAGES; i++)
				__free_page(page + i);
		}
		bp->retry_after = jiffies + JIT_CACHE_RETRY;
		kfree(block);
		return NULL;
	}
	for (i = 0; i < JIT_BLOCK_PAGES; i++)
		set_page_private(page + i, (unsigned long)block);
	block->pool = bp;
	block->base = page;
	list_add_tail(&block->list, &bp->blocks);
	bp->stats.blocks++;
	return block;
}

/* Back to the page allocator; false when it had to be kept (counted). */
static bool jit_block_release(struct jit_block *block)
{
	struct jit_block_pool *bp = block->pool;
	bool keep = false;
	unsigned int i;

	list_del(&block->list);
	bp->stats.blocks--;
	/* the page allocator gets its pages back with a writable alias */
	if (bp->flags & JIT_BLOCK_RO_ALIAS)
		keep = set_memory_rw((unsigned long)page_address(block->base),
				     JIT_BLOCK_PAGES);
	if (keep) {
		bp->stats.leaked_pages += JIT_BLOCK_PAGES;
		pr_err("a free block's direct map could not be made writable: kept out of use\n");
	} else {
		bp->stats.reclaims++;
	}
	for (i = 0; i < JIT_BLOCK_PAGES; i++) {
		set_page_private(block->base + i, 0);
		if (!keep)
			__free_page(block->base + i);
	}
	kfree(block);
	return !keep;
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
		freed += jit_block_release(block);
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
 * jit_block_vunmap().  A %JIT_BLOCK_RO_ALIAS pool maps only PAGE_KERNEL
 * (its pages are zeroed through the new mapping): any other @prot is
 * refused with a warning and counted as a fallback.
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
	bool ro_alias = bp->flags & JIT_BLOCK_RO_ALIAS;
	struct vm_struct *area;
	struct page **pages;

	if (!len || len > JIT_BLOCK_PAGES * PAGE_SIZE)
		return NULL;
	if (WARN_ONCE(ro_alias && pgprot_val(prot) != pgprot_val(PAGE_KERNEL),
		      "jitalloc: block pool %s maps only PAGE_KERNEL\n",
		      bp->name)) {
		mutex_lock(&bp->lock);
		bp->stats.fallbacks++;
		mutex_unlock(&bp->lock);
		return NULL;
	}
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

	/* never through a read-only alias */
	if (!ro_alias)
		for (i = 0; i < nr; i++)
			clear_highpage(pages[i]);
	area = __get_vm_area_node(size, max(align, PAGE_SIZE), PAGE_SHIFT,
				  VM_ALLOC | vm_flags, start, end, NUMA_NO_NODE,
				  GFP_KERNEL | __GFP_NOWARN, caller);
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
	if (ro_alias)
		memset(area->addr, 0, size);
	if (!(vm_flags & VM_DEFER_KMEMLEAK))
		kmemleak_vmalloc(area, len, GFP_KERNEL);

	mutex_lock(&bp->lock);
	bp->stats.allocs++;
	mutex_unlock(&bp->lock);
	return area->addr;

err_pages:
	mutex_lock(&bp->lock);
	bp->stats.fallbacks++;
	jit_block_put_pages(bp, pages, nr);
	mutex_unlock(&bp->lock);
	kvfree(pages);
	return NULL;
}

/*
 * In a read-only-alias pool: is @page's alias as the pool keeps it, mapped
 * and read-only?  Made read-only again if a set_memory_rw() had opened it
 * (which split the block's leaf already).  False, with a warning, for an
 * alias that is not mapped or cannot be made read-only: the page is kept
 * out of use.
 */
static bool jit_block_alias_ro(struct page *page)
{
	unsigned long va = (unsigned long)page_address(page);
	struct jit_leaf leaf;

	jit_arch_kernel_leaf(va, &leaf);
	if (WARN_ONCE(!leaf.size, "jitalloc: block page alias %p not mapped\n",
		      (void *)va))
		return false;
	return !leaf.writable || !set_memory_ro(va, 1);
}

/**
 * jit_block_vunmap() - free a mapping made by jit_block_vmap()
 * @addr: its start
 *
 * Undoes any set_memory_*() on the mapping and its direct-map alias (in a
 * %JIT_BLOCK_RO_ALIAS pool the alias stays read-only: made so again where
 * a set_memory_rw() opened it), and gives the pages back to their blocks.
 *
 * Context: process context, may sleep.
 */
void jit_block_vunmap(void *addr)
{
	unsigned long dstart = ULONG_MAX, dend = 0, va;
	struct jit_block_pool *bp;
	struct vm_struct *area;
	struct page **pages;
	unsigned int i, nr, good;

	kmemleak_free(addr);
	area = find_vm_area(addr);
	if (WARN(!area || !area->pages,
		 "jitalloc: %p is not a page block mapping\n", addr))
		return;
	pages = area->pages;
	nr = area->nr_pages;
	bp = jit_block_of(pages[0])->pool;
	kasan_poison_vmalloc(addr, get_vm_area_size(area));

	/* the executable or read-only mapping goes first, with its TLB */
	remove_vm_area(addr);
	kfree(area);
	vm_unmap_aliases();
	/*
	 * then the direct map is reset, never writable while cached stale.  A
	 * page whose alias could not be reset (no memory to split the direct
	 * map) is not given back: it stays marked in its block, which is then
	 * never released, and is counted.
	 */
	if (bp->flags & JIT_BLOCK_RO_ALIAS) {
		for (i = 0, good = 0; i < nr; i++)
			if (jit_block_alias_ro(pages[i]))
				pages[good++] = pages[i];
	} else {
		for (i = 0; i < nr; i++) {
			va = (unsigned long)page_address(pages[i]);
			dstart = min(dstart, va);
			dend = max(dend, va + PAGE_SIZE);
			set_direct_map_invalid_noflush(pages[i]);
		}
		flush_tlb_kernel_range(dstart, dend);
		for (i = 0, good = 0; i < nr; i++) {
			if (set_direct_map_default_noflush(pages[i]))
				continue;
			pages[good++] = pages[i];
		}
	}

	mutex_lock(&bp->lock);
	jit_block_put_pages(bp, pages, good);
	bp->stats.pages_in_use -= nr - good;
	bp->stats.leaked_pages += nr - good;
	bp->stats.frees++;
	mutex_unlock(&bp->lock);
	if (good < nr)
		pr_err("%u pages of %p keep a non-default direct map, kept out of use\n",
		       nr - good, addr);
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
	bp->stats.shrinker_reclaims += freed;
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
	seq_printf(m, "read_only_alias %d\n",
		   !!(bp->flags & JIT_BLOCK_RO_ALIAS));
	seq_printf(m, "blocks %lu\n", s.blocks);
	seq_printf(m, "spare_blocks %lu\n", s.spare_blocks);
	seq_printf(m, "pages_in_use %lu\n", s.pages_in_use);
	seq_printf(m, "high_water_pages %lu\n", s.high_water_pages);
	seq_printf(m, "allocs %lu\n", s.allocs);
	seq_printf(m, "frees %lu\n", s.frees);
	seq_printf(m, "fallbacks %lu\n", s.fallbacks);
	seq_printf(m, "reclaims %lu\n", s.reclaims);
	seq_printf(m, "shrinker_reclaims %lu\n", s.shrinker_reclaims);
	seq_printf(m, "leaked_pages %lu\n", s.leaked_pages);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(jit_block_stats);

static void jit_block_pool_debugfs(struct jit_block_pool *bp)
{
	lockdep_assert_held(&jit_block_pools_lock);
	if (jit_block_dir && !bp->debugfs)
		bp->debugfs = debugfs_create_file(bp->name, 0400, jit_block_dir,
						  bp, &jit_block_stats_fops);
}

/**
 * jit_block_pool_create() - set up a pool of page blocks
 * @name: name of its statistics file in /sys/kernel/debug/jitalloc/
 * @max_blocks: most blocks held at once, 0 for no limit (a limit lets the
 *	KUnit test exercise the fallback)
 * @flags: %JIT_BLOCK_RO_ALIAS: keep each block's direct map read-only
 *	while the pool holds it (the pool then maps only PAGE_KERNEL); x86
 *	only, whose set_memory_*() change direct-map addresses
 *
 * Return: the pool, or NULL without memory or for a flag this
 * architecture cannot honour.
 */
struct jit_block_pool *jit_block_pool_create(const char *name,
					     unsigned int max_blocks,
					     unsigned int flags)
{
	struct jit_block_pool *bp;

	if (WARN_ON_ONCE((flags & JIT_BLOCK_RO_ALIAS) && !IS_ENABLED(CONFIG_X86)))
		return NULL;
	bp = kzalloc(sizeof(*bp), GFP_KERNEL);
	if (!bp)
		return NULL;
	bp->name = kstrdup_const(name, GFP_KERNEL);
	if (!bp->name) {
		kfree(bp);
		return NULL;
	}
	bp->max_blocks = max_blocks;
	bp->flags = flags;
	bp->retry_after = jiffies;
	mutex_init(&bp->lock);
	INIT_LIST_HEAD(&bp->blocks);

	mutex_lock(&jit_block_pools_lock);
	list_add_tail(&bp->node, &jit_block_pools);
	jit_block_pool_debugfs(bp);
	mutex_unlock(&jit_block_pools_lock);
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

	mutex_lock(&jit_block_pools_lock);
	list_del(&bp->node);
	mutex_unlock(&jit_block_pools_lock);
	debugfs_remove(bp->debugfs);

	list_for_each_entry_safe(block, tmp, &bp->blocks, list) {
		if (WARN(block->used,
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

/* Fully free blocks in all pools; the shrinker only tries the locks. */
static unsigned long jit_block_shrink_count(struct shrinker *shrink,
					    struct shrink_control *sc)
{
	struct jit_block_pool *bp;
	unsigned long blocks = 0;

	if (!mutex_trylock(&jit_block_pools_lock))
		return 0;
	list_for_each_entry(bp, &jit_block_pools, node)
		blocks += jit_block_count_free(bp);
	mutex_unlock(&jit_block_pools_lock);
	return blocks * JIT_BLOCK_PAGES;
}

static unsigned long jit_block_shrink_scan(struct shrinker *shrink,
					   struct shrink_control *sc)
{
	struct jit_block_pool *bp;
	unsigned long freed = 0;

	if (!mutex_trylock(&jit_block_pools_lock))
		return SHRINK_STOP;
	list_for_each_entry(bp, &jit_block_pools, node)
		freed += jit_block_reclaim(bp) * JIT_BLOCK_PAGES;
	mutex_unlock(&jit_block_pools_lock);
	return freed ?: SHRINK_STOP;
}

static struct shrinker jit_block_shrinker = {
	.count_objects	= jit_block_shrink_count,
	.scan_objects	= jit_block_shrink_scan,
	.seeks		= DEFAULT_SEEKS,
};

/**
 * jit_block_debugfs_init() - give the block pools their statistics files
 * @dir: the jit allocator's debugfs directory
 *
 * Called once by the core when debugfs is up, as jit_cache_debugfs_init().
 */
void __init jit_block_debugfs_init(struct dentry *dir)
{
	struct jit_block_pool *bp;

	mutex_lock(&jit_block_pools_lock);
	jit_block_dir = dir;
	list_for_each_entry(bp, &jit_block_pools, node)
		jit_block_pool_debugfs(bp);
	mutex_unlock(&jit_block_pools_lock);
}

static int __init jit_block_init(void)
{
	return jit_register_shrinker(&jit_block_shrinker, "jitalloc-blocks");
}
late_initcall(jit_block_init);
