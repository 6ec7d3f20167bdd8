// SPDX-License-Identifier: GPL-2.0-only
/*
 * jitalloc: allocation of memory for generated and loaded code.
 *
 * Everything that puts code into a running kernel - the module loader, the
 * BPF JIT, kprobes and ftrace - allocates its memory here rather than with
 * module_alloc().  The architecture describes once, in &struct
 * jit_alloc_params, where such memory may be placed (per type of user if it
 * cares), how it is mapped and how it is written; users only say how much
 * they need and what for.
 *
 * Each allocation is its own vmalloc area.  A primary range that cannot
 * serve a request is retried in the fallback range, silently.  Live
 * allocations are recorded in a maple tree, so that jit_free() refuses
 * pointers it did not hand out and the update helpers refuse writes that do
 * not lie inside one allocation.
 *
 * Text may be mapped read-only (%JIT_PROT_ROX); all writes into it must
 * then go through jit_update_copy() and jit_update_set(), which use the
 * architecture's text poking.
 *
 * Text of the types an architecture caches comes instead from huge pages
 * carved into chunks (mm/jitalloc_cache.c), which the cache tracks itself;
 * what a pool cannot serve is allocated here, read-only from the start.
 *
 * Where the architecture asks for it, page-granular allocations take their
 * pages from blocks of one direct-map leaf each (mm/jitalloc_blocks.c).
 *
 * Every function here may sleep: process context only.
 */

#define pr_fmt(fmt) "jitalloc: " fmt

#include <linux/atomic.h>
#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/init.h>
#include <linux/jitalloc.h>
#include <linux/kasan.h>
#include <linux/kstrtox.h>
#include <linux/log2.h>
#include <linux/maple_tree.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/printk.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <asm/cacheflush.h>

#include "jitalloc_cache.h"
#include "jitalloc_internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/jitalloc.h>

/*
 * Live allocations: [start, start + len - 1] maps to an xa_mk_value() of
 * JIT_AREA_* bits.  The tree's own lock serialises updates.
 */
static DEFINE_MTREE(jit_areas);

/* Read-only executable kernel protections, where the architecture has them. */
#if defined(PAGE_KERNEL_ROX)
#define JIT_PAGE_KERNEL_ROX	PAGE_KERNEL_ROX
#elif defined(PAGE_KERNEL_READ_EXEC)
#define JIT_PAGE_KERNEL_ROX	PAGE_KERNEL_READ_EXEC	/* riscv */
#endif

/* jit_free() calls, see jit_free_seq() */
static atomic_long_t jit_frees = ATOMIC_LONG_INIT(0);

/*
 * Refused calls, by kind: each is a bug in a kernel user (a double free, a
 * write outside an allocation), so each is counted - in debugfs "api",
 * what operators alert on and what tests check - and reported with a
 * rate-limited message naming the caller.  Not a WARN: one user's bad
 * call must not stop a machine that panics on warnings, and tests make
 * such calls on purpose to check the counts.
 */
enum jit_refusal {
	JIT_REFUSED_FREE,	/* not the start of a live allocation */
	JIT_REFUSED_UPDATE,	/* not inside one live allocation */
	JIT_REFUSED_TYPE,	/* a type of the wrong class, or none */
	JIT_REFUSED_NR,
};

static atomic_long_t jit_refused[JIT_REFUSED_NR];
static atomic_long_t jit_alias_errors = ATOMIC_LONG_INIT(0);
/* jit_update_copy() and jit_update_set() calls that poked text */
static atomic_long_t jit_text_pokes = ATOMIC_LONG_INIT(0);
/* pages of executable memory held, see jit_text_held_pages() */
static atomic_long_t jit_text_pages = ATOMIC_LONG_INIT(0);

