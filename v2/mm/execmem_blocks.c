// SPDX-License-Identifier: GPL-2.0-only
/*
 * execmem's page blocks: the memory of ranges an architecture flags
 * %EXECMEM_PAGE_BLOCKS - x86 module data, which the loader makes
 * read-only or non-executable page by page - comes from blocks of
 * physically contiguous pages as large as one direct-map leaf
 * (mm/jitalloc_blocks.c, shared with the 6.1 series), whose direct map is
 * read-only as a whole (%JIT_BLOCK_RO_ALIAS): the loader's set_memory_ro()
 * and set_memory_nx() find the alias as they want it, and loading and
 * unloading modules splits no 2 MiB direct-map page.
 *
 * Blocks come with execmem's cache: only where module text is cached
 * (its data would split what the text no longer does), and not at all
 * with execmem_cache=off, which gives back the stock way exactly.  A
 * mapping of block pages is freed with jit_block_vunmap(), never with
 * vfree(): execmem_free() knows them from a maple tree, and refuses a
 * free inside one that does not start it (counted with the cache's
 * refused frees in /sys/kernel/debug/jitalloc/execmem).
 */

#define pr_fmt(fmt) "execmem: " fmt

#include <linux/debugfs.h>
#include <linux/execmem.h>
#include <linux/init.h>
#include <linux/kasan.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>

#include "execmem_blocks.h"
#include "execmem_cache.h"
#include "jitalloc_cache.h"

/* One pool: only module data asks for blocks (x86). */
static struct jit_block_pool *execmem_block_pool __ro_after_init;

/* The mappings of block pages handed out, start to last byte */
static DEFINE_MTREE(execmem_block_maps);

/* A range lost its blocks to KASAN's module shadow (debugfs "execmem") */
static bool execmem_blocks_kasan_off __ro_after_init;

/**
 * execmem_blocks_init() - make the block pool, or drop the flag
 * @info: the ranges, after execmem_cache_init()
 *
 * Ranges keep %EXECMEM_PAGE_BLOCKS only where module text is in the cache
 * (execmem_cache_init() dropped %EXECMEM_ROX_CACHE otherwise, e.g. with
 * execmem_cache=off), when they are mapped PAGE_KERNEL, and where the
 * pool could be made.  Not with KASAN's module shadow outside vmalloc's
 * own (!KASAN_VMALLOC), a configuration the blocks are not tested in;
 * never on a range of the cache itself.
 */
void __init execmem_blocks_init(struct execmem_info *info)
{
	bool text_cached = info->ranges[EXECMEM_MODULE_TEXT].flags &
			   EXECMEM_ROX_CACHE;
	bool want = false;
	int i;

	for (i = 0; i < EXECMEM_TYPE_MAX; i++) {
		struct execmem_range *r = &info->ranges[i];
		bool kasan_apart = (r->flags & EXECMEM_KASAN_SHADOW) &&
				   IS_ENABLED(CONFIG_KASAN) &&
				   !IS_ENABLED(CONFIG_KASAN_VMALLOC);

		if (!(r->flags & EXECMEM_PAGE_BLOCKS))
			continue;
		execmem_blocks_kasan_off |= text_cached && kasan_apart;
		/*
		 * Blocks are writable memory, never text handed out ROX, and
		 * zeroed through their mapping: PAGE_KERNEL only.
		 */
		if (WARN_ON_ONCE(r->flags & EXECMEM_ROX_CACHE) ||
		    WARN_ON_ONCE(pgprot_val(r->pgprot) !=
				 pgprot_val(PAGE_KERNEL)) ||
		    !text_cached || kasan_apart)
			r->flags &= ~EXECMEM_PAGE_BLOCKS;
		else
			want = true;
	}
	if (!want)
		return;
	execmem_block_pool = jit_block_pool_create("page_blocks", 0,
						   JIT_BLOCK_RO_ALIAS);
	if (execmem_block_pool)
		return;
	pr_warn("no page blocks: module data splits the direct map page by page\n");
	for (i = 0; i < EXECMEM_TYPE_MAX; i++)
		info->ranges[i].flags &= ~EXECMEM_PAGE_BLOCKS;
}

