/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitalloc_cache: huge read-only-executable pages carved into chunks.
 *
 * Internal to mm/: the allocator it serves (see jitalloc_backend.h)
 * feeds requests for text in ranges the
 * architecture marked cacheable to these pools and falls back to its
 * page-granular path when a pool cannot serve them.  See the comment at
 * the top of mm/jitalloc_cache.c for the design.
 */
#ifndef _MM_JITALLOC_CACHE_H
#define _MM_JITALLOC_CACHE_H

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/pgtable.h>
#include <linux/types.h>

#include "jitalloc_backend.h"

/*
 * A cache page is what huge vmalloc maps with one TLB entry: a PMD leaf,
 * unless a PMD maps more than 2 MiB (arm64 with 16K or 64K pages: 32 MiB,
 * 512 MiB) and the architecture maps huge vmalloc memory below PMD size
 * with runs of contiguous PTEs (arm64: 2 MiB with either page size, see
 * arch_vmap_pte_supported_shift()).
 */
#if PMD_SHIFT > 21 && defined(CONT_PTE_SHIFT)
#define JIT_CACHE_PAGE_SHIFT	CONT_PTE_SHIFT
#else
#define JIT_CACHE_PAGE_SHIFT	PMD_SHIFT
#endif
#define JIT_CACHE_PAGE_SIZE	BIT(JIT_CACHE_PAGE_SHIFT)

struct dentry;
struct jit_cache_pool;

/**
 * struct jit_cache_stats - a snapshot of one pool's counters
 * @huge_pages: cache pages (JIT_CACHE_PAGE_SIZE) held, in use or spare
 * @spare_pages: fully free huge pages kept for reuse
 * @chunks_total: chunks in all huge pages
 * @chunks_used: chunks handed out
 * @chunk_size: bytes in a chunk
 * @largest_free_run: longest run of free chunks in any one huge page
 * @bytes_in_use: bytes handed out per &enum jit_alloc_type, rounded to chunks
 * @allocs: successful allocations from huge pages
 * @frees: frees back into huge pages
 * @reclaims: huge pages given back to vmalloc
 * @shrinker_reclaims: of those, given back by the shrinker
 * @alias_errors: huge pages not used because their linear alias could not
 *	be made read-only
 * @map_errors: huge pages not used because, filled and with their alias
 *	protected, they could not be mapped executable
 * @leaked_pages: 4 KiB pages kept out of the page allocator because their
 *	linear alias could not be made writable again
 * @high_water: most bytes in use at any time
 */
struct jit_cache_stats {
	unsigned long huge_pages;
	unsigned long spare_pages;
	unsigned long chunks_total;
	unsigned long chunks_used;
	unsigned long chunk_size;
	unsigned long largest_free_run;
	unsigned long bytes_in_use[JIT_TYPE_NR];
	unsigned long allocs;
	unsigned long frees;
	unsigned long reclaims;
	unsigned long shrinker_reclaims;
	unsigned long alias_errors;
	unsigned long map_errors;
	unsigned long leaked_pages;
	unsigned long high_water;
};

struct jit_block_pool;
struct jit_cache_page;

/* wait this long after failing to get a huge page or block before retrying */
#define JIT_CACHE_RETRY		HZ

/*
 * A page block: naturally aligned, physically contiguous pages, as many as
 * one PMD-level direct-map leaf maps (or the largest buddy block).
 */
#define JIT_BLOCK_ORDER		(PMD_SHIFT - PAGE_SHIFT < JIT_MAX_ORDER ? \
				 PMD_SHIFT - PAGE_SHIFT : JIT_MAX_ORDER - 1)
#define JIT_BLOCK_PAGES		BIT(JIT_BLOCK_ORDER)

/**
 * struct jit_block_stats - a snapshot of one block pool's counters
 * @blocks: blocks held, in use or spare
 * @spare_blocks: fully free blocks kept for reuse
 * @pages_in_use: pages of the blocks mapped by live allocations
 * @high_water_pages: most pages in use at any time
 * @allocs: allocations served from blocks
 * @frees: allocations given back to blocks
 * @fallbacks: requests passed to vmalloc for want of a block
 * @reclaims: blocks given back to the page allocator
 * @shrinker_reclaims: of those, given back by the shrinker
 * @leaked_pages: pages kept out of use because their direct-map alias could
 *	not be reset to its default
 */
struct jit_block_stats {
	unsigned long blocks;
	unsigned long spare_blocks;
	unsigned long pages_in_use;
	unsigned long high_water_pages;
	unsigned long allocs;
	unsigned long frees;
	unsigned long fallbacks;
	unsigned long reclaims;
	unsigned long shrinker_reclaims;
	unsigned long leaked_pages;
};

#if JIT_CACHE_CONFIGURED
bool jit_cache_pages_possible(pgprot_t prot);
/* a block's direct map read-only while its pool holds it */
#define JIT_BLOCK_RO_ALIAS	BIT(0)
struct jit_block_pool *jit_block_pool_create(const char *name,
					     unsigned int max_blocks,
					     unsigned int flags);
void jit_block_pool_destroy(struct jit_block_pool *bp);
void *jit_block_vmap(struct jit_block_pool *bp, size_t len,
		     unsigned long align, unsigned long start,
		     unsigned long end, pgprot_t prot, unsigned long vm_flags,
		     const void *caller);
void jit_block_vunmap(void *addr);
void jit_block_get_stats(struct jit_block_pool *bp,
			 struct jit_block_stats *stats);
