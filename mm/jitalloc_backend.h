/* SPDX-License-Identifier: GPL-2.0 */
/*
 * jitalloc_cache's backend: what the chunk cache (mm/jitalloc_cache.c,
 * mm/jitalloc_blocks.c and the architectures' hooks) takes from the
 * allocator it serves.  Here that is the jit allocator, mm/jitalloc.c:
 * its types of users, address spaces and protections, its text poking
 * and its tree helpers.  A kernel whose executable memory comes from
 * another allocator gives the cache the same names in a header of its own.
 */
#ifndef _MM_JITALLOC_BACKEND_H
#define _MM_JITALLOC_BACKEND_H

#include <linux/jitalloc.h>
#include <linux/mmzone.h>
#include <linux/shrinker.h>

#include "jitalloc_internal.h"

/* Is the cache built? */
#define JIT_CACHE_CONFIGURED	IS_ENABLED(CONFIG_JIT_ALLOC_CACHE)

/* One more than the largest order the buddy allocator hands out. */
#define JIT_MAX_ORDER		MAX_ORDER

/**
 * jit_type_name() - the name of a jit type in statistics and trace events
 * @type: an &enum jit_alloc_type
 *
 * Return: "modules", "bpf" and so on; "?" for no type.
 */
static inline const char *jit_type_name(enum jit_alloc_type type)
{
	static const char * const names[JIT_TYPE_NR] = {
		[JIT_TYPE_MODULE_TEXT]		= "modules",
		[JIT_TYPE_MODULE_DATA]		= "module_data",
		[JIT_TYPE_MODULE_INIT]		= "module_init",
		[JIT_TYPE_KPROBES]		= "kprobes",
		[JIT_TYPE_FTRACE]		= "ftrace",
		[JIT_TYPE_BPF]			= "bpf",
		[JIT_TYPE_BPF_TRAMPOLINE]	= "bpf_trampoline",
		[JIT_TYPE_ITS]			= "its",
	};

	return (unsigned int)type < JIT_TYPE_NR ? names[type] : "?";
}

/*
 * The trace events (include/trace/events/jitalloc.h) copy a string field
 * with this: __assign_str() takes the field and its source.
 */
#define jit_trace_assign_str(field, src)	__assign_str(field, src)

/* Register a shrinker made from @tmpl's callbacks, under @name. */
static inline int jit_register_shrinker(struct shrinker *tmpl,
					const char *name)
{
	return register_shrinker(tmpl, name);
}

#endif /* _MM_JITALLOC_BACKEND_H */
