// SPDX-License-Identifier: GPL-2.0
/*
 * jitalloc_hugemod - jitalloc_bigmod with 16 MiB of text, an eighth of
 * arm64's 128 MiB module region: it must fit there beside the cache's huge
 * pages, as it did with module_alloc().
 */
#define JT_BIG_FILL	0x1000000
#define JT_BIG_DESC	"jitalloc test module with 16 MiB of text"
#include "jitalloc_bigmod.c"