unsigned long jit_block_page_of(struct jit_block_pool *bp, struct page *page);

struct jit_cache_pool *jit_cache_pool_create(const char *name,
					     const struct jit_address_space *as,
					     bool kasan_shadow, u8 fill,
					     unsigned int grace_ms);
void jit_cache_pool_destroy(struct jit_cache_pool *pool);
void jit_cache_pool_randomize(struct jit_cache_pool *pool);
void jit_cache_pool_top_down(struct jit_cache_pool *pool);
void jit_cache_pool_switch_off(struct jit_cache_pool *pool);
void jit_cache_pool_count_fallback(struct jit_cache_pool *pool, long pages);
void jit_cache_pool_fallbacks(struct jit_cache_pool *pool,
			      unsigned long *allocs, unsigned long *pages);
long jit_cache_held_pages(void);
void jit_cache_debugfs_init(struct dentry *dir);
void jit_block_debugfs_init(struct dentry *dir);
int jit_cache_pool_set_range(struct jit_cache_pool *pool,
			     const struct jit_address_space *as, bool apply);
void *jit_cache_alloc(struct jit_cache_pool *pool, size_t len,
		      enum jit_alloc_type user);
void *jit_cache_alloc_nowait(struct jit_cache_pool *pool, size_t len,
			     enum jit_alloc_type user);
bool jit_cache_has_room(struct jit_cache_pool *pool, size_t len);
int jit_cache_free(void *addr);
int jit_cache_check_update(const void *addr, size_t len);
void jit_cache_get_stats(struct jit_cache_pool *pool,
			 struct jit_cache_stats *stats);
unsigned long jit_cache_reclaim(struct jit_cache_pool *pool, bool spare);
void jit_cache_flush(struct jit_cache_pool *pool);
struct jit_cache_page *jit_cache_refill_begin(struct jit_cache_pool *pool,
					      unsigned long *startp,
					      unsigned long *nrp);
bool jit_cache_refill_end(struct jit_cache_pool *pool,
			  struct jit_cache_page *page, unsigned long start,
			  unsigned long nr);

/*
 * Architecture hook, in arch/<arch>/mm/jitalloc_cache.c: make the linear-map
 * alias of [@addr, @addr + @len) read-only (@protect) or writable again,
 * where @addr is a linear-map address and @len a multiple of PAGE_SIZE.
 * Returns 0 or a negative errno; on failure the alias may be in either
 * state.  Writes into cache memory use jit_arch_text_copy() and
 * jit_arch_text_set().
 */
int jit_arch_protect_alias(void *addr, size_t len, bool protect);
int jit_protect_alias(void *addr, size_t len, bool protect);
/*
 * Make the linear-map aliases of the pages behind vmalloc memory
 * [@addr, @addr + @len) read-only, as one operation where the architecture
 * can (one TLB flush for the whole range); the weak default protects the
 * alias of each page with jit_arch_protect_alias().
 */
int jit_arch_protect_vmalloc_aliases(void *addr, size_t len);
int jit_protect_vmalloc_aliases(void *addr, size_t len);

/**
 * struct jit_leaf - the kernel page-table entry that maps one address
 * @size: bytes that entry maps (for a contiguous-bit run, the run's size);
 *	0 when the address is not mapped
 * @writable: the kernel may write through it
 * @exec: the kernel may execute through it
 */
struct jit_leaf {
	unsigned long size;
	bool writable;
	bool exec;
};

/*
 * Architecture hooks for the checks in debugfs: read the leaf entry that
 * maps kernel address @addr in init_mm's page tables, with the effective
 * permissions, and tell whether jit_arch_protect_alias() really changes
 * the linear map here (it cannot where the linear map is made of blocks
 * the kernel does not split).  The caller must own @addr's mapping (a
 * cache huge page under its pool's lock, or its linear alias): nothing
 * keeps someone else's page tables from being freed under the walk.
 */
void jit_arch_kernel_leaf(unsigned long addr, struct jit_leaf *leaf);
bool jit_arch_can_protect_alias(void);

#ifdef CONFIG_FAULT_INJECTION
#include <linux/fault-inject.h>
extern struct fault_attr jit_fail_huge_page;
extern struct fault_attr jit_fail_alias;
extern struct fault_attr jit_fail_map_exec;
#endif
#else
static inline void *jit_block_vmap(struct jit_block_pool *bp, size_t len,
				   unsigned long align, unsigned long start,
				   unsigned long end, pgprot_t prot,
				   unsigned long vm_flags, const void *caller)
{
	return NULL;
}

static inline void jit_block_vunmap(void *addr) { }
static inline long jit_cache_held_pages(void) { return 0; }
static inline void jit_cache_debugfs_init(struct dentry *dir) { }
static inline void jit_block_debugfs_init(struct dentry *dir) { }

/* Without the cache no address is cache memory. */
static inline int jit_cache_free(void *addr)
{
	return -ENOENT;
}

static inline int jit_cache_check_update(const void *addr, size_t len)
{
	return -ENOENT;
}
#endif /* JIT_CACHE_CONFIGURED */

/* Do @a and @b cover the same addresses (protections aside)? */
static inline bool jit_same_range(const struct jit_address_space *a,
				  const struct jit_address_space *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->fallback_start == b->fallback_start &&
	       a->fallback_end == b->fallback_end;
}

#endif /* _MM_JITALLOC_CACHE_H */
