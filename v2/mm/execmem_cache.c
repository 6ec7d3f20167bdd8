// SPDX-License-Identifier: GPL-2.0
/*
 * execmem's cache: text in 64-byte chunks of huge read-only executable
 * pages, for the types an architecture flags %EXECMEM_ROX_CACHE.
 *
 * The chunks come from jitalloc_cache (mm/jitalloc_cache.c), one pool per
 * distinct range of the flagged types, so that kprobes slots, ftrace
 * trampolines and BPF programs placed in the same range share huge pages
 * instead of each taking 4 KiB pages (or a private 2 MiB pack) of their
 * own.  When a pool cannot serve a request (larger than a huge page, no
 * huge page to be had, kprobes that cannot wait) execmem allocates page by
 * page with the same promises: read-only and executable from the start,
 * filled with trapping instructions, a read-only direct-map alias, written
 * only with execmem_update_copy() and execmem_update_set().  A user of a
 * flagged type never changes the permissions of its memory.
 *
 * Writes and frees are checked: a write that is not inside one live
 * allocation, or a free of what is not the start of one, is refused,
 * counted in /sys/kernel/debug/jitalloc/execmem and warned about.
 */

#define pr_fmt(fmt) "execmem: " fmt

#include <linux/debugfs.h>
#include <linux/execmem.h>
#include <linux/init.h>
#include <linux/maple_tree.h>
#include <linux/memory.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/set_memory.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>
#include <asm/cacheflush.h>

#include "execmem_blocks.h"
#include "execmem_cache.h"
#include "jitalloc_cache.h"

#define CREATE_TRACE_POINTS
#include <trace/events/jitalloc.h>

/* Pool serving each flagged type; types with the same range share one. */
static struct jit_cache_pool *execmem_pools[EXECMEM_TYPE_MAX] __ro_after_init;

/*
 * Page-granular text of flagged types, by range: the value is the type.
 * Looked up by the checks of writes and frees, and for the pool's count.
 */
static DEFINE_MTREE(execmem_fallbacks);

static atomic_long_t execmem_refused_frees = ATOMIC_LONG_INIT(0);
static atomic_long_t execmem_refused_updates = ATOMIC_LONG_INIT(0);

static bool execmem_cache_enabled __initdata = true;
/* Some type has a pool: only then does execmem_free() ask the cache. */
static bool execmem_cache_used __ro_after_init;

/* execmem_cache=off: every type keeps its page-granular, writable way. */
static int __init execmem_cache_param(char *s)
{
	if (!s || kstrtobool(s, &execmem_cache_enabled)) {
		pr_warn("execmem_cache=%s not understood: the cache stays on\n",
			s ?: "");
		execmem_cache_enabled = true;
	}
	return 0;
}
early_param("execmem_cache", execmem_cache_param);

/**
 * execmem_rox_pgprot() - protections of memory read-only and executable
 * from the start
 *
 * Evaluated each time such memory is mapped, never stored at boot.
 *
 * Return: the protections; %PAGE_KERNEL_ROX unless the architecture adds
 * to it.
 */
pgprot_t __weak execmem_rox_pgprot(void)
{
	return PAGE_KERNEL_ROX;
}

/**
 * execmem_arch_trap_byte() - the byte that fills free read-only text
 * with trapping instructions (int3 on x86)
 *
 * Return: the byte; 0 unless the architecture says otherwise.
 */
u8 __weak execmem_arch_trap_byte(void)
{
	return 0;
}

/* Where a pool for @r places its huge pages. */
static struct jit_address_space execmem_range_space(const struct execmem_range *r)
{
	return (struct jit_address_space) {
		.prot		= JIT_PROT_ROX,
		.start		= r->start,
		.end		= r->end,
		.fallback_start	= r->fallback_start,
		.fallback_end	= r->fallback_end,
	};
}

/*
 * Module text keeps the KASLR of its range: a pool packing huge pages
 * from the range's start, and chunks from each page's start, would put
 * the first module at the first 2 MiB boundary of the range, where stock
 * 6.12 draws a random offset (x86: up to 4 MiB; arm64: the region's
 * place).  Each huge page goes to a random free place in the range, and
 * the allocation that made the pool take it to a random place in it.  A
 * range as small as arm64's 128 MiB direct-branch region is filled from
 * the top down instead, which leaves the rest of it in one piece for
 * module data and modules too big for the cache; the first allocation in
 * each page is still random.
 */