#define jit_refuse(kind, fmt, ...)					\
({									\
	atomic_long_inc(&jit_refused[kind]);				\
	pr_warn_ratelimited("refused from %pS: " fmt,			\
			    __builtin_return_address(0), ##__VA_ARGS__); \
})

#define JIT_AREA_TEXT	BIT(0)	/* allocated as text */
#define JIT_AREA_POKE	BIT(1)	/* written with text poking */
#define JIT_AREA_DYING	BIT(2)	/* being freed: no longer a live allocation */
#define JIT_AREA_FALLBACK BIT(3) /* page-granular text of a pool's type */
#define JIT_AREA_ALIAS	BIT(4)	/* direct-map alias made read-only */
#define JIT_AREA_BLOCKS	BIT(5)	/* pages from the context's page blocks */
#define JIT_AREA_TYPE_SHIFT 8	/* &enum jit_alloc_type + 1, 0 if untyped */
#define JIT_AREA_TYPE(type) (((unsigned long)(type) + 1) << JIT_AREA_TYPE_SHIFT)

/* The &enum jit_alloc_type of an area, JIT_TYPE_NR for the untyped calls. */
static enum jit_alloc_type jit_area_type(unsigned long area)
{
	unsigned long type = area >> JIT_AREA_TYPE_SHIFT;

	return type && type <= JIT_TYPE_NR ? type - 1 : JIT_TYPE_NR;
}

/* Who an area is for, for the trace events. */
static const char *jit_area_user(unsigned long area)
{
	enum jit_alloc_type type = jit_area_type(area);

	if (type < JIT_TYPE_NR)
		return jit_type_name(type);
	return area & JIT_AREA_TEXT ? "text" : "data";
}

/**
 * jit_text_held_pages() - executable memory the jit allocator holds
 *
 * Cache pages (whole, however much of them is handed out), text that its
 * pool could not serve, and text of types that are not cached, in pages:
 * the "JitText" line of /proc/meminfo.
 *
 * Return: the number of pages.
 */
unsigned long jit_text_held_pages(void)
{
	long pages = atomic_long_read(&jit_text_pages) + jit_cache_held_pages();

	/* more freed than allocated: a path that does not count */
	if (WARN_ON_ONCE(pages < 0))
		return 0;
	return pages;
}

#ifdef CONFIG_JIT_ALLOC_CACHE
/*
 * "jitalloc_cache=off": the pools take no huge page and there are no page
 * blocks; text of the cacheable types is still read-only and executable
 * from the start and written by text poking, page-granular, as when a pool
 * has no room.  For operators who want the cache's memory back or suspect
 * it; debugfs shows each pool "enabled 0".
 */
static bool jit_cache_enabled __ro_after_init = true;

static int __init jit_cache_param(char *s)
{
	/* one message of its own, not "Malformed early option" as well */
	if (!s || kstrtobool(s, &jit_cache_enabled)) {
		pr_err("jitalloc_cache=%s: expected on or off, the cache stays on\n",
		       s ?: "");
		jit_cache_enabled = true;
	}
	return 0;
}
early_param("jitalloc_cache", jit_cache_param);
#else
static const bool jit_cache_enabled;
#endif

static struct jit_alloc_ctx jit_ctx __ro_after_init;

static bool jit_type_is_text(enum jit_alloc_type type)
{
	return type != JIT_TYPE_MODULE_DATA;
}

static bool jit_space_valid(const struct jit_address_space *as)
{
	if (as->prot > JIT_PROT_ROX)
		return false;
#ifndef JIT_PAGE_KERNEL_ROX
	/* no read-only executable kernel mappings on this architecture */
	if (as->prot == JIT_PROT_ROX)
		return false;
#endif
	if (!as->end)
		return !as->start && !as->fallback_start && !as->fallback_end;
	if (as->start >= as->end || !PAGE_ALIGNED(as->start))
		return false;
	if (!as->fallback_end)
		return !as->fallback_start;
	return as->fallback_start < as->fallback_end &&
	       PAGE_ALIGNED(as->fallback_start);
}

static bool jit_params_valid(const struct jit_alloc_params *p)
{
	int i;

	if (p->flags & ~JIT_ALLOC_FLAGS_MASK)
		return false;
	if (p->alignment && !is_power_of_2(p->alignment))
		return false;
	if (!jit_space_valid(&p->text) || !jit_space_valid(&p->data))
		return false;
	for (i = 0; i < JIT_TYPE_NR; i++)
		if (!jit_space_valid(&p->types[i]))
			return false;
	return true;
}

/* Fill the unset parts of @as from @parent, and its protection with @prot. */
static void jit_space_resolve(struct jit_address_space *as,
			      const struct jit_address_space *parent,
			      enum jit_prot prot)
{
	if (as->prot == JIT_PROT_DEFAULT)
		as->prot = prot;
	if (as->end)
		return;
	as->start = parent->start;
	as->end = parent->end;
	as->fallback_start = parent->fallback_start;
	as->fallback_end = parent->fallback_end;
}

/**
 * jit_alloc_ctx_init() - validate parameters and resolve their defaults
 * @ctx: the context to set up
 * @params: the parameters, or %NULL for the defaults
 *
 * Unset address spaces get their defaults: text the VMALLOC range mapped
 * %JIT_PROT_RWX, data the text ranges mapped %JIT_PROT_RW, each type
 * the space of its class.  Invalid parameters are reported once, with
 * pr_crit(), and leave @ctx invalid so that it serves no allocation.
 *
 * Return: 0, or -EINVAL if @params are invalid.
 */
int jit_alloc_ctx_init(struct jit_alloc_ctx *ctx,
		       const struct jit_alloc_params *params)
{
	struct jit_address_space vmalloc_space = {
		.start	= VMALLOC_START,
		.end	= VMALLOC_END,
	};
	struct jit_alloc_params *p = &ctx->params;
	int i;

	memset(ctx, 0, sizeof(*ctx));
	if (params)
		*p = *params;

	if (!jit_params_valid(p)) {
		pr_crit("invalid parameters, no executable memory can be allocated\n");
		return -EINVAL;
	}

	jit_space_resolve(&p->text, &vmalloc_space, JIT_PROT_RWX);
	jit_space_resolve(&p->data, &p->text, JIT_PROT_RW);
	for (i = 0; i < JIT_TYPE_NR; i++) {
		const struct jit_address_space *class;

		class = jit_type_is_text(i) ? &p->text : &p->data;
		jit_space_resolve(&p->types[i], class, class->prot);
	}
	ctx->valid = true;

	return 0;
}

/**
 * jit_alloc_ctx_space() - the address space a type of user allocates from
 * @ctx: a context set up by jit_alloc_ctx_init()
 * @type: the type of user
 *
 * Return: the resolved address space, or %NULL for an unknown @type.
 */
const struct jit_address_space *
jit_alloc_ctx_space(const struct jit_alloc_ctx *ctx, enum jit_alloc_type type)
{
	if (type >= JIT_TYPE_NR)
		return NULL;
	return &ctx->params.types[type];
}

/**
 * jit_alloc_default_ctx() - the context the kernel allocates from
 *
 * Return: the context set up by jit_alloc_init().
 */
const struct jit_alloc_ctx *jit_alloc_default_ctx(void)
{
	return &jit_ctx;
}

/* Can @len bytes and a guard page fit into [@start, @end) at all? */
static bool jit_range_fits(unsigned long start, unsigned long end, size_t len)
{
	size_t size = PAGE_ALIGN(len);

	return end > start && size >= len && size < end - start;
}

/* Does this kernel allocate KASAN shadow per allocation for @ctx? */
static bool jit_kasan_shadow(const struct jit_alloc_ctx *ctx)
{
	return (IS_ENABLED(CONFIG_KASAN_GENERIC) ||
		IS_ENABLED(CONFIG_KASAN_SW_TAGS)) &&
	       !IS_ENABLED(CONFIG_KASAN_VMALLOC) &&
	       (ctx->params.flags & JIT_ALLOC_KASAN_SHADOW);
}

/*
 * Pages from the context's blocks if it has them (*@blocks is set), else
 * from vmalloc.  Either way the direct-map alias is reset when the memory
 * is freed.  Block pages are always zeroed, vmalloc ones as @gfp says.
 */
static void *jit_vmalloc(const struct jit_alloc_ctx *ctx, unsigned long start,
			 unsigned long end, pgprot_t prot, size_t len,
			 gfp_t gfp, const void *caller, bool *blocks)
{
	unsigned long align = ctx->params.alignment ?: 1;
	unsigned long vm_flags = 0;
	void *addr;

	/* The shadow allocation registers the area with kmemleak. */
	if (jit_kasan_shadow(ctx))
		vm_flags |= VM_DEFER_KMEMLEAK;

	if (ctx->blocks) {
		addr = jit_block_vmap(ctx->blocks, len, align, start, end, prot,
				      vm_flags, caller);
		*blocks = !!addr;
		if (addr)
			return addr;
	}
	return __vmalloc_node_range(len, align, start, end, gfp, prot,
				    vm_flags | VM_FLUSH_RESET_PERMS,
				    NUMA_NO_NODE, caller);
}

static void jit_vfree(void *addr, unsigned long area)
{
	if (area & JIT_AREA_BLOCKS)
		jit_block_vunmap(addr);
	else
		vfree(addr);
}

/* Fill text through the direct map alias: its own mapping may be ROX. */
static void jit_fill_alias(void *addr, size_t len, u8 c)
{
	size_t off;

	for (off = 0; off < PAGE_ALIGN(len); off += PAGE_SIZE) {
		void *va = kmap_local_page(vmalloc_to_page(addr + off));

		memset(va, c, PAGE_SIZE);
		kunmap_local(va);
	}
}

#ifdef CONFIG_JIT_ALLOC_CACHE
/*
 * Make the direct-map aliases of the pages of text that is mapped
 * read-only and executable read-only too, as set_memory_ro() does for
 * other users: no byte of code may be writable through any mapping.  On
 * failure the caller frees the allocation, which resets every alias
 * (VM_FLUSH_RESET_PERMS, or the page blocks' own reset).
 */
static int jit_protect_aliases(void *addr, size_t len)
{
	int err = jit_protect_vmalloc_aliases(addr, PAGE_ALIGN(len));

	if (err) {
		atomic_long_inc(&jit_alias_errors);
		pr_warn_ratelimited("cannot make the direct-map alias of %p read-only (%d), allocation refused\n",
				    addr, err);
	}
	return err;
}
#else
static int jit_protect_aliases(void *addr, size_t len)
{
	return 0;
}
#endif

/*
 * With %JIT_ALLOC_RANDOMIZE, page-granular allocations start this far into
 * their primary range: 1 to 1024 pages of 4 KiB (module_alloc() did the
 * same), as many larger pages as fit in those 4 MiB, drawn at the first
 * allocation, so from a random pool that is ready by then.
 */
static unsigned long jit_random_offset(const struct jit_alloc_ctx *ctx)
{
	static unsigned long offset;
	static DEFINE_MUTEX(lock);

	if (!(ctx->params.flags & JIT_ALLOC_RANDOMIZE))
		return 0;
	if (READ_ONCE(offset))
		return offset;
	mutex_lock(&lock);
	if (!offset)
		WRITE_ONCE(offset, (get_random_u32_below(SZ_4M >> PAGE_SHIFT) + 1) *
				   PAGE_SIZE);
	mutex_unlock(&lock);
	return offset;
}

static void *__jit_alloc(const struct jit_alloc_ctx *ctx,
			 const struct jit_address_space *as, bool text,
			 size_t len, unsigned long area, const void *caller)
{
	const struct jit_alloc_params *p = &ctx->params;
	bool primary, fallback;
	gfp_t gfp = GFP_KERNEL;
	unsigned long off;
	bool blocks = false;
	void *addr = NULL;
	pgprot_t prot;

	if (!ctx->valid || !as || !len)
		return NULL;
	/* now, not at boot: see &enum jit_prot */
	prot = jit_prot_pgprot(as->prot);

	/* Requests that cannot fit must not flood the log with failures. */
	primary = jit_range_fits(as->start, as->end, len);
	fallback = as->fallback_end &&
		   jit_range_fits(as->fallback_start, as->fallback_end, len);
	if (!primary && !fallback)
		return NULL;

	if (!text || !p->text_fill)
		gfp |= __GFP_ZERO;

	/* above the KASLR offset first; without one, that is the range itself */
	off = jit_random_offset(ctx);
	if (primary && off && jit_range_fits(as->start + off, as->end, len))
		addr = jit_vmalloc(ctx, as->start + off, as->end, prot,
				   len, gfp | __GFP_NOWARN, caller, &blocks);
	if (!addr && primary)
		addr = jit_vmalloc(ctx, as->start, as->end, prot, len,
				   fallback ? gfp | __GFP_NOWARN : gfp, caller,
				   &blocks);
	if (!addr && fallback)
		addr = jit_vmalloc(ctx, as->fallback_start, as->fallback_end,
				   prot, len, gfp, caller, &blocks);
	if (!addr)
		return NULL;
	if (blocks)
		area |= JIT_AREA_BLOCKS;

	if (jit_kasan_shadow(ctx) &&
	    kasan_alloc_module_shadow(addr, len, GFP_KERNEL) < 0)
		goto err_free;

	/* Memory is intended to be executable, reset the pointer tag. */
	addr = kasan_reset_tag(addr);

	if (text) {
		area |= JIT_AREA_TEXT;
		if (p->text_fill)
			jit_fill_alias(addr, len, p->text_fill);
	}
	/* not writable through its own mapping: written by text poking */
	if (text && as->prot == JIT_PROT_ROX)
		area |= JIT_AREA_POKE;
	if ((area & JIT_AREA_ALIAS) && jit_protect_aliases(addr, len))
		goto err_free;
	/*
	 * Executable from the start: the instruction cache must see the
	 * fill (or zeroes) written through the linear map, not what the
	 * pages last held, as for the cache's pages.
	 */
	if (text && as->prot == JIT_PROT_ROX)
		flush_icache_range((unsigned long)addr,
				   (unsigned long)addr + len);

	if (mtree_insert_range(&jit_areas, (unsigned long)addr,
			       (unsigned long)addr + len - 1,
			       xa_mk_value(area), GFP_KERNEL))
		goto err_free;

	if (text)
		atomic_long_add(PAGE_ALIGN(len) >> PAGE_SHIFT, &jit_text_pages);
	trace_jit_alloc(addr, len, PAGE_ALIGN(len), jit_area_user(area),
			blocks ? JIT_TRACE_BACKEND_BLOCKS : JIT_TRACE_BACKEND_VMALLOC,
			(area & JIT_AREA_FALLBACK) && jit_cache_enabled);
	return addr;

err_free:
	jit_vfree(addr, area);
	return NULL;
}

#ifdef CONFIG_JIT_ALLOC_CACHE
/* Pool serving each text type the architecture marked cacheable. */
static struct jit_cache_pool *jit_pools[JIT_TYPE_NR] __ro_after_init;

/* Fully free huge pages are given back after this long. */
#define JIT_CACHE_GRACE_MS	1000

/*
 * Text for a cacheable type: from its pool, or when the pool has no room,
 * from vmalloc with the same promise - read-only, executable, trap-filled,
 * with a read-only direct-map alias and written only by text poking - so
 * users need not care which.
 */
static void *jit_cache_text_alloc(enum jit_alloc_type type, size_t len,
				  const void *caller)
{
	struct jit_address_space as = jit_ctx.params.types[type];
	void *p;

	/*
	 * kprobes allocates with text_mutex held, see prepare_kprobe(), and
	 * so does x86 ITS for a module's thunks, see its_init_mod(); not for
	 * the kernel's own at boot, which may wait for a huge page.  A pool
	 * switched off at boot serves nothing: every request takes the
	 * page-granular path.
	 */
	if (type == JIT_TYPE_KPROBES ||
	    (type == JIT_TYPE_ITS && system_state != SYSTEM_BOOTING))
		p = jit_cache_alloc_nowait(jit_pools[type], len, type);
	else
		p = jit_cache_alloc(jit_pools[type], len, type);
	if (p)
		return p;

	as.prot = JIT_PROT_ROX;
	p = __jit_alloc(&jit_ctx, &as, true, len,
			JIT_AREA_POKE | JIT_AREA_FALLBACK | JIT_AREA_ALIAS |
			JIT_AREA_TYPE(type), caller);
	if (p)
		jit_cache_pool_count_fallback(jit_pools[type],
					      PAGE_ALIGN(len) >> PAGE_SHIFT);
	return p;
}

static bool jit_params_caches(const struct jit_alloc_params *p, int type)
{
	return (p->cache_types & BIT(type)) && jit_type_is_text(type);
}

/*
 * One pool per distinct range of the cacheable types, named after the
 * types that share it, e.g. "kprobes+ftrace+bpf"; and the page blocks of
 * the page-granular allocations if the architecture wants them.
 */
static void __init jit_alloc_cache_init(void)
{
	const struct jit_alloc_params *p = &jit_ctx.params;
	struct jit_cache_pool *pool;
	struct jit_address_space as;
	unsigned long sharing;
	/* room for every type's name and a '+' after each: never cut short */
	char name[JIT_TYPE_NR * sizeof("bpf_trampoline+")];
	size_t len;
	int i, j;

	if (!jit_ctx.valid)
		return;
	if (!jit_cache_enabled)
		pr_info("cache off (jitalloc_cache=off): text is page-granular\n");
	else if (p->flags & JIT_ALLOC_GROUP_PAGES)
		jit_ctx.blocks = jit_block_pool_create("page_blocks", 0, 0);
	for (i = 0; i < JIT_TYPE_NR; i++) {
		if (!jit_params_caches(p, i) || jit_pools[i])
			continue;
		/* the cacheable types with this range, and the pool's name */
		sharing = 0;
		name[0] = '\0';
		for (j = i; j < JIT_TYPE_NR; j++) {
			if (!jit_params_caches(p, j) ||
			    !jit_same_range(&p->types[i], &p->types[j]))
				continue;
			sharing |= BIT(j);
			len = strlen(name);
			WARN_ON_ONCE(snprintf(name + len, sizeof(name) - len,
					      "%s%s", len ? "+" : "",
					      jit_type_name(j)) >=
				     sizeof(name) - len);
		}
		as = p->types[i];
		as.prot = JIT_PROT_ROX;
		pool = jit_cache_pool_create(name, &as, jit_kasan_shadow(&jit_ctx),
					     p->text_fill, JIT_CACHE_GRACE_MS);
		/*
		 * Randomized placement is module KASLR: for a pool holding
		 * module text.  Scattering the huge pages of a pool over a
		 * range as large as vmalloc space would take page tables for
		 * each and keep them, since vunmap does not free them.
		 */
		if (pool && (p->flags & JIT_ALLOC_RANDOMIZE) &&
		    (sharing & BIT(JIT_TYPE_MODULE_TEXT)))
			jit_cache_pool_randomize(pool);
		if (pool && (p->flags & JIT_ALLOC_CACHE_TOP_DOWN) &&
		    (sharing & BIT(JIT_TYPE_MODULE_TEXT)))
			jit_cache_pool_top_down(pool);
		if (pool && !jit_cache_enabled)
			jit_cache_pool_switch_off(pool);
		for_each_set_bit(j, &sharing, JIT_TYPE_NR)
			jit_pools[j] = pool;
	}
}

/*
 * After jit_alloc_arch_params_late(): each pool follows its types' range
 * in @p.  A range may move only where nothing was allocated yet: first
 * every pool is asked, and if one cannot move, none does.
 *
 * Return: 0, or -EBUSY (nothing moved).
 */
static int __init jit_alloc_cache_move(const struct jit_alloc_params *p)
{
	struct jit_address_space as;
	int i, pass, err;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < JIT_TYPE_NR; i++) {
			if (!jit_pools[i])
				continue;
			as = p->types[i];
			as.prot = JIT_PROT_ROX;
			err = jit_cache_pool_set_range(jit_pools[i], &as, pass);
			if (err) {
				pr_err("the %s pool holds memory: the placement drawn at boot is not used\n",
				       jit_type_name(i));
				return err;
			}
		}
	}
	if ((p->flags & JIT_ALLOC_RANDOMIZE) && jit_pools[JIT_TYPE_MODULE_TEXT])
		jit_cache_pool_randomize(jit_pools[JIT_TYPE_MODULE_TEXT]);
	return 0;
}

