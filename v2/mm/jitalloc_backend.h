/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitalloc_cache's backend on a kernel with execmem: what the chunk cache
 * (mm/jitalloc_cache.c and the architectures' hooks) takes from the
 * allocator it serves.  execmem's types are the cache's users, a type's
 * range is a pool's placement, and every write into the cache goes
 * through the architecture's text poking.  The glue that feeds
 * execmem_alloc() and execmem_free() to the cache is mm/execmem_cache.c.
 */
#ifndef _MM_JITALLOC_BACKEND_H
#define _MM_JITALLOC_BACKEND_H

#include <linux/execmem.h>
#include <linux/maple_tree.h>
#include <linux/mmzone.h>
#include <linux/pgtable.h>
#include <linux/sched/mm.h>
#include <linux/shrinker.h>
#include <linux/sizes.h>
#include <linux/types.h>

/* Is the cache built? */
#define JIT_CACHE_CONFIGURED	IS_ENABLED(CONFIG_EXECMEM_CACHE)

/* One more than the largest order the buddy allocator hands out. */
#define JIT_MAX_ORDER		(MAX_PAGE_ORDER + 1)

/* The users of the cache's chunks: execmem's types. */
enum jit_alloc_type {
	JIT_TYPE_MODULE_TEXT	= EXECMEM_MODULE_TEXT,
	JIT_TYPE_KPROBES	= EXECMEM_KPROBES,
	JIT_TYPE_FTRACE		= EXECMEM_FTRACE,
	JIT_TYPE_BPF		= EXECMEM_BPF,
	JIT_TYPE_MODULE_DATA	= EXECMEM_MODULE_DATA,
	JIT_TYPE_NR		= EXECMEM_TYPE_MAX,
};

/**
 * jit_type_name() - the name of an execmem type in statistics and trace events
 * @type: an &enum execmem_type
 *
 * Return: "modules", "bpf" and so on; "?" for no type.
 */
static inline const char *jit_type_name(enum jit_alloc_type type)
{
	static const char * const names[JIT_TYPE_NR] = {
		[JIT_TYPE_MODULE_TEXT]	= "modules",
		[JIT_TYPE_KPROBES]	= "kprobes",
		[JIT_TYPE_FTRACE]	= "ftrace",
		[JIT_TYPE_BPF]		= "bpf",
		[JIT_TYPE_MODULE_DATA]	= "module_data",
	};

	return (unsigned int)type < JIT_TYPE_NR ? names[type] : "?";
}

/*
 * The protections of a pool's mapping: read-only and executable.  A kind,
 * not a &pgprot_t, turned into page-table bits each time memory is mapped
 * (execmem_rox_pgprot()): arm64 makes kernel mappings non-global only when
 * KPTI is decided, after the CPUs came up, and adds the BTI guard bit.
 */
enum jit_prot {
	JIT_PROT_ROX,
};

/**
 * struct jit_address_space - where a pool places its huge pages
 * @prot: %JIT_PROT_ROX
 * @start: start of the primary range
 * @end: its end (exclusive)
 * @fallback_start: start of the range tried when the primary one is full
 * @fallback_end: its end; zero if there is none
 */
struct jit_address_space {
	enum jit_prot	prot;
	unsigned long	start;
	unsigned long	end;
	unsigned long	fallback_start;
	unsigned long	fallback_end;
};

pgprot_t execmem_rox_pgprot(void);

static inline pgprot_t jit_prot_pgprot(enum jit_prot prot)
{
	return execmem_rox_pgprot();
}

/* Architecture text poking, in arch/<arch>/mm/jitalloc_cache.c. */
int jit_arch_text_copy(void *dst, const void *src, size_t len);
int jit_arch_text_set(void *dst, int c, size_t len);
/*
 * The cache and execmem_update_copy() poke at most this much text per
 * call: x86 holds text_mutex, which kprobes, ftrace and static calls
 * take too, for a whole call.
 */
#define JIT_POKE_CHUNK	SZ_64K

/*
 * The entry of @mt whose range holds @addr, or NULL; that range's first and
 * last index into @first and @last.
 */
static inline void *jit_mtree_range_of(struct maple_tree *mt,
				       unsigned long addr, unsigned long *first,
				       unsigned long *last)
{
	void *entry;

	MA_STATE(mas, mt, addr, addr);

	mtree_lock(mt);
	entry = mas_walk(&mas);
	*first = mas.index;
	*last = mas.last;
	mtree_unlock(mt);
	return entry;
}

/*
 * Erase the range @mas points at in @mt, whose lock the caller holds: the
 * store runs with GFP_NOWAIT, which never lets the lock go.  Return true
 * once erased; false when there was no node, after letting the lock go
 * for a little wait and taking it again: the caller sets @mas again and
 * starts over (the tree may have changed meanwhile).  May sleep.
 */
static inline bool jit_mas_erase_or_wait(struct maple_tree *mt,
					 struct ma_state *mas)
{
	if (!mas_store_gfp(mas, NULL, GFP_NOWAIT | __GFP_NOWARN))
		return true;
	mas_destroy(mas);
	mtree_unlock(mt);
	memalloc_retry_wait(GFP_KERNEL);
	mtree_lock(mt);
	return false;
}

/*
 * Erase [@first, @last] of @mt, which holds one entry there that nobody
 * else removes, without failing (jit_mas_erase_or_wait() until it is
 * done).  May sleep; safe from a shrinker.
 */
static inline void jit_mtree_erase_range(struct maple_tree *mt,
					 unsigned long first,
					 unsigned long last)
{
	MA_STATE(mas, mt, first, last);

	mtree_lock(mt);
	while (!jit_mas_erase_or_wait(mt, &mas))
		mas_set_range(&mas, first, last);
	mtree_unlock(mt);
}

/*
 * Take the range that starts at @addr out of @mt: found and erased under
 * one hold of the tree's lock (jit_mas_erase_or_wait(), which may let it
 * go, after which the walk starts over), so that of two frees racing for
 * it only one gets it.  Return its entry, with its last index in *@last;
 * NULL when no range holds @addr; ERR_PTR(-EINVAL) when one holds it but
 * does not start there (nothing is erased).  May sleep.
 */
static inline void *jit_mtree_take(struct maple_tree *mt, unsigned long addr,
				   unsigned long *last)
{
	MA_STATE(mas, mt, addr, addr);
	void *entry;

	mtree_lock(mt);
	for (;;) {
		entry = mas_walk(&mas);
		if (!entry)
			break;
		if (mas.index != addr) {
			entry = ERR_PTR(-EINVAL);
			break;
		}
		*last = mas.last;
		if (jit_mas_erase_or_wait(mt, &mas))
			break;
		mas_set(&mas, addr);
	}
	mtree_unlock(mt);
	return entry;
}

/*
 * The trace events (include/trace/events/jitalloc.h) copy a string field
 * with this: since 6.10 __assign_str() takes the field alone.
 */
#define jit_trace_assign_str(field, src) \
	do { (void)(src); __assign_str(field); } while (0)

/*
 * Register a shrinker made from @tmpl's callbacks, under @name: since 6.7
 * shrinkers are allocated by shrinker_alloc().
 */
static inline int jit_register_shrinker(struct shrinker *tmpl,
					const char *name)
{
	struct shrinker *s = shrinker_alloc(0, "%s", name);

	if (!s)
		return -ENOMEM;
	s->count_objects = tmpl->count_objects;
	s->scan_objects = tmpl->scan_objects;
	s->seeks = tmpl->seeks;
	shrinker_register(s);
	return 0;
}

#endif /* _MM_JITALLOC_BACKEND_H */