static void __init execmem_cache_place_module_text(struct jit_cache_pool *pool,
						   const struct execmem_range *r)
{
	if (!IS_ENABLED(CONFIG_RANDOMIZE_BASE))
		return;
	jit_cache_pool_randomize(pool);
	if (r->end - r->start <= SZ_128M)
		jit_cache_pool_top_down(pool);
}

/* Fully free huge pages are given back after this long. */
#define EXECMEM_CACHE_GRACE_MS	1000

/**
 * execmem_cache_init() - make the pools of the flagged types
 * @info: the ranges, after execmem_arch_setup() and the defaults
 *
 * One pool per distinct range of the flagged types, named after the types
 * that share it, e.g. "kprobes+ftrace+bpf".  A type whose pool cannot be
 * made, or every type when the cache is switched off, loses the flag:
 * execmem_is_rox() is false for it and its users keep their own way.
 */
void __init execmem_cache_init(struct execmem_info *info)
{
	char name[EXECMEM_TYPE_MAX * sizeof("module_data+")];
	bool huge = jit_cache_pages_possible(execmem_rox_pgprot());
	struct jit_cache_pool *pool;
	struct jit_address_space as, other;
	unsigned long sharing;
	size_t len;
	int i, j;

	for (i = 0; i < EXECMEM_TYPE_MAX; i++) {
		struct execmem_range *r = &info->ranges[i];

		if (!(r->flags & EXECMEM_ROX_CACHE) || execmem_pools[i])
			continue;
		/*
		 * Without huge vmalloc mappings (nohugevmalloc, no PSE) every
		 * request would fall back to pages of its own: the type keeps
		 * its page-granular, writable way instead.
		 */
		if (!execmem_cache_enabled || i == EXECMEM_MODULE_DATA || !huge) {
			r->flags &= ~EXECMEM_ROX_CACHE;
			continue;
		}
		as = execmem_range_space(r);
		sharing = 0;
		name[0] = '\0';
		for (j = i; j < EXECMEM_TYPE_MAX; j++) {
			other = execmem_range_space(&info->ranges[j]);
			if (!(info->ranges[j].flags & EXECMEM_ROX_CACHE) ||
			    j == EXECMEM_MODULE_DATA || !jit_same_range(&as, &other))
				continue;
			sharing |= BIT(j);
			len = strlen(name);
			snprintf(name + len, sizeof(name) - len, "%s%s",
				 len ? "+" : "", jit_type_name(j));
		}
		pool = jit_cache_pool_create(name, &as,
					     r->flags & EXECMEM_KASAN_SHADOW,
					     execmem_arch_trap_byte(),
					     EXECMEM_CACHE_GRACE_MS);
		if (pool && (sharing & BIT(EXECMEM_MODULE_TEXT)))
			execmem_cache_place_module_text(pool, r);
		for_each_set_bit(j, &sharing, EXECMEM_TYPE_MAX) {
			if (pool)
				execmem_pools[j] = pool;
			else
				info->ranges[j].flags &= ~EXECMEM_ROX_CACHE;
		}
		if (pool)
			execmem_cache_used = true;
		else
			pr_warn("no cache for %s: its text stays page-granular and writable\n",
				name);
	}
	if (!execmem_cache_enabled)
		pr_info("cache off (execmem_cache=off)\n");
	else if (!huge)
		pr_info("cache off: no huge vmalloc mappings\n");
}

/**
 * execmem_cache_alloc() - a chunk for a flagged type
 * @type: the type
 * @size: bytes wanted
 * @nowait: the caller holds text_mutex (execmem_alloc_nowait())
 *
 * A caller holding text_mutex must not wait for freed chunks' refill or
 * for a huge page to be mapped and filled, which poke text: kprobes
 * always allocates so (prepare_kprobe()), x86 ITS thunks for a module
 * being loaded do (its_init_mod()).
 *
 * Return: the chunk, or %NULL when the pool cannot serve @size now.
 */