/**
 * execmem_blocks_off_for_kasan() - did KASAN's module shadow keep a range
 * from page blocks?
 *
 * Return: true when a range asked for blocks, module text is cached, and
 * the range's KASAN shadow lies outside vmalloc's (KASAN without
 * KASAN_VMALLOC): its memory comes page by page from vmalloc.
 */
bool execmem_blocks_off_for_kasan(void)
{
	return execmem_blocks_kasan_off;
}

static void *execmem_blocks_map(const struct execmem_range *r, size_t size,
				unsigned long start, unsigned long end)
{
	unsigned long vm_flags = VM_FLUSH_RESET_PERMS;

	if (r->flags & EXECMEM_KASAN_SHADOW)
		vm_flags |= VM_DEFER_KMEMLEAK;
	return jit_block_vmap(execmem_block_pool, size, r->alignment, start,
			      end, r->pgprot, vm_flags,
			      __builtin_return_address(0));
}

/**
 * execmem_blocks_alloc() - memory of a flagged range from page blocks
 * @range: a range flagged %EXECMEM_PAGE_BLOCKS
 * @size: bytes wanted
 *
 * Return: zeroed memory mapped with @range's protections, or %NULL when
 * no block could be had: the caller then takes vmalloc memory.
 */
void *execmem_blocks_alloc(const struct execmem_range *range, size_t size)
{
	struct vm_struct *vm;
	unsigned long addr;
	void *p;

	if (!execmem_block_pool)
		return NULL;
	p = execmem_blocks_map(range, size, range->start, range->end);
	if (!p && range->fallback_start)
		p = execmem_blocks_map(range, size, range->fallback_start,
				       range->fallback_end);
	if (!p)
		return NULL;
	if ((range->flags & EXECMEM_KASAN_SHADOW) &&
	    kasan_alloc_module_shadow(p, size, GFP_KERNEL) < 0)
		goto err;
	/*
	 * The whole area, its guard page too: a free anywhere in it that
	 * does not start it is refused, never passed to vfree().
	 */
	addr = (unsigned long)kasan_reset_tag(p);
	vm = find_vm_area(p);
	if (WARN_ON_ONCE(!vm) ||
	    mtree_insert_range(&execmem_block_maps, addr, addr + vm->size - 1,
			       xa_mk_value(1), GFP_KERNEL))
		goto err;
	return (void *)addr;
err:
	jit_block_vunmap(p);
	return NULL;
}

/**
 * execmem_blocks_free() - free memory execmem_blocks_alloc() handed out
 * @p: what execmem_free() was given
 * @caller: execmem_free()'s caller, for the warning
 *
 * Return: true when @p was in a block mapping, freed or refused (not its
 * start: counted and warned about, nothing freed); false when execmem_free()
 * is to vfree() it.
 */
bool execmem_blocks_free(void *p, const void *caller)
{
	unsigned long last;
	void *entry;

	if (!execmem_block_pool)
		return false;
	/* of two frees racing for one mapping, only one unmaps it */
	entry = jit_mtree_take(&execmem_block_maps, (unsigned long)p, &last);
	if (!entry)
		return false;
	if (IS_ERR(entry)) {
		execmem_cache_refuse_free(p, caller);
		return true;
	}
	jit_block_vunmap(p);
	return true;
}

/**
 * execmem_blocks_mapping() - is @p the start of a page-block mapping?
 * @p: an address execmem_alloc() returned
 *
 * Return: true when @p's memory came from page blocks, not vmalloc.
 */
bool execmem_blocks_mapping(const void *p)
{
	unsigned long start, last;

	return execmem_block_pool &&
	       jit_mtree_range_of(&execmem_block_maps, (unsigned long)p,
				  &start, &last) &&
	       start == (unsigned long)p;
}

/*
 * The pool's statistics file goes next to the cache's, in the directory
 * execmem_cache.c makes.
 */
static int __init execmem_blocks_debugfs_init(void)
{
	struct dentry *dir;

	if (!execmem_block_pool)
		return 0;
	dir = debugfs_lookup("jitalloc", NULL);
	if (IS_ERR_OR_NULL(dir))
		return 0;
	jit_block_debugfs_init(dir);
	dput(dir);
	return 0;
}
late_initcall_sync(execmem_blocks_debugfs_init);