/* Account the free of a page-granular allocation made for a pool. */
static void jit_cache_free_fallback(unsigned long area, size_t len)
{
	enum jit_alloc_type type = jit_area_type(area);

	if ((area & JIT_AREA_FALLBACK) && type < JIT_TYPE_NR && jit_pools[type])
		jit_cache_pool_count_fallback(jit_pools[type],
					      -(long)(PAGE_ALIGN(len) >> PAGE_SHIFT));
}

/**
 * jit_alloc_type_pool() - the pool that serves a type, for the KUnit test
 * @type: a text type
 *
 * Return: the pool, or %NULL when the type is not cached.
 */
struct jit_cache_pool *jit_alloc_type_pool(enum jit_alloc_type type)
{
	return type < JIT_TYPE_NR ? jit_pools[type] : NULL;
}
#else
static struct jit_cache_pool *jit_pools[JIT_TYPE_NR];

static inline void *jit_cache_text_alloc(enum jit_alloc_type type, size_t len,
					 const void *caller)
{
	return NULL;
}

static inline void jit_alloc_cache_init(void) { }
static inline void jit_cache_free_fallback(unsigned long area, size_t len) { }

static inline int jit_alloc_cache_move(const struct jit_alloc_params *p)
{
	return 0;
}
#endif /* CONFIG_JIT_ALLOC_CACHE */