void *execmem_cache_alloc(enum execmem_type type, size_t size, bool nowait)
{
	struct jit_cache_pool *pool = execmem_pools[type];

	if (!pool)
		return NULL;
	/* the cache's users are execmem's types, see jitalloc_backend.h */
	if (nowait || type == EXECMEM_KPROBES)
		return jit_cache_alloc_nowait(pool, size,
					      (enum jit_alloc_type)type);
	return jit_cache_alloc(pool, size, (enum jit_alloc_type)type);
}

/*
 * Make @nr pages at @addr read-only, then executable.  set_memory_rox()
 * does both in one pass over the pages, and on x86 it changes each run of
 * pages before its direct-map alias, with one TLB flush at the end: until
 * then the text can be executable while its alias is still writable.
 * set_memory_ro() protects the alias and flushes before anything is
 * executable.
 */
static int execmem_set_rox(unsigned long addr, int nr)
{
	return set_memory_ro(addr, nr) ?: set_memory_x(addr, nr);
}

/**
 * execmem_cache_fallback() - give page-granular text a chunk's promises
 * @type: its flagged type
 * @p: writable memory execmem just allocated for it
 * @size: its size
 *
 * Fills @p with traps while it is writable, then makes it read-only and
 * executable, its direct-map alias read-only with it (x86 does both;
 * arm64 does the alias with rodata=full): see execmem_set_rox().
 *
 * Return: 0, or a negative errno: the caller frees @p.
 */
int execmem_cache_fallback(enum execmem_type type, void *p, size_t size)
{
	unsigned long addr = (unsigned long)p;
	unsigned int pages = PAGE_ALIGN(size) >> PAGE_SHIFT;
	int err;

	memset(p, execmem_arch_trap_byte(), PAGE_ALIGN(size));
	err = execmem_set_rox(addr, pages);
	if (err) {
		pr_warn_ratelimited("cannot make %u pages at %p read-only (%d): allocation refused\n",
				    pages, p, err);
		return err;
	}
	flush_icache_range(addr, addr + PAGE_ALIGN(size));
	err = mtree_insert_range(&execmem_fallbacks, addr,
				 addr + PAGE_ALIGN(size) - 1,
				 xa_mk_value(type), GFP_KERNEL);
	if (err)
		return err;
	jit_cache_pool_count_fallback(execmem_pools[type], pages);
	trace_jit_alloc(p, size, PAGE_ALIGN(size),
			jit_type_name((enum jit_alloc_type)type),
			JIT_TRACE_BACKEND_VMALLOC, true);
	return 0;
}

/* The page-granular allocation of a flagged type that holds @addr */
static bool execmem_fallback_find(unsigned long addr, unsigned long *start,
				  unsigned long *last, enum execmem_type *type)
{
	void *entry = jit_mtree_range_of(&execmem_fallbacks, addr, start, last);

	if (!entry)
		return false;
	*type = xa_to_value(entry);
	return true;
}

/**
 * execmem_cache_free() - free what the cache or its fallback handed out
 * @p: the start of an allocation, or of memory execmem_free() frees
 * @caller: execmem_free()'s caller, for the warning
 *
 * Return: true when @p was cache memory, freed or refused (not the start
 * of a live chunk: counted and warned about, nothing freed); false when
 * execmem_free() is to vfree() it.
 */
bool execmem_cache_free(void *p, const void *caller)
{
	unsigned long addr = (unsigned long)p, start, last;
	enum execmem_type type;
	void *entry;
	int err;

	if (!execmem_cache_used)
		return false;
	err = jit_cache_free(p);
	if (!err)
		return true;
	if (err == -ENOENT) {
		/*
		 * Of two frees of a fallback only one takes it; the other
		 * finds nothing and goes to vfree() as with stock execmem
		 * (which warns of no such area, or frees what has been
		 * allocated there since: that double free is not caught).
		 */
		entry = jit_mtree_take(&execmem_fallbacks, addr, &last);
		if (!entry) {
			/*
			 * The guard page after a fallback: vfree() would
			 * take the whole area, which stays in the tree.
			 */
			if (!execmem_fallback_find(addr - 1, &start, &last, &type) ||
			    last + 1 != addr)
				return false;
			entry = ERR_PTR(-EINVAL);
		}
		if (!IS_ERR(entry)) {
			type = xa_to_value(entry);
			jit_cache_pool_count_fallback(execmem_pools[type],
						      -(long)((last + 1 - addr) >> PAGE_SHIFT));
			trace_jit_free(p, last + 1 - addr,
				       jit_type_name((enum jit_alloc_type)type),
				       JIT_TRACE_BACKEND_VMALLOC);
			return false;
		}
	}
	execmem_cache_refuse_free(p, caller);
	return true;
}

