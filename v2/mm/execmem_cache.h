/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mm/execmem.c calls of its cache, mm/execmem_cache.c: text of the
 * types an architecture flags %EXECMEM_ROX_CACHE in 64-byte chunks of
 * huge read-only executable pages.
 */
#ifndef _MM_EXECMEM_CACHE_H
#define _MM_EXECMEM_CACHE_H

#include <linux/execmem.h>

#ifdef CONFIG_EXECMEM_CACHE
void execmem_cache_init(struct execmem_info *info);
void *execmem_cache_alloc(enum execmem_type type, size_t size, bool nowait);
int execmem_cache_fallback(enum execmem_type type, void *p, size_t size);
bool execmem_cache_free(void *p, const void *caller);
void execmem_cache_refuse_free(void *p, const void *caller);
/* for the KUnit test, mm/execmem_cache_test.c */
struct jit_cache_pool *execmem_cache_pool(enum execmem_type type);
unsigned long execmem_cache_refused(void);
#else
static inline void execmem_cache_init(struct execmem_info *info)
{
	for (int i = 0; i < EXECMEM_TYPE_MAX; i++)
		info->ranges[i].flags &= ~EXECMEM_ROX_CACHE;
}

static inline void *execmem_cache_alloc(enum execmem_type type, size_t size,
					bool nowait)
{
	return NULL;
}

static inline int execmem_cache_fallback(enum execmem_type type, void *p,
					 size_t size)
{
	return -EINVAL;
}

static inline bool execmem_cache_free(void *p, const void *caller)
{
	return false;
}
#endif

#endif /* _MM_EXECMEM_CACHE_H */