/**
 * jit_type_is_rox() - is text of a type read-only and executable from the start?
 * @type: a text type of &enum jit_alloc_type
 *
 * Memory of such a type is filled with trapping instructions, may share a
 * huge mapping with other users, and must only be written with
 * jit_update_copy() and jit_update_set(); its user must not change its
 * permissions with set_memory_*().
 *
 * Return: true if text of @type is handed out read-only and executable.
 */
bool jit_type_is_rox(enum jit_alloc_type type)
{
	return type < JIT_TYPE_NR && jit_pools[type];
}

/**
 * jit_type_is_cached() - is text of a type served by the huge page cache?
 * @type: a text type of &enum jit_alloc_type
 *
 * For users that pick their own policy by it (BPF packs, how long kprobes
 * keeps an empty slot page): text of a type that is read-only from the
 * start (jit_type_is_rox()) is page-granular when the cache was switched
 * off at boot ("jitalloc_cache=off").
 *
 * Return: true if text of @type comes from chunks of the cache's pages.
 */
bool jit_type_is_cached(enum jit_alloc_type type)
{
	return jit_type_is_rox(type) && jit_cache_enabled;
}

/**
 * jit_alloc_ctx_alloc() - allocate from an explicit context
 * @ctx: a context set up by jit_alloc_ctx_init()
 * @as: an address space of @ctx, see jit_alloc_ctx_space()
 * @text: allocate text (filled with &jit_alloc_params.text_fill and written
 *	with text poking if the context says so) rather than data
 * @len: size of the allocation in bytes
 *
 * The allocation functions of the API are this function on the kernel's
 * context; the KUnit test uses it with contexts of its own.  Free the
 * result with jit_free().
 *
 * Return: the allocation, or %NULL.
 */