/**
 * execmem_cache_refuse_free() - count and report a free execmem refuses
 * @p: what execmem_free() was given
 * @caller: execmem_free()'s caller
 *
 * For frees inside the cache's memory and (mm/execmem_blocks.c) inside
 * page-block memory that do not start an allocation: nothing is freed.
 */
void execmem_cache_refuse_free(void *p, const void *caller)
{
	atomic_long_inc(&execmem_refused_frees);
	pr_warn_ratelimited("free of %p by %pS refused: not the start of a live allocation\n",
			    p, caller);
}

/**
 * execmem_is_fallback() - is this page-granular text in place of a chunk?
 * @ptr: an address: the start of memory execmem_alloc() returned, or any
 *	other (a slot page kprobes got from an architecture's allocator)
 *
 * When the cache cannot serve an allocation at once (execmem_alloc_nowait()
 * and kprobes take only a chunk that is free now; no huge page to be had)
 * the memory is page-granular, with the same promises.
 *
 * Context: takes a spinlock.
 * Return: true if @ptr starts page-granular text execmem gave a cached
 * type.
 */
bool execmem_is_fallback(const void *ptr)
{
	unsigned long start, last;
	enum execmem_type type;

	return execmem_cache_used &&
	       execmem_fallback_find((unsigned long)ptr, &start, &last, &type) &&
	       start == (unsigned long)ptr;
}

/**
 * execmem_fallback_replaceable() - may this page-granular text give way?
 * @ptr: an address, as for execmem_is_fallback()
 *
 * A user that keeps idle memory for its next allocation should not keep
 * page-granular text it got in place of a chunk once the type's pool can
 * serve the same allocation: the next one would be a chunk.  While the
 * pool cannot (no huge page to be had, its freed chunks not refilled
 * yet), keeping it spares setting up page-granular text, and changing the
 * direct map for it, at every allocation.  Ask only about memory
 * execmem_is_fallback() said is such text: this searches the pool's
 * bitmaps, up to the first place that would do.
 *
 * Context: process context; takes the pool's mutex, never text_mutex.
 * Return: true if @ptr starts page-granular text execmem gave a cached
 * type and the type's pool could serve as much now from a huge page it
 * holds (jit_cache_has_room()).
 */
bool execmem_fallback_replaceable(const void *ptr)
{
	unsigned long start, last;
	enum execmem_type type;

	if (!execmem_cache_used ||
	    !execmem_fallback_find((unsigned long)ptr, &start, &last, &type) ||
	    start != (unsigned long)ptr || !execmem_pools[type])
		return false;
	return jit_cache_has_room(execmem_pools[type], last - start + 1);
}

/* May [@dst, @dst + @size) of read-only text be written? */
static bool execmem_update_allowed(const void *dst, size_t size)
{
	unsigned long addr = (unsigned long)dst, start, last;
	enum execmem_type type;
	int err;

	if (!size || addr + size < addr)
		return false;
	err = jit_cache_check_update(dst, size);
	if (!err)
		return true;
	if (err == -ENOENT &&
	    execmem_fallback_find(addr, &start, &last, &type) &&
	    addr + size - 1 <= last)
		return true;
	return false;
}

/*
 * Poke @size bytes at @dst: from @src, or the byte @c when @src is NULL,
 * in pieces of at most JIT_POKE_CHUNK so that text_mutex is let go (and
 * the CPU given up) between them.
 */
static int execmem_poke(void *dst, const void *src, int c, size_t size)
{
	size_t off, n;
	int err;

	for (off = 0; off < size; off += n) {
		n = min_t(size_t, size - off, JIT_POKE_CHUNK);
		if (src)
			err = jit_arch_text_copy(dst + off, src + off, n);
		else
			err = jit_arch_text_set(dst + off, c, n);
		if (err)
			return err;
		if (off + n < size)
			cond_resched();
	}
	return 0;
}

