/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What mm/execmem.c calls of mm/execmem_blocks.c: the pages of ranges an
 * architecture flags %EXECMEM_PAGE_BLOCKS (module data) from physically
 * contiguous blocks, so that their permission changes split the direct map
 * once per block.
 */
#ifndef _MM_EXECMEM_BLOCKS_H
#define _MM_EXECMEM_BLOCKS_H

#include <linux/execmem.h>

#ifdef CONFIG_EXECMEM_CACHE
void execmem_blocks_init(struct execmem_info *info);
void *execmem_blocks_alloc(const struct execmem_range *range, size_t size);
bool execmem_blocks_free(void *p, const void *caller);
bool execmem_blocks_off_for_kasan(void);
bool execmem_blocks_mapping(const void *p);
#else
static inline void execmem_blocks_init(struct execmem_info *info)
{
	for (int i = 0; i < EXECMEM_TYPE_MAX; i++)
		info->ranges[i].flags &= ~EXECMEM_PAGE_BLOCKS;
}

static inline void *execmem_blocks_alloc(const struct execmem_range *range,
					 size_t size)
{
	return NULL;
}

static inline bool execmem_blocks_free(void *p, const void *caller)
{
	return false;
}

static inline bool execmem_blocks_off_for_kasan(void)
{
	return false;
}

static inline bool execmem_blocks_mapping(const void *p)
{
	return false;
}
#endif

#endif /* _MM_EXECMEM_BLOCKS_H */