void *jit_alloc_ctx_alloc(const struct jit_alloc_ctx *ctx,
			  const struct jit_address_space *as, bool text,
			  size_t len)
{
	return __jit_alloc(ctx, as, text, len, 0, __builtin_return_address(0));
}

/**
 * jit_text_alloc() - allocate executable memory
 * @len: size of the allocation in bytes
 *
 * Allocate @len bytes of memory for code, placed and mapped as the
 * architecture requires for text of no particular user.  The memory is
 * filled with the architecture's &jit_alloc_params.text_fill byte (zero
 * unless it says otherwise).  If the architecture maps text read-only, it
 * can only be written with jit_update_copy() and jit_update_set().
 *
 * Context: Process context, may sleep.
 * Return: the allocation, or %NULL if @len is zero or no memory could be had.
 */
void *jit_text_alloc(size_t len)
{
	return __jit_alloc(&jit_ctx, &jit_ctx.params.text, true, len, 0,
			   __builtin_return_address(0));
}

/**
 * jit_data_alloc() - allocate memory for data that belongs with code
 * @len: size of the allocation in bytes
 *
 * Allocate @len bytes of zeroed, writable, non-executable memory placed
 * where the architecture requires data that code refers to (e.g. within
 * reach of PC-relative addressing from text).
 *
 * Context: Process context, may sleep.
 * Return: the allocation, or %NULL if @len is zero or no memory could be had.
 */
void *jit_data_alloc(size_t len)
{
	return __jit_alloc(&jit_ctx, &jit_ctx.params.data, false, len, 0,
			   __builtin_return_address(0));
}

/**
 * jit_text_alloc_type() - allocate executable memory for a type of user
 * @type: the user, which must be a text type of &enum jit_alloc_type
 * @len: size of the allocation in bytes
 *
 * Like jit_text_alloc(), but placed in the address space the architecture
 * gives @type, if it gives it one.
 *
 * Context: Process context, may sleep.
 * Return: the allocation, or %NULL.
 */