static void *execmem_update(void *dst, const void *src, int c, size_t size,
			    const void *caller)
{
	/* text poking takes it: a caller holding it would deadlock */
	lockdep_assert_not_held(&text_mutex);
	if (!execmem_update_allowed(dst, size)) {
		atomic_long_inc(&execmem_refused_updates);
		pr_warn_ratelimited("write of %zu bytes at %p by %pS refused: not inside live read-only text\n",
				    size, dst, caller);
		return NULL;
	}
	if (execmem_poke(dst, src, c, size))
		return NULL;
	return dst;
}

/**
 * execmem_update_copy() - copy into read-only executable text
 * @dst: where, inside one allocation of a type execmem_is_rox() is true for
 * @src: what
 * @size: how many bytes
 *
 * Writes through the architecture's text poking.  Must not be called in
 * atomic context, nor with text_mutex held.  Not exported: every user of a
 * cached type is built in.
 *
 * Return: @dst, or %NULL when the write was refused (counted and warned
 * about: @dst is not inside one live allocation) or failed.
 */
void *execmem_update_copy(void *dst, const void *src, size_t size)
{
	return execmem_update(dst, src, 0, size, __builtin_return_address(0));
}

/**
 * execmem_update_set() - fill read-only executable text with a byte
 * @dst: where, inside one allocation of a type execmem_is_rox() is true for
 * @c: the byte
 * @size: how many bytes
 *
 * As execmem_update_copy().
 *
 * Return: @dst, or %NULL when the write was refused or failed.
 */
void *execmem_update_set(void *dst, int c, size_t size)
{
	return execmem_update(dst, NULL, c, size, __builtin_return_address(0));
}

/* Is [@ptr, @ptr + @size) the start of one page-granular allocation? */
static bool execmem_fallback_owned(void *ptr, size_t size)
{
	unsigned long addr = (unsigned long)ptr, start, last;
	enum execmem_type type;

	return size && execmem_fallback_find(addr, &start, &last, &type) &&
	       start == addr && addr + PAGE_ALIGN(size) - 1 <= last;
}

/**
 * execmem_make_temp_rw() - make read-only text of one's own writable
 * @ptr: the start of an allocation of a flagged type
 * @size: its size
 *
 * Text the cache's fallback handed out (more than a huge page holds, or
 * no room) is pages of its own, shared with nobody: they are made
 * writable and not executable, so that a loader writes them in place
 * rather than by text poking, until execmem_restore_rox().  Never
 * writable and executable at once.  A chunk of a shared huge page cannot
 * be: its users write it with execmem_update_copy().
 *
 * Context: process context, may sleep.
 * Return: 0, -EBUSY for a chunk, or the error of set_memory_*().
 */
int execmem_make_temp_rw(void *ptr, size_t size)
{
	unsigned long addr = (unsigned long)ptr;
	int nr = PAGE_ALIGN(size) >> PAGE_SHIFT;
	int err;

	if (!execmem_fallback_owned(ptr, size))
		return -EBUSY;
	err = set_memory_nx(addr, nr);
	return err ?: set_memory_rw(addr, nr);
}

/**
 * execmem_restore_rox() - make text execmem_make_temp_rw() opened read-only
 * @ptr: what was passed to execmem_make_temp_rw()
 * @size: the same size
 *
 * Context: process context, may sleep.
 * Return: 0, -EBUSY for a chunk (never made writable), or the error of
 * set_memory_ro() or set_memory_x().
 */
int execmem_restore_rox(void *ptr, size_t size)
{
	unsigned long addr = (unsigned long)ptr;

	if (!execmem_fallback_owned(ptr, size))
		return -EBUSY;
	flush_icache_range(addr, addr + PAGE_ALIGN(size));
	return execmem_set_rox(addr, PAGE_ALIGN(size) >> PAGE_SHIFT);
}

/**
 * execmem_cache_pool() - the pool that serves a type
 * @type: an execmem type
 *
 * Return: the pool, or %NULL when @type is not cached.
 */
struct jit_cache_pool *execmem_cache_pool(enum execmem_type type)
{
	return (unsigned int)type < EXECMEM_TYPE_MAX ? execmem_pools[type] : NULL;
}

/**
 * execmem_cache_text_pages() - executable memory execmem's cache holds
 *
 * The pools' huge pages, whole however much of them is handed out, and
 * the page-granular text of cached types that no pool could serve: the
 * "JitText" line of /proc/meminfo.  Text of types that are not cached
 * is not counted.
 *
 * Return: the number of pages.
 */
unsigned long execmem_cache_text_pages(void)
{
	unsigned long allocs, fallback, pages = 0;
	long held = jit_cache_held_pages();
	int i, j;

	for (i = 0; i < EXECMEM_TYPE_MAX; i++) {
		if (!execmem_pools[i])
			continue;
		/* types that share a pool share its fallback count */
		for (j = 0; j < i && execmem_pools[j] != execmem_pools[i]; j++)
			;
		if (j < i)
			continue;
		jit_cache_pool_fallbacks(execmem_pools[i], &allocs, &fallback);
		pages += fallback;
	}
	return pages + max(held, 0L);
}

/**
 * execmem_cache_refused() - writes and frees refused so far
 *
 * Return: their number.
 */
unsigned long execmem_cache_refused(void)
{
	return atomic_long_read(&execmem_refused_frees) +
	       atomic_long_read(&execmem_refused_updates);
}

/*
 * Executable pages of the page-granular allocations of flagged types (the
 * fallback), and how many of them have a writable linear alias (the
 * cache's own huge pages are checked by their pools' files).  The tree's
 * lock keeps every allocation walked mapped: execmem_cache_free() erases
 * one before it is unmapped.  The lock is let go between allocations when
 * someone waits for it or for the CPU; the walk goes on from the next one
 * still there.  One allocation is walked whole, under the lock: a module
 * with more text than a huge page holds (the only big fallback) costs two
 * page-table walks per 4 KiB page of it, a few milliseconds for 32 MiB.
 */
static void execmem_exec_aliases_show(struct seq_file *m)
{
	unsigned long addr, checked = 0, writable = 0;
	struct jit_leaf leaf;
	struct page *page;
	void *entry;

	MA_STATE(mas, &execmem_fallbacks, 0, 0);

	mtree_lock(&execmem_fallbacks);
	mas_for_each(&mas, entry, ULONG_MAX) {
		for (addr = mas.index; addr <= mas.last; addr += PAGE_SIZE) {
			jit_arch_kernel_leaf(addr, &leaf);
			if (!leaf.size || !leaf.exec)
				continue;
			page = vmalloc_to_page((void *)addr);
			if (!page || PageHighMem(page))
				continue;
			checked++;
			jit_arch_kernel_leaf((unsigned long)page_address(page),
					     &leaf);
			if (leaf.writable)
				writable++;
		}
		if (need_resched() || spin_needbreak(&execmem_fallbacks.ma_lock)) {
			mas_pause(&mas);
			mtree_unlock(&execmem_fallbacks);
			cond_resched();
			mtree_lock(&execmem_fallbacks);
		}
	}
	mtree_unlock(&execmem_fallbacks);
	seq_printf(m, "exec_aliases_protected %d\n", jit_arch_can_protect_alias());
	seq_printf(m, "exec_pages_checked %lu\n", checked);
	seq_printf(m, "exec_alias_writable %lu\n", writable);
}

static int execmem_stats_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < EXECMEM_TYPE_MAX; i++)
		seq_printf(m, "rox_%s %d\n", jit_type_name(i), execmem_is_rox(i));
	seq_printf(m, "refused_frees %ld\n",
		   atomic_long_read(&execmem_refused_frees));
	seq_printf(m, "refused_updates %ld\n",
		   atomic_long_read(&execmem_refused_updates));
	seq_printf(m, "cache_pages %ld\n", jit_cache_held_pages());
	seq_printf(m, "page_blocks_off_kasan %d\n",
		   execmem_blocks_off_for_kasan());
	execmem_exec_aliases_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(execmem_stats);

/*
 * /sys/kernel/debug/jitalloc/: the pools' statistics (one file per pool)
 * and execmem's own counts, where the 6.1 series keeps them too.
 */
static int __init execmem_cache_debugfs_init(void)
{
	struct dentry *dir = debugfs_create_dir("jitalloc", NULL);

	debugfs_create_file("execmem", 0400, dir, NULL, &execmem_stats_fops);
	jit_cache_debugfs_init(dir);
	return 0;
}
late_initcall(execmem_cache_debugfs_init);