void *jit_text_alloc_type(enum jit_alloc_type type, size_t len)
{
	if (type >= JIT_TYPE_NR || !jit_type_is_text(type)) {
		jit_refuse(JIT_REFUSED_TYPE, "%d is not a text type\n", type);
		return NULL;
	}
	if (jit_pools[type])
		return jit_cache_text_alloc(type, len,
					    __builtin_return_address(0));
	return __jit_alloc(&jit_ctx, &jit_ctx.params.types[type], true, len,
			   JIT_AREA_TYPE(type), __builtin_return_address(0));
}

/**
 * jit_data_alloc_type() - allocate data memory for a type of user
 * @type: the user, which must be a data type of &enum jit_alloc_type
 * @len: size of the allocation in bytes
 *
 * Like jit_data_alloc(), but placed in the address space the architecture
 * gives @type, if it gives it one.
 *
 * Context: Process context, may sleep.
 * Return: the allocation, or %NULL.
 */
void *jit_data_alloc_type(enum jit_alloc_type type, size_t len)
{
	if (type >= JIT_TYPE_NR || jit_type_is_text(type)) {
		jit_refuse(JIT_REFUSED_TYPE, "%d is not a data type\n", type);
		return NULL;
	}
	return __jit_alloc(&jit_ctx, &jit_ctx.params.types[type], false, len,
			   JIT_AREA_TYPE(type), __builtin_return_address(0));
}

/**
 * jit_free() - free memory allocated by the jit allocator
 * @buf: the start of an allocation, or %NULL
 *
 * A pointer that is not the start of a live allocation is refused: it is
 * warned about and counted, and nothing is freed.
 *
 * Context: Process context, may sleep.
 */
void jit_free(void *buf)
{
	unsigned long addr = (unsigned long)buf, area;
	bool found = false;
	size_t len = 0;
	void *entry;

	MA_STATE(mas, &jit_areas, addr, addr);

	if (!buf)
		return;
	might_sleep();
	/* before the memory can be handed out again */
	atomic_long_inc(&jit_frees);

	/*
	 * A removal from the maple tree may need a node, and one that failed
	 * would leave a stale entry that lookups take for a live allocation
	 * (writes into freed memory would pass jit_update_check()).  So the
	 * entry is marked dying first - an overwrite of its exact range,
	 * which needs no node - and lookups and a second free take a dying
	 * entry for none; then jit_mtree_erase_range() erases it, which
	 * cannot fail.
	 */
	mtree_lock(&jit_areas);
	entry = mas_walk(&mas);
	if (entry && mas.index == addr &&
	    !(xa_to_value(entry) & JIT_AREA_DYING)) {
		len = mas.last - mas.index + 1;
		WARN_ON_ONCE(mas_store_gfp(&mas, xa_mk_value(xa_to_value(entry) |
							     JIT_AREA_DYING),
					   GFP_NOWAIT | __GFP_NOWARN));
		found = true;
	}
	mtree_unlock(&jit_areas);
	if (found)
		jit_mtree_erase_range(&jit_areas, addr, addr + len - 1);

	if (!found) {
		int err = jit_cache_free(buf);

		if (err)
			jit_refuse(JIT_REFUSED_FREE,
				   "free of %p, which is not a live allocation\n",
				   buf);
		return;
	}
	area = xa_to_value(entry);
	trace_jit_free(buf, PAGE_ALIGN(len), jit_area_user(area),
		       area & JIT_AREA_BLOCKS ? JIT_TRACE_BACKEND_BLOCKS :
						JIT_TRACE_BACKEND_VMALLOC);
	if (area & JIT_AREA_TEXT)
		atomic_long_sub(PAGE_ALIGN(len) >> PAGE_SHIFT, &jit_text_pages);
	jit_cache_free_fallback(area, len);
	jit_vfree(buf, area);
}

/* Is [@dst, @dst + @len) inside one live allocation?  Get its JIT_AREA_*. */
static bool jit_update_check(const void *dst, size_t len, unsigned long *area)
{
	unsigned long start = (unsigned long)dst, last;
	void *entry;
	bool ok;

	MA_STATE(mas, &jit_areas, start, start);

	if (check_add_overflow(start, len - 1, &last))
		return false;

	mtree_lock(&jit_areas);
	entry = mas_walk(&mas);
	ok = entry && !(xa_to_value(entry) & JIT_AREA_DYING) && last <= mas.last;
	if (ok)
		*area = xa_to_value(entry);
	mtree_unlock(&jit_areas);

	/* Not a vmalloc area of ours: cache memory is ROX text. */
	if (!entry && !jit_cache_check_update(dst, len)) {
		*area = JIT_AREA_TEXT | JIT_AREA_POKE;
		ok = true;
	}
	return ok;
}

/**
 * jit_addr_is_rox() - does an address lie in text handed out read-only?
 * @addr: any address
 *
 * For code patching primitives that are given addresses rather than
 * allocations, such as x86 text_poke_early() patching a module being
 * loaded: memory for which this is true can only be written with
 * jit_update_copy() and jit_update_set().  The one function of the API
 * exported, in namespace JITALLOC_TEST: the selftests' modules report
 * with it where their text lies; none of the others has a modular user.
 *
 * Context: Process context, may sleep.
 * Return: true if @addr is inside a live allocation of read-only text.
 */
bool jit_addr_is_rox(const void *addr)
{
	unsigned long area;

	return jit_update_check(addr, 1, &area) && (area & JIT_AREA_POKE);
}
EXPORT_SYMBOL_NS_GPL(jit_addr_is_rox, JITALLOC_TEST);

/**
 * jit_alloc_areas() - how many entries the allocator's area tree holds
 *
 * For mm/jitalloc_test.c: live page-granular allocations, and any entry a
 * free left behind (there must be none).
 *
 * Return: the number of entries.
 */
unsigned long jit_alloc_areas(void)
{
	unsigned long n = 0;
	void *entry;

	MA_STATE(mas, &jit_areas, 0, 0);

	mtree_lock(&jit_areas);
	mas_for_each(&mas, entry, ULONG_MAX)
		n++;
	mtree_unlock(&jit_areas);
	return n;
}

/**
 * jit_alloc_refused() - how many calls of the API were refused so far
 *
 * For mm/jitalloc_test.c: the bad-input cases check that each bad call
 * was refused, not just that nothing broke.
 *
 * Return: refused frees, updates and allocations of a bad type, together.
 */
unsigned long jit_alloc_refused(void)
{
	unsigned long n = 0;
	int i;

	for (i = 0; i < JIT_REFUSED_NR; i++)
		n += atomic_long_read(&jit_refused[i]);
	return n;
}

/**
 * jit_free_seq() - a count that moves whenever jit memory is freed
 *
 * Code may be placed where other code ran before.  A user that must know
 * whether that can have happened since some point compares two values:
 * BPF flushes branch predictors before classic BPF runs in chunks that
 * other code may have trained them for.  The count moves before freed
 * memory can be handed out again.
 *
 * Return: the number of jit_free() calls so far.
 */
unsigned long jit_free_seq(void)
{
	return atomic_long_read(&jit_frees);
}

/*
 * Text mapped read-only can only be written by the architecture's text
 * poking: without it there is no way to write such text, and a store
 * through its mapping would fault.
 */
int __weak jit_arch_text_copy(void *dst, const void *src, size_t len)
{
	WARN_ONCE(1, "jitalloc: no text poking to write read-only text\n");
	return -EOPNOTSUPP;
}

int __weak jit_arch_text_set(void *dst, int c, size_t len)
{
	WARN_ONCE(1, "jitalloc: no text poking to write read-only text\n");
	return -EOPNOTSUPP;
}

/*
 * Poke @len bytes at @dst: a copy of @src or, without @src, @c repeated.
 * At most JIT_POKE_CHUNK bytes go to one call of the architecture's hook,
 * so that a write of that size or smaller is one call, and a module's text,
 * megabytes of it, does not hold the poking lock all along.
 */
static int jit_poke(void *dst, const void *src, int c, size_t len)
{
	size_t done, n;
	int err;

	for (done = 0; done < len; done += n) {
		n = min_t(size_t, len - done, JIT_POKE_CHUNK);
		if (done)
			cond_resched();
		err = src ? jit_arch_text_copy(dst + done, src + done, n) :
			    jit_arch_text_set(dst + done, c, n);
		if (err)
			return err;
	}
	return 0;
}

/*
 * PAGE_KERNEL_ROX, plus what the architecture adds to executable kernel
 * mappings at run time (arm64: the BTI guard bit where the CPU has BTI);
 * asked each time memory is mapped, after CPU features are known.
 */
pgprot_t __weak jit_arch_rox_pgprot(void)
{
#ifdef JIT_PAGE_KERNEL_ROX
	return JIT_PAGE_KERNEL_ROX;
#else
	/* jit_params_valid() refuses JIT_PROT_ROX where this is reached */
	return PAGE_KERNEL;
#endif
}

/**
 * jit_update_copy() - write into memory from the jit allocator
 * @dst: where to write; [@dst, @dst + @len) must lie inside one allocation
 * @src: what to write
 * @len: how many bytes
 *
 * Text that the architecture maps read-only is written with text poking,
 * at most 64 KiB under the architecture's poking lock at a time, anything
 * else with memcpy().  A write that is not inside one live allocation is
 * refused: warned about, counted and not done.  Instruction caches are the
 * caller's business, as they are after memcpy().
 *
 * The write is atomic only as far as the architecture's poking makes it (an
 * aligned word at best): what runs while it is written must not depend on
 * more.  If poking fails part way, what was written before stays written.
 *
 * Context: Process context, may sleep.
 * Return: 0, -EINVAL for a refused write, or the architecture's error from
 * text poking.
 */
int jit_update_copy(void *dst, const void *src, size_t len)
{
	unsigned long area;

	if (!len)
		return 0;
	if (!jit_update_check(dst, len, &area)) {
		jit_refuse(JIT_REFUSED_UPDATE,
			   "copy to %p+%zu is not inside an allocation\n",
			   dst, len);
		return -EINVAL;
	}

	if (area & JIT_AREA_POKE) {
		atomic_long_inc(&jit_text_pokes);
		return jit_poke(dst, src, 0, len);
	}
	memcpy(dst, src, len);
	return 0;
}

/**
 * jit_update_set() - fill memory from the jit allocator with a byte
 * @dst: where to write; [@dst, @dst + @len) must lie inside one allocation
 * @c: the byte
 * @len: how many bytes
 *
 * Like jit_update_copy(), with memset() semantics.
 *
 * Context: Process context, may sleep.
 * Return: 0, -EINVAL for a refused write, or the architecture's error from
 * text poking.
 */
int jit_update_set(void *dst, int c, size_t len)
{
	unsigned long area;

	if (!len)
		return 0;
	if (!jit_update_check(dst, len, &area)) {
		jit_refuse(JIT_REFUSED_UPDATE,
			   "set of %p+%zu is not inside an allocation\n",
			   dst, len);
		return -EINVAL;
	}

	if (area & JIT_AREA_POKE) {
		atomic_long_inc(&jit_text_pokes);
		return jit_poke(dst, NULL, c, len);
	}
	memset(dst, c, len);
	return 0;
}

/**
 * jit_alloc_arch_params() - the architecture's constraints on jit memory
 *
 * Return: the parameters, or %NULL for the defaults (see &jit_alloc_params).
 * Architectures with constraints override this default; it is called once,
 * from jit_alloc_init().
 */
struct jit_alloc_params * __weak jit_alloc_arch_params(void)
{
	return NULL;
}

/**
 * jit_alloc_arch_params_late() - placement drawn once the boot has entropy
 *
 * An architecture that draws a placement at random (arm64's module region)
 * gives its parameters again here, with the drawn placement.  Called once,
 * from a subsys_initcall, when arm64 drew its module region in 6.1: the
 * random pool then holds the interrupts and timings of the boot so far (on
 * a board with only a device tree kaslr-seed, there is little else in it
 * at mm_init()).  Nothing may be allocated before in a range that moves.
 *
 * Return: the parameters with the drawn placement, or %NULL (the default:
 * nothing moves).
 */
struct jit_alloc_params * __init __weak jit_alloc_arch_params_late(void)
{
	return NULL;
}

/**
 * jit_alloc_init() - set up the jit allocator
 *
 * Called once from mm_init(), after vmalloc is up and before any user of
 * executable memory runs: ftrace_init() and early_trace_init()'s boot-time
 * tracers may ask for trampolines, sock_init() JITs a BPF program at
 * core_initcall.
 */
void __init jit_alloc_init(void)
{
	jit_alloc_ctx_init(&jit_ctx, jit_alloc_arch_params());
	jit_alloc_cache_init();
}

/* Take the placement the architecture draws late: see there. */
static int __init jit_alloc_late_init(void)
{
	static struct jit_alloc_ctx late __initdata;
	struct jit_alloc_params *p = jit_alloc_arch_params_late();

	if (!p || !jit_ctx.valid || jit_alloc_ctx_init(&late, p))
		return 0;
	/* the pools first: if one cannot follow, nothing moves */
	if (!jit_alloc_cache_move(&late.params))
		jit_ctx.params = late.params;
	return 0;
}
subsys_initcall(jit_alloc_late_init);

#ifdef CONFIG_JIT_ALLOC_CACHE
/* Count the executable pages of text area [@start, @last] and their aliases. */
static void jit_exec_aliases_count(unsigned long start, unsigned long last,
				   unsigned long area, unsigned long *checked,
				   unsigned long *writable, unsigned long *others)
{
	struct jit_leaf leaf;
	struct page *page;
	unsigned long addr;

	for (addr = start; addr <= last; addr += PAGE_SIZE) {
		jit_arch_kernel_leaf(addr, &leaf);
		if (!leaf.size || !leaf.exec)
			continue;
		page = vmalloc_to_page((void *)addr);
		if (!page || PageHighMem(page))
			continue;
		(*checked)++;
		jit_arch_kernel_leaf((unsigned long)page_address(page), &leaf);
		if (leaf.writable && (area & JIT_AREA_ALIAS))
			(*writable)++;
		else if (leaf.writable)
			(*others)++;
	}
}

/*
 * Pages of the page-granular text allocations that are mapped executable,
 * and how many of those have a writable linear alias (the cache's own
 * pages are checked by their pools' files), for debugfs "api": those whose
 * alias the allocator protected (JIT_AREA_ALIAS: the fallbacks, read-only
 * from the start) and, apart, those whose user protects them with
 * set_memory_*() (text of types the architecture does not cache).  The
 * areas' lock keeps every area walked mapped: jit_free() erases an area
 * before unmapping it.  The lock is let go between areas when someone
 * waits for it or for the CPU: the walk goes on from the next area still
 * there.
 */
static void jit_exec_aliases_show(struct seq_file *m)
{
	unsigned long area, checked = 0, writable = 0, others = 0;
	void *entry;

	MA_STATE(mas, &jit_areas, 0, 0);

	mtree_lock(&jit_areas);
	mas_for_each(&mas, entry, ULONG_MAX) {
		area = xa_to_value(entry);
		if ((area & JIT_AREA_TEXT) && !(area & JIT_AREA_DYING))
			jit_exec_aliases_count(mas.index, mas.last, area, &checked,
					       &writable, &others);
		if (need_resched() || spin_needbreak(&jit_areas.ma_lock)) {
			mas_pause(&mas);
			mtree_unlock(&jit_areas);
			cond_resched();
			mtree_lock(&jit_areas);
		}
	}
	mtree_unlock(&jit_areas);
	seq_printf(m, "exec_aliases_protected %d\n", jit_arch_can_protect_alias());
	seq_printf(m, "exec_pages_checked %lu\n", checked);
	seq_printf(m, "exec_alias_writable %lu\n", writable);
	seq_printf(m, "exec_alias_writable_user_protected %lu\n", others);
}
#else
static inline void jit_exec_aliases_show(struct seq_file *m)
{
}
#endif

/* Calls of the API that were refused; each also warned. */
static int jit_api_show(struct seq_file *m, void *v)
{
	seq_printf(m, "refused_frees %ld\n",
		   atomic_long_read(&jit_refused[JIT_REFUSED_FREE]));
	seq_printf(m, "refused_updates %ld\n",
		   atomic_long_read(&jit_refused[JIT_REFUSED_UPDATE]));
	seq_printf(m, "refused_types %ld\n",
		   atomic_long_read(&jit_refused[JIT_REFUSED_TYPE]));
	seq_printf(m, "alias_errors %ld\n", atomic_long_read(&jit_alias_errors));
	seq_printf(m, "frees %ld\n", atomic_long_read(&jit_frees));
	seq_printf(m, "text_pokes %ld\n", atomic_long_read(&jit_text_pokes));
	seq_printf(m, "text_pages %lu\n", jit_text_held_pages());
	seq_printf(m, "cache_pages %ld\n", jit_cache_held_pages());
	jit_exec_aliases_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(jit_api);

#ifdef CONFIG_FAULT_INJECTION
DECLARE_FAULT_ATTR(jit_fail_tree_erase);
#endif

/*
 * /sys/kernel/debug/jitalloc: "api" here, and the statistics files of the
 * cache's pools and page blocks, handed the directory.
 */
static int __init jit_debugfs_init(void)
{
	struct dentry *dir;

	if (!IS_ENABLED(CONFIG_DEBUG_FS))
		return 0;
	dir = debugfs_create_dir("jitalloc", NULL);
	if (IS_ERR(dir))
		return 0;
	debugfs_create_file("api", 0400, dir, NULL, &jit_api_fops);
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	fault_create_debugfs_attr("fail_tree_erase", dir, &jit_fail_tree_erase);
#endif
	jit_cache_debugfs_init(dir);
	jit_block_debugfs_init(dir);
	return 0;
}
late_initcall(jit_debugfs_init);
